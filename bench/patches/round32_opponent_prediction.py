"""Scratch (round 32): how well the tree's opponent predicts the real opponent. At each decision of
the recorded games where the mover (the observer) is followed by an opponent's decision with a
choice, the default search from the observer's view (20,000 iterations), its node below the move
actually made: the opponent's children's visit shares, restricted to the moves its true hand
allows, as a prediction of the move it made; against uniform over those moves and the fitted
policy of round32_policy_fit.py (its weights in theta.txt where it runs):

    PYTHONPATH=<main> python bench/patches/round32_opponent_prediction.py bench/matches/t36_poly.jsonl.gz 700

    tree     1.1713 +- 0.0091 (6236 opponent decisions)
    uniform  1.2876 +- 0.0038 (6236 opponent decisions)
    policy   1.1229 +- 0.0067 (6236 opponent decisions)
    mix      1.0852 +- 0.0060 (6236 opponent decisions)

(nats a decision; test 36's games, which the policy was not fitted on; about a minute.)"""
import gzip, json, sys
import numpy as np
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from round32_policy_fit import log_policy, move_features
from solver.rules.position import Position
from solver.rules.cards import Move
from solver.solvers.search import IsmctsSearch, DEFAULT_CONFIG

th = np.array([float(x) for x in open("theta.txt").read().split(",")])
nll = {"tree": [], "uniform": [], "policy": [], "mix": []}
games = 0
for line in gzip.open(sys.argv[1], "rt"):
    g = json.loads(line)
    pos = Position.parse(g["deal"])
    toks = g["moves"].split()
    for t, tok in enumerate(toks[:-1]):
        if pos.is_over or pos.round >= 4:
            break
        after = pos.play(tok)
        if after.is_over or after.round != pos.round or after.to_move == pos.to_move:
            pos = after; continue
        legal = [m.index for m in after.legal_moves()]
        if len(legal) > 1 and t % 3 == 0:
            view = pos.view("ab"[pos.to_move])
            s = IsmctsSearch(view, threads=1, seed=t, config=DEFAULT_CONFIG)
            s.run(iterations=20000)
            stats = s.searchers[0].node_stats((Move(tok).index,))
            actual = Move(toks[t + 1]).index
            v = np.array([stats[m].visits if m in stats else 0 for m in legal], float) + 0.5
            pt = v / v.sum()
            pp = np.exp(log_policy(np.array([move_features(after, m) for m in legal]), th))
            i = legal.index(actual)
            nll["tree"].append(-np.log(pt[i])); nll["uniform"].append(np.log(len(legal)))
            nll["policy"].append(-np.log(pp[i])); nll["mix"].append(-np.log(0.5 * pt[i] + 0.5 * pp[i]))
        pos = after
    games += 1
    if games >= int(sys.argv[2]):
        break
for k, v in nll.items():
    print(f"{k:8s} {np.mean(v):.4f} +- {np.std(v) / np.sqrt(len(v)):.4f} ({len(v)} opponent decisions)")
