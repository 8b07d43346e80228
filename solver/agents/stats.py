"""Match statistics: pentanomial pair counts, the GSPRT, honest intervals, Elo, Bradley-Terry.

A duplicate match plays each deal twice with the seats swapped. The two games of a pair
are correlated, so the complete pair, not the game, is the unit: its points (win 1,
draw 1/2, loss 0) total 0, 1/2, 1, 3/2 or 2, and a match is summed up by the five counts
of those totals, the *pentanomial* (as fishtest does for chess). A lone game whose partner
was never played is no unit; the caller reports it apart (see `split_pairs`).

Everything here works on those counts and is pure: no I/O, no state. Statistics follow
fishtest (official-stockfish/fishtest, server/fishtest/stats/LLRcalc.py, sprt.py,
stat_util.py), reimplemented with numpy and without scipy:

* `Sprt`: the generalised SPRT over the pentanomial model. The log-likelihood ratio is
  that of the two maximum-likelihood pentanomial distributions constrained to the
  hypotheses (exact, not the normal approximation, whose variance estimate is zero when
  every pair agrees); empty cells get a small prior as in fishtest's `regularize`.
* `ScoreSummary`: the score, a 95% profile-likelihood interval over the same regularised
  model (it keeps a width when every pair agrees, like a Wilson interval), and Elo; an
  unbounded Elo is None, never an infinity.

>>> penta = pentanomial([2, 2, 1.5, 1, 2, 0.5])
>>> penta
(0, 1, 1, 1, 3)
>>> s = score_summary_from_pairs(penta)
>>> round(s.score, 3), s.units, 0 < s.low < s.score < s.high < 1
(0.75, 6, True)
>>> Sprt.parse("0,10").decision(penta) is None   # six pairs decide nothing
True
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from solver.base.bounds import real

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
CHI2_95 = Z95 * Z95  # the 95% quantile of chi-square with one degree of freedom
NELO_PER_T = 800 / math.log(10)  # nElo per unit of t-value (fishtest's nelo_divided_by_nt)
PRIOR = 1e-3  # fishtest's regularisation: an empty pentanomial cell counts as this many pairs
MAX_SPRT_ELO = 1000.0  # |elo0|, |elo1| of an SPRT

# The per-game score of each pentanomial cell (pair totals 0, 1/2, 1, 3/2, 2, divided by 2).
CELL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
PAIR_TOTALS = (0.0, 0.5, 1.0, 1.5, 2.0)

Penta = tuple[int, int, int, int, int]


# -- Elo scales -------------------------------------------------------------------------

def elo_from_score(score: float) -> float:
    """The logistic Elo difference that makes `score` the expected score: -400 log10(1/score - 1).

    It is ±inf at 0 and 1 (summaries turn those into None).

    >>> round(elo_from_score(0.75), 1), elo_from_score(1.0)
    (190.8, inf)
    """
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of a player `elo` logistic Elo stronger: 1 / (1 + 10^(-elo/400)).

    >>> round(score_from_elo(190.85), 3)
    0.75
    """
    return 1 / (1 + 10 ** (-elo / 400))


def normalized_elo(score: float, game_sd: float) -> float | None:
    """Normalised Elo (fishtest's nElo) of a mean game score with per-game standard deviation `game_sd`.

    nElo = (score - 1/2) / game_sd * 800 / ln 10: the t-value of one game in Elo-like
    units, so that the cost of telling two engines apart depends on nElo alone, not on
    the draw rate. With pairs, game_sd = sqrt(2 * variance of the pair's mean game score)
    (see `pentanomial_moments`). None when game_sd is 0 (every unit alike: no scale).

    >>> round(normalized_elo(0.55, 0.25), 1)
    69.5
    >>> normalized_elo(0.5, 0.0) is None
    True
    """
    if not game_sd > 0:
        return None
    return (score - 0.5) / game_sd * NELO_PER_T


def score_from_normalized_elo(nelo: float, game_sd: float) -> float:
    """The mean game score at normalised Elo `nelo` for per-game standard deviation `game_sd`.

    >>> round(score_from_normalized_elo(69.5, 0.25), 3)
    0.55
    """
    return 0.5 + nelo / NELO_PER_T * game_sd


# -- pentanomial counts -----------------------------------------------------------------

def split_pairs(games: Mapping[Hashable, Sequence[float]]) -> tuple[list[float], list[float]]:
    """Complete pairs apart from lone games: (pair totals, lone game scores).

    `games` maps each pair's key (e.g. (match seed, pair number)) to the scores, from one
    player's side, of the games of that pair played so far (1, 1/2 or 0 each). A pair
    with both games is a unit whose total is their sum (0 to 2); a pair with one game
    (an interrupted run) is a lone game. ValueError for a key with no game or more than
    two, or a score other than 0, 1/2, 1.

    >>> split_pairs({(7, 0): [1, 0.5], (7, 1): [0, 0], (7, 2): [1]})
    ([1.5, 0.0], [1.0])
    """
    pairs: list[float] = []
    lone: list[float] = []
    for key, scores in games.items():
        scores = list(scores)
        if not 1 <= len(scores) <= 2:
            raise ValueError(f"pair {key!r} has {len(scores)} games (1 or 2 expected)")
        for s in scores:
            if s not in (0, 0.5, 1):
                raise ValueError(f"pair {key!r}: game score {s!r} is not 0, 0.5 or 1")
        if len(scores) == 2:
            pairs.append(float(scores[0] + scores[1]))
        else:
            lone.append(float(scores[0]))
    return pairs, lone


def pentanomial(pair_totals: Iterable[float]) -> Penta:
    """Counts of pair totals 0, 1/2, 1, 3/2, 2 (fishtest's LL, LD, DD+WL, WD, WW).

    ValueError for a total that is not one of those five.

    >>> pentanomial([2, 1, 1, 0.5, 2, 2])
    (0, 1, 2, 0, 3)
    """
    counts = [0] * 5
    for total in pair_totals:
        if total not in PAIR_TOTALS:
            raise ValueError(f"a pair total must be 0, 0.5, 1, 1.5 or 2, not {total!r}")
        counts[int(total * 2)] += 1
    return tuple(counts)  # type: ignore[return-value]


def pentanomial_moments(penta: Sequence[int]) -> tuple[float, float]:
    """Mean game score and per-game standard deviation of raw pentanomial counts.

    The per-game deviation is sqrt(2 * variance of the pair's mean game score), as in
    fishtest's normalised Elo. (0.5, 0.0) for no pairs.

    >>> m, sd = pentanomial_moments((0, 0, 2, 0, 2))
    >>> round(m, 3), round(sd, 4)
    (0.75, 0.3536)
    """
    counts = np.asarray(penta, dtype=float)
    n = counts.sum()
    if n <= 0:
        return 0.5, 0.0
    mean = float(counts @ CELL_SCORES / n)
    var = float(counts @ (CELL_SCORES - mean) ** 2 / n)
    return mean, math.sqrt(2 * max(var, 0.0))


def _check_penta(penta) -> np.ndarray:
    counts = np.asarray(penta, dtype=float)
    if counts.shape[-1:] != (5,) or not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError(f"pentanomial counts must be five non-negative numbers, not {penta!r}")
    return counts


def _regularize(counts: np.ndarray) -> np.ndarray:
    """fishtest's `regularize`: an empty cell counts as PRIOR pairs, so every outcome stays possible.

    Without it the maximum-likelihood distributions below could put no mass on an
    outcome not yet seen, and the hypotheses' likelihoods would be undefined.
    """
    return np.where(counts > 0, counts, PRIOR)


# -- constrained maximum likelihood (fishtest LLRcalc: secular, MLE_expected, MLE_t_value) ---

def _secular(values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Per row, the x with f(x) = sum_i probs_i * values_i / (1 + x * values_i) = 0.

    Each row's values must have both signs and its probs be positive. Written as
    f(x) = sum_i probs_i / (x - pole_i) with pole_i = -1 / values_i, f falls from +inf to
    -inf between the nearest pole on the left (lo = -1 / max values) and on the right
    (hi = -1 / min values), so the root there is unique. Newton's method crawls when the
    root sits near a pole (a regularised cell that must take much mass), so each step
    instead models the left and the right poles' parts by one pole each, A / (x - lo) + B
    and C / (x - hi) + D, matched in value and slope, and jumps to that model's root,
    which always lies inside the bracket (the "middle way" of LAPACK's secular solver
    dlaed4). All rows at once, until no row's x moves by more than 1e-13 of its bracket.
    """
    lo = -1 / values.max(axis=1)
    width = -1 / values.min(axis=1) - lo
    left = values > 0  # terms whose pole is at or left of lo
    right = values < 0
    # x - pole_i = u + (lo - pole_i): kept in this form, the distance to the left pole has full precision
    with np.errstate(divide="ignore"):
        offset = np.where(values != 0, lo[:, None] + 1 / np.where(values != 0, values, 1), np.inf)
    u = width / 2
    for _ in range(100):
        dist = u[:, None] + offset  # x - pole_i (inf for zero values: no term)
        term = probs / dist
        slope = -probs / dist ** 2
        psi, dpsi = (term * left).sum(axis=1), (slope * left).sum(axis=1)
        phi, dphi = (term * right).sum(axis=1), (slope * right).sum(axis=1)
        a = -dpsi * u ** 2  # psi ~ a / u + b
        c = -dphi * (u - width) ** 2  # phi ~ c / (u - width) + d
        e = psi - a / u + phi - c / (u - width)
        # the model's root solves e u^2 + (a + c - e width) u - a width = 0, negative at 0 and positive at width
        b = a + c - e * width
        disc = np.sqrt(np.maximum(b * b + 4 * e * a * width, 0.0))
        q = -(b + np.where(b >= 0, disc, -disc)) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            first = np.where(e != 0, q / e, np.inf)
            second = np.where(q != 0, -a * width / q, np.inf)
        linear = a * width / (a + c)
        new = np.where(e == 0, linear, np.where((first > 0) & (first < width), first, second))
        new = np.where((new > 0) & (new < width), new, u / 2 + np.where(psi + phi > 0, width / 2, 0))
        done = np.abs(new - u) <= 1e-13 * width
        u = new
        if done.all():
            break
    return lo + u


def _mle_with_mean(phat: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """The pentanomial closest in likelihood to phat (rows) whose mean game score is `mean`.

    fishtest LLRcalc.MLE_expected: p_i = phat_i / (1 + x (a_i - mean)).
    """
    shifted = CELL_SCORES[None, :] - mean[:, None]
    x = _secular(shifted, phat)
    p = phat / (1 + x[:, None] * shifted)
    return p / p.sum(axis=1, keepdims=True)


def _tilt_to_t(phat: np.ndarray, t: float) -> np.ndarray:
    """A distribution p_i ~ phat_i exp(theta a_i) whose t-value (mean - 1/2) / sd is exactly `t`, per row.

    With every cell positive, the tilted t-value runs from -inf to +inf as theta does,
    so bisection on theta finds it. Used as a feasible start for `_mle_with_t`.
    """
    def t_value(theta):
        w = phat * np.exp(theta[:, None] * (CELL_SCORES[None, :] - 0.5))
        w /= w.sum(axis=1, keepdims=True)
        mu = w @ CELL_SCORES
        sd = np.sqrt(np.maximum(w @ CELL_SCORES ** 2 - mu ** 2, 1e-300))
        return (mu - 0.5) / sd, w

    lo = np.full(len(phat), -60.0)
    hi = np.full(len(phat), 60.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        above = t_value(mid)[0] > t
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return t_value((lo + hi) / 2)[1]


def _t_linearised(p: np.ndarray, t: float) -> np.ndarray:
    """The t-value constraint linearised at p (rows): values_i with sum_i p_i values_i = 0 where p meets it."""
    mu = p @ CELL_SCORES
    sigma = np.sqrt(np.maximum(p @ CELL_SCORES ** 2 - mu ** 2, 1e-300))
    return (CELL_SCORES[None, :] - 0.5
            - t * sigma[:, None] * (1 + ((mu[:, None] - CELL_SCORES[None, :]) / sigma[:, None]) ** 2) / 2)


def _mle_with_t(phat: np.ndarray, t: float) -> np.ndarray:
    """The pentanomial closest in likelihood to phat (rows) whose t-value (mean - 1/2) / sd is `t`.

    fishtest LLRcalc.MLE_t_value: a fixed-point iteration from the uniform distribution,
    each step solving the constraint linearised at the current distribution. For large
    |t| or very one-sided data the linearisation at the uniform distribution has no
    solution; those rows start instead from a distribution that meets the constraint
    exactly (where the linearisation always has one).
    """
    p = np.full_like(phat, 0.2)
    values = _t_linearised(p, t)
    stuck = ~((values.min(axis=1) < 0) & (values.max(axis=1) > 0))
    if stuck.any():
        p[stuck] = _tilt_to_t(phat[stuck], t)
    active = np.ones(len(p), dtype=bool)
    for _ in range(100):
        values = _t_linearised(p[active], t)
        solvable = (values.min(axis=1) < 0) & (values.max(axis=1) > 0)
        rows = np.nonzero(active)[0][solvable]
        if len(rows) == 0:
            break
        x = _secular(values[solvable], phat[rows])
        step = phat[rows] / (1 + x[:, None] * values[solvable])
        step /= step.sum(axis=1, keepdims=True)
        moved = np.abs(step - p[rows]).max(axis=1) >= 1e-11
        p[rows] = step
        active[:] = False
        active[rows[moved]] = True
        if not active.any():
            break
    return p


def _log_likelihood_ratio(phat: np.ndarray, p1: np.ndarray, p0: np.ndarray) -> np.ndarray:
    return (phat * (np.log(p1) - np.log(p0))).sum(axis=1)


# -- the sequential probability ratio test ----------------------------------------------

MODELS = ("logistic", "normalized")


@dataclass(frozen=True)
class SprtResult:
    """One look at an SPRT: the LLR, its Wald bounds, the Elo model and the decision.

    `decision` is 'H1' (elo1 or better accepted), 'H0' (elo0 or worse accepted) or None
    while the LLR lies strictly between the bounds. `to_dict()` is the JSON form.
    """

    llr: float
    lower: float
    upper: float
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    pairs: int
    decision: str | None

    def to_dict(self) -> dict:
        """The JSON form (numbers, strings and null only).

        >>> Sprt(0, 10).result((0, 0, 3, 0, 0)).to_dict()["decision"] is None
        True
        """
        return dict(llr=self.llr, lower=self.lower, upper=self.upper, elo0=self.elo0, elo1=self.elo1,
                    alpha=self.alpha, beta=self.beta, model=self.model, pairs=self.pairs,
                    decision=self.decision)

    def text(self) -> str:
        """One line for the text output.

        >>> print(Sprt(0, 10).result((0, 0, 3, 0, 0)).text())
        SPRT [0, 10] Elo (logistic), alpha 0.05 beta 0.05: LLR -0.08 in [-2.94, 2.94] after 3 pairs: undecided
        """
        unit = "nElo" if self.model == "normalized" else "Elo"
        verdict = {"H1": f"H1 accepted (at least {self.elo1:+g} {unit})",
                   "H0": f"H0 accepted (at most {self.elo0:+g} {unit})"}.get(self.decision, "undecided")
        return (f"SPRT [{self.elo0:g}, {self.elo1:g}] {unit} ({self.model}), alpha {self.alpha:g} beta {self.beta:g}: "
                f"LLR {self.llr:.2f} in [{self.lower:.2f}, {self.upper:.2f}] after {self.pairs} pairs: {verdict}")


@dataclass(frozen=True)
class Sprt:
    """A generalised SPRT of H0: elo = elo0 against H1: elo = elo1 over pentanomial pair counts.

    As fishtest does: the LLR is N times the mean log ratio of the two maximum-likelihood
    pentanomial distributions constrained to elo1 and to elo0 (a generalised LLR; no
    normal approximation), over the counts regularised as in fishtest. H1 is accepted
    when the LLR reaches upper = log((1 - beta) / alpha), H0 when it falls to
    lower = log(beta / (1 - alpha)) (Wald's bounds).

    `model` says what the Elo bounds mean:
    * 'logistic' (the default): the usual Elo, on the mean game score
      1 / (1 + 10^(-elo/400)), the scale the match summary reports. Chosen as the default
      because the bounds then read like the Elo printed next to them, and because a
      duplicate pair of two deterministic engines can have no spread at all (every pair
      1 - 1), where normalised Elo is undefined and a normalised test can never end.
    * 'normalized' (fishtest's choice for its SPRTs since 2021): nElo, the t-value
      (mean game score - 1/2) / per-game standard deviation, times 800 / ln 10. The number
      of pairs a test needs then depends on the bounds alone, not on how drawish or how
      luck-bound the game is.

    Every method takes pentanomial counts (a 5-sequence, see `pentanomial`), never game
    lists. Because each pair moves the LLR by a bounded step, a few pairs that happen to
    agree cannot decide a test with close bounds:

    >>> t = Sprt.parse("-10,10")
    >>> t.elo0, t.elo1, t.alpha, t.beta, t.model
    (-10.0, 10.0, 0.05, 0.05, 'logistic')
    >>> round(t.lower, 3), round(t.upper, 3)
    (-2.944, 2.944)
    >>> round(t.llr((0, 0, 0, 0, 5)), 2), t.decision((0, 0, 0, 0, 5))
    (0.29, None)
    >>> Sprt.parse("0,5,0.05,0.1,logistic").decision((10789, 19328, 33806, 19402, 10543))
    'H0'
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self):
        for name in ("elo0", "elo1"):
            real(f"--sprt {name}", getattr(self, name), -MAX_SPRT_ELO, MAX_SPRT_ELO)
        for name in ("alpha", "beta"):
            value = real(f"--sprt {name}", getattr(self, name), 0, 1)
            if not 0 < value < 1:
                raise ValueError(f"--sprt {name}: {value:g} must lie strictly between 0 and 1")
        if not self.elo0 < self.elo1:
            raise ValueError(f"--sprt needs elo0 < elo1, not {self.elo0:g}, {self.elo1:g}")
        if not self.alpha + self.beta < 1:
            raise ValueError("--sprt needs alpha + beta < 1")
        if self.model not in MODELS:
            raise ValueError(f"--sprt model must be 'logistic' or 'normalized', not {self.model!r}")

    @classmethod
    def parse(cls, text: str) -> "Sprt":
        """'elo0,elo1[,alpha,beta][,logistic|normalized]'; ValueError names the part that is wrong.

        Numbers are checked by `bounds.real`: finite, |elo| <= 1000, alpha and beta in (0, 1).

        >>> Sprt.parse("0, 5, 0.05, 0.1, logistic")
        Sprt(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.1, model='logistic')
        >>> Sprt.parse("0,nan")
        Traceback (most recent call last):
        ...
        ValueError: --sprt elo1: nan is not a finite number (-1000 to 1000)
        """
        parts = [p.strip() for p in str(text).split(",")]
        model = "logistic"
        if parts[-1].isalpha() and (len(parts) in (3, 5) or parts[-1].lower() in MODELS):
            model = {"normalised": "normalized"}.get(parts[-1].lower(), parts[-1].lower())
            parts = parts[:-1]
        if len(parts) not in (2, 4):
            raise ValueError(f"--sprt takes elo0,elo1[,alpha,beta][,logistic|normalized], not {text!r}")
        names = ("elo0", "elo1", "alpha", "beta")
        values = [real(f"--sprt {name}", part, -MAX_SPRT_ELO, MAX_SPRT_ELO) for name, part in zip(names, parts)]
        return cls(*values, model=model)

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: log(beta / (1 - alpha)).

        >>> round(Sprt(0, 5).lower, 4)
        -2.9444
        """
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: log((1 - beta) / alpha).

        >>> round(Sprt(0, 5, alpha=0.1, beta=0.2).upper, 4)
        2.0794
        """
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, penta: Sequence[int]) -> float:
        """Generalised log-likelihood ratio of H1 against H0 given pentanomial counts (0 with no pairs).

        >>> t = Sprt(0, 10)
        >>> t.llr((0, 0, 0, 0, 0)), round(t.llr((1, 0, 0, 0, 1)), 4)
        (0.0, -0.0008)
        >>> t.llr((0, 2, 4, 6, 8)) > 0 > t.llr((8, 6, 4, 2, 0))
        True
        """
        return float(self.llr_rows(_check_penta(penta)[None, :])[0])

    def llr_rows(self, counts: np.ndarray) -> np.ndarray:
        """The LLR of each row of an (R, 5) array of pentanomial counts (for simulations).

        >>> Sprt(0, 10).llr_rows(np.array([[0, 0, 0, 0, 0], [0, 0, 5, 0, 0]])).round(3).tolist()
        [0.0, -0.141]
        """
        counts = np.asarray(counts, dtype=float)
        n = counts.sum(axis=1)
        reg = _regularize(counts)
        total = reg.sum(axis=1)
        phat = reg / total[:, None]
        if self.model == "logistic":
            p0 = _mle_with_mean(phat, np.full(len(phat), score_from_elo(self.elo0)))
            p1 = _mle_with_mean(phat, np.full(len(phat), score_from_elo(self.elo1)))
        else:
            # nElo is per game; a pair's mean game score has sd game_sd / sqrt 2, so its t is sqrt 2 times larger
            p0 = _mle_with_t(phat, self.elo0 / NELO_PER_T * math.sqrt(2))
            p1 = _mle_with_t(phat, self.elo1 / NELO_PER_T * math.sqrt(2))
        return np.where(n > 0, total * _log_likelihood_ratio(phat, p1, p0), 0.0)

    def decision(self, penta: Sequence[int]) -> str | None:
        """'H1' (accepted: elo1 or better), 'H0' (elo0 or worse), or None while undecided.

        >>> Sprt(0, 50).decision((0, 0, 0, 0, 40))
        'H1'
        """
        return self._decide(self.llr(penta))

    def result(self, penta: Sequence[int]) -> SprtResult:
        """LLR, bounds, model and decision for pentanomial counts.

        >>> r = Sprt(-10, 10).result((3, 10, 20, 10, 3))
        >>> abs(r.llr) < 1e-9, r.decision, r.pairs   # a symmetric record sits midway
        (True, None, 46)
        """
        llr = self.llr(penta)
        return SprtResult(llr=llr, lower=self.lower, upper=self.upper, elo0=self.elo0, elo1=self.elo1,
                          alpha=self.alpha, beta=self.beta, model=self.model, pairs=int(sum(penta)),
                          decision=self._decide(llr))

    def _decide(self, llr: float) -> str | None:
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


# -- score and Elo intervals ------------------------------------------------------------

def _profile_deviance(reg: np.ndarray, means: np.ndarray) -> np.ndarray:
    """2 * log-likelihood ratio of the best pentanomial against the best one with each mean score."""
    n = reg.sum()
    phat = np.broadcast_to(reg / n, (len(means), 5))
    p = _mle_with_mean(np.ascontiguousarray(phat), means)
    return 2 * n * (phat * (np.log(phat) - np.log(p))).sum(axis=1)


def _profile_interval(counts: np.ndarray) -> tuple[float, float]:
    """The 95% profile-likelihood interval of the mean game score over regularised counts.

    The set of means whose constrained maximum likelihood is within chi2(1, 0.95) / 2 of
    the maximum. The regularisation keeps every outcome possible, so when all pairs
    agree the interval still has the width the evidence allows (for N pairs all won it
    is [exp(-1.92 / N), 1], the binomial likelihood-ratio interval), and it stays in [0, 1].
    """
    reg = _regularize(counts)
    centre = float(reg @ CELL_SCORES / reg.sum())
    edge = 1e-9
    ends = []
    for lo, hi, outer in ((edge, centre, 0.0), (centre, 1 - edge, 1.0)):
        far = lo if outer == 0.0 else hi
        if _profile_deviance(reg, np.array([far]))[0] <= CHI2_95:
            ends.append(outer)  # even the edge is consistent with the data
            continue
        inside, outside = (centre, far)
        for _ in range(60):
            mid = (inside + outside) / 2
            if _profile_deviance(reg, np.array([mid]))[0] <= CHI2_95:
                inside = mid
            else:
                outside = mid
        ends.append(inside)
    return ends[0], ends[1]


def _finite_elo(score: float) -> float | None:
    elo = elo_from_score(score)
    return elo if math.isfinite(elo) else None


@dataclass(frozen=True)
class ScoreSummary:
    """Mean game score over units, its 95% interval, Elo, and the pentanomial counts.

    `score`, `low`, `high` lie in [0, 1] with low < high (with no units: 0.5 in [0, 1]).
    `elo`, `elo_low`, `elo_high` are logistic Elo as finite floats, or None where the
    score (or the end of its interval) is 0 or 1 and the Elo is unbounded. `nelo` is the
    normalised Elo of the point estimate (None with no spread). JSON-safe throughout.
    """

    units: int
    score: float
    low: float
    high: float
    elo: float | None
    elo_low: float | None
    elo_high: float | None
    penta: Penta
    nelo: float | None = None

    def to_dict(self) -> dict:
        """The JSON form: numbers, lists and null only.

        >>> score_summary_from_pairs((0, 0, 0, 0, 3)).to_dict()["elo"] is None
        True
        """
        return dict(units=self.units, score=self.score, score_low=self.low, score_high=self.high,
                    elo=self.elo, elo_low=self.elo_low, elo_high=self.elo_high, nelo=self.nelo,
                    pentanomial=list(self.penta))

    def elo_text(self) -> str:
        """The Elo estimate and its interval for the text output (see `format_elo`).

        >>> score_summary_from_pairs((0, 0, 0, 0, 10)).elo_text()
        'Elo > +269 (95%)'
        """
        return format_elo(self.elo, self.elo_low, self.elo_high) if self.units else "Elo n/a (no pairs)"


def score_summary_from_pairs(penta: Sequence[int]) -> ScoreSummary:
    """Score, 95% profile-likelihood interval and Elo of pentanomial pair counts.

    The score is the mean game score (pair total / 2, averaged over pairs). The interval
    uses the same regularised pentanomial model as the SPRT, so it never collapses to a
    point when every pair agrees, nor leaves [0, 1]; an unbounded Elo is None.

    >>> s = score_summary_from_pairs((0, 0, 0, 0, 10))
    >>> s.score, round(s.low, 3), s.high, s.elo, round(s.elo_low), s.elo_high
    (1.0, 0.824, 1.0, None, 269, None)
    >>> s = score_summary_from_pairs((0, 0, 0, 0, 0))
    >>> s.units, s.score, s.low, s.high, s.elo, s.elo_low
    (0, 0.5, 0.0, 1.0, 0.0, None)
    """
    counts = _check_penta(penta)
    units = int(counts.sum())
    key = tuple(int(c) for c in counts)
    if units == 0:
        return ScoreSummary(0, 0.5, 0.0, 1.0, 0.0, None, None, key, None)
    score, game_sd = pentanomial_moments(counts)
    low, high = _profile_interval(counts)
    low, high = min(low, score), max(high, score)
    return ScoreSummary(units=units, score=score, low=low, high=high, elo=_finite_elo(score),
                        elo_low=_finite_elo(low), elo_high=_finite_elo(high), penta=key,
                        nelo=normalized_elo(score, game_sd))


def format_elo(elo: float | None, low: float | None, high: float | None, level: str = "95%") -> str:
    """An Elo estimate with its interval for the text output.

    '±' when the interval is symmetric about the estimate (within a tenth of its half
    width), the interval itself otherwise, and a one-sided bound when one end is
    unbounded (None).

    >>> format_elo(35.24, 23.1, 47.3)
    'Elo +35.2 ± 12.1 (95%)'
    >>> format_elo(150.0, 100.0, 260.0)
    'Elo +150.0 [+100.0, +260.0] (95%)'
    >>> format_elo(None, 401.3, None), format_elo(-500.0, None, -420.6)
    ('Elo > +401 (95%)', 'Elo < -421 (95%)')
    >>> format_elo(None, None, None)
    'Elo unbounded'
    """
    if low is not None and high is not None and elo is not None:
        up, down = high - elo, elo - low
        half = (high - low) / 2
        if abs(up - down) <= 0.1 * half:
            return f"Elo {elo:+.1f} ± {half:.1f} ({level})"
        return f"Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}] ({level})"
    if low is not None and high is None:
        return f"Elo > {low:+.0f} ({level})"
    if high is not None and low is None:
        return f"Elo < {high:+.0f} ({level})"
    return "Elo unbounded"


# -- Bradley-Terry ratings --------------------------------------------------------------

@dataclass(frozen=True)
class Rating:
    """A player's Bradley-Terry Elo, its 95% interval, and its record (all finite floats)."""

    name: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def bradley_terry(names: list[str], results: list[tuple[int, int, float]], prior_draws: float = 1.0) -> list[Rating]:
    """Maximum-likelihood Elo of each player from game results (i, j, score of i against j).

    Draws count half a win to each side. `prior_draws` virtual draws between every two
    players keep every estimate finite and every interval of positive width: a player
    who won every game gets a large finite Elo, one who never played sits at the mean
    with the wide interval of the prior alone. Elo is centred on the players' mean;
    intervals come from the inverse Fisher information.

    >>> r = bradley_terry(["x", "y"], [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10)
    >>> round(r[0].elo - r[1].elo)
    185
    """
    k = len(names)
    wins = np.zeros((k, k))
    for i, j, s in results:
        wins[i, j] += s
        wins[j, i] += 1 - s
    wins = wins + prior_draws / 2 * (1 - np.eye(k))
    games = wins + wins.T
    strength = np.ones(k)
    for _ in range(10_000):  # Hunter's MM iteration
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
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
