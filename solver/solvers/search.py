"""Move advice: information-set MCTS from the mover's view, exact once the deck is empty.

`advise(position, ...)` analyses the position as its side to move sees it (the other
hand, the deck and the removed cards unknown, whatever the position says). Before round
4 it runs single-observer ISMCTS (solver.solvers._ismcts) with root parallelism: one tree per
thread, their root statistics merged. In round 4 it answers with the exact one-player
view solver (solver.solvers.endgame) instead.

Same seed, same thread count and a fixed number of iterations give the same answer.
"""

from __future__ import annotations

import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum

from solver.base.bounds import MAX_ITERATIONS, MAX_SECONDS, MAX_THREADS, real, whole
from solver.base.seeds import thread_seed
from solver.errors import ArgumentError, DnoirError, LimitError
from solver.rules.cards import TAKE, TAKE_TOKEN, Move
from solver.rules.notation import PLAYERS, ROUNDS, PositionError
from solver.rules.position import Position
from solver.solvers._ismcts import NO_VISITS, NODE_BYTES, RootStats, Searcher
from solver.solvers.endgame import solve
from solver.solvers.equilibrium import GRADE_NODES, equilibrium_advice, equilibrium_grade
from solver.solvers.limit import Limit, stop_test
from solver.solvers import roundmodel
from solver.solvers.searchconfig import PRESETS, SearchConfig

# The search settings and their defaults live in solver.solvers.searchconfig; these name the default's.
DEFAULT_CONFIG = PRESETS["default"]
DEFAULT_MAX_NODES = DEFAULT_CONFIG.max_nodes
DEFAULT_EXPLORATION = DEFAULT_CONFIG.exploration
DEFAULT_POLICY = DEFAULT_CONFIG.policy
# The seeds `advise` takes: any 64-bit seed (bots derive theirs by splitmix64); the CLI and
# the records keep to solver.base.bounds.MAX_SEED.
MAX_SEARCH_SEED = 2**64 - 1
SLICE_SECONDS = 0.1
# Pondering searches in slices this long: the longest the next move waits for it to stop.
PONDER_SLICE_SECONDS = 0.002
# The budget of `advise` when none is given.
DEFAULT_LIMIT = Limit(seconds=1.0)


class Method(str, Enum):
    """Which search answered an advice (a str equal to its value, as the JSON prints it)."""

    ISMCTS = "ismcts"            # information-set MCTS, before round 4 (and in round 4 on request)
    VIEW = "view"                # round 4: exact over the opponent's possible hands (solver.solvers.endgame)
    EQUILIBRIUM = "equilibrium"  # round 4: the hidden-information game's equilibrium (solver.solvers.equilibrium)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class MoveStats:
    """One legal move's evidence: share of the search, estimated score with its standard error,
    and, where games were played out, win/draw/loss estimates and mean margin.

    `expected` is the win probability with draws counted as 1/2 and `se` its standard
    error (the spread of the results the move's visits backed up, over the square root of
    the visits; with the round-end model, the spread of its probabilities); in exact mode
    `expected` is the exact expected score, `se` is 0 and `visits`/`share` are None.
    """

    move: str
    visits: int | None
    share: float | None
    expected: float
    margin: float | None  # None from the equilibrium solver (the score scale only) and the round-end model
    se: float = 0.0
    # None when the results were not played-out games (the round-end model scored them)
    win: float | None = 0.0
    draw: float | None = 0.0
    loss: float | None = 0.0

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir advise --json` prints each move."""
        return dict(move=self.move, visits=self.visits, share=self.share,
                    expected=round(self.expected, 6), se=round(self.se, 6), win=_rounded(self.win, 6),
                    draw=_rounded(self.draw, 6), loss=_rounded(self.loss, 6), margin=_rounded(self.margin, 4))


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


# The rule that picks the recommended move, as the output states it.
RULE = ("the most visited move, unless another move with at least {min_visits} visits has an "
        "expected score higher by more than the standard error of the difference")
TAKE_RULE = ("; before round 4, a take only when its expected score beats the best play's (of those with {share:.0%} "
             "of its visits or more) by {margin:g}")
# Below this many visits a move's standard error is itself too unreliable to overrule the visits.
MIN_VISITS_TO_OVERRULE = 100
# With a take margin (SearchConfig.take_margin), the plays that may stand in for the take: those
# with at least this share of the take's visits (fewer are too rarely tried to be trusted).
TAKE_MARGIN_SHARE = 0.05
# Two moves whose expected scores differ by less than this many standard errors of the
# difference cannot be told apart by the evidence (about 95% two-sided): a close call.
CLOSE_CALL_Z = 1.96


def _difference_se(a: MoveStats, b: MoveStats) -> float:
    return math.sqrt(a.se ** 2 + b.se ** 2)


def recommend(moves: list[MoveStats], take_margin: float = 0.0) -> tuple[list[MoveStats], list[str]]:
    """The moves in the order advice shows them (the recommended one first, then by visits),
    and the moves the evidence cannot separate from the recommended one (empty when clear).

    The rule is RULE: visits are the robust choice of MCTS, but when two moves split the
    visits (as root-parallel trees can), the expected scores decide once their difference
    is larger than its standard error. With `take_margin` (the search's `take_margin` before
    round 4), a take so chosen is kept only when its expected score beats the best one among
    the plays with TAKE_MARGIN_SHARE of its visits or more by that margin; otherwise that play
    is recommended (TAKE_RULE).

    >>> a = MoveStats("8", 435, 0.435, 0.623, 0.0, se=0.0023)
    >>> b = MoveStats("+3", 420, 0.42, 0.628, 0.0, se=0.0023)
    >>> c = MoveStats("T", 145, 0.145, 0.40, 0.0, se=0.04)
    >>> ordered, close = recommend([a, b, c])
    >>> [m.move for m in ordered], close
    (['+3', '8', 'T'], ['+3', '8'])
    >>> take = MoveStats("T", 900, 0.9, 0.612, 0.0, se=0.002)
    >>> play = MoveStats("8", 100, 0.1, 0.600, 0.0, se=0.005)
    >>> recommend([take, play])[0][0].move, recommend([take, play], take_margin=0.015)[0][0].move
    ('T', '8')
    """
    by_visits = sorted(moves, key=lambda m: (-(m.visits or 0), -m.expected))
    if not by_visits or by_visits[0].visits is None:  # exact values: the best expected score
        ordered = sorted(moves, key=lambda m: -m.expected)
        return ordered, []
    best = by_visits[0]
    challengers = [m for m in by_visits[1:] if m.visits >= MIN_VISITS_TO_OVERRULE
                   and m.expected - best.expected > _difference_se(m, best)]
    if challengers:
        best = max(challengers, key=lambda m: m.expected)
    if take_margin and best.move == TAKE_TOKEN:
        plays = [m for m in by_visits if m.move != TAKE_TOKEN and m.visits >= TAKE_MARGIN_SHARE * best.visits]
        if plays:
            play = max(plays, key=lambda m: m.expected)
            if play.expected > best.expected - take_margin:
                best = play
    ordered = [best] + [m for m in by_visits if m is not best]
    close = [m.move for m in ordered[1:] if (m.visits or 0) >= MIN_VISITS_TO_OVERRULE
             and abs(best.expected - m.expected) <= CLOSE_CALL_Z * _difference_se(m, best)]
    return ordered, ([best.move] + close if close else [])


@dataclass(frozen=True)
class Advice:
    """The recommendation for the side to move, with every legal move's figures, best first.

    `close_call` names the recommended move and those the evidence cannot separate from
    it (empty when the recommendation is clear): more budget is the advice. `rule` says
    how the recommended move was picked.

    >>> pos = Position.parse("68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a")
    >>> advice = advise(pos, Limit(iterations=2000), threads=1, seed=1)
    >>> advice.best in {"8", "+3", "T"}, advice.iterations, advice.exact
    (True, 2000, False)
    """

    best: str
    moves: list[MoveStats]
    iterations: int
    seconds: float
    exact: bool
    threads: int
    worlds: int | None = None
    close_call: list[str] = field(default_factory=list)
    method: Method = Method.ISMCTS  # in round 4 EQUILIBRIUM or VIEW
    exploitability: float | None = None  # of the equilibrium answer
    config: SearchConfig | None = None  # the search's settings (None for an exact answer)
    reused: int = 0  # root visits kept from the tree of the previous move (KeptTree), among `moves`' visits

    @property
    def rule(self) -> str:
        """How the recommended move was chosen, in words."""
        if self.method == Method.EQUILIBRIUM:
            return ("the most frequent move of an equilibrium strategy for the mover's hand in the "
                    "hidden-information game (the frequency column)")
        if self.exact:
            return ("the highest exact expected score over every hand the opponent may hold, both sides "
                    "then playing as if they saw every card (optimistic)")
        rule = RULE.format(min_visits=MIN_VISITS_TO_OVERRULE)
        margin = self.config.take_margin if self.config is not None else 0.0
        if margin:
            rule += TAKE_RULE.format(share=TAKE_MARGIN_SHARE, margin=margin)
        return rule

    @property
    def iterations_per_second(self) -> float:
        """Iterations over wall time (0 for exact advice)."""
        return self.iterations / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir advise --json` prints it."""
        return dict(best=self.best, exact=self.exact, method=self.method, rule=self.rule,
                    close_call=self.close_call, exploitability=self.exploitability,
                    moves=[m.to_dict() for m in self.moves],
                    iterations=self.iterations, seconds=round(self.seconds, 6),
                    iterations_per_second=round(self.iterations_per_second, 1),
                    threads=self.threads, worlds=self.worlds, reused=self.reused,
                    search=None if self.config is None else self.config.to_dict())


def mover_view(pos: Position) -> Position:
    """The position as its side to move sees it; errors if that hand is hidden or the game is over."""
    if pos.is_over:
        raise PositionError("to-move", "the game is over: there is no move to advise")
    if pos.hands[pos.to_move] is None:
        raise PositionError(f"hand {PLAYERS[pos.to_move]}",
                            "the hand of the side to move is hidden; give it to get advice")
    return pos.view(pos.to_move)


class IsmctsSearch:
    """Root-parallel ISMCTS from one view: `threads` independent trees, merged at the root.

    >>> pos = Position.parse("68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a")
    >>> search = IsmctsSearch(pos, threads=2, seed=3)
    >>> search.run(iterations=1000)
    1000
    >>> sum(stats.visits for stats in search.root_stats().values())
    1000
    """

    def __init__(self, view: Position, threads: int = 1, seed: int = 0, config: SearchConfig = DEFAULT_CONFIG):
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ArgumentError(f"threads: {threads!r} is not a whole number of at least 1")
        self.view = mover_view(view)
        self.config = config
        self.threads = threads
        self.searchers = [Searcher(max_nodes=max(1, config.max_nodes // threads)) for _ in range(threads)]
        for i, searcher in enumerate(self.searchers):
            self._start(searcher, self.view, thread_seed(seed, i))
        self._pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None

    def _start(self, searcher: Searcher, view: Position, seed: int) -> None:
        config = self.config
        searcher.start(view.core, view.to_move, seed=seed, exploration=config.exploration,
                       opponent_exploration=config.opponent, root_exploration=config.root_exploration,
                       tree_rounds=config.tree_rounds, settled_stop=config.settled_stop,
                       policy=config.policy.value,
                       margin_weight=config.margin_weight, tuned=config.tuned,
                       opponent_hands=config.opponent_hands, hand_bandit=config.hand_bandit,
                       round4_exploration=config.round4_exploration, third_city=config.third_city,
                       poly_bonus=config.poly_bonus,
                       round_model=roundmodel.weights(config.model_temperature) if config.round_model else None)

    def follow(self, view: Position, seed: int, first: Move | None = None) -> int:
        """Go on with these trees for `view`, when it is this search's view after one move of the
        observer and one of the opponent in the same round (the opponent's card now public):
        each tree keeps the subtree below those two moves (solver.solvers._ismcts's
        `Searcher.follow`). Returns the root visits kept, over every tree; 0 when `view` does
        not follow this way or no tree had reached that node, and the search is then unchanged.
        `first` is the observer's move to try first (the one advised last time).

        Only the two positions' views are compared, so what the observer cannot see plays no part.
        """
        found = _two_moves_between(self.view, view, first)
        if found is None:
            return 0
        own, theirs = found
        kept = [s.follow(view.core, own.index, theirs.index, seed=thread_seed(seed, i))
                for i, s in enumerate(self.searchers)]
        if not all(kept):  # every tree follows, or none: a tree that could not is started anew
            for i, (s, k) in enumerate(zip(self.searchers, kept)):
                if not k:
                    self._start(s, view, thread_seed(seed, i))
        self.view = view
        return sum(kept)

    def close(self):
        """Stop the thread pool (a no-op for one thread)."""
        if self._pool is not None:
            self._pool.shutdown()

    def advance(self, target: int, seconds: float) -> int:
        """Search towards `target` iterations in all for at most `seconds`; returns the iterations made.

        Each thread has a fixed share of `target` (as `run(iterations=target)` would give it),
        so a search cut into many slices still ends with the same trees, whatever the clock did.
        """
        n = len(self.searchers)
        shares = [target // n + (1 if i < target % n else 0) for i in range(n)]
        jobs = [(s, k - s.iterations) for s, k in zip(self.searchers, shares) if k > s.iterations]
        if not jobs:
            return 0
        if self._pool is None or len(jobs) == 1:
            return sum(s.search(iterations=k, seconds=seconds) for s, k in jobs)
        return sum(self._pool.map(lambda job: job[0].search(iterations=job[1], seconds=seconds), jobs))

    def run(self, iterations: int = 0, seconds: float = 0.0) -> int:
        """Search `iterations` more (split across the threads) and/or for `seconds`, whichever
        ends first; returns the iterations made."""
        n = len(self.searchers)
        if iterations > 0:
            shares = [iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
            jobs = [(s, k, seconds) for s, k in zip(self.searchers, shares) if k > 0]
        else:
            jobs = [(s, 0, seconds) for s in self.searchers]
        if self._pool is None or len(jobs) == 1:
            return sum(s.search(iterations=k, seconds=t) for s, k, t in jobs)
        return sum(self._pool.map(lambda job: job[0].search(iterations=job[1], seconds=job[2]), jobs))

    def ponder(self, move: Move, stopped) -> int:
        """Think on the opponent's time: search on below the observer's `move` (the answer just
        given) until `stopped()` is true, the trees' pools are full or saturated; returns the
        iterations made. The next `follow` keeps what went below the opponent's actual reply.
        The clock decides how much is searched, so what follows is not reproducible by seed."""
        index = move.index
        for searcher in self.searchers:
            searcher.restrict_root(index)
        made = 0
        try:
            while not stopped() and all(s.nodes_free > 0 for s in self.searchers):
                done = self.run(seconds=PONDER_SLICE_SECONDS)
                if done == 0:  # saturated
                    break
                made += done
        finally:
            for searcher in self.searchers:
                searcher.restrict_root(None)
        return made

    @property
    def iterations(self) -> int:
        """Iterations made so far, over every thread."""
        return sum(s.iterations for s in self.searchers)

    def root_stats(self) -> dict[int, RootStats]:
        """{move: RootStats} summed over the threads' trees.

        Root parallelism merges by adding: every tree's visits are independent samples of
        the same root, so sums give one estimate whatever the thread count.
        """
        merged: dict[int, RootStats] = {}
        for searcher in self.searchers:
            for move, stats in searcher.root_stats().items():
                merged[move] = merged.get(move, NO_VISITS) + stats
        return merged

    def ranked(self) -> list[MoveStats]:
        """Every legal move, the recommended one first (see `recommend`), then by visits."""
        return self.recommendation()[0]

    def recommendation(self) -> tuple[list[MoveStats], list[str]]:
        """`recommend` over the root's figures, with the configuration's take margin before round 4."""
        return recommend(self.move_stats(), take_margin=self.config.take_margin if self.view.round < ROUNDS else 0.0)

    def move_stats(self) -> list[MoveStats]:
        """Every legal move's figures, in canonical order."""
        stats = self.root_stats()
        total = sum(s.visits for s in stats.values()) or 1
        # before the last round, the round-end model scores the playouts: no game is played out
        played_out = not self.config.round_model or self.view.round == ROUNDS
        return [_move_stats(str(Move(m)), stats.get(m, NO_VISITS), total, played_out)
                for m in self.view.core.legal_moves()]


def _move_stats(move: str, stats: RootStats, total: int, played_out: bool = True) -> MoveStats:
    """A move's figures from its summed results and their summed squares (mean, standard error).
    Played-out results are 1, 1/2 or 0, so the wins and draws give the win/draw/loss split;
    without `played_out` games (the results are the round-end model's probabilities) the split
    and the margin are None."""
    visits, reward, margin, draws, squares = stats
    mean = reward / visits if visits else 0.0
    # one visit tells nothing of the spread: assume the widest (a fair coin) rather than 0
    se = math.sqrt(max(squares / visits - mean * mean, 0.0) / (visits - 1)) if visits > 1 else 0.5
    if not played_out:
        return MoveStats(move=move, visits=visits, share=visits / total, expected=mean, margin=None, se=se,
                         win=None, draw=None, loss=None)
    if visits == 0:
        return MoveStats(move=move, visits=0, share=0.0, expected=0.0, margin=0.0, se=0.5)
    wins = stats.wins
    return MoveStats(move=move, visits=visits, share=visits / total, expected=mean, margin=margin / visits,
                     se=se, win=wins / visits, draw=draws / visits, loss=1 - (wins + draws) / visits)


_ALL_MOVES = tuple(Move(m) for m in range(TAKE + 1))


def _two_moves_between(before: Position, after: Position, first: Move | None = None):
    """(the mover's move, the opponent's move) that lead from the view `before` to the view
    `after` within one round, or None. The opponent's hand is hidden in both: its move is a card
    that the observer could not see, now on the line, or the take."""
    if after.round != before.round or after.to_move != before.to_move or after.is_over:
        return None
    if sum(after.actions) != sum(before.actions) + 2:
        return None
    own_moves = before.legal_moves()
    if first in own_moves:
        own_moves.remove(first)
        own_moves.insert(0, first)
    for own in own_moves:
        between = before.play(own)
        if between.to_move == before.to_move or between.round != before.round:
            continue
        for theirs in _ALL_MOVES:
            try:
                if between.play(theirs) == after:
                    return own, theirs
            except DnoirError:  # a card the opponent cannot hold, a take it cannot make
                continue
    return None


class KeptTree:
    """The ISMCTS trees of a player's last move, kept for its next one (tree reuse).

    A bot or an engine that plays a whole game passes one to `advise`; when the next position
    follows the last one by the player's move and one of the opponent's in the same round,
    the search goes on from the subtree below those two moves instead of starting empty
    (`IsmctsSearch.follow`). `clear()` at a new game; anything that does not follow (another
    game, a new round, other settings) starts a new tree.
    """

    def __init__(self):
        self._search: IsmctsSearch | None = None
        self._best: Move | None = None
        self._lock = threading.Lock()
        # Pondering: `_pondering` is held while `ponder` searches the kept trees, `_halt` ends it.
        # Every other method stops it first, so the trees are never used by two threads.
        self._pondering = threading.Lock()
        self._halt = threading.Event()

    def stop_pondering(self) -> None:
        """End `ponder` (running or about to start) and wait until it has (one short slice)."""
        self._halt.set()
        with self._pondering:
            pass

    def ponder(self, stop=None) -> int:
        """Think on the opponent's time: search the kept trees on below the move they advised
        until `stop` (None, an Event or a callable: solver.solvers.limit.stop_test) is set or
        `stop_pondering` (or `take`, `keep`, `clear`) is called; returns the iterations made (0
        with nothing kept, or when stopped before it started). It runs in the caller's thread.
        """
        stopped = stop_test(stop)
        with self._pondering:
            with self._lock:
                search, best, halt = self._search, self._best, self._halt
            if search is None:
                return 0
            return search.ponder(best, lambda: halt.is_set() or stopped())

    def clear(self) -> None:
        """Forget the kept trees."""
        self.stop_pondering()
        with self._lock:
            search, self._search = self._search, None
        if search is not None:
            search.close()

    def take(self, view: Position, threads: int, seed: int, config: SearchConfig) -> tuple["IsmctsSearch | None", int]:
        """The kept search moved on to `view` and the visits it keeps, or (None, 0) (then
        nothing is kept any more)."""
        self.stop_pondering()
        with self._lock:
            search, self._search = self._search, None
        if search is None:
            return None, 0
        if search.config == config and len(search.searchers) == threads:
            kept = search.follow(view, seed, self._best)
            if kept:
                return search, kept
        search.close()
        return None, 0

    def keep(self, search: "IsmctsSearch", best: str) -> None:
        """Keep `search` (whose advice was `best`) for the next move, and for `ponder`."""
        self.stop_pondering()
        with self._lock:
            old, self._search, self._best = self._search, search, Move(best)
            self._halt = threading.Event()
        if old is not None:
            old.close()


def advise(pos: Position, limit: Limit | None = None, threads: int | None = None, seed: int = 0,
           policy: str | None = None, exploration: float | None = None, max_nodes: int | None = None,
           exact: bool = True, on_progress=None, stop=None, endgame: str = "auto",
           slice_seconds: float = SLICE_SECONDS, config: SearchConfig | None = None,
           kept: KeptTree | None = None) -> Advice:
    """Recommend a move for the side to move of `pos`, from that player's view.

    `limit` is the budget (solver.solvers.limit; default DEFAULT_LIMIT, 1 s): iterations
    (reproducible with `seed`), seconds, or both (the first reached ends the search), or
    infinite (until `stop`). `threads` defaults to every core. The search runs in
    slices of `slice_seconds`; after each one `on_progress(search)` is called and `stop`
    (a `threading.Event` or a callable returning True to stop) is checked, so another
    thread can end the search early with the best move so far. At least one slice runs.
    `config` is the search's settings (default DEFAULT_CONFIG, the strongest tested);
    `policy`, `exploration` and `max_nodes`, when given, replace those fields of it.
    In round 4 the answer is exact, unless `exact` is False. With `endgame` 'auto' it is the
    equilibrium of the hidden-information game (solver.solvers.equilibrium) when its tree can be solved
    within the limit's seconds (1 s for an infinite limit), or, for a limit of iterations alone,
    when its tree has at most GRADE_NODES public nodes and CFR+ reaches GRADE_TARGET within
    GRADE_ITERATIONS (no clock, so the answer is the same on any machine); otherwise, or with
    `endgame` 'view', the one-player view (optimistic: both sides then play as if they saw
    every card); the answer's `method` says which.
    `kept` (a KeptTree) carries the trees from one move of a game to the next: when `pos`
    follows the position of its last search by the mover's move and one of the opponent's,
    and the configuration's `reuse` is on, the search goes on from the subtree of those
    moves (`Advice.reused` counts its visits), and the trees are kept again afterwards.

    >>> import threading
    >>> halt = threading.Event()
    >>> halt.set()  # stopped before it starts: one short slice, still a legal answer
    >>> pos = Position.parse("68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a")
    >>> advise(pos, Limit(infinite=True), threads=1, stop=halt, slice_seconds=0.01).best in {"8", "+3", "T"}
    True
    """
    if not isinstance(pos, Position):
        raise ArgumentError(f"advise: the position must be a solver.Position, not {type(pos).__name__}")
    view = mover_view(pos)
    limit = DEFAULT_LIMIT if limit is None else limit
    if not isinstance(limit, Limit):
        raise _NotALimit(f"limit must be a solver.solvers.limit.Limit, not {type(limit).__name__}")
    threads, seed, slice_seconds = _check_arguments(threads, seed, slice_seconds, endgame)
    # policy, exploration and max_nodes are checked by SearchConfig (ArgumentError names the field)
    config = (DEFAULT_CONFIG if config is None else config).replace(
        policy=policy, exploration=exploration, max_nodes=max_nodes)
    stopped = stop_test(stop)
    start = time.perf_counter()
    if view.round == ROUNDS and exact and endgame == "auto":
        if limit.iterations is not None and limit.seconds is None:
            # a budget of iterations is reproducible: the equilibrium bounded by size and
            # CFR+ iterations (as analysis grades), never by the clock
            eq = equilibrium_grade(view, max_nodes=GRADE_NODES)
        else:
            # anytime: a stop ends it with the last checked answer (or, before the first, the view's)
            eq = equilibrium_advice(view, limit if limit.seconds is not None else DEFAULT_LIMIT, stop=stopped)
        if eq is not None:
            moves = [MoveStats(move=m["move"], visits=None, share=m["frequency"], expected=m["expected"],
                               margin=None) for m in eq["moves"]]
            return Advice(best=eq["best"], moves=moves, iterations=eq["iterations"],
                          seconds=time.perf_counter() - start, exact=True, threads=1, method=Method.EQUILIBRIUM,
                          exploitability=eq["exploitability"])
    if view.round == ROUNDS and exact:
        result = solve(view, mode="view")
        moves = [MoveStats(move=m.move, visits=None, share=None, expected=float(m.expected),
                           margin=float(m.margin), win=float(m.win), draw=float(m.draw), loss=float(m.loss))
                 for m in result.moves]
        return Advice(best=result.best, moves=moves, iterations=0, seconds=time.perf_counter() - start,
                      exact=True, threads=1, worlds=result.worlds, method=Method.VIEW)
    # an infinite search is a fixed number of iterations too large to end before `stop`
    iterations = MAX_ITERATIONS if limit.infinite else limit.iterations
    search, reused = kept.take(view, threads, seed, config) if kept is not None and config.reuse else (None, 0)
    if search is None:
        search = IsmctsSearch(view, threads=threads, seed=seed, config=config)
    deadline = start + limit.seconds if limit.seconds is not None else None
    try:
        while True:
            budget = slice_seconds
            if deadline is not None:
                budget = min(budget, deadline - time.perf_counter())
                if budget <= 0:
                    break
            if iterations is not None:
                if search.iterations >= iterations:
                    break
                search.advance(iterations, seconds=budget)
            else:
                search.run(seconds=budget)
            if on_progress is not None:
                on_progress(search)
            if stopped():
                break
    except BaseException:
        search.close()
        raise
    moves, close = search.recommendation()
    if kept is not None and config.reuse:
        kept.keep(search, moves[0].move)
    else:
        search.close()
    return Advice(best=moves[0].move, moves=moves, iterations=search.iterations,
                  seconds=time.perf_counter() - start, exact=False, threads=threads, close_call=close,
                  config=config, reused=reused)


class _NotALimit(LimitError, TypeError):
    """A budget that is not a Limit: an input mistake (LimitError), and the TypeError it always was."""


def _check_arguments(threads, seed, slice_seconds, endgame):
    """`advise`'s own arguments checked against the CLI's ranges (ArgumentError names the one);
    the search settings are SearchConfig's to check."""
    try:
        if threads is None:
            threads = os.cpu_count() or 1
        threads = whole("threads", threads, 1, MAX_THREADS)
        seed = whole("seed", seed, 0, MAX_SEARCH_SEED)
        slice_seconds = real("slice_seconds", slice_seconds, 1e-6, MAX_SECONDS)
    except ValueError as e:
        raise ArgumentError(f"advise: {e}") from None
    if endgame not in ("auto", "view"):
        raise ArgumentError(f"advise: endgame must be 'auto' or 'view', not {str(endgame)[:40]!r}")
    return threads, seed, float(slice_seconds)


def memory_bound_mb(max_nodes: int = DEFAULT_MAX_NODES) -> float:
    """The most memory the ISMCTS node pools can take, in MB."""
    return max_nodes * NODE_BYTES / 1e6
