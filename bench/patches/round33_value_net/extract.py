"""The on-path dataset: every position of rounds 1-3 of recorded engine games, with both hands,
labelled by end_value where its round ended in that game (the engines' own play). Writes data.npz
(X features, Y labels, R rounds, G deal checksums) and data.dnp (each position's DNP and the move
made, one a line, in the same order).

    M=<main>; python extract.py data $(git -C $M ls-tree --name-only 6a0ab87 bench/matches/ | grep -v spsa | sed "s|^|$M/|")

(the 49 game files of bench/matches at 6a0ab87, in name order; later rounds add more).
"""
import gzip, json, sys, zlib
import numpy as np
from solver.rules.position import Position
from solver.bench.round4_loss import is_game_record
from common import features, end_value


def games(paths):
    for path in paths:
        for line in gzip.open(path, "rt"):
            record = json.loads(line)
            if is_game_record(record):   # not an SPSA batch
                yield record


def main(out, paths):
    X, Y, R, G, rows = [], [], [], [], []
    for n, g in enumerate(games(paths), 1):
        p = Position.parse(g["deal"])
        gid = zlib.crc32(g["deal"].encode())
        pending = []
        for tok in g["moves"].split():
            if p.is_over or p.round >= 4:
                break
            q = p.play(tok)
            pending.append((p, tok))
            if q.is_over or q.round != p.round:
                y = end_value(q.core)
                for s, t in pending:
                    X.append(features(s)); Y.append(y); R.append(s.round); G.append(gid)
                    rows.append(f"{s}\t{t}\n")
                pending = []
            p = q
        if n % 5000 == 0:
            print(n, len(Y), flush=True)
    np.savez_compressed(out, X=np.array(X), Y=np.array(Y, np.float32), R=np.array(R, np.int8),
                        G=np.array(G, np.uint32))
    with open(out + ".dnp", "w") as fh:
        fh.writelines(rows)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
