"""Interchange IDs of games, under their first address.

The codecs live in :mod:`bgfast.codec` and read and write :class:`~bgfast.GameState`
values; :class:`~bgfast.Game` builds itself from them (``Game.from_xgid``, ``game.xgid()``).
This module keeps every name it had: the field codecs (re-exported), and the functions
that take or give a :class:`~bgfast.Game`, written on top of both.
"""

from __future__ import annotations

from bgfast._core import Position
from bgfast.codec import (
    CubeAction,
    MatchIdFields,
    XgidFields,
    decode_match_id,
    encode_match_id,
    fibs_board_of,
    format_xgid,
    match_id_of,
    parse_xgid,
    split_gnubg_id,
    xgid_of,
)
from bgfast.errors import shown
from bgfast.game import Game
from bgfast.scoring import Rules

__all__ = [
    "CubeAction",
    "MatchIdFields",
    "XgidFields",
    "decode_match_id",
    "encode_match_id",
    "format_xgid",
    "game_fibs_board",
    "game_from_fibs_board",
    "game_from_gnubg_id",
    "game_from_xgid",
    "game_match_id",
    "game_position_for_id",
    "game_xgid",
    "parse_xgid",
    "split_gnubg_id",
]


def _check_game(game: object) -> Game:
    """``game`` if it is a :class:`~bgfast.Game`, else :class:`TypeError` naming it."""
    if not isinstance(game, Game):
        raise TypeError(f"game must be a bgfast.Game, not {type(game).__name__}: {shown(game)}")
    return game


def game_position_for_id(game: Game) -> Position:
    """The position seen from the player on roll (gnubg's ``fMove``; player 0 before the
    opening roll): ``game.position``."""
    return _check_game(game).position


def game_match_id(game: Game) -> str:
    """The Match ID of ``game``'s current state (:func:`bgfast.codec.match_id_of`)."""
    return match_id_of(_check_game(game).state)


def game_from_gnubg_id(
    gnubg_id: str, *, table: bool = False, seed: int | None = None, rules: Rules | None = None
) -> Game:
    """``Game.from_gnubg_id``: a game in the state of ``PositionID:MatchID``."""
    return Game.from_gnubg_id(gnubg_id, table=table, seed=seed, rules=rules)


def game_xgid(game: Game) -> str:
    """The XGID of ``game``'s current state (:func:`bgfast.codec.xgid_of`)."""
    return xgid_of(_check_game(game).state)


def game_from_xgid(xgid: str, *, table: bool = False, seed: int | None = None) -> Game:
    """``Game.from_xgid``: a game in the state of an XGID."""
    return Game.from_xgid(xgid, table=table, seed=seed)


def game_fibs_board(game: Game, you: str = "You", opponent: str = "Opponent") -> str:
    """The FIBS ``board:`` line of ``game`` (:func:`bgfast.codec.fibs_board_of`)."""
    return fibs_board_of(_check_game(game).state, you, opponent)


def game_from_fibs_board(line: str, *, seed: int | None = None) -> Game:
    """``Game.from_fibs_board``: a game from a FIBS ``board:`` line."""
    return Game.from_fibs_board(line, seed=seed)
