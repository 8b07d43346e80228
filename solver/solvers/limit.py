"""One search budget: time, iterations or both (whichever runs out first), in one unit; and
`stop_test`, the one reading of the stop request (an Event or a callable) a search takes beside it.

A `Limit` is what every search takes: `solver.solvers.search.advise`, the bots, the arena and
the match runner, the engine's `go` and the external engines. Time is in seconds
everywhere. Milliseconds exist only where a protocol or a file speaks them (`go movetime
<ms>`, the match commands' `--movetime`, a match record's `settings.movetime_ms`), and
they cross into seconds through `Limit.from_ms` and back through `Limit.ms`, nowhere else.

>>> Limit(iterations=2000)
Limit(seconds=None, iterations=2000, infinite=False)
>>> print(Limit(seconds=0.5, iterations=2000))
2000 iterations or 0.5 s
>>> Limit.from_ms(50) == Limit(seconds=0.05), Limit.from_ms(50).ms
(True, 50)
>>> Limit(seconds=float("nan"))
Traceback (most recent call last):
...
solver.errors.LimitError: seconds: nan is not a finite number (0.001 to 86400)
>>> Limit()
Traceback (most recent call last):
...
solver.errors.LimitError: a limit needs seconds, iterations or both (or infinite=True)
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.base.bounds import MAX_ITERATIONS, MAX_MOVETIME_MS, MAX_SECONDS, MIN_SECONDS, real, whole
from solver.errors import LimitError

MS_PER_SECOND = 1000


@dataclass(frozen=True)
class Limit:
    """A search budget: at most `seconds` of time and/or `iterations`; with both, the first
    reached ends the search. `infinite` (with neither) searches until it is told to stop,
    as the engine's `go infinite`.

    Both numbers are checked when the limit is made (solver.base.bounds ranges); a LimitError
    (one of solver.errors' input mistakes) names the field. Limits are values: equal budgets compare equal and hash alike.
    """

    seconds: float | None = None
    iterations: int | None = None
    infinite: bool = False

    def __post_init__(self):
        if self.infinite is not True and self.infinite is not False:
            raise LimitError(f"infinite: {self.infinite!r:.40} is not True or False")
        if self.infinite:
            if self.seconds is not None or self.iterations is not None:
                raise LimitError("an infinite limit has no seconds or iterations")
            return
        if self.seconds is None and self.iterations is None:
            raise LimitError("a limit needs seconds, iterations or both (or infinite=True)")
        try:
            if self.seconds is not None:
                object.__setattr__(self, "seconds", real("seconds", self.seconds, MIN_SECONDS, MAX_SECONDS))
            if self.iterations is not None:
                object.__setattr__(self, "iterations", whole("iterations", self.iterations, 1, MAX_ITERATIONS))
        except ValueError as e:  # solver.base.bounds speaks plain ValueError; a Limit's caller gets the family
            raise LimitError(str(e)) from None

    @classmethod
    def given(cls, seconds: float | None = None, iterations: int | None = None) -> Limit | None:
        """The limit of a `--time`/`--iterations` pair of options (or a bot spec's `time=`/
        `iterations=`): None when neither is given, so that the consumer's default applies.

        >>> Limit.given(iterations=300), Limit.given()
        (Limit(seconds=None, iterations=300, infinite=False), None)
        """
        if seconds is None and iterations is None:
            return None
        return cls(seconds=seconds, iterations=iterations)

    @classmethod
    def from_ms(cls, ms: int | None, iterations: int | None = None, name: str = "movetime") -> Limit:
        """The limit of a protocol's or a record's whole milliseconds (`go movetime <ms>`,
        `--movetime`), with `iterations` too if given; LimitError names `name`.

        >>> Limit.from_ms(1500, iterations=100)
        Limit(seconds=1.5, iterations=100, infinite=False)
        >>> Limit.from_ms(0)
        Traceback (most recent call last):
        ...
        solver.errors.LimitError: movetime: 0 is out of range (1 to 86400000)
        """
        try:
            seconds = None if ms is None else whole(name, ms, 1, MAX_MOVETIME_MS) / MS_PER_SECOND
        except ValueError as e:
            raise LimitError(str(e)) from None
        return cls(seconds=seconds, iterations=iterations)

    @property
    def ms(self) -> int | None:
        """The time in whole milliseconds, as a protocol sends it (at least 1); None without a time.

        Exact for a limit made by `from_ms`: `Limit.from_ms(n).ms == n`.
        """
        if self.seconds is None:
            return None
        return max(1, round(self.seconds * MS_PER_SECOND))

    def __str__(self) -> str:
        if self.infinite:
            return "until stopped"
        parts = []
        if self.iterations is not None:
            parts.append(f"{self.iterations} iterations")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        return " or ".join(parts)


def stop_test(stop):
    """`stop` (None, a `threading.Event` or a callable) as a callable answering "stop now?":
    the one reading of the `stop` that searches, solvers and engine waits take beside a Limit.

    >>> import threading
    >>> event = threading.Event(); test = stop_test(event); event.set(); test()
    True
    >>> stop_test(None)()
    False
    """
    if stop is None:
        return _never
    if hasattr(stop, "is_set"):
        return stop.is_set
    return stop


def _never() -> bool:
    return False
