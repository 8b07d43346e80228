"""Game review: exact round-4 losses, search losses with an interval, marks only when the interval says so."""

import doctest
import json
import math
import subprocess
import sys

import pytest

import solver.analysis.review
from solver.agents.arena import play_game
from solver.analysis.exact import annotate_game
from solver.analysis.review import judge, mark_for, render_review, review_record
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import Advice, MoveStats

ROUND4 = {"deal": "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a - . 58C",
          "moves": "T T 7 +4"}


def dnoir(*args, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def test_docstring_examples():
    result = doctest.testmod(solver.analysis.review, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_round_four_losses_are_those_of_analyse():
    record = play_game(Position.random_deal(31), ("random", "random"), seed=31)
    mine = {d.ply: d for d in review_record(record, Limit(iterations=50), threads=1) if d.round == 4}
    theirs = {d["ply"]: d for d in annotate_game(record)["decisions"]}
    assert mine, "the game has round-4 decisions"
    for ply, d in mine.items():
        assert d.exact and d.low == d.loss == d.high
        assert d.loss == pytest.approx(theirs[ply]["loss"], abs=1e-12)
        assert d.mark == theirs[ply]["mark"] and d.method == theirs[ply]["method"]
    # late decisions are graded against the equilibrium: at ply 40 b plays -2, which the
    # equilibrium never plays (it takes the third city at once) but which still wins, so no mark
    assert {d.method for d in mine.values()} == {"view", "equilibrium"}
    assert mine[40].method == "equilibrium" and mine[40].played == "-2" and mine[40].mark == ""
    # analyse also lists forced moves; the review leaves them out, as they are no decision
    assert {p for p, d in theirs.items() if p not in mine} == \
        {p for p in theirs if len(Position.parse(theirs[p]["dnp"]).legal_moves()) == 1}


def test_blunder_in_round_four():
    decisions = review_record(ROUND4)
    blunder = decisions[1]
    assert (blunder.player, blunder.played, blunder.best, blunder.mark, blunder.exact) == ("b", "T", "5", "??", True)
    assert blunder.loss >= 0.25


def _fake_advice(stats):
    moves = [MoveStats(move=m, visits=n, share=n / sum(s[1] for s in stats), expected=e, margin=0.0)
             for m, n, e in stats]
    return Advice(best=moves[0].move, moves=moves, iterations=sum(s[1] for s in stats), seconds=0.0,
                  exact=False, threads=1)


ROUND1_VIEW = Position.parse("5+2 678+3C/????? ./. 1 a -")


@pytest.mark.parametrize("stats, played, mark", [
    # a loss of 0.3 seen on few visits: the interval reaches below 0.1, no mark
    ([("T", 40, 0.6), ("6", 10, 0.3)], "6", ""),
    # the same loss on many visits: the interval is above 0.25, a blunder
    ([("T", 40000, 0.6), ("6", 10000, 0.3)], "6", "??"),
    # a loss of 0.15, well measured: a mistake, not a blunder
    ([("T", 40000, 0.6), ("6", 10000, 0.45)], "6", "?"),
    # a loss of 0.12 with an interval reaching below 0.1: no mark
    ([("T", 4000, 0.6), ("6", 300, 0.48)], "6", ""),
])
def test_search_marks_only_when_the_interval_says_so(monkeypatch, stats, played, mark):
    monkeypatch.setattr("solver.analysis.review.advise", lambda *a, **k: _fake_advice(stats))
    d = judge(ROUND1_VIEW, played)
    best_e, best_n = stats[0][2], stats[0][1]
    played_e, played_n = stats[1][2], stats[1][1]
    spread = 1.959964 * math.sqrt(best_e * (1 - best_e) / best_n + played_e * (1 - played_e) / played_n)
    assert d.loss == pytest.approx(best_e - played_e)
    assert d.low == pytest.approx(d.loss - spread) and d.high == pytest.approx(d.loss + spread)
    assert d.mark == mark and not d.exact and d.best == "T"


def test_the_best_move_played_loses_nothing(monkeypatch):
    monkeypatch.setattr("solver.analysis.review.advise", lambda *a, **k: _fake_advice([("T", 50, 0.6), ("6", 5, 0.3)]))
    d = judge(ROUND1_VIEW, "T")
    assert (d.loss, d.low, d.high, d.mark) == (0.0, 0.0, 0.0, "")


def test_a_move_never_visited_is_never_marked(monkeypatch):
    monkeypatch.setattr("solver.analysis.review.advise", lambda *a, **k: _fake_advice([("T", 50000, 0.9), ("6", 0, 0.0)]))
    d = judge(ROUND1_VIEW, "6")
    assert d.mark == "" and d.low == -math.inf
    assert d.to_dict()["low"] is None and d.to_dict()["high"] is None


def test_marks():
    assert [mark_for(x) for x in (0.0, 0.099, 0.1, 0.249, 0.25, 0.9)] == ["", "", "?", "?", "??", "??"]


def test_a_saved_play_game_is_reviewed_from_its_seat():
    game = play_game(Position.random_deal(2), ("random", "random"), seed=2)
    record = dict(kind="play", seat="b", deal=game["deal"], moves=game["moves"])
    decisions = review_record(record, Limit(iterations=50), threads=1)
    assert decisions and {d.player for d in decisions} == {"b"}


def test_a_tracked_game_is_reviewed_from_its_seat():
    full = Position.random_deal(2)
    record = dict(kind="track", seat="a", start=str(full.view("a")), events="")
    pos, events = full, []
    while pos.round < 2:
        move = pos.legal_moves()[0]
        events.append(str(move))
        pos = pos.play(move)
    from solver.rules.cards import format_counts

    events.append("hand:" + format_counts(pos.hands[0]))
    record["events"] = " ".join(events)
    decisions = review_record(record, Limit(iterations=50), threads=1)
    assert decisions and {d.player for d in decisions} == {"a"}
    text = render_review(record, decisions)
    assert "new hand: " + format_counts(pos.hands[0]) in text and "-- round 1" in text


def test_a_bad_record_names_the_field():
    with pytest.raises(ValueError, match="field 'moves': missing or not a string"):
        review_record({"deal": ROUND4["deal"]})
    with pytest.raises(ValueError, match=r"move 2 \(8\): b cannot play 8: the legal moves are 5 7 \+2 \+3 \+4 T"):
        review_record({"deal": ROUND4["deal"], "moves": "T 8"})


# -- the command ---------------------------------------------------------------------------

def test_review_json_is_one_object_a_decision(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(ROUND4) + "\n")
    run = dnoir("review", str(path), "--json")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(d["ply"], d["player"], d["played"], d["mark"]) for d in lines] == \
        [(1, "a", "T", ""), (2, "b", "T", "??"), (3, "a", "7", ""), (4, "b", "+4", "")]
    assert set(lines[0]) == {"game", "ply", "player", "round", "dnp", "played", "best", "expected_played",
                             "expected_best", "loss", "low", "high", "exact", "mark", "method"}
    # the first two come too early in round 4 for the equilibrium; after both have taken the
    # result is fixed, and there is no game left to solve
    assert [d["method"] for d in lines] == ["view"] * 4


def test_review_text_lists_the_moves_with_marks(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(ROUND4) + "\n")
    run = dnoir("review", str(path))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[1] == "-- round 4"
    assert lines[3].split()[:4] == ["2.", "b", "T", "??"] and "best 5" in lines[3]
    assert "b: 2 decisions, 0 mistakes, 1 blunders" in run.stdout


@pytest.mark.slow
def test_review_of_a_match_record_through_the_cli(tmp_path):
    out = tmp_path / "match.jsonl"
    run = dnoir("match", "random", "greedy", "--pairs", "1", "--workers", "1", "--out", str(out))
    assert run.returncode == 0, run.stderr
    run = dnoir("review", str(out), "--game", "1", "--iterations", "200", "--threads", "1", "--seat", "a", "--json")
    assert run.returncode == 0, run.stderr
    decisions = [json.loads(line) for line in run.stdout.splitlines()]
    assert decisions and all(d["player"] == "a" and d["game"] == 1 for d in decisions)
    assert all(d["low"] <= d["loss"] <= d["high"] for d in decisions)


def test_review_of_a_bad_file_is_one_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ROUND4) + "\n{not json\n")
    run = dnoir("review", str(path))
    assert run.returncode == 2
    assert run.stderr.startswith(f"dnoir: error: {path} line 2: not valid JSON")
    path.write_text(json.dumps({"deal": ROUND4["deal"], "moves": "T 8"}) + "\n")
    run = dnoir("review", str(path))
    assert run.returncode == 2
    assert run.stderr.strip().startswith(f"dnoir: error: {path} line 1: move 2 (8): b cannot play 8")


def test_the_searchs_standard_error_is_used_once_a_move_has_enough_visits():
    from solver.analysis.review import MIN_VISITS_FOR_SE, _standard_error

    class Stats:  # MoveStats with the search's standard error
        def __init__(self, visits, expected, se):
            self.visits, self.expected, self.se = visits, expected, se

    assert _standard_error(Stats(MIN_VISITS_FOR_SE, 0.5, 0.01)) == 0.01
    # few visits, or results all equal: the bound for any scores in [0, 1]
    assert _standard_error(Stats(MIN_VISITS_FOR_SE - 1, 0.5, 0.01)) == pytest.approx(math.sqrt(0.25 / 29))
    assert _standard_error(Stats(100, 0.0, 0.0)) == pytest.approx(0.05)
    assert _standard_error(Stats(0, 0.0, 0.0)) == math.inf


def test_review_grades_round_four_by_the_view_when_told(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(play_game(Position.random_deal(31), ("random", "random"), seed=31)) + "\n")
    methods = {}
    for nodes in ("300000", "0"):
        run = dnoir("review", str(path), "--json", "--iterations", "50", "--threads", "1", "--equilibrium-nodes", nodes)
        assert run.returncode == 0, run.stderr
        methods[nodes] = {d["method"] for d in map(json.loads, run.stdout.splitlines()) if d["round"] == 4}
    assert methods == {"300000": {"view", "equilibrium"}, "0": {"view"}}
