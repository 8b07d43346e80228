"""The range of every number a user can give, and the one way each is checked.

Command-line options, bot-spec keys (`ismcts:iterations=...`) and engine-protocol
arguments (`go iterations ...`) all read their numbers through this module, so that a
number out of range (a huge integer, NaN, an infinity, a negative time) is one clear
`ValueError` naming the option and the range, never a C overflow, a hang or a traceback.

>>> whole("iterations", "99999999999999999999", 1, MAX_ITERATIONS)
Traceback (most recent call last):
...
ValueError: iterations: 99999999999999999999 is out of range (1 to 1000000000)
>>> real("time", "nan", 0.001, MAX_SECONDS)
Traceback (most recent call last):
...
ValueError: time: nan is not a finite number (0.001 to 86400)
"""

from __future__ import annotations

import math

# Budgets. A billion iterations is about half an hour of ISMCTS on one core, and keeps
# every visit counter (32 bits) far from wrapping.
MAX_ITERATIONS = 1_000_000_000
MIN_SECONDS = 0.001  # one millisecond, the engine protocol's unit
MAX_SECONDS = 86_400.0  # one day
MAX_MOVETIME_MS = 86_400_000
# Resources.
MAX_THREADS = 256
MAX_WORKERS = 1024
MAX_NODES = 100_000_000  # 5.6 GB of ISMCTS nodes at 56 bytes a node (the per-hand table included)
MAX_GRADE_NODES = 10_000_000  # public nodes of a game graded against the equilibrium: 320 MB at 32 bytes
MIN_NODES = 1_000
MAX_TT_MB = 4096.0
MIN_TT_MB = 0.001
# Sizes of runs.
MAX_PAIRS = 1_000_000_000
MAX_WORLDS = 1_000_000
MAX_SEED = 2**53 - 1  # every seed a user gives or a record holds is exact in any JSON reader
MAX_EXPLORATION = 100.0
MAX_TREE_ROUNDS = 4  # the rounds an ISMCTS tree may span (search option tree_rounds; 0: all)
MIN_MODEL_TEMPERATURE = 0.1  # the round-end model's logit scaled (search option model_temperature)
MAX_MODEL_TEMPERATURE = 10.0
# Benchmark sizes (`dnoir bench`): random games, and positions or deals to time.
MAX_GAMES = 1_000_000_000
MAX_POSITIONS = 10_000_000


def _show(value) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:40] + "..."


def fmt(x) -> str:
    """A bound as the error messages print it (1e+06 for a float, 1000000 for an int)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def whole(name: str, value, low: int, high: int) -> int:
    """`value` (an int or its text) as an int in [low, high]; ValueError names `name` and the range."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{name}: {_show(value)!r} is not a whole number ({low} to {high})")
    if isinstance(value, str):
        text = value.strip()
        if not (text.lstrip("+-").isdigit() and text.isascii()) or len(text) > 40:
            raise ValueError(f"{name}: {_show(value)!r} is not a whole number ({low} to {high})")
        value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{name}: {_show(value)} is out of range ({low} to {high})")
    return value


def real(name: str, value, low: float, high: float) -> float:
    """`value` (a number or its text) as a finite float in [low, high]; NaN and infinities refused."""
    try:
        number = float(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None:
        raise ValueError(f"{name}: {_show(value)!r} is not a number ({fmt(low)} to {fmt(high)})")
    if not math.isfinite(number):
        raise ValueError(f"{name}: {_show(value)} is not a finite number ({fmt(low)} to {fmt(high)})")
    if not low <= number <= high:
        raise ValueError(f"{name}: {_show(value)} is out of range ({fmt(low)} to {fmt(high)})")
    return number
