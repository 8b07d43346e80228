"""A deliberately slow, obviously-correct reference model of District Noir.

This module exists only for differential testing of the fast engine.  It is
written for clarity, not speed: plain lists, sets and dicts, small functions,
and comments that cite the rule (docs/rules.md) or notation (docs/notation.md) point they
implement.  Standard library only.

Everything here is a *fully known* position: both hands, the ordered deck and
(optionally) the three removed cards are known.

Public interface
----------------
KINDS, COMPOSITION
RefState.from_dnp(text) / .to_dnp() / .legal_moves() / .play(move) /
         .is_over() / .result()
random_deal(rng), perft(state, depth), random_game(rng, state=None)

Solving is tests/brute.py's job, on top of this model.

Example::

    >>> s = RefState.from_dnp("7 788+2+2/558+2 5677778+3+4-1-2-2-3/6678+2+3-1-3C 3 a a 56658-1C68-2 8-2C")
    >>> s.legal_moves()
    ['7', '8', '+2']
    >>> perft(s, 2)
    12
"""

from __future__ import annotations

import random

__all__ = [
    "KINDS",
    "COMPOSITION",
    "VALUE",
    "PLAYERS",
    "RefState",
    "parse_cards",
    "format_cards",
    "score_breakdown",
    "random_deal",
    "perft",
    "random_game",
]

# ---------------------------------------------------------------------------
# Cards (docs/rules.md "Cards: 45 in play")
# ---------------------------------------------------------------------------

# Canonical order of the kinds (docs/notation.md "Cards": printers use the
# canonical order 5 6 7 8 +2 +3 +4 -1 -2 -3 C).  A kind is an index into this.
KINDS = ("5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C")

# How many cards of each kind the game has (docs/rules.md table).  Total 45.
COMPOSITION = {"5": 5, "6": 6, "7": 7, "8": 8,
               "+2": 4, "+3": 2, "+4": 1,
               "-1": 3, "-2": 4, "-3": 2,
               "C": 3}

# Point value of each token, used for alliances/betrayals and supports.
VALUE = {"5": 5, "6": 6, "7": 7, "8": 8,
         "+2": 2, "+3": 3, "+4": 4,
         "-1": -1, "-2": -2, "-3": -3,
         "C": 0}

SUPPORTS = ("5", "6", "7", "8")
ALLIANCES = ("+2", "+3", "+4")
BETRAYALS = ("-1", "-2", "-3")
CITY = "C"
TAKE = "T"  # docs/notation.md "Moves and game records": a take is `T`

PLAYERS = ("a", "b")
HAND_SIZE = 5          # docs/rules.md "Setup" 2 / "A round": each player draws 5
ACTIONS_PER_ROUND = 6  # docs/rules.md "A round": exactly 6 actions a round each
TAKE_SIZE = 5          # docs/rules.md "A round": the last min(5, len(line)) cards
ROUNDS = 4

assert sum(COMPOSITION.values()) == 45
assert tuple(COMPOSITION) == KINDS


def other(player: str) -> str:
    """The opponent of player 'a' or 'b'."""
    return "b" if player == "a" else "a"


def kind_rank(token: str) -> int:
    """Index of a token in the canonical order (used for sorting)."""
    return KINDS.index(token)


def sort_canonical(cards) -> list:
    """The cards sorted in canonical order 5 6 7 8 +2 +3 +4 -1 -2 -3 C."""
    return sorted(cards, key=kind_rank)


def count(cards, token: str) -> int:
    return sum(1 for c in cards if c == token)


# ---------------------------------------------------------------------------
# Card-string parsing / printing (docs/notation.md "Cards")
# ---------------------------------------------------------------------------

def parse_cards(text: str, field: str = "cards", allow_unknown: bool = False) -> list:
    """Parse a card field such as '5+2C8-1' into ['5', '+2', 'C', '8', '-1'].

    '.' is the empty field.  '?' (an unknown card) is accepted only when
    allow_unknown is True.  Raises ValueError naming the field on any
    unknown token.
    """
    if text == ".":
        return []
    if text == "":
        raise ValueError(f"{field}: empty text (use '.' for an empty field)")
    cards = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "5678C":
            cards.append(ch)
            i += 1
        elif ch in "+-":
            tok = text[i:i + 2]
            if tok not in COMPOSITION:
                raise ValueError(f"{field}: unknown token {tok!r} in {text!r}")
            cards.append(tok)
            i += 2
        elif ch == "?":
            if not allow_unknown:
                raise ValueError(f"{field}: unknown card '?' not allowed here ({text!r})")
            cards.append("?")
            i += 1
        else:
            raise ValueError(f"{field}: unknown token {ch!r} in {text!r}")
    return cards


def format_cards(cards, ordered: bool = False) -> str:
    """Print a card field: '.' if empty; canonical order unless `ordered`
    (the line and the deck keep their order)."""
    if not cards:
        return "."
    if ordered:
        return "".join(cards)
    return "".join(sort_canonical(cards))


# ---------------------------------------------------------------------------
# Scoring (docs/rules.md "Scoring at the end of round 4", "Immediate win")
# ---------------------------------------------------------------------------

def score_breakdown(coll_a, coll_b) -> dict:
    """Scores of both players from their collections.

    Returns {"a": {"majorities", "sets", "alliances", "betrayals", "total"},
    "b": {...}}; betrayals is positive and subtracted:
    total = majorities + sets + alliances - betrayals.
    """
    colls = {"a": list(coll_a), "b": list(coll_b)}
    scores = {}
    for p in PLAYERS:
        mine = colls[p]
        theirs = colls[other(p)]
        # "for each support value v in 5,6,7,8: the player with strictly more
        #  cards of value v scores v; a tie scores nothing for either player"
        majorities = 0
        for v in SUPPORTS:
            if count(mine, v) > count(theirs, v):
                majorities += VALUE[v]
        # "+5 for each complete set of one 5, one 6, one 7 and one 8
        #  (sets = min of the four counts; scored whatever the majorities)"
        sets = 5 * min(count(mine, v) for v in SUPPORTS)
        # "plus the sum of alliance values, minus the sum of betrayal values"
        alliances = sum(VALUE[c] for c in mine if c in ALLIANCES)
        betrayals = -sum(VALUE[c] for c in mine if c in BETRAYALS)  # positive
        # "city cards score nothing"
        total = majorities + sets + alliances - betrayals
        scores[p] = {"majorities": majorities, "sets": sets,
                     "alliances": alliances, "betrayals": betrayals,
                     "total": total}
    return scores


def city_owner(colls) -> str | None:
    """The player whose collection holds all three city cards, if any."""
    for i, p in enumerate(PLAYERS):
        if count(colls[i], CITY) == COMPOSITION[CITY]:
            return p
    return None


# ---------------------------------------------------------------------------
# The state
# ---------------------------------------------------------------------------

class RefState:
    """A fully known District Noir position.

    Attributes (plain Python data):
      line     list[str]        the line, oldest first (newest card last)
      hands    [list, list]     hands of a and b (order irrelevant)
      colls    [list, list]     collections of a and b
      round    int              1..4
      to_move  "a" | "b" | None None when the game is over
      first    "a" | "b"        first player of the current round
      actions  {"a": n, "b": n} actions made this round
      taken    set              players who took this round
      deck     list[str]        undealt cards, top first
      removed  list[str] | None the 3 removed cards, None if unknown
    """

    def __init__(self, line, hands, colls, round, to_move, first, actions,
                 taken, deck, removed):
        self.line = list(line)
        self.hands = [list(hands[0]), list(hands[1])]
        self.colls = [list(colls[0]), list(colls[1])]
        self.round = int(round)
        self.to_move = to_move
        self.first = first
        self.actions = {"a": actions["a"], "b": actions["b"]}
        self.taken = set(taken)
        self.deck = list(deck)
        self.removed = None if removed is None else list(removed)

    # -- small helpers ------------------------------------------------------

    def copy(self) -> "RefState":
        return RefState(self.line, self.hands, self.colls, self.round,
                        self.to_move, self.first, self.actions, self.taken,
                        self.deck, self.removed)

    def hand(self, player: str) -> list:
        return self.hands[PLAYERS.index(player)]

    def coll(self, player: str) -> list:
        return self.colls[PLAYERS.index(player)]

    def __repr__(self) -> str:
        return f"RefState.from_dnp({self.to_dnp()!r})"

    # -- notation -----------------------------------------------------------

    @classmethod
    def from_dnp(cls, text: str) -> "RefState":
        """Parse a DNP whose hands and deck are known (docs/notation.md "The fields").

        The deck may be omitted (or '?') only in round 4, where it is empty;
        the removed field may be omitted or '?' (then `removed` is None).
        The first player of the round and the actions made are derived as
        docs/notation.md explains.  Raises ValueError naming the field and reason.
        """
        if not isinstance(text, str):
            raise ValueError("position: not a string")
        fields = text.split(" ")
        # "fields separated by single spaces": 6, 7 or 8 fields.
        if len(fields) not in (6, 7, 8):
            raise ValueError(f"position: wrong number of fields ({len(fields)}, expected 6 to 8)")
        if any(f == "" for f in fields):
            raise ValueError("position: empty field (fields are separated by single spaces)")
        line_f, hands_f, colls_f, round_f, move_f, taken_f = fields[:6]
        deck_f = fields[6] if len(fields) >= 7 else None
        removed_f = fields[7] if len(fields) >= 8 else None

        line = parse_cards(line_f, "line")

        if hands_f.count("/") != 1:
            raise ValueError("hands: expected handA/handB")
        ha, hb = hands_f.split("/")
        for name, h in (("handA", ha), ("handB", hb)):
            if "?" in h:
                toks = parse_cards(h, name, allow_unknown=True)
                if any(t != "?" for t in toks):
                    raise ValueError(f"{name}: mixed known/unknown hand")
                raise ValueError(f"{name}: hidden hand; the reference model needs known hands")
        hands = [parse_cards(ha, "handA"), parse_cards(hb, "handB")]

        if colls_f.count("/") != 1:
            raise ValueError("collections: expected collA/collB")
        ca, cb = colls_f.split("/")
        colls = [parse_cards(ca, "collA"), parse_cards(cb, "collB")]

        if round_f not in ("1", "2", "3", "4"):
            raise ValueError(f"round: must be 1 to 4, got {round_f!r}")
        rnd = int(round_f)

        if move_f not in ("a", "b", "-"):
            raise ValueError(f"to-move: must be a, b or -, got {move_f!r}")

        if taken_f not in ("-", "a", "b", "ab"):
            raise ValueError(f"taken: must be -, a, b or ab, got {taken_f!r}")
        taken = set() if taken_f == "-" else set(taken_f)

        # deck: "omitted or ? = unknown"; this model needs it known, except in
        # round 4 where it is necessarily empty.
        deck_size = 10 * (ROUNDS - rnd)
        if deck_f is None or deck_f == "?":
            if rnd != ROUNDS:
                raise ValueError("deck: unknown deck is only accepted in round 4 by the reference model")
            deck = []
        else:
            deck = parse_cards(deck_f, "deck")
            # "a known deck whose length is not 10 x (4 - round)"
            if len(deck) != deck_size:
                raise ValueError(f"deck: {len(deck)} cards, round {rnd} needs {deck_size}")

        if removed_f is None or removed_f == "?":
            removed = None
        else:
            removed = parse_cards(removed_f, "removed")
            if len(removed) != 3:
                raise ValueError(f"removed: {len(removed)} cards, expected 3")

        # "more cards of a kind than the game has (counting every known field)"
        known = line + hands[0] + hands[1] + colls[0] + colls[1] + deck + (removed or [])
        for k in KINDS:
            if count(known, k) > COMPOSITION[k]:
                raise ValueError(f"cards: {count(known, k)} cards of kind {k}, the game has {COMPOSITION[k]}")

        # "a total that is not 45: len(line) + hands + collections
        #  + deck size (10 x (4 - round)) + 3 removed"
        total = (len(line) + len(hands[0]) + len(hands[1]) + len(colls[0])
                 + len(colls[1]) + deck_size + 3)
        if total != 45:
            raise ValueError(f"cards: total is {total}, not 45")

        # "each player's actions so far = 5 - hand size + (1 if taken)"
        actions = {}
        for i, p in enumerate(PLAYERS):
            if len(hands[i]) > HAND_SIZE:
                raise ValueError(f"hand{p.upper()}: {len(hands[i])} cards, at most 5")
            actions[p] = HAND_SIZE - len(hands[i]) + (1 if p in taken else 0)

        # "the first player of the round has made as many actions as the
        #  other, or one more"
        if abs(actions["a"] - actions["b"]) > 1:
            raise ValueError(f"hands/taken: actions a={actions['a']} b={actions['b']} differ by more than one")

        # "a line shorter than the plays made this round minus 5 for each
        #  take made this round"
        plays = (HAND_SIZE - len(hands[0])) + (HAND_SIZE - len(hands[1]))
        if len(line) < plays - TAKE_SIZE * len(taken):
            raise ValueError(f"line: {len(line)} cards, too short for {plays} plays and {len(taken)} takes")

        # Finished positions: "a collection holds three C, or round 4 is
        # complete" -> to-move is '-'.
        owner = city_owner(colls)
        round_complete = actions["a"] == ACTIONS_PER_ROUND and actions["b"] == ACTIONS_PER_ROUND
        finished = owner is not None or (rnd == ROUNDS and round_complete)

        if owner is not None:
            # "a collection holding three C whose owner is not in taken or did
            #  not make the last action"
            if owner not in taken:
                raise ValueError(f"collections: {owner} holds three C but has not taken this round")
            # The last action was made by the player with more actions (the
            # first player), or, with equal actions, by the second player,
            # who may be either one; so the owner must not have fewer actions.
            if actions[owner] < actions[other(owner)]:
                raise ValueError(f"collections: {owner} holds three C but did not make the last action")

        if finished:
            if move_f != "-":
                raise ValueError("to-move: the game is finished, to-move must be '-'")
            to_move = None
            if owner is not None:
                if actions[owner] > actions[other(owner)]:
                    first = owner              # owner moved last with one action more
                else:
                    first = other(owner)       # equal actions: last actor is second
            else:
                # Round 4 complete: nothing in the notation tells who began the
                # round, and nothing depends on it any more.  Convention: "a".
                first = "a"
        else:
            if move_f == "-":
                raise ValueError("to-move: '-' only in a finished game")
            to_move = move_f
            # "nobody makes a 7th action"
            if actions[to_move] >= ACTIONS_PER_ROUND:
                raise ValueError(f"to-move: {to_move} has already made 6 actions this round")
            if actions["a"] == actions["b"]:
                first = to_move                # equal: the first player moves
            else:
                first = "a" if actions["a"] > actions["b"] else "b"
                if to_move == first:
                    raise ValueError(f"to-move: {to_move} has made one action more and cannot move again")

        return cls(line, hands, colls, rnd, to_move, first, actions, taken, deck, removed)

    def to_dnp(self) -> str:
        """Canonical DNP: unordered fields in canonical order, '.' for empty
        fields, the deck field always printed, the removed field when known,
        to-move '-' when the game is over."""
        taken = "".join(p for p in PLAYERS if p in self.taken) or "-"
        parts = [
            format_cards(self.line, ordered=True),
            format_cards(self.hands[0]) + "/" + format_cards(self.hands[1]),
            format_cards(self.colls[0]) + "/" + format_cards(self.colls[1]),
            str(self.round),
            self.to_move if self.to_move is not None else "-",
            taken,
            format_cards(self.deck, ordered=True),
        ]
        if self.removed is not None:
            parts.append(format_cards(self.removed))
        return " ".join(parts)

    # -- rules --------------------------------------------------------------

    def is_over(self) -> bool:
        return self.to_move is None

    def legal_moves(self) -> list:
        """Distinct move tokens in canonical order, 'T' last; [] when over.

        docs/rules.md "A round":
        - Play: one card from hand; needs a non-empty hand.
        - Take: once per round, only when the line is not empty.
        - A player with an empty hand who has not taken must take (follows
          from the two points above: no play is possible).
        docs/notation.md "Moves and game records": two cards of one kind are the same move.
        """
        if self.is_over():
            return []
        p = self.to_move
        moves = [k for k in KINDS if k in self.hand(p)]
        if p not in self.taken and len(self.line) > 0:
            moves.append(TAKE)
        return moves

    def play(self, move: str) -> "RefState":
        """Return the NEW state after `move` (self is never changed).
        Raises ValueError on an illegal move."""
        if self.is_over():
            raise ValueError(f"illegal move {move!r}: the game is over")
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move!r} in {self.to_dnp()}; legal: {self.legal_moves()}")
        s = self.copy()
        p = s.to_move

        if move == TAKE:
            # "take the last min(5, len(line)) cards from the newest end of the
            #  line into the player's face-up collection"
            n = min(TAKE_SIZE, len(s.line))
            taken_cards = s.line[len(s.line) - n:]
            s.line = s.line[:len(s.line) - n]
            s.coll(p).extend(taken_cards)
            s.taken.add(p)
            s.actions[p] += 1
            # docs/rules.md "Immediate win": "Whenever a take gives a player all
            # three city cards, that player wins at once; nothing is scored."
            if count(s.coll(p), CITY) == COMPOSITION[CITY]:
                s.to_move = None
                return s
        else:
            # "put one card from hand at the end (newest end) of the line"
            s.hand(p).remove(move)
            s.line.append(move)
            s.actions[p] += 1

        if s.actions["a"] == ACTIONS_PER_ROUND and s.actions["b"] == ACTIONS_PER_ROUND:
            s._end_round()
        else:
            # "Players alternate"
            s.to_move = other(p)
        return s

    def _end_round(self) -> None:
        """docs/rules.md "A round", after the 12th action (mutates self; only
        called on a fresh copy inside play())."""
        if not self.deck:
            # "if the deck is empty (end of round 4) the game ends"
            self.to_move = None
            return
        # "each player draws 5 cards and the other player starts the next
        #  round"; (convention) "the player who moves first in the new round
        #  draws the top 5 cards, then the other player the next 5".
        new_first = other(self.first)
        self.hand(new_first).extend(self.deck[0:5])
        self.hand(other(new_first)).extend(self.deck[5:10])
        self.deck = self.deck[10:]
        self.round += 1
        self.first = new_first
        self.to_move = new_first
        self.actions = {"a": 0, "b": 0}
        self.taken = set()
        # "Cards left in the line stay there for the next round." (nothing to do)

    # -- result -------------------------------------------------------------

    def result(self) -> dict:
        """Scores (so far, if not over) and, when over, the winner and how.

        {"scores": {"a": {...}, "b": {...}},
         "winner": "a" | "b" | "draw" | None, "how": "points" | "tie-break" | "city" | "draw" | None}
        """
        scores = score_breakdown(self.colls[0], self.colls[1])
        out = {"scores": scores, "winner": None, "how": None}
        if not self.is_over():
            return out
        owner = city_owner(self.colls)
        if owner is not None:
            # "that player wins at once; nothing is scored" (scores still reported)
            out["winner"], out["how"] = owner, "city"
            return out
        ta, tb = scores["a"]["total"], scores["b"]["total"]
        if ta != tb:
            # "Highest total wins."
            out["winner"] = "a" if ta > tb else "b"
            out["how"] = "points"
            return out
        # "Tie-break: on equal totals, the player with more 8s wins; if equal,
        #  more 7s; then 6s; then 5s. If still equal, the game is a draw."
        for v in ("8", "7", "6", "5"):
            na, nb = count(self.colls[0], v), count(self.colls[1], v)
            if na != nb:
                out["winner"] = "a" if na > nb else "b"
                out["how"] = "tie-break"
                return out
        out["winner"], out["how"] = "draw", "draw"
        return out


# ---------------------------------------------------------------------------
# Setup, perft, random games
# ---------------------------------------------------------------------------

def full_deck() -> list:
    """All 45 cards, in canonical order."""
    cards = []
    for k in KINDS:
        cards.extend([k] * COMPOSITION[k])
    return cards


def random_deal(rng: random.Random) -> RefState:
    """docs/rules.md "Setup": shuffle the 45 cards, remove 3 face down, deal 5 to
    a then 5 to b, 2 face-up cards start the line, the remaining 30 are the
    deck (top first); a coin flip (rng) chooses the round-1 first player."""
    cards = full_deck()
    rng.shuffle(cards)
    removed = cards[0:3]
    hand_a = cards[3:8]
    hand_b = cards[8:13]
    line = cards[13:15]
    deck = cards[15:45]
    first = rng.choice(PLAYERS)
    return RefState(line, [hand_a, hand_b], [[], []], 1, first, first,
                    {"a": 0, "b": 0}, set(), deck, removed)


def perft(state: RefState, depth: int) -> int:
    """Number of move sequences of exactly `depth` moves (perft(0) = 1).
    A game that ends before `depth` moves contributes 0 (chess convention);
    a deal at a round boundary is not a move (the ordered deck fixes it)."""
    if depth == 0:
        return 1
    total = 0
    for m in state.legal_moves():
        total += perft(state.play(m), depth - 1)
    return total


def random_game(rng: random.Random, state: RefState | None = None):
    """Play uniformly random distinct legal moves until the game ends.
    Returns (final state, list of moves)."""
    if state is None:
        state = random_deal(rng)
    moves = []
    while not state.is_over():
        m = rng.choice(state.legal_moves())
        moves.append(m)
        state = state.play(m)
    return state, moves
