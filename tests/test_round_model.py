"""The round-end model (solver.solvers.roundmodel) and its use by the search: the C version
agrees with the Python reference, a model-scored result is unbiased, a settled result ends
the playout, and advice without played-out games shows no split it does not have."""

import math
import subprocess
import sys
import random

import pytest

from solver import Position
from solver.rules.cards import Move
from solver.solvers._ismcts import MODEL_SHAPE, Searcher, model_results, round_end_win_probability
from solver.solvers.limit import Limit
from solver.solvers.roundmodel import FEATURES, ROUNDS_MODELLED, weights, win_probability
from solver.solvers.search import PRESETS, advise
from solver.interfaces.board import render_advice

ROUND_ENDS = 300  # random games whose round ends are compared


def _round_starts(games: int, seed: int):
    """Positions just after rounds 1-3 ended, from uniformly random games."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position.random_deal(rng.getrandbits(50))
        current = pos.round
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
            if not pos.is_over and pos.round != current:
                current = pos.round
                yield pos


def test_the_weights_have_the_searchs_shape_and_are_finite():
    rows = weights()
    assert MODEL_SHAPE == (ROUNDS_MODELLED, FEATURES) == (len(rows), len(rows[0]))
    assert all(math.isfinite(x) for row in rows for x in row)


def test_the_search_computes_the_model_as_the_reference_does():
    starts = list(_round_starts(ROUND_ENDS, seed=5))
    assert {pos.round for pos in starts} == {2, 3, 4}
    for pos in starts:
        reference = win_probability(pos)
        assert 0 < reference < 1
        assert round_end_win_probability(pos.core, weights()) == pytest.approx(reference, abs=1e-12)


def test_the_model_sees_a_majority_and_the_mirror():
    # a's supports far ahead at the end of round 3 is a likely win for a, and the mirror for b
    starts = [p for p in _round_starts(200, seed=6) if p.round == 4]
    ahead = [p for p in starts if sum(a - b for a, b in zip(p.colls[0][:4], p.colls[1][:4])) >= 6]
    behind = [p for p in starts if sum(b - a for a, b in zip(p.colls[0][:4], p.colls[1][:4])) >= 6]
    assert ahead and behind
    assert sum(map(win_probability, ahead)) / len(ahead) > 0.6
    assert sum(map(win_probability, behind)) / len(behind) < 0.4


def test_the_reference_refuses_a_position_inside_a_round():
    pos = Position.random_deal(3)
    with pytest.raises(ValueError, match="just started round 2, 3 or 4"):
        win_probability(pos)
    with pytest.raises(ValueError, match="round 2, 3 or 4"):
        round_end_win_probability(pos.core, weights())


@pytest.mark.parametrize("bad, message", [
    ([[0.0] * FEATURES] * 2, "3 rows of 162"),
    ([[0.0] * (FEATURES - 1)] * 3, "3 rows of 162"),
    ([[float("nan")] * FEATURES] * 3, "finite"),
])
def test_start_refuses_weights_of_another_shape(bad, message):
    pos = Position.random_deal(4)
    view = pos.view(pos.to_move)
    with pytest.raises(ValueError, match=message):
        Searcher(max_nodes=1000).start(view.core, view.to_move, round_model=bad)


@pytest.mark.parametrize("value", [0.0, 0.03, 0.25, 0.5, 0.6180339, 0.97, 1.0])
def test_a_model_scored_result_has_the_models_mean(value):
    # the search backs up 0, 1/2 or 1 for a model probability p: their mean must be p
    n = 200_000
    mean = model_results(value, n, seed=3) / (2 * n)
    if value in (0.0, 0.5, 1.0):
        assert mean == value  # nothing to round
    else:
        low, high = math.floor(2 * value) / 2, math.ceil(2 * value) / 2
        se = math.sqrt((value - low) * (high - value) / n)
        assert abs(mean - value) < 5 * se


def test_a_model_value_outside_0_1_is_refused():
    with pytest.raises(ValueError, match="out of range"):
        model_results(1.5, 1)


def test_a_settled_round_4_root_is_searched_and_every_move_has_its_fixed_result():
    rng = random.Random(8)
    for seed in range(200):
        pos = Position.random_deal(seed)
        while not pos.is_over and not (pos.round == 4 and pos.taken == 3):
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over and len(pos.legal_moves()) > 1:
            break
    else:
        pytest.fail("no settled round-4 position found")
    view = pos.view(pos.to_move)
    s = Searcher(max_nodes=10_000)
    s.start(view.core, view.to_move, seed=1, round_model=weights())
    assert s.search(iterations=500) == 500
    stats = s.root_stats()
    assert sum(st.visits for st in stats.values()) == 500 and len(stats) == len(pos.legal_moves())
    means = {st.reward / st.visits for st in stats.values()}
    assert len(means) == 1 and means <= {0.0, 0.5, 1.0}
    assert s.nodes_used == 1 + len(stats)  # nothing grows below a settled result


def test_the_models_standard_errors_are_its_results_spread_not_a_bound():
    # mid-round, the model's probabilities spread far less than results of 0 or 1 with the
    # same mean: the standard error is below m (1 - m) / (visits - 1), its bound, for every
    # move the search looked at, and the squares lie where results in 0..1 put them
    pos = Position.random_deal(31)
    for _ in range(4):
        pos = pos.play(pos.legal_moves()[0])
    view = pos.view(pos.to_move)
    advice = advise(view, Limit(iterations=6000), threads=1, seed=2, config=PRESETS["default"])
    s = Searcher(max_nodes=100_000)
    s.start(view.core, view.to_move, seed=2, round_model=weights(), exploration=0.35, opponent_hands=10.0)
    s.search(iterations=6000)
    for st in s.root_stats().values():
        assert st.reward ** 2 / st.visits - 1e-9 <= st.squares <= st.reward + 1e-9
    for m in advice.moves:
        if m.visits > 20:
            assert 0 < m.se < 0.9 * math.sqrt(m.expected * (1 - m.expected) / (m.visits - 1))


def test_advice_scored_by_the_model_shows_no_played_out_split():
    pos = Position.random_deal(9)
    view = pos.view(pos.to_move)
    model = PRESETS["default"].replace(round_model=True)
    with_model = advise(view, Limit(iterations=3000), threads=1, seed=1, config=model)
    assert with_model.config.round_model
    assert all(m.win is None and m.draw is None and m.loss is None and m.margin is None for m in with_model.moves)
    assert all(m.to_dict()["win"] is None for m in with_model.moves)
    text = render_advice(view, with_model)
    table = text.split("\nrecommended:")[0]  # the lines below name the take margin, a rule's setting
    assert "move    share     visits  expected  ± s.e.\n" in table and "margin" not in table
    assert "round-end model" in text
    played = advise(view, Limit(iterations=3000), threads=1, seed=1,
                    config=PRESETS["default"].replace(round_model=False))  # playouts to the game's end
    assert all(m.win is not None and m.margin is not None for m in played.moves)
    assert "win    draw    loss   margin" in render_advice(view, played)


def test_the_model_search_is_reproducible_by_seed():
    pos = Position.random_deal(10)
    view = pos.view(pos.to_move)
    model = PRESETS["default"].replace(round_model=True)
    first, second = (advise(view, Limit(iterations=4000), threads=1, seed=7, config=model).to_dict()
                     for _ in range(2))
    for record in (first, second):
        record.pop("seconds")
        record.pop("iterations_per_second")
    assert first == second


def test_the_option_reaches_the_search_from_the_cli_and_a_spec():
    from solver.agents.bots import make_bot
    from solver.solvers.searchconfig import from_options

    assert PRESETS["default"].round_model  # the default since bench/STRENGTH.md's test 19
    assert not PRESETS["7d9ffe8"].round_model and not PRESETS["388581d"].round_model
    assert make_bot("ismcts:iterations=10,round_model=0").config == from_options(round_model=False)
    assert make_bot("ismcts:iterations=10,search=7d9ffe8,round_model=1").config \
        == from_options("7d9ffe8", round_model=True)
    assert "round-end model" in PRESETS["default"].assumes
    assert "round-end model" not in from_options(round_model=False).assumes


def test_the_model_backs_up_its_exact_probabilities_and_needs_no_margin_or_tuning():
    from solver.errors import ArgumentError

    pos = Position.random_deal(11)
    view = pos.view(pos.to_move)
    s = Searcher(max_nodes=100_000)
    s.start(view.core, view.to_move, seed=1, round_model=weights())
    s.search(iterations=3000)
    stats = s.root_stats()
    # sums of probabilities, not of halves; no margins or draws are kept
    assert any((2 * st.reward) % 1 > 1e-6 for st in stats.values())
    assert all(st.margin == 0 and st.draws == 0 and 0 <= st.reward <= st.visits for st in stats.values())
    for options in (dict(margin_weight=0.2), dict(tuned=True)):
        with pytest.raises(ValueError, match="played-out games"):
            Searcher(max_nodes=1000).start(view.core, view.to_move, round_model=weights(), **options)
    with pytest.raises(ArgumentError, match="played-out games"):
        PRESETS["default"].replace(round_model=True, tuned=True)


@pytest.mark.parametrize("spec, accepted", [
    ("ismcts:iterations=10,margin=0.2", "ismcts:iterations=10,margin=0.2,round_model=0"),
    ("ismcts:iterations=10,tuned=1", "ismcts:iterations=10,tuned=1,search=7d9ffe8"),
    ("ismcts:iterations=10,search=7d9ffe8,round_model=1,tuned=1", "ismcts:iterations=10,search=7d9ffe8,tuned=1")])
def test_a_spec_the_search_refuses_is_refused_before_any_game(spec, accepted, tmp_path):
    # the margin term and UCB1-Tuned need played-out games: with the default's round-end model
    # the spec is a SpecError when it is read, not when a worker builds the bot mid-match
    from solver.agents.bots import check_spec
    from solver.errors import SpecError
    with pytest.raises(SpecError, match="round_model"):
        check_spec(spec)
    out = tmp_path / "m.jsonl"
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", spec, "random", "--pairs", "1",
                          "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == "" and not (out.exists() and out.read_text())
    assert run.stderr.count("\n") == 1 and "round_model" in run.stderr
    assert check_spec(accepted)[0] == "ismcts"  # with the model off, the same settings are taken


def test_the_fit_labels_with_open_hands_round_4_the_same_states():
    # bench/round_model.py --round4 open: the same random games and states, a game that reaches
    # round 4 labelled by round 4 played perfectly with open hands instead of by its random end
    from solver.bench.round4_swing import open_value
    from solver.bench.round_model import samples

    plain, open_ = samples(5, 30), samples(5, 30, round4="open")
    assert plain.shape == open_.shape and (plain[:, :-1] == open_[:, :-1]).all()
    assert set(open_[:, -1]) <= {0.0, 0.5, 1.0} and (plain[:, -1] != open_[:, -1]).any()
    # the label is a's value whoever is to move: here b wins with open hands (bench/round4_swing.py)
    lost = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    assert open_value(lost, 0) == 0.0 and open_value(lost.play("8"), 0) == 0.0


def test_the_fit_labels_with_round_4_played_by_each_sides_view_the_same_states():
    # bench/round_model.py --round4 view: round 4 played out by each side's one-player view (the
    # opponent's hand unseen), which is neither random play nor open-hands perfect play
    from solver.bench.round_model import samples, view_value
    from solver.solvers.search import advise

    plain, open_, view = samples(5, 30), samples(5, 30, round4="open"), samples(5, 30, round4="view")
    assert plain.shape == view.shape and (plain[:, :-1] == view[:, :-1]).all()
    assert set(view[:, -1]) <= {0.0, 0.5, 1.0} and (plain[:, -1] != view[:, -1]).any()
    assert (open_[:, -1] != view[:, -1]).any()
    # the play is the engine's own view answer, move by move
    start = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    pos = start
    while not pos.is_over:
        pos = pos.play(advise(pos, exact=True, endgame="view").best)
    assert view_value(start, 0) == {"a": 1.0, "b": 0.0, None: 0.5}[pos.result().winner]
