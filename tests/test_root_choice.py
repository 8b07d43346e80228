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
             "picks": {"visits 1x": [0, 3], "visits 4x": [0, 0]}},
            {"reference": {"1": [900, 0.7], "2": [100, 0.4]}, "best": 1,
             "picks": {"visits 1x": [1, 1], "visits 4x": [2, 1]}}]
    lines = rc.report(rows).splitlines()
    # regrets: 1x 0.05 and 0, 4x 0 and 0.15; paired differences -0.05 and +0.15
    assert lines[2].split() == ["visits", "1x", "0.750", "25.00", "+0.00", "0.00"]
    assert lines[3].split() == ["visits", "4x", "0.750", "75.00", "+50.00", "100.00"]


def test_study_is_seeded_and_has_every_way_and_budget():
    first = rc.study(2, 200, 1000, 4)
    assert first == rc.study(2, 200, 1000, 4)
    ways = {f"{way} {scale}x" for way in ("visits", "mean", "mixmax") for scale in (1, 4)}
    for row in first:
        assert set(row["picks"]) == ways
        assert all(len(moves) == 2 for moves in row["picks"].values())


@pytest.mark.parametrize("args, message", [
    (["--positions", "0"], "argument --positions: 0 is out of range (1 to 10000)"),
    (["--iterations", "ten"], "argument --iterations: 'ten' is not a whole number"),
    (["--reference", "1000", "--iterations", "300"], "--reference 1000 must be more than 4 x --iterations (1200)"),
    (["--reference", "2000000"], "argument --reference: 2000000 is out of range (100 to 1900000)"),
    (["--out", "."], "--out '.': Is a directory"),
])
def test_bad_arguments_exit_2_with_one_line(args, message, tmp_path):
    # Run from an empty folder: from the checkout, `-m solver...` would import the checkout's
    # uncompiled sources instead of the installed package (CI installs with `pip install .`).
    run = subprocess.run([sys.executable, "-m", "solver.bench.root_choice", *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr == f"python -m solver.bench.root_choice: {message}\n"
    assert run.stdout == ""
