"""bgfast: the fastest correct backgammon engine core for Python.

Positions are always seen from the side to move::

    >>> import bgfast
    >>> start = bgfast.Position()
    >>> [str(m) for m in start.moves(3, 1)][:2]
    ['6/5 6/3', '8/7 6/3']
    >>> start.moves(3, 1)[0].result.id           # the opponent is to move
    'pHPwATDgc/ABMA'

Rule ids (R1..R32) in errors and docs refer to the project's rule book, ``RULES.md``
(at the root of the source tree; ``IllegalMoveError.rule`` holds the id of the rule broken).

The game layer: :class:`GameState` (one validated, immutable state of a game), :class:`Game`
(the referee that moves it along, with an event history), :class:`Match`, :class:`Chouette`,
:class:`Cube` and :class:`Rules`; the codecs of states in :mod:`bgfast.codec`, the words and
checks they share in :mod:`bgfast.vocab`, every exception in :mod:`bgfast.errors`. Match
files (Jellyfish ``.mat``, GNU Backgammon's SGF): :meth:`Match.from_mat`,
:meth:`Match.from_sgf` and their writers; :func:`analyse` rates every play of a match.
"""

from __future__ import annotations

import collections.abc as _collections_abc
from typing import Literal as _Literal

from bgfast import (
    batch,
    bearoff,
    cubeful,
    matfile,  # match files
    met,
    pubeval,  # rollouts: the pubeval module
    sgf,  # match files
)
from bgfast._core import Move, Moves, Net, Outcome, Position, perft
from bgfast._version import __version__
from bgfast.analysis import Analysis, Decision, PlayerStats, analyse  # match files
from bgfast.chouette import Chouette
from bgfast.cube import Cube
from bgfast.duel import DuelResult, duel
from bgfast.errors import (
    BearoffFileError,
    BearoffRangeError,
    BgfastError,
    ChouetteError,
    ChouetteFileError,
    GameOverError,
    GameStateError,
    IllegalChouetteActionError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidIdError,
    InvalidMoveError,
    InvalidNetError,
    InvalidPositionError,
    InvalidSaveError,
    InvalidStateError,
    MatchOptionError,
    MetError,
)
from bgfast.features import encode  # rollouts
from bgfast.game import Game
from bgfast.hint import RankedPlay, hint
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
from bgfast.state import GameResult, GameState
from bgfast.svg import position_svg as _position_svg
from bgfast.transcript import MatchInfo  # match files
from bgfast.vecenv import VecEnv, segment_argmax  # rollouts
from bgfast.vocab import Roll


def _svg(
    self: Position,
    *,
    home: _Literal["right", "left"] = "right",
    dice: Roll | None = None,
) -> str:
    """An SVG picture of this position, the side to move at the bottom (it is on roll) with
    its home board at the bottom right, or left with ``home="left"`` (R32); ``dice`` drawn
    if given. See :func:`bgfast.svg.position_svg`."""
    return _position_svg(self, home=home, dice=dice)


def _repr_svg_(self: Position) -> str:
    return _position_svg(self)


# The drawing lives in Python, the class in Rust: Position.svg() for files, _repr_svg_ for
# notebooks.
Position.svg = _svg  # type: ignore[method-assign]
Position._repr_svg_ = _repr_svg_  # type: ignore[method-assign]

# Moves is a read-only sequence of Move (len, indexing, slices, iteration, in).
_collections_abc.Sequence.register(Moves)

__all__ = [
    "Analysis",
    "BearoffFileError",
    "BearoffRangeError",
    "BgfastError",
    "Chouette",
    "ChouetteError",
    "ChouetteFileError",
    "Cube",
    "CubeRollout",
    "Decision",
    "DuelResult",
    "Game",
    "GameOverError",
    "GameResult",
    "GameState",
    "GameStateError",
    "IllegalChouetteActionError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidMoveError",
    "InvalidNetError",
    "InvalidPositionError",
    "InvalidSaveError",
    "InvalidStateError",
    "Match",
    "MatchInfo",
    "MatchOptionError",
    "MetError",
    "Move",
    "MoveRollout",
    "Moves",
    "Net",
    "Outcome",
    "PlayerStats",
    "Position",
    "RankedPlay",
    "RolloutResult",
    "Rules",
    "ShardError",
    "VecEnv",
    "__version__",
    "analyse",
    "batch",
    "bearoff",
    "cubeful",
    "duel",
    "encode",
    "hint",
    "matfile",
    "met",
    "perft",
    "pubeval",
    "rollout",
    "rollout_cube",
    "rollout_moves",
    "segment_argmax",
    "sgf",
]

# The name the __future__ import binds is no part of the API (dir(bgfast) lists it else).
del annotations
