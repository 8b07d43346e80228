"""Running an analysis over a file (`dnoir analyse`): plan, solve in parallel, write as results come.

Bad lines are reported with their number and reason and the rest still runs; identical
positions are solved once; the hardest items (most cards in hand) start first, to cut the
tail; every result is written the moment it is ready; the ids already in the output are
skipped, so an interrupted run resumes where it stopped.

Ids are strings or integers, unique in the input, compared by their JSON text (`1` and
`"1"` are two ids). Every result carries the settings that shape it (`analyse`: format
version, output format, mark thresholds, the largest game graded against the equilibrium);
a run refuses to resume into output written
with other settings. A CSV result of several rows counts as done only when all of them
(`row` 1 to `of`) are in the file; the rows of one cut short are removed and redone.

>>> import io
>>> bad = []
>>> items = read_items(io.StringIO("not a position\\n\\n# a comment\\n"), lambda n, why: bad.append(n))
>>> items, bad
([], [1])
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial

from solver.agents.parallel import run_tasks
from solver.analysis.exact import (
    BLUNDER,
    DEFAULT_EQUILIBRIUM_NODES,
    MISTAKE,
    Item,
    ItemError,
    analyse_item,
    id_key,
    parse_item,
)
from solver.base.jsonl import OutputFileError, open_append, records, stream_lines
from solver.errors import OutputMismatch
from solver.rules.notation import PositionError
from solver.rules.position import Position

# The version of the results' form; raise it whenever a change makes results differ, so
# that a run never resumes into output written the old way.
# 2: equilibrium grading (`method`, `equilibrium`, the `equilibrium_nodes` setting)
FORMAT_VERSION = 2

# The first columns are those of the first CSV form; later ones are only ever added.
CSV_COLUMNS = ["id", "type", "line", "skipped", "ply", "player", "dnp", "mode", "best", "move", "played",
               "expected", "win", "draw", "loss", "margin", "open_outcome", "open_margin", "method", "frequency",
               "equilibrium_expected", "expected_loss", "mark", "id_json", "row", "of", "analyse"]


def read_items(stream, on_bad_line) -> list[Item]:
    """Items of an input stream; `on_bad_line(number, reason)` for each line that is not one.

    The stream may give bytes (each line is decoded alone, so one line of invalid UTF-8
    is one bad line) or text. An id given twice is a bad line at its second use.
    """
    items = []
    seen: dict[str, int] = {}
    for number, text, problem in stream_lines(stream):  # each line capped and decoded alone
        if problem is not None:
            on_bad_line(number, problem)
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            item = parse_item(text, number)
        except (ItemError, PositionError) as e:
            on_bad_line(number, str(e))
            continue
        key = id_key(item.id)
        if key in seen:
            on_bad_line(number, f"id {key:.80} is already the id of line {seen[key]}")
            continue
        seen[key] = number
        items.append(item)
    return items


def item_key(item: Item) -> tuple:
    """Items with the same key have the same analysis (the same position, or the same game)."""
    if item.kind == "position":
        return ("position", str(Position.parse(item.data)))
    return ("game", item.data["deal"], item.data["moves"])


def settings(as_csv: bool, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> dict:
    """What shapes the results of a run, stored with each of them: resume only into the same.

    >>> settings(as_csv=False)
    {'version': 2, 'format': 'jsonl', 'blunder': '1/4', 'mistake': '1/10', 'equilibrium_nodes': 300000}
    """
    return dict(version=FORMAT_VERSION, format="csv" if as_csv else "jsonl", blunder=str(BLUNDER),
                mistake=str(MISTAKE), equilibrium_nodes=equilibrium_nodes)


@dataclass
class Previous:
    """What an earlier run left in the output: ids done (see id_key), its JSONL results, and
    for CSV the bytes to keep (the rest is a cut row or a result cut short)."""

    done: set[str] = field(default_factory=set)
    results: list[dict] = field(default_factory=list)
    keep: int | None = None


def existing_results(path: str, as_csv: bool, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> Previous:
    """What an earlier run wrote to `path`; OutputMismatch if it was written with other settings.

    A line cut by an interruption (and, in CSV, a result not all of whose rows are there)
    does not count: its item is analysed again.
    """
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return Previous(keep=0)
    with open(path, "rb") as f:
        start = f.read(1)
    if as_csv and start == b"{":
        raise OutputMismatch(f"{path} holds JSONL results: resume it without --csv, or choose another --out")
    if not as_csv and start != b"{":
        raise OutputMismatch(f"{path} does not hold JSONL results of dnoir analyse (CSV? add --csv), "
                             "so it is not resumed: choose another --out")
    expected = settings(as_csv, equilibrium_nodes)
    return _csv_results(path, expected) if as_csv else _jsonl_results(path, expected)


def _jsonl_results(path: str, expected: dict) -> Previous:
    previous = Previous()
    for number, result, problem in records(path):
        if problem is not None:
            continue  # cut by an interruption (or not UTF-8, not JSON): redone
        if not isinstance(result, dict):
            continue
        if result.get("analyse") != expected:
            raise OutputMismatch(_mismatch(path, number, result.get("analyse"), expected))
        if isinstance(result.get("id"), bool) or not isinstance(result.get("id"), (str, int)):
            continue
        key = id_key(result["id"])
        if key in previous.done:
            continue  # written twice (two runs at once, before outputs were locked): counted once
        previous.done.add(key)
        previous.results.append(result)
    return previous


def _csv_results(path: str, expected_settings: dict) -> Previous:
    expected = json.dumps(expected_settings)
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    stream = io.StringIO(text, newline="")
    reader = csv.reader(stream)
    previous = Previous(keep=0)
    header = next(reader, None)
    if not text[:stream.tell()].endswith("\n"):
        return previous  # only a cut header: start afresh
    if header != CSV_COLUMNS:
        raise OutputMismatch(f"{path} does not have the columns of this version's dnoir analyse --csv, so it is "
                             "not resumed: choose another --out")
    keep = stream.tell()
    column = {name: i for i, name in enumerate(CSV_COLUMNS)}
    run = (None, 0)  # (id_json, rows in a row so far) of the result being read
    for number, row in enumerate(reader, 2):
        end = stream.tell()
        if text[end - 1] != "\n" or len(row) != len(CSV_COLUMNS):
            run = (None, 0)
            continue  # a row cut by an interruption
        if row[column["analyse"]] != expected:
            raise OutputMismatch(_mismatch(path, number, row[column["analyse"]], expected))
        ident, index, of = row[column["id_json"]], row[column["row"]], row[column["of"]]
        run = (ident, 1) if index == "1" else (ident, run[1] + 1) if run[0] == ident else (None, 0)
        if run[0] is not None and str(run[1]) == index == of:  # rows 1 to `of` of one result, in order
            previous.done.add(ident)
            keep = end
    previous.keep = len(text[:keep].encode("utf-8", "surrogateescape"))
    return previous


def _mismatch(path: str, number: int, found, expected) -> str:
    if not found:
        return (f"{path} line {number} has no analyse settings (an older dnoir, or not dnoir analyse), "
                "so it is not resumed: choose another --out")
    return (f"{path} was written with other settings ({found} at line {number}, this run: {expected}), "
            "so it is not resumed: choose another --out")


@dataclass
class Plan:
    """Unique work, hardest first, and for each unique item the input items that share it."""

    tasks: list[Item]
    copies: dict[tuple, list[Item]]
    skipped_done: int


def make_plan(items: list[Item], done: set[str]) -> Plan:
    """The plan for `items` less those whose id is in `done` (by id_key): one task per distinct analysis."""
    copies: dict[tuple, list[Item]] = {}
    skipped_done = 0
    for item in items:
        if id_key(item.id) in done:
            skipped_done += 1
            continue
        copies.setdefault(item_key(item), []).append(item)
    tasks = sorted((group[0] for group in copies.values()), key=lambda it: -it.work)
    return Plan(tasks=tasks, copies=copies, skipped_done=skipped_done)


@dataclass
class Summary:
    """What a run did: items analysed and skipped (and why), outcomes, mistakes, speed."""

    analysed: int = 0
    skipped: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    expected_outcomes: Counter = field(default_factory=Counter)
    mistakes: int = 0
    blunders: int = 0
    bad_lines: int = 0
    already_done: int = 0
    players: dict = field(default_factory=dict)
    methods: Counter = field(default_factory=Counter)  # decisions graded by each method
    started: float = field(default_factory=time.perf_counter)

    def add(self, result: dict, fresh: bool = True) -> None:
        """Count one result; `fresh` False for one an earlier, interrupted run wrote."""
        if "skipped" in result:
            self.skipped[result["skipped"]] += 1
            return
        self.analysed += fresh
        if result["type"] == "position":
            if "open" in result:
                self.outcomes[result["open"]["outcome"]] += 1
            best = result["moves"][0]
            for outcome in ("win", "draw", "loss"):
                self.expected_outcomes[outcome] += best[outcome]
            return
        self.methods.update(d.get("method", "view") for d in result["decisions"])
        players = result.get("players") or {}
        for seat, s in result["summary"].items():
            self.mistakes += s["mistakes"]
            self.blunders += s["blunders"]
            name = players.get(seat, seat) if isinstance(players, dict) else seat
            acc = self.players.setdefault(name, Counter())
            acc.update(dict(decisions=s["decisions"], mistakes=s["mistakes"], blunders=s["blunders"]))
            acc["expected_loss"] += s["expected_loss"]

    def lines(self) -> list[str]:
        """The summary as the lines `dnoir analyse` prints at the end."""
        seconds = time.perf_counter() - self.started
        rate = self.analysed / seconds if seconds > 0 else 0.0
        out = [f"analysed {self.analysed} items in {seconds:.2f} s ({rate:.1f} items/s)"]
        if self.already_done:
            out.append(f"already in the output (resumed): {self.already_done}; the figures below count them too")
        for reason, n in sorted(self.skipped.items()):
            out.append(f"skipped {n}: {reason}")
        if self.bad_lines:
            out.append(f"bad lines: {self.bad_lines}")
        if self.outcomes:
            out.append("side to move with both hands known, under perfect play: "
                       f"wins {self.outcomes['win']}, draws {self.outcomes['draw']}, losses {self.outcomes['loss']}")
        if self.expected_outcomes:
            e = self.expected_outcomes
            out.append("side to move playing the best move, from its own view (expected counts): "
                       f"wins {e['win']:.1f}, draws {e['draw']:.1f}, losses {e['loss']:.1f}")
        out.append(f"game decisions: mistakes (?) {self.mistakes}, blunders (??) {self.blunders}; graded against "
                   f"the equilibrium {self.methods['equilibrium']}, the one-player view {self.methods['view']}")
        for name, acc in sorted(self.players.items()):
            out.append(f"  {name}: {acc['decisions']} round-4 decisions, {acc['mistakes']} ?, {acc['blunders']} ??, "
                       f"expected score lost {acc['expected_loss']:.3f}")
        return out


def result_for(item: Item, result: dict) -> dict:
    """A unique item's result, given the id and line of `item` (a duplicate shares the analysis)."""
    return dict(result, id=item.id, line=item.line)


def csv_rows(result: dict, run_settings: dict | None = None) -> list[dict]:
    """A result as CSV rows: one per move of a position, one per decision of a game (one if it has none).

    Each row says which it is (`row` of `of`), so that a resume can tell a result cut short
    by an interruption; `id_json` keeps the id's type (1 or "1"), `analyse` the settings
    (`run_settings`, by default those of `settings(as_csv=True)`). A position's rows give each
    move's equilibrium `frequency` and `equilibrium_expected` when it has one; a decision's
    row says how it was graded (`method`).
    """
    base = dict(id=result["id"], type=result["type"], line=result["line"])
    if "skipped" in result:
        rows = [dict(base, skipped=result["skipped"], dnp=result.get("dnp", ""))]
    elif result["type"] == "position":
        open_moves = {m["move"]: m for m in result.get("open", {}).get("moves", [])}
        eq_moves = {m["move"]: m for m in (result.get("equilibrium") or {}).get("moves", [])}
        rows = [dict(base, dnp=result["dnp"], mode=result["mode"], best=result["best"], move=m["move"],
                     expected=m["expected"], win=m["win"], draw=m["draw"], loss=m["loss"], margin=m["margin"],
                     open_outcome=open_moves.get(m["move"], {}).get("outcome", ""),
                     open_margin=open_moves.get(m["move"], {}).get("margin", ""),
                     method=result.get("method", "view"),
                     frequency=eq_moves.get(m["move"], {}).get("frequency", ""),
                     equilibrium_expected=eq_moves.get(m["move"], {}).get("expected", ""))
                for m in result["moves"]]
    else:
        rows = [dict(base, ply=d["ply"], player=d["player"], dnp=d["dnp"], best=d["best"], played=d["played"],
                     move=d["played"], expected=d["expected_played"], expected_loss=d["loss"], mark=d["mark"],
                     method=d["method"])
                for d in result["decisions"]] or [dict(base)]  # a game with no round-4 decision: still done
    settings_text = json.dumps(run_settings if run_settings is not None else settings(as_csv=True))
    for number, row in enumerate(rows, 1):
        row.update(id_json=id_key(result["id"]), row=number, of=len(rows), analyse=settings_text)
    return rows


class Writer:
    """Appends results to OUT (or a stream such as standard output) as JSONL or CSV, flushing each one.

    Before appending to OUT it cuts off what an interrupted run left unfinished: a torn
    last line, and for CSV the rows of a result cut short (`keep`: the bytes to keep, as
    existing_results found them).
    """

    def __init__(self, path: str | None, as_csv: bool, stream=None, keep: int | None = None,
                 equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES):
        self.owned = path is not None
        self.settings = settings(as_csv, equilibrium_nodes)
        fresh = True
        if path is None:
            self.file = stream
        elif as_csv:
            if keep is not None and os.path.exists(path):
                _truncate(path, keep)
            fresh = not os.path.exists(path) or os.path.getsize(path) == 0
            self.file = open_append(path, newline="", is_whole=lambda line: False)  # a CSV row ends in a newline
        else:
            self.file = open_append(path)
        self.csv = csv.DictWriter(self.file, fieldnames=CSV_COLUMNS, extrasaction="ignore") if as_csv else None
        if self.csv is not None and fresh:
            self.csv.writeheader()

    def write(self, result: dict) -> None:
        """Write one result (several CSV rows for a position or a game) and flush it."""
        if self.csv is not None:
            self.csv.writerows(csv_rows(result, self.settings))
        else:
            self.file.write(json.dumps(dict(result, analyse=self.settings)) + "\n")
        self.file.flush()

    def close(self) -> None:
        """Close the output file (a stream given by the caller stays open)."""
        if self.owned:
            self.file.close()


def _truncate(path: str, size: int) -> None:
    try:
        with open(path, "r+b") as f:
            f.truncate(size)
    except OSError as e:
        raise OutputFileError(f"cannot write {path}: {e.strerror or e}") from None


def run_plan(plan: Plan, workers: int = 1, scheduler: str | None = None,
             equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES):
    """Yield (item, result) for every input item of the plan, unique work solved once, in parallel."""
    key_of = {(group[0].id, group[0].line): key for key, group in plan.copies.items()}
    task = partial(analyse_item, equilibrium_nodes=equilibrium_nodes)
    for result in run_tasks(task, plan.tasks, workers=workers, scheduler=scheduler):
        for item in plan.copies[key_of[(result["id"], result["line"])]]:
            yield item, result_for(item, result)
