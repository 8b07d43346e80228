"""Every public entry point of the Python API refuses a bad argument with a `DnoirError`.

The README promises that every input mistake raises a subclass of
`solver.errors.DnoirError` (a `ValueError`), never a bare ValueError, IndexError or
KeyError, and that nothing nonsensical is accepted silently. One case per entry point and
kind of mistake; a case that fails today is marked `xfail(strict=True)` with the issue
that fixes it, so that it turns into a failure (and its mark must go) once fixed.
"""

import pytest

from solver import Move, Position
from solver.agents.arena import make_player, play_game
from solver.agents.bots import make_bot
from solver.agents.match import make_jobs
from solver.analysis.exact import analyse_position, annotate_game, parse_item
from solver.analysis.exploit import exploitability
from solver.analysis.review import judge, review_record
from solver.errors import (
    ArgumentError,
    CardError,
    DnoirError,
    EventError,
    LimitError,
    MoveError,
    PositionError,
    SpecError,
)
from solver.rules.events import apply_events, parse_events
from solver.solvers.endgame import solve
from solver.solvers.equilibrium import estimate, solve_game
from solver.solvers.limit import Limit
from solver.solvers.search import advise

ROUND2 = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"
ROUND4 = "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"
FULL4 = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"
START = "5+2 678+3C/????? ./. 1 a -"
ROUND2_START = "6-2+3 ?????/????? 556+2-1/578C 2 a -"  # both new hands still to be dealt
FEW = Limit(iterations=100)


def r2():
    return Position.parse(ROUND2)


def r4():
    return Position.parse(ROUND4)


def issue_18_6(case):
    """Refused as it should be since issue 18 item 6 (the API keeps the CLI's promises)."""
    return pytest.param(*case)


def issue_19_4_fixed(case):
    """Refused as it should be since issue 19 item 4 (one error family, kept)."""
    return pytest.param(*case)


CASES = [
    # Position.parse, replace, play, view, perft, deal, random_deal
    ("parse: not a position", lambda: Position.parse("junk"), PositionError),
    ("parse: empty", lambda: Position.parse(""), PositionError),
    ("parse: round 9", lambda: Position.parse("5+2 678+3C/????? ./. 9 a -"), PositionError),
    ("parse: unknown card", lambda: Position.parse("5+9 678+3C/????? ./. 1 a -"), PositionError),
    ("replace: round 0", lambda: Position.parse(START).replace(round=0), PositionError),
    ("play: unknown token", lambda: Position.parse(START).play("X"), CardError),
    ("play: illegal move", lambda: Position.parse(START).play("5"), MoveError),
    ("play: move number 12", lambda: Position.parse(START).play(12), MoveError),
    ("view: player c", lambda: Position.parse(START).view("c"), ArgumentError),
    ("view: player True", lambda: Position.parse(START).view(True), ArgumentError),
    ("view: player 2", lambda: Position.parse(START).view(2), ArgumentError),
    ("view: player 1.0", lambda: Position.parse(START).view(1.0), ArgumentError),
    ("perft: depth -1", lambda: Position.parse(START).perft(-1), ArgumentError),
    ("divide: depth -1", lambda: Position.parse(START).divide(-1), ArgumentError),
    ("deal: player c", lambda: Position.parse(ROUND2_START).deal("c", "5678C"), ArgumentError),
    ("deal: player None", lambda: Position.parse(ROUND2_START).deal(None, "5678C"), ArgumentError),
    ("deal: unknown card", lambda: Position.parse(ROUND2_START).deal("a", "5678X"), PositionError),
    ("deal: a hand already known", lambda: Position.parse(START).deal("a", "568+2C"), PositionError),
    issue_18_6(("deal: player True", lambda: Position.parse(ROUND2_START).deal(True, "5678C"), ArgumentError)),
    issue_18_6(("random_deal: seed -1", lambda: Position.random_deal(-1), DnoirError)),
    issue_18_6(("random_deal: seed 2**64", lambda: Position.random_deal(2**64), DnoirError)),
    issue_18_6(("random_deal: seed 2**53, past the CLI's --seed", lambda: Position.random_deal(2**53), DnoirError)),
    # Move
    ("Move.parse: unknown token", lambda: Move.parse("X"), CardError),
    ("Move.parse: empty", lambda: Move.parse(""), CardError),
    issue_18_6(("Move: index 12", lambda: Move(12), DnoirError)),
    issue_18_6(("Move: index -1", lambda: Move(-1), DnoirError)),
    # Limit
    ("Limit: 0 iterations", lambda: Limit(iterations=0), LimitError),
    ("Limit: -1 seconds", lambda: Limit(seconds=-1), LimitError),
    ("Limit: nan seconds", lambda: Limit(seconds=float("nan")), LimitError),
    ("Limit: no budget", lambda: Limit(), LimitError),
    # advise
    ("advise: round-4 view without the mover's hand",
     lambda: advise(Position.parse("7-2+3 58/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"), FEW),
     PositionError),
    ("advise: threads -1", lambda: advise(r2(), FEW, threads=-1), ArgumentError),
    ("advise: exploration 500", lambda: advise(r2(), FEW, threads=1, exploration=500), ArgumentError),
    ("advise: exploration -1", lambda: advise(r2(), FEW, threads=1, exploration=-1), ArgumentError),
    issue_18_6(("advise: endgame 'x'", lambda: advise(r4(), FEW, threads=1, endgame="x"), DnoirError)),
    ("advise: policy 'clever'", lambda: advise(r2(), FEW, threads=1, policy="clever"), ArgumentError),
    ("advise: max_nodes 0", lambda: advise(r2(), FEW, threads=1, max_nodes=0), ArgumentError),
    # bots, arena, match
    ("make_bot: unknown bot", lambda: make_bot("junk"), SpecError),
    ("make_bot: 0 iterations", lambda: make_bot("ismcts:iterations=0"), SpecError),
    ("make_bot: unknown key", lambda: make_bot("ismcts:depth=3"), SpecError),
    ("make_bot: unknown policy", lambda: make_bot("ismcts:policy=clever"), SpecError),
    ("make_player: unknown bot", lambda: make_player("junk"), SpecError),
    ("play_game: unknown bot", lambda: play_game(Position.random_deal(1), ("random", "junk")), SpecError),
    ("play_game: a deal with hidden hands", lambda: play_game(Position.parse(START), ("random", "random")),
     MoveError),
    issue_19_4_fixed(("make_jobs: -1 pairs", lambda: make_jobs([("random", "greedy")], -1), DnoirError)),
    # exact solvers
    ("solve: round 2", lambda: solve(r2()), PositionError),
    issue_19_4_fixed(("solve: mode 'psychic'", lambda: solve(Position.parse(FULL4), mode="psychic"), DnoirError)),
    issue_19_4_fixed(("solve: tt_mb 0", lambda: solve(Position.parse(FULL4), tt_mb=0), DnoirError)),
    ("solve_game: round 2", lambda: solve_game(r2()), PositionError),
    issue_19_4_fixed(("solve_game: target -1", lambda: solve_game(r4(), target=-1, limit=Limit(iterations=10)),
                DnoirError)),
    ("estimate: round 2", lambda: estimate(r2()), PositionError),
    ("exploitability: unknown policy", lambda: exploitability(r4(), policy="clever"), SpecError),
    # analysis, review, events
    ("analyse_position: round 2", lambda: analyse_position(r2()), PositionError),
    issue_19_4_fixed(("analyse_position: equilibrium_nodes -1", lambda: analyse_position(r4(), equilibrium_nodes=-1),
                DnoirError)),
    ("annotate_game: a bad deal", lambda: annotate_game({"deal": "junk", "moves": ""}), PositionError),
    ("parse_item: not an item", lambda: parse_item("junk", 1), PositionError),
    ("review_record: a bad deal", lambda: review_record({"deal": "junk", "moves": ""}), PositionError),
    issue_19_4_fixed(("judge: a move that is not legal", lambda: judge(r2(), "5", FEW), DnoirError)),
    ("apply_events: illegal event", lambda: apply_events(Position.parse(START), "8 +4 +4"), EventError),
    ("parse_events: unknown token", lambda: parse_events("8 X"), EventError),
]


def _case_id(case) -> str:
    return (case.values if hasattr(case, "values") else case)[0]


@pytest.mark.parametrize("name, call, error", CASES, ids=[_case_id(c) for c in CASES])
def test_a_bad_argument_raises_a_dnoir_error(name, call, error):
    assert issubclass(error, DnoirError)
    with pytest.raises(DnoirError) as raised:
        call()
    assert isinstance(raised.value, error), f"{name}: {type(raised.value).__name__}, not {error.__name__}"
    assert str(raised.value)  # the message names the mistake


def test_every_case_names_a_different_mistake():
    names = [_case_id(c) for c in CASES]
    assert len(names) == len(set(names))


def test_a_move_built_from_its_printed_form_is_that_move_or_refused():
    """repr(Move.parse('6')) is "Move('6')": typed back, it is the same move, or a MoveError."""
    for token in ("6", "T", "+3"):
        try:
            move = Move(token)
        except MoveError:
            continue
        assert move == Move.parse(token) and repr(move) == f"Move({token!r})"
