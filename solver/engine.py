"""The engine protocol of NOTATION.md on a pair of text streams (`dnoir engine`).

    > dn                 < id name dnoir <version>   < dnok
    > isready            < readyok
    > newgame
    > position <DNP>
    > go [movetime <ms>] [iterations <n>] [seed <n>]   < info ...   < bestmove <move>
    > quit

Every malformed or unknown command gets one line `error <reason>` and the engine keeps
running. `bestmove` arrives within movetime + 50 ms: the search stops 20 ms early to
leave room for answering.

>>> import io
>>> out = io.StringIO()
>>> Engine(out=out).handle("isready")
True
>>> out.getvalue()
'readyok\\n'
"""

from __future__ import annotations

import sys
import time

from . import __version__
from .notation import ROUNDS
from .position import Position
from .search import DEFAULT_POLICY, advise

DEFAULT_MOVETIME_MS = 1000
SAFETY_SECONDS = 0.02
# Below this budget a round-4 position is searched rather than solved: the exact view
# solve takes up to a few tens of milliseconds and the answer must not arrive late.
EXACT_MIN_MOVETIME_MS = 150


class ProtocolError(ValueError):
    """A command the protocol does not define or whose arguments are malformed."""


class Engine:
    """One engine session; `handle(line)` answers one command, False once `quit` is read."""

    def __init__(self, out=None, threads: int = 1, policy: str = DEFAULT_POLICY):
        self.out = out if out is not None else sys.stdout
        self.threads = threads
        self.policy = policy
        self.position: Position | None = None

    def send(self, line: str) -> None:
        """Write one protocol line and flush it at once."""
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, line: str) -> bool:
        """Answer one command line; return False when the session should end."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        try:
            if command == "quit":
                return False
            handler = getattr(self, f"cmd_{command}", None)
            if handler is None:
                raise ProtocolError(f"unknown command {command!r}")
            handler(args, line)
        except ValueError as e:  # PositionError, ProtocolError, a bad number
            self.send(f"error {' '.join(str(e).split())}")
        return True

    def cmd_dn(self, args, line):
        """Identify the engine: `id name ...` then `dnok`."""
        self.send(f"id name dnoir {__version__}")
        self.send("dnok")

    def cmd_isready(self, args, line):
        """Answer `readyok` (the engine is always ready between commands)."""
        self.send("readyok")

    def cmd_newgame(self, args, line):
        """Forget the position (nothing else is kept between moves)."""
        self.position = None

    def cmd_position(self, args, line):
        """Set the position to analyse; its side to move must know its own hand."""
        if not args:
            raise ProtocolError("position needs a DNP")
        pos = Position.parse(line.split(None, 1)[1])
        if pos.is_over:
            raise ProtocolError("the game in this position is over")
        if pos.hands[pos.to_move] is None:
            raise ProtocolError("the side to move's own hand must be known")
        self.position = pos

    def cmd_go(self, args, line):
        """Search within the limits, print `info` lines, then `bestmove`."""
        if self.position is None:
            raise ProtocolError("no position: send 'position <DNP>' first")
        limits = _parse_go(args)
        start = time.perf_counter()
        movetime = limits.get("movetime")
        iterations = limits.get("iterations")
        seed = limits.get("seed", 0)
        pos = self.position
        exact = pos.round == ROUNDS and (movetime is None or movetime >= EXACT_MIN_MOVETIME_MS)
        seconds = None
        if movetime is not None or iterations is None:
            budget_ms = movetime if movetime is not None else DEFAULT_MOVETIME_MS
            seconds = max(0.001, budget_ms / 1000 - SAFETY_SECONDS)
        advice = advise(pos, seconds=seconds, iterations=iterations, threads=self.threads, seed=seed,
                        policy=self.policy, exact=exact, on_progress=self._info)
        elapsed_ms = int((time.perf_counter() - start) * 1000)
        top = advice.moves[0]
        detail = "exact" if advice.exact else f"iterations {advice.iterations}"
        self.send(f"info {detail} time {elapsed_ms} best {top.move} expected {top.expected:.4f} "
                  f"margin {top.margin:+.2f}")
        self.send(f"bestmove {advice.best}")

    def _info(self, search) -> None:
        ranked = search.ranked()
        self.send(f"info iterations {search.iterations} best {ranked[0].move} "
                  f"expected {ranked[0].expected:.4f} visits {ranked[0].visits}")

    def run(self, stream) -> None:
        """Read commands from `stream` until `quit` or end of input."""
        for line in stream:
            if not self.handle(line):
                break


def _parse_go(args: list[str]) -> dict:
    limits, i = {}, 0
    while i < len(args):
        key = args[i]
        if key not in ("movetime", "iterations", "seed"):
            raise ProtocolError(f"go: unknown limit {key!r} (movetime, iterations, seed)")
        if i + 1 >= len(args):
            raise ProtocolError(f"go: {key} needs a number")
        try:
            value = int(args[i + 1])
        except ValueError:
            raise ProtocolError(f"go: {key} must be a whole number, not {args[i + 1]!r}") from None
        if value < (0 if key == "seed" else 1):
            raise ProtocolError(f"go: {key} must be positive, not {value}")
        limits[key] = value
        i += 2
    return limits
