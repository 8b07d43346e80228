"""The offline comparisons of the value net with the search's taker playouts (README.md here).

    python evaluate.py onpath N K            held-out on-path positions: taker's error (K playouts)
    python evaluate.py offpath K NET...      offpath_test_*: the nets' and taker's error
    python evaluate.py siblings K NET...     sib_*.json: choosing among siblings by each value
    python evaluate.py engine NET N K        the engine's own move among its children: agreement
    python evaluate.py twin NET              the C forward pass (net_check) against numpy's

Errors are mean squared against the labels; taker's has the variance of its K-playout mean
taken off (the part of its error that more playouts would remove)."""
import sys, json
from collections import defaultdict
import numpy as np
from solver.rules.position import Position
from common import features, taker_mean, end_value, load, held_out, net_searcher, picked_positions, candidates
from mlp import MLP


def dnp_lines(wanted):
    return {i: (dnp, tok) for i, dnp, tok in picked_positions(wanted)}


def errors(values, labels, rounds, noise=None):
    """The mean squared error in each round 1-3, less the mean `noise` (the variance of a K-playout
    mean: the part of taker's error that more playouts would remove)."""
    return {r: float(np.mean((values[rounds == r] - labels[rounds == r]) ** 2)
                     - (np.mean(noise[rounds == r]) if noise is not None else 0.0)) for r in (1, 2, 3)}


def by_round(values, labels, rounds, noise=None):
    return " ".join(f"r{r} {e:.5f}" for r, e in errors(values, labels, rounds, noise).items())


def onpath(n, k):
    X, Y, R, G = load()
    pick = np.sort(np.random.default_rng(7).choice(np.nonzero(held_out(G))[0], n, replace=False))
    rows = dnp_lines(set(pick.tolist()))
    tv, tvar = np.array([taker_mean(Position.parse(rows[i][0]).core, k, 1000 * j) for j, i in enumerate(pick)]).T
    y, r = Y[pick], R[pick]
    for rr, e in errors(tv, y, r, tvar).items():
        print(f"round {rr}: n {(r == rr).sum()} taker mse {e:.5f}, constant {np.var(y[r == rr]):.5f}")


def offpath(k, nets):
    Xs, Ys, dnps = [], [], []
    for part in (0, 1):
        d = np.load(f"offpath_test_{part}.npz")
        Xs.append(d["X"]); Ys.append(d["Y"])
        dnps += open(f"offpath_test_{part}.dnp").read().split("\n")[:len(d["Y"])]
    X, Y = np.concatenate(Xs).astype(np.float32), np.concatenate(Ys)
    R = X[:, :3].argmax(1) + 1
    for path in nets:
        print(path, by_round(MLP.read(path).predict(X), Y, R))
    if k:
        tv, tvar = np.array([taker_mean(Position.parse(d).core, k, 31 * n) for n, d in enumerate(dnps)]).T
        print("taker", by_round(tv, Y, R, tvar))
    print("constant", " ".join(f"r{r} {np.var(Y[R == r]):.5f}" for r in (1, 2, 3)), "n", len(Y))


def siblings(k, nets):
    rows = [r for part in (0, 1) for r in json.load(open(f"sib_{part}.json"))]
    groups = defaultdict(list)
    for n, r in enumerate(rows):
        groups[r[0]].append(n)
    values = {}
    for path in nets:
        s = net_searcher(path)
        values[path] = [s.net_check(Position.parse(r[1]).core) for r in rows]
    if k:
        values["taker"] = [taker_mean(Position.parse(r[1]).core, k, 97 * n)[0] for n, r in enumerate(rows)]
    values["the engine's move"] = None
    for name, v in values.items():
        regrets, agree, pairs = [], 0, 0
        for members in groups.values():
            sign = 1 if rows[members[0]][2] == 0 else -1   # the mover's side
            ref = np.array([sign * rows[n][3] for n in members])
            own = np.array([float(rows[n][5]) for n in members]) if v is None else np.array([sign * v[n] for n in members])
            regrets.append(ref.max() - ref[np.argmax(own)])
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    if own[a] != own[b] and ref[a] != ref[b]:
                        agree += np.sign(own[a] - own[b]) == np.sign(ref[a] - ref[b]); pairs += 1
        regrets = np.array(regrets)
        print(f"{name}: regret {regrets.mean():.4f} ± {1.96 * regrets.std() / np.sqrt(len(regrets)):.4f}, "
              f"pairwise concordance {agree / max(pairs, 1):.3f} ({len(regrets)} parents)")
    print(f"reference noise: variance of a child's mean {np.mean([r[4] for r in rows]):.5f}")


def engine(net, n_pos, k):
    rng = np.random.default_rng(11)
    rows = dnp_lines(set(rng.choice(candidates("test", 0, 1), n_pos * 2, replace=False).tolist()))
    s = net_searcher(net)
    agree = {"net": [], "taker": []}
    n = 0
    for i in sorted(rows):
        dnp, tok = rows[i]
        p = Position.parse(dnp)
        moves = p.legal_moves()
        if len(moves) < 2:
            continue
        sign = 1 if p.to_move == 0 else -1
        vals = {"net": [], "taker": []}
        for j, m in enumerate(moves):
            q = p.play(m).core
            if q.is_over or q.round != p.round:
                vn = vt = end_value(q)
            else:
                vn, vt = s.net_check(q), taker_mean(q, k, 7919 * n)[0]
            vals["net"].append(sign * vn); vals["taker"].append(sign * vt)
        chosen = [str(m) for m in moves].index(tok)
        for key in agree:
            agree[key].append(int(np.argmax(vals[key]) == chosen))
        n += 1
        if n >= n_pos:
            break
    for key, a in agree.items():
        a = np.array(a)
        print(f"{key}: agrees with the engine's move {a.mean():.3f} ± {1.96 * a.std() / np.sqrt(len(a)):.3f} ({len(a)} positions)")


def twin(net):
    s, mlp = net_searcher(net), MLP.read(net)
    worst, n = 0.0, 0
    with open("data.dnp") as fh:
        for i, line in enumerate(fh):
            if i % 5003 == 0:
                p = Position.parse(line.split("\t")[0])
                worst = max(worst, abs(s.net_check(p.core) - float(mlp.predict(features(p)[None, :])[0])))
                n += 1
    print(f"{n} positions, largest difference {worst:.2e}")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "onpath":
        onpath(int(args[0]), int(args[1]))
    elif cmd == "offpath":
        offpath(int(args[0]), args[1:])
    elif cmd == "siblings":
        siblings(int(args[0]), args[1:])
    elif cmd == "engine":
        engine(args[0], int(args[1]), int(args[2]))
    elif cmd == "twin":
        twin(args[0])
