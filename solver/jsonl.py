"""Result files that grow one line at a time and must survive being cut off mid-line.

Long runs append a line per finished game or result; an interruption can leave the last
line incomplete. Readers skip such a line (it is simply redone), and writers end it
before appending, so that it never swallows the next line.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write('{"id": 1}\\n{"id": 2')
>>> with open_append(path) as f:
...     _ = f.write('{"id": 3}\\n')
>>> [r["id"] for r in read_jsonl(path)]
[1, 3]
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable


def open_append(path: str, newline: str | None = None):
    """`path` opened for appending, after ending a last line that an interruption cut off."""
    cut = False
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            cut = f.read(1) != b"\n"
    stream = open(path, "a", newline=newline)
    if cut:
        stream.write("\n")
    return stream


def read_jsonl(path: str, on_bad_line: Callable[[int, str], None] | None = None,
               check: Callable[[dict], object] | None = None) -> list[dict]:
    """The JSON objects of a file, one a line; a missing file has none.

    A line that is not JSON, or that `check` rejects with ValueError, KeyError or
    TypeError, is passed to `on_bad_line(number, reason)` and skipped.
    """
    records = []
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    if check is not None:
                        check(record)
                    records.append(record)
                except (ValueError, KeyError, TypeError) as e:
                    if on_bad_line is not None:
                        on_bad_line(number, str(e))
    except FileNotFoundError:
        pass
    return records
