"""The hidden-information round-4 game: equilibrium strategies, game value, exploitability.

The one-player view (`solver.solvers.endgame`, mode "view") averages open-hands values over the
opponent's possible hands: it assumes both sides then play as if they saw every card, so
its figures are optimistic. This module solves the game the players actually play.

The game. From a round-4 position only the public part is kept: the line, both
collections, who has taken and whose turn it is. Both hands (of the sizes the position
states) and the 3 removed cards are dealt uniformly from the cards not public. This is
the exact game when nothing earlier in the round informs the deal (at the start of the
round, or when the earlier round-4 plays are taken as uninformative); a position's known
hands only select which strategy to show. Values are expected scores: win 1, draw 1/2,
loss 0 (city wins and the tie-break as docs/rules.md says).

The solver (solver.solvers._cfr) runs CFR+ over the public tree in vector form and stops at a
target exploitability or a budget; the exploitability of the average strategy is
computed exactly by a best response for each seat: the mean of the two best-response
gains over the game value.

>>> pos = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
>>> sol = solve_game(pos, target=1e-9)
>>> sol.exploitability <= 1e-9, round(sol.game_value, 6), [m.move for m in sol.moves]
(True, 0.857143, ['7', '8'])
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from functools import lru_cache

from solver.base.bounds import real
from solver.errors import ArgumentError, GameTooBig, LimitError
from solver.rules.cards import COMPOSITION, NKINDS, Move, format_counts
from solver.rules.notation import PLAYERS, ROUNDS, PositionError
from solver.rules.position import Position
from solver.solvers._cfr import GameTree, Stopped
from solver.solvers.limit import Limit, stop_test

DEFAULT_TARGET = 1e-3
DEFAULT_SECONDS = 300.0
# The budget of a solve when none is given: CFR+ stops at the target or after 300 s.
DEFAULT_LIMIT = Limit(seconds=DEFAULT_SECONDS)
DEFAULT_MAX_MEMORY_MB = 4096.0
# Time model of one tree walk (the CFR+ iteration makes two, the exploitability check two
# more), measured on the project machine: per node, and per (hand, hand) pair at terminals.
SECONDS_PER_NODE = 4e-8
SECONDS_PER_PAIR = 1e-9
# Grading a played move (`equilibrium_grade`): the exploitability the equilibrium must reach,
# within this many CFR+ iterations. On ISMCTS self-play positions with at most 300,000 public
# nodes, 1e-3 took 1 to 41 iterations (bench/RESULTS.md); a position that needs more is
# graded by the view instead.
GRADE_TARGET = 1e-3
GRADE_ITERATIONS = 200
# The largest public tree graded against the equilibrium by default (and solved for advice on
# a budget of iterations, which reads no clock): about 23 MB, and at most a second or two of
# CFR+ (three actions in, self-play trees have 0.1 to 2.1 million nodes; four actions in,
# 30,000 to 160,000).
GRADE_NODES = 300_000
GAME_NOTE = ("both hands and the removed cards dealt uniformly from the cards not public: "
             "the exact game when nothing earlier in the round informs the deal")

# `GameTree.count`'s largest cap: count the whole tree, as far as node indices reach.
COUNT_ALL = 0xFFFFFFFF
# Solves to an exploitability target of at least this keep the regrets and averages as
# floats (`GameTree.build(single=True)`): half the memory of doubles, and faster. Tighter
# targets (and runs without a target) keep doubles: float rounding bounds what is reachable.
SINGLE_TARGET = 1e-5


def _single(target: float | None) -> bool:
    return target is not None and target >= SINGLE_TARGET


@dataclass(frozen=True)
class TreeEstimate:
    """Size of a position's public tree, counted exactly up to a cap.

    `complete` is False when counting stopped at the cap: the figures are then lower bounds.
    """

    nodes: int
    slots: int
    hand_entries: int
    work: int
    complete: bool
    hands: tuple[int, int]
    single: bool = False  # regrets and averages as floats (else doubles)
    sampled: bool = False  # estimated by sampling random lines (`GameTree.sample`), not counted

    @property
    def memory_mb(self) -> float:
        """Memory of the built tree (nodes, regrets, averages), in MB."""
        return GameTree.bytes_needed(self.nodes, self.slots, self.hand_entries, self.single) / 1e6

    @property
    def seconds_per_iteration(self) -> float:
        """Estimated seconds of one CFR+ iteration (both players updated)."""
        return 2 * (self.nodes * SECONDS_PER_NODE + self.work * SECONDS_PER_PAIR)

    def describe(self) -> str:
        """One line: nodes, memory and time per iteration (lower bounds when counting stopped)."""
        bound = "about " if self.sampled else ("" if self.complete else "at least ")
        return (f"{bound}{self.nodes:,} public nodes, {bound}{self.memory_mb:,.0f} MB, "
                f"{bound}{self.seconds_per_iteration:.3g} s per iteration "
                f"({self.hands[0]} hands for a, {self.hands[1]} for b)")


def check_game(pos: Position) -> None:
    """Raise PositionError unless `pos` is an unsettled round-4 position the game solver can take."""
    if pos.is_over:
        raise PositionError("to-move", "the game is over: there is nothing to solve")
    if pos.round != ROUNDS:
        raise PositionError("round", f"round {pos.round}: the game solver starts in round 4 (empty deck)")
    if pos.taken == 3:
        raise PositionError("taken", "both players have taken: the result is already fixed "
                                     "(dnoir score shows it)")


def game_pool(pos: Position) -> tuple[int, ...]:
    """Counts per kind of the cards not public (both hands and the removed cards).

    >>> pos = Position.parse("-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    >>> format_counts(game_pool(pos))
    '567888C'
    """
    pool = list(COMPOSITION)
    for k in pos.line:
        pool[k] -= 1
    for coll in pos.colls:
        for k in range(NKINDS):
            pool[k] -= coll[k]
    return tuple(pool)


def _tree(pos: Position) -> GameTree:
    check_game(pos)
    return GameTree(pos.core, game_pool(pos), pos.hand_sizes)


def _node_cap(max_memory_mb: float) -> int:
    return max(1, int(max_memory_mb * 1e6 // GameTree.bytes_needed(1, 0, 0)))


def _slot_cap(max_memory_mb: float, single: bool) -> int:
    return max(1, int(max_memory_mb * 1e6 // GameTree.bytes_needed(0, 1, 0, single)))


# Refusing a tree too big: counting it up to the cap takes a second per 20 M nodes or so,
# so past SAMPLE_ABOVE nodes of cap the tree is first sized by sampling SAMPLE_PROBES random
# lines (Knuth's estimator, within a few % on the bench positions, in milliseconds) and
# refused at once when that estimate exceeds the cap SAMPLE_MARGIN times over.
SAMPLE_ABOVE = 4_000_000
SAMPLE_PROBES = 4000
SAMPLE_MARGIN = 2.0


def _sampled(tree: GameTree, single: bool) -> TreeEstimate:
    s = tree.sample(SAMPLE_PROBES)
    return TreeEstimate(nodes=round(s["nodes"]), slots=round(s["slots"]), hand_entries=round(s["hand_entries"]),
                        work=round(s["work"]), complete=False, hands=tuple(s["hands"]), single=single,
                        sampled=True)


def estimate(pos: Position, max_memory_mb: float = DEFAULT_MAX_MEMORY_MB) -> TreeEstimate:
    """Count the public tree of `pos`, stopping past what `max_memory_mb` could hold (in doubles)."""
    return _counted(_tree(pos), _node_cap(max_memory_mb), False, _slot_cap(max_memory_mb, False))


@dataclass(frozen=True)
class MoveFrequency:
    """One legal move of the mover's known hand: equilibrium frequency and expected score.

    `expected` is the mover's expected score given its hand if it makes this move and then
    plays its best against the opponent's equilibrium strategy (the average strategy found).
    For a move the equilibrium plays, that is about the equilibrium's own score: the gap is
    what the mover gains by best-responding below the move, which vanishes as CFR converges
    but, for a move played rarely, is not bounded by the exploitability (a move of frequency
    0.003 scored 0.70 where following the strategy gave 0.50, exploitability 9e-4). For a move
    it never plays it is the move's real worth: CFR does not train the mover's own strategy
    below such a move (its weight there is the move's frequency, nearly 0), which stays near
    uniform, so following it would score the move as if the mover then played at random (a
    winning move graded as a blunder). Below such a move the opponent is trained only through
    the root's tremble, more slowly than the exploitability shows: a solve stopped early can
    rate such a move too high (a blunder's loss understated by 0.01 at 4 iterations,
    exploitability 2e-4; gone by 36).
    """

    move: str
    frequency: float
    expected: float

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir solve --mode game --json` prints each move."""
        return dict(move=self.move, frequency=round(self.frequency, 6), expected=round(self.expected, 6))


@dataclass
class GameSolution:
    """A solved round-4 game: its value, the exploitability reached, and the strategies.

    `game_value` is the side to move's expected score over every deal when both follow the
    average strategy; the true value lies within `exploitability` * 2 of it. `moves` are the
    mover's equilibrium moves at its known hand (None when the position hides that hand).
    """

    to_move: int
    game_value: float
    exploitability: float
    best_response: tuple[float, float]
    iterations: int
    seconds: float
    estimate: TreeEstimate
    memory_mb: float
    moves: list[MoveFrequency] | None
    tree: GameTree = field(repr=False)

    @property
    def best(self) -> str | None:
        """The mover's most frequent move at its known hand (None when the hand is hidden)."""
        return self.moves[0].move if self.moves else None

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir solve --mode game --json` prints it."""
        out = dict(mode="game", to_move=PLAYERS[self.to_move], game_value=round(self.game_value, 9),
                   exploitability=self.exploitability,
                   best_response=dict(a=round(self.best_response[0], 9), b=round(self.best_response[1], 9)),
                   best=self.best, moves=[m.to_dict() for m in self.moves] if self.moves is not None else None,
                   iterations=self.iterations, seconds=round(self.seconds, 6), nodes=self.estimate.nodes,
                   memory_mb=round(self.memory_mb, 3), game=GAME_NOTE)
        return out

    def strategy(self, player: int, hand, history=()) -> dict[str, float]:
        """The equilibrium probabilities at one information set.

        `hand` is the player's current hand (counts per kind) and `history` the public moves
        since the root (tokens or move indices). KeyError if no such information set exists.
        """
        wanted = tuple(Move.parse(m).index if isinstance(m, str) else int(m) for m in history)
        for _, _, p, _, current, hist, probs in self.tree.infosets():
            if p == player and hist == wanted and current == tuple(hand):
                return {str(Move(m)): pr for m, pr in probs.items()}
        raise KeyError("no such information set")

    def write_strategy(self, stream) -> int:
        """Write every information set as one JSON line; returns how many.

        Each line: `player`, `hand` (the cards it holds there), `dealt` (its hand at the
        root), `history` (the public moves since the root, space-separated, '' at the root)
        and `strategy` ({move: probability}).
        """
        return write_infosets(self.tree, stream)


def write_infosets(tree: GameTree, stream, policy: bool = False) -> int:
    """One JSON line per information set of `tree` (average strategy, or the policy)."""
    n = 0
    for _, _, p, initial, current, history, probs in tree.infosets(policy):
        stream.write(json.dumps(dict(
            player=PLAYERS[p], hand=format_counts(current), dealt=format_counts(initial),
            history=" ".join(str(Move(m)) for m in history),
            strategy={str(Move(m)): round(pr, 9) for m, pr in probs.items()})) + "\n")
        n += 1
    return n


def _prepare(pos: Position, max_memory_mb: float, seconds: float | None, force: bool, single: bool = False):
    """(tree, estimate), refusing with the estimate when the tree does not fit.

    Counting stops early once the tree is known not to fit: past what the memory holds,
    or past the nodes that two iterations could walk in `seconds`. When that is far, a
    sampled estimate first refuses a tree many times too big (`SAMPLE_ABOVE`).
    """
    tree = _tree(pos)
    memory_cap = _node_cap(max_memory_mb)
    slot_cap = _slot_cap(max_memory_mb, single)
    time_cap = int(seconds / (4 * SECONDS_PER_NODE)) + 1 if seconds is not None else memory_cap
    if not force and min(memory_cap, time_cap) > SAMPLE_ABOVE:
        est = _sampled(tree, single)
        if est.nodes > SAMPLE_MARGIN * memory_cap or est.memory_mb > SAMPLE_MARGIN * max_memory_mb:
            raise GameTooBig(f"the game tree does not fit in {max_memory_mb:g} MB: {est.describe()} "
                             f"(estimated by sampling {SAMPLE_PROBES:,} random lines); "
                             "give more memory (--max-memory-mb) or --force")
        if seconds is not None and (est.nodes > SAMPLE_MARGIN * time_cap
                                    or 2 * est.seconds_per_iteration > SAMPLE_MARGIN * seconds):
            raise GameTooBig(f"the game tree does not fit in {seconds:g} s: {est.describe()} "
                             f"(estimated by sampling {SAMPLE_PROBES:,} random lines); give more time or --force")
    est = _counted(tree, COUNT_ALL if force else min(memory_cap, time_cap), single,
                   COUNT_ALL if force else slot_cap)
    if force and not est.complete:
        raise GameTooBig(f"the game tree is too big to index: {est.describe()}")
    if not force:
        over_memory = est.nodes > memory_cap or est.slots > slot_cap
        if (not est.complete and (over_memory or memory_cap <= time_cap)) or est.memory_mb > max_memory_mb:
            raise GameTooBig(f"the game tree does not fit in {max_memory_mb:g} MB: {est.describe()}; "
                             "give more memory (--max-memory-mb) or --force")
        if not est.complete or (seconds is not None and 2 * est.seconds_per_iteration > seconds):
            raise GameTooBig(f"the game tree does not fit in {seconds:g} s: {est.describe()}; "
                             "give more time or --force")
    tree.build(single)
    return tree, est


def run_cfr(tree: GameTree, target: float | None, limit: Limit, on_check=None) -> tuple[float, float, float]:
    """CFR+ on a built tree until the exploitability is at most `target`, or `limit` ends
    (its seconds, or its iterations counted as CFR+ iterations; an infinite limit: the target only).

    The exploitability is checked exactly (two best-response walks, dearer than an
    iteration) after batches sized by `_next_batch`: where the last two checks say the
    target will be reached. Returns the last (best response of a, best response of b,
    exploitability). Without a time in `limit` no clock is read: the run, and so its
    result, is the same on every machine.
    """
    seconds, iterations = limit.seconds, limit.iterations
    start = time.perf_counter() if seconds is not None else 0.0
    br = (1.0, 1.0, 0.5)
    checks: list[tuple[int, float]] = []  # (iterations, exploitability) of each check
    while True:
        done = tree.iterations
        batch = _next_batch(done, checks, target)
        if iterations is not None:
            batch = min(batch, iterations - done)
        if seconds is not None and done:
            spent = time.perf_counter() - start
            per = spent / done  # includes the checks: a safe estimate
            fit = int((seconds - spent) / per) if per > 0 else batch
            batch = min(batch, fit)
        if batch <= 0:
            if done == 0:
                tree.iterate(1)
                br = tree.exploitability()
                if on_check is not None:
                    on_check(tree.iterations, br[2])
            return br
        tree.iterate(batch)
        br = tree.exploitability()
        checks.append((tree.iterations, br[2]))
        if on_check is not None:
            on_check(tree.iterations, br[2])
        if target is not None and br[2] <= target:
            return br
        if seconds is not None and time.perf_counter() - start >= seconds:
            return br
        if iterations is not None and tree.iterations >= iterations:
            return br


def _next_batch(done: int, checks: list[tuple[int, float]], target: float | None) -> int:
    """How many CFR+ iterations to make before the next exploitability check.

    CFR+'s exploitability falls smoothly, close to a power of the iterations (locally
    t^-1.5 to t^-2 on the `dnoir bench game` positions): the last two checks fit one and
    the batch ends about where it meets the target (2% beyond), at least an eighth and at
    most all of the iterations made so far. With a target, the first two checks come
    after 2 and 4 iterations: the first iteration's average is the uniform strategy, whose
    check is the dearest of a solve (it prunes nothing) and tells nothing about the slope.
    Without a target, or when the last check did not improve: a quarter of the iterations
    made so far.
    """
    quarter = max(1, done // 4)
    if target is None or target <= 0:
        return quarter
    if len(checks) < 2:
        return 2 if done < 4 else quarter
    (t0, e0), (t1, e1) = checks[-2], checks[-1]
    if not (e1 > target and 0 < e1 < e0 and t1 > t0):
        return quarter
    slope = math.log(e0 / e1) / math.log(t1 / t0)
    slope = min(max(slope, 0.5), 3.0)
    wanted = t1 * (e1 / target) ** (1.0 / slope) * 1.02
    return max(1, done // 8, min(done, math.ceil(wanted) - done))


def solve_game(position: Position, target: float | None = DEFAULT_TARGET, limit: Limit = DEFAULT_LIMIT,
               max_memory_mb: float = DEFAULT_MAX_MEMORY_MB, force: bool = False, on_check=None) -> GameSolution:
    """Solve the round-4 game of `position` for its side to move (see the module docstring).

    Stops once the exploitability is at most `target`, or when `limit` ends (seconds and/or
    CFR+ iterations). Raises GameTooBig, with the size estimate, when the tree would not fit
    `max_memory_mb` or one iteration would not fit the limit's time (unless `force`).
    """
    if target is not None:
        try:
            real("target", target, 0, 1)
        except ValueError as e:
            raise ArgumentError(f"solve_game: {e}") from None
    start = time.perf_counter()
    tree, est = _prepare(position, max_memory_mb, limit.seconds, force, _single(target))
    br_a, br_b, expl = run_cfr(tree, target, limit, on_check)
    value_a = tree.profile_value()
    mover = position.to_move
    moves = None
    if position.hands[mover] is not None:
        moves = _hand_moves(tree, position.hands[mover])
    return GameSolution(to_move=mover, game_value=value_a if mover == 0 else 1.0 - value_a,
                        exploitability=max(expl, 0.0), best_response=(br_a, br_b),
                        iterations=tree.iterations, seconds=time.perf_counter() - start, estimate=est,
                        memory_mb=tree.memory_bytes / 1e6, moves=moves, tree=tree)


def _hand_moves(tree: GameTree, hand, policy: bool = False) -> list[MoveFrequency]:
    # a policy (a bot's) is scored as it plays; the equilibrium's moves with the mover's best after each
    values = tree.root_hand_values(hand, policy, best_after=not policy)
    moves = [MoveFrequency(move=str(Move(m)), frequency=f, expected=e) for m, (f, e) in sorted(values.items())]
    # most frequent first, then the higher expected score, then canonical order
    moves.sort(key=lambda mv: (-round(mv.frequency, 9), -round(mv.expected, 9)))
    return moves


# ---------------------------------------------------------------------------------------
# Policies and their exploitability

def _node_views(tree: GameTree):
    """Yield (node, [(hand position, current hand)], view fields) per decision node."""
    current_node, hands, history = None, [], None
    for node, h, p, _, current, hist, _ in tree.infosets():
        if node != current_node:
            if current_node is not None:
                yield current_node, hands, history
            current_node, hands, history = node, [], hist
        hands.append((h, current))
    if current_node is not None:
        yield current_node, hands, history


def _view_position(tree: GameTree, history, hand) -> Position:
    f = tree.public_fields(history)
    p = f["to_move"]
    hands = [None, None]
    hands[p] = tuple(hand)
    if not f["hand_sizes"][1 - p]:
        hands[1 - p] = (0,) * NKINDS
    return Position(line=f["line"], hands=tuple(hands), hand_sizes=f["hand_sizes"], colls=f["colls"],
                    round=ROUNDS, to_move=p, taken=f["taken"])


def set_policy(tree: GameTree, choose, on_infoset=None) -> int:
    """Fill the tree's policy from `choose(view) -> {move: probability}`; returns the infosets.

    `on_infoset(done, total)`, if given, is called after each information set (a bot policy
    can take minutes over a big tree: the caller shows progress)."""
    n, total = 0, tree.size[2]
    for node, hands, history in _node_views(tree):
        for h, current in hands:
            tree.set_policy(node, h, choose(_view_position(tree, history, current)))
            n += 1
            if on_infoset is not None:
                on_infoset(n, total)
    return n


# ---------------------------------------------------------------------------------------
# Advice for callers with a budget

def equilibrium_advice(view: Position, limit: Limit, max_memory_mb: float = 1024.0,
                       target: float = 1e-4, stop=None) -> dict | None:
    """The equilibrium advice for the side to move of `view`, or None when it does not fit `limit`.

    `view` is a round-4 position with the mover's hand known (other hands are ignored);
    `limit` must give a time (LimitError otherwise): the budget the tree must fit. Returns
    None when the position is not an unsettled round-4 position with the mover's hand
    known, or when the tree's estimated size does not fit `max_memory_mb` or its estimated
    time for 30 iterations does not fit the budget. Else:

        {"method": "equilibrium", "best": "8", "game_value": 0.61, "hand_value": 0.63,
         "exploitability": 0.0009, "iterations": 120, "seconds": 0.4,
         "moves": [{"move": "8", "frequency": 0.7, "expected": 0.63}, ...]}

    with the moves most frequent first; `expected` is the mover's expected score given
    its hand if it makes that move and then plays its best against the opponent's
    equilibrium strategy (MoveFrequency); `hand_value` is the
    frequency-weighted mean of the moves' `expected` (the hand's value under equilibrium
    play; `move_loss` grades a move against it); `game_value` is over every deal. Results
    are cached per public position and hand.

    It is an anytime computation: `stop` (a `threading.Event`, a callable answering "stop
    now?", or None) is looked at every few milliseconds, inside the compiled loops too;
    once it says stop, the answer is the one of the last exploitability check made
    (`"stopped": True`), or None if none was made yet. A stopped answer is not cached.
    """
    try:
        check_game(view)
    except PositionError:
        return None
    if view.hands[view.to_move] is None:
        return None
    if limit.seconds is None:
        raise LimitError("the equilibrium advice needs a time budget (seconds)")
    key = (_hand_key(view), float(limit.seconds), float(max_memory_mb), float(target))
    advice = _ADVICE_CACHE.get(key)
    if advice is None:
        advice, complete = _advice(*key, stop=stop)
        if complete:
            _ADVICE_CACHE[key] = advice
            while len(_ADVICE_CACHE) > ADVICE_CACHE_SIZE:
                _ADVICE_CACHE.pop(next(iter(_ADVICE_CACHE)))
    return None if advice is None else dict(advice, moves=[dict(m) for m in advice["moves"]])


def equilibrium_grade(view: Position, max_nodes: int, target: float = GRADE_TARGET,
                      max_iterations: int = GRADE_ITERATIONS) -> dict | None:
    """`equilibrium_advice`'s answer, bounded by size and iterations only: the same on every machine.

    None unless `view` is an unsettled round-4 position with the mover's hand known, its
    public tree has at most `max_nodes` nodes (counted exactly, and no further), and CFR+
    brings the exploitability to `target` or less within `max_iterations` iterations. No
    clock is read, so whether a position is graded against the equilibrium, and the
    figures, do not depend on how fast or loaded the machine is. The answer has no
    `seconds`; its `exploitability` is at most `target`.
    """
    try:
        check_game(view)
    except PositionError:
        return None
    if view.hands[view.to_move] is None or max_nodes <= 0:
        return None
    advice = _grade_cached(_hand_key(view), int(max_nodes), float(target), int(max_iterations))
    return None if advice is None else dict(advice, moves=[dict(m) for m in advice["moves"]])


def move_loss(advice: dict, move: str) -> float:
    """The expected-score loss of `move` against the equilibrium, from `equilibrium_advice`'s answer.

    The hand's equilibrium value minus the move's expected score (both given the hand),
    floored at 0: a move the equilibrium plays loses nothing, up to the exploitability.

    >>> move_loss({"hand_value": 0.6, "moves": [{"move": "8", "expected": 0.6},
    ...                                         {"move": "T", "expected": 0.35}]}, "T")
    0.25
    """
    for m in advice["moves"]:
        if m["move"] == move:
            # to the 6 decimals `expected` is given to: a forced move loses exactly 0
            return max(0.0, round(advice["hand_value"] - m["expected"], 6))
    raise ValueError(f"{move} is not a legal move of the advised hand")


def _hand_key(view: Position) -> tuple:
    """What the game and the mover's strategy at its hand depend on: the public fields and that hand."""
    return (view.line, view.colls, view.hand_sizes, view.taken, view.to_move, view.hands[view.to_move])


def _key_view(key: tuple) -> Position:
    line, colls, sizes, taken, to_move, hand = key
    hands = [None, None]
    hands[to_move] = hand
    if not sizes[1 - to_move]:
        hands[1 - to_move] = (0,) * NKINDS
    return Position(line=line, hands=tuple(hands), hand_sizes=sizes, colls=colls, round=ROUNDS,
                    to_move=to_move, taken=taken)


def _counted(tree: GameTree, cap: int, single: bool = False, slot_cap: int = COUNT_ALL) -> TreeEstimate:
    """The size of `tree`, counted no further than `cap` nodes and `slot_cap` slots
    (COUNT_ALL: as far as it indexes)."""
    c = tree.count(cap, slot_cap)
    return TreeEstimate(nodes=c["nodes"], slots=c["slots"], hand_entries=c["hand_entries"], work=c["work"],
                        complete=c["complete"], hands=tuple(c["hands"]), single=single)


def _hand_answer(tree: GameTree, key: tuple, exploitability: float) -> dict:
    """The mover's equilibrium at its hand (the key's), as `equilibrium_advice` documents it."""
    to_move, hand = key[4], key[5]
    value_a = tree.profile_value()
    moves = _hand_moves(tree, hand)
    return dict(method="equilibrium", best=moves[0].move,
                hand_value=sum(m.frequency * m.expected for m in moves),
                game_value=value_a if to_move == 0 else 1.0 - value_a, exploitability=max(exploitability, 0.0),
                iterations=tree.iterations, moves=[m.to_dict() for m in moves])


# Completed equilibrium advice, by (hand key, budget, memory, target), oldest first.
_ADVICE_CACHE: dict = {}
ADVICE_CACHE_SIZE = 64


def _advice(key, budget, max_memory_mb, target, stop=None) -> tuple[dict | None, bool]:
    """(answer or None, complete): `equilibrium_advice` uncached; `complete` is False when
    `stop` cut it short (the answer is then the last check's, or None).

    The budget is kept inside the compiled loops too: past it they stop, and the answer
    is the last check's (a batch of iterations that would end late is not waited for).
    """
    start = time.perf_counter()
    deadline = start + budget
    asked = stop_test(stop)
    tree = _tree(_key_view(key))
    tree.stop_when(lambda: asked() or time.perf_counter() > deadline)
    best: list[dict] = []

    def keep(iterations, expl):  # the answer so far, after each exploitability check
        best[:] = [dict(_hand_answer(tree, key, expl), seconds=time.perf_counter() - start)]

    answer, complete = None, True
    try:
        # count no further than what 30 iterations could walk in the budget
        est = _counted(tree, min(_node_cap(max_memory_mb), int(budget / (60 * SECONDS_PER_NODE)) + 1),
                       _single(target))
        if est.complete and est.memory_mb <= max_memory_mb and 30 * est.seconds_per_iteration <= budget:
            tree.build(est.single)
            left = budget - (time.perf_counter() - start)
            run_cfr(tree, target, Limit(seconds=max(left, 1e-3)), on_check=keep)
            answer = best[0]
    except Stopped:
        complete = not asked()  # out of budget: as complete as it gets
        answer = dict(best[0], stopped=True) if best and not complete else (best[0] if best else None)
    # The caller is waiting for the answer: the tree's memory (hundreds of MB) is returned in
    # the background. Here, out of the `except` block, no traceback holds the tree any more;
    # this frame lets go of it first, so that the last reference is the background thread's.
    holder, tree = [tree], None
    threading.Thread(target=_drop, args=(holder,), name="dnoir-free-tree", daemon=True).start()
    return answer, complete


def _drop(holder: list) -> None:
    holder.clear()


@lru_cache(maxsize=256)
def _grade_cached(key, max_nodes, target, max_iterations):
    tree = _tree(_key_view(key))
    if not _counted(tree, max_nodes).complete:
        return None
    tree.build(_single(target))
    _, _, expl = run_cfr(tree, target, Limit(iterations=max_iterations))
    return _hand_answer(tree, key, expl) if expl <= target else None


__all__ = ["GameSolution", "GameTooBig", "Stopped", "MoveFrequency", "TreeEstimate", "estimate",
           "solve_game", "equilibrium_advice", "equilibrium_grade", "move_loss",
           "game_pool", "check_game", "write_infosets", "set_policy"]
