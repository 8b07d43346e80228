"""An opening book of round starts cut from recorded games, for `dnoir match --book`.

    python -m solver.bench.round_book GAMES.jsonl[.gz] --round 4 [--games N] [--first K] > BOOK.txt

For each game record (as `dnoir match --out` writes them, gzipped or not) that reaches round
--round, its full position at that round's first move (both hands, the deck and the removed
cards, all known to the record) is written, one DNP a line, in the records' order; games
that end before it (a third city) are skipped and counted on stderr. A match from a book of
round-4 starts measures round-4 play alone: every pair starts where a real game entered
round 4, and the noise of the rounds before it is gone (bench/STRENGTH.md, round 21). A record
that itself started from a book after the round's first move has no start of that round: its
first position is written if it is in the round.

>>> record = {"deal": "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a", "moves": "8 T 7 C 8"}
>>> [str(pos) for pos in round_starts([record], 4)]
['-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a']
>>> list(round_starts([record], 3))
[]
"""

from __future__ import annotations

import sys

from solver.bench.root_choice import OneLineParser, whole
from solver.bench.round4_loss import is_game_record, load_records
from solver.errors import DnoirError
from solver.rules.position import Position


def round_starts(records, round_number: int):
    """The full position at the first move of round `round_number` of each record that reaches it."""
    for record in records:
        pos = Position.parse(record["deal"])
        moves = iter(record["moves"].split())
        while not pos.is_over and pos.round < round_number and (move := next(moves, None)) is not None:
            pos = pos.play(move)
        if not pos.is_over and pos.round == round_number:
            yield pos


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.round_book", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", metavar="GAMES.jsonl[.gz]")
    parser.add_argument("--round", type=whole(1, 4), required=True, metavar="1..4")
    parser.add_argument("--games", type=whole(1, 100_000_000), default=100_000_000, metavar="1..100000000",
                        help="at most this many records [default: all]")
    parser.add_argument("--first", type=whole(0, 100_000_000), default=0, metavar="0..100000000")
    args = parser.parse_args(argv)
    records = load_records(parser, args.games_file, args.first, args.games, valid=is_game_record)
    written = 0
    try:
        for pos in round_starts(records, args.round):
            print(pos)
            written += 1
    except DnoirError as e:
        parser.error(f"{args.games_file}: {e}")
    except BrokenPipeError:  # a reader that stopped early (head): not an error of this tool
        sys.stderr.close()
        return
    print(f"{written} of {len(records)} games reached round {args.round}", file=sys.stderr)


if __name__ == "__main__":
    main()
