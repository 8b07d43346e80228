"""What pondering adds to a move's search (bench/STRENGTH.md, round 26).

In-process games of a bot SPEC (seat a) against the default at 100 ms a move (seat b); while b
thinks, a ponders if its spec says `ponder=1` (searches on below the move it just gave, as
`dnoir engine --ponder` does). For each of a's searched moves before round 4 this reads the
root visits kept from the last move (`Advice.reused`) and the new iterations, and prints their
means: pondering is worth what it adds to the kept visits.

    python bench/patches/round26_ponder_kept.py SPEC --games N [--first-deal D]

Round 26, the machine otherwise idle, 4 games from deal 500 (72 moves each way):
`ismcts:time=0.1` kept 15,165 root visits a move on 98,492 new iterations (15%);
`ismcts:time=0.1,ponder=1` kept 25,526 on 98,156 (26%). Pondering adds about 10,400 visits,
a tenth of a move's search.
"""

import statistics

import solver.agents.bots as bots
from solver import Position
from solver.agents.bots import make_bot
from solver.bench.root_choice import OneLineParser, whole
from solver.rules.notation import PLAYERS

OPPONENT = "ismcts:time=0.1"


def main(argv=None) -> None:
    parser = OneLineParser(prog="python bench/patches/round26_ponder_kept.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--games", type=whole(1, 10_000), required=True, metavar="1..10000")
    parser.add_argument("--first-deal", type=whole(0, 2**50), default=500, metavar="0..2**50")
    args = parser.parse_args(argv)
    advices = []
    search = bots.advise

    def recording(*a, **k):  # the bots call solver.agents.bots.advise: record what it answers
        advice = search(*a, **k)
        advices.append(advice)
        return advice

    bots.advise = recording
    kept, made = [], []
    for g in range(args.games):
        ours, theirs = make_bot(args.spec, seed=g), make_bot(OPPONENT, seed=1000 + g)
        ours.new_game()
        theirs.new_game()
        pos = Position.random_deal(args.first_deal + g)
        while not pos.is_over:
            view = pos.view(PLAYERS[pos.to_move])
            if pos.to_move == 0:
                advices.clear()
                move = ours.choose(view)
                if pos.round < 4 and advices and not advices[0].exact:
                    kept.append(advices[0].reused)
                    made.append(advices[0].iterations)
            else:
                with ours.pondering():
                    move = theirs.choose(view)
            pos = pos.play(move)
    print(f"{args.spec}: {len(kept)} moves, {statistics.mean(kept):,.0f} root visits kept a move on "
          f"{statistics.mean(made):,.0f} new iterations ({sum(kept) / sum(made):.0%})")


if __name__ == "__main__":
    main()
