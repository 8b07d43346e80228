"""Shared helpers for the test suite.

The tests import the installed `solver` package (run `pytest` from the repository
root after `pip install .`); the reference model is imported from tests/refmodel.
tests/vectors holds a copy of the known-good vectors of ../shared/vectors.
"""

import json
import signal
from pathlib import Path

VECTORS = Path(__file__).resolve().parent / "vectors"

# Several tests press Ctrl-C on a `dnoir` subprocess (SIGINT) and expect exit code 130. A
# process started with SIGINT ignored (pytest run from `nohup`, or in the background of a
# shell without job control) passes that on to its children, and a Python child started
# so never raises KeyboardInterrupt: the command would run on. A handler set here is reset
# to the default in every child at exec, so each `dnoir` starts with Ctrl-C working.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def load_vectors(name: str) -> list[dict]:
    """The records of one JSONL vector file in tests/vectors."""
    lines = (VECTORS / name).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def random_position(seed: int, moves: int):
    """The position after up to `moves` random moves (seeded) from the seeded deal."""
    import random

    from solver import Position

    rng = random.Random(seed)
    pos = Position.random_deal(seed)
    for _ in range(moves):
        if pos.is_over:
            break
        pos = pos.play(rng.choice(pos.legal_moves()))
    return pos


def dealt_view(seed: int = 1):
    """The view of the side to move in the seeded deal."""
    from solver import Position

    pos = Position.random_deal(seed)
    return pos.view("ab"[pos.to_move])


def root_table(searcher) -> list[tuple]:
    """A searcher's root as (move, visits, reward) rows in move order: equal for equal trees."""
    return sorted((move, s.visits, s.reward) for move, s in searcher.root_stats().items())


def run_cli(capsys, *args):
    """(exit code, stdout, stderr) of `dnoir args`, run in this process."""
    from solver.cli.main import main

    try:
        code = main(list(args))
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err
