"""The tail solver's game value against the sequence-form LP (tests/test_game.py's) on small round tails.

    DNOIR_TAIL=4 PYTHONPATH=<scratch tree> python tail_lp.py BOOK N COUNT

From each of the first COUNT positions of BOOK (e.g. bench/books/round3_r17.txt), random moves
until N actions or fewer are left in the round; the tail with both hands hidden is solved by the
scratch tree's CFR+ (2,000 iterations) and by the LP over the reference's walk, whose leaves are
the round's ends valued by the round-end model (the compiled one the search reads).
"""
import os
import random
import sys

import solver
sys.path.insert(0, os.path.join(os.path.dirname(solver.__file__), "..", "tests"))
import test_game as tg  # noqa: E402
from solver.rules.position import Position
from solver.solvers import equilibrium as eq
from solver.solvers._ismcts import round_end_win_probability
from solver.solvers.roundmodel import weights

W = weights()
ROOT_ROUND = [None]


class TailNode(tg.RefNode):
    def is_over(self):
        return self.core.is_over or self.core.round != ROOT_ROUND[0]

    def play(self, token):
        return TailNode(self.core.play(tg.Move.parse(token).index))


def reference_root(pos, hand_a, hand_b):
    dealt = Position(line=pos.line, hands=(tg.counts_of_tokens(hand_a), tg.counts_of_tokens(hand_b)),
                     hand_sizes=pos.hand_sizes, colls=pos.colls, round=pos.round, to_move=pos.to_move,
                     taken=pos.taken)
    return TailNode(dealt.core)


def utility_a(state):
    if not state.core.is_over:
        return round_end_win_probability(state.core, W)
    winner = state.core.outcome()[0]
    return 1.0 if winner == 0 else 0.0 if winner == 1 else 0.5


tg.reference_root = reference_root
tg.utility_a = utility_a

book, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lines = [l.strip() for l in open(book) if l.strip() and not l.startswith("#")]
rng = random.Random(2)
worst = 0
for line in lines[:count]:
    pos = Position.parse(line)
    while not pos.is_over and eq.actions_left(pos) > n:
        pos = pos.play(rng.choice(pos.legal_moves()))
    if pos.is_over:
        continue
    ROOT_ROUND[0] = pos.round
    pub = Position(line=pos.line, hands=(None, None), hand_sizes=pos.hand_sizes, colls=pos.colls,
                   round=pos.round, to_move=pos.to_move, taken=pos.taken)
    lp = tg.lp_game_value(pub)
    tree = eq.GameTree(pub.core, eq.game_pool(pub), pub.hand_sizes)
    tree.build()
    tree.iterate(2000)
    v = tree.profile_value()
    expl = tree.exploitability()[2]
    worst = max(worst, abs(v - lp))
    print(f"{pub}  lp {lp:.6f}  cfr {v:.6f}  expl {expl:.1e}  diff {v - lp:+.1e}")
print("worst", worst)
