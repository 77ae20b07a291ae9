"""Type stubs for the native module ``bgfast._core`` (import names from ``bgfast``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Literal, final, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "BgfastError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Move",
    "Moves",
    "MovesIterator",
    "Outcome",
    "Position",
    "batch_all_rolls",
    "batch_from_ids",
    "batch_ids",
    "batch_move_counts",
    "batch_moves",
    "batch_pip_counts",
    "batch_stack",
    "batch_to_positions",
    "perft",
]

class BgfastError(ValueError):
    """Base class of every error bgfast raises for bad input (a ValueError)."""

class InvalidPositionError(BgfastError):
    """Counts, an array or a Position ID that do not make a legal position."""

class InvalidMoveError(BgfastError):
    """Move text that is not valid notation (a syntax error)."""

class IllegalMoveError(BgfastError):
    """A well-formed move that the rules forbid here; the message names the rule id.

    When the core diagnosed the play, ``rule`` holds the rule id alone (e.g. ``"R9"``).
    """

    rule: str

class InvalidDiceError(BgfastError):
    """Dice outside 1..6, or not a pair."""

class GameOverError(IllegalMoveError):
    """A move was asked for after one side has borne off all 15 checkers (R15)."""

@final
class Outcome:
    """How a finished game ended (R15, R16)."""

    @property
    def winner(self) -> Literal["mover", "opponent"]:
        """Who bore off all 15 checkers."""
    @property
    def kind(self) -> Literal["single", "gammon", "backgammon"]:
        """Single, gammon or backgammon (R16)."""
    @property
    def points(self) -> int:
        """The cube multiplier: 1, 2 or 3."""

@final
class Move:
    """One legal move: its steps and the position it reaches (the opponent to move)."""

    @property
    def steps(self) -> list[tuple[int, int, bool]]:
        """Checker steps ``(from, to, hit)`` in the mover's numbering; 25 = bar, 0 = off."""
    @property
    def result(self) -> Position:
        """The position after the move, with the opponent to move."""
    @property
    def origin(self) -> Position:
        """The position the move is played from."""
    @property
    def is_pass(self) -> bool:
        """Whether this is the pass of a roll that cannot be played (R10)."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Moves(Sequence[Move]):
    """The legal moves of one position and roll, one per distinct result. A compact sequence:
    each ``Move`` object is made when it is indexed or iterated over."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> Move: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Move]: ...
    def __iter__(self) -> MovesIterator: ...
    def __contains__(self, item: object, /) -> bool: ...

@final
class MovesIterator(Iterator[Move]):
    """Iterates over a ``Moves``, making each ``Move`` as it is reached."""

    def __next__(self) -> Move: ...
    def __length_hint__(self) -> int: ...

@final
class Position:
    """A backgammon position seen from the side to move. Immutable and hashable.

    ``Position()`` is the standard start. Row 0 of ``to_array()`` is the side to move, row 1
    the opponent; columns 0..23 are that side's own points 1..24, column 24 its bar.
    """

    def __init__(self) -> None: ...
    @staticmethod
    def from_id(id: str) -> Position:
        """The position with this GNU Backgammon Position ID (14 characters)."""
    @staticmethod
    def from_array(array: npt.ArrayLike) -> Position:
        """The position from a ``(2, 25)`` array of counts."""
    @property
    def id(self) -> str:
        """The GNU Backgammon Position ID."""
    def to_array(self) -> npt.NDArray[np.uint8]:
        """The counts as a new ``(2, 25)`` uint8 array."""
    @property
    def pips(self) -> tuple[int, int]:
        """Pip counts ``(side to move, opponent)``."""
    @property
    def is_race(self) -> bool:
        """Whether contact is broken."""
    @property
    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on; else who won and how."""
    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off ``(side to move, opponent)``."""
    def flipped(self) -> Position:
        """The same checkers with the other side to move."""
    def moves(self, d1: int, d2: int) -> Moves:
        """The legal moves for ``d1``-``d2``, one per distinct resulting position."""
    def play(self, move: Move | str, dice: tuple[int, int]) -> Position:
        """Plays a move (a Move or move text) and returns the result, opponent to move."""
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Position, /) -> bool: ...
    def __le__(self, other: Position, /) -> bool: ...
    def __gt__(self, other: Position, /) -> bool: ...
    def __ge__(self, other: Position, /) -> bool: ...

def perft(position: Position, depth: int) -> int:
    """Leaves of the tree of distinct results ``depth`` plies deep, 21 rolls a ply."""

# batch: the native half of ``bgfast.batch`` (call the wrappers there instead).

def batch_moves(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    dice: npt.NDArray[np.int64],
    threads: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """Offsets ``(N + 1,)`` and results ``(M, 2, 25)`` of each row's roll."""

def batch_all_rolls(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    threads: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Offsets ``(21 N + 1,)``, results and the roll ``(21 N, 2)`` of each block."""

def batch_move_counts(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    dice: npt.NDArray[np.int64] | None = None,
    threads: int | None = None,
) -> npt.NDArray[np.int64]:
    """Result counts ``(N,)`` of each row's roll, or ``(N, 21)`` of all 21 rolls."""

def batch_ids(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    threads: int | None = None,
) -> list[str]:
    """The Position ID of each row."""

def batch_from_ids(ids: Iterable[str], threads: int | None = None) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` array of the positions with these IDs."""

def batch_pip_counts(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    threads: int | None = None,
) -> npt.NDArray[np.int32]:
    """Pip counts ``(N, 2)``."""

def batch_stack(positions: Sequence[Position]) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` array of a sequence of Positions."""

def batch_to_positions(
    positions: npt.NDArray[np.uint8] | npt.NDArray[np.int32] | Sequence[Position],
    threads: int | None = None,
) -> list[Position]:
    """A Position per row."""
