"""Reference values of siblings: for COUNT held-out parents with two children or more that do not
end the round, every such child labelled by the mean end_value of L continuations of the round by
two ISMCTS bots of ITERS iterations a move (each from its own view).

    python sibling_labels.py PART PARTS COUNT L ITERS      (the round's: 0 2 150 8 3000; 1 2 150 8 3000)

writes sib_{PART}.json: [parent index, child DNP, mover, mean, variance of the mean, the engine's move?]."""
import sys, json, time
import numpy as np
from solver.rules.position import Position
from solver.agents.bots import make_bot
from common import end_value, candidates, picked_positions, play_round

part, parts, count, L, iters = (int(a) for a in sys.argv[1:6])
rng = np.random.default_rng(5000 + part)
pick = set(rng.choice(candidates("test", part, parts), count * 3, replace=False).tolist())
out, done, t0 = [], 0, time.time()
for i, dnp, tok in picked_positions(pick):
    p = Position.parse(dnp)
    kids = [(m, p.play(m)) for m in p.legal_moves()]
    kids = [(m, q) for m, q in kids if not q.is_over and q.round == p.round]
    if len(kids) < 2:
        continue
    for m, q0 in kids:
        labels = []
        for j in range(L):
            bots = [make_bot(f"ismcts:iterations={iters}", seed=1 + 7 * j + 1000 * done),
                    make_bot(f"ismcts:iterations={iters}", seed=2 + 7 * j + 1000 * done)]
            labels.append(end_value(play_round(q0, bots).core))
        out.append((i, str(q0), p.to_move, float(np.mean(labels)), float(np.var(labels, ddof=1) / L), str(m) == tok))
    done += 1
    if done % 20 == 0:
        print(done, f"{time.time() - t0:.0f}s", flush=True)
    if done >= count:
        break
json.dump(out, open(f"sib_{part}.json", "w"))
print("done", done, len(out), f"{time.time() - t0:.0f}s")
