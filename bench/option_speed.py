"""Iterations a CPU second of the ISMCTS with search options against the same search without
them, in one process, on positions from every round: what an option costs or saves in speed
(its effect on strength is bench/STRENGTH.md's business).

    python -m solver.bench.option_speed tree_rounds=1 settled_stop=1 [--base default]
        [--positions 40] [--iterations 40000] [--repeats 2] [--seed 5]
    python -m solver.bench.option_speed margin=0.2 --base 7d9ffe8

Each KEY=VALUE is a setting as the `ismcts:` spec keys name it (`from_options`: `margin`,
`tuned=1`, ...) given on top of the `--base` preset (the base is the preset itself; the margin
term and UCB1-Tuned need played-out games, so their base is `7d9ffe8`, which plays them out). The
positions come from random play (each a random number of actions into a deal, the mover's
view, at least two legal moves); every position is searched by the base and
then by the candidate with the same seed and iterations, `repeats` times over, so a drift in the
machine's speed hits both alike. It prints the ratio of CPU times base / candidate (above 1: the
candidate is faster) over all positions and for each round.

>>> r = measure(from_options(settled_stop=1), count=2, iterations=200, repeats=1, seed=1)
>>> sorted(r) == ["by_round", "positions", "speedup"] and r["positions"] == 2
True
"""

from __future__ import annotations

import argparse
import random
import time

from solver.bench.root_choice import OneLineParser, whole
from solver.errors import ArgumentError
from solver.rules.position import Position
from solver.solvers.search import IsmctsSearch
from solver.solvers.searchconfig import OPTIONS, PRESETS, SearchConfig, from_options


def study_views(count: int, seed: int) -> list[Position]:
    """`count` views, to move, from random play, each with at least two legal moves."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.random_deal(rng.getrandbits(32))
        for _ in range(rng.randrange(0, pos.moves_left)):
            pos = pos.play(rng.choice(pos.legal_moves()))
            if pos.is_over:
                break
        if not pos.is_over and len(pos.legal_moves()) >= 2:
            out.append(pos.view("ab"[pos.to_move]))
    return out


def _cpu_seconds(view: Position, config: SearchConfig, iterations: int, seed: int) -> float:
    search = IsmctsSearch(view, threads=1, seed=seed, config=config)
    try:
        start = time.process_time()
        search.run(iterations=iterations)
        return time.process_time() - start
    finally:
        search.close()


def measure(candidate: SearchConfig, count: int = 40, iterations: int = 40_000, repeats: int = 2,
            seed: int = 5, base: SearchConfig = PRESETS["default"]) -> dict:
    """{'speedup', 'by_round', 'positions'}: CPU time of the `base` search over the candidate's."""
    views = study_views(count, seed)
    spent: dict[int, list[float]] = {}
    for _ in range(repeats):
        for k, view in enumerate(views):
            row = spent.setdefault(view.round, [0.0, 0.0])
            row[0] += _cpu_seconds(view, base, iterations, k)
            row[1] += _cpu_seconds(view, candidate, iterations, k)
    total = [sum(row[i] for row in spent.values()) for i in (0, 1)]
    return dict(speedup=round(total[0] / total[1], 3), positions=count,
                by_round={r: round(a / b, 3) for r, (a, b) in sorted(spent.items())})


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: give KEY=VALUE")
    for kind in (int, float):
        try:
            return key, kind(value)
        except ValueError:
            pass
    return key, value


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.option_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("options", nargs="+", type=_option, metavar="KEY=VALUE")
    parser.add_argument("--positions", type=whole(1, 100_000), default=40, metavar="1..100000")
    parser.add_argument("--iterations", type=whole(100, 10_000_000), default=40_000, metavar="100..10000000")
    parser.add_argument("--repeats", type=whole(1, 100), default=2, metavar="1..100")
    parser.add_argument("--seed", type=whole(0, 2**32 - 1), default=5, metavar="0..4294967295")
    parser.add_argument("--base", choices=tuple(PRESETS), default="default",
                        help="the preset the settings are given on top of, and measured against")
    args = parser.parse_args(argv)
    options = dict(args.options)
    unknown = sorted(set(options) - set(OPTIONS))  # a KEY names one of from_options' settings
    if unknown:
        parser.error(f"unknown search setting {unknown[0]!r} (one of {', '.join(OPTIONS)})")
    try:
        candidate = from_options(args.base, **options)
    except ArgumentError as e:
        parser.error(str(e))
    r = measure(candidate, args.positions, args.iterations, args.repeats, args.seed, base=PRESETS[args.base])
    rounds = ", ".join(f"round {k} x{v:.3f}" for k, v in r["by_round"].items())
    print(f"{' '.join(f'{k}={v}' for k, v in options.items())} against {args.base}: x{r['speedup']:.3f} "
          f"the iterations a CPU second ({rounds}; {r['positions']} positions, {args.iterations} iterations, "
          f"{args.repeats} repeats)")


if __name__ == "__main__":
    main()
