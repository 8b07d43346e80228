"""Batch analysis: mixed inputs, bad lines, duplicates, resume, interruption, CSV, a cluster."""

import csv
import json
import random
import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from solver.agents.match import make_jobs, play_job
from solver.analysis.batch import make_plan, read_items, run_plan
from solver.analysis.exact import BLUNDER, MISTAKE, Item, analyse_item, parse_item
from solver.rules.position import Position
from solver.solvers.endgame import solve
from solver.solvers.limit import Limit


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


@pytest.mark.slow
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


@pytest.mark.slow
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
    # ~20 ms an item: the hundreds left after the first 20 cannot all be done before the signal lands
    assert proc.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr and kept < total
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
    marks, methods = set(), set()
    for pair in range(6):
        for job in make_jobs([("random", "random")], pairs=1, seed=100 + pair):
            record = play_job(job)
            result = analyse_item(Item("g", "game", 1, record))
            for d in result["decisions"]:
                methods.add(d["method"])
                if d["method"] == "view":
                    assert d["loss"] == pytest.approx(d["expected_best"] - d["expected_played"])
                    loss = Fraction(d["loss_fraction"])
                    assert loss >= 0 and float(loss) == d["loss"]
                else:  # the hand's equilibrium value less the move's, floored at 0
                    assert d["method"] == "equilibrium" and d["loss_fraction"] is None
                    loss = d["loss"]
                    # read to the 6 decimals the moves' scores are given to (move_loss)
                    assert loss == pytest.approx(max(0.0, d["expected_best"] - d["expected_played"]), abs=5e-7)
                    assert loss == round(loss, 6)
                expected_mark = "??" if loss >= BLUNDER else "?" if loss >= MISTAKE else ""
                assert d["mark"] == expected_mark
                view = Position.parse(d["dnp"])
                assert view.round == 4 and str(view) == str(view.view("ab"[view.to_move]))
                marks.add(d["mark"])
            for seat, s in result["summary"].items():
                mine = [d for d in result["decisions"] if d["player"] == seat]
                assert s["decisions"] == len(mine) and s["blunders"] == sum(d["mark"] == "??" for d in mine)
    assert "??" in marks  # random players blunder
    assert methods == {"view", "equilibrium"}  # early round-4 decisions by the view, late ones exactly


def test_bad_items():
    for text, message in [('{"dnp": 5}', "string"), ("[1, 2]", "position"), ('{"deal": "x", "moves": "T"}', "position"),
                          ('{"id": 3}', "needs")]:
        with pytest.raises(ValueError, match=message):
            parse_item(text, 1)
    record = play_job(make_jobs([("greedy", "greedy")], pairs=1, seed=1)[0])
    record["moves"] += " T"
    assert "after the end" in analyse_item(Item("g", "game", 1, record))["skipped"]


# -- inputs that cannot sink a batch, output that cannot be resumed wrongly -----------------

def positions(count: int) -> list[str]:
    """`count` different round-4 views, quick to solve."""
    found = []
    for seed in range(1000):
        pos = round4(seed, 4)
        if pos is not None and not pos.is_over and pos.round == 4:
            found.append(str(pos.view("ab"[pos.to_move])))
        if len(found) == count:
            return found
    raise AssertionError("not enough positions")


def game_record(seed: int = 3) -> dict:
    return play_job(make_jobs([("greedy", "random")], pairs=1, seed=seed)[0])


def write_lines(path, lines) -> None:
    path.write_bytes(b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines))


def read_results(path) -> list[dict]:
    return [json.loads(line) for line in open(path)]


def test_ids_keep_their_type_and_resume_compares_them_so(tmp_path):
    p1, p2 = positions(2)
    src = tmp_path / "in.txt"
    write_lines(src, [json.dumps({"id": 1, "dnp": p1}), json.dumps({"id": "1", "dnp": p2})])
    out = tmp_path / "out.jsonl"
    run = dnoir("analyse", str(src), "--out", str(out), "--workers", "1")
    assert run.returncode == 0, run.stderr
    results = read_results(out)
    assert sorted((type(r["id"]).__name__, r["dnp"]) for r in results) == [("int", p1), ("str", p2)]
    # only the result of id 1 survived an interruption: "1" is not taken for done
    write_lines(out, [json.dumps(r) for r in results if r["id"] == 1])
    resumed = dnoir("analyse", str(src), "--out", str(out), "--workers", "1")
    assert resumed.returncode == 0 and "resuming: 1 items" in resumed.stderr
    assert sorted(json.dumps(r, sort_keys=True) for r in read_results(out)) == \
        sorted(json.dumps(r, sort_keys=True) for r in results)


def test_bad_ids_fields_bytes_and_records_are_bad_lines_and_the_rest_runs(tmp_path):
    good, other = positions(2)
    record = game_record()
    illegal = next(t for t in ["5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C", "T"]
                   if t not in {str(m) for m in Position.parse(record["deal"]).legal_moves()})
    lines = [
        json.dumps({"id": "ok", "dnp": good}),                        # 1: good
        json.dumps({"id": 1.5, "dnp": other}),                        # 2: float id
        json.dumps({"id": [1], "dnp": other}),                        # 3: list id
        json.dumps({"id": {"a": 1}, "dnp": other}),                   # 4: object id
        json.dumps({"id": True, "dnp": other}),                       # 5: boolean id
        json.dumps({"id": None, "dnp": other}),                       # 6: null id
        json.dumps({"id": "ok", "dnp": other}),                       # 7: id of line 1 again
        b"\xff\xfe" + other.encode(),                                 # 8: not UTF-8
        json.dumps(dict(record, id="r-null", result=None)),           # 9: result null
        json.dumps(dict(record, id="r-int", moves=5)),                # 10: moves not a string
        json.dumps(dict(record, id="r-token", moves="Q")),            # 11: not a move token
        json.dumps(dict(record, id="r-illegal", moves=illegal)),      # 12: an illegal move
        json.dumps(dict(record, id="r-players", players=[1, 2])),     # 13: players of the wrong type
        json.dumps(dict(record, id="game")),                          # 14: good
        json.dumps({"id": 2, "dnp": other}),                          # 15: good
    ]
    src = tmp_path / "in.txt"
    write_lines(src, lines)
    out = tmp_path / "out.jsonl"
    run = dnoir("analyse", str(src), "--out", str(out), "--workers", "1")
    assert run.returncode == 1 and "Traceback" not in run.stderr
    reported = {int(line.split(" line ")[1].split(":")[0]): line for line in run.stderr.splitlines()
                if line.startswith(f"dnoir: {src} line ")}
    assert sorted(reported) == list(range(2, 14))
    for number, words in {2: ("id", "number"), 3: ("id", "list"), 4: ("id", "object"), 5: ("id", "boolean"),
                          6: ("id", "null"), 7: ("already", "line 1"), 8: ("UTF-8",), 9: ("result", "null"),
                          10: ("moves", "string"), 11: ("moves", "move token"), 12: ("moves", "not legal"),
                          13: ("players",)}.items():
        assert all(w in reported[number] for w in words), reported[number]
    assert sorted(map(str, (r["id"] for r in read_results(out)))) == ["2", "game", "ok"]


def test_a_torn_last_jsonl_line_is_removed_before_appending(tmp_path):
    p1, p2 = positions(2)
    src = tmp_path / "in.txt"
    write_lines(src, [p1, p2])
    out = tmp_path / "out.jsonl"
    assert dnoir("analyse", str(src), "--out", str(out), "--workers", "1").returncode == 0
    first, second = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(first + second[:40])
    assert dnoir("analyse", str(src), "--out", str(out), "--workers", "1").returncode == 0
    assert out.read_bytes() == first + second  # the torn piece is gone, not left as a broken line


def test_a_csv_result_counts_only_when_all_its_rows_are_in(tmp_path):
    src = tmp_path / "in.txt"
    write_lines(src, positions(3) + [json.dumps(dict(game_record(), id="g"))])
    full = tmp_path / "full.csv"
    assert dnoir("analyse", str(src), "--out", str(full), "--csv", "--workers", "1").returncode == 0
    text = full.read_bytes()
    rows = list(csv.DictReader(open(full, newline="")))
    assert all(r["of"] == str(sum(s["id_json"] == r["id_json"] for s in rows)) for r in rows)
    last = rows[-1]["id_json"]
    assert sum(r["id_json"] == last for r in rows) >= 2  # the last result has several rows
    lines = text.splitlines(keepends=True)
    for cut in (b"".join(lines[:-1]),                   # the last result's last row missing
                b"".join(lines[:-1]) + lines[-1][:7]):  # and a torn row after it
        part = tmp_path / "part.csv"
        part.write_bytes(cut)
        resumed = dnoir("analyse", str(src), "--out", str(part), "--csv", "--workers", "1")
        assert resumed.returncode == 0 and "resuming: 3 items" in resumed.stderr
        assert part.read_bytes() == text  # the partial rows removed and the result written whole


def test_out_in_a_missing_folder_is_one_line(tmp_path):
    src = tmp_path / "in.txt"
    write_lines(src, positions(1))
    for args in (["analyse", str(src)], ["match", "greedy", "random", "--pairs", "1"]):
        run = dnoir(*args, "--out", str(tmp_path / "missing" / "out.jsonl"))
        assert run.returncode == 2
        assert len(run.stderr.splitlines()) == 1 and "does not exist" in run.stderr and "internal" not in run.stderr


@pytest.mark.parametrize("as_csv, tamper, message, other", [
    (False, lambda text: text.replace('"version": 2', '"version": 1'), "other settings", []),
    (False, lambda text: text.replace('"blunder": "1/4"', '"blunder": "1/5"'), "other settings", []),
    (False, lambda text: "".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "analyse"}) + "\n"
                                 for line in text.splitlines()), "no analyse settings", []),
    (True, lambda text: text.replace('""version"": 2', '""version"": 1'), "other settings", []),
    (True, lambda text: text.replace(",id_json,row,of,analyse", ""), "columns", []),
    (False, None, "other settings", ["--equilibrium-nodes", "0"]),
    (True, None, "other settings", ["--equilibrium-nodes", "1000"]),
])
def test_resume_refuses_output_written_with_other_settings(tmp_path, as_csv, tamper, message, other):
    src = tmp_path / "in.txt"
    write_lines(src, positions(3))
    out = tmp_path / "out"
    flags = ["--csv"] if as_csv else []
    write_lines(src.with_suffix(".one"), positions(1))
    assert dnoir("analyse", str(src.with_suffix(".one")), "--out", str(out), "--workers", "1", *flags).returncode == 0
    if tamper is not None:
        changed = tamper(out.read_text())
        assert changed != out.read_text()
        out.write_text(changed)
    before = out.read_bytes()
    run = dnoir("analyse", str(src), "--out", str(out), "--workers", "1", *flags, *other)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1 and message in run.stderr, run.stderr
    assert out.read_bytes() == before


def test_resume_refuses_the_other_output_format(tmp_path):
    src = tmp_path / "in.txt"
    write_lines(src, positions(1))
    for flags, other in ([], ["--csv"]), (["--csv"], []):
        out = tmp_path / f"out{len(flags)}"
        assert dnoir("analyse", str(src), "--out", str(out), "--workers", "1", *flags).returncode == 0
        before = out.read_bytes()
        run = dnoir("analyse", str(src), "--out", str(out), "--workers", "1", *other)
        assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
        assert out.read_bytes() == before


def test_results_carry_their_settings():
    from solver.analysis.batch import csv_rows, settings
    result = analyse_item(Item("x", "position", 1, positions(1)[0]))
    rows = csv_rows(dict(result, id=7))
    assert [r["row"] for r in rows] == list(range(1, len(rows) + 1)) and {r["of"] for r in rows} == {len(rows)}
    assert {r["id_json"] for r in rows} == {"7"} and {r["analyse"] for r in rows} == {json.dumps(settings(True))}


# b to move three actions into round 4 (ply 40 of `play_game(random_deal(31), random v random, seed=31)`):
# T takes the third city at once and the equilibrium plays it (or 8); -2, which it never plays,
# pushes the city out of the take but still wins whatever a answers, as the view says of every
# move. The equilibrium's grading once called it a 0.72 blunder: it scored a move it never
# plays as if b then played at random.
FUSION_VIEW = "-17688-16+2C+288-3 ???/88+3-2 55577+2+3-2/5666777+2+4-1-2-3CC 4 b -"
# b to move (ply 38 of game 119 of bench/matches/final_100ms_r17.jsonl.gz): the view rates 7 a
# 17/20 chance, assuming b then sees a's hand; the hidden-information game gives b about 1/2.
OPTIMISTIC_VIEW = "-37-168-18 ???/7788 556678+2+2+3+4-2CC/556667778+3-2-2-2-3C 4 b -"
# a to move at the start of round 4: a public tree of over ten million nodes
EARLY_VIEW = "885565 78+3-1-2/????? 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a -"


def test_equilibrium_grading_reads_no_clock(monkeypatch):
    import solver.solvers.equilibrium as game

    class NoClock:
        def perf_counter(self):
            raise AssertionError("the grading read the clock")

    view = Position.parse(FUSION_VIEW)
    nodes = game.estimate(view).nodes
    game._grade_cached.cache_clear()
    with monkeypatch.context() as patch:
        patch.setattr(game, "time", NoClock())
        graded = game.equilibrium_grade(view, nodes)
        assert game.equilibrium_grade(view, nodes - 1) is None  # one node over the cap: the view grades it
    assert graded is not None and graded["exploitability"] <= game.GRADE_TARGET and "seconds" not in graded
    # the game solver run to the same target within the same iterations gives the same figures
    solution = game.solve_game(view, target=game.GRADE_TARGET, limit=Limit(iterations=game.GRADE_ITERATIONS))
    assert graded["iterations"] == solution.iterations
    assert graded["moves"] == [m.to_dict() for m in solution.moves]
    # a move the equilibrium never plays, that still wins: no loss
    assert graded["moves"][0]["move"] in {"T", "8"} and {m["move"]: m["frequency"] for m in graded["moves"]}["-2"] < 1e-3
    assert game.move_loss(graded, "-2") <= 2 * graded["exploitability"]


def test_a_forced_move_loses_exactly_nothing():
    # one legal move (a hand of one kind, the take already made): the hand's value is that
    # move's score, and the loss is read to the 6 decimals the move's score is given to (it
    # was 2.15e-07 when the unrounded hand value met the rounded score)
    import solver.solvers.equilibrium as game
    view = Position.parse("7+36-36 +2+2/-1 5567777788888+2-1-1-2-2-2C/55666788+3+4-2-3CC 4 a a")
    graded = game.equilibrium_grade(view, 300_000)
    assert [m["move"] for m in graded["moves"]] == ["+2"]
    assert game.move_loss(graded, "+2") == 0.0


def test_grade_uses_the_view_early_in_round_four_or_when_told(monkeypatch):
    import solver.analysis.exact as analysis

    def no_equilibrium(*args):
        raise AssertionError("the equilibrium was tried")

    early = Position.parse(EARLY_VIEW)
    assert sum(early.actions) < analysis.EQUILIBRIUM_FROM_ACTIONS
    with monkeypatch.context() as patch:
        patch.setattr(analysis, "equilibrium_grade", no_equilibrium)
        assert analysis.grade(early).method == "view"
        assert analysis.grade(Position.parse(FUSION_VIEW), equilibrium_nodes=0).method == "view"
    fused = analysis.grade(Position.parse(FUSION_VIEW))
    assert fused.method == "equilibrium" and fused.best in {"T", "8"} and float(fused.loss("-2")) < 1e-3
    # the view's figures are optimistic, its choice here the equilibrium's
    optimistic = Position.parse(OPTIMISTIC_VIEW)
    graded, view = analysis.grade(optimistic), analysis.grade(optimistic, equilibrium_nodes=0)
    assert (graded.method, view.method, graded.best, view.best) == ("equilibrium", "view", "7", "7")
    assert view.expected["7"] == Fraction(17, 20) and graded.expected["7"] == pytest.approx(0.5029, abs=1e-4)
    assert analysis.grade(Position.parse(FUSION_VIEW), equilibrium_nodes=1000).method == "view"


def test_positions_carry_the_equilibrium_when_small(tmp_path):
    src = tmp_path / "in.txt"
    write_lines(src, [FUSION_VIEW, EARLY_VIEW])
    out = tmp_path / "out.jsonl"
    assert dnoir("analyse", str(src), "--out", str(out), "--workers", "1").returncode == 0
    results = {r["line"]: r for r in map(json.loads, out.read_text().splitlines())}
    eq = results[1]["equilibrium"]
    assert eq["exploitability"] <= 1e-3 and {m["move"] for m in eq["moves"]} == {"-2", "T", "+3", "8"}
    assert {m["move"]: m["expected"] for m in results[1]["moves"]}["-2"] == 1.0  # every move wins, in the view as in the game
    assert results[2]["equilibrium"] is None
    assert (results[1]["method"], results[2]["method"]) == ("equilibrium", "view")
    out_csv = tmp_path / "out.csv"
    assert dnoir("analyse", str(src), "--out", str(out_csv), "--csv", "--workers", "1").returncode == 0
    rows = list(csv.DictReader(open(out_csv)))
    frequency = {(r["line"], r["move"]): r["frequency"] for r in rows}
    assert {m["move"]: str(m["frequency"]) for m in eq["moves"]} == \
        {move: f for (line, move), f in frequency.items() if line == "1"}
    assert {f for (line, _), f in frequency.items() if line == "2"} == {""}
    assert {(r["line"], r["method"]) for r in rows} == {("1", "equilibrium"), ("2", "view")}
