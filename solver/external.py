"""External engines over the engine protocol, as bots (`cmd:<shell command>`).

The command is started once and kept: `newgame` between games, then for every move
`position <the engine's own view>` and `go movetime <ms>` (or `go iterations <n>`). An
engine that does not answer `bestmove` in time, dies, or answers a move that is not
legal raises `EngineFault`; the match runner scores that game as a loss for the engine
and logs the position.

>>> import sys
>>> bot = ExternalBot(f"{sys.executable} -I -m solver.cli engine", movetime_ms=50)
>>> pos = Position.random_deal(2)
>>> bot.choose(pos.view("ab"[pos.to_move])) in pos.legal_moves()
True
>>> bot.close()
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time

from .cards import CardError, Move
from .position import Position

# Time allowed beyond movetime before an engine is declared out of time: the protocol's
# 50 ms, plus room for a loaded machine and process start-up on the first move.
GRACE_SECONDS = 1.0
STARTUP_SECONDS = 30.0


class EngineFault(Exception):
    """The engine broke the protocol: `kind` is 'timeout', 'illegal' or 'crash'."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def check_engine(command: str) -> str:
    """Start the engine once, shake hands, stop it; return its name or raise EngineFault.

    A match calls this before its first game, so that a mistyped command is one clear
    error, not a lost game per pair.
    """
    bot = ExternalBot(command)
    try:
        bot.new_game()
        return bot.engine_name or command
    finally:
        bot.close()


class ExternalBot:
    """A protocol-speaking engine started from a shell command."""

    def __init__(self, command: str, movetime_ms: int | None = None, iterations: int | None = None,
                 seed: int = 0):
        self.command = command
        self.name = f"cmd:{command}"
        self.movetime_ms = movetime_ms if movetime_ms is not None or iterations is not None else 1000
        self.iterations = iterations
        self.seed = seed
        self.proc = None
        self.lines: queue.Queue = queue.Queue()
        self.engine_name = None

    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(shlex.split(self.command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except (OSError, ValueError) as e:
            raise EngineFault("crash", f"cannot start {self.command!r}: {e}") from None
        threading.Thread(target=self._reader, args=(self.proc, self.lines), daemon=True).start()
        self._send("dn")
        self.engine_name = self._wait_for("dnok", STARTUP_SECONDS, collect="id name ")
        self._send("isready")
        self._wait_for("readyok", STARTUP_SECONDS)

    @staticmethod
    def _reader(proc, lines) -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)  # end of output: the engine has exited

    def _send(self, line: str) -> None:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineFault("crash", f"the engine exited (sending {line!r})") from None

    def _wait_for(self, prefix: str, seconds: float, collect: str | None = None):
        """Read lines until one starts with `prefix`; returns it (or the last `collect` line seen)."""
        deadline = time.monotonic() + seconds
        found = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineFault("timeout", f"no '{prefix}' within {seconds:.2f} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise EngineFault("crash", f"the engine exited while we waited for '{prefix}'")
            if collect and line.startswith(collect):
                found = line[len(collect):]
            if line.startswith(prefix):
                return found if collect else line

    def new_game(self) -> None:
        """Tell the engine a new game starts (starting the engine if it is not running)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self._send("newgame")

    def choose(self, view: Position) -> Move:
        """Ask the engine for its move in `view`; EngineFault if it times out, dies or cheats."""
        if self.proc is None or self.proc.poll() is not None:
            self.new_game()
        self._send(f"position {view}")
        go = "go"
        if self.movetime_ms is not None:
            go += f" movetime {self.movetime_ms}"
        if self.iterations is not None:
            go += f" iterations {self.iterations}"
        self.seed += 1
        self._send(f"{go} seed {self.seed}")
        limit = (self.movetime_ms / 1000 if self.movetime_ms is not None else 60.0) + GRACE_SECONDS
        line = self._wait_for("bestmove", limit)
        token = line.split()[1] if len(line.split()) > 1 else ""
        try:
            move = Move.parse(token)
        except CardError:
            raise EngineFault("illegal", f"bestmove {token!r} is not a move") from None
        if move not in view.legal_moves():
            raise EngineFault("illegal", f"bestmove {token} is not legal in {view}")
        return move

    def close(self) -> None:
        """Send quit and stop the engine."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (EngineFault, subprocess.TimeoutExpired):
                self.proc.kill()
        self.proc = None
