"""Every number a user gives has a range, and the Python API guards the C core.

Command-line options and bot-spec keys: a huge integer, NaN, an infinity or a value out of
range is one line naming the option (or key) and its range, exit code 2. A Position built
or changed through the API is checked like a parsed one. Raw state bytes are checked before
any compiled module uses them, and ISMCTS visit counters stop short of wrapping.
"""

import os
import resource
import signal
import subprocess
import sys
import time

import pytest
from conftest import run_cli as run
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from solver.rules._core import CoreState
from solver.solvers._ismcts import VISITS_LIMIT, Searcher, sample_counts
from solver.solvers._pimc import flat_values

from solver import Position, PositionError
from solver.agents.bots import SpecError, check_spec, make_bot, parse_spec
from solver.base.bounds import MAX_SEED

DEAL = Position.random_deal(1)
SEEDS = f"0 to {MAX_SEED}"
# Round 2, b to move, a city in the line; b holds 5 6 7 8 +2.
GREEDY_DNP = "5C678 5678+2/5678+2 -1-1-1-2-2/CC 2 b -"



def dnoir(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


# -- command-line options ----------------------------------------------------------------

BAD_OPTIONS = [
    (("analyse", "/dev/null", "--workers", "1e20"), "--workers", "1 to 1024"),
    (("analyse", "/dev/null", "--workers", "100000"), "--workers", "1 to 1024"),
    (("replay", "/dev/null", "--game", "99999999999999999"), "--game", "0 to 1000000000"),
    (("replay", "/dev/null", "--move", "-1"), "--move", "0 to 1000"),
    (("advise", "--iterations", "99999999999999999999"), "--iterations", "1 to 1000000000"),
    (("advise", "--max-nodes", "1e20"), "--max-nodes", "1000 to 100000000"),
    (("advise", "--max-nodes", "100000001"), "--max-nodes", "1000 to 100000000"),
    (("advise", "--time", "nan"), "--time", "0.001 to 86400"),
    (("advise", "--time", "inf"), "--time", "0.001 to 86400"),
    (("advise", "--time", "-1"), "--time", "0.001 to 86400"),
    (("advise", "--threads", "0"), "--threads", "1 to 256"),
    (("advise", "--seed", "-1"), "--seed", SEEDS),
    (("advise", "--seed", str(MAX_SEED + 1)), "--seed", SEEDS),
    (("solve", "--tt-mb", "nan"), "--tt-mb", "0.001 to 4096"),
    (("solve", "--tt-mb", "inf"), "--tt-mb", "0.001 to 4096"),
    (("deal", "--seed", "1e20"), "--seed", SEEDS),
    (("deal", "--seed", str(MAX_SEED + 1)), "--seed", SEEDS),
    (("engine", "--threads", "1000"), "--threads", "1 to 256"),
    (("bench", "speed", "--games", "1e20"), "--games", "1 to 1000000000"),
    (("bench", "speed", "--games", "99999999999999999999"), "--games", "1 to 1000000000"),
    (("bench", "speed", "--reference-games", "-1"), "--reference-games", "0 to 1000000000"),
    (("bench", "speed", "--seed", "1e20"), "--seed", SEEDS),
    (("bench", "solve", "--positions", "99999999999"), "--positions", "1 to 10000000"),
    (("bench", "solve", "--tt-mb", "nan"), "--tt-mb", "0.001 to 4096"),
    (("bench", "solve", "--seed", str(MAX_SEED + 1)), "--seed", SEEDS),
    (("bench", "search", "--seconds", "nan"), "--seconds", "0.01 to 86400"),
    (("bench", "search", "--seconds", "inf"), "--seconds", "0.01 to 86400"),
    (("bench", "search", "--deals", "99999999999"), "--deals", "1 to 10000000"),
    (("bench", "search", "--games", "99999999999"), "--games", "2 to 1000000000"),
    (("bench", "search", "--movetime", "99999999999"), "--movetime", "1 to 86400000"),
    (("bench", "search", "--scaling-pairs", "99999999999"), "--scaling-pairs", "1 to 1000000000"),
    (("bench", "search", "--seed", "-5"), "--seed", SEEDS),
    (("bench", "search", "--workers", "1e20"), "--workers", "1 to 1024"),
    (("bench", "analyse", "--positions", "1e20"), "--positions", "1 to 10000000"),
    (("bench", "analyse", "--workers", "99999"), "--workers", "1 to 1024"),
    (("bench", "analyse", "--seed", "nan"), "--seed", SEEDS),
]


@pytest.mark.parametrize("args, option, bounds", BAD_OPTIONS, ids=[" ".join(a) for a, _, _ in BAD_OPTIONS])
def test_every_number_option_has_a_range(capsys, args, option, bounds):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dnoir: error: ")
    assert option in err and f"({bounds})" in err


def test_a_random_deal_prints_a_seed_that_deal_takes_back(capsys):
    for _ in range(5):
        code, out, _ = run(capsys, "deal")
        seed = out.split("\n")[0].split()[1]
        assert code == 0 and 0 <= int(seed) <= MAX_SEED
        code, again, _ = run(capsys, "deal", "--seed", seed)
        assert code == 0 and again == out


# -- bot specs ---------------------------------------------------------------------------

BAD_SPECS = [
    ("ismcts:iterations=1e20", "iterations", "1 to 1000000000"),
    ("ismcts:iterations=99999999999999999999", "iterations", "1 to 1000000000"),
    ("ismcts:time=nan", "time", "0.001 to 86400"),
    ("ismcts:time=-1", "time", "0.001 to 86400"),
    ("ismcts:time=inf", "time", "0.001 to 86400"),
    ("ismcts:threads=0", "threads", "1 to 256"),
    ("ismcts:threads=100000", "threads", "1 to 256"),
    ("ismcts:exploration=inf", "exploration", "0 to 100"),
    ("ismcts:exploration=-1", "exploration", "0 to 100"),
    ("ismcts:seed=-1", "seed", SEEDS),
    (f"ismcts:seed={MAX_SEED + 1}", "seed", SEEDS),
    ("pimc:worlds=0", "worlds", "1 to 1000000"),
    ("pimc:worlds=1e20", "worlds", "1 to 1000000"),
    ("random:seed=1.5", "seed", SEEDS),
]


@pytest.mark.parametrize("spec, key, bounds", BAD_SPECS)
def test_spec_values_have_ranges(spec, key, bounds):
    for check in (check_spec, parse_spec, make_bot):
        with pytest.raises(SpecError) as err:
            check(spec)
        assert f"{key}:" in str(err.value) and f"({bounds})" in str(err.value)
        assert isinstance(err.value, ValueError)


def test_an_unknown_key_names_the_keys_accepted():
    with pytest.raises(SpecError) as err:
        parse_spec("ismcts:iteration=100")
    message = str(err.value)
    assert "'iteration'" in message
    for key in ("iterations=1 to 1000000000", "time=0.001 to 86400", "threads=1 to 256",
                "search=default|66bbc8c|5e7c200|29c04e6|7d9ffe8|388581d", "policy=random|greedy|taker|guard", "exploration=0 to 100",
                "opponent_exploration=0 to 100", "margin=0 to 1", "tuned=0 to 1", "opponent_hands=0 to 1000",
                "seed="):
        assert key in message


def test_a_key_given_twice_is_refused():
    with pytest.raises(SpecError, match="twice"):
        parse_spec("ismcts:iterations=10,iterations=20")


def test_check_spec_converts_and_parse_spec_keeps_the_text():
    assert check_spec("ismcts:iterations=2000,time=0.5,policy=greedy") == (
        "ismcts", {"iterations": 2000, "time": 0.5, "policy": "greedy"})
    assert parse_spec("ismcts:iterations=2000,threads=2") == ("ismcts", {"iterations": "2000", "threads": "2"})


def test_bots_built_through_the_api_check_their_values_too():
    from solver.agents.bots import IsmctsBot, PimcBot

    with pytest.raises(SpecError, match="iterations"):
        IsmctsBot(iterations=10**20)
    with pytest.raises(SpecError, match="exploration"):
        IsmctsBot(exploration=float("nan"))
    with pytest.raises(SpecError, match="worlds"):
        PimcBot(worlds=0)


def test_a_bad_spec_is_one_line_before_any_game(capsys, tmp_path):
    out_file = tmp_path / "games.jsonl"
    code, out, err = run(capsys, "match", "ismcts:iteration=100", "random", "--pairs", "1",
                         "--out", str(out_file))
    assert code == 2 and err.count("\n") == 1 and "'iteration'" in err and "iterations=1 to" in err
    assert not out_file.exists()
    code, _, err = run(capsys, "match", "ismcts:time=nan", "random", "--pairs", "1")
    assert code == 2 and err.count("\n") == 1 and "time: nan is not a finite number (0.001 to 86400)" in err


# -- perft -------------------------------------------------------------------------------

def test_perft_depth_is_capped_at_the_moves_left(capsys):
    assert DEAL.moves_left == 48
    code, out, err = run(capsys, "perft", str(DEAL), "49")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "DEPTH: 49 is out of range (0 to 48)" in err and "48 moves left" in err
    code, _, err = run(capsys, "perft", str(DEAL), "99999999999999999999999")
    assert code == 2 and "(0 to 48)" in err


def test_perft_beyond_the_end_counts_zero():
    pos = DEAL
    while pos.moves_left > 3:
        pos = pos.play(pos.legal_moves()[0])
    assert pos.round == 4 and pos.moves_left == 3
    assert pos.perft(3) > 0
    assert pos.perft(4) == 0 and pos.perft(10**30) == 0
    assert set(pos.divide(4).values()) == {0}
    with pytest.raises(ValueError):
        pos.perft(True)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_interrupts_a_long_perft():
    """SIGINT once the count has certainly begun: exit 130 with one line, no traceback.

    "Begun" is measured in CPU time, which a loaded machine does not shorten: the process
    must have used a second more CPU than a whole `perft DEAL 1` run (start-up included).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    short = dnoir("perft", str(DEAL), "1")
    short.communicate(timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    startup = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    proc = dnoir("perft", str(DEAL), "26")  # hours of counting (20 took seconds)
    try:
        tick = os.sysconf("SC_CLK_TCK")
        deadline = time.monotonic() + 120
        while True:
            with open(f"/proc/{proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
            if used >= startup + 1.0:
                break
            assert proc.poll() is None, "perft 26 ended by itself"
            assert time.monotonic() < deadline, "perft did not start counting"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert out == "" and err == "dnoir: error: interrupted\n"


# -- Position built through the API ---------------------------------------------------------

GREEDY = Position.parse(GREEDY_DNP)
EMPTY = (0,) * 11


def _with(counts, kind, value):
    out = list(counts)
    out[kind] = value
    return tuple(out)


BAD_FIELDS = {
    # today: silently a city (Python's negative index)
    "kind -1 in the line": (dict(line=(0, -1, 1, 2, 3)), "line"),
    "kind 11 in the line": (dict(line=(0, 11, 1, 2, 3)), "line"),
    "a bool in the line": (dict(line=(0, 10, True, 2, 3)), "line"),
    "a line that is text": (dict(line="5C678"), "line"),
    "a hand of 12 counts": (dict(hands=(GREEDY.hands[0] + (0,), GREEDY.hands[1])), "hand a"),
    "a hand of 10 counts": (dict(hands=(GREEDY.hands[0][:10], GREEDY.hands[1])), "hand a"),
    "a negative count": (dict(colls=(_with(_with(GREEDY.colls[0], 8, 3), 0, -1), GREEDY.colls[1])),
                         "collection a"),
    "a float count": (dict(colls=(_with(GREEDY.colls[0], 7, 3.0), GREEDY.colls[1])), "collection a"),
    "a hand that does not match its size": (dict(hands=(_with(GREEDY.hands[0], 0, 0), GREEDY.hands[1])),
                                            "hand a"),
    "a hidden hand of 0 cards": (dict(hands=(None, GREEDY.hands[1]), hand_sizes=(0, 5)), "hand a"),
    "hand sizes of 6": (dict(hand_sizes=(6, 5)), "hand sizes"),
    "hand sizes not a pair": (dict(hand_sizes=(5,)), "hand sizes"),
    "three hands": (dict(hands=(GREEDY.hands[0], GREEDY.hands[1], None)), "hands"),
    "round 7": (dict(round=7), "round"),
    "round 2.0": (dict(round=2.0), "round"),
    "round as text": (dict(round="2"), "round"),
    "to_move 5": (dict(to_move=5), "to-move"),
    "to_move True": (dict(to_move=True), "to-move"),
    "taken 9": (dict(taken=9), "taken"),
    "taken -1": (dict(taken=-1), "taken"),
    "a deck kind of 11": (dict(deck=(11,) * 20), "deck"),
    "removed of kind -3": (dict(removed=(-3, 0, 0)), "removed"),
}


@pytest.mark.parametrize("case", sorted(BAD_FIELDS))
def test_positions_changed_through_the_api_are_checked(case):
    changes, field = BAD_FIELDS[case]
    with pytest.raises(PositionError) as err:
        GREEDY.replace(**changes)
    assert err.value.field == field, str(err.value)


def test_sequences_given_as_lists_are_stored_as_tuples():
    pos = GREEDY.replace(line=list(GREEDY.line), hands=[list(GREEDY.hands[0]), GREEDY.hands[1]])
    assert pos == GREEDY and hash(pos) == hash(GREEDY) and isinstance(pos.line, tuple)
    assert str(pos) == GREEDY_DNP


def _mutation(draw, value):
    """A random change of a field's value: a nearby value, or something of another type."""
    odd = st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.floats(allow_nan=True),
                    st.text(max_size=5), st.lists(st.integers(-2, 12), max_size=50))
    if isinstance(value, tuple) and value and draw(st.booleans()):
        i = draw(st.integers(0, len(value) - 1))
        items = list(value)
        items[i] = _mutation(draw, items[i])
        resize = draw(st.sampled_from(["keep", "shorter", "longer"]))
        if resize == "shorter":
            del items[draw(st.integers(0, len(items) - 1))]
        elif resize == "longer":
            items.append(draw(st.integers(-1, 11)))
        return tuple(items)
    if isinstance(value, int) and not isinstance(value, bool) and draw(st.booleans()):
        return value + draw(st.integers(-3, 3))
    return draw(odd)


FIELDS = list(Position.FIELDS)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 200), moves=st.integers(0, 50), field=st.sampled_from(FIELDS), data=st.data())
def test_mutated_positions_are_valid_or_a_position_error(seed, moves, field, data):
    pos = Position.random_deal(seed)
    for i in range(moves):
        if pos.is_over:
            break
        legal = pos.legal_moves()
        pos = pos.play(legal[(seed + i) % len(legal)])
    if data.draw(st.booleans()):
        pos = pos.view("ab"[seed % 2])
    value = _mutation(data.draw, getattr(pos, field))
    try:
        changed = pos.replace(**{field: value})
    except PositionError as e:
        event(f"refused: {e.field}")
        return
    event("accepted")
    assert Position.parse(str(changed)) == changed
    if not changed.is_over and changed.hands[changed.to_move] is not None:
        for move in changed.legal_moves():
            changed.play(move)


# -- the C core from Python ------------------------------------------------------------------

def _build(**changes):
    fields = dict(line=(0, 4), hands=((1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2), EMPTY), colls=(EMPTY, EMPTY),
                  round=4, to_move=0, first=0, actions=(0, 0), taken=0)
    fields.update(changes)
    return CoreState.build(**fields)


@pytest.mark.parametrize("changes", [
    dict(line=(0,) * 49),            # longer than LINE_MAX: today written past the line
    dict(line=(0, 200)),             # a kind that indexes past the collections when taken
    dict(line=(0, -1)),
    dict(deck=(0,) * 31),            # longer than DECK_MAX
    dict(deck=(12,) * 10, round=3),
    dict(removed=(0, 0, 0, 0)),      # more than REMOVED: today written past the removed cards
    dict(removed=(0,)),
    dict(hands=((1,) * 12, EMPTY)),
    dict(hands=((300,) + (0,) * 10, EMPTY)),
    dict(hands=((-1,) + (0,) * 10, EMPTY)),
    dict(colls=((9,) + (0,) * 10, EMPTY)),  # more 5s in sight than the game has
    dict(round=0), dict(round=2**70), dict(to_move=7), dict(to_move=-1), dict(taken=4),
    dict(actions=(7, 0)), dict(actions=(0, 0, 0)), dict(first=True),
])
def test_core_state_build_checks_every_field(changes):
    with pytest.raises(ValueError):
        _build(**changes)


@pytest.mark.parametrize("state", [b"", b"\0" * 141, None, "view", 7])
def test_search_modules_take_a_core_state_only(state):
    # no raw bytes cross modules: anything but a CoreState is refused before use
    observer = DEAL.to_move
    with pytest.raises(TypeError):
        Searcher(max_nodes=1000).start(state, observer=observer, seed=1)
    with pytest.raises(TypeError):
        flat_values(state, observer, 5, seed=1)
    with pytest.raises(TypeError):
        sample_counts(state, observer, 5, seed=1)


def test_a_bare_core_state_is_a_finished_game():
    bare = CoreState()
    assert bare.is_over and bare.legal_moves() == [] and bare.to_move is None
    with pytest.raises(ValueError):
        Searcher(max_nodes=1000).start(bare, observer=0, seed=1)
    with pytest.raises(ValueError):
        flat_values(bare, 0, 5, seed=1)


def test_observers_and_worlds_are_checked():
    view = DEAL.view("ab"[DEAL.to_move])
    raw = view.core
    with pytest.raises(ValueError):
        sample_counts(raw, 5, 10)
    with pytest.raises(ValueError):
        view.core.unseen_counts(-3)
    for worlds in (0, 2**40, 1_000_001):
        with pytest.raises(ValueError):
            flat_values(raw, view.to_move, worlds)
    with pytest.raises(ValueError):
        Searcher(max_nodes=1000).start(raw, observer=view.to_move, exploration=float("nan"))
    with pytest.raises(ValueError):
        Searcher(max_nodes=1000).start(raw, observer=view.to_move, exploration=-1.0)


@pytest.mark.parametrize("max_nodes", [0, 100_000_001, 2**40, True])
def test_searcher_pool_size_is_bounded(max_nodes):
    with pytest.raises(ValueError):
        Searcher(max_nodes=max_nodes)


@pytest.mark.parametrize("budget", [dict(iterations=-5, seconds=0.01), dict(iterations=2**70),
                                    dict(iterations=1_000_000_001), dict(iterations=10, seconds=float("nan")),
                                    dict(iterations=10, seconds=float("inf")), dict(iterations=10, seconds=-1.0)])
def test_search_budgets_are_checked(budget):
    view = DEAL.view("ab"[DEAL.to_move])
    searcher = Searcher(max_nodes=1000)
    searcher.start(view.core, observer=view.to_move, seed=1)
    with pytest.raises(ValueError):
        searcher.search(**budget)


def test_visit_counters_stop_before_they_wrap():
    assert VISITS_LIMIT < 2**32  # the root counts one visit an iteration; no node more
    view = DEAL.view("ab"[DEAL.to_move])
    searcher = Searcher(max_nodes=1000, visits_limit=500)
    searcher.start(view.core, observer=view.to_move, seed=1)
    assert searcher.search(iterations=300) == 300 and not searcher.saturated
    assert searcher.search(iterations=300) == 200 and searcher.saturated
    assert searcher.search(iterations=300) == 0 and searcher.search(seconds=0.01) == 0
    assert sum(s.visits for s in searcher.root_stats().values()) == 500
    with pytest.raises(ValueError):
        Searcher(max_nodes=1000, visits_limit=VISITS_LIMIT + 1)
