"""bench/round4_loss.py: the ISMCTS's round-4 moves graded by the equilibrium, from game records."""

import json

import pytest

from solver.bench import round4_loss

# a to move (taken already) with 788, b with C: two decisions, both small games
RECORD = {"deal": "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a", "moves": "8 T"}


def write(tmp_path, lines):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_it_grades_each_search_and_the_difference(tmp_path, capsys):
    path = write(tmp_path, [json.dumps(RECORD)])
    round4_loss.main([path, "--setting", "hand_bandit=1", "--setting", "exploration=0.7,opponent_hands=5",
                      "--iterations", "300", "--view"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2 of 2 round-4 decisions graded (1 games, 300 iterations")
    assert lines[1].startswith("default: ") and " ± " in lines[1] and lines[1].endswith(" a game")
    assert lines[2].startswith("hand_bandit=1: ") and lines[2].endswith("against the default")
    assert lines[3].startswith("exploration=0.7,opponent_hands=5: ")
    assert lines[4].startswith("view: ") and lines[4].endswith("against the default")


def test_the_difference_is_summed_over_decisions_with_its_interval():
    rows = [{"default": 0.0, "x": 0.1}, {"default": 0.2, "x": 0.1}, {"default": 0.0, "x": 0.0}]
    total, half = round4_loss.difference(rows, "x")
    assert total == pytest.approx(0.0)
    assert half == pytest.approx(1.96 * 0.1 * 3 ** 0.5)
    assert round4_loss.difference(rows[:1], "x")[1] == float("inf")
    assert round4_loss.summed([0.1, 0.3]) == pytest.approx((0.4, 1.96 * 0.02 ** 0.5 * 2 ** 0.5))


@pytest.mark.parametrize("lines, argv, says", [
    ([json.dumps(RECORD)], ["--setting", "colour=red"], "unknown search setting 'colour'"),
    ([json.dumps(RECORD)], ["--setting", "exploration=101"], "exploration: 101 is out of range"),
    ([json.dumps(RECORD)], ["--seconds", "0"], "--seconds: 0.0 is out of range"),
    ([json.dumps(RECORD)], ["--games", "0"], "0 is out of range"),
    (["{not json"], [], "games.jsonl: "),
    ([json.dumps({"deal": 3})], [], "line 1 is not a game record"),
    ([json.dumps({"deal": "nonsense", "moves": ""})], [], "games.jsonl: "),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, lines, argv, says):
    path = write(tmp_path, lines)
    with pytest.raises(SystemExit) as exit_:
        round4_loss.main([path, *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err and err.count("\n") == 1


def test_a_missing_file_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        round4_loss.main([str(tmp_path / "none.jsonl")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "none.jsonl" in err and err.count("\n") == 1
