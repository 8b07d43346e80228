"""The dnoir command line: output of each command, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest
from conftest import run_cli as run

from solver import Position

EXAMPLES = [
    "5+2 678+3C/????? ./. 1 a -",
    "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a",
    "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C",
]



def test_show_notation_examples(capsys):
    code, out, _ = run(capsys, "show", EXAMPLES[0])
    assert code == 0
    assert "round 1 of 4, a to move" in out
    assert "line    5 +2  <- newest" in out
    assert "a taking now would get: 5 +2" in out
    assert "hand a  6 7 8 +3 C" in out and "(5 hidden)" in out

    code, out, _ = run(capsys, "show", EXAMPLES[1])
    assert code == 0 and "round 4 of 4, b to move" in out and "taken this round: a" in out
    assert "hand a  ? ? (2 hidden)" in out and "hand b  8 -2" in out
    assert "collection b  5 6 6 6 7 7 8 8 8 +2 +3 -1 -2 -3 C" in out

    code, out, _ = run(capsys, "show", EXAMPLES[2])
    assert code == 0 and "hand a  5 8" in out and "removed: 7 +2 C" in out
    assert "deck (0 cards, top first): (empty)" in out


def test_show_without_argument_shows_the_example(capsys):
    code, out, _ = run(capsys, "show")
    assert code == 0 and "round 2 of 4, b to move" in out


def test_show_accepts_unquoted_fields_and_a_leading_betrayal(capsys):
    dnp = "-1-3+27-2 588+3C/568-1 5556668+2+2+2+4-1-3C/667777788+3-2-2-2C 4 a - . 788"
    code, out, _ = run(capsys, "show", dnp)
    assert code == 0 and "line    -1 -3 +2 7 -2" in out
    code2, out2, _ = run(capsys, "show", *dnp.split(" "))
    assert code2 == 0 and out2 == out


def test_perft_and_divide(capsys):
    dnp = "8+2-38 -1-1/7C 56+3-2/. 1 b a 7-3678-28+4-188+257777+366C+2-258+255-28 66C"
    code, out, _ = run(capsys, "perft", dnp, "5")
    assert code == 0 and out.strip().splitlines()[-1] == "6"
    code, out, _ = run(capsys, "perft", dnp, "3", "--divide")
    assert code == 0 and out.strip().splitlines() == ["7: 2", "C: 2", "T: 2", "6"]
    code, out, _ = run(capsys, "perft", "--divide", dnp, "3")
    assert code == 0 and out.strip().splitlines()[-1] == "6"


def test_deal_is_seeded(capsys):
    _, out1, _ = run(capsys, "deal", "--seed", "42")
    _, out2, _ = run(capsys, "deal", "--seed", "42")
    assert out1 == out2
    lines = dict(line.split(None, 1) if not line.startswith("view") else
                 (line[:6], line[6:].strip()) for line in out1.strip().splitlines())
    full = Position.parse(lines["deal"])
    assert full.is_full
    assert Position.parse(lines["view a"]) == full.view("a")
    assert Position.parse(lines["view b"]) == full.view("b")


def test_score_of_finished_and_unfinished(capsys):
    code, out, _ = run(capsys, "score", "7-2+3588-2 ./. 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 - ab")
    assert code == 0 and "result: a wins on points" in out
    code, out, _ = run(capsys, "score", EXAMPLES[0])
    assert code == 0 and "score so far" in out


@pytest.mark.parametrize("args, names", [
    (["show", "5+2 678+3X/????? ./. 1 a -"], "hand a"),
    (["show", "5+2 678+3C/????? ./. 9 a -"], "round"),
    (["show", "5+2 678+3C/????? ./. 1 a"], "position"),
    (["score", "+4+4 678+3C/????? ./. 1 a -"], "cards"),
    (["perft", EXAMPLES[0], "2"], "hands"),
    (["perft", EXAMPLES[2], "x"], "DEPTH"),
    (["perft", EXAMPLES[2], "-3"], "DEPTH"),
    (["perft", EXAMPLES[2]], "usage"),
    (["deal", "--seed", "abc"], "seed"),
    (["frobnicate"], "frobnicate"),
    (["show", "--bogus", EXAMPLES[0]], "bogus"),
])
def test_errors_are_one_line_with_exit_code_2(capsys, args, names):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dnoir: error:")
    assert names.lower() in lines[0].lower()


def test_real_subprocess_error_and_success(tmp_path):
    # run outside the source tree, so that the installed package is the one imported
    bad = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "show", "5+2 678+3C/????? ./. 1 q -"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "to-move" in bad.stderr
    good = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "perft", EXAMPLES[2], "2"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert good.returncode == 0 and good.stdout.strip().isdigit()


def test_help_exits_zero(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "perft" in out


def test_bench_speed_json(capsys):
    code, out, _ = run(capsys, "bench", "speed", "--games", "2000", "--reference-games", "20", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["games_per_second"] > 0 and report["reference_games_per_second"] > 0
    shares = report["first_player_share"] + report["second_player_share"] + report["draw_share"]
    assert shares == pytest.approx(1.0)
    assert 0 < report["city_share"] < 1


FULL_ROUND4 = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"


def test_solve_open_json(capsys):
    code, out, _ = run(capsys, "solve", FULL_ROUND4, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["mode"] == "open" and result["best"] == "8"
    assert [m["move"] for m in result["moves"]] == ["8", "-2", "T"]
    assert all({"move", "outcome", "margin"} <= set(m) for m in result["moves"])
    assert result["pv"] == ["8", "8", "T"]
    # the node count is the solver's own: in a fresh process (the table is kept between
    # solves) the CLI and the API's solve count the same nodes, and some
    fresh = [sys.executable, "-I", "-c", "from solver import Position; from solver.solvers.endgame import solve; "
             f"print(solve(Position.parse({FULL_ROUND4!r})).nodes)"]
    api_nodes = int(subprocess.run(fresh, capture_output=True, text=True, check=True).stdout)
    cli = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "solve", FULL_ROUND4, "--json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(cli.stdout)["nodes"] == api_nodes > 0


def test_solve_view_json_and_table(capsys):
    view = "-18+2C8 ?????/777+2-2 556677888+3+4-2-3-3/566678+3-1-1-2-2CC 4 b -"
    code, out, _ = run(capsys, "solve", view, "--json", "--tt-mb", "1")
    assert code == 0
    result = json.loads(out)
    assert result["mode"] == "view" and result["worlds"] == 22 and result["best"] == "T"
    assert {m["move"]: m["expected_fraction"] for m in result["moves"]} == {"7": "0", "+2": "0", "-2": "3/28", "T": "1"}
    code, out, _ = run(capsys, "solve", view)
    assert code == 0 and "22 possible opponent hands" in out and out.splitlines()[2].startswith("T ")


@pytest.mark.parametrize("args, names", [
    (["solve", EXAMPLES[0]], "round"),
    (["solve", "7-2+3 58/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"], "hidden"),
    (["solve", FULL_ROUND4, "--tt-mb", "0"], "tt-mb"),
    (["solve", FULL_ROUND4, "--mode", "psychic"], "mode"),
    (["solve"], "required"),
])
def test_solve_errors(capsys, args, names):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and names in err.lower()


def test_bench_solve_json(capsys):
    code, out, _ = run(capsys, "bench", "solve", "--positions", "3", "--json")
    assert code == 0
    report = json.loads(out)
    for key in ("open_median_ms", "open_p95_ms", "view_median_ms", "view_p95_ms"):
        assert report[key] > 0


def test_advise_default_example_json(capsys):
    code, out, _ = run(capsys, "advise", "--iterations", "3000", "--threads", "1", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["exact"] is False and result["iterations"] == 3000
    assert all({"move", "visits", "expected", "margin"} <= set(m) for m in result["moves"])
    assert sum(m["visits"] for m in result["moves"]) == 3000
    # the built-in example, searched as the API searches it with the default seed (0): the
    # same recommendation and the same figures, move for move
    from solver.rules.position import EXAMPLE_DNP
    from solver.solvers.limit import Limit
    from solver.solvers.search import advise

    api = advise(Position.parse(EXAMPLE_DNP), Limit(iterations=3000), threads=1, seed=0)
    assert result["best"] == api.best
    assert [(m["move"], m["visits"], m["expected"]) for m in result["moves"]] == \
        [(m.move, m.visits, round(m.expected, 6)) for m in api.moves]


def test_advise_is_reproducible(capsys):
    args = ("advise", "--iterations", "2000", "--threads", "2", "--seed", "5", "--json")
    _, out1, _ = run(capsys, *args)
    _, out2, _ = run(capsys, *args)
    strip = lambda o: {k: v for k, v in json.loads(o).items() if k not in ("seconds", "iterations_per_second")}
    assert strip(out1) == strip(out2)


def test_advise_round_4_says_which_exact_method_answered(capsys):
    # two cards each, a few actions into round 4: the equilibrium fits the default budget
    code, out, _ = run(capsys, "advise", FULL_ROUND4)
    assert code == 0 and "equilibrium: round 4" in out and "recommended 8" in out
    code, out, _ = run(capsys, "advise", FULL_ROUND4, "--json")
    assert code == 0 and json.loads(out)["method"] == "equilibrium" and json.loads(out)["exact"] is True


@pytest.mark.parametrize("args, names", [
    (["advise", "68+28 ???/??? 57+2-1-3CC/778+2-1 2 b a"], "hidden"),
    (["advise", "--iterations", "0"], "iterations"),
    (["advise", "--threads", "0"], "threads"),
    (["advise", "--time", "-1"], "time"),
])
def test_advise_errors(capsys, args, names):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and names in err.lower()


def test_bench_search_and_analyse_json(capsys):
    code, out, _ = run(capsys, "bench", "search", "--seconds", "0.05", "--deals", "1", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["iterations_per_second"] > 0 and report["latency_samples"] > 0
    code, out, _ = run(capsys, "bench", "analyse", "--positions", "4", "--workers", "2", "--json")
    assert code == 0 and json.loads(out)["positions_per_second_1"] > 0
