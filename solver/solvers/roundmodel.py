"""The round-end model: how likely player a is to win from the start of a round, under
uniformly random play from there on (what a random playout would find, without its noise).

With the search setting `round_model` (solver.solvers.searchconfig) an ISMCTS playout stops
when the round it started in ends, and backs up this probability instead of playing the
rounds left at random: each iteration then costs a round of playout instead of up to four,
and its result no longer carries the noise of the rounds after (about 0.22 of the 0.25
variance of a result from a round-1 end; bench/STRENGTH.md, test 14). The price is the model's
error, measured against 40 playouts a state: 0.056 (round 1), 0.088 (round 2), 0.095 (round 3)
root mean square, in win probability.

The model is a logistic regression, one per round that can end before the last (1, 2, 3), on
FEATURES features of the state just after the round ended (the next round's hands dealt,
which it does not read): per support kind, the difference of the two collections (clipped
to -4..4) crossed with how many cards of the kind no collection holds (0, 1-2, 3-4, 5 or
more); the alliances' and betrayals' points; the complete sets; the cities each side holds;
who moves first in the next round; and what the newest five cards of the line hold, signed
for that first player. `python -m solver.bench.round_model` (bench/round_model.py) fits it from random games (seeded) and writes
`round_model.json` beside this file; `_ismcts` computes the same features in C
(round_end_value), and a test checks that the two agree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from solver.rules.cards import COMPOSITION

FEATURES = 162
ROUNDS_MODELLED = 3  # the model of the end of round r is row r - 1
WEIGHTS_FILE = Path(__file__).with_name("round_model.json")
SUPPORTS = 4
CITY = 10
# points of each kind in a collection, alliances and betrayals only (supports score by majority)
POINTS = (0, 0, 0, 0, 2, 3, 4, -1, -2, -3, 0)
LINE_SEEN = 5  # the newest cards of the line that the features read


def features(first, colls_a, colls_b, line_top):
    """The features of n round-end states, an (n, FEATURES) array (the same whichever round ended:
    each round has its own weights). `first` is the next round's first player (0 for a);
    `colls_a`/`colls_b` (n, 11) counts per kind; `line_top` (n, 5) the kinds of the newest five
    line cards, newest last, -1 where the line is shorter.
    """
    import numpy as np  # here: the search needs only the weights, and a light command no numpy

    points, composition = np.array(POINTS), np.array(COMPOSITION)
    n = len(first)
    rows = np.arange(n)
    a, b = np.asarray(colls_a, float), np.asarray(colls_b, float)
    out = np.zeros((n, FEATURES))
    for k in range(SUPPORTS):
        d = np.clip(a[:, k] - b[:, k], -4, 4).astype(int) + 4
        free = composition[k] - a[:, k] - b[:, k]
        bucket = np.select([free <= 0, free <= 2, free <= 4], [0, 1, 2], 3)
        out[rows, k * 36 + d * 4 + bucket] = 1
    out[:, 144] = (a @ points - b @ points) / 10.0
    out[:, 145] = a[:, :SUPPORTS].min(1) - b[:, :SUPPORTS].min(1)
    out[rows, 146 + (np.clip(a[:, CITY], 0, 2) * 3 + np.clip(b[:, CITY], 0, 2)).astype(int)] = 1
    sign = np.where(np.asarray(first) == 0, 1.0, -1.0)
    out[:, 155] = sign
    top = np.asarray(line_top, int)
    for k in range(SUPPORTS):
        out[:, 156 + k] = (top == k).sum(1) * sign
    out[:, 160] = np.where(top >= 0, points[np.clip(top, 0, CITY)], 0).sum(1) * sign / 10.0
    out[:, 161] = 1.0
    return out


def line_top(line) -> list[int]:
    """The newest LINE_SEEN kinds of a line (oldest first), padded in front with -1."""
    top = list(line)[-LINE_SEEN:]
    return [-1] * (LINE_SEEN - len(top)) + top


@lru_cache(maxsize=1)
def _fitted() -> tuple[tuple[float, ...], ...]:
    rows = json.loads(WEIGHTS_FILE.read_text())["weights"]
    if len(rows) != ROUNDS_MODELLED or any(len(row) != FEATURES for row in rows):
        raise ValueError(f"{WEIGHTS_FILE}: expected {ROUNDS_MODELLED} rows of {FEATURES} weights")
    return tuple(tuple(float(x) for x in row) for row in rows)


def weights(temperature: float = 1.0) -> tuple[tuple[float, ...], ...]:
    """The fitted weights, ROUNDS_MODELLED rows of FEATURES numbers (read once), each multiplied
    by `temperature` (the search setting `model_temperature`): the model's logit scaled, so
    that its chances say how surely a lead wins under play stronger than random (on the round
    ends of 10,873 recorded engine games the logit that predicts the result best is the fitted
    one times 1.75, 1.85 and 1.86 after rounds 1, 2 and 3: bench/model_temperature.py and
    bench/STRENGTH.md, round 23). The order of the states is the same at any temperature; 1
    gives the fitted weights themselves."""
    rows = _fitted()
    if temperature == 1.0:
        return rows
    return tuple(tuple(temperature * x for x in row) for row in rows)


def round_ends(pos, moves):
    """The positions just after a round ended (the next round's hands dealt, its first move not
    made), the states the model scores, as `moves` are played from the position `pos`."""
    current = pos.round
    for move in moves:
        pos = pos.play(move)
        if not pos.is_over and pos.round != current:
            current = pos.round
            yield pos


def logit(pos, temperature: float = 1.0) -> float:
    """The model's log-odds of a win for a from `pos` (a solver.Position just after rounds 1-3
    ended), times `temperature`."""
    import numpy as np

    if pos.is_over or not 2 <= pos.round <= ROUNDS_MODELLED + 1 or sum(pos.actions) != 0:
        raise ValueError("the model scores a game that has just started round 2, 3 or 4")
    x = features(np.array([pos.first]), np.array([pos.colls[0]]), np.array([pos.colls[1]]),
                 np.array([line_top(pos.line)]))[0]
    return float(x @ np.array(weights(temperature)[pos.round - 2]))


def third_city_at_once(pos) -> bool:
    """Whether the first player of the round `pos` has just started holds two cities with a city
    among the newest cards of the line that a take gets: its first move takes the third city
    and wins (the search setting `third_city` scores such a round end as that win)."""
    return pos.colls[pos.first][CITY] == 2 and CITY in pos.in_reach


def win_probability(pos, temperature: float = 1.0, third_city: bool = False) -> float:
    """P(a wins) from `pos` (a solver.Position just after rounds 1-3 ended) by the model (its
    logit times `temperature`), or with `third_city` 1 or 0 where third_city_at_once: the
    reference for the C version the search uses."""
    import numpy as np

    if third_city and third_city_at_once(pos):
        return 1.0 if pos.first == 0 else 0.0
    return float(1.0 / (1.0 + np.exp(-logit(pos, temperature))))
