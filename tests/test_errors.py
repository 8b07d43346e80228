"""One family of input mistakes (solver.errors), and how the command line tells them from bugs.

An input mistake is one line `dnoir: error: ...` and exit code 2; anything else (a bug) is
`dnoir: internal error: <type>: <message>`, a hint to rerun with --debug, and exit code 1.
The faults below are injected with monkeypatch and the CLI is run in this process.
"""

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli as run

import solver
import solver.cli.main
from solver import errors
from solver.errors import DnoirError

ROUND2 = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"

# Where each class of the family was defined before solver.errors: it is still importable there.
HOMES = [
    ("solver.rules.notation", "PositionError"), ("solver.rules.position", "MoveError"), ("solver.rules.cards", "CardError"),
    ("solver.rules.events", "EventError"), ("solver.agents.bots", "SpecError"), ("solver.rules.records", "RecordError"),
    ("solver.analysis.exact", "ItemError"), ("solver.interfaces.engine", "ProtocolError"), ("solver.base.jsonl", "OutputFileError"),
    ("solver.analysis.batch", "OutputMismatch"), ("solver.solvers.equilibrium", "GameTooBig"), ("solver", "PositionError"),
    ("solver", "MoveError"),
]


@pytest.mark.parametrize("module, name", HOMES)
def test_each_input_mistake_is_in_the_family_and_importable_where_it_was(module, name):
    import importlib

    cls = getattr(importlib.import_module(module), name)
    assert cls is getattr(errors, name)
    assert issubclass(cls, DnoirError) and issubclass(cls, ValueError)


def test_every_class_of_the_module_is_in_the_family():
    """Every input mistake is a DnoirError; the one other class, SetupError, is what the
    installation lacks (a missing extra, a cluster out of reach), never an input mistake."""
    classes = [getattr(errors, name) for name in errors.__all__ if name != "SetupError"]
    assert classes and all(issubclass(c, DnoirError) for c in classes)
    assert issubclass(errors.SetupError, RuntimeError) and not issubclass(errors.SetupError, DnoirError)
    assert {name for _, name in HOMES} <= set(errors.__all__)


def test_a_setup_error_is_one_line_and_exit_2_any_other_runtime_error_a_bug(monkeypatch, capsys):
    from solver.cli import main as cli

    def setup_fails(*args, **kwargs):
        raise errors.SetupError("--plot needs matplotlib: pip install it")

    def bug(*args, **kwargs):
        raise RuntimeError("a bug")

    for failure, code, words in ((setup_fails, 2, "dnoir: error: --plot needs matplotlib"),
                                 (bug, 1, "dnoir: internal error: RuntimeError: a bug")):
        monkeypatch.setattr(cli.cli, "invoke", failure)
        with pytest.raises(SystemExit) as stop:
            cli.main(["show", "5+2 678+3C/????? ./. 1 a -"])
        err = capsys.readouterr().err
        assert stop.value.code == code and err.startswith(words), err


def test_the_errors_module_examples_run():
    import doctest

    result = doctest.testmod(errors, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# The command line: bugs against input mistakes.

def _raise(exc):
    def fail(*args, **kwargs):
        raise exc
    return fail


@pytest.mark.parametrize("exc", [TypeError("boom"), AssertionError("boom"), ValueError("boom"),
                                 KeyError("boom"), RecursionError("boom"), NotImplementedError("boom")])
def test_a_bug_is_an_internal_error_with_exit_code_1(capsys, monkeypatch, exc):
    monkeypatch.setattr(solver.cli.main, "render_board", _raise(exc))
    code, out, err = run(capsys, "show", ROUND2)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines[0] == f"dnoir: internal error: {type(exc).__name__}: {exc}"
    assert "--debug" in lines[1] and len(lines) == 2
    assert "Traceback" not in err and "dnoir: error:" not in err


def test_debug_shows_the_traceback_of_an_internal_error(capsys, monkeypatch):
    def render_board(pos):
        raise TypeError("boom")

    monkeypatch.setattr(solver.cli.main, "render_board", render_board)
    code, out, err = run(capsys, "--debug", "show", ROUND2)
    assert code == 1 and out == ""
    assert err.startswith("Traceback (most recent call last):")
    assert "in render_board" in err and 'raise TypeError("boom")' in err
    assert err.splitlines()[-1] == "dnoir: internal error: TypeError: boom"


def test_debug_changes_nothing_without_an_error(capsys):
    code, out, err = run(capsys, "--debug", "show", "--dnp", ROUND2)
    assert code == 0 and out.strip() == ROUND2 and err == ""


def test_debug_after_the_command_is_that_commands_unknown_option(capsys):
    code, _, err = run(capsys, "show", "--debug", ROUND2)
    assert code == 2 and err.startswith("dnoir: error:") and "--debug" in err


@pytest.mark.parametrize("name", sorted(errors.__all__))
def test_every_input_mistake_is_one_line_with_exit_code_2(capsys, monkeypatch, name):
    cls = getattr(errors, name)
    exc = cls("field", "the reason") if name in ("FieldError", "PositionError", "RecordError") else \
        cls(2, "+4", "the reason") if name == "EventError" else cls("the reason")
    monkeypatch.setattr(solver.cli.main, "render_board", _raise(exc))
    code, out, err = run(capsys, "show", ROUND2)
    assert (code, out) == (2, "")
    assert err == f"dnoir: error: {exc}\n" and "the reason" in err


def test_ctrl_c_keeps_exit_code_130(capsys, monkeypatch):
    monkeypatch.setattr(solver.cli.main, "render_board", _raise(KeyboardInterrupt()))
    code, _, err = run(capsys, "show", ROUND2)
    assert code == 130 and err.strip() == "dnoir: error: interrupted"  # after click's newline ending a ^C


# Real input mistakes of each kind, through the commands that read them.

def _bad_record(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"deal": "5+2 678+3C/????? ./. 1 a -"}) + "\n")
    return str(path)


def _bad_saved_game(tmp_path):
    path = tmp_path / "saved.json"
    path.write_text(json.dumps({"seat": "q", "deal": ROUND2, "moves": ""}) + "\n")
    return str(path)


@pytest.mark.parametrize("make_args, words", [
    (lambda tmp: ["show", "5+2 678+3C/????? ./. 9 a -"], "round"),  # PositionError
    (lambda tmp: ["show", "--moves", "+4", ROUND2], "--moves: event 1 (+4)"),  # EventError, as --moves
    (lambda tmp: ["match", "nosuchbot", "random", "--pairs", "1"], "nosuchbot"),  # SpecError
    (lambda tmp: ["match", "random", "random", "--pairs", "1", "--sprt", "5,0"], "--sprt"),  # the option
    (lambda tmp: ["review", _bad_record(tmp)], "moves"),  # RecordError
    (lambda tmp: ["replay", _bad_record(tmp)], "moves"),  # RecordError
    (lambda tmp: ["play", "--load", _bad_saved_game(tmp)], "seat"),  # SavedGameError
])
def test_input_mistakes_of_each_kind_are_one_line_with_exit_code_2(capsys, tmp_path, make_args, words):
    code, out, err = run(capsys, *make_args(tmp_path))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dnoir: error:") and words in err


# Broad `except ValueError` no longer turns a bug into an input mistake.

def test_a_bug_in_the_review_search_is_not_blamed_on_the_record(capsys, monkeypatch, tmp_path):
    import solver.analysis.review
    from solver.agents.match import make_jobs, play_job

    record = play_job(make_jobs([("greedy", "random")], pairs=1, seed=1)[0])
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record) + "\n")
    monkeypatch.setattr(solver.analysis.review, "judge", _raise(ValueError("a bug in the search")))
    code, _, err = run(capsys, "review", str(path))
    assert code == 1 and err.startswith("dnoir: internal error: ValueError: a bug in the search\n")


def test_a_bug_while_playing_moves_is_not_blamed_on_the_moves(capsys, monkeypatch):
    from solver.rules.position import Position

    monkeypatch.setattr(Position, "play", _raise(ValueError("a bug in play")))
    code, _, err = run(capsys, "show", "--moves", "8", ROUND2)
    assert code == 1 and err.startswith("dnoir: internal error: ValueError: a bug in play\n")


def test_the_engine_answers_a_bug_as_an_internal_error_and_goes_on(monkeypatch):
    from solver.interfaces.engine import Engine
    from solver.rules.position import Position

    out = io.StringIO()
    engine = Engine(out=out)
    engine.handle("position 5+2 678+3C/????? ./. 9 a -")  # an input mistake
    monkeypatch.setattr(Position, "parse", _raise(ValueError("a bug in parse")))
    assert engine.handle(f"position {ROUND2}")
    assert out.getvalue().splitlines() == ["error round: '9' is not a round (1 to 4)",
                                           "error internal error (ValueError: a bug in parse)"]


# Layout: the leaves of the command line do not import its root.

LEAVES = ["solver.cli.bench", "solver.cli.equilibrium", "solver.cli.games", "solver.cli.play"]
COMMANDS = {"advise", "analyse", "bench", "deal", "engine", "exploit", "match", "perft", "play", "replay",
            "review", "score", "serve", "show", "solve", "tournament"}


def test_the_command_leaves_do_not_import_the_root(tmp_path):
    code = f"import sys; import {', '.join(LEAVES + ['solver.cli.common', 'solver.cli.serve'])}; print('solver.cli.main' in sys.modules)"
    run_ = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert run_.returncode == 0, run_.stderr
    assert run_.stdout.strip() == "False"


def test_the_root_lists_every_command(capsys):
    root = solver.cli.main.cli
    assert set(root.list_commands(None)) == COMMANDS
    assert all(root.get_command(None, name).name == name for name in COMMANDS)
    code, out, _ = run(capsys, "--help")
    listed = out.split("Commands:", 1)[1].split()
    assert code == 0 and COMMANDS <= set(listed)


def test_a_light_command_does_not_load_the_heavy_leaves(tmp_path):
    """`dnoir show` starts without numpy, the benchmarks or the play loop (LAZY_COMMANDS)."""
    code = ("import sys; from solver.cli.main import main\n"
            "try:\n    main(['show', '5+2 678+3C/????? ./. 1 a -'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('numpy', 'solver.cli.games', 'solver.cli.bench', 'solver.cli.play',"
            " 'solver.cli.serve') if m in sys.modules), file=sys.stderr)")
    run_ = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run_.returncode == 0 and run_.stderr.strip().splitlines()[-1] == "[]", run_.stderr


@pytest.mark.parametrize("module", ["solver.cli", "solver"])
def test_python_dash_m_runs_the_command_line(tmp_path, module):
    run_ = subprocess.run([sys.executable, "-I", "-m", module, "show", "--dnp", ROUND2], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60)
    assert (run_.returncode, run_.stdout.strip(), run_.stderr) == (0, ROUND2, "")


# A source tree that was never built.

@pytest.fixture
def unbuilt(tmp_path):
    """A copy of the solver/ sources without any compiled module, as a fresh checkout has them."""
    source = Path(solver.__file__).parent
    shutil.copytree(source, tmp_path / "solver", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    assert not list((tmp_path / "solver").glob("_core*"))
    return tmp_path


BUILD_HINT = "the solver package is not built"


def test_importing_an_unbuilt_tree_says_how_to_build_it(unbuilt):
    # -I ignores PYTHONPATH, so the copy is put first on sys.path by hand; -S keeps out
    # site-packages, where an installed or editable solver would answer instead.
    code = f"import sys; sys.path.insert(0, {str(unbuilt)!r}); import solver"
    run_ = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert run_.returncode == 1
    last = run_.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: {BUILD_HINT}")
    assert "pip install ." in last and "pip install -e ." in last
    assert "No module named" not in run_.stderr


@pytest.mark.parametrize("module", ["solver.cli", "solver"])
def test_running_an_unbuilt_tree_prints_one_line_saying_how_to_build_it(unbuilt, module):
    # as `python -m solver.cli` in the checkout: the current folder comes first on sys.path
    # (-E -S: no environment, no site-packages; -I would also drop the current folder)
    run_ = subprocess.run([sys.executable, "-E", "-S", "-m", module, "--help"], capture_output=True, text=True,
                          cwd=unbuilt, timeout=60)
    assert run_.returncode == 1 and run_.stdout == ""
    assert run_.stderr.count("\n") == 1 and BUILD_HINT in run_.stderr and "pip install -e ." in run_.stderr
    assert "No module named" not in run_.stderr and "Traceback" not in run_.stderr


def test_following_a_game_asks_again_after_a_mistake_but_not_after_a_bug(monkeypatch):
    import solver.interfaces.play
    from solver.interfaces.play import ask_start

    out = io.StringIO()
    game = ask_start(io.StringIO("a\na\n5+2\n678+3X\n5+2\n678+3C\n"), out)
    assert str(game.position) == "5+2 678+3C/????? ./. 1 a -"
    assert "\nerror: unknown card token 'X'\n" in out.getvalue()
    monkeypatch.setattr(solver.interfaces.play, "start_view", _raise(ValueError("a bug in start_view")))
    with pytest.raises(ValueError, match="a bug in start_view"):
        ask_start(io.StringIO("a\na\n5+2\n678+3C\n"), io.StringIO())
