"""Scratch (bench/STRENGTH.md round 32): how much the fitted policy (round32_policy_fit.py) says
about a mover's hand through the move it made, beyond what the uniform world sampler knows.

For each decision of the first 150 games, the mover's true hand H against 40 hands the other
player's sampler could give it (a played card's kind put back in), each weighted as inference
would weight its world: the policy's probability of the move made, over the number of cards of the
played kind (the sampler already draws hands holding more of it more often). The mean of
log w(H) - log mean w(H') is the information inference would gain per move, in nats:

    PYTHONPATH=<main> python bench/patches/round32_policy_info.py bench/matches/t40_h2.jsonl.gz

    play 3712 mean info (nats) 0.0443 +- 0.0031
    take 643 mean info (nats) -0.0246 +- 0.0123

(run where theta.txt is; the takes' negative mean is the estimator's bias with 40 hands: they say
nothing). About 0.04 nats a play, against round 10's 0.01 for the search's own statistics.
"""
import gzip, json, sys, random
import numpy as np
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from round32_policy_fit import log_policy, move_features
from solver.rules.position import Position
from solver.rules.cards import Move, COMPOSITION

th = np.array([float(x) for x in open("theta.txt").read().split(",")])
rng = random.Random(1)

def logpi(pos, hand, a):
    """The policy's log-probability of move a for the mover of pos holding `hand`."""
    legal = [k for k in range(11) if hand[k] > 0]
    if not (pos.taken >> pos.to_move) & 1 and pos.line: legal.append(11)
    if a not in legal: return -np.inf
    return log_policy(np.array([move_features(pos, m, hand) for m in legal]), th)[legal.index(a)]

infos = {"play": [], "take": []}
n = 0
for path in sys.argv[1:]:
    for line in gzip.open(path, "rt"):
        g = json.loads(line); pos = Position.parse(g["deal"])
        for tok in g["moves"].split():
            if pos.is_over or pos.round >= 4: break
            p = pos.to_move; o = 1 - p
            a = Move(tok).index
            if len(pos.legal_moves()) > 1:
                pool = [COMPOSITION[k] - pos.hands[o][k] - pos.colls[0][k] - pos.colls[1][k] - pos.line.count(k) for k in range(11)]
                cards = [k for k in range(11) for _ in range(pool[k])]
                H = list(pos.hands[p]); size = sum(H)
                def w(hand):
                    lp = logpi(pos, tuple(hand), a)
                    return lp - (np.log(hand[a]) if a < 11 else 0.0)
                wt = w(H)
                alts = []
                for _ in range(40):
                    c = list(cards)
                    if a < 11: c.remove(a)
                    rng.shuffle(c)
                    hh = [0] * 11
                    for k in c[: size - (1 if a < 11 else 0)]: hh[k] += 1
                    if a < 11: hh[a] += 1
                    alts.append(w(hh))
                alts = np.array(alts); mx = alts.max()
                infos["take" if a == 11 else "play"].append(wt - (mx + np.log(np.mean(np.exp(alts - mx)))))
            pos = pos.play(tok)
        n += 1
        if n >= 150: break
for k, v in infos.items():
    print(k, len(v), "mean info (nats)", round(float(np.mean(v)), 4), "+-", round(float(np.std(v) / np.sqrt(len(v))), 4))
