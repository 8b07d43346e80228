"""Round 24's measurement of the round-end model's blind spot for cities (bench/STRENGTH.md).

    python bench/patches/round24_city_terms.py OUT.json GAMES.jsonl [GAMES.jsonl ...]

Reads the round ends of recorded whole games (match records, uncompressed), and fits, for the
next round's first player, the result against the model's logit per round (a temperature and
an offset a round) plus one term per cities held (first, second: 0, 1, 2 or more each) and one
per cities held with a city within reach of a take. It prints the held-out log-loss with and
without the city terms and the terms, and writes the terms on the model's own scale (divided by
each round's temperature, the cells' mean taken out) as {"rows": 3 lists of 18}, the file that
`bench/patches/round24_city_end.patch` reads behind DNOIR_CITY_W. The round ends where the first
player holds two cities with a city within reach are left out of the fit: they are all won at
once (the `third_city` setting scores them so).
"""

import json
import sys

import numpy as np

from solver.agents.match import read_records
from solver.bench.round_model import fit, log_loss
from solver.rules.position import Position
from solver.solvers import roundmodel

CITY = 10
STEPS = 40  # Newton steps of the fits (the round-end model's own fit takes 12)


def round_ends(paths):
    """(round that ended, the model's logit for the next first player, its result, its cities,
    the other's cities, cities within reach) for every round end of every finished whole game."""
    for path in paths:
        for rec in read_records(path):
            if "result" not in rec:
                continue
            start = Position.parse(rec["deal"])
            if start.round != 1 or sum(start.actions) != 0:
                continue  # a game from a book: not a whole game
            winner = rec["result"]["winner"]
            result_a = 1.0 if winner == "a" else (0.5 if winner == "draw" else 0.0)
            for pos in roundmodel.round_ends(start, rec["moves"].split()):
                first = pos.first
                z = roundmodel.logit(pos)
                yield (pos.round - 1, z if first == 0 else -z, result_a if first == 0 else 1 - result_a,
                       pos.colls[first][CITY], pos.colls[1 - first][CITY], pos.in_reach.count(CITY))


def main(out, paths):
    a = np.array(list(round_ends(paths)), float)
    rnd, z, y, cf, cs, reach = a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3], a[:, 4], a[:, 5] > 0
    cell = (np.clip(cf, 0, 2) * 3 + np.clip(cs, 0, 2)).astype(int)
    onehot = np.eye(9)[cell]
    rounds = np.eye(3)[rnd - 1]
    plain = np.hstack([rounds * z[:, None], rounds])
    cities = np.hstack([plain, onehot, onehot * reach[:, None]])
    keep = (y != 0.5) & ~((np.clip(cf, 0, 2) == 2) & reach)
    test = np.random.default_rng(0).random(len(y)) < 0.3
    for name, x in (("the model, a temperature a round", plain), ("with the city terms", cities)):
        w = fit(x[keep & ~test], y[keep & ~test], steps=STEPS)
        print(f"{name}: held-out log-loss {log_loss(1 / (1 + np.exp(-x[keep & test] @ w)), y[keep & test]):.4f}")
    w = fit(cities[keep], y[keep], steps=STEPS)
    temps, terms, with_reach = w[:3], w[6:15], w[15:24]
    print("temperatures", np.round(temps, 3).tolist())
    print("cities held (first, second):", {f"{i // 3}{i % 3}": round(float(v), 3) for i, v in enumerate(terms)})
    print("... with a city in reach:", {f"{i // 3}{i % 3}": round(float(v), 3) for i, v in enumerate(with_reach)})
    rows = []
    for r in range(3):
        base = float(np.mean(onehot[(rnd == r + 1) & keep] @ terms))
        rows.append([float(v) for v in list((terms - base) / temps[r]) + list(with_reach / temps[r])])
    with open(out, "w") as f:
        json.dump({"rows": rows}, f)
    print(f"{len(y)} round ends; terms written to {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
