"""Same-run A/B of two builds: each measurement in a fresh process, the builds in turn.

    python -m solver.bench.ab --base /path/to/old/python [--new python] [--pairs 5] [WHAT ...]

WHAT is any of open, view, playouts, ismcts, api, analyse (default: all). Each pair runs the
measurement once under the base build's interpreter, then once under the new one (the
order alternates from pair to pair), and the ratio new/base is taken pair by pair, so a
drift in the machine's speed hits both sides of a pair alike. Times are CPU seconds of
the measuring process (time.process_time), which other load on a shared machine
inflates less than wall time. The snippets use only APIs both builds have (388581d on), each
found under its module path before or after the layers (`module` in the snippets).

- open: median ms of `solve(pos, mode="open")` over the 300 round-4 starts of
  `dnoir bench solve` (seed 0), table cleared once before, as `run_solve` does;
- view: the same for the mover's view of the first 150 of them;
- playouts: games/s of `solver.rules._core.random_games(300000, seed)`;
- ismcts: iterations per CPU second of one ISMCTS tree (the raw searcher's defaults, which
  every build has: 388581d's search), 30,000
  iterations from each of 6 round-1 deals, as `dnoir bench search` measures it by the clock;
- api: games/s of 1,000 random games through `Position` asking `result()` after every
  move, and ns a call of play / result / is_over / legal_moves / view;
- analyse: positions/s of the `dnoir analyse` pipeline, one worker (in-process), over the
  mover's views of 200 round-4 starts.

>>> sorted(SNIPPETS)
['analyse', 'api', 'ismcts', 'open', 'playouts', 'view']
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_COMMON = """
import importlib, json, random, statistics, time
from solver import Position
from solver.bench.solve import round4_starts


def module(new, old):  # `new` in a build with the layers (588979f on), `old` before them (388581d)
    try:
        return importlib.import_module(new)
    except ModuleNotFoundError:
        return importlib.import_module(old)


endgame = module("solver.solvers.endgame", "solver.endgame")
get_solver, solve = endgame.get_solver, endgame.solve
"""

SNIPPETS = {
    "open": _COMMON + """
starts = round4_starts(300, 0)
get_solver().clear()
ms, nodes = [], []
for pos in starts:
    t = time.process_time(); r = solve(pos, mode="open"); ms.append((time.process_time() - t) * 1000)
    nodes.append(r.nodes)
print(json.dumps(dict(value=statistics.median(ms), unit="ms median", nodes=statistics.median(nodes))))
""",
    "view": _COMMON + """
views = [p.view("ab"[p.to_move]) for p in round4_starts(150, 0)]
get_solver().clear()
ms, nodes = [], []
for v in views:
    t = time.process_time(); r = solve(v, mode="view"); ms.append((time.process_time() - t) * 1000)
    nodes.append(r.nodes)
print(json.dumps(dict(value=statistics.median(ms), unit="ms median", nodes=statistics.median(nodes))))
""",
    "playouts": _COMMON + """
random_games = module("solver.rules._core", "solver._core").random_games
t = time.process_time(); counts = random_games(300000, 1); s = time.process_time() - t
print(json.dumps(dict(value=300000 / s, unit="games/s", counts=counts)))
""",
    "api": _COMMON + """
rng = random.Random(0)
t = time.process_time()
for seed in range(1000):
    pos = Position.random_deal(seed)
    while not pos.is_over:
        pos = pos.play(rng.choice(pos.legal_moves()))
        pos.result()
s = time.process_time() - t
live = []
for seed in range(200):
    pos = Position.random_deal(10000 + seed)
    while not pos.is_over:
        live.append(pos); pos = pos.play(rng.choice(pos.legal_moves()))
moves = [rng.choice(p.legal_moves()) for p in live]
players = [p.to_move for p in live]
calls = dict(play=lambda: [p.play(m) for p, m in zip(live, moves)], result=lambda: [p.result() for p in live],
             is_over=lambda: [p.is_over for p in live], legal_moves=lambda: [p.legal_moves() for p in live],
             view=lambda: [p.view(q) for p, q in zip(live, players)])
best = {k: 1e9 for k in calls}
for _ in range(5):
    for k, f in calls.items():
        t = time.process_time(); f(); best[k] = min(best[k], time.process_time() - t)
print(json.dumps(dict(value=1000 / s, unit="games/s with result() every move",
                      ns={k: round(v / len(live) * 1e9) for k, v in best.items()})))
""",
    "ismcts": _COMMON + """
Searcher = module("solver.solvers._ismcts", "solver._ismcts").Searcher
searcher = Searcher(max_nodes=2_000_000)
done = 0
t = time.process_time()
for k in range(6):
    deal = Position.random_deal(1000 + k)
    view = deal.view("ab"[deal.to_move])
    searcher.start(view.core, observer=view.to_move, seed=k)
    done += searcher.search(iterations=30000)
s = time.process_time() - t
print(json.dumps(dict(value=done / s, unit="ISMCTS iterations/s", root_visits=done)))
""",
    "analyse": _COMMON + """
Item = module("solver.analysis.exact", "solver.analysis").Item
batch = module("solver.analysis.batch", "solver.batch")
make_plan, run_plan = batch.make_plan, batch.run_plan
items = [Item(f"p{k}", "position", k, str(p.view("ab"[p.to_move]))) for k, p in enumerate(round4_starts(200, 0))]
plan = make_plan(items, done=set())
t = time.process_time()
for _ in run_plan(plan, workers=1):
    pass
print(json.dumps(dict(value=len(items) / (time.process_time() - t), unit="positions/s")))
""",
}


def measure(python: str, what: str) -> dict:
    """One measurement of `what` in a fresh process of `python`."""
    # run from / so that each interpreter imports its own build, not one in the current directory
    out = subprocess.run([python, "-c", SNIPPETS[what]], check=True, capture_output=True, text=True,
                         cwd="/").stdout
    return json.loads(out.strip().splitlines()[-1])


def run_ab(base: str, new: str, whats, pairs: int = 5) -> dict:
    """{what: {base: [...], new: [...], ratios: [...]}}, ratio = new / base pair by pair."""
    report = {}
    for what in whats:
        rows = dict(base=[], new=[], ratios=[], extra_base=None, extra_new=None)
        for k in range(pairs):
            order = (("base", base), ("new", new)) if k % 2 == 0 else (("new", new), ("base", base))
            got = {name: measure(python, what) for name, python in order}
            rows["base"].append(round(got["base"]["value"], 4))
            rows["new"].append(round(got["new"]["value"], 4))
            rows["ratios"].append(round(got["new"]["value"] / got["base"]["value"], 3))
            rows["unit"] = got["new"]["unit"]
            rows["extra_base"] = {k: v for k, v in got["base"].items() if k not in ("value", "unit")}
            rows["extra_new"] = {k: v for k, v in got["new"].items() if k not in ("value", "unit")}
        report[what] = rows
    return report


def format_ab(report: dict) -> str:
    lines = []
    for what, r in report.items():
        lines.append(f"{what:9} {r['unit']}: base {r['base']}  new {r['new']}")
        lines.append(f"{'':9} ratio new/base median {statistics.median(r['ratios']):.3f} "
                     f"(min {min(r['ratios']):.3f}, max {max(r['ratios']):.3f})  {r['ratios']}")
        if r["extra_base"]:
            lines.append(f"{'':9} base {r['extra_base']}")
            lines.append(f"{'':9} new  {r['extra_new']}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="same-run A/B of two builds")
    parser.add_argument("what", nargs="*", help=f"any of {', '.join(sorted(SNIPPETS))} (default: all)")
    parser.add_argument("--base", required=True, help="the base build's python")
    parser.add_argument("--new", default=sys.executable, help="the new build's python (default: this one)")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    unknown = set(args.what) - set(SNIPPETS)
    if unknown:
        parser.error(f"unknown measurement(s) {', '.join(sorted(unknown))}")
    report = run_ab(args.base, args.new, args.what or sorted(SNIPPETS), args.pairs)
    print(json.dumps(report) if args.json else format_ab(report))


if __name__ == "__main__":
    main()
