"""Brute-force minimax over the reference model: no pruning, no table. Slow and plain.

The value of a position for a player is (rank, margin): rank 2 city win, 1 win, 0 draw,
-1 loss, -2 city loss; margin the player's final total minus the opponent's. Tuples
compare outcome first and margin second, the solver's objective.

One shortcut, a fact of the rules (docs/rules.md, "Facts worth knowing for search") checked on its own
in test_endgame.py: in round 4, once both players have taken, nobody's collection can
change, so the position is scored as it stands.
"""

from itertools import combinations

import refmodel

RANK = {"points": 1, "tie-break": 1, "city": 2}


def final_value(state, player):
    """(rank, margin) for `player` of a finished or settled state."""
    result = state.result()
    scores = result["scores"]
    margin = scores[player]["total"] - scores[refmodel.other(player)]["total"]
    winner = result["winner"]
    if winner is None:  # settled but not finished: score it as it stands
        settled = state.copy()
        settled.to_move = None
        return final_value(settled, player)
    if winner == "draw":
        return (0, margin)
    rank = RANK[result["how"]]
    return (rank if winner == player else -rank, margin)


def settled(state):
    return state.is_over() or (state.round == refmodel.ROUNDS and state.taken == {"a", "b"})


def value(state, player):
    """Minimax value for `player`: the side to move maximises its own value."""
    if settled(state):
        return final_value(state, player)
    children = [value(state.play(m), player) for m in state.legal_moves()]
    return max(children) if state.to_move == player else min(children)


def move_values(state):
    """{move: (rank, margin)} for the side to move, every legal move."""
    me = state.to_move
    return {m: value(state.play(m), me) for m in state.legal_moves()}


def unseen_cards(state, player):
    """The individual cards `player` cannot see (opponent's hand + removed), as tokens."""
    pool = dict(refmodel.COMPOSITION)
    visible = state.line + state.hand(player) + state.coll("a") + state.coll("b")
    for card in visible:
        pool[card] -= 1
    return [card for card, n in pool.items() for _ in range(n)]


def view_expected(state):
    """{move: (expected score, expected margin)} for the mover, by direct count of every
    equally likely set of cards the opponent may hold (cards told apart, not multisets)."""
    me = state.to_move
    opp = refmodel.other(me)
    cards = unseen_cards(state, me)
    size = len(state.hand(opp))
    deals = list(combinations(range(len(cards)), size))
    totals = {}
    for deal in deals:
        world = state.copy()
        world.hands[refmodel.PLAYERS.index(opp)] = [cards[i] for i in deal]
        for m, (rank, margin) in move_values(world).items():
            score = 1.0 if rank > 0 else 0.5 if rank == 0 else 0.0
            s, mg = totals.get(m, (0.0, 0.0))
            totals[m] = (s + score, mg + margin)
    return {m: (s / len(deals), mg / len(deals)) for m, (s, mg) in totals.items()}
