"""bgfast: the fastest correct backgammon engine core for Python.

Positions are always seen from the side to move::

    >>> import bgfast
    >>> start = bgfast.Position()
    >>> [str(m) for m in start.moves(3, 1)][:2]  # doctest: +SKIP
    >>> start.moves(3, 1)[0].result.id           # the opponent is to move

Rule ids (R1..R32) in errors and docs refer to the project's rule book (RULES.md).
"""

from __future__ import annotations

import collections.abc

from bgfast import (
    batch,
    bearoff,
    cubeful,
    met,
    pubeval,  # rollouts: the pubeval module
)
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
    Move,
    Moves,
    Net,
    Outcome,
    Position,
    perft,
)
from bgfast.chouette import Chouette
from bgfast.cube import Cube
from bgfast.duel import DuelResult, duel
from bgfast.errors_game import GameStateError, InvalidIdError, InvalidSaveError, MatchOptionError
from bgfast.features import encode  # rollouts
from bgfast.game import Game, GameResult
from bgfast.match import Match
from bgfast.rollout import (  # rollouts
    CubeRollout,
    MoveRollout,
    RolloutResult,
    ShardError,
    rollout,
    rollout_cube,
    rollout_moves,
)
from bgfast.scoring import Rules
from bgfast.svg import position_svg as _position_svg
from bgfast.vecenv import VecEnv  # rollouts

# Notebooks draw positions as SVG; the drawing lives in Python, the class in Rust.
Position._repr_svg_ = _position_svg  # type: ignore[attr-defined]

# Moves is a read-only sequence of Move (len, indexing, slices, iteration, in).
collections.abc.Sequence.register(Moves)

__all__ = [
    "BearoffFileError",
    "BearoffRangeError",
    "BgfastError",
    "Chouette",
    "Cube",
    "CubeRollout",
    "DuelResult",
    "Game",
    "GameOverError",
    "GameResult",
    "GameStateError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidMoveError",
    "InvalidNetError",
    "InvalidPositionError",
    "InvalidSaveError",
    "Match",
    "MatchOptionError",
    "Move",
    "MoveRollout",
    "Moves",
    "Net",
    "Outcome",
    "Position",
    "RolloutResult",
    "Rules",
    "ShardError",
    "VecEnv",
    "batch",
    "bearoff",
    "cubeful",
    "duel",
    "encode",
    "met",
    "perft",
    "pubeval",
    "rollout",
    "rollout_cube",
    "rollout_moves",
]
