"""Batch endgame analysis: many positions and game records, solved exactly, in parallel.

Input items, one a line, in any mix:
- a DNP line (its id is `line-<number>`);
- a JSON position `{"id": ..., "dnp": ...}`;
- a JSON game record `{"deal": ..., "moves": ...}` as `dnoir match` writes (its id is its
  `id` field, or `line-<number>`).

A position whose deck is empty (round 4) gets the exact one-player-view values of every
move for its side to move (the `mode`, `best`, `moves` fields of `dnoir solve --json`),
when both hands are known the open-hands values under `open`, and under `equilibrium`
the mover's equilibrium strategy at its hand when the game is small enough (see
`grade`; null otherwise); `method` says which of the two to go by. A game record has each of its round-4 decisions annotated with
the expected score the move played lost, from the mover's view: `??` (blunder) for a loss
of at least BLUNDER, `?` (mistake) for at least MISTAKE.

How a decision is graded (`grade`, its `method`): against the equilibrium of the
hidden-information game (solver.solvers.equilibrium) from EQUILIBRIUM_FROM_ACTIONS actions into round 4
on, when that game's public tree has at most `equilibrium_nodes` nodes and CFR+ reaches
solver.solvers.equilibrium.GRADE_TARGET within GRADE_ITERATIONS iterations; the loss is then the hand's
equilibrium value less the move's expected score. Otherwise against the one-player view's
best move (optimistic: it assumes both sides then see every card). Both tests count
nodes and iterations, never seconds, so the grading is the same on every machine.

>>> item = parse_item('{"id": 7, "dnp": "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"}', 1)
>>> analyse_item(item)["best"]
'8'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

from solver.base.bounds import MAX_GRADE_NODES, whole
from solver.base.jsonl import loads
from solver.errors import ArgumentError, DnoirError, ItemError
from solver.rules.notation import PLAYERS, ROUNDS, PositionError
from solver.rules.position import Position
from solver.rules.records import REPLAY_FIELDS, RecordError, check_record
from solver.solvers.endgame import get_solver, solve
from solver.solvers.equilibrium import GRADE_NODES, equilibrium_grade, move_loss

# Expected-score losses that mark a decision. A loss of 1/4 throws away a quarter of a
# game (say, turning a sure win into a coin flip with a draw in it); 1/10 is a clear but
# smaller error. Smaller losses are left unmarked: they are often within the model's
# own optimism (the view assumes both sides then play as if they saw every card).
BLUNDER = Fraction(1, 4)
MISTAKE = Fraction(1, 10)


# Grading against the equilibrium starts this many actions into round 4: before, the game
# trees of self-play positions have millions of public nodes (two actions in: 0.4 to over 5
# million), so counting them to the cap would only spend time (about 25 ms a position at
# the default cap, as much as the view's whole solve) to fall back to the view.
EQUILIBRIUM_FROM_ACTIONS = 3
# The largest public tree graded against the equilibrium by default (solver.solvers.equilibrium).
DEFAULT_EQUILIBRIUM_NODES = GRADE_NODES


@dataclass(frozen=True)
class Grade:
    """How the moves of one round-4 decision are judged (see the module docstring).

    `method` is 'equilibrium' or 'view'; `expected` holds each legal move's expected score
    for the mover (exact fractions for the view); `reference` is the score losses are
    measured from (the view's best move's, or the hand's equilibrium value); `equilibrium`
    is solver.solvers.equilibrium's answer when it was used.
    """

    method: str
    best: str
    expected: dict
    reference: object
    equilibrium: dict | None = None

    def loss(self, move: str):
        """The expected score `move` loses: a Fraction for the view, a float (>= 0) for the equilibrium."""
        if self.equilibrium is not None:
            return move_loss(self.equilibrium, move)
        return self.reference - self.expected[move]


def graded_equilibrium(view: Position, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> dict | None:
    """solver.solvers.equilibrium's equilibrium at the mover's hand when `grade` would use it, else None."""
    if equilibrium_nodes <= 0 or sum(view.actions) < EQUILIBRIUM_FROM_ACTIONS:
        return None
    return equilibrium_grade(view, equilibrium_nodes)


def grade(view: Position, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> Grade:
    """The grade of the decision of `view`'s side to move (round 4, its hand known)."""
    eq = graded_equilibrium(view, equilibrium_nodes)
    if eq is not None:
        return Grade("equilibrium", eq["best"], {m["move"]: m["expected"] for m in eq["moves"]},
                     eq["hand_value"], eq)
    values = solve(view, mode="view")
    return Grade("view", values.best, {m.move: m.expected for m in values.moves}, values.moves[0].expected)


def equilibrium_summary(eq: dict | None) -> dict | None:
    """The `equilibrium` field of a position's result: solver.solvers.equilibrium's answer without what varies by run."""
    if eq is None:
        return None
    return {k: eq[k] for k in ("best", "game_value", "hand_value", "exploitability", "iterations", "moves")}


@dataclass(frozen=True)
class Item:
    """One input item: an id, its kind ('position' or 'game'), its line, and its content."""

    id: object
    kind: str
    line: int
    data: object  # a DNP string, or a game record dict

    @property
    def work(self) -> int:
        """Cards in hand: the larger, the longer the solve (used to schedule hardest first)."""
        try:
            if self.kind == "position":
                return sum(Position.parse(self.data).hand_sizes)
            return 10 + len(self.data["moves"].split())
        except (PositionError, KeyError, AttributeError):
            return 0


def id_key(value) -> str:
    """How an id is compared and stored for resuming: its JSON text, so 1 and "1" stay apart.

    >>> id_key(1), id_key("1")
    ('1', '"1"')
    """
    return json.dumps(value)


def _json_kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", float: "a number", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _item_id(data: dict, line: int):
    """The id of a JSON item: its `id` (a string or an integer, kept as such), or `line-<number>`."""
    if "id" not in data:
        return f"line-{line}"
    value = data["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ItemError(f"'id' must be a string or an integer, not {_json_kind(value)}")
    return value


def parse_item(text: str, line: int) -> Item:
    """The item of one input line; ItemError says what is wrong with a bad one.

    A game record is checked as solver.rules.records does for every reader (fields, types, each
    move legal in turn), so a bad one is a bad line here rather than a failure in a worker.
    """
    text = text.strip()
    if text.startswith("{"):
        try:
            data = loads(text)  # nesting capped: deep JSON is a bad line, not a RecursionError
        except ValueError as e:
            raise ItemError(str(e)) from None
        if not isinstance(data, dict):
            raise ItemError("a JSON item must be an object")
        if "dnp" in data:
            item_id = _item_id(data, line)
            if not isinstance(data["dnp"], str):
                raise ItemError("'dnp' must be a string")
            Position.parse(data["dnp"])
            return Item(item_id, "position", line, data["dnp"])
        if "deal" in data or "moves" in data:
            item_id = _item_id(data, line)
            try:
                check_record(data, REPLAY_FIELDS)
            except RecordError as e:
                raise ItemError(f"game record field {e.field}: {e.reason}") from None
            return Item(item_id, "game", line,
                        dict(deal=data["deal"], moves=data["moves"], players=data.get("players")))
        raise ItemError("a JSON item needs 'dnp' (a position) or 'deal' and 'moves' (a game record)")
    Position.parse(text)
    return Item(f"line-{line}", "position", line, text)


def _skip_reason(pos: Position) -> str | None:
    if pos.is_over:
        return "game over"
    if pos.round != ROUNDS:
        return "deck not empty (before round 4)"
    if pos.hands[pos.to_move] is None:
        return "the side to move's hand is hidden"
    return None


def analyse_position(pos: Position, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> dict:
    """The exact view values of every move for the side to move, the open values when both
    hands are known, and the equilibrium when the game is small enough (`grade`).

    `equilibrium_nodes` is 0 (no equilibrium) to MAX_GRADE_NODES; anything else is an ArgumentError.

    The table is emptied first: values never depend on it, but which of several equally
    good lines the principal variation shows does, and a batch must give the same output
    whatever the order its items were solved in, in whichever process.
    """
    try:
        whole("equilibrium_nodes", equilibrium_nodes, 0, MAX_GRADE_NODES)
    except ValueError as e:
        raise ArgumentError(f"analyse_position: {e}") from None
    get_solver().clear()
    view = pos.view(PLAYERS[pos.to_move])
    result = solve(view, mode="view").to_dict()
    out = dict(to_move=result["to_move"], mode="view", best=result["best"], moves=result["moves"],
               worlds=result["worlds"])
    out["equilibrium"] = equilibrium_summary(graded_equilibrium(view, equilibrium_nodes))
    # what a reader should go by: the equilibrium when there is one, else the (optimistic) view
    out["method"] = "view" if out["equilibrium"] is None else "equilibrium"
    if None not in pos.hands:
        open_result = solve(pos, mode="open").to_dict()
        out["open"] = dict(best=open_result["best"], moves=open_result["moves"], pv=open_result["pv"],
                           outcome=open_result["moves"][0]["outcome"])
    return out


def annotate_game(record: dict, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> dict:
    """Every round-4 decision of a game: the move played, the best, the expected score lost, a mark.

    Each decision says how it was graded (`method`, see `grade`); `loss_fraction` is the
    exact loss for the view and null for the equilibrium.
    """
    pos = Position.parse(record["deal"])
    decisions = []
    summary = {p: dict(decisions=0, mistakes=0, blunders=0, expected_loss=0.0) for p in PLAYERS}
    for ply, token in enumerate(record["moves"].split(), 1):
        if pos.is_over:
            raise ItemError(f"move {ply} ({token}) comes after the end of the game")
        if pos.round == ROUNDS and pos.hands[pos.to_move] is not None:
            mover = PLAYERS[pos.to_move]
            view = pos.view(mover)
            judged = grade(view, equilibrium_nodes)
            if token not in judged.expected:
                raise ItemError(f"move {ply} ({token}) is not legal")
            loss = judged.loss(token)
            mark = "??" if loss >= BLUNDER else "?" if loss >= MISTAKE else ""
            decisions.append(dict(ply=ply, player=mover, dnp=str(view), played=token, best=judged.best,
                                  expected_played=float(judged.expected[token]),
                                  expected_best=float(judged.reference), loss=float(loss),
                                  loss_fraction=str(loss) if judged.method == "view" else None, mark=mark,
                                  method=judged.method))
            s = summary[mover]
            s["decisions"] += 1
            s["expected_loss"] += float(loss)
            s["mistakes"] += mark == "?"
            s["blunders"] += mark == "??"
        try:
            pos = pos.play(token)
        except DnoirError as e:  # CardError, MoveError: the record's move, not a bug
            raise ItemError(f"move {ply} ({token}): {e}") from None
    return dict(decisions=decisions, summary=summary, players=record.get("players"),
                result=pos.result().winner if pos.is_over else None)


def analyse_item(item: Item, equilibrium_nodes: int = DEFAULT_EQUILIBRIUM_NODES) -> dict:
    """The result of one item (run in a worker): analysed, or skipped with the reason."""
    out = dict(id=item.id, type=item.kind, line=item.line)
    try:
        if item.kind == "position":
            pos = Position.parse(item.data)
            out["dnp"] = str(pos)
            reason = _skip_reason(pos)
            if reason is not None:
                out["skipped"] = reason
                return out
            out.update(analyse_position(pos, equilibrium_nodes))
        else:
            out.update(annotate_game(item.data, equilibrium_nodes))
    except ItemError as e:
        out["skipped"] = str(e)
    return out
