"""External engines over the engine protocol, as bots (`cmd:<shell command>`).

The command is started once and kept: `newgame` and an `isready` sync between games,
then for every move `position <the engine's own view>` and `go movetime <ms>` (or
`go iterations <n>`). An engine that does not answer `bestmove` in time, dies, or
answers a move that is not legal raises `EngineFault`; the match runner scores that game
as a loss for the engine and logs the position.

A dead engine stays dead until it is restarted (as python-chess does): once its output
ends the bot reaps the process, and the next `new_game()` starts a fresh process with a
fresh line queue and reader thread. An engine that ran out of time is stopped at once
and restarted for the next game too, so a late `bestmove` can never be read as the
answer to a later position. Engines run in their own process group (Ctrl-C in a
terminal does not reach them: their runner stops them) and, on Linux, die with the
thread that started them, so none outlives the command that started it.

>>> import sys
>>> bot = ExternalBot(f"{sys.executable} -I -m solver.cli engine", limit=Limit(seconds=0.05))
>>> pos = Position.random_deal(2)
>>> bot.choose(pos.view("ab"[pos.to_move])) in pos.legal_moves()
True
>>> bot.close()
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from contextlib import contextmanager

from solver.agents.parallel import die_with_parent
from solver.base.bounds import MAX_SEED
from solver.rules.cards import CardError, Move
from solver.rules.position import Position
from solver.solvers.limit import Limit, stop_test

# Time allowed beyond movetime before an engine is declared out of time: the protocol's
# 50 ms, plus room for a loaded machine and process start-up on the first move.
GRACE_SECONDS = 1.0
# How often a move's wait looks at its `stop` (the protocol's `stop` answers within a slice).
STOP_POLL_SECONDS = 0.05
# An engine's budget when none is given; and how long a move on iterations alone may take.
DEFAULT_LIMIT = Limit(seconds=1.0)
ITERATIONS_WAIT_SECONDS = 60.0
# The handshake (`dn` ... `dnok`) of an engine starting: a few seconds, for a loaded machine.
STARTUP_SECONDS = 10.0
# How long `quit` may take before the engine is killed.
QUIT_SECONDS = 2.0

# Every engine process started and not yet stopped, so that a worker can stop them all
# when it ends (see close_all_engines).
_RUNNING: set["ExternalBot"] = set()


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


def close_all_engines() -> None:
    """Stop every engine this process started (`quit`, then kill): run when a worker ends."""
    for bot in list(_RUNNING):
        bot.close()


def _pump_lines(stream, lines: queue.Queue) -> None:
    """The reader thread of one engine process: its lines, then None at the end of its output."""
    try:
        for line in stream:
            lines.put(line.rstrip("\r\n"))
    except (OSError, ValueError):  # the stream was closed under us: the engine is being stopped
        pass
    finally:
        lines.put(None)


class ExternalBot:
    """A protocol-speaking engine started from a shell command, searching within `limit`
    a move (default DEFAULT_LIMIT; an infinite limit is refused: no answer would come)."""

    def __init__(self, command: str, limit: Limit | None = None, seed: int = 0):
        self.command = command
        self.name = f"cmd:{command}"
        self.limit = DEFAULT_LIMIT if limit is None else limit
        if self.limit.infinite:
            raise ValueError("an external engine needs a finite limit (movetime, iterations or both)")
        self.seed = seed & MAX_SEED  # the protocol's seeds are whole numbers up to MAX_SEED
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue | None = None
        self.engine_name = None

    # -- the process ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the engine process is started and has not been seen to end."""
        return self.proc is not None and self.proc.poll() is None

    def _start(self) -> None:
        """Start a fresh process, with its own line queue and reader thread, and shake hands."""
        self.kill()
        try:
            args = shlex.split(self.command)
        except ValueError as e:
            raise EngineFault("crash", f"cannot start {self.command!r}: {e}") from None
        # Die with the starting thread (Linux): only from the main thread, whose end is the
        # end of the process; elsewhere the engine still ends when its input closes.
        on_main_thread = threading.current_thread() is threading.main_thread()
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, encoding="utf-8", errors="replace", bufsize=1, start_new_session=True,
                preexec_fn=_engine_child_setup(os.getpid()) if on_main_thread else None)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            self.proc = None
            raise EngineFault("crash", f"cannot start {self.command!r}: {e}") from None
        _RUNNING.add(self)
        self.lines = queue.Queue()  # never the old queue: its lines belong to the old process
        threading.Thread(target=_pump_lines, args=(self.proc.stdout, self.lines), daemon=True,
                         name=f"engine {self.proc.pid} reader").start()
        self._send("dn")
        try:
            self.engine_name = self._wait_for("dnok", STARTUP_SECONDS, collect="id name ", handshake=True)
        except EngineFault as e:
            raise EngineFault(e.kind, f"{self.command[:60]!r} is not an engine speaking the protocol "
                                      f"(docs/protocol.md): {e.detail}") from None

    def _ended(self, doing: str) -> EngineFault:
        """The engine's output ended: reap it, and the fault to raise."""
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=QUIT_SECONDS)
            except subprocess.TimeoutExpired:  # closed its output but still runs
                pass
        self.kill()
        how = f"the engine exited (code {code})" if code is not None else "the engine closed its output"
        return EngineFault("crash", f"{how} {doing}")

    def kill(self) -> None:
        """Kill the engine's process group at once and reap it; the next game restarts it."""
        proc, self.proc = self.proc, None
        _RUNNING.discard(self)
        if proc is None:
            return
        try:  # the whole group: a wrapper's children too (its id is not reused while any lives)
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL is not refused
            pass

    def close(self) -> None:
        """Send quit and wait a little for the engine to exit; kill it if it does not."""
        if self.running:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=QUIT_SECONDS)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()

    # -- talking ---------------------------------------------------------------------

    def _send(self, line: str) -> None:
        if self.proc is None:
            raise EngineFault("crash", f"the engine is not running (sending {line.split()[0]!r})")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._ended(f"(sending {line.split()[0]!r})") from None

    def _wait_for(self, prefix: str, seconds: float, collect: str | None = None, handshake: bool = False,
                  stop=None):
        """Read lines until one starts with `prefix`; returns it (or the last `collect` line seen).

        Out of time, the engine is killed (its late lines must not answer a later
        question) and a 'timeout' fault raised; at the end of its output, a 'crash'. An
        `error` line while waiting for `bestmove` means the engine refused the question:
        an 'illegal' fault at once, rather than a timeout a minute later. `stop` (a callable
        or a `threading.Event`), looked at every STOP_POLL_SECONDS: once it is set, the
        engine is sent `stop` and has GRACE_SECONDS to answer with its best move so far.
        """
        deadline = time.monotonic() + seconds
        found = None
        if stop is not None:
            stop = stop_test(stop)
        while True:
            if stop is not None and stop():
                self._send("stop")
                deadline = min(deadline, time.monotonic() + GRACE_SECONDS)
                stop = None
            left = deadline - time.monotonic()
            if left <= 0:
                if self.proc is not None and self.proc.poll() is not None:
                    # it exited on its own, and its end of output is not read yet: a crash
                    raise self._ended(f"while we waited for '{prefix}'")
                self.kill()
                raise EngineFault("timeout", f"no '{prefix}' within {seconds:.2f} s")
            try:
                line = self.lines.get(timeout=left if stop is None else min(left, STOP_POLL_SECONDS))
            except queue.Empty:
                continue
            if line is None:
                raise self._ended(f"while we waited for '{prefix}'")
            if handshake and line.strip() == "dn":  # `cat` and the like: our own words back
                self.kill()
                raise EngineFault("crash", "it echoes its input ('dn' answered with 'dn')")
            if collect and line.startswith(collect):
                found = line[len(collect):]
            if prefix == "bestmove" and line.split(None, 1)[:1] == ["error"]:
                self.kill()  # its state is unknown: the next game starts a fresh one
                raise EngineFault("illegal", f"the engine answered {line[:80]!r} instead of a move")
            if line.split(None, 1)[:1] == [prefix]:
                return found if collect else line

    def _discard_pending(self) -> None:
        """Drop lines already read and not asked for (e.g. `info` after `bestmove`)."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                raise self._ended("between moves")

    def new_game(self) -> None:
        """Start a new game: restart the engine if it is not running, then sync with `isready`.

        An engine found dead at this point (it exited after its last move) is restarted
        once; a restart whose handshake fails raises EngineFault, which costs the caller
        this game only.
        """
        if self.running:
            try:
                self._send("newgame")
                self._send("isready")
                self._wait_for("readyok", STARTUP_SECONDS)  # also drops every line left over
                return
            except EngineFault as e:
                if e.kind != "crash":
                    raise
        self._start()
        self._send("newgame")
        self._send("isready")
        self._wait_for("readyok", STARTUP_SECONDS)

    @contextmanager
    def pondering(self):
        """The bots' interface (solver.agents.bots.Bot.pondering): nothing here, since an engine
        ponders by itself when its Ponder option is on (it searches until the next command)."""
        yield

    def choose(self, view: Position, *, stop=None) -> Move:
        """Ask the engine for its move in `view`; EngineFault if it times out, dies or cheats.

        `stop` (a callable or a `threading.Event`): once set, the engine is told to `stop`
        and its best move so far is the answer (the web board's player went away)."""
        if not self.running:
            self.new_game()
        self._discard_pending()
        self._send(f"position {view}")
        go = "go"
        if self.limit.seconds is not None:
            go += f" movetime {self.limit.ms}"
        if self.limit.iterations is not None:
            go += f" iterations {self.limit.iterations}"
        self.seed = (self.seed + 1) & MAX_SEED
        self._send(f"{go} seed {self.seed}")
        allowed = self.limit.seconds if self.limit.seconds is not None else ITERATIONS_WAIT_SECONDS
        line = self._wait_for("bestmove", allowed + GRACE_SECONDS, stop=stop)
        token = line.split()[1] if len(line.split()) > 1 else ""
        try:
            move = Move.parse(token)
        except CardError:
            raise EngineFault("illegal", f"bestmove {token[:40]!r} is not a move") from None
        if move not in view.legal_moves():
            raise EngineFault("illegal", f"bestmove {token} is not legal in {view}")
        return move


def _engine_child_setup(parent_pid: int):
    """The function run in a new engine process before it starts: die with its parent."""
    def setup():
        die_with_parent(signal.SIGKILL, parent_pid)
    return setup
