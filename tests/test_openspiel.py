"""The OpenSpiel game `python_district_noir` (solver.interfaces.openspiel): OpenSpiel's own checks and bots,
exact chance probabilities, resampling, and a move-by-move differential test against Position."""

import doctest
import math
import random
from collections import Counter

import numpy as np
import pyspiel  # the [openspiel] extra, part of [test]: these tests never skip
import pytest
from solver.rules._core import CoreState

import solver.interfaces.observation
import solver.interfaces.openspiel  # registers the game
from solver import Position
from solver.interfaces.observation import encode_view
from solver.interfaces.openspiel import GAME_NAME, MAX_MARGIN
from solver.rules.cards import COMPOSITION, KINDS, NKINDS, tokenize

# docs/notation.md's round-4 example: b to move, a has taken, two cards in each hand.
ROUND4_FULL = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"
# The same moment with both hands (and the removed cards) left to chance.
ROUND4_HIDDEN = "7-2+3 ??/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"
# One move later (b played 8): a smaller tree for the CFR example.
ROUND4_SMALL = "7-2+38 ??/? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 a a"


def load(**params):
    return pyspiel.load_game(GAME_NAME, params)


def sample_chance(state, rng):
    outcomes, probs = zip(*state.chance_outcomes())
    return rng.choices(outcomes, probs)[0]


def play_random(state, rng):
    """Finish `state` with random chance outcomes and uniformly random moves."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("module", [solver.interfaces.openspiel, solver.interfaces.observation])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_the_game_is_registered_with_its_type_and_sizes():
    game = pyspiel.load_game(GAME_NAME)
    kind = game.get_type()
    assert kind.short_name == GAME_NAME
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 2 and game.num_distinct_actions() == 12
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_chance_outcomes() == 11
    assert load(margin=True).max_utility() == MAX_MARGIN


@pytest.mark.parametrize("params", [{}, {"margin": True}, {"dnp": ROUND4_HIDDEN}, {"dnp": ROUND4_FULL},
                                    {"dnp": "5+2 678+3C/????? ./. 1 a -"}])
def test_openspiel_random_simulation_with_serialisation_and_the_legal_action_mask(params):
    pyspiel.random_sim_test(load(**params), num_sims=4, serialize=True, verbose=False, mask_test=True)


def test_the_game_loads_from_a_string_with_a_dnp_parameter():
    game = pyspiel.load_game(f"{GAME_NAME}(dnp={ROUND4_HIDDEN},margin=True)")
    assert game.get_parameters() == {"dnp": ROUND4_HIDDEN, "margin": True}


@pytest.mark.parametrize("dnp, reason", [
    ("7-2+3 58/8-2 nonsense", "dnp:"),
    ("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2", "dnp: removed"),
])
def test_a_bad_dnp_parameter_is_one_clear_error(dnp, reason):
    with pytest.raises(ValueError, match=reason):
        load(dnp=dnp)


def test_a_finished_dnp_is_refused():
    rng = random.Random(0)
    pos = Position.random_deal(0)
    while not pos.is_over:
        pos = pos.play(rng.choice(pos.legal_moves()))
    with pytest.raises(ValueError, match="dnp: the game is over"):
        load(dnp=str(pos))


def test_a_full_round4_dnp_has_no_chance_and_follows_the_position():
    state = load(dnp=ROUND4_FULL).new_initial_state()
    pos = Position.parse(ROUND4_FULL)
    assert state.current_player() == 1 and not state.is_chance_node()
    assert state.legal_actions() == [m.index for m in pos.legal_moves()]
    assert state.information_state_string(1).splitlines()[0] == str(pos.view("b"))
    assert state.observation_string(0) == str(pos.view("a"))


def hypergeometric(pool, hand):
    """P(a hand of sum(hand) cards drawn from `pool` (counts per kind) has these counts)."""
    ways = math.prod(math.comb(n, h) for n, h in zip(pool, hand))
    return ways / math.comb(sum(pool), sum(hand))


def test_hidden_hands_are_dealt_with_their_exact_probabilities():
    """Walk every chance path of ROUND4_HIDDEN's deal: each pair of hands gets its exact
    multivariate hypergeometric probability, and each pair appears on one path only."""
    game = load(dnp=ROUND4_HIDDEN)
    start = Position.parse(ROUND4_HIDDEN)
    pool = list(COMPOSITION)
    for k in list(start.line) + [k for c in start.colls for k in range(NKINDS) for _ in range(c[k])]:
        pool[k] -= 1
    found, paths = Counter(), Counter()

    def walk(state, prob):
        if not state.is_chance_node():
            pos = Position.parse(str(state))
            found[pos.hands] += prob
            paths[pos.hands] += 1
            return
        for outcome, p in state.chance_outcomes():
            walk(state.child(outcome), prob * p)

    walk(game.new_initial_state(), 1.0)
    assert sum(found.values()) == pytest.approx(1.0, abs=1e-12)
    expected = {}
    for a in _hands_of_size(pool, 2):
        rest = [n - h for n, h in zip(pool, a)]
        for b in _hands_of_size(rest, 2):
            expected[(a, b)] = hypergeometric(pool, a) * hypergeometric(rest, b)
    assert set(found) == set(expected)
    assert set(paths.values()) == {1}
    for key, p in expected.items():
        assert found[key] == pytest.approx(p, abs=1e-12)


def _hands_of_size(pool, size, kind=0):
    """Every counts tuple of `size` cards that `pool` can give."""
    if kind == NKINDS:
        if size == 0:
            yield (0,) * NKINDS
        return
    for c in range(min(pool[kind], size) + 1):
        for rest in _hands_of_size(pool, size - c, kind + 1):
            yield rest[:kind] + (c,) + rest[kind + 1:]


def test_the_opening_hand_of_a_gets_its_exact_probability():
    """a's opening hand: the probability of the path of its eleven nodes is the hypergeometric one."""
    rng = random.Random(4)
    for _ in range(30):
        state = load().new_initial_state()
        state.apply_action(rng.randrange(2))
        prob = 1.0
        for _ in range(NKINDS):
            outcome = sample_chance(state, rng)
            prob *= dict(state.chance_outcomes())[outcome]
            state.apply_action(outcome)
        record = state.information_state_string(0).splitlines()[1].split()
        hand = _hand_from_record(record, "a")
        assert sum(hand) == 5
        assert prob == pytest.approx(hypergeometric(COMPOSITION, hand), rel=1e-12)


def _hand_from_record(record, player):
    hand = [0] * NKINDS
    for token in record:
        if token.startswith(player + ":"):
            cards = tokenize(token[2:])
            hand[KINDS.index(cards[0])] += len(cards)
    return tuple(hand)


def feed_hand(state, hand):
    """Apply the eleven chance nodes that deal `hand` (counts per kind), checking each is possible."""
    for k in range(NKINDS):
        outcomes = dict(state.chance_outcomes())
        assert outcomes.get(hand[k], 0.0) > 0.0, (k, hand, outcomes)
        state.apply_action(hand[k])


def check_against(state, pos, moves):
    """The adapter state shows exactly what the position does."""
    assert state.current_player() == pos.to_move
    assert state.legal_actions() == [m.index for m in pos.legal_moves()]
    for p in (0, 1):
        view, record = state.information_state_string(p).split("\n")
        assert view == str(pos.view(p))
        assert [t for t in record.split() if ":" not in t] == moves
        assert state.observation_string(p) == view
    assert np.array_equal(np.asarray(state.observation_tensor(pos.to_move), np.float32),
                          encode_view(pos, pos.to_move))


def differential_game(game, seed):
    """One random game through the adapter and through Position from the same deal."""
    rng = random.Random(seed)
    pos = Position.random_deal(seed)
    state = game.new_initial_state()
    state.apply_action(pos.to_move)  # the coin flip: who starts round 1
    feed_hand(state, pos.hands[0])
    feed_hand(state, pos.hands[1])
    for kind in pos.line:
        assert dict(state.chance_outcomes())[kind] > 0.0
        state.apply_action(kind)
    moves = []
    while not pos.is_over:
        check_against(state, pos, moves)
        move = rng.choice(pos.legal_moves())
        round_ = pos.round
        pos = pos.play(move)
        state.apply_action(move.index)
        moves.append(str(move))
        if pos.round != round_:  # Position dealt from its deck: the starter's hand first
            assert state.is_chance_node()
            feed_hand(state, pos.hands[pos.to_move])
            feed_hand(state, pos.hands[1 - pos.to_move])
    assert state.is_terminal()
    result = pos.result()
    expected = {"a": [1.0, -1.0], "b": [-1.0, 1.0], "draw": [0.0, 0.0]}[result.winner]
    assert state.returns() == expected
    return result


def core_differential_game(game, seed):
    """One random game through the adapter and through the C core's own state, from the same
    deal: the legal actions after every move and the returns at the end agree."""
    rng = random.Random(seed)
    core = CoreState.deal(seed)
    fields = core.export()
    state = game.new_initial_state()
    state.apply_action(fields["to_move"])
    feed_hand(state, fields["hands"][0])
    feed_hand(state, fields["hands"][1])
    for kind in fields["line"]:
        state.apply_action(kind)
    while not core.is_over:
        legal = core.legal_moves()
        assert state.legal_actions() == legal
        move = rng.choice(legal)
        round_ = fields["round"]
        core = core.play(move)
        state.apply_action(move)
        fields = core.export()
        if fields["round"] != round_ and not fields["over"]:
            feed_hand(state, fields["hands"][fields["to_move"]])
            feed_hand(state, fields["hands"][1 - fields["to_move"]])
    winner, how = core.outcome()[:2]
    assert state.is_terminal()
    assert state.returns() == {0: [1.0, -1.0], 1: [-1.0, 1.0], None: [0.0, 0.0]}[winner]
    return how


@pytest.mark.slow
def test_differential_random_games_follow_position_move_by_move():
    """300 random games: legal actions, information-state strings (view and record),
    observations and returns equal what Position gives, move by move."""
    game = load()
    outcomes = Counter(differential_game(game, seed).how for seed in range(300))
    assert outcomes["city"] > 0 and outcomes["points"] > 0  # both endings were exercised


@pytest.mark.slow
def test_differential_thousands_of_random_games_follow_the_core():
    """2000 more random games against the C core's state directly: legal actions after every
    move, the new hands of every round, and the returns."""
    game = load()
    outcomes = Counter(core_differential_game(game, seed) for seed in range(300, 2300))
    assert outcomes["city"] > 0 and outcomes["points"] > 0


def test_margin_returns_are_the_score_difference():
    game = load(margin=True)
    for seed in range(30):
        state = play_random(game.new_initial_state(), random.Random(seed))
        pos = Position.parse(str(state))
        result = pos.result()
        if result.how == "city":
            expected = MAX_MARGIN if result.winner == "a" else -MAX_MARGIN
        else:
            expected = result.scores[0].total - result.scores[1].total
        assert state.returns() == [expected, -expected]


def test_information_state_tensor_records_moves_and_own_hands():
    game = load()
    state = play_random(game.new_initial_state(), random.Random(2))
    tensor = np.asarray(state.information_state_tensor(0))
    assert tensor.shape == (game.information_state_tensor_size(),)
    size = solver.interfaces.observation.OBSERVATION_SIZE
    moves = [h.action for h in state.full_history() if h.player >= 0]
    start = size + 2 * NKINDS
    round_hands = tensor[start:start + 4 * NKINDS].reshape(4, NKINDS)
    history = tensor[start + 4 * NKINDS:].reshape(48, 12)
    assert [int(row.argmax()) for row in history if row.any()] == moves
    assert len(moves) == 48 or state.returns() != [0.0, 0.0]
    # a's hand when round 1 began: the "a:" tokens of the record before the first line card
    record = state.information_state_string(0).split("\n")[1].split()
    opening = record[:next(i for i, t in enumerate(record) if t.startswith("line:"))]
    assert tuple(round_hands[0].tolist()) == _hand_from_record(opening, "a")
    assert all(sum(row) == 5 for row in round_hands[:Position.parse(str(state)).round])


def test_states_do_not_share_changes_with_their_clones():
    rng = random.Random(5)
    state = load().new_initial_state()
    for _ in range(40):
        state.apply_action(sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    before = (str(state), state.information_state_string(0), state.history())
    clone = state.clone()
    play_random(clone, rng)
    assert (str(state), state.information_state_string(0), state.history()) == before
    restored = state.get_game().deserialize_state(state.serialize())
    assert (str(restored), restored.information_state_string(0), restored.history()) == before


def resample_checks(state, sampler):
    """Resampled states keep the player's information state and replay from their own history."""
    game = state.get_game()
    for player in (0, 1):
        new = state.resample_from_infostate(player, sampler)
        assert new.information_state_string(player) == state.information_state_string(player)
        assert new.current_player() == state.current_player()
        assert len(new.history()) == len(state.history())  # hidden cards never change the tree's shape
        replayed = game.new_initial_state()
        for action in new.history():
            if replayed.is_chance_node():
                assert dict(replayed.chance_outcomes()).get(action, 0.0) > 0.0
            else:
                assert action in replayed.legal_actions()
            replayed.apply_action(action)
        assert str(replayed) == str(new)
        for p in (0, 1):
            assert replayed.information_state_string(p) == new.information_state_string(p)
        if not new.is_terminal():
            assert new.legal_actions() == replayed.legal_actions()


def test_resample_from_infostate_keeps_the_information_state_and_a_valid_history():
    game = load()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            resample_checks(state, sampler)
            state.apply_action(rng.choice(state.legal_actions()))
        resample_checks(state, sampler)


def test_resampled_hands_are_uniform_over_the_unseen_cards():
    """From b's view of ROUND4_HIDDEN after the deal, a's two cards are a uniform draw from
    the 5 cards b cannot see: the frequencies match the exact probabilities (fixed seed)."""
    state = load(dnp=ROUND4_HIDDEN).new_initial_state()
    rng = random.Random(8)
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    pos = Position.parse(str(state))
    unseen = list(COMPOSITION)
    for k in list(pos.line) + [k for c in pos.colls + (pos.hands[1],) for k in range(NKINDS) for _ in range(c[k])]:
        unseen[k] -= 1
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    draws = 4000
    seen = Counter(Position.parse(str(state.resample_from_infostate(1, sampler))).hands[0] for _ in range(draws))
    expected = {hand: hypergeometric(unseen, hand) for hand in _hands_of_size(unseen, 2)}
    assert set(seen) == set(expected)
    for hand, p in expected.items():
        sigma = math.sqrt(draws * p * (1 - p))
        assert abs(seen[hand] - draws * p) < 5 * sigma, (hand, seen[hand], draws * p)
    # the hand b holds is never redrawn
    assert {Position.parse(str(state.resample_from_infostate(1, sampler))).hands[1] for _ in range(20)} == {pos.hands[1]}


def test_resample_keeps_a_hand_the_dnp_fixed():
    state = load(dnp=ROUND4_FULL).new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    assert {str(state.resample_from_infostate(1, sampler)) for _ in range(10)} == {str(state)}


def test_openspiel_uniform_random_bots_play_full_games():
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    game = load()
    rng = random.Random(0)
    for seed in range(5):
        bots = [UniformRandomBot(0, np.random.RandomState(seed)), pyspiel.make_uniform_random_bot(1, seed)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        assert sum(state.returns()) == 0.0 and state.returns()[0] in (-1.0, 0.0, 1.0)


def ismcts_bot(game, seed, simulations):
    from open_spiel.python.algorithms import ismcts, mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return ismcts.ISMCTSBot(game=game, evaluator=evaluator, uct_c=2.0, max_simulations=simulations,
                            random_state=np.random.RandomState(seed + 1))


def test_openspiel_ismcts_bot_plays_round4_games_with_resampling():
    """OpenSpiel's (Python) ISMCTS bot resamples worlds with resample_from_infostate at every search."""
    game = load(dnp=ROUND4_HIDDEN)
    rng = random.Random(1)
    for seed in range(4):
        bot = ismcts_bot(game, seed, simulations=30)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            action = bot.step(state) if state.current_player() == seed % 2 else rng.choice(state.legal_actions())
            assert action in state.legal_actions()
            state.apply_action(action)
        assert sum(state.returns()) == 0.0


@pytest.mark.slow
def test_openspiel_ismcts_bot_plays_a_full_game():
    game = load()
    bot = ismcts_bot(game, 3, simulations=8)
    rng = random.Random(3)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        action = bot.step(state) if state.current_player() == 0 else rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.returns()[0] in (-1.0, 0.0, 1.0)


@pytest.mark.slow
def test_cfr_solves_a_small_round4_game_and_exploitability_falls():
    """OpenSpiel's C++ CFR+ and exploitability on ROUND4_SMALL (the docs' example, smaller)."""
    game = load(dnp=ROUND4_SMALL)
    cfr = pyspiel.CFRPlusSolver(game)
    cfr.evaluate_and_update_policy()
    first = pyspiel.exploitability(game, cfr.average_policy())
    for _ in range(9):
        cfr.evaluate_and_update_policy()
    tenth = pyspiel.exploitability(game, cfr.average_policy())
    assert 0.0 <= tenth < first / 10


def test_openspiel_ismcts_against_our_bot_through_dnoir_bot():
    """OpenSpiel's ISMCTS bot against `DnoirBot` (our bots inside OpenSpiel), round-4 games."""
    from solver.interfaces.openspiel import DnoirBot

    game = load(dnp=ROUND4_HIDDEN, margin=True)
    rng = random.Random(2)
    for seed in range(2):
        theirs = ismcts_bot(game, seed, simulations=20)
        ours = DnoirBot("ismcts:iterations=200", seed=seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            bot = theirs if state.current_player() == seed % 2 else ours
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        assert state.returns()[0] == -state.returns()[1]


def test_dnoir_bot_sees_only_the_players_view():
    from solver.interfaces.openspiel import DnoirBot

    seen = []
    bot = DnoirBot("random", seed=0)
    choose = bot.bot.choose
    bot.bot.choose = lambda view: (seen.append(view), choose(view))[1]
    state = load(dnp=ROUND4_FULL).new_initial_state()
    state.apply_action(bot.step(state))
    assert seen == [Position.parse(ROUND4_FULL).view("b")]


def minimax(state, player):
    """`player`'s value of `state` when both play best for the win/draw/loss returns."""
    if state.is_terminal():
        return state.returns()[player]
    values = [minimax(state.child(a), player) for a in state.legal_actions()]
    return max(values) if state.current_player() == player else min(values)


@pytest.mark.slow
def test_the_game_tree_agrees_with_the_exact_endgame_solver():
    """From full round-4 DNPs late in the round (no chance node), the minimax value of every
    move in OpenSpiel's tree is the outcome the exact solver (solver.solvers.endgame) gives it."""
    from solver.solvers.endgame import solve

    checked = 0
    for seed in range(200):
        rng = random.Random(seed)
        pos = Position.random_deal(seed)
        while not pos.is_over and (pos.round < 4 or sum(pos.actions) < 4):
            pos = pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over:
            continue
        state = load(dnp=str(pos)).new_initial_state()
        assert not state.is_chance_node()
        mover = pos.to_move
        outcomes = {m.move: m.outcome for m in solve(pos, mode="open").moves}
        for action in state.legal_actions():
            value = minimax(state.child(action), mover)
            assert {1.0: "win", 0.0: "draw", -1.0: "loss"}[value] == outcomes[state.action_to_string(mover, action)]
        checked += 1
        if checked == 25:
            break
    assert checked == 25
