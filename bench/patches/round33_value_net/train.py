"""Train the value net: P(a wins) where the position's round ends.

    python train.py HIDDEN EPOCHS OUT [EXTRA.npz ...]

on data.npz's training positions (four deals in five) plus, twice each, the off-path positions
of the EXTRA files (label_search.py's); prints the held-out on-path error after each epoch. The
last two epochs run at a third of the learning rate."""
import sys, time
import numpy as np
from common import load, held_out
from mlp import MLP


def report(net, X, Y, R):
    p = net.predict(X)
    for r in (1, 2, 3):
        s = R == r
        print(f"  held out, round {r}: mse {np.mean((p[s] - Y[s]) ** 2):.5f} (constant {np.var(Y[s]):.5f})", flush=True)


if __name__ == "__main__":
    hidden, epochs, out = [int(h) for h in sys.argv[1].split(",")], int(sys.argv[2]), sys.argv[3]
    X, Y, R, G = load()
    test = held_out(G)
    Xtr, Ytr = X[~test], Y[~test]
    for path in sys.argv[4:]:
        d = np.load(path)
        Xtr = np.concatenate([Xtr] + [d["X"].astype(np.float32)] * 2)
        Ytr = np.concatenate([Ytr] + [d["Y"].astype(np.float32)] * 2)
        print("with", path, len(d["Y"]), "x 2", flush=True)
    print(len(Y), "on-path positions,", test.sum(), "held out;", len(Ytr), "training rows")
    net = MLP([X.shape[1]] + hidden + [1])
    rng = np.random.default_rng(1)
    for epoch in range(epochs):
        t = time.time()
        perm = rng.permutation(len(Ytr))
        lr = 1e-3 if epoch < epochs - 2 else 3e-4
        for i in range(0, len(perm), 512):
            idx = perm[i:i + 512]
            net.step(Xtr[idx], Ytr[idx], lr)
        print(f"epoch {epoch} {time.time() - t:.0f}s", flush=True)
        report(net, X[test], Y[test], R[test])
    net.save(out)
