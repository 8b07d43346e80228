"""Shared parts of the round-33 value-net scripts (bench/STRENGTH.md, round 33; README.md here).

The net's inputs (`features`, whose C twin is net_value in round33_screens.patch), the value the
labels and the playouts end with (`end_value`), a taker playout to its round's end, the dataset's
split by deal and the trained net read into a Searcher of the scratch tree (which must be first on
PYTHONPATH for `net_searcher`)."""
import numpy as np
from solver.rules.cards import COMPOSITION
from solver.solvers import roundmodel
from solver.solvers._ismcts import round_end_win_probability

N_FEATURES = 131
MODEL = roundmodel.weights()


def features(p):
    """The net's 131 inputs for a full position p (both hands known) of rounds 1-3."""
    f = np.zeros(N_FEATURES, np.float32)
    f[p.round - 1] = 1                       # 0-2: the round
    f[3] = 1.0 if p.to_move == 0 else 0.0    # a to move
    f[4] = 1.0 if p.first == 0 else 0.0      # a first this round
    f[5] = p.taken & 1                       # a has taken
    f[6] = (p.taken >> 1) & 1                # b has taken
    f[7] = p.actions[0] / 6
    f[8] = p.actions[1] / 6
    f[9:20], f[20:31] = p.hands              # both hands, counts per kind
    f[31:42], f[42:53] = p.colls             # both collections
    line = p.line                            # oldest first
    for i, k in enumerate(reversed(line[-5:])):
        f[53 + i * 11 + k] = 1               # the five newest cards, newest first, one-hot by kind
    in_line = np.zeros(11)
    for k in line:
        in_line[k] += 1
    for k in line[:-5]:
        f[108 + k] += 1                      # the older cards, counts per kind
    f[119] = len(line) / 10
    # the cards in no hand, collection or line: the deck and the removed cards
    f[120:131] = np.array(COMPOSITION) - np.add(p.hands[0], p.hands[1]) - np.add(p.colls[0], p.colls[1]) - in_line
    return f


def end_value(core):
    """P(a wins) where a round ended: the round-end model's value (the search's, no third-city
    rule), or the result of a finished game (a city win) as 1, 1/2 or 0."""
    if core.is_over:
        winner = core.outcome()[0]
        return 1.0 if winner == 0 else (0.0 if winner == 1 else 0.5)
    return round_end_win_probability(core, MODEL)


def taker_playout(core, seed):
    """The state where a taker playout from `core` leaves its round (the search's playout)."""
    r0, i = core.round, 0
    while not core.is_over and core.round == r0:
        core = core.play(core.playout_move("taker", seed * 1000003 + i))
        i += 1
    return core


def play_round(pos, bots):
    """The position where `pos`'s round ends (or the game), each move chosen by bots[mover] from
    the mover's view."""
    r0 = pos.round
    while not pos.is_over and pos.round == r0:
        pos = pos.play(bots[pos.to_move].choose(pos.view(pos.to_move)))
    return pos


def taker_mean(core, k, seed):
    """The mean and the variance of the mean of end_value over k taker playouts from core."""
    vals = [end_value(taker_playout(core, seed + j)) for j in range(k)]
    return float(np.mean(vals)), float(np.var(vals, ddof=1) / k)


def load(path="data.npz"):
    d = np.load(path)
    return d["X"].astype(np.float32), d["Y"].astype(np.float32), d["R"], d["G"]


def held_out(G):
    """The test positions: one deal in five (by the deal's checksum, so a pair's two games go together)."""
    return (G % 5) == 0


def net_arrays(path):
    d = np.load(path)
    return [d[f"arr_{i}"] for i in range(6)]   # W1, W2, W3, b1, b2, b3 (train.py's order)


def net_searcher(path):
    """A Searcher of the scratch tree holding the net, for its net_check (the C forward pass)."""
    from solver.solvers._ismcts import Searcher
    s = Searcher(max_nodes=100)
    s.set_net(net_arrays(path))
    return s


def candidates(which, part, parts):
    """The indices of data.npz's positions of one part (index % parts) of the training deals
    ('train') or the held-out ones ('test')."""
    X, Y, R, G = load()
    rows = np.nonzero(held_out(G) if which == "test" else ~held_out(G))[0]
    return rows[(rows % parts) == part]


def picked_positions(wanted, path="data.dnp"):
    """(index, DNP, the move made) of the lines of data.dnp whose index is in `wanted`, in order."""
    with open(path) as fh:
        for i, line in enumerate(fh):
            if i in wanted:
                dnp, tok = line.rstrip("\n").split("\t")
                yield i, dnp, tok
