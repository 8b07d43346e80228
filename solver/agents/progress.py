"""Progress of long runs on stderr: a live bar on a terminal, a line every few seconds otherwise.

Matches, tournaments, batch analysis and benchmarks can run for hours, often with stderr
going to a log file or a CI console. On a terminal the progress is one line redrawn in
place; anywhere else a full line is printed at most every `every` seconds (and once at
the end), in the manner of cutechess-cli, so a log shows how far the run got and how
fast it went without being flooded.

>>> import io
>>> out = io.StringIO()
>>> with Progress(total=4, label="games", stream=out, every=0) as p:
...     for _ in range(4):
...         p.advance(note="A scores 0.500")
>>> print(out.getvalue().splitlines()[-1])
games 4/4 (100%)  ... /s  A scores 0.500
"""

from __future__ import annotations

import sys
import time

DEFAULT_EVERY_SECONDS = 5.0


class Progress:
    """Counts finished items and reports `done/total (percent)  rate/s  note` on `stream`.

    The first report comes only after something finished, so a run that fails at once
    (a bad argument, an unreachable cluster) prints nothing but its error.
    """

    def __init__(self, total: int | None, label: str, stream=None, every: float = DEFAULT_EVERY_SECONDS,
                 live: bool | None = None):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.live = self.stream.isatty() if live is None else live
        self.done = 0
        self.note = ""
        self.started = time.perf_counter()
        self.last_report = None
        self.reported = 0

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def advance(self, n: int = 1, note: str | None = None) -> None:
        """Count `n` more finished items; `note` (the score so far, say) replaces the last one."""
        self.done += n
        if note is not None:
            self.note = note
        now = time.perf_counter()
        if self.live or self.last_report is None or now - self.last_report >= self.every:
            self._report(now)

    def line(self) -> str:
        """The progress as one line of text."""
        seconds = time.perf_counter() - self.started
        rate = self.done / seconds if seconds > 0 else 0.0
        if self.total:
            count = f"{self.done}/{self.total} ({self.done / self.total:.0%})"
        else:
            count = str(self.done)
        text = f"{self.label} {count}  {rate:,.2f} /s"
        return f"{text}  {self.note}" if self.note else text

    def _report(self, now: float) -> None:
        self.last_report = now
        self.reported = self.done
        if self.live:
            self.stream.write("\r\x1b[2K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Report the final count once (nothing if nothing finished) and end a live line."""
        if self.done == 0:
            return
        if self.live:
            self.stream.write("\r\x1b[2K" + self.line() + "\n")
        elif self.reported != self.done:
            self.stream.write(self.line() + "\n")
        self.stream.flush()
