"""Mean loss against the tail equilibrium of the recorded moves (`played`) or of a bot's choices.

    python tail_eval.py SET.json played
    PYTHONPATH=<tree> python tail_eval.py SET.json ismcts:iterations=80000 [STATS.json]

A bot's choices are `advise`'s with its budget and configuration, seed i for decision i;
STATS.json keeps each choice's root statistics for delta_eval.py.
"""
import json
import statistics as st
import sys

from common import disagreement

rows, spec = json.load(open(sys.argv[1])), sys.argv[2]
choices, stats = [], []
if spec == "played":
    choices = [r["played"] for r in rows]
else:
    from solver.agents.bots import make_bot
    from solver.rules.position import Position
    from solver.solvers.search import advise
    bot = make_bot(spec)
    for i, r in enumerate(rows):
        a = advise(Position.parse(r["view"]), bot.limit, threads=1, seed=i, config=bot.config)
        choices.append(a.best)
        stats.append(dict(best=a.best, moves=[[m.move, m.visits, m.share, m.expected, m.margin, m.se] for m in a.moves]))
losses = [r["loss"][c] for r, c in zip(rows, choices)]
print(f"{spec}: {len(losses)} decisions, mean loss {st.mean(losses):.5f} ± {1.96 * st.stdev(losses) / len(losses) ** .5:.5f}")
groups = {}
for r, c, l in zip(rows, choices, losses):
    groups.setdefault(("kind", disagreement(c, r["best"])), []).append(l)
    if "round" in r:  # (the set files of round 34 itself hold no round and actions left)
        groups.setdefault(("round", r["round"], "left", r["left"]), []).append(l)
for key in sorted(groups, key=str):
    l = groups[key]
    print(f"  {' '.join(map(str, key))}: {len(l)} decisions, loss {sum(l):.4f} in all, {st.mean(l):.5f} each")
if len(sys.argv) > 3:
    json.dump(stats, open(sys.argv[3], "w"))
