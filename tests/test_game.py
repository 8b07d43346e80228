"""The round-4 game solver (solver.solvers.equilibrium, solver.solvers._cfr) against independent references.

The references here share nothing with the solver but the rules core (CoreState, checked
against the pure-Python model in test_rules_differential.py): every deal of individually
labelled cards is enumerated, each dealt game is walked move by move to the real end of
the game (past the point where both have taken), and

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

from solver.analysis.exploit import exploitability, policy_function, view_choice
from solver.rules.cards import KINDS, NKINDS, Move
from solver.rules.position import Position
from solver.solvers.equilibrium import GameTooBig, equilibrium_advice, estimate, solve_game
from solver.solvers.limit import Limit

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
        core = Position.random_deal(seed * 7919 + game).core
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
# The reference game: labelled cards, every deal walked to the real end of the game

def counts_of_tokens(tokens):
    counts = [0] * NKINDS
    for t in tokens:
        counts[KINDS.index(t)] += 1
    return tuple(counts)


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


class RefNode:
    """A dealt game state: the core's rules, moves as tokens."""

    def __init__(self, core):
        self.core = core
        self.to_move = core.export()["to_move"]

    def is_over(self):
        return self.core.is_over

    def legal_moves(self):
        return [str(Move(m)) for m in self.core.legal_moves()]

    def play(self, token):
        return RefNode(self.core.play(Move.parse(token).index))


def reference_root(pos, hand_a, hand_b):
    dealt = Position(line=pos.line, hands=(counts_of_tokens(hand_a), counts_of_tokens(hand_b)),
                     hand_sizes=pos.hand_sizes, colls=pos.colls, round=4, to_move=pos.to_move, taken=pos.taken)
    return RefNode(dealt.core)


def utility_a(state):
    winner = state.core.outcome()[0]
    return 1.0 if winner == 0 else 0.0 if winner == 1 else 0.5


def infoset(state, dealt, history):
    """(player index, dealt hand counts, public history) of the side to move."""
    p = state.to_move
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


def sequence_form(pos):
    """(sequences, information sets, parent sequences, payoff) of both players, from the reference walk.

    sequences[p]: (infoset, move) -> index (0: the empty sequence); infosets[p]: infoset -> moves;
    parents[p]: infoset -> the index of the player's sequence leading to it; payoff:
    (sequence of a, sequence of b) -> sum of chance probability * a's score over the leaves.
    """
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
    return seqs, infosets, parents, payoff


def lp_game_value(pos):
    """Player a's game value by the sequence-form LP (von Stengel 1996), solved by HiGHS."""
    import numpy as np
    from scipy.sparse import coo_matrix

    seqs, infosets, parents, payoff = sequence_form(pos)
    na, nb = len(seqs[0]), len(seqs[1])
    ia, ib = list(infosets[0]), list(infosets[1])
    # variables: x (na) then q (1 + len(ib)); maximize q[0]
    nq = 1 + len(ib)
    c = np.zeros(na + nq)
    c[na] = -1.0
    # E x = e: x[empty] = 1; for each a-infoset, its moves' sum equals its parent sequence
    eq = {(0, 0): 1.0}
    for r, key in enumerate(ia, start=1):
        eq[(r, parents[0][key])] = eq.get((r, parents[0][key]), 0.0) - 1.0
        for m in infosets[0][key]:
            eq[(r, seqs[0][(key, m)])] = 1.0
    b_eq = np.zeros(1 + len(ia))
    b_eq[0] = 1.0
    # F^T q - A^T x <= 0, one row per b-sequence (row 0: the empty sequence)
    ub = {(0, na): 1.0}
    for r, key in enumerate(ib, start=1):
        ub[(parents[1][key], na + r)] = ub.get((parents[1][key], na + r), 0.0) - 1.0
        for m in infosets[1][key]:
            ub[(seqs[1][(key, m)], na + r)] = 1.0
    for (sa, sb), v in payoff.items():
        ub[(sb, sa)] = ub.get((sb, sa), 0.0) - v

    def sparse(cells, rows):
        keys = list(cells)
        return coo_matrix(([cells[k] for k in keys], ([k[0] for k in keys], [k[1] for k in keys])),
                          shape=(rows, na + nq)).tocsr()

    bounds = [(0, None)] * na + [(None, None)] * nq
    res = scipy_optimize.linprog(c, A_ub=sparse(ub, nb), b_ub=np.zeros(nb), A_eq=sparse(eq, 1 + len(ia)),
                                 b_eq=b_eq, bounds=bounds, method="highs")
    assert res.status == 0, res.message
    return -res.fun


def strategy_table(tree, policy=False):
    """{(player, dealt counts, history tokens): {move token: probability}} from a solved tree."""
    return {(p, initial, tuple(str(Move(m)) for m in hist)): {str(Move(m)): pr for m, pr in probs.items()}
            for _, _, p, initial, _, hist, probs in tree.infosets(policy)}


def reference_value(pos, strategies, deals=None):
    """Player a's expected score when each player follows strategies[p](key, moves) -> {move: prob},
    summed over `deals` (default: every deal, so the probabilities sum to 1)."""
    total = 0.0
    for hand_a, hand_b, prob in (reference_deals(pos) if deals is None else deals):
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


def settled_key(pos, key):
    """True for an information set after both have taken: the result is fixed there."""
    return key[2].count("T") + bin(pos.taken).count("1") == 2


def pure_strategy_keys(pos, player):
    """{information set: moves} of `player` before the result is fixed."""
    keys = {}

    def decision(key, moves, state):
        if key[0] == player and not settled_key(pos, key):
            keys[key] = moves

    walk_reference(pos, lambda *a: None, decision)
    return keys


def brute_force_best_response(pos, player, other_strategy):
    """(max over every pure strategy of `player` of its expected score against other_strategy, count).

    Information sets after the result is fixed play their first move (their moves change nothing).
    """
    keys = pure_strategy_keys(pos, player)
    ordered = sorted(keys)
    best, count = -1.0, 0
    for choice in itertools.product(*(keys[k] for k in ordered)):
        pure = dict(zip(ordered, choice))
        strategies = [None, None]
        strategies[player] = lambda key, moves: {pure.get(key, moves[0]): 1.0}
        strategies[1 - player] = other_strategy
        v = reference_value(pos, strategies)
        best = max(best, v if player == 0 else 1.0 - v)
        count += 1
    return best, count


# ---------------------------------------------------------------------------------------
# Tests

@pytest.mark.slow
def test_cfr_game_value_agrees_with_the_sequence_form_lp_on_100_endgames():
    positions = small_endgames(100, max_cards=4, seed=1)
    undecided = 0
    for pos in positions:
        sol = solve_game(pos, target=1e-7, limit=Limit(iterations=200_000))
        assert sol.exploitability <= 1e-7, str(pos)
        value_a = sol.game_value if pos.to_move == 0 else 1.0 - sol.game_value
        assert abs(value_a - lp_game_value(pos)) <= 1e-6, str(pos)
        undecided += 0.01 < value_a < 0.99
    assert undecided >= 20  # the check is not only on positions decided whatever anyone plays


def test_game_value_lies_between_the_two_best_responses():
    pos = small_endgames(1, max_cards=5, seed=4)[0]
    sol = solve_game(pos, target=None, limit=Limit(iterations=7))
    br_a, br_b = sol.best_response
    value_a = sol.tree.profile_value()
    assert 1.0 - br_b - 1e-12 <= value_a <= br_a + 1e-12
    assert sol.exploitability == pytest.approx((br_a + br_b - 1.0) / 2.0)


def tiny_cases():
    """Small endgames whose pure strategies are few enough to enumerate, yet more than one."""
    cases = []
    for pos in small_endgames(40, max_cards=3, seed=2):
        counts = []
        for p in range(2):
            pure = 1
            for moves in pure_strategy_keys(pos, p).values():
                pure *= len(moves)
            counts.append(pure)
        if all(2 <= n <= 2000 for n in counts):
            cases.append(pos)
        if len(cases) == 3:
            break
    return cases


@pytest.mark.slow
def test_best_response_agrees_with_brute_force_over_every_pure_strategy():
    cases = tiny_cases()
    assert len(cases) == 3
    for pos in cases:
        # a strategy far from equilibrium (two iterations), and the uniform policy
        sol = solve_game(pos, target=None, limit=Limit(iterations=2))
        table = strategy_table(sol.tree)
        for p in range(2):
            brute, pure = brute_force_best_response(pos, p, table_strategy(table))
            assert pure >= 2
            assert sol.tree.best_response(p) == pytest.approx(brute, abs=1e-12), (str(pos), p)
        from solver.solvers.equilibrium import set_policy
        set_policy(sol.tree, policy_function("random"))
        uniform = table_strategy(strategy_table(sol.tree, policy=True))
        for p in range(2):
            brute, _ = brute_force_best_response(pos, p, uniform)
            assert sol.tree.best_response(p, True) == pytest.approx(brute, abs=1e-12), (str(pos), p)


def brute_force_move_values(pos, hand, other_strategy):
    """{root move: the mover's expected score holding `hand` (counts) if it plays that move and
    then its best pure continuation against other_strategy}, by enumerating every pure
    strategy of its information sets below the move."""
    player = pos.to_move
    deals = [(a, b, pr) for a, b, pr in reference_deals(pos) if counts_of_tokens((a, b)[player]) == tuple(hand)]
    weight = sum(pr for *_, pr in deals)
    keys = pure_strategy_keys(pos, player)
    values = {}
    for move in sorted({m for a, b, _ in deals for m in reference_root(pos, a, b).legal_moves()}):
        below = sorted(k for k in keys if k[1] == tuple(hand) and k[2][:1] == (move,))
        best = -1.0
        for choice in itertools.product(*(keys[k] for k in below)):
            pure = dict(zip(below, choice))
            strategies = [None, None]
            strategies[player] = lambda key, moves: {move: 1.0} if not key[2] else {pure.get(key, moves[0]): 1.0}
            strategies[1 - player] = other_strategy
            value_a = reference_value(pos, strategies, deals)
            total = value_a if player == 0 else weight - value_a
            best = max(best, total / weight)
        values[move] = best
    return values


@pytest.mark.slow
def test_each_moves_expected_score_is_the_movers_best_play_after_it_against_the_equilibrium():
    """A move the equilibrium never plays is scored by what it is worth, not as if the mover then
    played at random (CFR never trains the mover's own strategy below such a move)."""
    off_path = 0
    for pos in small_endgames(40, max_cards=3, seed=2)[:25]:
        sol = solve_game(pos, target=1e-6, limit=Limit(iterations=20_000))
        hand = pos.hands[pos.to_move]
        brute = brute_force_move_values(pos, hand, table_strategy(strategy_table(sol.tree)))
        ours = {m.move: m.expected for m in sol.moves}
        assert set(ours) == set(brute), str(pos)
        for m in sol.moves:
            assert m.expected == pytest.approx(brute[m.move], abs=1e-9), (str(pos), m.move)
        # the average strategy's own continuation: the same for the moves it plays, not below the others
        following = sol.tree.root_hand_values(hand)
        for m in sol.moves:
            if m.frequency < 1e-3 and brute[m.move] - following[Move.parse(m.move).index][1] > 0.05:
                off_path += 1
    assert off_path >= 1  # the check reaches a move the old scoring got wrong


def test_a_move_no_hand_plays_is_answered_by_an_opponent_trained_below_it():
    """a holds the third city: playing it lets b take it and win at once. The equilibrium never
    plays it, so without the root's tremble (ext/cfr.pyx) no iteration reached b's decisions
    below it, b's strategy there stayed uniform, and the move scored 0.57 instead of 0."""
    pos = Position.parse("77+3-3677556 58C/?? 556888+2+2+2+4-1-2/6667788+2+3-2-2-2-3CC 4 a -")
    sol = solve_game(pos, target=1e-4, limit=Limit(iterations=1000))
    moves = {m.move: m for m in sol.moves}
    assert sol.exploitability <= 1e-4 and moves["C"].frequency == 0.0
    assert moves["C"].expected < 1e-3 and moves[sol.best].expected > 0.7


def test_the_tree_has_one_information_set_per_hand_and_history_of_the_reference():
    pos = small_endgames(1, max_cards=4, seed=5)[0]
    sol = solve_game(pos, target=None, limit=Limit(iterations=1))
    ours = set(strategy_table(sol.tree))
    ref = {}

    def decision(key, moves, state):
        ref[key] = moves

    walk_reference(pos, lambda *a: None, decision)
    # the reference plays on after both have taken; the solver stops there (the result is fixed)
    assert ours == {k for k in ref if not settled_key(pos, k)}
    for key, probs in strategy_table(sol.tree).items():
        assert sorted(probs) == sorted(ref[key]) and sum(probs.values()) == pytest.approx(1.0)


def test_the_view_policy_is_the_view_solvers_choice_at_every_information_set():
    pos = small_endgames(1, max_cards=5, seed=6)[0]
    sol = solve_game(pos, target=None, limit=Limit(iterations=1))
    sol.tree.set_view_policy()
    checked = 0
    for _, _, p, _, current, history, probs in sol.tree.infosets(True):
        f = sol.tree.public_fields(history)
        hands = [None, None]
        hands[p] = current
        if not f["hand_sizes"][1 - p]:
            hands[1 - p] = (0,) * NKINDS
        view = Position(line=f["line"], hands=tuple(hands), hand_sizes=f["hand_sizes"], colls=f["colls"],
                        round=4, to_move=p, taken=f["taken"])
        assert {m: pr for m, pr in probs.items() if pr > 0} == {view_choice(view).index: 1.0}, (str(view), probs)
        checked += 1
    assert checked == sol.tree.size[2] > 100


def lp_best_response(pos, player, strategy):
    """`player`'s best-response value against the other seat playing strategy(key, moves), by LP."""
    import numpy as np

    seqs, infosets, parents, payoff = sequence_form(pos)
    other = 1 - player
    plan = np.zeros(len(seqs[other]))
    plan[0] = 1.0
    for key, moves in infosets[other].items():  # parents come first (depth-first discovery)
        probs = strategy(key, moves)
        for m in moves:
            plan[seqs[other][(key, m)]] = plan[parents[other][key]] * probs.get(m, 0.0)
    gain = np.zeros(len(seqs[player]))
    for (sa, sb), v in payoff.items():
        if player == 0:
            gain[sa] += v * plan[sb]
        else:
            gain[sb] -= v * plan[sa]  # b's score is 1 - a's; the constant is added below
    keys = list(infosets[player])
    a_eq = np.zeros((1 + len(keys), len(seqs[player])))
    b_eq = np.zeros(1 + len(keys))
    a_eq[0, 0], b_eq[0] = 1.0, 1.0
    for r, key in enumerate(keys, start=1):
        a_eq[r, parents[player][key]] -= 1.0
        for m in infosets[player][key]:
            a_eq[r, seqs[player][(key, m)]] += 1.0
    res = scipy_optimize.linprog(-gain, A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * len(gain), method="highs")
    assert res.status == 0, res.message
    return -res.fun if player == 0 else 1.0 - res.fun


# A position built to show the view policy's optimism (found by a search over small endgames,
# checked here from scratch): a to move holding two cards, b one, nobody has taken. Playing
# as if the opponent's cards were visible, each seat's view policy is a fixed move in every
# hand it may hold; the other seat's best response reads the hand from that move, and each
# seat gains 1/30 of a game over the game value.
VIEW_EXPLOITABLE = "7-258-1568-17-3-1 8-3/-2 666778+2+2+2+3+4-2CC/55667778888+3-2 4 a -"


def test_the_view_policy_is_exploitable_in_a_hand_built_position():
    pos = Position.parse(VIEW_EXPLOITABLE).view("a")
    value_a = lp_game_value(pos)

    views = {}

    def decision(key, moves, state):
        if key not in views:
            f, p = state.core.export(), key[0]
            hands = list(f["hands"])
            hands[1 - p] = None if f["hand_sizes"][1 - p] else hands[1 - p]
            views[key] = Position(line=f["line"], hands=tuple(hands), hand_sizes=f["hand_sizes"],
                                  colls=f["colls"], round=4, to_move=p, taken=f["taken"])

    walk_reference(pos, lambda *a: None, decision)

    def view_strategy(key, moves):
        return {str(view_choice(views[key])): 1.0}

    br_a = lp_best_response(pos, 0, view_strategy)
    br_b = lp_best_response(pos, 1, view_strategy)
    gain_a, gain_b = br_a - value_a, br_b - (1.0 - value_a)
    assert gain_a > 0.03 and gain_b > 0.03  # each seat's view play loses 1/30 of a game to a best response
    report = exploitability(pos, "view", target=1e-9)
    assert report.best_response == pytest.approx((br_a, br_b), abs=1e-9)
    assert report.exploitability == pytest.approx((gain_a + gain_b) / 2, abs=1e-9)
    assert report.game_value == pytest.approx(value_a, abs=1e-6)


# ---------------------------------------------------------------------------------------
# The API and the commands

SMALL = "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a"
ROUND4_START = "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a -"


def test_round4_start_is_refused_with_its_size_estimate_unless_forced():
    pos = Position.parse(ROUND4_START)
    with pytest.raises(GameTooBig, match=r"does not fit in 10 MB: at least [\d,]+ public nodes"):
        solve_game(pos, max_memory_mb=10)
    with pytest.raises(GameTooBig, match=r"does not fit in 0.01 s: at least [\d,]+ public nodes"):
        solve_game(pos, limit=Limit(seconds=0.01))
    assert not estimate(pos, max_memory_mb=10).complete


def test_solve_game_reports_the_movers_strategy_at_its_hand():
    pos = Position.parse(SMALL)
    sol = solve_game(pos, target=1e-6)
    assert sol.exploitability <= 1e-6 and sol.to_move == 0
    assert [m.move for m in sol.moves] == ["7", "8"]  # the hand 788: +C is not held
    assert sum(m.frequency for m in sol.moves) == pytest.approx(1.0)
    # the expected score of the hand is the frequency-weighted mean of its moves' expectations
    hand_value = sum(m.frequency * m.expected for m in sol.moves)
    assert 0.0 <= hand_value <= 1.0
    assert sol.strategy(0, pos.hands[0]) == pytest.approx({m.move: m.frequency for m in sol.moves})
    assert sol.best == sol.moves[0].move


def test_equilibrium_advice_answers_small_trees_and_declines_big_ones():
    advice = equilibrium_advice(Position.parse(SMALL).view("a"), Limit(seconds=5.0))
    assert advice["method"] == "equilibrium" and advice["exploitability"] <= 1e-3
    assert {m["move"] for m in advice["moves"]} == {"7", "8"} and advice["best"] in {"7", "8"}
    assert equilibrium_advice(Position.parse(ROUND4_START).view("a"), Limit(seconds=0.5)) is None
    hidden = Position.parse(SMALL).view("b")  # a to move, a's hand hidden
    assert equilibrium_advice(hidden, Limit(seconds=5.0)) is None


def test_cli_solve_game_json_and_strategy_file(tmp_path):
    path = tmp_path / "strategy.jsonl"
    r = dnoir("solve", SMALL, "--mode", "game", "--target", "1e-6", "--json", "--strategy", str(path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["mode"] == "game" and out["exploitability"] <= 1e-6
    assert out["best"] in {"7", "8"} and {m["move"] for m in out["moves"]} == {"7", "8"}
    assert set(out["moves"][0]) == {"move", "frequency", "expected"}
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == out["strategy_infosets"] > 0
    root = [x for x in lines if x["history"] == "" and x["hand"] == "788"]
    assert len(root) == 1 and root[0]["player"] == "a"
    assert sum(root[0]["strategy"].values()) == pytest.approx(1.0)


def test_cli_exploit_json():
    r = dnoir("exploit", SMALL, "--policy", "greedy", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out["best_response"]) == {"a", "b"}
    gains = out["best_response"]["a"] - out["game_value"] + out["best_response"]["b"] - (1 - out["game_value"])
    assert out["exploitability"] == pytest.approx(gains / 2, abs=1e-6)
    assert out["exploitability"] > 0.1  # greedy is far from the equilibrium here


@pytest.mark.parametrize("args, message", [
    (["solve", SMALL, "--mode", "game", "--target", "nan"], "--target"),
    (["solve", SMALL, "--mode", "game", "--time", "-1"], "--time"),
    (["solve", ROUND4_START, "--mode", "game", "--time", "0.01"], "does not fit in 0.01 s"),
    (["solve", "5+2 678+3C/????? ./. 1 a -", "--mode", "game"], "round"),
    (["exploit", SMALL, "--policy", "bogus"], "unknown bot"),
    (["solve", SMALL, "--mode", "game", "--strategy", "/nonexistent/dir/file"], "--strategy"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, message):
    r = dnoir(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("dnoir: error:") and message in r.stderr


@pytest.mark.parametrize("name", ["solver.solvers.equilibrium", "solver.solvers._cfr", "solver.cli.equilibrium"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@pytest.mark.slow
def test_bench_game_docstring_example():
    import doctest

    import solver.bench.equilibrium

    result = doctest.testmod(solver.bench.equilibrium)
    assert result.failed == 0 and result.attempted > 0


def test_build_reuses_a_complete_count_and_recounts_after_a_capped_one():
    # build() takes the tree's size from the last complete count() (the count that decided
    # whether the tree fits is not made twice); a count stopped at its cap is not a size
    from solver.solvers._cfr import GameTree
    from solver.solvers.equilibrium import game_pool

    pos = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    fresh = GameTree(pos.core, game_pool(pos), pos.hand_sizes).build()
    counted = GameTree(pos.core, game_pool(pos), pos.hand_sizes)
    assert counted.count() == fresh
    assert counted.build() == fresh
    capped = GameTree(pos.core, game_pool(pos), pos.hand_sizes)
    partial = capped.count(cap=10)
    assert not partial["complete"] and partial["nodes"] < fresh["nodes"]
    assert capped.build() == fresh
    capped.iterate(50)
    reference = GameTree(pos.core, game_pool(pos), pos.hand_sizes)
    reference.build()
    reference.iterate(50)
    assert capped.exploitability() == reference.exploitability()
