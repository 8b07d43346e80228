"""Off-path positions labelled by search play: from a position of data.npz (training or held-out
deals), a legal move the engine did not make, then 0 to DEV-1 random moves more within the round;
the round's rest is played by two ISMCTS bots of ITERS iterations a move, each from its own view
(hidden hands), and the position is labelled by end_value where the round ends.

    python label_search.py train|test PART PARTS COUNT ITERS [DEV [TAG]]

writes offpath{TAG}_{train|test}_{PART}.npz (X, Y) and .dnp. The round's files:
    train 0 2 80000 3000; train 1 2 80000 3000      (one deviation)
    train 0 2 60000 3000 3 dev3; train 1 2 60000 3000 3 dev3
    test 0 2 1500 3000; test 1 2 1500 3000
"""
import sys, time, zlib
import numpy as np
from solver.rules.position import Position
from solver.agents.bots import make_bot
from common import features, end_value, candidates, picked_positions, play_round

which, part, parts, count, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
DEV = int(sys.argv[6]) if len(sys.argv) > 6 else 1
TAG = sys.argv[7] if len(sys.argv) > 7 else ""

rng = np.random.default_rng(1000 + part + (0 if which == "train" else 500)
                            + (7919 * DEV + zlib.crc32(TAG.encode()) % 100000 if TAG else 0))
pick = set(rng.choice(candidates(which, part, parts), count * 3, replace=False).tolist())
bots = [make_bot(f"ismcts:iterations={iters}", seed=17 + part), make_bot(f"ismcts:iterations={iters}", seed=29 + part)]
F, L, D = [], [], []
t0 = time.time()
for i, dnp, tok in picked_positions(pick):
    p = Position.parse(dnp)
    others = [m for m in p.legal_moves() if str(m) != tok]
    if not others:
        continue
    q = p.play(others[rng.integers(len(others))])
    if q.is_over or q.round != p.round:
        continue
    for _ in range(int(rng.integers(DEV))):
        moves = q.legal_moves()
        q2 = q.play(moves[rng.integers(len(moves))])
        if q2.is_over or q2.round != p.round:
            break
        q = q2
    F.append(features(q)); L.append(end_value(play_round(q, bots).core)); D.append(str(q))
    if len(L) % 200 == 0:
        print(len(L), f"{time.time() - t0:.0f}s", flush=True)
    if len(L) >= count:
        break
np.savez(f"offpath{TAG}_{which}_{part}.npz", X=np.array(F), Y=np.array(L, np.float32))
open(f"offpath{TAG}_{which}_{part}.dnp", "w").write("\n".join(D) + "\n")
print("done", len(L), f"{time.time() - t0:.0f}s")
