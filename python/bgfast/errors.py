"""Every exception bgfast raises for bad input, in one family under :class:`BgfastError`.

:class:`BgfastError` is a :class:`ValueError`, so ``except bgfast.BgfastError`` (or
``except ValueError``) catches bad input from the native core and from the Python layer
alike. A value of the wrong Python type is mostly a :class:`TypeError` (an argument that
must be one of bgfast's objects, such as a ``Position`` or a ``Net``); where a value is read
as a setting or a rule's (a match length, a player, a move, a kind), any value it cannot be
is that setting's ``BgfastError``. Code that takes input from outside (a server) catches
both. A result too large for memory is a :class:`MemoryError`. A call that raises leaves
the object it was called on unchanged. Messages that apply a rule name its id (``R9: the
higher die must be played``) from the rule book, ``RULES.md`` at the root of the source
tree; ``IllegalMoveError.rule`` holds the id alone.

The family::

    BgfastError (ValueError)
    ├── InvalidPositionError      counts, arrays or Position IDs that are no position
    ├── InvalidMoveError          move text that is not notation (syntax)
    ├── IllegalMoveError          a play the rules forbid (.rule names it: "R8")
    │   └── GameOverError         a move asked for after the game ended (R15)
    ├── InvalidDiceError          anything but a roll of two dice 1..6
    ├── InvalidNetError           a net that cannot be built, read or run
    ├── BearoffRangeError         outside what a bear-off table covers
    ├── BearoffFileError          bear-off table bytes that must not be trusted
    ├── GameStateError            an action the game's state does not allow now
    │   └── IllegalChouetteActionError (also a ChouetteError)
    ├── MatchOptionError          a rule, cube or match setting that is not allowed
    ├── InvalidStateError         a game state whose parts do not fit together
    ├── InvalidIdError            a Match ID, GNUbg ID, XGID or FIBS board that does not decode
    ├── InvalidSaveError          a saved game, match or chouette that is damaged
    │   └── ChouetteFileError     (also a ChouetteError)
    ├── ChouetteError             the chouette's errors (two classes above)
    ├── MetError                  match equity tables
    │   ├── UnknownTableError
    │   ├── InvalidScoreError
    │   └── InvalidCubeError
    └── ShardError                a shard of a rollout on an executor failed for good
"""

from __future__ import annotations

from bgfast._core import (
    BearoffFileError,
    BearoffRangeError,
    BgfastError,
    GameOverError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidNetError,
    InvalidPositionError,
)

__all__ = [
    "BearoffFileError",
    "BearoffRangeError",
    "BgfastError",
    "ChouetteError",
    "ChouetteFileError",
    "GameOverError",
    "GameStateError",
    "IllegalChouetteActionError",
    "IllegalMoveError",
    "InvalidCubeError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidMoveError",
    "InvalidNetError",
    "InvalidPositionError",
    "InvalidSaveError",
    "InvalidScoreError",
    "InvalidStateError",
    "MatchOptionError",
    "MetError",
    "ShardError",
    "UnknownTableError",
    "shown",
]


def shown(value: object, limit: int = 200) -> str:
    """``repr(value)`` for an error message: never fails, at most ``limit`` characters.

    Messages echo the bad input they refuse, and ``repr`` itself can fail on it: an int of
    more than 4,300 digits has no text form (Python's limit raises ``ValueError``), and a
    caller's object may have a broken ``__repr__``. A refusal must still be the error it
    means to be.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        text = f"<an int of {value.bit_length()} bits>"
    elif isinstance(value, (tuple, list)) and len(value) <= 8:
        inner = ", ".join(shown(v, limit) for v in value)
        if isinstance(value, list):
            text = f"[{inner}]"
        else:
            text = f"({inner}{',' if len(value) == 1 else ''})"
    elif isinstance(value, dict) and len(value) <= 8:
        text = "{" + ", ".join(f"{shown(k, limit)}: {shown(v, limit)}" for k, v in value.items())
        text += "}"
    else:
        try:
            text = repr(value)
        except Exception:  # a huge int inside a container, a broken __repr__
            text = f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class GameStateError(BgfastError):
    """An action that the game's current state does not allow.

    For example rolling while a double is pending, doubling after the roll (R18), or moving
    when the game is over. The message names the state and, where one applies, the rule id.
    """


class MatchOptionError(BgfastError):
    """A scoring, cube or match setting that is not allowed.

    Money-play options (Jacoby R23, automatic doubles R22, beavers, raccoons) are refused in
    match play; a match length or score outside what the rules allow (R20) is refused too.
    """


class InvalidStateError(BgfastError):
    """A :class:`~bgfast.GameState` whose parts do not fit together.

    For example a pending double in the Crawford game (R21), dice in the doubling phase, or
    a won position in a game still being played (R15). Decoders report it as
    :class:`InvalidIdError`, save loaders as :class:`InvalidSaveError`.
    """


class InvalidIdError(BgfastError):
    """A Match ID, ``PositionID:MatchID`` pair, XGID or FIBS board that cannot be decoded,
    or that describes no playable game state."""


class InvalidSaveError(BgfastError):
    """A saved game, match or chouette (JSON) that is malformed, inconsistent or tampered
    with: every damaged save of any kind, whatever the class that loads it.

    Raised instead of loading a state that differs from the one that was saved.
    """


class ChouetteError(BgfastError):
    """Base class of the errors raised by :class:`~bgfast.Chouette` (a ``ValueError``)."""


class IllegalChouetteActionError(ChouetteError, GameStateError):
    """An action the chouette rules (R24-R28) or the current state forbid; nothing changed.

    Also a :class:`GameStateError`, the class a :class:`~bgfast.Game` raises for an action
    its state does not allow (a double beyond the cube limit, for one)."""


class ChouetteFileError(ChouetteError, InvalidSaveError):
    """A saved chouette that is malformed, inconsistent with its own history, or tampered.

    Also an :class:`InvalidSaveError`, like every damaged save."""


class MetError(BgfastError):
    """Base class of the errors raised by :mod:`bgfast.met` (a ``ValueError``)."""


class UnknownTableError(MetError):
    """A match equity table name that bgfast does not ship (see
    :func:`bgfast.met.table_names`)."""


class InvalidScoreError(MetError):
    """A score outside the table (negative, beyond its length, or not a match score)."""


class InvalidCubeError(MetError):
    """A cube value that is not a power of two at least 1 (R17)."""


class ShardError(BgfastError):
    """A shard of a rollout on an executor failed for good.

    Raised when the executor gives up on a shard (a ``BrokenProcessPool``, a Dask
    ``KilledWorker``, a worker refusing another bgfast version, ...) after the retries. The
    message names the shard index, its games and the cause (also in ``__cause__``); the
    other shards are cancelled and no total is returned.
    """
