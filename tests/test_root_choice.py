"""bench/root_choice.py: the root-choice study (a screening tool, bench/STRENGTH.md round 7)."""

import subprocess
import sys

import pytest

from solver.bench import root_choice as rc
from solver.solvers._ismcts import Searcher


def grown_tree(iterations=3000):
    view = rc.study_positions(1, 5)[0]
    searcher = Searcher(max_nodes=200_000)
    searcher.start(view.core, observer=view.to_move, seed=3, opponent_hands=rc.OPPONENT_HANDS)
    searcher.search(iterations=iterations)
    return searcher


def test_mixmax_without_weight_is_the_mean():
    searcher = grown_tree()
    values = rc.mixmax_values(searcher, (), 4, 0.0, 30)
    stats = searcher.root_stats()
    assert values == {m: s.reward / s.visits for m, s in stats.items() if s.visits}


def test_mixmax_reads_the_best_reply():
    searcher = grown_tree()
    stats = searcher.root_stats()
    move = max(stats, key=lambda m: stats[m].visits)
    replies = {m: s.reward / s.visits for m, s in searcher.node_stats((move,)).items() if s.visits >= 30}
    assert replies, "the most-visited move has replies with 30 visits"
    two_plies = rc.mixmax_values(searcher, (), 2, 0.5, 30)
    assert two_plies[move] == pytest.approx(0.5 * stats[move].reward / stats[move].visits
                                            + 0.5 * (1 - max(replies.values())))


def test_positions_have_a_choice_and_actions_left_in_the_round():
    for view in rc.study_positions(20, 9):
        assert len(view.legal_moves()) >= 2
        assert rc.ROUND_ACTIONS - sum(view.actions) >= 3
        assert view.hands[1 - view.to_move] is None  # a view: the opponent's hand unseen


def test_report_counts_agreement_and_regret():
    rows = [{"reference": {"0": [900, 0.6], "3": [100, 0.5]}, "best": 0,
             "picks": {"visits 1x": [0, 3], "visits 4x": [0, 0]}}]
    text = rc.report(rows)
    assert "visits 1x     0.500   50.00" in text
    assert "visits 4x     1.000    0.00" in text


def test_study_is_seeded():
    first = rc.study(2, 200, 1000, 4)
    assert first == rc.study(2, 200, 1000, 4)
    assert all(len(moves) == 2 for row in first for moves in row["picks"].values())


@pytest.mark.parametrize("args, message", [
    (["--positions", "0"], "--positions: 0 is out of range (1 to 10000)"),
    (["--iterations", "ten"], "--iterations: 'ten' is not a whole number"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    run = subprocess.run([sys.executable, "-m", "solver.bench.root_choice", *args],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith(message)
