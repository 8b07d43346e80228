"""A game in the terminal from one seat: against a bot, or tracking a game played elsewhere.

`Game` is the game itself: a start position and the events since (solver.rules.events). Against
a bot the start is the full deal and the events are the moves; when tracking a game played
at a table the start is the player's own view and the events are what the player saw (the
moves, and the player's new hand at each round start).

`PlayLoop` runs a game on two text streams, one command a line, so it works the same in a
terminal, through a pipe, and in tests. Its commands: a move (`8`, `+3`, `T`), `hint`,
`undo`, `show`, `save FILE`, `help`, `quit`; tracking, also the new hand at a round start.

>>> import io
>>> game = Game.versus(deal=Position.random_deal(7), seat=0, engine="random")
>>> out = io.StringIO()
>>> PlayLoop(game, io.StringIO("quit\\n"), out, engine=make_player("random", 1)).run()
'quit'
>>> out.getvalue().splitlines()[-2:]
['[round 1] your move (6 8 -1 -2)> quit', 'bye']
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import dataclass, field

from solver.agents.arena import make_player
from solver.agents.arena import result_dict
from solver.agents.external import EngineFault
from solver.analysis.review import render_review, review_record
from solver.base.jsonl import read_line, records, replace_file
from solver.errors import DnoirError, SavedGameError
from solver.interfaces.board import render_advice, render_board, render_score
from solver.rules.cards import KINDS, TAKE_TOKEN, counts_of, format_counts, parse_cards
from solver.rules.events import HAND_PREFIX, EventError, apply_event, parse_event
from solver.rules.notation import PLAYERS
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import advise

DEFAULT_ENGINE = "ismcts:time=1"
_MOVE_TOKENS = {*KINDS, TAKE_TOKEN}
HELP = """commands:
  a move        8, +3, -1, C (play that card) or T (take); when tracking, also the opponent's
                move: the card they played, or T
  hint          the advice table for your move, from your view only
  undo          back to your previous decision (tracking: take back the last entry)
  show          the board from your seat
  save FILE     write the game so far to FILE (resume it with --load FILE)
  help          this text
  quit          stop (with --record, the game so far is kept)"""


@dataclass
class Game:
    """A game from `seat` (0 = a, 1 = b): a start position and the events since.

    Against a bot (`tracked` False) `start` is the full deal and every event a move; when
    tracking, `start` is the seat's view and events may include `hand:<cards>`.
    """

    seat: int
    start: Position
    tracked: bool
    events: list[str] = field(default_factory=list)
    engine: str | None = None
    seed: int | None = None
    positions: list[Position] = field(default_factory=list, repr=False)

    def __post_init__(self):
        events, self.events = self.events, []
        self.positions = [self.start]
        for token in events:
            self.push(token)

    @classmethod
    def versus(cls, deal: Position, seat: int, engine: str, seed: int | None = None) -> "Game":
        """A new game against a bot on a full deal."""
        return cls(seat=seat, start=deal, tracked=False, engine=engine, seed=seed)

    @classmethod
    def track(cls, start_view: Position, seat: int) -> "Game":
        """A game played elsewhere, followed from `seat`'s view."""
        return cls(seat=seat, start=start_view, tracked=True)

    @property
    def position(self) -> Position:
        """The current position (full against a bot; the seat's view when tracking)."""
        return self.positions[-1]

    @property
    def view(self) -> Position:
        """The current position as the seat sees it."""
        return self.position.view(PLAYERS[self.seat]) if not self.tracked else self.position

    @property
    def needs_hand(self) -> bool:
        """True when tracking and the seat's new hand is still to be entered."""
        pos = self.position
        return self.tracked and not pos.is_over and pos.hands[self.seat] is None

    @property
    def my_turn(self) -> bool:
        """True when the seat is to move (and its hand is known)."""
        pos = self.position
        return not pos.is_over and pos.to_move == self.seat and pos.hands[self.seat] is not None

    def push(self, token: str) -> Position:
        """Apply one event (a move token or `hand:<cards>`); EventError says why it cannot be."""
        index = len(self.events) + 1
        event = parse_event(token, index)
        if event.hand is not None and not self.tracked:
            raise EventError(index, token, "new hands are dealt by the game against a bot")
        pos = apply_event(self.position, event, self.seat, index)
        self.events.append(token)
        self.positions.append(pos)
        return pos

    def undo(self) -> bool:
        """Go back to the seat's previous decision (tracking: drop the last event); False if none."""
        if not self.events:
            return False
        if self.tracked:
            cut = len(self.events) - 1
        else:
            mine = [i for i in range(len(self.events)) if self.positions[i].to_move == self.seat]
            if not mine:
                return False
            cut = mine[-1]
        del self.events[cut:]
        del self.positions[cut + 1:]
        return True

    def to_record(self) -> dict:
        """The JSON record of the game so far: `dnoir play --load` resumes it, `dnoir review` reads it."""
        seat = PLAYERS[self.seat]
        if self.tracked:
            record = dict(kind="track", seat=seat, start=str(self.start), events=" ".join(self.events))
        else:
            other = PLAYERS[1 - self.seat]
            record = dict(kind="play", seat=seat, deal=str(self.start), moves=" ".join(self.events),
                          players={seat: "you", other: self.engine}, seed=self.seed)
        pos = self.position
        if pos.is_over:
            record["result"] = result_dict(pos)
        return record

    @classmethod
    def from_record(cls, record: dict) -> "Game":
        """The game of a record written by `to_record`; SavedGameError names a missing or bad field."""
        if not isinstance(record, dict):
            raise SavedGameError("a saved game is one JSON object")
        seat = record.get("seat")
        if seat not in ("a", "b"):
            raise SavedGameError(f"field 'seat': {seat!r} is not a or b")
        tracked = "start" in record
        start_field, events_field = ("start", "events") if tracked else ("deal", "moves")
        for name in (start_field, events_field):
            if not isinstance(record.get(name), str):
                raise SavedGameError(f"field {name!r}: missing or not a string")
        start = Position.parse(record[start_field])
        if not tracked and not start.is_full:
            raise SavedGameError("field 'deal': a game against a bot starts from a full deal")
        game = cls(seat=PLAYERS.index(seat), start=start, tracked=tracked,
                   engine=None if tracked else _engine_of(record, seat), seed=record.get("seed"))
        try:
            for token in record[events_field].split():
                game.push(token)
        except EventError as e:
            raise SavedGameError(f"field {events_field!r}: {e}") from None
        return game


def _engine_of(record: dict, seat: str) -> str | None:
    players = record.get("players")
    if isinstance(players, dict):
        other = players.get("b" if seat == "a" else "a")
        return other if isinstance(other, str) else None
    return None


def start_view(seat: int, first: int, line: str, hand: str) -> Position:
    """The seat's view at the start of a game: the line, its own hand, `first` to move.

    >>> str(start_view(1, 0, "5+2", "678+3C"))
    '5+2 ?????/678+3C ./. 1 a -'
    """
    hand_field = format_counts(counts_of(parse_cards(hand)))
    hands = f"{hand_field}/?????" if seat == 0 else f"?????/{hand_field}"
    return Position.parse(f"{line} {hands} ./. 1 {PLAYERS[first]} -")


class Quit(Exception):
    """The player asked to stop, or the input ended (or, with ENGINE_FAULT, the engine failed)."""


# The reason of the Quit that an engine's failure ends a game with.
ENGINE_FAULT = "engine fault"


# The longest answer line read (as the engine protocol's lines): a move, a hand or a
# command is a few characters; a longer line is refused without being read into memory.
MAX_ANSWER_BYTES = 4096


class Console:
    """Prompts and answers on two text streams; what was read is echoed when it is not a terminal."""

    def __init__(self, inp, out):
        self.inp, self.out = inp, out

    def say(self, text: str = "") -> None:
        """Write lines to the output stream."""
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        """Write `prompt` (ending with '> ') and read one line; Quit at the end of the input."""
        while True:
            self.out.write(prompt + "> ")
            self.out.flush()
            # read through the byte buffer with a cap: a huge line is skipped unread, bytes
            # that are not UTF-8 are the answer's problem, whatever the locale
            line, problem = read_line(self.inp, MAX_ANSWER_BYTES)
            if problem is None:
                break
            if not _is_terminal(self.inp):
                self.out.write("\n")
            self.say(f"error: that line is {problem}: ignored")
        if not line:
            self.say()
            raise Quit("end of input")
        if not _is_terminal(self.inp):
            self.out.write(line if line.endswith("\n") else line + "\n")  # a transcript shows what was read
        return line.strip()


class PlayLoop(Console):
    """Runs a `Game` on text streams: shows the board, reads commands, moves the engine.

    `engine` (a bot from solver.agents.arena.make_player) plays the other seat of a game against
    a bot. `hint_limit` is the search budget of `hint` (default 1 s); `review_limit` that of
    each decision of the closing review (None: no review); `record` a file rewritten after
    every event, so that nothing played is lost.
    """

    def __init__(self, game: Game, inp, out, engine=None, hint_limit: Limit | None = None,
                 review_limit: Limit | None = None, record: str | None = None, threads: int | None = None):
        super().__init__(inp, out)
        self.game = game
        self.engine = engine
        self.hint_limit = hint_limit
        self.review_limit = review_limit
        self.record = record
        self.threads = threads

    # -- the loop -----------------------------------------------------------------------

    def run(self) -> str:
        """Play until the game ends ('over') or the player quits ('quit')."""
        game = self.game
        seat = PLAYERS[game.seat]
        self.say(f"You play {seat}." + ("" if game.tracked else f" Your opponent: {game.engine}."))
        self.say("Type help for the commands.")
        shown = None
        try:
            if self.engine is not None:
                self._engine_call(self.engine.new_game)
            while not game.position.is_over:
                if not game.tracked and not game.my_turn:
                    self._engine_move()
                    continue
                if game.my_turn and shown is not game.position:
                    self.say()
                    self.say(render_board(game.view))
                    shown = game.position
                self._one_command()
        except Quit as e:
            self._save_record()
            self.say("bye")
            return "engine fault" if e.args and e.args[0] == ENGINE_FAULT else "quit"
        self._save_record()
        self._finish()
        return "over"

    def _prompt(self) -> str:
        game, pos = self.game, self.game.position
        where = f"[round {pos.round}] "
        if game.needs_hand:
            return where + "your new hand (5 cards, e.g. 568+2C)"
        if game.my_turn:
            return where + f"your move ({' '.join(str(m) for m in pos.legal_moves())})"
        return where + f"{PLAYERS[pos.to_move]}'s move (the card played, or T)"

    def _one_command(self) -> None:
        # against an engine, it thinks on the player's time, if it ponders
        thinking = self.engine.pondering() if self.engine is not None and self.game.my_turn else nullcontext()
        with thinking:
            text = self.ask(self._prompt())
        if not text:
            return
        word, _, rest = text.partition(" ")
        command = getattr(self, f"_cmd_{word.lower()}", None)
        if command is not None:
            command(rest.strip())
            return
        if text == TAKE_TOKEN.lower():  # typed at a prompt, a lowercase t is as clear as T
            text = TAKE_TOKEN
        token = text if not self.game.needs_hand or text.startswith(HAND_PREFIX) else HAND_PREFIX + text
        if len(token.split()) != 1:
            self.say("error: one move a line (type help for the commands)")
            return
        mover = self.game.position.to_move
        try:
            self.game.push(token)
        except EventError as e:
            known = token.startswith(HAND_PREFIX) or token in _MOVE_TOKENS
            self.say(f"error: {e.reason}" if known else
                     f"error: {token!r} is neither a move (8, +3, -1, C, T) nor a command (type help)")
            return
        if token.startswith(HAND_PREFIX):
            self.say(f"your hand: {token[len(HAND_PREFIX):]}")
        else:
            self.say(f"{PLAYERS[mover]} plays {token}" if token != "T" else self._took(mover))
            self._after_move()
        self._save_record()

    def _engine_move(self) -> None:
        pos = self.game.position
        mover = PLAYERS[pos.to_move]
        self.say(f"{mover} is thinking...")
        move = self._engine_call(self.engine.choose, pos.view(mover))
        self.game.push(str(move))
        self.say(f"{mover} plays {move}" if not move.is_take else self._took(pos.to_move))
        self._after_move()
        self._save_record()

    def _engine_call(self, call, *args):
        """`call(*args)` of the engine; its fault ends the game (Quit, the record kept)."""
        try:
            return call(*args)
        except EngineFault as e:
            self.say(f"error: the engine failed ({e}); the game stops here")
            raise Quit(ENGINE_FAULT) from None

    def _took(self, mover: int) -> str:
        """'b takes 58+2' after player `mover` took: the cards it collected."""
        before, after = self.game.positions[-2], self.game.position
        gained = tuple(a - b for a, b in zip(after.colls[mover], before.colls[mover]))
        return f"{PLAYERS[mover]} takes {format_counts(gained)}"

    def _after_move(self) -> None:
        before, after = self.game.positions[-2], self.game.position
        if not after.is_over and after.round != before.round:
            self.say(f"--- round {after.round}: {PLAYERS[after.to_move]} moves first")

    def _save_record(self) -> None:
        if self.record is None:
            return
        try:
            write_record(self.record, self.game.to_record())
        except OSError as e:  # keep playing: the game is still in memory and `save` can write it elsewhere
            self.say(f"error: cannot write {self.record}: {e.strerror or e}")

    def _finish(self) -> None:
        game = self.game
        pos = game.position
        self.say()
        self.say("Game over.")
        self.say(render_score(pos))
        if self.review_limit is not None:
            self.say()
            self.say(f"Review of your decisions ({self.review_limit} a decision before round 4)...")
            decisions = review_record(game.to_record(), self.review_limit, threads=self.threads)
            self.say(render_review(game.to_record(), decisions))

    # -- commands -------------------------------------------------------------------------

    def _cmd_help(self, _rest: str) -> None:
        self.say(HELP)

    def _cmd_quit(self, _rest: str) -> None:
        raise Quit("quit")

    _cmd_exit = _cmd_quit

    def _cmd_show(self, _rest: str) -> None:
        self.say(render_board(self.game.view))

    def _cmd_undo(self, _rest: str) -> None:
        if not self.game.undo():
            self.say("error: nothing to undo")
            return
        self._save_record()
        pos = self.game.position
        self.say(f"undone: back to round {pos.round}, {PLAYERS[pos.to_move]} to move")

    def _cmd_hint(self, _rest: str) -> None:
        if not self.game.my_turn:
            self.say("error: a hint is for your own move")
            return
        view = self.game.view
        advice = advise(view, self.hint_limit, threads=self.threads)
        self.say(render_advice(view, advice))

    def _cmd_save(self, rest: str) -> None:
        if not rest:
            self.say("error: save needs a file name: save FILE")
            return
        try:
            write_record(rest, self.game.to_record())
        except OSError as e:
            self.say(f"error: cannot write {rest}: {e.strerror or e}")
            return
        self.say(f"saved to {rest}")


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write_record(path: str, record: dict) -> None:
    """Write the record as one JSON line: a regular file is replaced in one step (a crash
    leaves the old one), a symlink followed, a device or pipe written to, never replaced
    (solver.base.jsonl.replace_file). OSError on failure."""
    replace_file(path, json.dumps(record) + "\n")


def load_game(path: str) -> Game:
    """The game saved in `path` (the last JSON line of the file); SavedGameError says what is wrong,
    naming the file and the line (solver.base.jsonl reads it: any bytes are an input error)."""
    last = None
    try:
        for last in records(path):
            pass
    except OSError as e:
        raise SavedGameError(f"cannot read {path}: {e.strerror or e}") from None
    if last is None:
        raise SavedGameError(f"{path}: empty, no saved game")
    number, record, problem = last
    if problem is not None:
        raise SavedGameError(f"{path} line {number}: {problem}")
    try:
        return Game.from_record(record)
    except DnoirError as e:  # SavedGameError, PositionError: the file's mistake, not a bug
        raise SavedGameError(f"{path} line {number}: {e}") from None


def ask_start(loop_in, out, seat: int | None = None) -> Game:
    """Ask for the seat (unless given), the first player, the starting line and the hand; a tracked Game.

    Each answer is asked again, with the reason, until it is valid; Quit at the end of input.
    """
    loop = Console(loop_in, out)
    while seat is None:
        answer = loop.ask("your seat (a or b)").lower()
        if answer in ("quit", "exit"):
            raise Quit("quit")
        if answer in ("a", "b"):
            seat = PLAYERS.index(answer)
        else:
            loop.say("error: answer a or b")
    while True:
        answer = loop.ask("who moves first (a or b)").lower()
        if answer in ("quit", "exit"):
            raise Quit("quit")
        if answer in ("a", "b"):
            first = PLAYERS.index(answer)
            break
        loop.say("error: answer a or b")
    while True:
        line = loop.ask("the starting line (2 cards, oldest first, e.g. 5+2)")
        hand = loop.ask("your hand (5 cards, e.g. 678+3C)")
        if "quit" in (line.lower(), hand.lower()):
            raise Quit("quit")
        try:
            return Game.track(start_view(seat, first, line or ".", hand or "."), seat)
        except DnoirError as e:  # CardError, PositionError: ask again; a bug is not the answer's fault
            loop.say(f"error: {e}")
