"""Exceptions of the pure-Python game layer (Game, Cube, Match, IDs, saved files).

Every class derives from :class:`bgfast.BgfastError` (itself a :class:`ValueError`), so
``except bgfast.BgfastError`` catches bad input from the core and from this layer alike.
A call that raises one of these leaves the object it was called on unchanged.
"""

from __future__ import annotations

from bgfast._core import BgfastError

__all__ = ["GameStateError", "InvalidIdError", "InvalidSaveError", "MatchOptionError"]


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
