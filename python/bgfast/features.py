"""Feature encodings of positions for learning programs, written into numpy arrays.

Five schemes, each documented by layout (row 0 of a position is the side to move):

``"tesauro198"`` (TD-Gammon's 198 inputs, as gym-backgammon's ``get_board_features`` with
row 0 as its white player):

=================  ===========================================================================
index              meaning
=================  ===========================================================================
``4*i .. 4*i+3``   row 0's checkers on its point ``i + 1`` (``i = 0..23``):
                   ``[n >= 1, n >= 2, n >= 3, (n - 3) / 2 if n > 3 else 0]``
``96``, ``97``     row 0's checkers on the bar / 2, borne off / 15
``98 + 4*i ..``    row 1's checkers on its point ``24 - i`` (the square of row 0's point
                   ``i + 1``), same four units
``194``, ``195``   row 1's bar / 2, borne off / 15
``196``, ``197``   ``[1, 0]``: row 0 is on roll (candidate results given to evaluators are
                   seen by the player who just moved and carry ``[0, 1]``)
=================  ===========================================================================

``"pubeval"`` (Tesauro's pubeval inputs, 122): block ``k = 0..23`` (``5*k .. 5*k+4``) is row
0's point ``24 - k``: ``[opponent blot, own n == 1, own n >= 2, own n == 3, (n - 3) / 2 if
n >= 4]``; ``120`` the opponent's bar / 2; ``121`` row 0's checkers off / 15.

``"wildbg"`` (202) and ``"wildbg-race"`` (186): the inputs of wildbg's contact and race nets
(``bgfast.Net.wildbg()``). One side's ``n`` checkers on a point give four units: ``n = 1 ->
(1, 0, 0, 0)``, ``n = 2 -> (0, 1, 0, 0)``, ``n >= 3 -> (0, 0, 1, n - 3)``.

=================  ===========================================================================
index (wildbg)     meaning
=================  ===========================================================================
``0``, ``1``       row 0's and row 1's checkers off (counts)
``2 .. 5``         row 0's bar
``6 + 4*i ..``     row 0's point ``i + 1`` (``i = 0..23``)
``102 .. 105``     row 1's bar
``106 + 4*i ..``   row 1's checkers on the square row 0 calls ``i + 1`` (row 1's point
                   ``24 - i``)
=================  ===========================================================================

``"wildbg-race"``: ``0``, ``1`` checkers off; ``2 + 4*i`` row 0's point ``i + 1`` for ``i =
0..22``; ``94 + 4*i`` row 1's checkers on the square row 0 calls ``i + 2``. It leaves out what
a race cannot hold (bars, row 0's 24-point, row 1's checkers on row 0's 1-point).

``"board"`` (50): the raw counts of ``Position.to_array()`` as float32, row 0 then row 1.

The last three are inputs of position evaluators, which score a position for its side to
move about to roll: a rollout's candidate results given to an evaluator callable in one of
them are encoded as they stand, the opponent on roll (so return, for example, minus the
opponent's equity); ``tesauro198`` and ``pubeval`` candidates are seen by the chooser.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np
import numpy.typing as npt

from bgfast import _core, batch
from bgfast._core import BgfastError, Position

__all__ = ["SCHEMES", "PositionsLike", "encode"]

#: Feature count of each scheme.
SCHEMES: dict[str, int] = {
    "tesauro198": 198,
    "pubeval": 122,
    "wildbg": 202,
    "wildbg-race": 186,
    "board": 50,
}

#: One position (a ``Position`` or a ``(2, 25)`` array) or many (``(N, 2, 25)``, or a
#: sequence of ``Position``).
PositionsLike = Union[Position, npt.ArrayLike]


def as_positions(positions: Any) -> tuple[Any, bool]:
    """``(positions (N, 2, 25), single)``: one or many positions, for the native reader.

    ``single`` says the input was one position (a ``Position`` or a ``(2, 25)`` array).
    Arrays keep their dtype: the native reader takes any integer dtype and reports a bad
    count as given (``InvalidPositionError``, also for arrays that hold no counts). Nested
    sequences of counts with a bool among them are refused, as by every batch function.
    """
    if isinstance(positions, Position):
        return positions.to_array()[None], True
    if isinstance(positions, (list, tuple)) and (
        not positions or isinstance(positions[0], Position)
    ):
        return positions, False  # Positions (checked one by one natively), or none
    if isinstance(positions, (str, bytes)):
        raise _core.InvalidPositionError(f"not an array of positions: a {type(positions).__name__}")
    batch._refuse_bools(positions)
    try:
        array = np.asarray(positions)
    except (TypeError, ValueError) as error:
        raise _core.InvalidPositionError(f"not an array of positions: {error}") from None
    if array.ndim == 2 and array.shape == (2, 25):
        return array[None], True
    if array.ndim == 3:
        return array, False
    raise _core.InvalidPositionError(
        f"positions must have shape (2, 25) or (N, 2, 25), got {array.shape}"
    )


def encode(
    positions: PositionsLike,
    scheme: str = "tesauro198",
    *,
    out: npt.NDArray[np.float32] | None = None,
) -> npt.NDArray[np.float32]:
    """The features of one position ``(width,)`` or of many ``(N, width)``, float32.

    ``positions`` are seen from the side to move (row 0). With ``out`` (a C-contiguous
    float32 array of shape ``(N, width)``, or ``(width,)`` for one position) the features are
    written there and ``out`` is returned, with no allocation. The layouts are in this
    module's docs. Raises ``InvalidPositionError`` naming the first illegal position.
    Releases the GIL; Ctrl-C stops a long call (``out``, if given, is then partly written).
    """
    if scheme not in SCHEMES:
        raise BgfastError(f"unknown feature scheme {scheme!r}: use one of {sorted(SCHEMES)}")
    array, single = as_positions(positions)
    width = SCHEMES[scheme]
    if out is None:
        target = np.empty((len(array), width), dtype=np.float32)
    else:
        if not isinstance(out, np.ndarray) or out.dtype != np.float32:
            what = out.dtype if isinstance(out, np.ndarray) else type(out).__name__
            raise BgfastError(f"out must be a float32 numpy array, got {what}")
        target = out[None] if single and out.ndim == 1 else out
    _core.encode_into(array, scheme, target)
    if out is not None:
        return out
    return target[0] if single else target
