"""Adapter speed: random games per second through OpenSpiel and PettingZoo against the public API.

Three loops play the same kind of game: a random deal, then uniformly random moves over the
distinct legal moves to the end.

* `api`: the public Python API, `Position.random_deal`, `legal_moves`, `play`, `result`;
* `openspiel`: `pyspiel.load_game("python_district_noir")`, chance outcomes sampled with their
  probabilities, `legal_actions`, `apply_action`, `returns` (OpenSpiel's standard loop);
* `pettingzoo`: `solver.interfaces.pettingzoo.env()` (with PettingZoo's classic wrappers), `reset`,
  `agent_iter`, `last`, a random legal action from the mask, `step`;
* `pettingzoo_raw`: the same through the bare `raw_env()`, which shows how much of the
  PettingZoo figure is the wrappers'.

The loops run in alternating slices in the same process and are timed in CPU seconds, so
that a busy machine slows them alike; `slowdown` is the API's rate divided by the adapter's (the issue's target: at
most 3). A framework that is not installed is reported as missing, not measured.

>>> report = run_adapters(games=4, seed=1, slices=2)
>>> sorted(report["loops"]) == ["api", "openspiel", "pettingzoo", "pettingzoo_raw"]
True
"""

from __future__ import annotations

import random
import time

from solver import Position

TARGET_SLOWDOWN = 3.0


def api_loop():
    """The public-API loop: `loop(games, seed)` plays random games and returns the moves made."""
    def loop(games: int, seed: int) -> int:
        rng = random.Random(seed)
        moves = 0
        for _ in range(games):
            pos = Position.random_deal(rng.getrandbits(53))
            while not pos.is_over:
                pos = pos.play(rng.choice(pos.legal_moves()))
                moves += 1
            pos.result()
        return moves

    return loop


def openspiel_loop():
    """The same loop through the OpenSpiel game (imported and loaded here, outside the timing)."""
    import pyspiel

    import solver.interfaces.openspiel

    game = pyspiel.load_game(solver.interfaces.openspiel.GAME_NAME)

    def loop(games: int, seed: int) -> int:
        rng = random.Random(seed)
        moves = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, probs)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    moves += 1
            state.returns()
        return moves

    return loop


def pettingzoo_loop(wrapped: bool = True):
    """The same loop through the PettingZoo environment (built here, outside the timing):
    `env()` with PettingZoo's classic wrappers, or the bare `raw_env()`."""
    from solver.interfaces.pettingzoo import env, raw_env

    environment = env() if wrapped else raw_env()

    def loop(games: int, seed: int) -> int:
        rng = random.Random(seed)
        moves = 0
        for _ in range(games):
            environment.reset(seed=rng.getrandbits(63))
            for _agent in environment.agent_iter():
                observation, _reward, termination, truncation, _info = environment.last()
                if termination or truncation:
                    environment.step(None)
                    continue
                legal = observation["action_mask"].nonzero()[0]
                environment.step(int(legal[rng.randrange(len(legal))]))
                moves += 1
        return moves

    return loop


LOOPS = {"api": api_loop, "openspiel": openspiel_loop, "pettingzoo": pettingzoo_loop,
         "pettingzoo_raw": lambda: pettingzoo_loop(wrapped=False)}


def run_adapters(games: int = 300, seed: int = 0, slices: int = 10) -> dict:
    """Games per second of each loop (`games` each, in `slices` alternating slices).

    Times are CPU seconds of this process (`time.process_time`): on a shared machine, other
    processes then slow no loop more than another. Wall seconds are reported too."""
    loops_by_name = {}
    for name, make in LOOPS.items():
        try:
            loops_by_name[name] = make()
        except ImportError:  # the framework's extra is not installed
            pass
    names = list(loops_by_name)
    for name in names:  # one warm-up game each: first calls fill caches and import lazily
        loops_by_name[name](1, seed)
    seconds = dict.fromkeys(names, 0.0)
    wall = dict.fromkeys(names, 0.0)
    moves = dict.fromkeys(names, 0)
    played = dict.fromkeys(names, 0)
    for i in range(slices):
        share = games // slices + (1 if i < games % slices else 0)
        if not share:
            continue
        for name in names:
            start, start_wall = time.process_time(), time.perf_counter()
            moves[name] += loops_by_name[name](share, seed + i)
            seconds[name] += time.process_time() - start
            wall[name] += time.perf_counter() - start_wall
            played[name] += share
    loops = {name: dict(games=played[name], moves=moves[name], seconds=round(seconds[name], 4),
                        wall_seconds=round(wall[name], 4),
                        games_per_second=round(played[name] / seconds[name], 1)) for name in names}
    api_rate = loops["api"]["games_per_second"]
    for name in names:
        if name != "api":
            loops[name]["slowdown"] = round(api_rate / loops[name]["games_per_second"], 2)
            loops[name]["within_target"] = loops[name]["slowdown"] <= TARGET_SLOWDOWN
    missing = [name for name in LOOPS if name not in names]
    return dict(games=games, seed=seed, slices=slices, target_slowdown=TARGET_SLOWDOWN, loops=loops,
                missing=missing)


def format_adapters(report: dict) -> str:
    """The report as the lines `dnoir bench adapters` prints."""
    lines = [f"{'loop':<14} {'games':>6} {'moves':>7} {'CPU s':>8} {'games/s':>9}  slowdown vs the API"]
    for name, loop in report["loops"].items():
        note = "(baseline)" if name == "api" else (
            f"x{loop['slowdown']:.2f} ({'within' if loop['within_target'] else 'over'} the x{TARGET_SLOWDOWN:g} target)")
        lines.append(f"{name:<14} {loop['games']:>6} {loop['moves']:>7} {loop['seconds']:>8.2f} "
                     f"{loop['games_per_second']:>9.1f}  {note}")
    for name in report["missing"]:
        extra = name.split("_")[0]
        lines.append(f"{name:<14} not installed (pip install \".[{extra}]\")")
    return "\n".join(lines)
