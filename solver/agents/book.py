"""Opening books: the positions a match's pairs start from instead of fresh deals.

A book is a text file of full positions in DNP (docs/notation.md), one a line: every hidden
card given (both hands, the deck and the removed cards), the game not over. Blank lines and
lines starting with `#` are skipped. Pair k of a match starts from the book's position
k mod N (N positions), played twice with the seats swapped as a fresh deal is, so a book of
round-4 starts measures round-4 play alone, without the noise of the rounds before it (as
fishtest's opening books spare a test the noise of the openings). Records name the book by
its `digest`, and a match resumes only with the same book.

>>> deal = "85 67+2+3-1/556-2C ./. 1 b - -1-27-388577-28CC+25-2888+46-1+267786+2+3 67-3"
>>> book = parse_book(["# one start", "", deal], "b.txt")
>>> len(book.positions), str(book.start(0)) == deal, book.start(0) == book.start(1), book.digest
(1, True, True, '62dfd948ff5e9459')
>>> parse_book(["68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"], "b.txt")
Traceback (most recent call last):
solver.errors.BookError: b.txt line 1: not a full position (both hands, the deck and the removed cards are needed to play it)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from solver.base.jsonl import utf8_problem
from solver.errors import BookError, DnoirError
from solver.rules.position import Position

# The most positions a book may hold: far more than any match plays pairs, and a bound on memory.
MAX_BOOK_POSITIONS = 1_000_000
# The longest line a book may have, in bytes: a position is under 200 characters, so a longer
# line is no position, and reading stops there (a book of /dev/zero is refused, not read forever).
MAX_BOOK_LINE_BYTES = 4096


@dataclass(frozen=True)
class Book:
    """The positions of a book, in file order, and the digest that names it in game records."""

    positions: tuple[Position, ...]
    digest: str  # the first 16 hex digits of the SHA-256 of the positions' DNP, one a line

    def start(self, pair: int) -> Position:
        """The position pair `pair` starts from."""
        return self.positions[pair % len(self.positions)]


def parse_book(lines: Iterable[str], name: str) -> Book:
    """The book of these lines (`name`, the file's, for messages); BookError for a line that is
    not a full position of an unfinished game, for a book with none, or one with too many."""
    positions = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            pos = Position.parse(text)
        except DnoirError as e:
            raise BookError(f"{name} line {number}: {e}") from None
        if not pos.is_full:
            raise BookError(f"{name} line {number}: not a full position (both hands, the deck and "
                            f"the removed cards are needed to play it)")
        if pos.is_over:
            raise BookError(f"{name} line {number}: the game is over")
        positions.append(pos)
        if len(positions) > MAX_BOOK_POSITIONS:
            raise BookError(f"{name}: more than {MAX_BOOK_POSITIONS} positions")
    if not positions:
        raise BookError(f"{name}: no position (one full DNP a line; blank lines and # comments are skipped)")
    canonical = "".join(f"{pos}\n" for pos in positions)
    return Book(tuple(positions), hashlib.sha256(canonical.encode()).hexdigest()[:16])


def read_book(path: str) -> Book:
    """The book in the file at `path`; BookError for a file that cannot be read or used."""
    try:
        with open(path, "rb") as f:
            return parse_book(_text_lines(f, path), path)
    except OSError as e:
        raise BookError(f"{path}: cannot be read ({e.strerror or e})") from None


def _text_lines(f, name: str):
    """The lines of a binary file as text; BookError at a line too long or not UTF-8 (a byte
    order mark before the first line is allowed, as editors write one)."""
    number = 0
    while True:
        chunk = f.readline(MAX_BOOK_LINE_BYTES + 1)
        if not chunk:
            return
        number += 1
        if len(chunk) > MAX_BOOK_LINE_BYTES:
            raise BookError(f"{name} line {number}: longer than {MAX_BOOK_LINE_BYTES:,} bytes (not a position)")
        try:
            yield chunk.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as e:
            raise BookError(f"{name} line {number}: {utf8_problem(e)}") from None
