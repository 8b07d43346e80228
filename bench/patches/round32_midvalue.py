"""Scratch (bench/STRENGTH.md round 32): a value for positions inside rounds 1-3, fitted on the
outcomes of the engines' recorded games: P(a wins | both hands, the public state), a logistic model
per round on the round-end model's features (read with the next round's first player) and EXTRA
features of the hands, who has taken, who moves, the actions left and the take's worth to each
side. The screen's weights (round32_midvalue.json) came from

    M=bench/matches; PYTHONPATH=<main> python bench/patches/round32_midvalue.py 30000 \
        $M/t40_h2.jsonl.gz $M/t38_exp3.jsonl.gz $M/t36_poly.jsonl.gz $M/t35_city.jsonl.gz \
        $M/t39_cont4.jsonl.gz $M/t34_temp.jsonl.gz $M/t30_bandit.jsonl.gz

    round 1: 331094 states, held-out log-loss 0.6741 (constant 0.6931)
    round 2: 329528 states, held-out log-loss 0.6226 (constant 0.6931)
    round 3: 321341 states, held-out log-loss 0.5599 (constant 0.6931)

(it writes midvalue.json where it runs; needs scipy). mid_value in bench/patches/round32_screens.patch
computes the same in C (checked on 396 random positions, largest difference 4e-16).
"""
import gzip, json, sys
import numpy as np
import os
from solver.rules.position import Position
from solver.solvers import roundmodel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from round32_policy_fit import take_worth  # policy.pxd's take_worth, in Python (its one copy here)

EXTRA = 16
def extra(pos):
    e = np.zeros(EXTRA)
    ha, hb = pos.hands
    for k in range(11):
        e[k] = ha[k] - hb[k]
    e[11] = (pos.taken & 1)
    e[12] = (pos.taken >> 1) & 1
    e[13] = 1.0 if pos.to_move == 0 else -1.0
    e[14] = (12 - sum(pos.actions)) / 12
    e[15] = (take_worth(pos, 0) - take_worth(pos, 1)) / 16
    return e

def states(paths, limit):
    rows = {1: [], 2: [], 3: []}
    n = 0
    for path in paths:
        for line in gzip.open(path, "rt"):
            g = json.loads(line)
            w = g["result"]["winner"]
            label = 1.0 if w == "a" else (0.0 if w == "b" else 0.5)
            pos = Position.parse(g["deal"])
            for tok in g["moves"].split():
                if pos.is_over or pos.round >= 4:
                    break
                rows[pos.round].append((1 - pos.first, pos.colls[0], pos.colls[1], roundmodel.line_top(pos.line), extra(pos), label))
                pos = pos.play(tok)
            n += 1
            if n >= limit:
                return rows
    return rows

def design(rows):
    first = np.array([r[0] for r in rows]); ca = np.array([r[1] for r in rows]); cb = np.array([r[2] for r in rows])
    top = np.array([r[3] for r in rows]); ex = np.array([r[4] for r in rows]); y = np.array([r[5] for r in rows])
    return np.hstack([roundmodel.features(first, ca, cb, top), ex]), y

def logloss(y, p, eps=1e-12):
    """The mean log-loss of the chances p against the results y."""
    return float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))

def chances(X, w):
    return 1 / (1 + np.exp(-(X @ w)))

def fit(X, y, l2=1e-4):
    from scipy.optimize import minimize
    def f(w):
        p = chances(X, w)
        return logloss(y, p) + l2 * w @ w, X.T @ (p - y) / len(y) + 2 * l2 * w
    r = minimize(f, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return r.x

if __name__ == "__main__":
    limit = int(sys.argv[1])
    rows = states(sys.argv[2:], limit)
    out = []
    for r in (1, 2, 3):
        X, y = design(rows[r])
        cut = len(y) * 4 // 5   # by order: the last fifth of the games held out
        w = fit(X[:cut], y[:cut])
        b = logloss(y[cut:], float(np.mean(y[:cut])), eps=0.0)
        print(f"round {r}: {len(y)} states, held-out log-loss {logloss(y[cut:], chances(X[cut:], w)):.4f} (constant {b:.4f})", flush=True)
        out.append(w.tolist())
    json.dump({"weights": out}, open("midvalue.json", "w"))
