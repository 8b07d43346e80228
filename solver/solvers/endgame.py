"""Exact round-4 analysis: open hands, or one player's view over every possible opponent hand.

Once the deck is empty, District Noir is small enough to solve exactly
(`solver.solvers._endgame`). With both hands known ("open" mode) each legal move gets its
game-theoretic outcome and final score margin. With the opponent's hand hidden ("view"
mode) every hand the opponent can hold is enumerated with its exact probability under a
uniform deal, each such world is solved with open hands, and each move gets its expected
score (win 1, draw 1/2, loss 0), its win/draw/loss probabilities and its expected margin.

View mode is perfect-information Monte Carlo made exact: it assumes that after this move
both players play as if they saw every card. Real players cannot, so the figures are an
optimistic model of the game, not its true value (see README, "Exact endgames").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

from solver.base.bounds import MAX_TT_MB, MIN_TT_MB, real
from solver.errors import ArgumentError
from solver.rules.cards import Move
from solver.rules.notation import PLAYERS, ROUNDS, PositionError
from solver.rules.position import Position
from solver.solvers._endgame import EndgameSolver

DEFAULT_TT_MB = 0.25
SOLVE_MODES = ("auto", "open", "view")  # what `solve` takes as its mode
OUTCOMES = {2: "win", 1: "win", 0: "draw", -1: "loss", -2: "loss"}


@dataclass(frozen=True)
class MoveValue:
    """One legal move's value for the side to move.

    Open mode fills `outcome`, `city` and `margin` (the final score margin under best
    play); view mode fills `expected`, `win`, `draw`, `loss` (probabilities, exact
    fractions) and `margin` (expected). `value` is the open-hands solver's raw value.
    """

    move: str
    margin: float
    value: int | None = None
    outcome: str | None = None
    city: bool = False
    expected: Fraction | None = None
    win: Fraction | None = None
    draw: Fraction | None = None
    loss: Fraction | None = None

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir solve --json` prints it."""
        if self.outcome is not None:
            return dict(move=self.move, outcome=self.outcome, city=self.city, margin=self.margin)
        return dict(move=self.move, expected=float(self.expected), expected_fraction=str(self.expected),
                    win=float(self.win), draw=float(self.draw), loss=float(self.loss),
                    margin=round(self.margin, 6))


@dataclass(frozen=True)
class SolveResult:
    """The solved position: every legal move's value, best first.

    >>> pos = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
    >>> r = solve(pos)
    >>> r.mode, r.best, [(m.move, m.outcome) for m in r.moves]
    ('open', '8', [('8', 'loss'), ('-2', 'loss'), ('T', 'loss')])
    """

    mode: str
    to_move: str
    best: str
    moves: list[MoveValue]
    nodes: int
    seconds: float
    pv: list[str] = field(default_factory=list)
    worlds: int | None = None

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir solve --json` prints it."""
        out = dict(mode=self.mode, to_move=self.to_move, best=self.best,
                   moves=[m.to_dict() for m in self.moves], nodes=self.nodes,
                   seconds=round(self.seconds, 6))
        if self.mode == "open":
            out["pv"] = self.pv
        else:
            out["worlds"] = self.worlds
        return out


_solvers: dict[tuple[float, bool], EndgameSolver] = {}


def get_solver(tt_mb: float = DEFAULT_TT_MB, use_tt: bool = True) -> EndgameSolver:
    """A solver with a table of `tt_mb` MB, kept for reuse (its table stays valid across solves)."""
    key = (float(tt_mb), bool(use_tt))
    if key not in _solvers:
        _solvers[key] = EndgameSolver(tt_mb=tt_mb, use_tt=use_tt)
    return _solvers[key]


def check_solvable(pos: Position) -> None:
    """Raise PositionError unless the exact solver can analyse `pos` for its side to move."""
    if pos.is_over:
        raise PositionError("to-move", "the game is over: there is nothing to solve")
    if pos.round != ROUNDS:
        raise PositionError("round", f"round {pos.round}: the deck is not empty, exact solving starts "
                                     "in round 4")
    if pos._hand_hidden(pos.to_move):
        raise PositionError(f"hand {PLAYERS[pos.to_move]}",
                            "the hand of the side to move is hidden; give it to solve its moves")


def solve(pos: Position, tt_mb: float = DEFAULT_TT_MB, mode: str = "auto",
          use_tt: bool = True) -> SolveResult:
    """Solve a round-4 position for its side to move: open hands, or the mover's view.

    `mode` "auto" solves with open hands when both hands are known and over the
    opponent's possible hands otherwise; "open" and "view" force one.
    """
    if mode not in SOLVE_MODES:
        raise ArgumentError(f"solve: mode: {mode!r:.40} is not one of {', '.join(SOLVE_MODES)}")
    try:
        real("tt_mb", tt_mb, MIN_TT_MB, MAX_TT_MB)
    except ValueError as e:
        raise ArgumentError(f"solve: {e}") from None
    check_solvable(pos)
    opponent = 1 - pos.to_move
    hidden = pos._hand_hidden(opponent)
    if mode == "auto":
        mode = "view" if hidden else "open"
    if mode == "open" and hidden:
        raise PositionError(f"hand {PLAYERS[opponent]}", "hidden: open-hands mode needs both hands")
    solver = get_solver(tt_mb, use_tt)
    solver.reset_nodes()
    start = time.perf_counter()
    result = _solve_open(pos, solver) if mode == "open" else _solve_view(pos, solver)
    seconds = time.perf_counter() - start
    return SolveResult(mode=mode, to_move=PLAYERS[pos.to_move], best=result["moves"][0].move,
                       nodes=solver.nodes, seconds=seconds, **result)


# move index -> token, and a solver value's (rank, margin) without a call per move
TOKENS = tuple(str(Move(m)) for m in range(12))
_RANK_HALF = 512  # RANK // 2 of ext/endgame.pyx: |margin| < RANK / 2


def _rank_margin(value: int) -> tuple[int, int]:
    """split_value, inline: (rank, margin) of a solver value."""
    rank = (value + _RANK_HALF) // 1024 if value >= 0 else -((-value + _RANK_HALF) // 1024)
    return rank, value - rank * 1024


def _solve_open(pos: Position, solver: EndgameSolver) -> dict:
    state = pos.core
    values = solver.move_values(state)
    first = max(values, key=values.get) if values else -1
    pv = [TOKENS[m] for m in solver.principal_variation(state, first)]
    lead = pv[0] if pv else None
    moves = []
    for m, value in values.items():
        rank, margin = _rank_margin(value)
        moves.append(MoveValue(TOKENS[m], margin, value, OUTCOMES[rank], rank == 2 or rank == -2))
    # best first; among equal values the principal variation's move leads, then canonical order
    moves.sort(key=lambda mv: (-mv.value, mv.move != lead))
    return dict(moves=moves, pv=pv)


def unseen_pool(pos: Position, player: int) -> tuple[int, ...]:
    """Counts per kind of the cards `player` cannot see: the opponent's hand, the deck, the removed cards.

    >>> pos = Position.parse("7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a")
    >>> sum(unseen_pool(pos, 1))
    5
    """
    return pos.core.unseen_counts(player)


def world_weight(pool, hand) -> int:
    """Number of ways a uniform deal gives exactly `hand` (counts per kind) out of `pool`."""
    weight = 1
    for available, held in zip(pool, hand):
        weight *= comb(available, held)
    return weight


def _solve_view(pos: Position, solver: EndgameSolver) -> dict:
    mover, opponent = pos.to_move, 1 - pos.to_move
    core = pos.core
    pool = core.unseen_counts(mover)
    size = pos.hand_sizes[opponent]
    # Sums of whole-number weights (deals giving each hand), made in C over every world and
    # divided by the number of deals once at the end: exact, without a Fraction per world.
    worlds, sums = solver.view_sums(core, opponent, pool, size)
    total = comb(sum(pool), size)
    moves = [MoveValue(move=TOKENS[m], margin=float(Fraction(margin, total)),
                       expected=Fraction(2 * win + draw, 2 * total),
                       win=Fraction(win, total), draw=Fraction(draw, total), loss=Fraction(loss, total))
             for m, (win, draw, loss, margin) in sorted(sums.items())]
    # best expected score first, then best expected margin, then canonical order
    moves.sort(key=lambda mv: (-mv.expected, -mv.margin))
    return dict(moves=moves, worlds=worlds)
