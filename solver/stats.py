"""Match statistics: score intervals, Elo, the sequential probability ratio test, Bradley-Terry.

Scores are in [0, 1] (win 1, draw 1/2, loss 0). Intervals are 95% normal intervals over
independent units: in duplicate matches a unit is a pair of games on one deal, whose
two results are correlated, so the pair, not the game, is the unit of variance.

>>> round(elo_from_score(0.75), 1)
190.8
>>> s = score_summary([1.0, 0.5, 1.0, 0.75, 0.5, 1.0])
>>> round(s.score, 3), s.units
(0.792, 6)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


def elo_from_score(score: float) -> float:
    """The Elo difference that makes `score` the expected score (±inf at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of a player `elo` points stronger (logistic Elo model)."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class ScoreSummary:
    """Mean score over units, its 95% interval, and the same as Elo differences."""

    units: int
    score: float
    low: float
    high: float

    @property
    def elo(self) -> float:
        """The score as an Elo difference."""
        return elo_from_score(self.score)

    @property
    def elo_low(self) -> float:
        """The interval's low end as an Elo difference."""
        return elo_from_score(self.low)

    @property
    def elo_high(self) -> float:
        """The interval's high end as an Elo difference."""
        return elo_from_score(self.high)

    @property
    def variance(self) -> float:
        """Variance of one unit's score (estimated from the interval)."""
        half = (self.high - self.low) / 2
        return (half / Z95) ** 2 * self.units


def score_summary(unit_scores: list[float]) -> ScoreSummary:
    """Mean and 95% interval of per-unit scores (pairs, or single games)."""
    n = len(unit_scores)
    if n == 0:
        return ScoreSummary(0, 0.5, 0.0, 1.0)
    mean = sum(unit_scores) / n
    var = sum((s - mean) ** 2 for s in unit_scores) / (n - 1) if n > 1 else 0.25
    half = Z95 * math.sqrt(var / n)
    return ScoreSummary(n, mean, max(0.0, mean - half), min(1.0, mean + half))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1.

    As fishtest does, the log-likelihood ratio of the observed unit scores is computed in
    the normal approximation (GSPRT) and compared with the Wald bounds of alpha and beta.

    >>> t = Sprt.parse("0,10")
    >>> t.elo0, t.elo1, t.alpha, t.beta
    (0.0, 10.0, 0.05, 0.05)
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "Sprt":
        """'elo0,elo1[,alpha,beta]'; ValueError says what is wrong."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) not in (2, 4):
            raise ValueError(f"--sprt takes elo0,elo1 or elo0,elo1,alpha,beta, not {text!r}")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"--sprt values must be numbers: {text!r}") from None
        test = cls(*values)
        if not test.elo0 < test.elo1:
            raise ValueError("--sprt needs elo0 < elo1")
        if not (0 < test.alpha < 1 and 0 < test.beta < 1):
            raise ValueError("--sprt alpha and beta must lie between 0 and 1")
        return test

    @property
    def lower(self) -> float:
        """The log-likelihood ratio at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The log-likelihood ratio at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, unit_scores: list[float]) -> float:
        """Log-likelihood ratio of H1 against H0 given the unit scores so far."""
        n = len(unit_scores)
        if n < 2:
            return 0.0
        mean = sum(unit_scores) / n
        var = sum((s - mean) ** 2 for s in unit_scores) / n
        if var <= 0:
            var = 1e-3
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def decision(self, unit_scores: list[float]) -> str | None:
        """'H1' (accepted: elo1 or better), 'H0', or None while undecided."""
        llr = self.llr(unit_scores)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


@dataclass(frozen=True)
class Rating:
    """A player's Bradley-Terry Elo, its 95% interval, and its record."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def bradley_terry(names: list[str], results: list[tuple[int, int, float]], prior_draws: float = 1.0) -> list[Rating]:
    """Maximum-likelihood Elo of each player from game results (i, j, score of i against j).

    Draws count half a win to each side. `prior_draws` virtual draws between every pair
    that met keep the estimate finite when a player won (or lost) every game. Elo is
    centred on the players' mean; intervals come from the inverse Fisher information.

    >>> r = bradley_terry(["x", "y"], [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10)
    >>> round(r[0].elo - r[1].elo)
    185
    """
    import numpy as np

    k = len(names)
    wins = np.zeros((k, k))
    for i, j, s in results:
        wins[i, j] += s
        wins[j, i] += 1 - s
    games = wins + wins.T
    met = games > 0
    wins = wins + prior_draws / 2 * met
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(10_000):  # Hunter's MM iteration
        denom = np.array([sum(games[i, j] / (strength[i] + strength[j]) for j in range(k) if j != i)
                          for i in range(k)])
        new = np.where(denom > 0, wins.sum(axis=1) / np.where(denom > 0, denom, 1), strength)
        new = new / np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - strength)) < 1e-12:
            strength = new
            break
        strength = new
    theta = np.log(strength)
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
    info = games * p * p.T
    hessian = np.diag(info.sum(axis=1)) - info
    cov = np.linalg.pinv(hessian)
    scale = 400 / math.log(10)
    played = [sum(1 for i, j, _ in results if p_ in (i, j)) for p_ in range(k)]
    scored = [sum(s if i == p_ else 1 - s for i, j, s in results if p_ in (i, j)) for p_ in range(k)]
    ratings = []
    for i, name in enumerate(names):
        elo = theta[i] * scale
        half = Z95 * math.sqrt(max(cov[i, i], 0.0)) * scale
        ratings.append(Rating(name, float(elo), float(elo - half), float(elo + half), played[i],
                              scored[i] / played[i] if played[i] else 0.0))
    return sorted(ratings, key=lambda r: -r.elo)
