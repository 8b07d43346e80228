"""Running an analysis over a file (`dnoir analyse`): plan, solve in parallel, write as results come.

Bad lines are reported with their number and reason and the rest still runs; identical
positions are solved once; the hardest items (most cards in hand) start first, to cut the
tail; every result is written the moment it is ready; the ids already in the output are
skipped, so an interrupted run resumes where it stopped.

>>> import io
>>> bad = []
>>> items = read_items(io.StringIO("not a position\\n\\n# a comment\\n"), lambda n, why: bad.append(n))
>>> items, bad
([], [1])
"""

from __future__ import annotations

import csv
import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field

from .analysis import Item, ItemError, analyse_item, parse_item
from .notation import PositionError
from .jsonl import open_append, read_jsonl
from .parallel import run_tasks

CSV_COLUMNS = ["id", "type", "line", "skipped", "ply", "player", "dnp", "mode", "best", "move", "played",
               "expected", "win", "draw", "loss", "margin", "open_outcome", "open_margin", "expected_loss", "mark"]


def read_items(stream, on_bad_line) -> list[Item]:
    """Items of an input stream; `on_bad_line(number, reason)` for each line that is not one."""
    items = []
    for number, text in enumerate(stream, 1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            items.append(parse_item(text, number))
        except (ItemError, PositionError) as e:
            on_bad_line(number, str(e))
    return items


def item_key(item: Item) -> tuple:
    """Items with the same key have the same analysis (the same position, or the same game)."""
    if item.kind == "position":
        from .position import Position
        return ("position", str(Position.parse(item.data)))
    return ("game", item.data["deal"], item.data["moves"])


def existing_results(path: str, as_csv: bool) -> tuple[set[str], list[dict]]:
    """Ids already written to an earlier output (as strings), and its JSONL results (none for CSV).

    A line cut by an interruption is ignored: its item is analysed again.
    """
    ids: set[str] = set()
    results: list[dict] = []
    if not os.path.exists(path):
        return ids, results
    if as_csv:
        with open(path, newline="") as f:
            ids = {row["id"] for row in csv.DictReader(f) if row.get("id")}
        return ids, results
    results = read_jsonl(path, check=lambda result: result["id"])
    return {str(result["id"]) for result in results}, results


@dataclass
class Plan:
    """Unique work, hardest first, and for each unique item the input items that share it."""

    tasks: list[Item]
    copies: dict[tuple, list[Item]]
    skipped_done: int


def make_plan(items: list[Item], done: set[str]) -> Plan:
    """The plan for `items` less those whose id is in `done`: one task per distinct analysis."""
    copies: dict[tuple, list[Item]] = {}
    skipped_done = 0
    for item in items:
        if str(item.id) in done:
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
        out.append(f"game decisions: mistakes (?) {self.mistakes}, blunders (??) {self.blunders}")
        for name, acc in sorted(self.players.items()):
            out.append(f"  {name}: {acc['decisions']} round-4 decisions, {acc['mistakes']} ?, {acc['blunders']} ??, "
                       f"expected score lost {acc['expected_loss']:.3f}")
        return out


def result_for(item: Item, result: dict) -> dict:
    """A unique item's result, given the id and line of `item` (a duplicate shares the analysis)."""
    return dict(result, id=item.id, line=item.line)


def csv_rows(result: dict) -> list[dict]:
    """A result as CSV rows: one per move of a position, one per decision of a game."""
    base = dict(id=result["id"], type=result["type"], line=result["line"])
    if "skipped" in result:
        return [dict(base, skipped=result["skipped"], dnp=result.get("dnp", ""))]
    if result["type"] == "position":
        open_moves = {m["move"]: m for m in result.get("open", {}).get("moves", [])}
        return [dict(base, dnp=result["dnp"], mode=result["mode"], best=result["best"], move=m["move"],
                     expected=m["expected"], win=m["win"], draw=m["draw"], loss=m["loss"], margin=m["margin"],
                     open_outcome=open_moves.get(m["move"], {}).get("outcome", ""),
                     open_margin=open_moves.get(m["move"], {}).get("margin", ""))
                for m in result["moves"]]
    return [dict(base, ply=d["ply"], player=d["player"], dnp=d["dnp"], best=d["best"], played=d["played"],
                 move=d["played"], expected=d["expected_played"], expected_loss=d["loss"], mark=d["mark"])
            for d in result["decisions"]]


class Writer:
    """Appends results to OUT (or a stream such as standard output) as JSONL or CSV, flushing each one."""

    def __init__(self, path: str | None, as_csv: bool, stream=None):
        fresh = path is None or not os.path.exists(path) or os.path.getsize(path) == 0
        self.owned = path is not None
        self.file = open_append(path, newline="") if path is not None else stream
        self.csv = csv.DictWriter(self.file, fieldnames=CSV_COLUMNS, extrasaction="ignore") if as_csv else None
        if self.csv is not None and fresh:
            self.csv.writeheader()

    def write(self, result: dict) -> None:
        """Write one result (several CSV rows for a position or a game) and flush it."""
        if self.csv is not None:
            self.csv.writerows(csv_rows(result))
        else:
            self.file.write(json.dumps(result) + "\n")
        self.file.flush()

    def close(self) -> None:
        """Close the output file (a stream given by the caller stays open)."""
        if self.owned:
            self.file.close()


def run_plan(plan: Plan, workers: int = 1, scheduler: str | None = None):
    """Yield (item, result) for every input item of the plan, unique work solved once, in parallel."""
    key_of = {(group[0].id, group[0].line): key for key, group in plan.copies.items()}
    for result in run_tasks(analyse_item, plan.tasks, workers=workers, scheduler=scheduler):
        for item in plan.copies[key_of[(result["id"], result["line"])]]:
            yield item, result_for(item, result)
