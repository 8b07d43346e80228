"""bench/round4_swing.py: a match's score split between the first three rounds and round 4."""

import json

import pytest

from solver.bench import round4_loss, round4_swing
from solver.rules.position import Position
from solver.solvers.endgame import solve

PLAYERS = {"players": {"a": "x", "b": "y"}, "pairing": ["y", "x"]}  # the candidate "y" sits in b
# starts in round 4; with open hands a loses whatever it plays (b can take the third city),
# but b took too early and lost on points
IN_ROUND_4 = {"deal": "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a",
              "moves": "8 T 7 C 8", "result": {"winner": "a"}, **PLAYERS}
# a game of test 30 won by a's third city in round 1
CITY_IN_ROUND_1 = {"deal": "76 567CC/56+2+4C ./. 1 b - 778-1657+3588-2+257-3-2-38+26887688-1+3-2 +2-1-2",
                   "moves": "+4 5 T 6 C C +2 C 5 T", "result": {"winner": "a"}, **PLAYERS}


def write(tmp_path, records):
    path = tmp_path / "match.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return str(path)


def test_the_split_credits_the_candidate_with_the_open_hands_value():
    value_a = solve(Position.parse(IN_ROUND_4["deal"]), mode="open").moves[0].outcome
    assert value_a == "loss"  # so b, the candidate, entered round 4 with a win
    split = round4_swing.round4_split([IN_ROUND_4, CITY_IN_ROUND_1])
    assert (split.games, split.before, split.before_score, split.reached) == (2, 1, 0.0, 1)
    assert split.entering[0] == 1.0 and split.swing[0] == -1.0 and split.score[0] == 0.0
    # seats swapped (the candidate in a): the same game from the other side
    swapped = dict(IN_ROUND_4, pairing=["x", "y"])
    split = round4_swing.round4_split([swapped])
    assert split.entering[0] == 0.0 and split.swing[0] == 1.0 and split.score[0] == 1.0


def test_the_round_ends_are_valued_by_the_model_from_the_candidates_side():
    import gzip
    from pathlib import Path

    from solver.solvers.roundmodel import win_probability

    path = Path(__file__).parent.parent / "bench" / "matches" / "final_100ms_r17.jsonl.gz"
    with gzip.open(path, "rt") as f:
        game = json.loads(f.readline())  # a whole game of round 17's final run: four rounds
    pos = Position.parse(game["deal"])
    for move in game["moves"].split():
        pos = pos.play(move)
        if pos.round == 2:
            break
    chance_a = win_probability(pos)  # a's chance at the end of round 1
    as_a = dict(game, pairing=[game["players"]["a"], game["players"]["b"]])
    as_b = dict(game, pairing=[game["players"]["b"], game["players"]["a"]])
    ends_a, ends_b = round4_swing.round4_split([as_a]).round_ends, round4_swing.round4_split([as_b]).round_ends
    assert [(ended, count) for ended, count, _ in ends_a] == [(1, 1), (2, 1), (3, 1)]
    assert ends_a[0][2][0] == pytest.approx(chance_a) and ends_b[0][2][0] == pytest.approx(1 - chance_a)
    assert all(a[2][0] == pytest.approx(1 - b[2][0]) for a, b in zip(ends_a, ends_b))
    # a game from round 3's start (an opening book's) has the end of round 3 only, labelled so
    moves, start = game["moves"].split(), Position.parse(game["deal"])
    played = 0
    while start.round < 3:
        start, played = start.play(moves[played]), played + 1
    from_round_3 = dict(as_a, deal=str(start), moves=" ".join(moves[played:]))
    assert [(ended, count) for ended, count, _ in round4_swing.round4_split([from_round_3]).round_ends] == [(3, 1)]
    # a game decided in round 1 and one that starts in round 4 have no round end to value
    assert round4_swing.round4_split([IN_ROUND_4, CITY_IN_ROUND_1]).round_ends == ()


def test_the_interval_is_over_games():
    assert round4_loss.mean_interval([0.0, 1.0]) == pytest.approx((0.5, 1.96 * 0.5 ** 0.5 / 2 ** 0.5))
    assert round4_loss.mean_interval([0.25])[1] == float("inf")


def test_it_prints_the_split(tmp_path, capsys):
    round4_swing.main([write(tmp_path, [IN_ROUND_4, CITY_IN_ROUND_1, IN_ROUND_4])])
    assert capsys.readouterr().out.splitlines() == [
        "3 games; 1 ended before round 4 (A scored 0.000 in them)",
        "2 reached round 4, from A's side:",
        "  entering round 4 (open hands): 1.0000 ± 0.0000  (Elo unbounded)",
        "  swing in round 4: -1.0000 ± 0.0000  (Elo unbounded)",
        "  final score: 0.0000 ± 0.0000  (Elo unbounded)",
    ]


def test_first_and_games_choose_the_records(tmp_path, capsys):
    round4_swing.main([write(tmp_path, [IN_ROUND_4, CITY_IN_ROUND_1]), "--first", "1", "--games", "1"])
    assert capsys.readouterr().out.splitlines() == ["1 games; 1 ended before round 4 (A scored 0.000 in them)"]


@pytest.mark.parametrize("records, argv, says", [
    (["{not json"], [], "match.jsonl: "),
    ([{"deal": "x"}], [], "line 1 is not a match's game record"),
    ([IN_ROUND_4, dict(IN_ROUND_4, result={"how": "points"})], [], "line 2 is not a match's game record"),
    ([dict(IN_ROUND_4, result={"winner": "c"})], [], "line 1 is not a match's game record"),
    ([dict(IN_ROUND_4, pairing=["z", "x"])], [], "the pairing's first engine 'z' sits in 0 seats"),
    ([dict(IN_ROUND_4, deal="nonsense")], [], "match.jsonl: "),
    ([IN_ROUND_4], ["--games", "0"], "0 is out of range"),
    ([IN_ROUND_4], ["--first", "1"], "no game records"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, records, argv, says):
    path = write(tmp_path, records)
    with pytest.raises(SystemExit) as exit_:
        round4_swing.main([path, *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err and err.count("\n") == 1


def test_a_missing_file_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        round4_swing.main([str(tmp_path / "none.jsonl")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "none.jsonl" in err and err.count("\n") == 1
