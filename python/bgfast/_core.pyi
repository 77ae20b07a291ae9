"""Type stubs for the native module ``bgfast._core`` (import names from ``bgfast``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Literal, TypedDict, final, overload

import numpy as np
import numpy.typing as npt

#: A roll given as one value: a pair of dice (a tuple, a list or a numpy array of two ints).
_Roll = tuple[int, int] | Sequence[int] | npt.NDArray[np.integer[Any]]

__all__ = [
    "MAX_THREADS",
    "SHIPPED_METS",
    "BearoffFileError",
    "BearoffRangeError",
    "BgfastError",
    "CubeModel",
    "GameBatch",
    "GameOverError",
    "IllegalMoveError",
    "InvalidDiceError",
    "InvalidMoveError",
    "InvalidNetError",
    "InvalidPositionError",
    "Move",
    "Moves",
    "MovesIterator",
    "Net",
    "OneSidedTable",
    "Outcome",
    "Position",
    "RolloutPlan",
    "TwoSidedTable",
    "batch_all_rolls",
    "batch_from_ids",
    "batch_ids",
    "batch_move_counts",
    "batch_moves",
    "batch_pip_counts",
    "batch_stack",
    "batch_to_positions",
    "bearoff_index",
    "bearoff_index_batch",
    "bearoff_position",
    "bearoff_position_batch",
    "check_dice",
    "check_int",
    "check_threads",
    "default_threads",
    "duel_tally",
    "encode_into",
    "gnubg_cube_lives",
    "isa_report",
    "perft",
    "policy_move",
    "pubeval_scores",
    "shipped_met",
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

class BearoffRangeError(BgfastError):
    """A position or index outside what a bear-off table covers (R13, table limits)."""

class BearoffFileError(BgfastError):
    """Bytes that are not a valid bear-off table file (version, checksum, structure)."""

class InvalidNetError(BgfastError):
    """A net bgfast cannot build or run, or a file that is not a bgfast net."""

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
    def index(self, value: object, start: int | None = None, stop: int | None = None) -> int:
        """The index of the first move equal to ``value``; ``ValueError`` if none is."""
    def count(self, value: object) -> int:
        """How many moves equal ``value`` (0 or 1: each result is listed once)."""
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

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
        """The position with this GNU Backgammon Position ID (14 characters; whitespace
        around them is ignored)."""
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
    @property
    def epc(self) -> tuple[float, float]:
        """Effective pip counts ``(side to move, opponent)`` (bear-off positions only)."""
    def flipped(self) -> Position:
        """The same checkers with the other side to move."""
    def moves(self, d1: int | _Roll, d2: int | None = None) -> Moves:
        """The legal moves for a roll (two ints, or one pair), one per distinct result."""
    def play(self, move: Move | str, dice: _Roll | int, d2: int | None = None) -> Position:
        """Plays a move (a Move or move text) for a roll (one pair, or two ints) and
        returns the result, opponent to move; ``IllegalMoveError`` names the rule broken."""
    def parse_move(self, move: Move | str, dice: _Roll | int, d2: int | None = None) -> Move:
        """The legal Move that ``move`` denotes for the roll (the one whose result it
        reaches); raises as ``play`` does."""
    def play_physically(self, move: Move | str) -> Position:
        """The position after moving the checkers as written, legal or not (R31), the
        opponent to move; refuses only what no hand can do (R1, R7, R12)."""
    def svg(self, *, home: Literal["right", "left"] = "right", dice: _Roll | None = None) -> str:
        """An SVG picture, the side to move at the bottom (``bgfast.svg.position_svg``)."""
    def _repr_svg_(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __lt__(self, other: Position, /) -> bool: ...
    def __le__(self, other: Position, /) -> bool: ...
    def __gt__(self, other: Position, /) -> bool: ...
    def __ge__(self, other: Position, /) -> bool: ...

def perft(position: Position, depth: int) -> int:
    """Leaves of the tree of distinct results ``depth`` (0 to 7) plies deep, 21 rolls a ply.

    Releases the GIL; Ctrl-C stops it."""

# threads

MAX_THREADS: int
"""The most threads a call may ask for (``threads=``)."""

SHIPPED_METS: list[str]

def shipped_met(name: str) -> tuple[str, str] | None:
    """``(name as shipped, text)`` of a shipped match equity table's file, or ``None``."""

def default_threads() -> int:
    """The thread count of ``threads=None``: ``RAYON_NUM_THREADS``, else the usable CPUs."""

def check_dice(d1: object, d2: object = None) -> tuple[int, int]:
    """The roll ``(d1, d2)`` in the order given, from two ints or one pair: the one check of
    every entry point that takes dice; ``InvalidDiceError`` otherwise (a bool too)."""

def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is an int from ``low`` to ``high``: ``BgfastError`` naming ``name``,
    the range and the value otherwise, ``TypeError`` for a value that is no int."""

def check_threads(threads: int | None) -> int:
    """The thread count ``threads=`` asks for (``None``: ``default_threads()``), checked:
    ``BgfastError`` outside 1..``MAX_THREADS``, ``TypeError`` for a non-integer."""

def isa_report() -> dict[str, str | bool]:
    """The builds that run: ``generator``, ``row_writer`` and ``forced_baseline``."""

# rollouts

_Layers = Sequence[tuple[npt.ArrayLike, npt.ArrayLike, str]]

class _NetArrays(TypedDict):
    inputs: str
    contact: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], str]]
    race: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], str]] | None

@final
class Net:
    """A neural net that scores positions natively (gnubg's five probabilities)."""

    @staticmethod
    def wildbg() -> Net:
        """The shipped net: wildbg's contact and race nets (MIT OR Apache-2.0)."""
    @staticmethod
    def wildbg_large() -> Net:
        """wildbg's larger training nets (contact 17, race 16; CC0): stronger, about ten
        times the cost of a position."""
    @staticmethod
    def from_onnx(
        contact: str | os.PathLike[str],
        race: str | os.PathLike[str] | None = None,
        inputs: str | None = None,
    ) -> Net:
        """A net from dense ONNX graphs."""
    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the net in bgfast's file format, atomically."""
    @staticmethod
    def load(path: str | os.PathLike[str]) -> Net:
        """A net saved by ``save``."""
    def to_bytes(self) -> bytes:
        """The net in bgfast's file format."""
    @staticmethod
    def from_bytes(data: bytes) -> Net:
        """A net from ``to_bytes``'s bytes."""
    def __reduce__(self) -> tuple[Callable[[bytes], Net], tuple[bytes]]: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    @staticmethod
    def from_arrays(contact: _Layers, race: _Layers | None = None, inputs: str = "wildbg") -> Net:
        """A net from ``[(W (outputs, inputs), b (outputs,), activation), ...]`` layers."""
    def to_arrays(self) -> _NetArrays:
        """The layers as ``from_arrays`` takes them (copies)."""
    @property
    def inputs(self) -> str:
        """The input encoding's name."""
    @overload
    def evaluate(
        self, positions: Position, threads: int | None = None
    ) -> npt.NDArray[np.float32]: ...
    @overload
    def evaluate(
        self, positions: Sequence[Position] | npt.ArrayLike, threads: int | None = None
    ) -> npt.NDArray[np.float32]: ...
    @overload
    def equity(self, positions: Position, threads: int | None = None) -> float: ...
    @overload
    def equity(
        self, positions: Sequence[Position], threads: int | None = None
    ) -> npt.NDArray[np.float32]: ...
    @overload
    def equity(
        self, positions: npt.ArrayLike, threads: int | None = None
    ) -> npt.NDArray[np.float32] | float: ...
    def rank(
        self, position: Position, dice: _Roll
    ) -> list[tuple[Move, npt.NDArray[np.float32], float]]:
        """Every legal play, best first by cubeless equity, with the result's probabilities
        and equity (``bgfast.hint`` ranks them at the stakes: the cube, the match score)."""
    def score_rolls(
        self, positions: Position | Sequence[Position] | npt.ArrayLike, threads: int | None = None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """``(offsets, probabilities)`` of every legal result of all 21 rolls of each
        position, block ``21 i + k`` as ``bgfast.batch.all_rolls`` orders them: the numbers
        of ``evaluate(batch.all_rolls(positions)[1])``, scored from each roll's origin. One
        position is a batch of one."""
    def best_move(self, position: Position, dice: _Roll) -> Move:
        """The play ``rank`` puts first."""

def policy_move(policy: str | Net, position: Position, dice: _Roll, seed: int) -> Move:
    """The play a native policy chooses (a forced play or pass without asking)."""

def duel_tally(
    a: str | Net, b: str | Net, first_deal: int, deals: int, seed: int, threads: int | None
) -> tuple[int, int, int, int, int, int, int, int, int, int]:
    """A's tally over deals ``first_deal .. first_deal + deals`` of a duel."""

#: A fixed-point sum: its signed high and unsigned low 128 bits (value times 2**128).
_Halves = tuple[int, int]
#: One branch's sums: per output the sums and the sums of squares, then the game ends.
_BranchSums = tuple[list[_Halves], list[_Halves], list[int]]
#: A run's sums: games, each branch's sums, the cross products of the branches' values.
_Sums = tuple[int, list[_BranchSums], list[_Halves]]

def gnubg_cube_lives(positions: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """GNU Backgammon's cube life index of each ``(N, 2, 25)`` position (row 0 on roll)."""

@final
class CubeModel:
    """Janowski's cubeful model for one cube and one set of stakes, over rows of chances."""

    def __new__(
        cls, cube: tuple[int, str, int], stakes: tuple[Any, ...], cube_life: float
    ) -> CubeModel: ...
    def values(self, probabilities: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """``(N, 4)``: no double, double/take, double/pass, the value after the best cube
        action, for ``(N, 5)`` float32 chances of the side to move."""

@final
class RolloutPlan:
    """A rollout's settings, checked, run natively or in lockstep with a Python evaluator."""

    def __new__(
        cls,
        branches: Sequence[tuple[Position, str]],
        cube: tuple[int, str, int],
        stakes: tuple[Any, ...],
        seed: int,
        quasi_random: bool,
        truncate: int | None,
        bearoff: TwoSidedTable | None,
        variance_reduction: bool,
        evaluator: Net | None,
        cube_life: float | str | None,
        policy: str | Net | None,
        cube_wait: int = 0,
    ) -> RolloutPlan: ...
    def run(self, first_game: int, games: int, threads: int | None) -> _Sums:
        """Exact sums of games ``first_game .. first_game + games`` (GIL released)."""
    def run_with(
        self,
        evaluator: Callable[[npt.NDArray[np.float32]], npt.ArrayLike],
        scheme: str,
        first_game: int,
        games: int,
        slots: int,
        progress: Callable[[int, int], object] | None = None,
    ) -> tuple[_Sums, bool]:
        """Sums of games played in lockstep with ``evaluator``, and whether Ctrl-C stopped
        it (then the games from ``first_game`` up to the first unfinished one)."""

def pubeval_scores(
    positions: npt.NDArray[np.integer[Any]] | Sequence[Position],
) -> npt.NDArray[np.float32]:
    """Pubeval scores of ``(N, 2, 25)`` positions (any integer dtype) for their row 0."""

def encode_into(
    positions: npt.NDArray[np.integer[Any]] | Sequence[Position],
    scheme: str,
    out: npt.NDArray[np.float32],
) -> None:
    """Writes the features of ``(N, 2, 25)`` positions into ``out`` ``(N, width)``."""

@final
class GameBatch:
    """Many endless games advanced one ply at a time (``VecEnv``)."""

    MAX_GAMES: ClassVar[int]

    @staticmethod
    def env(n: int, seed: int) -> GameBatch:
        """``n`` endless games from the standard start."""
    def __len__(self) -> int: ...
    def seed(self) -> int:
        """The seed of every game's dice."""
    def to_bytes(self) -> bytes:
        """The batch as bytes (``from_bytes`` plays on from them exactly)."""
    @staticmethod
    def from_bytes(data: bytes) -> GameBatch:
        """The batch ``to_bytes`` saved."""
    def candidates(self, scheme: str) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """``(features (M, width), offsets (n + 1,))`` of every slot's candidates."""
    def candidate_positions(self) -> npt.NDArray[np.uint8]:
        """Candidate results ``(M, 2, 25)``, the opponent on roll."""
    def policy_choices(self, policy: str | Net, seed: int) -> npt.NDArray[np.int64]:
        """The candidate a native policy picks in every slot."""
    def step(
        self, choices: npt.NDArray[np.integer[Any]] | Sequence[int]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.uint8]]:
        """Plays one candidate per slot; ``(rewards, done, final positions)``."""
    def step_scores(
        self, scores: npt.NDArray[np.float64] | npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.uint8]]:
        """Plays the highest-scored candidate per slot; ``(rewards, done, final
        positions)``."""
    def positions(self) -> npt.NDArray[np.uint8]:
        """Current positions ``(n, 2, 25)``."""
    def dice(self) -> npt.NDArray[np.uint8]:
        """Rolls to play ``(n, 2)``."""
    def players(self) -> npt.NDArray[np.uint8]:
        """Who is on roll ``(n,)``."""
    def final_positions(self) -> npt.NDArray[np.uint8]:
        """Final positions of games that ended at the last step, zeros elsewhere."""
    def observe(self, scheme: str) -> npt.NDArray[np.float32]:
        """Features of the current positions ``(n, width)``."""

# batch: the native half of ``bgfast.batch`` (call the wrappers there instead).

_PositionsArg = npt.NDArray[np.integer[Any]] | Sequence[Position]

def batch_moves(
    positions: _PositionsArg,
    dice: npt.NDArray[np.generic],
    threads: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """Offsets ``(N + 1,)`` and results ``(M, 2, 25)`` of each row's roll."""

def batch_all_rolls(
    positions: _PositionsArg,
    threads: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """Offsets ``(21 N + 1,)``, results and the roll ``(21 N, 2)`` of each block."""

def batch_move_counts(
    positions: _PositionsArg,
    dice: npt.NDArray[np.generic] | None = None,
    threads: int | None = None,
) -> npt.NDArray[np.int64]:
    """Result counts ``(N,)`` of each row's roll, or ``(N, 21)`` of all 21 rolls."""

def batch_ids(
    positions: _PositionsArg,
    threads: int | None = None,
) -> list[str]:
    """The Position ID of each row."""

def batch_from_ids(ids: Iterable[str], threads: int | None = None) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` array of the positions with these IDs."""

def batch_pip_counts(
    positions: _PositionsArg,
    threads: int | None = None,
) -> npt.NDArray[np.int32]:
    """Pip counts ``(N, 2)``."""

def batch_stack(positions: Sequence[Position]) -> npt.NDArray[np.uint8]:
    """The ``(N, 2, 25)`` array of a sequence of Positions."""

def batch_to_positions(
    positions: _PositionsArg,
    threads: int | None = None,
) -> list[Position]:
    """A Position per row."""

# bear-off

_Counts = tuple[int, int, int, int, int, int]
_Points = Sequence[int]
_PointsArray = npt.NDArray[np.integer[Any]] | Sequence[Sequence[int]]
_TwoSides = Position | tuple[_Points, _Points]
_Progress = Callable[[int, int], object]

def bearoff_index(points: _Points) -> int:
    """GNU Backgammon bear-off index of six home counts (ace first, at most 15)."""

def bearoff_position(index: int) -> _Counts:
    """Six home counts (ace first) of a bear-off index in ``0..54264``."""

def bearoff_index_batch(points: _PointsArray) -> npt.NDArray[np.uint32]:
    """Bear-off indexes of the rows of an ``(N, 6)`` integer array."""

def bearoff_position_batch(indexes: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Home counts ``(N, 6)`` of a 1-D array of bear-off indexes."""

@final
class OneSidedTable:
    """The one-sided bear-off database (54,264 positions of up to 15 checkers)."""

    FORMAT_VERSION: int
    MAX_ROLLS: int
    @staticmethod
    def build(threads: int | None = None, progress: _Progress | None = None) -> OneSidedTable:
        """Builds the exact table (GIL released)."""
    @staticmethod
    def build_gnubg_compatible() -> OneSidedTable:
        """GNU Backgammon's own 16-bit table, reproduced (a test reference)."""
    @staticmethod
    def from_bytes(data: bytes) -> OneSidedTable:
        """Reads and verifies file bytes; ``BearoffFileError`` if not trustworthy."""
    def to_bytes(self) -> bytes:
        """The file bytes (versioned, checksummed)."""
    def __len__(self) -> int: ...
    def rolls_distribution(self, points: _Points) -> npt.NDArray[np.float64]:
        """Entry n: probability of needing exactly n rolls to bear off all checkers."""
    def gammon_distribution(self, points: _Points) -> npt.NDArray[np.float64]:
        """Entry n: probability that the first checker is off after exactly n rolls."""
    def expected_rolls(self, points: _Points) -> float:
        """Expected rolls to bear off all checkers."""
    def expected_rolls_to_first_off(self, points: _Points) -> float:
        """Expected rolls to bear off the first checker."""
    def variance(self, points: _Points) -> float:
        """Variance of the rolls to bear off all checkers."""
    def epc(self, points: _Points) -> float:
        """Effective pip count: expected rolls times 49/6."""
    def best_play(self, points: _Points, d1: int, d2: int) -> _Counts | None:
        """The play with the fewest expected rolls, as six counts."""
    def race_probabilities(self, mover: _Points, opponent: _Points) -> tuple[float, float, float]:
        """``(win, win gammon, lose gammon)`` of the side on roll, independent races."""
    def rolls_distribution_batch(self, points: _PointsArray) -> npt.NDArray[np.float64]:
        """Rolls distributions ``(N, 32)``."""
    def gammon_distribution_batch(self, points: _PointsArray) -> npt.NDArray[np.float64]:
        """First-checker distributions ``(N, 32)``."""
    def expected_rolls_batch(self, points: _PointsArray) -> npt.NDArray[np.float64]:
        """Expected rolls of each row."""
    def epc_batch(self, points: _PointsArray) -> npt.NDArray[np.float64]:
        """Effective pip counts of each row."""

@final
class TwoSidedTable:
    """The two-sided bear-off database (924 x 924 positions of up to 6 checkers a side)."""

    FORMAT_VERSION: int
    MAX_CHECKERS: int
    @staticmethod
    def build(
        cubeful: bool = True, threads: int | None = None, progress: _Progress | None = None
    ) -> TwoSidedTable:
        """Builds the table (GIL released), with cube equities if ``cubeful``."""
    @staticmethod
    def gnubg_compatible_words() -> npt.NDArray[np.uint16]:
        """``makebearoff -t 6x6``'s stored words, reproduced (a test reference)."""
    @staticmethod
    def from_bytes(data: bytes) -> TwoSidedTable:
        """Reads and verifies file bytes; ``BearoffFileError`` if not trustworthy."""
    def to_bytes(self) -> bytes:
        """The file bytes (versioned, checksummed)."""
    @property
    def cubeful(self) -> bool:
        """Whether the cube equities were built."""
    def win_probability(self, position: _TwoSides) -> float:
        """Cubeless probability that the side on roll wins with best play."""
    def win_probability_batch(
        self, mover: _PointsArray, opponent: _PointsArray
    ) -> npt.NDArray[np.float64]:
        """Win probabilities for two ``(N, 6)`` arrays."""
    def cubeful_equity(
        self,
        position: _TwoSides,
        cube: str = "centred",
        may_double: bool = True,
        doubles_left: int | None = None,
    ) -> float | None:
        """Money equity of the side on roll per unit cube; None if built cubeless."""
    def best_play(self, position: _TwoSides, d1: int, d2: int) -> _Counts | None:
        """The play maximising the side on roll's winning chances, as six counts."""
