"""The round-4 game solver (solver.game, solver._cfr) against independent references.

The references here share no code with the solver: the game tree is walked with the
pure-Python rules model (tests/refmodel) for every deal of individually labelled cards,
played to the real end of the game, and

- an exact sequence-form linear program (scipy's HiGHS) gives the game value;
- a brute-force best response enumerates every pure strategy of one seat;
- a policy's value is summed over every deal and every path.
"""

import itertools
import json
import random
import subprocess
import sys
from math import comb

import pytest

import refmodel
from solver.cards import KINDS, NKINDS, TAKE, Move
from solver.game import (
    GameTooBig, equilibrium_advice, estimate, exploitability, game_pool, policy_function, solve_game,
    view_choice,
)
from solver.position import Position

scipy_optimize = pytest.importorskip("scipy.optimize")


def dnoir(*args, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


# ---------------------------------------------------------------------------------------
# Positions

def small_endgames(count, max_cards, seed=0):
    """`count` unsettled round-4 positions with at most `max_cards` cards in both hands together."""
    found, game = [], 0
    while len(found) < count:
        rng = random.Random(seed * 7919 + game)
        core = Position.random_deal(seed * 7919 + game)._core()
        game += 1
        while True:
            f = core.export()
            if f["over"] or f["taken"] == 3 or (f["round"] == 4 and sum(f["hand_sizes"]) <= max_cards):
                break
            core = core.play(rng.choice(core.legal_moves()))
        if not f["over"] and f["taken"] != 3:
            found.append(Position(line=f["line"], hands=f["hands"], hand_sizes=f["hand_sizes"], colls=f["colls"],
                                  round=4, to_move=f["to_move"], taken=f["taken"]))
    return found


# ---------------------------------------------------------------------------------------
# The reference game: refmodel states, labelled cards, played to the end

def counts_of_tokens(tokens):
    counts = [0] * NKINDS
    for t in tokens:
        counts[KINDS.index(t)] += 1
    return tuple(counts)


def tokens_of_counts(counts):
    return [KINDS[k] for k in range(NKINDS) for _ in range(counts[k])]


def reference_deals(pos):
    """[(hand a tokens, hand b tokens, probability)] over every deal of labelled cards."""
    public = list(pos.line) + [k for c in pos.colls for k in range(NKINDS) for _ in range(c[k])]
    pool = dict(refmodel.COMPOSITION)
    for k in public:
        pool[KINDS[k]] -= 1
    cards = [t for t, n in pool.items() for _ in range(n)]
    ha, hb = pos.hand_sizes
    weights = {}
    for a in itertools.combinations(range(len(cards)), ha):
        rest = [i for i in range(len(cards)) if i not in a]
        for b in itertools.combinations(rest, hb):
            key = (tuple(sorted(cards[i] for i in a)), tuple(sorted(cards[i] for i in b)))
            weights[key] = weights.get(key, 0) + 1
    total = comb(len(cards), ha) * comb(len(cards) - ha, hb)
    assert sum(weights.values()) == total
    return [(list(a), list(b), w / total) for (a, b), w in weights.items()]


def reference_root(pos, hand_a, hand_b):
    dealt = Position(line=pos.line, hands=(counts_of_tokens(hand_a), counts_of_tokens(hand_b)),
                     hand_sizes=pos.hand_sizes, colls=pos.colls, round=4, to_move=pos.to_move, taken=pos.taken)
    return refmodel.RefState.from_dnp(str(dealt))


def utility_a(state):
    winner = state.winner
    return 1.0 if winner == "a" else 0.0 if winner == "b" else 0.5


def infoset(state, dealt, history):
    """(player index, dealt hand counts, public history) of the side to move."""
    p = refmodel.PLAYERS.index(state.to_move)
    return (p, counts_of_tokens(dealt[p]), tuple(history))


def walk_reference(pos, leaf, decision):
    """Call decision(key, moves, state) at every node and leaf(state, prob, path) over every deal."""
    for hand_a, hand_b, prob in reference_deals(pos):
        dealt = (hand_a, hand_b)

        def rec(state, history, path):
            if state.is_over():
                leaf(state, prob, path)
                return
            key = infoset(state, dealt, history)
            moves = state.legal_moves()
            decision(key, moves, state)
            for m in moves:
                rec(state.play(m), history + [m], path + [(key, m)])

        rec(reference_root(pos, hand_a, hand_b), [], [])


def lp_game_value(pos):
    """Player a's game value by the sequence-form LP (von Stengel 1996), solved by HiGHS."""
    import numpy as np

    seqs = [{(): 0}, {(): 0}]           # per player: sequence (infoset, move) -> index; () is empty
    infosets = [{}, {}]                 # per player: infoset -> (parent sequence, moves)
    payoff = {}

    def decision(key, moves, state):
        p = key[0]
        if key not in infosets[p]:
            infosets[p][key] = moves
            for m in moves:
                seqs[p][(key, m)] = len(seqs[p])

    def last_seq(path, p):
        for key, m in reversed(path):
            if key[0] == p:
                return seqs[p][(key, m)]
        return 0

    parents = [{}, {}]

    def leaf(state, prob, path):
        # parents of every infoset on the path: the player's previous sequence
        for i, (key, m) in enumerate(path):
            parents[key[0]].setdefault(key, last_seq(path[:i], key[0]))
        cell = (last_seq(path, 0), last_seq(path, 1))
        payoff[cell] = payoff.get(cell, 0.0) + prob * utility_a(state)

    walk_reference(pos, leaf, decision)
    na, nb = len(seqs[0]), len(seqs[1])
    ia, ib = list(infosets[0]), list(infosets[1])
    # variables: x (na) then q (1 + len(ib)); maximize q[0]
    nq = 1 + len(ib)
    c = np.zeros(na + nq)
    c[na] = -1.0
    # E x = e: x[empty] = 1; for each a-infoset, its moves' sum equals its parent sequence
    a_eq = np.zeros((1 + len(ia), na + nq))
    b_eq = np.zeros(1 + len(ia))
    a_eq[0, 0], b_eq[0] = 1.0, 1.0
    for r, key in enumerate(ia, start=1):
        a_eq[r, parents[0][key]] -= 1.0
        for m in infosets[0][key]:
            a_eq[r, seqs[0][(key, m)]] += 1.0
    # F^T q - A^T x <= 0, one row per b-sequence
    a_ub = np.zeros((nb, na + nq))
    a_ub[0, na] = 1.0  # the empty sequence's column of F: root constraint
    for r, key in enumerate(ib, start=1):
        a_ub[parents[1][key], na + r] -= 1.0
        for m in infosets[1][key]:
            a_ub[seqs[1][(key, m)], na + r] += 1.0
    for (sa, sb), v in payoff.items():
        a_ub[sb, sa] -= v
    bounds = [(0, None)] * na + [(None, None)] * nq
    res = scipy_optimize.linprog(c, A_ub=a_ub, b_ub=np.zeros(nb), A_eq=a_eq, b_eq=b_eq, bounds=bounds,
                                 method="highs")
    assert res.status == 0, res.message
    return -res.fun


def strategy_table(tree, policy=False):
    """{(player, dealt counts, history tokens): {move token: probability}} from a solved tree."""
    return {(p, initial, tuple(str(Move(m)) for m in hist)): {str(Move(m)): pr for m, pr in probs.items()}
            for _, _, p, initial, _, hist, probs in tree.infosets(policy)}


def reference_value(pos, strategies):
    """Player a's expected score when each player follows strategies[p](key, moves) -> {move: prob}."""
    total = 0.0
    for hand_a, hand_b, prob in reference_deals(pos):
        dealt = (hand_a, hand_b)

        def rec(state, history):
            if state.is_over():
                return utility_a(state)
            key = infoset(state, dealt, history)
            probs = strategies[key[0]](key, state.legal_moves())
            return sum(pr * rec(state.play(m), history + [m]) for m, pr in probs.items() if pr > 0)

        total += prob * rec(reference_root(pos, hand_a, hand_b), [])
    return total


def table_strategy(table):
    """A strategy from a table; information sets it lacks (after the result is fixed) play uniformly."""
    def strategy(key, moves):
        return table.get(key) or {m: 1.0 / len(moves) for m in moves}
    return strategy


def brute_force_best_response(pos, player, other_strategy):
    """max over every pure strategy of `player` of its expected score against other_strategy."""
    keys = {}

    def decision(key, moves, state):
        if key[0] == player:
            keys[key] = moves

    walk_reference(pos, lambda *a: None, decision)
    ordered = sorted(keys)
    best = -1.0
    for choice in itertools.product(*(keys[k] for k in ordered)):
        pure = dict(zip(ordered, choice))
        strategies = [None, None]
        strategies[player] = lambda key, moves: {pure[key]: 1.0}
        strategies[1 - player] = other_strategy
        v = reference_value(pos, strategies)
        best = max(best, v if player == 0 else 1.0 - v)
    return best, len(list(itertools.product(*(keys[k] for k in ordered))))


# ---------------------------------------------------------------------------------------
# Tests

@pytest.mark.slow
def test_cfr_game_value_agrees_with_the_sequence_form_lp_on_100_endgames():
    positions = small_endgames(100, max_cards=4, seed=1)
    undecided = 0
    for pos in positions:
        sol = solve_game(pos, target=1e-7, seconds=None, iterations=200_000)
        assert sol.exploitability <= 1e-7, str(pos)
        value_a = sol.game_value if pos.to_move == 0 else 1.0 - sol.game_value
        assert abs(value_a - lp_game_value(pos)) <= 1e-6, str(pos)
        undecided += 0.01 < value_a < 0.99
    assert undecided >= 20  # the check is not only on positions decided whatever anyone plays


def test_game_value_lies_between_the_two_best_responses():
    pos = small_endgames(1, max_cards=5, seed=4)[0]
    sol = solve_game(pos, target=None, seconds=None, iterations=7)
    br_a, br_b = sol.best_response
    value_a = sol.tree.profile_value()
    assert 1.0 - br_b - 1e-12 <= value_a <= br_a + 1e-12
    assert sol.exploitability == pytest.approx((br_a + br_b - 1.0) / 2.0)


def tiny_cases():
    """Small endgames whose pure strategies are few enough to enumerate."""
    cases = []
    for pos in small_endgames(40, max_cards=3, seed=2):
        keys = {}

        def decision(key, moves, state):
            keys[key] = moves

        walk_reference(pos, lambda *a: None, decision)
        for p in range(2):
            pure = 1
            for key, moves in keys.items():
                if key[0] == p:
                    pure *= len(moves)
            if not 2 <= pure <= 3000:
                break
        else:
            cases.append(pos)
        if len(cases) == 4:
            break
    return cases


@pytest.mark.slow
def test_best_response_agrees_with_brute_force_over_every_pure_strategy():
    cases = tiny_cases()
    assert len(cases) == 4
    for pos in cases:
        # a strategy far from equilibrium (two iterations), and the uniform policy
        sol = solve_game(pos, target=None, seconds=None, iterations=2)
        table = strategy_table(sol.tree)
        for p in range(2):
            brute, pure = brute_force_best_response(pos, p, table_strategy(table))
            assert pure >= 2
            assert sol.tree.best_response(p) == pytest.approx(brute, abs=1e-12), (str(pos), p)
        from solver.game import set_policy
        set_policy(sol.tree, policy_function("random"))
        uniform = table_strategy(strategy_table(sol.tree, policy=True))
        for p in range(2):
            brute, _ = brute_force_best_response(pos, p, uniform)
            assert sol.tree.best_response(p, True) == pytest.approx(brute, abs=1e-12), (str(pos), p)


def test_the_tree_has_one_information_set_per_hand_and_history_of_the_reference():
    pos = small_endgames(1, max_cards=4, seed=5)[0]
    sol = solve_game(pos, target=None, seconds=None, iterations=1)
    ours = set(strategy_table(sol.tree))
    ref = {}

    def decision(key, moves, state):
        ref[key] = moves

    def settled_before(key):
        # the reference plays on after both have taken; the solver stops there (the result is fixed)
        return key[2].count("T") + bin(pos.taken).count("1") == 2

    walk_reference(pos, lambda *a: None, decision)
    assert ours == {k for k in ref if not settled_before(k)}
    for key, probs in strategy_table(sol.tree).items():
        assert sorted(probs) == sorted(ref[key]) and sum(probs.values()) == pytest.approx(1.0)
