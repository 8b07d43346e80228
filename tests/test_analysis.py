"""Batch analysis: mixed inputs, bad lines, duplicates, resume, interruption, CSV, a cluster."""

import csv
from fractions import Fraction
import json
import random
import signal
import subprocess
import sys
import time

import pytest

from solver.analysis import BLUNDER, MISTAKE, Item, analyse_item, parse_item
from solver.batch import make_plan, read_items, run_plan
from solver.endgame import solve
from solver.match import make_jobs, play_job
from solver.position import Position


def round4(seed: int, extra: int = 0) -> Position | None:
    rng = random.Random(seed)
    pos = Position.random_deal(seed)
    while pos.round < 4 and not pos.is_over:
        pos = pos.play(rng.choice(pos.legal_moves()))
    for _ in range(extra):
        if not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
    return None if pos.is_over else pos


def mixed_lines(count: int = 60) -> tuple[list[str], int]:
    """Positions (full and views), JSON positions, game records, duplicates and broken lines."""
    lines, bad = [], 0
    seed = 0
    while len(lines) < count:
        pos = round4(seed, seed % 6)
        seed += 1
        if pos is None:
            continue
        kind = seed % 5
        if kind == 0:
            lines.append(str(pos))
        elif kind == 1:
            lines.append(json.dumps({"id": f"view{seed}", "dnp": str(pos.view("ab"[pos.to_move]))}))
        elif kind == 2:
            lines.append(lines[-1] if lines and not lines[-1].startswith("{") else str(pos))  # a duplicate
        elif kind == 3:
            record = play_job(make_jobs([("random", "greedy")], pairs=1, seed=seed)[0])
            record["id"] = f"game{seed}"
            lines.append(json.dumps(record))
        else:
            lines.append(["5+2 678+3C/????? ./. 9 a -", '{"id": 1', '{"id": 2}', "hello world"][seed % 4])
            bad += 1
    lines.append(str(Position.random_deal(1)))  # valid, but before round 4: skipped
    return lines, bad


def dnoir(*args, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def results_by_id(path) -> dict:
    out = {}
    for line in open(path):
        r = json.loads(line)
        out[(r["id"], r["line"])] = r
    return out


def test_mixed_file_with_bad_lines(tmp_path):
    lines, bad = mixed_lines()
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    run = dnoir("analyse", str(src), "--out", str(out), "--workers", "2")
    assert run.returncode == 1  # some lines were bad
    reported = [line for line in run.stderr.splitlines() if " line " in line and line.startswith("dnoir:")]
    assert len(reported) == bad
    results = results_by_id(out)
    assert len(results) == len(lines) - bad
    kinds = {r["type"] for r in results.values()}
    assert kinds == {"position", "game"}
    skipped = [r for r in results.values() if "skipped" in r]
    assert [r["skipped"] for r in skipped] == ["deck not empty (before round 4)"]
    for r in results.values():
        if r["type"] == "position" and "skipped" not in r:
            assert r["mode"] == "view" and r["best"] == r["moves"][0]["move"]
            pos = Position.parse(r["dnp"])
            assert ("open" in r) == (None not in pos.hands)
    assert "analysed" in run.stderr and "items/s" in run.stderr


def test_view_and_open_values_match_solve():
    pos = next(p for p in map(round4, range(3, 50)) if p is not None)
    result = analyse_item(Item("x", "position", 1, str(pos)))
    view = solve(pos.view("ab"[pos.to_move]), mode="view").to_dict()
    assert result["moves"] == view["moves"] and result["best"] == view["best"]
    opened = solve(pos, mode="open").to_dict()
    assert result["open"]["moves"] == opened["moves"]


def test_duplicates_are_solved_once_and_hardest_go_first():
    lines, _ = mixed_lines(40)
    items = read_items(lines, lambda n, why: None)
    plan = make_plan(items, done=set())
    assert len(plan.tasks) < len(items)
    assert sum(len(g) for g in plan.copies.values()) == len(items)
    work = [t.work for t in plan.tasks]
    assert work == sorted(work, reverse=True)
    results = list(run_plan(plan))
    assert len(results) == len(items)
    by_key = {}
    for item, result in results:
        body = {k: v for k, v in result.items() if k not in ("id", "line")}
        key = json.dumps(body, sort_keys=True)
        by_key.setdefault(item.data if item.kind == "position" else item.id, set()).add(key)
    assert all(len(v) == 1 for v in by_key.values())


def test_same_results_with_workers_and_on_a_cluster():
    distributed = pytest.importorskip("distributed")
    lines, _ = mixed_lines(30)
    items = read_items(lines, lambda n, why: None)
    plan = make_plan(items, done=set())
    serial = sorted((json.dumps(r, sort_keys=True) for _, r in run_plan(plan, workers=1)))
    parallel = sorted((json.dumps(r, sort_keys=True) for _, r in run_plan(plan, workers=2)))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        remote = sorted((json.dumps(r, sort_keys=True) for _, r in run_plan(plan, scheduler=cluster.scheduler_address)))
    assert serial == parallel == remote


def test_resume_skips_the_ids_already_written(tmp_path):
    lines, _ = mixed_lines(40)
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    full = tmp_path / "full.jsonl"
    dnoir("analyse", str(src), "--out", str(full), "--workers", "1")
    written = full.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(written[:10]) + "\n" + written[10][:25])  # and a line cut in the middle
    resumed = dnoir("analyse", str(src), "--out", str(part), "--workers", "2")
    assert "resuming: 10 items" in resumed.stderr
    assert results_by_id(full) == {k: v for k, v in results_by_id_tolerant(part).items()}


def results_by_id_tolerant(path) -> dict:
    out = {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        out[(r["id"], r["line"])] = r
    return out


def test_interrupted_run_resumes(tmp_path):
    src = tmp_path / "in.txt"
    positions = [round4(s) for s in range(400)]
    src.write_text("\n".join(str(p.view("ab"[p.to_move])) for p in positions if p is not None) + "\n")
    total = len(src.read_text().splitlines())
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "analyse", str(src), "--out", str(out),
                             "--workers", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 20):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    kept = len(results_by_id_tolerant(out))
    if proc.returncode == 130:  # stopped before the end, as intended
        assert "interrupted" in stderr and "Traceback" not in stderr and kept < total
    resumed = dnoir("analyse", str(src), "--out", str(out))
    assert resumed.returncode == 0
    assert len(results_by_id_tolerant(out)) == total


def test_csv_output_and_resume(tmp_path):
    lines, _ = mixed_lines(20)
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.csv"
    dnoir("analyse", str(src), "--out", str(out), "--csv")
    rows = list(csv.DictReader(open(out)))
    assert rows and {"id", "type", "move", "expected", "mark"} <= set(rows[0])
    again = dnoir("analyse", str(src), "--out", str(out), "--csv")
    assert "resuming" in again.stderr
    assert list(csv.DictReader(open(out))) == rows


def test_game_annotation_marks_follow_the_thresholds():
    marks = set()
    for pair in range(6):
        for job in make_jobs([("random", "random")], pairs=1, seed=100 + pair):
            record = play_job(job)
            result = analyse_item(Item("g", "game", 1, record))
            for d in result["decisions"]:
                assert d["loss"] == pytest.approx(d["expected_best"] - d["expected_played"])
                loss = Fraction(d["loss_fraction"])
                assert loss >= 0 and float(loss) == d["loss"]
                expected_mark = "??" if loss >= BLUNDER else "?" if loss >= MISTAKE else ""
                assert d["mark"] == expected_mark
                view = Position.parse(d["dnp"])
                assert view.round == 4 and str(view) == str(view.view("ab"[view.to_move]))
                marks.add(d["mark"])
            for seat, s in result["summary"].items():
                mine = [d for d in result["decisions"] if d["player"] == seat]
                assert s["decisions"] == len(mine) and s["blunders"] == sum(d["mark"] == "??" for d in mine)
    assert "??" in marks  # random players blunder


def test_bad_items():
    for text, message in [('{"dnp": 5}', "string"), ("[1, 2]", "position"), ('{"deal": "x", "moves": "T"}', "position"),
                          ('{"id": 3}', "needs")]:
        with pytest.raises(ValueError, match=message):
            parse_item(text, 1)
    record = play_job(make_jobs([("greedy", "greedy")], pairs=1, seed=1)[0])
    record["moves"] += " T"
    assert "after the end" in analyse_item(Item("g", "game", 1, record))["skipped"]
