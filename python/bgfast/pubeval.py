"""Tesauro's pubeval, the field's standard benchmark evaluator.

Implemented from Gerald Tesauro's published description and weights (``pubeval.c``, 1993),
the linear evaluator that backgammon programs have been measured against since. ``score``
gives, to the bit, the number GNU Backgammon's ``gnubg_nn.pub_eval_score`` for the same board:
the score of row 0 (the side to move in bgfast's layout), with race weights when contact is
broken and contact weights otherwise, and ``WON`` when row 0 has borne off all 15.

As a move-choosing policy (``bgfast.rollout(..., policy="pubeval")``) each legal result is
scored for the player who moved, with the weights chosen by the position *before* the
move, as Tesauro specifies; the highest score is played: the choices of GNU Backgammon's
``pub_best_move`` (tested).
"""

from __future__ import annotations

from typing import overload

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._core import Position
from bgfast.features import as_positions

__all__ = ["WON", "score"]

#: The score of a position whose row 0 has borne off all 15 checkers (Tesauro's 99999999,
#: which is 1e8 in single precision).
WON = 100_000_000.0


@overload
def score(positions: Position) -> float: ...
@overload
def score(positions: npt.ArrayLike) -> float | npt.NDArray[np.float32]: ...
def score(positions: Position | npt.ArrayLike) -> float | npt.NDArray[np.float32]:
    """Pubeval scores: a float for one position (a ``Position`` or a ``(2, 25)`` array), a
    float32 array ``(N,)`` for an ``(N, 2, 25)`` array or a list of ``Position``.

    Raises ``InvalidPositionError`` naming the first illegal position. Releases the GIL;
    Ctrl-C stops it.
    """
    array, single = as_positions(positions)
    scores = _core.pubeval_scores(array)
    return float(scores[0]) if single else scores
