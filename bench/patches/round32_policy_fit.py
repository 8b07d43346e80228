"""Scratch (bench/STRENGTH.md round 32): a softmax policy fitted on the engines' recorded decisions.

Every decision of rounds 1-3 with more than one legal move in the first 4,000 games of the match
files given (both players' choices: the engines of tests 38 and 40), each legal move described by
NF features (move_features: the take's worth to each side, the hand's size and its worth to the
opponent once the mover has taken; a play's worth to each side by who has taken, how many of its
kind the hand holds, a city), fitted by L-BFGS on 4/5 of the decisions and scored on the rest:

    PYTHONPATH=<main> python bench/patches/round32_policy_fit.py bench/matches/t40_h2.jsonl.gz bench/matches/t38_exp3.jsonl.gz

    116935 decisions
    uniform nll 1.2132 fitted train 1.0567 test 1.0344
    theta [-0.948, 0.461, 0.45, -1.021, -1.529, -1.29, -0.529, -0.502, -0.312, -0.047, 1.846, -0.468]

It writes the weights to theta.txt, the DNOIR_PRIOR_THETA of bench/patches/round32_screens.patch
(whose policy_logits computes the same features in C: checked on 295 random positions, largest
difference 9e-16). Needs scipy.
"""
import gzip, json, sys
import numpy as np
from solver.rules.cards import Move
from solver.rules.position import Position

VAL = [5, 6, 7, 8, 2, 3, 4, -1, -2, -3, 0]
def card_worth(colls, p, k):
    if k == 10:
        c = colls[p][10]
        return 40 if c == 2 else (12 if c == 1 else 4)
    if k < 4 and colls[p][k] > colls[1 - p][k]:
        return 8
    return 4 * VAL[k]

def take_worth(pos, p):
    return sum(card_worth(pos.colls, p, k) for k in pos.in_reach)

NF = 12
def move_features(pos, m, hand=None):
    """features of move m (kind 0..10 or 11) for the mover of pos, holding `hand` (counts per
    kind; default the mover's hand in pos)"""
    p = pos.to_move; q = 1 - p
    hand = pos.hands[p] if hand is None else hand
    me_taken = (pos.taken >> p) & 1; they_taken = (pos.taken >> q) & 1
    f = np.zeros(NF)
    if m == 11:
        f[0] = 1
        f[1] = take_worth(pos, p) / 16
        f[2] = take_worth(pos, q) / 16
        f[3] = (pos.hand_sizes[p]) / 5
        f[4] = they_taken
        # worth to the opponent of what I would give away after taking: my hand's worth to it
        f[5] = sum(card_worth(pos.colls, q, k) * hand[k] for k in range(11)) / 16 / max(1, sum(hand))
    else:
        wq = card_worth(pos.colls, q, m) / 16; wp = card_worth(pos.colls, p, m) / 16
        f[6] = wq * (me_taken and not they_taken)     # what it gives the one still to take
        f[7] = wp * (they_taken and not me_taken)     # what I will take back myself
        f[8] = wq * (not me_taken and not they_taken)
        f[9] = wp * (not me_taken and not they_taken)
        f[10] = hand[m] / 5                            # how many of the kind I hold
        f[11] = 1.0 if m == 10 else 0.0
    return f

def log_policy(x, theta):
    """The policy's log-probabilities of the moves whose features are the rows of x."""
    s = x @ theta
    s = s - s.max()
    return s - np.log(np.exp(s).sum())

def decisions(paths, limit=None):
    X, G = [], []   # per decision: (n_moves, NF) features, chosen index
    n = 0
    for path in paths:
        with gzip.open(path, "rt") as fh:
            for line in fh:
                g = json.loads(line)
                if "deal" not in g: continue
                pos = Position.parse(g["deal"])
                for tok in g["moves"].split():
                    if pos.is_over: break
                    if pos.round < 4:
                        legal = [mv.index for mv in pos.legal_moves()]
                        if len(legal) > 1:
                            chosen = legal.index(Move(tok).index)
                            X.append(np.array([move_features(pos, m) for m in legal])); G.append(chosen)
                    pos = pos.play(tok)
                n += 1
                if limit and n >= limit: return X, G
    return X, G

def fit(X, G, iters=300, l2=1e-3):
    theta = np.zeros(NF)
    def nll_grad(th):
        tot = 0.0; grad = np.zeros(NF)
        for x, g in zip(X, G):
            lp = log_policy(x, th)
            tot -= lp[g]; grad -= x[g] - np.exp(lp) @ x
        return tot / len(X) + l2 * th @ th, grad / len(X) + 2 * l2 * th
    from scipy.optimize import minimize
    r = minimize(nll_grad, theta, jac=True, method="L-BFGS-B", options={"maxiter": iters})
    return r.x, r.fun

if __name__ == "__main__":
    X, G = decisions(sys.argv[1:], limit=int(4000))
    print(len(X), "decisions")
    unif = np.mean([np.log(len(x)) for x in X])
    cut = len(X) * 4 // 5
    th, f = fit(X[:cut], G[:cut])
    test = [-log_policy(x, th)[g] for x, g in zip(X[cut:], G[cut:])]
    print("uniform nll", round(unif, 4), "fitted train", round(f, 4), "test", round(float(np.mean(test)), 4))
    print("theta", np.round(th, 3).tolist())
    open("theta.txt", "w").write(",".join("%.6f" % x for x in th))
