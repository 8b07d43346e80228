"""Result files that grow one line at a time and must survive being cut off mid-line.

Long runs append a line per finished game or result; an interruption can leave the last
line incomplete. Readers skip such a line (it is simply redone), and writers cut it off
before appending, so that the file holds only whole lines.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
>>> with open(path, "w") as f:
...     _ = f.write('{"id": 1}\\n{"id": 2')
>>> with open_append(path) as f:
...     _ = f.write('{"id": 3}\\n')
>>> [r["id"] for r in read_jsonl(path)]
[1, 3]
>>> open(path).read()
'{"id": 1}\\n{"id": 3}\\n'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from .errors import OutputFileError

_CHUNK = 1 << 16


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


def cut_torn_tail(path: str, is_whole: Callable[[bytes], bool] = _is_json) -> None:
    """Remove a last line that an interruption cut off (one without its newline).

    A last line without a newline that `is_whole` accepts (by default: it is complete
    JSON) is kept and ended instead. A missing file is left missing.
    """
    try:
        f = open(path, "r+b")
    except FileNotFoundError:
        return
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        # read back from the end, a chunk at a time, to the newline before the last line
        start, tail = size, b""
        while start > 0:
            step = min(_CHUNK, start)
            start -= step
            f.seek(start)
            tail = f.read(step) + tail
            newline = tail.rfind(b"\n")
            if newline >= 0:
                start += newline + 1
                tail = tail[newline + 1:]
                break
        if is_whole(tail):
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
        else:
            f.truncate(start)


def open_append(path: str, newline: str | None = None, is_whole: Callable[[bytes], bool] = _is_json):
    """`path` opened for appending, after cutting off a last line that an interruption tore (see cut_torn_tail).

    OutputFileError (a ValueError) when it cannot be written, e.g. its folder does not exist.
    """
    try:
        cut_torn_tail(path, is_whole)
        return open(path, "a", newline=newline, encoding="utf-8")
    except OSError as e:
        raise OutputFileError(f"cannot write {path}: {_why(path, e)}") from None


def _why(path: str, error: OSError) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"the folder {folder} does not exist"
    return error.strerror or str(error)


def read_lines(path: str):
    """(number, text) of every non-blank line of a file, each decoded alone.

    A line that is not valid UTF-8 comes as (number, None), so that one bad line does not
    end the reading. A missing file has none.
    """
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError:
                yield number, None


def read_jsonl(path: str, on_bad_line: Callable[[int, str], None] | None = None,
               check: Callable[[dict], object] | None = None) -> list[dict]:
    """The JSON objects of a file, one a line; a missing file has none.

    A line that is not UTF-8 or JSON, or that `check` rejects with ValueError, KeyError or
    TypeError, is passed to `on_bad_line(number, reason)` and skipped.
    """
    records = []
    for number, line in read_lines(path):
        try:
            if line is None:
                raise ValueError("not valid UTF-8")
            record = json.loads(line)
            if check is not None:
                check(record)
            records.append(record)
        except (ValueError, KeyError, TypeError) as e:
            if on_bad_line is not None:
                on_bad_line(number, str(e))
    return records
