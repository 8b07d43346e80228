"""Check before the work, not after (issue 18, item 4): options that name outputs, and
the extras they need, are checked before the first game or iteration; `--sprt ''` is a
mistake, not "no SPRT". (Review checks records as replay and analyse do: test_reader.py.)

Each command here would run for hours if it started its work: that it ends with exit 2
and no progress at all is the check."""

import subprocess
import sys

import pytest

HEAVY = ["ismcts:iterations=200000", "ismcts:iterations=400000"]  # hours of games for 1000 pairs
SMALL = "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a"
BIG = "885565-1+2-2 78+3/57+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 b -"


def dnoir(*args, code=None):
    prefix = [sys.executable, "-I", "-c", code] if code else [sys.executable, "-I", "-m", "solver.cli"]
    return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)


def refused(run, *words):
    assert run.returncode == 2, run.stderr[-500:]
    assert run.stdout == "" and run.stderr.count("\n") == 1, run.stderr[-500:]
    assert all(w in run.stderr for w in words), run.stderr
    assert "games" not in run.stderr.split("error:")[0]  # no progress line: nothing was played


def test_tournament_plot_into_a_missing_folder_is_refused_before_any_game(tmp_path):
    plot = tmp_path / "no" / "elo.png"
    refused(dnoir("tournament", *HEAVY, "--pairs", "1000", "--workers", "1", "--plot", str(plot)),
            "--plot", "does not exist")


def test_tournament_plot_without_matplotlib_is_refused_before_any_game(tmp_path):
    no_matplotlib = "import sys; sys.modules['matplotlib'] = None; from solver.cli.main import main; sys.exit(main())"
    run = dnoir("tournament", *HEAVY, "--pairs", "1000", "--workers", "1", "--plot", str(tmp_path / "elo.png"),
                code=no_matplotlib)
    refused(run, "--plot needs matplotlib")


def test_solve_strategy_into_a_missing_folder_is_refused_before_the_solve(tmp_path):
    refused(dnoir("solve", BIG, "--mode", "game", "--target", "1e-12", "--time", "3600",
                  "--strategy", str(tmp_path / "no" / "s.jsonl")), "--strategy", "does not exist")
    refused(dnoir("solve", SMALL, "--mode", "game", "--strategy", str(tmp_path)), "--strategy", "is a directory")


@pytest.mark.parametrize("command", [["match", "random", "greedy"], ["tournament", "random", "greedy"]])
def test_out_into_a_missing_folder_is_refused_before_any_game(tmp_path, command):
    refused(dnoir(*command, "--pairs", "5", "--workers", "1", "--out", str(tmp_path / "no" / "g.jsonl")),
            "--out", "does not exist")


@pytest.mark.parametrize("sprt", ["", " ", ","])
def test_an_empty_sprt_is_refused(sprt):
    refused(dnoir("match", *HEAVY, "--pairs", "1000", "--workers", "1", "--sprt", sprt), "--sprt")


def test_a_strategy_file_that_fails_late_loses_no_result():
    run = dnoir("solve", SMALL, "--mode", "game", "--strategy", "/dev/full")
    assert run.returncode == 2 and "game, a to move: value" in run.stdout  # the result is shown
    assert "--strategy: cannot write" in run.stderr and "No space left" in run.stderr
