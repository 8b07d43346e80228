"""SPSA tuning of the search's numeric settings, the way fishtest tunes Stockfish's.

    python -m solver.bench.spsa BASE --param NAME=START,MIN,MAX,C_END,R_END [--param ...]
        --pairs N --out RUN.jsonl [--batch B] [--workers W] [--seed S]
        [--big-a A] [--alpha 0.602] [--gamma 0.101] [--resume]

BASE is a bot spec such as "ismcts:time=0.1" (its budget and any fixed setting); each
`--param` is one of its real-valued keys to tune (exploration, root_exploration,
opponent_exploration, opponent_hands, ...; not a whole number, a choice or the budget): its
start, its range, and fishtest's two step sizes. Simultaneous perturbation stochastic
approximation (Spall 1992), in fishtest's classic form:

- at pair k (counted from 1), every parameter i is perturbed by c_k = c / k**gamma, with
  c = C_END * N**gamma, so the last pair's perturbation is C_END;
- each duplicate pair (one deal, seats swapped) plays theta + c_k * flip against
  theta - c_k * flip, a random sign for each parameter (both clipped to the range), and its
  result is the wins less the losses of the plus side (-2 to 2);
- theta_i moves by (a_k / c_k) * result * flip_i, with a_k = a / (A + k)**alpha and
  a = R_END * C_END**2 * (A + N)**alpha (so a_k / c_k**2 = R_END at the last pair), and is
  clipped to its range.

A batch of B pairs (default: the workers) is played at one theta, each pair with its own
flips, and theta moves by their summed steps; every batch is a line of RUN.jsonl as soon as it
ends (its pairs, flips, results and theta after it), after a first line with the run's
settings. `--resume` replays the file, checking every batch against this code, and goes on,
only if its settings are this run's.
The flips, the deals and the games' seeds follow from the seed and the pair's number, so a run
of bots with a fixed number of iterations gives the same theta again, interrupted or not.
Ctrl-C or SIGTERM stops it once the batch under way is written (exit code 130; a second one
stops it at once), its worker processes with it. A SIGTERM sent to the workers too (to the
process group, or by `pkill -f`) stops them before the batch ends: the run stops the same way
with that batch lost, the ones before it kept.

It prints its progress with theta as it goes (stderr) and at the end (stdout), with the spec to play it. A tuned
value is a candidate, not a verdict: like any change it is kept only by an SPRT
(bench/STRENGTH.md). Choose C_END so that theta +- C_END differ by a few Elo, and R_END so
that theta can cross its range over the run (fishtest's 0.002 suits tens of thousands of pairs).

>>> schedule = Schedule(pairs=100, big_a=10, alpha=0.602, gamma=0.101)
>>> param = Param("exploration", 0.35, 0.1, 1.0, 0.05, 0.02)
>>> round(schedule.c(param, 100), 12), round(schedule.a(param, 100) / schedule.c(param, 100) ** 2, 12)
(0.05, 0.02)
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass

from solver.agents.arena import close_engines, score_for
from solver.agents.bots import BOTS, check_spec
from solver.agents.match import GameJob, play_job
from solver.agents.parallel import run_tasks
from solver.agents.progress import Progress
from solver.base.bounds import MAX_PAIRS, MAX_SEED
from solver.base.jsonl import OutputLock, cut_torn_tail, open_append, records
from solver.base.seeds import thread_seed
from solver.bench.root_choice import OneLineParser, whole
from solver.errors import DnoirError

MAX_BATCH = 1000
MAX_WORKERS = 256
NOT_TUNED = ("time",)  # the budget is the run's, not a setting to tune


@dataclass(frozen=True)
class Param:
    """One setting to tune: a numeric key of the base spec, its start, range and step sizes."""

    name: str
    start: float
    low: float
    high: float
    c_end: float  # the perturbation at the last pair
    r_end: float  # the learning rate a_k / c_k**2 at the last pair

    @classmethod
    def parse(cls, text: str) -> "Param":
        """NAME=START,MIN,MAX,C_END,R_END; ValueError naming what is wrong."""
        name, eq, rest = text.partition("=")
        numbers = rest.split(",")
        if not eq or not name.strip() or len(numbers) != 5:
            raise ValueError(f"{text[:60]!r} is not NAME=START,MIN,MAX,C_END,R_END")
        try:
            start, low, high, c_end, r_end = (float(x) for x in numbers)
        except ValueError:
            raise ValueError(f"{text[:60]!r}: START, MIN, MAX, C_END and R_END must be numbers") from None
        param = cls(name.strip(), start, low, high, c_end, r_end)
        if not low < high:
            raise ValueError(f"{param.name}: MIN {low:g} must be below MAX {high:g}")
        if not low <= start <= high:
            raise ValueError(f"{param.name}: START {start:g} is outside MIN..MAX ({low:g} to {high:g})")
        if not 0 < c_end <= (high - low) / 2:
            raise ValueError(f"{param.name}: C_END {c_end:g} must be above 0 and at most half the range")
        if not 0 < r_end <= 1e6:
            raise ValueError(f"{param.name}: R_END {r_end:g} is out of range (above 0, at most 1e6)")
        return param

    def clip(self, value: float) -> float:
        return min(self.high, max(self.low, value))


@dataclass(frozen=True)
class Schedule:
    """fishtest's classic gains over a run of `pairs` pairs (k counts pairs from 1)."""

    pairs: int
    big_a: float
    alpha: float
    gamma: float

    def c(self, param: Param, k: int) -> float:
        return param.c_end * self.pairs ** self.gamma / k ** self.gamma

    def a(self, param: Param, k: int) -> float:
        return param.r_end * param.c_end ** 2 * (self.big_a + self.pairs) ** self.alpha / (self.big_a + k) ** self.alpha


def flips_for(seed: int, pair: int, count: int) -> list[int]:
    """The signs of pair `pair`'s perturbation, one a parameter: a function of the seed and the pair only."""
    rng = random.Random(thread_seed(seed, pair))
    return [rng.choice((-1, 1)) for _ in range(count)]


def spec_with(base: str, params: list[Param], values: list[float]) -> str:
    """The base spec with each parameter's key set to its value (exactly: repr)."""
    keys = ",".join(f"{p.name}={float(v)!r}" for p, v in zip(params, values))
    return f"{base},{keys}" if ":" in base else f"{base}:{keys}"


def tunable_problem(base: str, name: str) -> str | None:
    """Why key `name` of the bot of spec `base` cannot be tuned here, or None: only settings
    that take any real number in a range (whole numbers, choices and the budget cannot)."""
    bot = base.partition(":")[0].strip()
    keys = BOTS[bot].KEYS if bot in BOTS else {}
    if name in NOT_TUNED:
        return f"{name!r} is the budget, not a setting to tune"
    if name in keys and keys[name].kind != "real":
        return f"{name!r} takes {keys[name].describe()}, not any real number: only real-valued settings are tuned"
    return None


def step(schedule: Schedule, params: list[Param], theta: list[float], k: int,
         flips: list[list[int]], results: list[float]) -> list[float]:
    """theta after a batch played at pair number `k` (its first pair's) with these flips and results."""
    moved = []
    for i, (param, value) in enumerate(zip(params, theta)):
        gain = schedule.a(param, k) / schedule.c(param, k)
        moved.append(param.clip(value + gain * sum(r * f[i] for r, f in zip(results, flips))))
    return moved


def pair_result(records: list[dict]) -> float:
    """Wins less losses of the pairing's first side (the plus one) over a pair's two games."""
    total = 0.0
    for record in records:
        seat = "a" if record["game"] == 0 else "b"  # the first side plays a in game 0
        total += 2 * score_for(record, seat) - 1
    return total


def play_batch(base: str, params: list[Param], schedule: Schedule, theta: list[float], first: int,
               size: int, seed: int, workers: int) -> tuple[list[list[int]], list[float], list[float]]:
    """Play pairs first .. first + size - 1 around theta: (their flips, their results, c_k)."""
    k = first + 1
    c = [schedule.c(p, k) for p in params]
    flips = [flips_for(seed, pair, len(params)) for pair in range(first, first + size)]
    jobs = []
    for pair, flip in zip(range(first, first + size), flips):
        plus = spec_with(base, params, [p.clip(t + ci * f) for p, t, ci, f in zip(params, theta, c, flip)])
        minus = spec_with(base, params, [p.clip(t - ci * f) for p, t, ci, f in zip(params, theta, c, flip)])
        jobs += [GameJob(plus, minus, pair, game, seed) for game in (0, 1)]
    by_pair: dict[int, list[dict]] = {}
    for record in run_tasks(play_job, jobs, workers=workers, at_exit=close_engines):
        by_pair.setdefault(record["pair"], []).append(record)
    results = [pair_result(by_pair[pair]) for pair in range(first, first + size)]
    return flips, results, c


def header(args, params: list[Param]) -> dict:
    return {"spsa": 1, "base": args.base, "params": [asdict(p) for p in params], "pairs": args.pairs,
            "batch": args.batch, "big_a": args.big_a, "alpha": args.alpha, "gamma": args.gamma, "seed": args.seed}


def _header_problem(line, head: dict) -> str | None:
    if not isinstance(line, dict) or line.get("spsa") != head["spsa"]:
        return "its first line is not an SPSA run's settings"
    differ = [key for key in head if line.get(key) != head[key]]
    return f"its settings differ from these in {', '.join(differ)}" if differ else None


def replay(parser, path: str, head: dict, schedule: Schedule, params: list[Param]) -> tuple[int, list[float]]:
    """(pairs done, theta) of an earlier run's file, every batch checked against this run's
    rules (its pairs, flips, gains and theta as this code makes them); parser.error otherwise.
    The file's settings are checked before anything in it is touched."""
    try:
        opening = next(iter(records(path)), None)  # (number, line, problem) of the first non-blank line
        if opening is not None:
            problem = opening[2] or _header_problem(opening[1], head)
            if problem:
                parser.error(f"{path} holds another tuning run ({problem}): resume it with its own "
                             "settings, or choose another --out")
        cut_torn_tail(path)  # a batch cut off by the interruption is played again
        done, theta = 0, [p.start for p in params]
        for index, (number, line, problem) in enumerate(records(path)):
            if problem is not None:
                parser.error(f"{path}: line {number}: {problem}")
            if index == 0:
                continue  # the settings, checked above
            try:
                flips, results = line["flips"], line["results"]
                size = min(head["batch"], head["pairs"] - done)
                k = done + 1
                if line["first"] != done or done >= head["pairs"] or len(results) != size \
                        or flips != [flips_for(head["seed"], done + j, len(params)) for j in range(size)] \
                        or any(r not in (-2, -1, 0, 1, 2) for r in results) \
                        or line["c"] != [schedule.c(p, k) for p in params]:
                    raise ValueError
                theta = step(schedule, params, theta, k, flips, results)
                if line["theta"] != theta:
                    raise ValueError
            except (KeyError, TypeError, ValueError):
                parser.error(f"{path}: line {number} is not the next batch of this run")
            done += size
    except OSError as e:
        parser.error(f"{path}: {e}")
    return done, theta


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.spsa", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", metavar="BASE", help='a bot spec with its budget, e.g. "ismcts:time=0.1"')
    parser.add_argument("--param", action="append", default=[], metavar="NAME=START,MIN,MAX,C_END,R_END",
                        help="a numeric key of BASE to tune (repeatable)")
    parser.add_argument("--pairs", type=whole(1, MAX_PAIRS), required=True, metavar=f"1..{MAX_PAIRS}")
    parser.add_argument("--batch", type=whole(1, MAX_BATCH), default=None, metavar=f"1..{MAX_BATCH}",
                        help="pairs played at one theta [default: the workers]")
    parser.add_argument("--workers", type=whole(1, MAX_WORKERS), default=1, metavar=f"1..{MAX_WORKERS}")
    parser.add_argument("--seed", type=whole(0, MAX_SEED), default=0, metavar=f"0..{MAX_SEED}")
    parser.add_argument("--big-a", type=float, default=None, metavar="A",
                        help="the a schedule's offset (0 to the pairs) [default: a tenth of the pairs]")
    parser.add_argument("--alpha", type=float, default=0.602, metavar="0.01..1")
    parser.add_argument("--gamma", type=float, default=0.101, metavar="0.01..1")
    parser.add_argument("--out", required=True, metavar="RUN.jsonl")
    parser.add_argument("--resume", action="store_true", help="go on with the run in --out")
    args = parser.parse_args(argv)
    if not args.param:
        parser.error("give at least one --param")
    try:
        params = [Param.parse(text) for text in args.param]
    except ValueError as e:
        parser.error(f"--param: {e}")
    if len({p.name for p in params}) != len(params):
        parser.error("--param: a key is given twice")
    if args.base.startswith("cmd:"):
        parser.error("BASE: an external engine cannot be tuned here (its settings are not spec keys)")
    for param in params:
        problem = tunable_problem(args.base, param.name)
        if problem:
            parser.error(f"--param: {problem}")
    try:  # every key at both ends of its range, so that no game fails on a value
        for values in ([p.low for p in params], [p.high for p in params]):
            check_spec(spec_with(args.base, params, values))
    except DnoirError as e:
        parser.error(f"BASE or --param: {e}")
    args.batch = args.batch or args.workers
    args.big_a = round(args.pairs / 10, 6) if args.big_a is None else args.big_a
    for name, value, low, high in (("--big-a", args.big_a, 0, args.pairs), ("--alpha", args.alpha, 0.01, 1),
                                   ("--gamma", args.gamma, 0.01, 1)):
        if not low <= value <= high:  # False for NaN too
            parser.error(f"{name}: {value} is out of range ({low} to {high})")
    schedule = Schedule(args.pairs, args.big_a, args.alpha, args.gamma)
    head = header(args, params)
    if args.resume and os.path.exists(args.out) and not os.path.isfile(args.out):
        parser.error(f"--resume: {args.out} is not a file (a run to go on with is read back from its --out)")
    try:
        with OutputLock(args.out), StopAfterBatch() as stop:
            if args.resume:
                done, theta = replay(parser, args.out, head, schedule, params)
            elif os.path.getsize(args.out) > 0:
                parser.error(f"{args.out} exists: add --resume to continue it, or choose another --out")
            else:
                done, theta = 0, [p.start for p in params]
            tune(args, params, schedule, head, done, theta, stop)
    except DnoirError as e:
        parser.error(str(e))
    except KeyboardInterrupt:
        parser.exit(130, f"{parser.prog}: interrupted; every finished batch is in {args.out} (--resume goes on)\n")
    except BrokenProcessPool:  # a worker killed from outside (the OOM killer, a signal sent to it alone)
        parser.exit(1, f"{parser.prog}: a worker process died; every finished batch is in {args.out} "
                       f"(--resume goes on)\n")


class StopAfterBatch:
    """Within `with`: Ctrl-C or SIGTERM asks the run to stop once the batch under way is played
    and written (`asked`); a second one stops it at once. A process pool torn down in the middle
    of its start or its shutdown can hang, which a batch's few seconds are not worth."""

    def __init__(self):
        self.asked = False
        self.saved = {}

    def _handler(self, signum, frame):
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True
        sys.stderr.write("stopping once this batch is written (again to stop at once)\n")
        sys.stderr.flush()

    def __enter__(self) -> "StopAfterBatch":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(sig) not in (signal.SIG_IGN, None):  # an ignored signal stays ignored
                    self.saved[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> bool:
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
        return False


def tune(args, params: list[Param], schedule: Schedule, head: dict, done: int, theta: list[float],
         stop: StopAfterBatch) -> None:
    def show(values):
        return "  ".join(f"{p.name} {v:.6g}" for p, v in zip(params, values))

    with open_append(args.out) as out, Progress(total=args.pairs - done, label="pairs") as progress:
        if done == 0 and out.tell() == 0:
            out.write(json.dumps(head) + "\n")
            out.flush()
        while done < args.pairs:
            size = min(args.batch, args.pairs - done)
            try:
                flips, results, c = play_batch(args.base, params, schedule, theta, done, size, args.seed, args.workers)
            except BrokenProcessPool:
                if stop.asked:  # the signal reached the workers too (a process group's, pkill -f): batch lost
                    raise KeyboardInterrupt from None
                raise
            theta = step(schedule, params, theta, done + 1, flips, results)
            out.write(json.dumps({"first": done, "c": c, "flips": flips, "results": results, "theta": theta}) + "\n")
            out.flush()
            done += size
            progress.advance(size, note=show(theta))
            if stop.asked and done < args.pairs:
                raise KeyboardInterrupt
    print(f"after {done} pairs: {show(theta)}")
    print(f"spec: {spec_with(args.base, params, theta)}")


if __name__ == "__main__":
    main()
