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
import re
import stat
from collections.abc import Callable

from solver.errors import OutputFileError

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


class OutputLock:
    """An exclusive lock on an output file for as long as a run writes it (`with` or `release`).

    Only a regular file is locked (two runs may well both write to /dev/null or a pipe);
    the file is created if missing, and removed again on release if this run created it
    and wrote nothing. A second run that wants the same file is refused at once with
    OutputFileError, before it reads or writes anything: two writers would write every
    result twice.
    """

    def __init__(self, path: str):
        import fcntl

        self.path = path
        self.created = not os.path.exists(path)
        self._fd = None
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as e:
            raise OutputFileError(f"cannot write {path}: {_why(path, e)}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            self.created = False
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OutputFileError(f"{path} is being written by another dnoir run: wait for it to end, "
                                  "or choose another output") from None
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (and of a file this run created and left empty)."""
        if self._fd is None:
            return
        try:
            if self.created and os.fstat(self._fd).st_size == 0:
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False


def write_error(path: str, error: OSError) -> OutputFileError:
    """The input-mistake form of a failed write to `path` (a full disk, a closed device)."""
    return OutputFileError(f"cannot write {path}: {error.strerror or error}; everything before it is kept")


def replace_file(path: str, text: str) -> None:
    """Make `text` the whole content of `path`, never destroying what the path does not own.

    A regular file (or a new one) is replaced in one step: written beside it, then renamed
    over it, so that a crash leaves the old content; a symlink is followed (the file it
    points to is replaced, the link stays); anything else (a device such as /dev/null, a
    pipe) is written to as it is, never replaced by a regular file. OSError on failure.
    """
    import tempfile

    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        return
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=os.path.basename(target) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            if st is not None:
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            else:  # what open() would have made, under the umask
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(f.fileno(), 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _why(path: str, error: OSError) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"the folder {folder} does not exist"
    return error.strerror or str(error)


# The one reader of JSON lines (game records, saved games, analyse input and results):
# every line is read alone, with a cap on its length that holds before it is in memory,
# decoded alone (invalid UTF-8 is that line's problem) and parsed with a cap on nesting, so
# that no file, whatever its bytes, is more than a bad line with its number and reason.

# The longest line a reader takes: a game record is under 2 KB and a saved game with its
# history under 20 KB; a line of a megabyte is not one.
MAX_LINE_BYTES = 1_000_000
# The deepest nesting of arrays and objects a reader takes (a record nests 3 deep).
MAX_DEPTH = 32

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def loads(text: str):
    """`json.loads(text)`, refusing JSON nested deeper than MAX_DEPTH; ValueError says why.

    >>> loads('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> loads("[" * 100000)
    Traceback (most recent call last):
    ...
    ValueError: nested deeper than 32 levels
    >>> loads('{"a": ')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: not valid JSON (Expecting value: line 1 column 7 (char 6))
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:  # only then can it be too deep
        depth = deepest = 0
        for bracket in _BRACKETS.findall(_STRING.sub("", text)):
            depth += 1 if bracket in "[{" else -1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except RecursionError:  # not reached after the check above; kept as the last guard
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None


def utf8_problem(error: UnicodeDecodeError) -> str:
    """The reason for a line that is not UTF-8, naming the first bad byte and its column."""
    return f"not valid UTF-8 (byte {error.object[error.start]:#04x} at column {error.start + 1})"


def read_line(stream, cap: int = MAX_LINE_BYTES) -> tuple[str | None, str | None]:
    """One line of `stream` (bytes or text; a text stream is read through its byte buffer when
    it has one): (text, None), (None, reason) for a line too long (skipped to its end without
    keeping it) or not UTF-8, or ('', None) at the end of input.
    """
    source = getattr(stream, "buffer", stream)
    chunk = source.readline(cap + 1)
    if not chunk:
        return "", None
    newline = b"\n" if isinstance(chunk, bytes) else "\n"
    if len(chunk) > cap and not chunk.endswith(newline):
        while True:
            rest = source.readline(1 << 16)
            if not rest or rest.endswith(newline):
                break
        return None, f"longer than {cap:,} bytes"
    if isinstance(chunk, bytes):
        try:
            return chunk.decode("utf-8"), None
        except UnicodeDecodeError as e:
            return None, utf8_problem(e)
    return chunk, None


def stream_lines(stream, cap: int = MAX_LINE_BYTES):
    """(number, text, problem) of every line of `stream` (see `read_line`); text is None when
    `problem` names what is wrong with the line."""
    if not hasattr(getattr(stream, "buffer", stream), "readline"):  # an iterable of lines
        for number, chunk in enumerate(stream, 1):
            if len(chunk) > cap:
                yield number, None, f"longer than {cap:,} bytes"
            elif isinstance(chunk, bytes):
                try:
                    yield number, chunk.decode("utf-8"), None
                except UnicodeDecodeError as e:
                    yield number, None, utf8_problem(e)
            else:
                yield number, chunk, None
        return
    number = 0
    while True:
        text, problem = read_line(stream, cap)
        if text == "" and problem is None:
            return
        number += 1
        yield number, text, problem


def file_lines(path: str, cap: int = MAX_LINE_BYTES):
    """(number, text, problem) of every non-blank line of a file (see `stream_lines`); a missing
    file has none. OSError for a file that exists but cannot be read."""
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        return
    with f:
        for number, text, problem in stream_lines(f, cap):
            if text is not None and not text.strip():
                continue
            yield number, text, problem


def records(path: str, cap: int = MAX_LINE_BYTES):
    """(number, value, problem) of every non-blank line of a JSON-lines file: `value` is the
    line's JSON, or None with `problem` saying why it is not (too long, not UTF-8, not JSON,
    nested too deep). A missing file has none.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b'{"id": 1}\\n\\xff\\n' + b"[" * 100 + b"\\n")
    >>> for line in records(path):
    ...     print(line)
    (1, {'id': 1}, None)
    (2, None, 'not valid UTF-8 (byte 0xff at column 1)')
    (3, None, 'nested deeper than 32 levels')
    """
    for number, text, problem in file_lines(path, cap):
        if problem is None:
            try:
                yield number, loads(text), None
                continue
            except ValueError as e:
                problem = str(e)
        yield number, None, problem


def read_jsonl(path: str, on_bad_line: Callable[[int, str], None] | None = None,
               check: Callable[[dict], object] | None = None) -> list[dict]:
    """The JSON objects of a file, one a line; a missing file has none.

    A line that is not UTF-8 or JSON (see `records`), or that `check` rejects with
    ValueError, KeyError or TypeError, is passed to `on_bad_line(number, reason)` and skipped.
    """
    out = []
    for number, record, problem in records(path):
        try:
            if problem is not None:
                raise ValueError(problem)
            if check is not None:
                check(record)
            out.append(record)
        except (ValueError, KeyError, TypeError) as e:
            if on_bad_line is not None:
                on_bad_line(number, str(e))
    return out
