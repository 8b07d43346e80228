"""The checked build of the core: every move verifies the invariants of the state it leaves.

`DNOIR_CHECKED=1 pip install .` compiles apply_move (ext/state.pxd) with a call to
`state_problem` after every move, which aborts the process, naming the move and the broken
invariant, if one does not hold. .ci/run builds it once in an environment of its own and
runs this file and the differential tests (test_rules_differential.py, test_perft.py) over
it, with DNOIR_CHECKED=1 set for that run. In a normal build the check is compiled out.
"""

import os
import signal
import subprocess
import sys

import pytest

from solver.rules import _core
from solver.rules.cards import Move

CHECKED_RUN = os.environ.get("DNOIR_CHECKED", "") not in ("", "0")
ROUND4 = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"


def test_the_core_is_the_build_the_run_asks_for():
    """A run with DNOIR_CHECKED=1 tests the checked core, never a normal one by mistake."""
    assert _core.CHECKED is CHECKED_RUN


def test_a_normal_build_has_no_unchecked_moves():
    if _core.CHECKED:
        pytest.skip("the normal build only")
    with pytest.raises(RuntimeError, match="checked build"):
        _core.CoreState.deal(1)._play_unchecked(0)


@pytest.mark.skipif(not _core.CHECKED, reason="the checked build only")
@pytest.mark.parametrize("move, reason", [
    # after b plays 8, a (who has taken, holding 5 and 8) takes a second time
    ("T", "a hand holds more cards than its player's actions leave"),
    # a plays a 7, which it does not hold
    ("7", "a hand holds more cards than its player's actions leave"),
])
def test_a_move_that_breaks_an_invariant_aborts_with_the_reason(move, reason):
    script = ("from solver import Position\n"
              "from solver.rules.cards import Move\n"
              f"pos = Position.parse({ROUND4!r}).play('8')\n"
              f"pos.core._play_unchecked(Move.parse({move!r}).index)\n"
              "print('not aborted')\n")
    run = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGABRT, (run.stdout, run.stderr)
    assert run.stdout == ""
    kind = Move.parse(move).index
    assert f"dnoir checked build: the state after move {kind} breaks an invariant: {reason}" in run.stderr


@pytest.mark.skipif(not _core.CHECKED, reason="the checked build only")
def test_legal_games_pass_the_check():
    """Random games to the end (the core's own loop, every move checked) and perft run through."""
    assert _core.random_games(2000, 7)
    assert _core.CoreState.deal(3).perft(4) > 0


@pytest.mark.skipif(not _core.CHECKED, reason="the checked build only")
def test_searches_pass_the_check():
    """ISMCTS over positions of every round, the per-hand statistics and a kept tree on: every
    move of every iteration is checked, and each node's block of children (one slot per move
    that some world consistent with the view allows) must hold every legal move of every world
    that reaches it, or the build aborts."""
    import random

    from solver import Position
    from solver.solvers.limit import Limit
    from solver.solvers.search import KeptTree, advise

    rng = random.Random(3)
    for seed in range(6):
        pos, kept = Position.random_deal(seed), KeptTree()
        while not pos.is_over and pos.round < 4:
            if pos.to_move == 0:
                advice = advise(pos.view("a"), Limit(iterations=400), threads=1, seed=seed, kept=kept)
                pos = pos.play(advice.best)
            else:
                pos = pos.play(rng.choice(pos.legal_moves()))
