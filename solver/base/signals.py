"""SIGTERM handled as Ctrl-C, so that a long run stopped by `kill` (or by a CI's time limit)
ends as after Ctrl-C: cleanly, with what it finished kept and its worker processes stopped."""

from __future__ import annotations

import signal
import threading


def sigterm_as_ctrl_c() -> None:
    """From now on SIGTERM raises KeyboardInterrupt in the main thread (no-op elsewhere, and
    over a handler the caller has set itself)."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, interrupt)
