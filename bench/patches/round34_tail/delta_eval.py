"""The search's choices of tail_eval.py's STATS.json with a take made only when its mean beats the
best play's (a twentieth of the take's visits or more) by delta, graded against the tail equilibrium.

    python delta_eval.py SET.json STATS.json
"""
import json
import statistics as st
import sys

rows, stats = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for delta in (0, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03):
    losses, turned = [], 0
    for r, s in zip(rows, stats):
        best = s["best"]
        if best == "T":
            take = s["moves"]["T"]
            plays = [(v[0], m) for m, v in s["moves"].items() if m != "T" and v[1] >= 0.05 * take[1]]
            if plays and max(plays)[0] > take[0] - delta:
                best = max(plays)[1]
                turned += 1
        losses.append(r["loss"][best])
    print(f"delta {delta}: mean loss {st.mean(losses):.5f}, takes turned into plays {turned}")
