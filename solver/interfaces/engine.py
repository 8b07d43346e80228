"""The engine protocol (docs/protocol.md) on a pair of text streams: `dnoir engine`.

    > dn                 < id name dnoir <version>   < option name ... (one per option)   < dnok
    > isready            < readyok
    > setoption name <Name> value <v>
    > newgame
    > position <DNP>
    > go [movetime <ms>] [iterations <n>] [seed <n>] | go infinite [seed <n>]
                         < info ...   < bestmove <move>
    > stop               (while searching: < bestmove <best so far>)
    > quit

The main thread reads commands; a search runs in a worker thread, so that `isready`,
`stop` and `quit` are answered while it runs. Every malformed or unknown command gets one
line `error <reason>` (quoting at most a short prefix of the input) and the engine keeps
running. `bestmove` arrives within movetime + 50 ms (with no more Threads than free cores):
the search stops 5 ms early and is cut into slices of 15 ms, between which it looks at
the clock and at `stop`.

>>> import io
>>> out = io.StringIO()
>>> engine = Engine(out=out)
>>> for command in ["isready", "go movetime 0", "position 68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a",
...                 "go iterations 500 seed 1"]:
...     _ = engine.handle(command)
...     engine.wait()  # searching happens in a worker thread
>>> print(out.getvalue(), end="")  # doctest: +ELLIPSIS
readyok
error go movetime: 0 is out of range (1 to 86400000)
info time ... iterations 500 ips ... best ... expected ...
bestmove ...
"""

from __future__ import annotations

import re
import sys
import threading
import time
from dataclasses import dataclass, replace

from solver import __version__
from solver.base.bounds import (
    MAX_EXPLORATION,
    MAX_ITERATIONS,
    MAX_MOVETIME_MS,
    MAX_NODES,
    MAX_SEED,
    MAX_THREADS,
    MIN_NODES,
    MIN_SECONDS,
    real,
    whole,
)
from solver.errors import DnoirError, ProtocolError
from solver.rules.notation import ROUNDS
from solver.rules.position import Position
from solver.solvers._ismcts import NODE_BYTES, POLICY_NAMES
from solver.solvers.limit import MS_PER_SECOND, Limit
from solver.solvers.search import DEFAULT_CONFIG, DEFAULT_MAX_NODES, KeptTree, Method, advise
from solver.solvers.searchconfig import SearchConfig

# The budget of a `go` that gives no movetime, iterations or infinite.
DEFAULT_LIMIT = Limit(seconds=1.0)
# The search ends this long before movetime, leaving room to rank the moves and answer (about
# 1 ms): bestmove comes at about 96 ms of a 100 ms move. It was 20 ms up to bench/STRENGTH.md's
# test 10, which left a fifth of a 100 ms move unused.
SAFETY_SECONDS = 0.005
# Length of one search slice: the longest a running search takes to notice `stop`.
SLICE_SECONDS = 0.015
# The commands that end pondering (the Ponder option): everything but `isready`, `dn` and `stop`,
# which an arena may send while the opponent thinks.
ENDS_PONDERING = frozenset({"position", "go", "newgame", "setoption", "quit"})
# At most one progress `info` line this often.
INFO_EVERY_SECONDS = 0.25
# Below this budget a round-4 position is searched rather than solved, so that the answer
# does not arrive late: the one-player view's solve of a round's first decision took 3.6 ms
# (median) and 21.7 ms at most over the 1,873 round-4 starts of bench/books/round4_r17.txt.
# It was 0.15 up to bench/STRENGTH.md's test 31, which found round 4 solved at 100 ms a move
# worth +10.9 Elo over round 4 searched (H1 at [0, 5]); `--exact-from 150` is the old engine.
EXACT_MIN_SECONDS = 0.05
# A command line longer than this (in bytes, without its newline) is refused unread:
# the longest sensible command, a position, is under 200 characters.
MAX_LINE_BYTES = 4096
# Error lines quote at most this much of the offending input.
QUOTE_CHARS = 40
MAX_ERROR_CHARS = 300
# `quit` waits at most this long for a search to end (one slice, normally) before exiting.
QUIT_WAIT_SECONDS = 5.0
# `go` after `stop` waits at most this long for the stopped search's answer before it is "busy".
STOPPED_WAIT_SECONDS = 5.0
# Hash: the ISMCTS node pool in MB (10^6 bytes), as `dnoir advise --max-nodes` counts it.
BYTES_PER_MB = 1_000_000
HASH_MIN_MB = max(1, -(-MIN_NODES * NODE_BYTES // BYTES_PER_MB))
HASH_MAX_MB = MAX_NODES * NODE_BYTES // BYTES_PER_MB
HASH_DEFAULT_MB = DEFAULT_MAX_NODES * NODE_BYTES // BYTES_PER_MB


def quote(text: str) -> str:
    """`text` quoted for an error line: at most QUOTE_CHARS characters of it, then '...'.

    >>> quote("x" * 1000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"
    """
    return repr(text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "...")


_LONG_QUOTE = re.compile(r"'([^']{%d})[^']+'" % QUOTE_CHARS)


def error_text(reason: str) -> str:
    """One short line from an error message: whitespace collapsed, long quotes cut, length capped."""
    line = _LONG_QUOTE.sub(r"'\1...'", " ".join(str(reason).split()))
    return line if len(line) <= MAX_ERROR_CHARS else line[:MAX_ERROR_CHARS] + "..."


@dataclass(frozen=True)
class Option:
    """One `setoption` option: its announcement in answer to `dn` and the check of its values."""

    name: str
    kind: str  # "spin", "combo", "check" (true or false) or "string" (a real number, its range in `low`/`high`)
    default: object
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def announce(self) -> str:
        """The `option name ...` line."""
        default = str(self.default).lower() if self.kind == "check" else self.default
        line = f"option name {self.name} type {self.kind} default {default}"
        if self.kind == "spin":
            line += f" min {self.low} max {self.high}"
        elif self.kind == "combo":
            line += "".join(f" var {c}" for c in self.choices)
        return line

    def parse(self, text: str):
        """The value `text` stands for; ProtocolError names the option and what it accepts."""
        try:
            if self.kind == "spin":
                return whole(self.name, text, self.low, self.high)
            if self.kind == "check":
                if text.lower() not in ("true", "false"):
                    raise ValueError(f"{self.name}: {quote(text)} is not true or false")
                return text.lower() == "true"
            if self.kind == "combo":
                if text.lower() not in self.choices:
                    raise ValueError(f"{self.name}: {quote(text)} is not one of {', '.join(self.choices)}")
                return text.lower()
            return real(self.name, text, self.low, self.high)
        except ValueError as e:
            raise ProtocolError(f"setoption {e}") from None


@dataclass(frozen=True)
class GoLimits:
    """What one `go` asks: the search's limit (movetime and/or iterations, infinite, or
    DEFAULT_LIMIT) and its seed."""

    limit: Limit = DEFAULT_LIMIT
    seed: int = 0


_GO_RANGES = {"movetime": (1, MAX_MOVETIME_MS), "iterations": (1, MAX_ITERATIONS), "seed": (0, MAX_SEED)}


def parse_go(args: list[str]) -> GoLimits:
    """The limits of `go <args>`; ProtocolError names the bad limit and its range.

    >>> parse_go(["movetime", "200", "seed", "3"])
    GoLimits(limit=Limit(seconds=0.2, iterations=None, infinite=False), seed=3)
    >>> parse_go(["iterations", "99999999999999999999"])
    Traceback (most recent call last):
    ...
    solver.errors.ProtocolError: go iterations: 99999999999999999999 is out of range (1 to 1000000000)
    """
    limits: dict = {}
    i = 0
    while i < len(args):
        key = args[i]
        if key in limits:
            raise ProtocolError(f"go: {key} given twice")
        if key == "infinite":
            limits[key] = True
            i += 1
            continue
        if key not in _GO_RANGES:
            raise ProtocolError(f"go: unknown limit {quote(key)} (movetime, iterations, seed, infinite)")
        low, high = _GO_RANGES[key]
        if i + 1 >= len(args):
            raise ProtocolError(f"go {key}: needs a whole number ({low} to {high})")
        try:
            limits[key] = whole(f"go {key}", args[i + 1], low, high)
        except ValueError as e:
            raise ProtocolError(str(e)) from None
        i += 2
    if limits.get("infinite") and ("movetime" in limits or "iterations" in limits):
        raise ProtocolError("go: infinite cannot be combined with movetime or iterations")
    seed = limits.get("seed", 0)
    if limits.get("infinite"):
        return GoLimits(Limit(infinite=True), seed)
    if "movetime" in limits or "iterations" in limits:
        # the one place where the protocol's milliseconds become a Limit
        return GoLimits(Limit.from_ms(limits.get("movetime"), iterations=limits.get("iterations")), seed)
    return GoLimits(DEFAULT_LIMIT, seed)


@dataclass
class _Running:
    """The search in progress: its worker thread and the event that stops it."""

    thread: threading.Thread
    stop: threading.Event
    infinite: bool


class Engine:
    """One engine session; `handle(line)` answers one command, False once `quit` is read.

    `threads` is the starting value of the Threads option, and `config` (solver.solvers.searchconfig)
    the search's settings, whose policy and exploration are the starting values of the
    Policy and Exploration options; `exact_from` (seconds, default EXACT_MIN_SECONDS) is the
    shortest movetime at which a round-4 position is solved exactly rather than searched.
    """

    def __init__(self, out=None, threads: int = 1, config: SearchConfig = DEFAULT_CONFIG,
                 exact_from: float | None = None, ponder: bool = False):
        self.out = out if out is not None else sys.stdout
        self.exact_from = EXACT_MIN_SECONDS if exact_from is None else exact_from
        self.config = config
        self.options = {o.name.lower(): o for o in (
            Option("Threads", "spin", threads, 1, MAX_THREADS),
            Option("Hash", "spin", HASH_DEFAULT_MB, HASH_MIN_MB, HASH_MAX_MB),
            Option("Policy", "combo", config.policy, choices=tuple(POLICY_NAMES)),
            Option("Exploration", "string", config.exploration, 0.0, MAX_EXPLORATION),
            Option("Ponder", "check", ponder),
        )}
        self.settings = {o.name: o.default for o in self.options.values()}
        self.position: Position | None = None
        self.kept = KeptTree()  # the last search's trees, for a position that follows it
        self._write_lock = threading.Lock()
        self._running: _Running | None = None
        # The last worker thread, kept after it has answered: it may still be returning from
        # its final write, and the process must not exit under it (Python aborts when a daemon
        # thread holds stdout's lock at shutdown).
        self._worker: threading.Thread | None = None
        # Ends the pondering that follows the last `bestmove` (the Ponder option), if any.
        self._ponder_stop = threading.Event()
        self._commands = {"dn": self.cmd_dn, "isready": self.cmd_isready, "newgame": self.cmd_newgame,
                          "position": self.cmd_position, "go": self.cmd_go, "stop": self.cmd_stop,
                          "setoption": self.cmd_setoption}

    # Output: whole lines only, from either thread, under one lock.

    def send(self, *lines: str) -> None:
        """Write protocol lines together (no other line comes between them) and flush."""
        with self._write_lock:
            self._write(lines)

    def _write(self, lines) -> None:
        try:
            self.out.write("".join(line + "\n" for line in lines))
            self.out.flush()
        except (OSError, ValueError):  # the reader has gone: nothing left to tell it
            pass

    # Commands.

    @property
    def searching(self) -> bool:
        """True from `go` until its `bestmove` (or error) is written."""
        return self._running is not None

    def handle(self, line: str) -> bool:
        """Answer one command line; return False when the session should end."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command in ENDS_PONDERING:
            self._ponder_stop.set()
        if command == "quit":
            self._stop_search(wait=QUIT_WAIT_SECONDS)
            return False
        try:
            handler = self._commands.get(command)
            if handler is None:
                raise ProtocolError(f"unknown command {quote(command)}")
            handler(args, line)
        except DnoirError as e:  # PositionError, ProtocolError, MoveError...: the input's mistake
            self.send(f"error {error_text(str(e))}")
        except Exception as e:  # a bug must not end the session: one line, and the engine goes on
            self.send(f"error internal error ({type(e).__name__}: {error_text(str(e))})")
        return True

    def cmd_dn(self, args, line):
        """Identify the engine: `id name ...`, one `option` line per option, then `dnok`."""
        self.send(f"id name dnoir {__version__}", *(o.announce() for o in self.options.values()), "dnok")

    def cmd_isready(self, args, line):
        """Answer `readyok`, at once, searching or not."""
        self.send("readyok")

    def cmd_newgame(self, args, line):
        """Forget the position and the trees kept from the last search."""
        self.position = None
        self.kept.clear()

    def cmd_position(self, args, line):
        """Set the position for the next `go`; a rejected one leaves the engine with none."""
        self.position = None
        if not args:
            raise ProtocolError("position needs a DNP")
        pos = Position.parse(line.split(None, 1)[1].strip())
        if pos.is_over:
            raise ProtocolError("the game in this position is over")
        if pos.hands[pos.to_move] is None:
            raise ProtocolError("the side to move's own hand must be known")
        self.position = pos

    def cmd_setoption(self, args, line):
        """`setoption name <Name> value <v>`: set an option for the next `go`."""
        lowered = [a.lower() for a in args]
        if not args or lowered[0] != "name" or "value" not in lowered:
            raise ProtocolError("setoption: expected 'setoption name <Name> value <v>'")
        at = lowered.index("value")
        name = " ".join(args[1:at])
        option = self.options.get(name.lower())
        if option is None:
            known = ", ".join(o.name for o in self.options.values())
            raise ProtocolError(f"setoption: unknown option {quote(name)} ({known})")
        value = " ".join(args[at + 1:])
        if not value:
            raise ProtocolError(f"setoption {option.name}: needs a value")
        self.settings[option.name] = option.parse(value)

    def cmd_go(self, args, line):
        """Start a search of the position in a worker thread; it prints `info` lines, then `bestmove`."""
        start = time.perf_counter()
        running = self._running
        if running is not None and running.stop.is_set():
            # a stopped search answers within milliseconds (every loop checks its stop):
            # `stop` then `go` is the next search, not "busy"
            running.thread.join(STOPPED_WAIT_SECONDS)
        if self.searching:
            raise ProtocolError("busy: a search is running (send stop, or wait for its bestmove)")
        limits = parse_go(args)
        if self.position is None:
            raise ProtocolError("no position: send 'position <DNP>' first")
        self.wait()  # the previous worker has answered (and pondered); let it end before the next starts
        stop = threading.Event()
        self._ponder_stop = ponder_stop = threading.Event()
        thread = threading.Thread(target=self._search, name="dnoir-search", daemon=True,
                                  args=(self.position, limits, dict(self.settings), start, stop, ponder_stop))
        self._running = _Running(thread, stop, limits.limit.infinite)
        self._worker = thread
        thread.start()

    def cmd_stop(self, args, line):
        """End the running search at once: it answers `bestmove` with its best move so far.

        The main thread does not wait for that answer: it goes on reading commands.
        """
        running = self._running
        if running is not None:
            running.stop.set()

    # The search, in its worker thread.

    def _search(self, pos: Position, limits: GoLimits, settings: dict, start: float,
                stop: threading.Event, ponder_stop: threading.Event) -> None:
        try:
            asked = limit = limits.limit
            if asked.seconds is not None:  # what is left of movetime once the answer is allowed for
                left = start + asked.seconds - SAFETY_SECONDS - time.perf_counter()
                limit = replace(asked, seconds=max(MIN_SECONDS, left))
            exact = pos.round == ROUNDS and (asked.seconds is None or asked.seconds >= self.exact_from)
            max_nodes = min(MAX_NODES, max(MIN_NODES, settings["Hash"] * BYTES_PER_MB // NODE_BYTES))
            last_info = [start]

            def progress(search):
                now = time.perf_counter()
                if now - last_info[0] >= INFO_EVERY_SECONDS:
                    last_info[0] = now
                    top = search.ranked()[0]
                    self.send(f"info {_timing(start, search.iterations)} best {top.move} "
                              f"expected {top.expected:.4f} visits {top.visits}")

            advice = advise(pos, limit, threads=settings["Threads"],
                            seed=limits.seed, policy=settings["Policy"], exploration=settings["Exploration"],
                            max_nodes=max_nodes, exact=exact, on_progress=progress, stop=stop,
                            slice_seconds=SLICE_SECONDS, config=self.config, kept=self.kept)
            top = advice.moves[0]
            figures = f"best {top.move} expected {top.expected:.4f}"
            if top.margin is not None:
                figures += f" margin {top.margin:+.2f}"
            if advice.method == "equilibrium":
                figures += f" equilibrium exploitability {advice.exploitability:.1e}"
            if advice.exact:
                final = f"info {_timing(start, None)} exact {figures}"
            else:
                final = f"info {_timing(start, advice.iterations)} {figures}"
            if asked.infinite:  # the answer waits for `stop`, however soon the search ended
                self.send(final)
                stop.wait()
                final = None
        except Exception as e:  # memory for the node pool, a bug: one line, never a dead engine
            self._finish(f"error search failed: {error_text(str(e) or type(e).__name__)}")
            return
        self._finish(*(l for l in (final, f"bestmove {advice.best}") if l))
        if settings["Ponder"] and advice.method == Method.ISMCTS and self.config.reuse:
            # think on the opponent's time, below the move just given, until the next command
            try:
                self.kept.ponder(ponder_stop)
            except Exception as e:  # a bug: the move is answered, the next search starts anew
                self.kept.clear()
                self.send(f"info pondering failed: {error_text(str(e) or type(e).__name__)}")

    def _finish(self, *lines: str) -> None:
        # Idle again before the answer is visible, so a `go` sent on reading it is never "busy".
        with self._write_lock:
            self._running = None
            self._write(lines)

    def _stop_search(self, wait: float | None = None) -> None:
        running = self._running
        if running is not None:
            running.stop.set()
        self.wait(wait)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until the last search has answered and its thread ended (pondering is stopped);
        `go infinite` waits for `stop`."""
        self._ponder_stop.set()
        if self._worker is not None:
            self._worker.join(timeout)

    def run(self, stream) -> None:
        """Read commands from `stream` until `quit` or end of input.

        At the end of input a running search is finished (`go infinite` is stopped) and
        answered before returning.
        """
        try:
            for line in command_lines(stream):
                if isinstance(line, LineTooLong):
                    self.send(f"error line too long: over {MAX_LINE_BYTES} bytes, starting {quote(line.start)}")
                elif not self.handle(line):
                    return
            running = self._running
            if running is not None and running.infinite:
                running.stop.set()
            self.wait()
        finally:  # after an exception (Ctrl-C): stop the search, briefly wait for it
            self._stop_search(wait=1.0)


def _timing(start: float, iterations: int | None) -> str:
    elapsed = time.perf_counter() - start
    text = f"time {int(elapsed * MS_PER_SECOND)}"
    if iterations is not None:
        text += f" iterations {iterations} ips {int(iterations / elapsed) if elapsed > 0 else 0}"
    return text


@dataclass(frozen=True)
class LineTooLong:
    """A command line over MAX_LINE_BYTES, read to its end and dropped; `start` is its beginning."""

    start: str


def command_lines(stream):
    """The lines of `stream` (bytes decoded as UTF-8, bad bytes replaced), without reading a long
    line into memory: a line over MAX_LINE_BYTES is skipped to its end and yields LineTooLong.

    >>> import io
    >>> [type(x).__name__ for x in command_lines(io.StringIO("isready\\n" + "x" * 5000 + "\\nquit"))]
    ['str', 'LineTooLong', 'str']
    """
    source = getattr(stream, "buffer", stream)
    newline = b"\n" if isinstance(source.read(0), bytes) else "\n"
    while True:
        chunk = source.readline(MAX_LINE_BYTES + 1)
        if not chunk:
            return
        text = chunk.decode("utf-8", "replace") if isinstance(chunk, bytes) else chunk
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(newline):
            while True:
                rest = source.readline(1 << 16)
                if not rest or rest.endswith(newline):
                    break
            yield LineTooLong(text[:QUOTE_CHARS + 1])
        else:
            yield text
