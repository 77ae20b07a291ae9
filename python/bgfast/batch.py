"""Many positions at once: numpy arrays in, numpy arrays out, the GIL released.

Positions are ``(N, 2, 25)`` uint8 arrays in the :meth:`bgfast.Position.to_array` layout (row 0
the side to move, row 1 the opponent; columns 0..23 that side's points 1..24, column 24 its
bar) or sequences of :class:`bgfast.Position`. Results of moves come flat, with offsets::

    >>> import numpy as np
    >>> from bgfast import Position, batch
    >>> offsets, results = batch.moves([Position(), Position()], np.array([[3, 1], [6, 6]]))
    >>> [int(offsets[i + 1] - offsets[i]) for i in range(2)]
    [16, 11]
    >>> Position.from_array(results[offsets[1]]).pips[1]  # row 1's first result, 24 pips on
    143

Every function takes ``threads``: ``None`` (the default) uses every core, ``1`` the calling
thread alone, up to 256. The output does not depend on it; batches of up to 256 (position,
roll) lists always run on the calling thread. On Linux, a pool with one worker per CPU the
process may use pins each worker to its own CPU (set ``BGFAST_PIN_THREADS=0`` before the
first call to leave them to the scheduler). A bad row raises a :class:`bgfast.BgfastError`
subclass whose message starts with ``row <index>:`` and names the violation (the first bad
row in row order); nothing is returned then. Ctrl-C stops ``moves``, ``all_rolls`` and
``move_counts`` within a fraction of a second, with ``KeyboardInterrupt`` and nothing
returned.

Result arrays are ordinary writable numpy arrays whose memory bgfast lends them: once an
array and all its views are gone, bgfast keeps its buffer (at most two buffers of up to
64 MiB each) for the next call, whose output then lands in memory that is already mapped
instead of fresh pages the kernel must zero first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Union, cast

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._core import BgfastError, InvalidDiceError, InvalidPositionError, Position
from bgfast.errors import shown

__all__ = [
    "PositionsLike",
    "all_rolls",
    "from_ids",
    "ids",
    "move_counts",
    "moves",
    "pip_counts",
    "to_array",
    "to_positions",
]

#: A ``(N, 2, 25)`` integer array in the ``Position.to_array()`` layout, or Positions.
PositionsLike = Union[npt.NDArray[np.integer], Sequence[Position]]


def _positions(positions: PositionsLike) -> PositionsLike:
    """The positions for the native reader, which takes arrays of any integer dtype as they
    are (so a bad count is reported as given) and sequences of Positions."""
    if isinstance(positions, (str, bytes, Position)):
        raise InvalidPositionError(
            "positions must be a (N, 2, 25) array or a sequence of Positions, "
            f"not one {type(positions).__name__}"
        )
    return positions


#: What ``dice`` may be, for messages.
_DICE_SHAPES = (
    "an integer array of shape (N, 2), one roll per position, or one roll (2,) for all,"
    " such as (3, 1)"
)


def _dice(dice: npt.ArrayLike, positions: PositionsLike) -> npt.NDArray[np.generic]:
    """The dice as an array, one roll ``(2,)`` repeated for every position; the native
    reader checks its shape, dtype and values (and what ``positions`` are). What is no
    array of numbers at all (``None``, text, one number) is refused here, named."""
    if dice is None:
        raise InvalidDiceError(
            f"dice must be {_DICE_SHAPES}; got None (batch.all_rolls gives the results of"
            " all 21 rolls)"
        )
    if isinstance(dice, (str, bytes)):
        text = dice.decode("ascii", "replace") if isinstance(dice, bytes) else dice
        roll = (
            f"({text[0]}, {text[1]})" if len(text) == 2 and set(text) <= set("123456") else "(3, 1)"
        )
        raise InvalidDiceError(
            f"dice must be numbers, not text: got the {type(dice).__name__} {shown(dice)};"
            f" give the roll as {roll}"
        )
    try:
        array = dice if isinstance(dice, np.ndarray) else np.asarray(dice)
    except (TypeError, ValueError) as error:
        raise InvalidDiceError(
            f"dice must be an integer array of shape (N, 2) or one roll (2,): {error}"
        ) from None
    if array.ndim == 0:
        raise InvalidDiceError(
            f"dice must be {_DICE_SHAPES}; got the {type(dice).__name__} {shown(dice)}"
        )
    if array.dtype.kind in "iu" and not isinstance(dice, np.ndarray) and _holds_bool(dice):
        # numpy reads True beside an int as 1: refused here, as every roll of bgfast is.
        raise InvalidDiceError("dice must be integers from 1 to 6, got a bool")
    if array.shape == (2,) and hasattr(positions, "__len__"):
        return np.broadcast_to(array, (len(positions), 2))
    return array


def _holds_bool(values: object) -> bool:
    """Whether nested sequences (or arrays) hold a bool, Python's or numpy's, anywhere: numpy
    reads True beside ints as 1, and bgfast takes no bool for a count or a die."""
    if isinstance(values, np.ndarray) and values.dtype.kind != "O":
        return bool(values.dtype.kind == "b")
    try:
        flat = np.asarray(values, dtype=object).ravel()
    except (TypeError, ValueError):
        return False  # no nested sequence: the reader says what it is
    kinds = set(map(type, flat))
    if bool in kinds or np.bool_ in kinds:
        return True
    if kinds.isdisjoint((list, tuple, np.ndarray)):
        return False  # numbers only, every one looked at
    return any(_holds_bool(value) for value in flat if isinstance(value, (list, tuple, np.ndarray)))


def _refuse_bools(positions: object) -> None:
    """``InvalidPositionError`` if nested sequences of counts hold a bool anywhere, as the
    native reader refuses them (``numpy.asarray`` would read True as 1)."""
    if not isinstance(positions, np.ndarray) and _holds_bool(positions):
        raise InvalidPositionError(
            "positions must be a (N, 2, 25) array (the Position.to_array() layout) or a"
            " sequence of Positions; got a bool among the counts"
        )


def _position_array(
    positions: object, name: str = "positions", rows: int | None = None
) -> npt.NDArray[np.uint8]:
    """``positions`` (a ``(N, 2, 25)`` integer array, nested sequences of counts or a
    sequence of Positions) as the ``(N, 2, 25)`` uint8 array, ``rows`` rows if given, each
    row checked: ``InvalidPositionError`` naming what ``name`` is instead (its shape, its
    dtype, its type), or, as every batch function, the first row that is no position
    (``row <index>: ...``, the count as given)."""
    wanted = f"{name} must be the positions' ({'N' if rows is None else rows}, 2, 25) array"
    if isinstance(positions, (list, tuple)) and positions and isinstance(positions[0], Position):
        array: npt.NDArray[np.generic] = _core.batch_stack(positions)
    elif isinstance(positions, (str, bytes, Position)) or positions is None:
        raise InvalidPositionError(f"{wanted} of checker counts, not {shown(positions)}")
    else:
        _refuse_bools(positions)
        try:
            array = np.asarray(positions)
        except (TypeError, ValueError) as error:
            raise InvalidPositionError(f"{wanted} of checker counts: {error}") from None
    if array.ndim != 3 or array.shape[1:] != (2, 25) or rows not in (None, len(array)):
        raise InvalidPositionError(f"{wanted} (bgfast.batch.to_array), got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise InvalidPositionError(f"{wanted} of integer counts, got dtype {array.dtype}")
    counts = cast("npt.NDArray[np.integer[Any]]", array)
    _core.batch_pip_counts(counts, None)  # names the first row that is no position
    return counts.astype(np.uint8, copy=False)


def moves(
    positions: PositionsLike, dice: npt.ArrayLike, *, threads: int | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """The legal results of each position's roll: ``(offsets, results)``.

    ``dice`` is ``(N, 2)``, row ``i`` the roll for position ``i``, or one roll ``(2,)`` (such
    as ``(3, 1)``) for every position. ``offsets`` is int64
    ``(N + 1,)``; ``results[offsets[i]:offsets[i + 1]]`` are position ``i``'s distinct
    results, uint8 ``(2, 25)`` each with the opponent to move, in the order of
    ``Position.moves`` (a roll with no legal play gives the one unchanged position, R10).
    Raises ``InvalidPositionError``, ``InvalidDiceError`` or ``GameOverError`` (R15) naming
    the first bad row.
    """
    array = _positions(positions)
    return _core.batch_moves(array, _dice(dice, array), threads)


def all_rolls(
    positions: PositionsLike, *, threads: int | None = None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """The legal results of all 21 rolls of each position: ``(offsets, results, rolls)``.

    Block ``b = 21 * i + k`` is position ``i`` with roll ``rolls[b]`` (uint8 ``(21 * N, 2)``,
    higher die first: the 15 non-doubles 21, 31, 32, ..., 65, then 11, 22, ..., 66); its
    results are ``results[offsets[b]:offsets[b + 1]]`` (``offsets`` has ``21 * N + 1``
    entries). The same as ``moves(np.repeat(positions, 21, axis=0), rolls)``.
    """
    return _core.batch_all_rolls(_positions(positions), threads)


def move_counts(
    positions: PositionsLike, dice: npt.ArrayLike | None = None, *, threads: int | None = None
) -> npt.NDArray[np.int64]:
    """The number of distinct legal results, without the results: of each position's roll
    (``dice`` of shape ``(N, 2)``, or one roll ``(2,)`` for all; returns ``(N,)``), or of
    all 21 rolls of each position (``dice`` omitted; returns ``(N, 21)``, columns in the
    order of :func:`all_rolls`).
    """
    array = _positions(positions)
    rolls = None if dice is None else _dice(dice, array)
    return _core.batch_move_counts(array, rolls, threads)


def ids(positions: PositionsLike, *, threads: int | None = None) -> list[str]:
    """The GNU Backgammon Position ID of each position."""
    return _core.batch_ids(_positions(positions), threads)


def from_ids(ids: Iterable[str], *, threads: int | None = None) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` uint8 array of the positions with these Position IDs (whitespace
    around each is ignored, as by ``Position.from_id``).

    Raises ``InvalidPositionError`` naming the first ID that does not decode.
    """
    if isinstance(ids, np.ndarray):
        ids = ids.tolist()
    return _core.batch_from_ids(ids, threads)


def pip_counts(positions: PositionsLike, *, threads: int | None = None) -> npt.NDArray[np.int32]:
    """Pip counts ``(side to move, opponent)`` of each position: int32 ``(N, 2)``."""
    return _core.batch_pip_counts(_positions(positions), threads)


def to_array(positions: Sequence[Position]) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` uint8 array of a sequence of Positions."""
    if isinstance(positions, np.ndarray):
        raise BgfastError("to_array takes a sequence of Positions; this is already an array")
    return _core.batch_stack(positions)


def to_positions(positions: PositionsLike, *, threads: int | None = None) -> list[Position]:
    """A :class:`bgfast.Position` for each row of a ``(N, 2, 25)`` array (rows validated)."""
    return _core.batch_to_positions(_positions(positions), threads)
