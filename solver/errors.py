"""The one family of input mistakes: every error a user can cause with what they type or give.

`DnoirError` is "an input mistake": a position, a move, a bot spec, a game record, a line
of the engine protocol, an output file, an option's value... Its message says what was
wrong and why, in one line. Anything else that escapes (a TypeError, an AssertionError,
a plain ValueError raised by the code itself) is a fault of the program, not of its input:
the `dnoir` command line reports the family as ``dnoir: error: ...`` (exit code 2) and
anything else as an internal error (exit code 1, the traceback with ``dnoir --debug``).

Each class is a `ValueError`, as the mistakes it stands for always were, and stays
importable from the module that raises it (`solver.rules.notation.PositionError`,
`solver.rules.position.MoveError`, `solver.agents.bots.SpecError`, ...).

>>> try:
...     raise PositionError("round", "'5' is not a round (1 to 4)")
... except DnoirError as e:
...     print(e, "|", e.field, "|", isinstance(e, ValueError))
round: '5' is not a round (1 to 4) | round | True
"""

from __future__ import annotations


class DnoirError(ValueError):
    """An input mistake: the message names what was given and why it cannot be used."""


class FieldError(DnoirError):
    """A mistake in one field of a structured input: `field` names it, `reason` says why."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class PositionError(FieldError):
    """An invalid position; the message names the field and the reason.

    >>> str(PositionError("round", "'5' is not a round (1 to 4)"))
    "round: '5' is not a round (1 to 4)"
    """


class MoveError(DnoirError):
    """A move that cannot be played in the position it was given for."""


class CardError(DnoirError):
    """A card or move token that docs/notation.md does not define."""


class EventError(DnoirError):
    """An event that cannot be applied: its index (from 1), its token and the reason.

    >>> str(EventError(3, "+4", "the game is over"))
    'event 3 (+4): the game is over'
    """

    def __init__(self, index: int, token: str, reason: str):
        super().__init__(f"event {index} ({token}): {reason}")
        self.index = index
        self.token = token
        self.reason = reason


class SpecError(DnoirError):
    """A bot spec that names no bot, a key the bot does not take, or a value out of range."""


class RecordError(FieldError):
    """A game record that cannot be used: `field` names the field, `reason` says why."""


class SavedGameError(DnoirError):
    """A game saved by `dnoir play` that cannot be resumed: the message names the file or field."""


class ItemError(DnoirError):
    """A line of `dnoir analyse` input that is not an analysable item: the message says why."""


class ProtocolError(DnoirError):
    """A command the engine protocol does not define or whose arguments are malformed."""


class ArgumentError(DnoirError):
    """A value given to a Python call outside what it accepts (a player, a perft depth): the message names it."""


class LimitError(DnoirError):
    """A search budget (`solver.solvers.limit.Limit`) out of range or incomplete: the message names the field."""


class OptionError(DnoirError):
    """A command-line option's value that cannot be used: the message names the option."""


class OutputFileError(DnoirError):
    """An output file that cannot be opened for writing: the message names it and says why."""


class OutputMismatch(DnoirError):
    """An output file a run must not resume into: written by other settings, or not by `dnoir analyse`."""


class BookError(DnoirError):
    """An opening book (`dnoir match --book`) that cannot be used: the message names the file,
    the line and why."""


class GameTooBig(DnoirError):
    """A hidden-information game whose public tree would not fit the memory or time limit asked
    for; the message gives the estimate (`--force` solves it anyway)."""


class SetupError(RuntimeError):
    """What this installation or its surroundings lack for a command (a missing extra, an
    unreachable Dask scheduler): not an input mistake and not a bug. The message says what
    to install or check; the CLI prints it as one line (exit code 2)."""


__all__ = ["ArgumentError", "CardError", "DnoirError", "EventError", "FieldError", "GameTooBig",
           "ItemError", "LimitError", "MoveError", "OptionError", "OutputFileError",
           "OutputMismatch", "PositionError", "ProtocolError", "RecordError", "SavedGameError",
           "SetupError", "SpecError"]
