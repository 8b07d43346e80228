"""Searches for the web server: advice computed in slices, capped per server, bounded in memory.

An `Analysis` is one position's search from its mover's view. Before round 4 it keeps an
ISMCTS tree (solver.solvers.search.IsmctsSearch, one thread, a small node pool) that each `step`
grows by one slice, so "stop" is simply not asking for the next slice and "go on" is asking
again: the tree is kept. In round 4 the answer is exact and comes from `solver.solvers.search.advise`
itself (the equilibrium or the one-player view). Each step returns a `solver.solvers.search.Advice`,
whose `to_dict()` is what `dnoir advise --json` prints.

`Capacity` caps the searches running at once over the whole server: a request that finds
every slot taken is refused (the app answers 429) rather than queued without bound.
`Analyses` keeps at most `size` analyses (least recently used dropped first), so the
memory stays bounded whatever the number of requests.

>>> store, slots = Analyses(size=2), Capacity(1)
>>> a = store.open(Position.parse("68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"), seed=1)
>>> with slots.slot():
...     advice = a.step(iterations=500)
>>> advice.iterations, advice.best in {"8", "+3", "T"}, store.get(a.id) is a
(500, True, True)
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager

from solver.base.bounds import MAX_ITERATIONS
from solver.rules.notation import ROUNDS
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import DEFAULT_CONFIG, Advice, IsmctsSearch, advise, mover_view

# 250,000 nodes: about 10 MB a full tree (measured), and at most DEFAULT_ANALYSES trees are kept.
ANALYSIS_NODES = 250_000
DEFAULT_ANALYSES = 8
SLICE_SECONDS = 0.15


class Busy(Exception):
    """Every search slot of the server is taken: try again when one ends (HTTP 429)."""


class Capacity:
    """At most `limit` searches at once; `slot()` takes one or raises Busy at once."""

    def __init__(self, limit: int = 2):
        self.limit = limit
        self._sem = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self.running = 0

    def acquire(self) -> None:
        """Take a slot, or raise Busy (never waits)."""
        if not self._sem.acquire(blocking=False):
            raise Busy(f"the server is running {self.limit} searches already (its limit); "
                       "try again when one ends")
        with self._lock:
            self.running += 1

    def release(self) -> None:
        """Give a slot back."""
        with self._lock:
            self.running -= 1
        self._sem.release()

    @contextmanager
    def slot(self):
        """A slot for the duration of a `with` block."""
        self.acquire()
        try:
            yield
        finally:
            self.release()


class Analysis:
    """One position's advice for its side to move, grown a slice at a time.

    `step(seconds=...)` or `step(iterations=...)` searches a little more and returns the
    Advice so far; `done` is True once nothing more can be learnt (exact round-4 advice, or
    the iteration cap). PositionError when the position has no move to advise (the game is
    over, or the mover's hand is hidden), with the CLI's reason.
    """

    _ids = itertools.count(1)

    def __init__(self, pos: Position, seed: int = 0, max_nodes: int = ANALYSIS_NODES):
        self.view = mover_view(pos)
        self.dnp = str(pos)
        self.id = f"{next(self._ids)}-{secrets.token_hex(4)}"
        self.exact = self.view.round == ROUNDS
        # the search `dnoir advise` runs (solver.solvers.searchconfig's default), in a smaller node pool
        self.config = DEFAULT_CONFIG.replace(max_nodes=max_nodes)
        self.search = None if self.exact else IsmctsSearch(self.view, threads=1, seed=seed, config=self.config)
        self.seconds = 0.0
        self.answer: Advice | None = None
        self.busy = False
        self.lock = threading.Lock()

    @property
    def done(self) -> bool:
        """True when more search cannot change the answer."""
        if self.exact:
            return self.answer is not None
        return self.search.iterations >= MAX_ITERATIONS

    def step(self, seconds: float = SLICE_SECONDS, iterations: int | None = None) -> Advice:
        """Search one more slice (`seconds`, or exactly `iterations` more) and return the advice so far."""
        with self.lock:
            if self.exact:
                if self.answer is None:
                    self.answer = advise(self.view, Limit(seconds=1.0), threads=1)
                return self.answer
            start = time.perf_counter()
            if iterations is not None:
                self.search.run(iterations=min(iterations, MAX_ITERATIONS - self.search.iterations))
            elif not self.done:
                self.search.run(seconds=seconds)
            self.seconds += time.perf_counter() - start
            moves, close = self.search.recommendation()
            self.answer = Advice(best=moves[0].move, moves=moves, iterations=self.search.iterations,
                                 seconds=self.seconds, exact=False, threads=1, close_call=close,
                                 config=self.config)
            return self.answer


class Analyses:
    """The analyses kept for "go on": at most `size`, the least recently used dropped first
    (one being searched is never dropped; its stream holds it)."""

    def __init__(self, size: int = DEFAULT_ANALYSES, max_nodes: int = ANALYSIS_NODES):
        self.size = size
        self.max_nodes = max_nodes
        self._items: OrderedDict[str, Analysis] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def open(self, pos: Position, seed: int = 0) -> Analysis:
        """A new analysis of `pos` (PositionError if it has no move to advise)."""
        analysis = Analysis(pos, seed=seed, max_nodes=self.max_nodes)
        with self._lock:
            self._items[analysis.id] = analysis
            for key in [k for k, a in self._items.items() if not a.busy][:max(0, len(self._items) - self.size)]:
                del self._items[key]
        return analysis

    def get(self, key: str) -> Analysis | None:
        """The analysis with id `key`, if it is still kept (and mark it recently used)."""
        with self._lock:
            analysis = self._items.get(key)
            if analysis is not None:
                self._items.move_to_end(key)
            return analysis
