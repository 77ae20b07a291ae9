"""Exceptions of the pure-Python game layer (Game, Cube, Match, IDs, saved files).

Every class derives from :class:`bgfast.BgfastError` (itself a :class:`ValueError`), so
``except bgfast.BgfastError`` catches bad input from the core and from this layer alike.
A call that raises one of these leaves the object it was called on unchanged.
"""

from __future__ import annotations

from bgfast._core import BgfastError

__all__ = ["GameStateError", "InvalidIdError", "InvalidSaveError", "MatchOptionError", "shown"]


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
    """A scoring or cube option that the setting does not allow.

    Money-play options (Jacoby R23, automatic doubles R22, beavers, raccoons) are refused in
    match play; a match length or score outside what the rules allow (R20) is refused too.
    """


class InvalidIdError(BgfastError):
    """A GNU Backgammon Match ID, ``PositionID:MatchID`` pair or XGID that cannot be decoded."""


class InvalidSaveError(BgfastError):
    """A saved Game or Match (JSON) that is malformed, inconsistent or tampered with.

    Raised instead of loading a state that differs from the one that was saved.
    """
