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

from bgfast import batch
from bgfast._core import (
    BgfastError,
    GameOverError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Moves,
    Outcome,
    Position,
    perft,
)

# Moves is a read-only sequence of Move (len, indexing, slices, iteration, in).
collections.abc.Sequence.register(Moves)

__all__ = [
    "BgfastError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Move",
    "Moves",
    "Outcome",
    "Position",
    "batch",
    "perft",
]
