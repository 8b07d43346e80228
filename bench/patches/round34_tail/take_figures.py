"""The take's root figures under two searches, where the first takes and the equilibrium plays.

    python take_figures.py SET.json STATS_A.json STATS_B.json

For each such decision of tail_eval.py's set: the take's share of the root's visits and its
mean less the best play's, under search A (which took) and search B, and their medians.
"""
import json
import statistics as st
import sys

rows, a, b = (json.load(open(f)) for f in sys.argv[1:4])


def take_figures(s):
    moves = {m[0]: m for m in s["moves"]}
    total = sum(m[1] for m in s["moves"])
    best_play = max((m for m in s["moves"] if m[0] != "T"), key=lambda m: m[3])
    return moves["T"][1] / total, moves["T"][3] - best_play[3]


picked = [(take_figures(x), take_figures(y), y["best"]) for r, x, y in zip(rows, a, b)
          if x["best"] == "T" and r["best"] != "T"]
print(f"{len(picked)} decisions where A takes and the equilibrium plays; B takes in "
      f"{sum(best == 'T' for _, _, best in picked)} of them")
for label, i in (("A", 0), ("B", 1)):
    share = st.median(p[i][0] for p in picked)
    lead = st.median(p[i][1] for p in picked)
    print(f"  {label}: the take's share of the visits, median {share:.1%}; its mean less the best play's, median {lead:+.4f}")
