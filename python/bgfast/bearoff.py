"""Bear-off databases: exact race endings once every checker is home.

Indexes are GNU Backgammon's (``gnubg.positionbearoff`` with 6 points), so they are
interchangeable with its files::

    >>> from bgfast import bearoff
    >>> bearoff.index([1, 0, 0, 0, 0, 0])
    1
    >>> float(bearoff.rolls_distribution([1, 0, 0, 0, 0, 0])[1])  # one roll, always
    1.0
    >>> round(bearoff.epc([0, 0, 0, 0, 0, 1]), 3)  # 1.25 rolls x 49/6 pips
    10.208

``points`` are one side's six home-point counts, ace point first (at most 15 checkers).

The tables are built in Rust on first use (a fraction of a second for the one-sided table,
about a second for the two-sided one) and cached in ``$BGFAST_CACHE_DIR``, else
``$XDG_CACHE_HOME/bgfast``, else ``~/.cache/bgfast``. A cached file carries a format
version and a checksum: a missing, stale, damaged or forged file is rebuilt, never trusted,
and so is anything at the cache path that is not a regular file (a FIFO, a device); files
are replaced atomically so concurrent first uses cannot corrupt them. If the cache cannot
be written, the table works in memory with a ``RuntimeWarning``. No lock is held while a
table is built, so a ``progress`` callback may itself use the tables.
``bgfast bearoff build`` (``cli_build``) builds them ahead of time.
"""

from __future__ import annotations

import argparse
import errno
import os
import stat
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import numpy as np
import numpy.typing as npt

from bgfast import _core, batch
from bgfast._core import (
    BearoffFileError,
    BearoffRangeError,
    BgfastError,
    OneSidedTable,
    Position,
    TwoSidedTable,
    bearoff_index,
    bearoff_index_batch,
    bearoff_position,
    bearoff_position_batch,
)
from bgfast.errors import shown

__all__ = [
    "PIPS_PER_ROLL",
    "BearoffFileError",
    "BearoffRangeError",
    "OneSidedTable",
    "TwoSidedTable",
    "add_cli",
    "best_play",
    "build",
    "cache_dir",
    "cli_build",
    "cubeful_equity",
    "epc",
    "epc_batch",
    "exact_chances",
    "expected_rolls",
    "expected_rolls_batch",
    "gammon_distribution",
    "gammon_distribution_batch",
    "in_two_sided_range",
    "index",
    "index_batch",
    "one_sided",
    "plays_may_reach_two_sided_range",
    "position",
    "position_batch",
    "position_epc",
    "race_probabilities",
    "rolls_distribution",
    "rolls_distribution_batch",
    "two_sided",
    "variance",
    "win_probability",
    "win_probability_batch",
]

#: Average pips in a roll (doubles count four times): the EPC is expected rolls times this.
PIPS_PER_ROLL = 49.0 / 6.0

Points = Sequence[int]
"""One side's six home-point counts, ace point first."""
PointsArray = Union[npt.NDArray[np.integer[Any]], Sequence[Sequence[int]]]
"""An ``(N, 6)`` integer array of home-point counts (uint8 is the fast path)."""
TwoSides = Union[Position, tuple[Points, Points]]
"""A Position with every checker home, or ``(mover_points, opponent_points)``."""
Cube = Literal[
    "centred", "centered", "owned", "unavailable", "center", "centre", "mover", "opponent"
]

# The cube owners as the rest of the API names them (``bgfast.cubeful``, rollouts: seen
# from the side to move), and the spellings of "centred", read as the table names them.
_CUBE_SPELLINGS = {
    "centred": "centred",
    "centered": "centred",
    "center": "centred",
    "centre": "centred",
    "owned": "owned",
    "mover": "owned",
    "unavailable": "unavailable",
    "opponent": "unavailable",
}
Table = TypeVar("Table", OneSidedTable, TwoSidedTable)

_ONE_SIDED_FILE = "bearoff-one-sided-v{version}.bin"
_TWO_SIDED_FILE = "bearoff-two-sided-v{version}.bin"
# Guards `_loaded` only: never held while a table is read, built or reported on, so a
# `progress` callback (or another thread) may use the tables meanwhile.
_lock = threading.Lock()
_loaded: dict[Path, Any] = {}
# Larger than any table file (the largest possible is under 29 MB): a longer file is not a
# table and is not read.
_MAX_FILE_BYTES = 32 << 20


def cache_dir() -> Path:
    """The directory for cached tables: ``$BGFAST_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/bgfast``, else ``~/.cache/bgfast``."""
    explicit = os.environ.get("BGFAST_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "bgfast"


def _cache_key() -> tuple[str | None, ...]:
    """The environment :func:`cache_dir` reads, as far as it reads it: the key under which
    the table paths of that directory are kept (:func:`_table_paths`)."""
    explicit = os.environ.get("BGFAST_CACHE_DIR")
    if explicit:
        return (explicit,)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return (None, xdg)
    # Path.home(): $HOME on POSIX (else the password database, fixed for the process);
    # on Windows $USERPROFILE, else $HOMEDRIVE and $HOMEPATH.
    get = os.environ.get
    if os.name != "nt":
        return (None, None, get("HOME"))
    return (None, None, get("USERPROFILE"), get("HOMEDRIVE"), get("HOMEPATH"))


# The (one-sided, two-sided) table paths of the cache directory, by :func:`_cache_key`: a
# table lookup then costs a few environment reads, not a walk through pathlib. A changed
# $BGFAST_CACHE_DIR (or $XDG_CACHE_HOME, $HOME) is another key, so it takes effect at once.
_paths: dict[tuple[str | None, ...], tuple[Path, Path]] = {}


def _table_paths() -> tuple[Path, Path]:
    """The paths of the two tables in :func:`cache_dir`, kept by the environment read."""
    key = _cache_key()
    paths = _paths.get(key)
    if paths is None:
        directory = cache_dir()
        paths = (_one_sided_path(directory), _two_sided_path(directory))
        if len(_paths) >= 64:  # an environment changed again and again: start over
            _paths.clear()
        _paths[key] = paths
    return paths


def _one_sided_path(directory: Path | None = None) -> Path:
    if directory is None:
        return _table_paths()[0]
    return directory / _ONE_SIDED_FILE.format(version=OneSidedTable.FORMAT_VERSION)


def _two_sided_path(directory: Path | None = None) -> Path:
    if directory is None:
        return _table_paths()[1]
    return directory / _TWO_SIDED_FILE.format(version=TwoSidedTable.FORMAT_VERSION)


def _atomic_write(path: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``path`` and renames it over ``path``:
    readers see the old file or the new one, never a partial one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a cache is readable by all
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_regular_file(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file no longer than a table can be;
    ``None`` for anything else at that path (a FIFO, a device, a directory, a huge file),
    which is a bad cache entry. A FIFO must not block: the path is checked before it is
    opened, opened non-blocking, and checked again on the open file (it may have been
    swapped in between) before anything is read. ``OSError`` if it cannot be opened."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
            return None
        chunks = []
        left = _MAX_FILE_BYTES + 1  # the file may grow while it is read
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks) if left > 0 else None
    finally:
        os.close(fd)


def _load_or_build(
    path: Path,
    reader: Callable[[bytes], Table],
    builder: Callable[[], Table],
    force: bool = False,
    unwritten: dict[Path, OSError] | None = None,
) -> Table:
    """The table in ``path`` if it verifies; otherwise a fresh build, saved atomically
    (the rename replaces whatever was at ``path``). A cache that cannot be written is
    skipped with a ``RuntimeWarning`` (with ``unwritten``, the error is kept there
    instead, by path): the table still works in memory."""
    if not force:
        try:
            data = _read_regular_file(path)
        except OSError:
            data = None  # missing or unreadable: rebuild
        if data is not None:
            try:
                return reader(data)
            except BearoffFileError:
                pass  # stale, damaged or forged: rebuild
    table = builder()
    try:
        _atomic_write(path, table.to_bytes())
    except OSError as error:
        if unwritten is not None:
            unwritten[path] = error
            return table
        warnings.warn(
            f"bgfast: cannot cache the bear-off table in {path} ({error}); "
            "using it in memory for this process",
            RuntimeWarning,
            stacklevel=2,
        )
    return table


def _remember(path: Path, table: Table, replace: bool = False) -> Table:
    """Keeps ``table`` as the one of ``path`` for this process and returns the one kept:
    the first one stored, unless ``replace``."""
    with _lock:
        if replace or path not in _loaded:
            _loaded[path] = table
        kept: Table = _loaded[path]
    return kept


def _cached(path: Path, reader: Callable[[bytes], Table], builder: Callable[[], Table]) -> Table:
    """The table of ``path``: kept once per process, else loaded (or built). The lock is
    not held meanwhile: concurrent first uses may both build, harmlessly (the writes are
    atomic and the first table stored is the one every caller gets)."""
    with _lock:
        table: Table | None = _loaded.get(path)
    if table is None:
        table = _remember(path, _load_or_build(path, reader, builder))
    return table


def _cubeful_two_sided(data: bytes) -> TwoSidedTable:
    """The two-sided table in ``data``, which must hold cube equities: the cache serves
    cubeful rollouts and ``cubeful_equity``, so a valid table built without them (by
    ``TwoSidedTable.build(cubeful=False)``) is no cache entry and is built again."""
    table = TwoSidedTable.from_bytes(data)
    if not table.cubeful:
        raise BearoffFileError("the two-sided table was built without cube equities")
    return table


def one_sided() -> OneSidedTable:
    """The one-sided table (54,264 positions of up to 15 checkers), loaded or built once
    per process and cache directory."""
    return _cached(_one_sided_path(), OneSidedTable.from_bytes, OneSidedTable.build)


def two_sided() -> TwoSidedTable:
    """The two-sided table (924 x 924 positions of up to 6 checkers a side, cubeless and
    cubeful), loaded or built once per process and cache directory."""
    return _cached(_two_sided_path(), _cubeful_two_sided, TwoSidedTable.build)


def build(
    *,
    threads: int | None = None,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    directory: str | os.PathLike[str] | None = None,
) -> tuple[Path, Path]:
    """Builds both tables into the cache (or ``directory``) now, skipping valid cached
    files unless ``force``; ``progress(table, done, total)`` is called along the way.
    Returns the two file paths (a path that could not be written is left out of the
    cache with a ``RuntimeWarning``; the tables still work in memory)."""
    return _build(threads=threads, force=force, progress=progress, directory=directory)


def _build(
    *,
    threads: int | None = None,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    directory: str | os.PathLike[str] | None = None,
    unwritten: dict[Path, OSError] | None = None,
) -> tuple[Path, Path]:
    """:func:`build`; with ``unwritten``, a table file that cannot be written is no
    warning: its error is kept there, by path (the command line says it in its words)."""
    # Checked before any file is looked at: a bad argument is bad whether or not it is used.
    _core.check_threads(threads)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, not {type(progress).__name__}")
    folder = None if directory is None else Path(directory)
    paths = (_one_sided_path(folder), _two_sided_path(folder))

    def reporter(name: str) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        report = progress
        return lambda done, total: report(name, done, total)

    # No lock while building: ``progress`` may use the tables (the two-sided build's may
    # use the one-sided table, kept before it starts).
    one = _load_or_build(
        paths[0],
        OneSidedTable.from_bytes,
        lambda: OneSidedTable.build(threads=threads, progress=reporter("one-sided")),
        force,
        unwritten,
    )
    _remember(paths[0], one, replace=True)
    two = _load_or_build(
        paths[1],
        _cubeful_two_sided,
        lambda: TwoSidedTable.build(cubeful=True, threads=threads, progress=reporter("two-sided")),
        force,
        unwritten,
    )
    _remember(paths[1], two, replace=True)
    return paths


# Index


def index(points: Points) -> int:
    """The GNU Backgammon bear-off index (0..54263) of six home counts, ace first."""
    return bearoff_index(points)


def position(index: int) -> tuple[int, int, int, int, int, int]:
    """The six home counts (ace first) of a bear-off index from 0 to 54263; the inverse
    of ``index``. ``BearoffRangeError`` (naming the index given) outside that range."""
    return bearoff_position(index)


def index_batch(points: PointsArray) -> npt.NDArray[np.uint32]:
    """Bear-off indexes of the rows of an ``(N, 6)`` array."""
    return bearoff_index_batch(points)


def position_batch(indexes: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Home counts ``(N, 6)`` of a 1-D array of bear-off indexes."""
    return bearoff_position_batch(indexes)


# One-sided


def rolls_distribution(points: Points) -> npt.NDArray[np.float64]:
    """The exact distribution of rolls needed to bear off all checkers with the play
    minimising the expected rolls: entry n is the probability of needing exactly n rolls
    (32 entries)."""
    return one_sided().rolls_distribution(points)


def gammon_distribution(points: Points) -> npt.NDArray[np.float64]:
    """The distribution of rolls needed to bear off the first checker (entry n: exactly n
    rolls); all mass on 0 when fewer than 15 checkers are left (one is already off)."""
    return one_sided().gammon_distribution(points)


def expected_rolls(points: Points) -> float:
    """Expected rolls to bear off all checkers."""
    return one_sided().expected_rolls(points)


def variance(points: Points) -> float:
    """Variance of the number of rolls to bear off all checkers."""
    return one_sided().variance(points)


def epc(points: Points) -> float:
    """The effective pip count: expected rolls times 49/6 (the average roll)."""
    return one_sided().epc(points)


def position_epc(position: Position) -> tuple[float, float]:
    """EPCs ``(side to move, opponent)`` of a position where both sides have every
    checker home (R13); ``BearoffRangeError`` otherwise. The same as ``Position.epc``,
    which the core computes from the process's own one-sided table (no cache involved;
    every build gives the same table)."""
    if not isinstance(position, Position):
        raise TypeError(f"position must be a Position, not {type(position).__name__}")
    return position.epc


def best_play(points: Points, d1: int, d2: int) -> tuple[int, int, int, int, int, int] | None:
    """The bear-off-perfect play for roll d1-d2 (fewest expected rolls), as six counts;
    ``None`` when no checker is left."""
    return one_sided().best_play(points, d1, d2)


def race_probabilities(mover: Points, opponent: Points) -> tuple[float, float, float]:
    """``(win, win gammon, lose gammon)`` for the side on roll when both sides are
    bearing off, from the one-sided table with the two roll counts taken as independent
    (GNU Backgammon's one-sided evaluation; ``win_probability`` is exact where it
    applies). For truncating rollouts. Both sides with no checker left is not a position
    (``InvalidPositionError``, R15)."""
    return one_sided().race_probabilities(mover, opponent)


def rolls_distribution_batch(points: PointsArray) -> npt.NDArray[np.float64]:
    """Rolls distributions ``(N, 32)`` of the rows of an ``(N, 6)`` array."""
    return one_sided().rolls_distribution_batch(points)


def gammon_distribution_batch(points: PointsArray) -> npt.NDArray[np.float64]:
    """First-checker distributions ``(N, 32)`` of the rows of an ``(N, 6)`` array."""
    return one_sided().gammon_distribution_batch(points)


def expected_rolls_batch(points: PointsArray) -> npt.NDArray[np.float64]:
    """Expected rolls of the rows of an ``(N, 6)`` array."""
    return one_sided().expected_rolls_batch(points)


def epc_batch(points: PointsArray) -> npt.NDArray[np.float64]:
    """Effective pip counts of the rows of an ``(N, 6)`` array."""
    return one_sided().epc_batch(points)


# Two-sided


def win_probability(position: TwoSides) -> float:
    """The exact cubeless probability that the side on roll wins with best play by both
    sides. ``position`` is a Position with every checker home or a pair
    ``(mover_points, opponent_points)``; each side may have at most 6 checkers left
    (``BearoffRangeError`` otherwise), and not both none (``InvalidPositionError``, R15)."""
    return two_sided().win_probability(position)


def win_probability_batch(mover: PointsArray, opponent: PointsArray) -> npt.NDArray[np.float64]:
    """Win probabilities of the side on roll for two ``(N, 6)`` arrays."""
    return two_sided().win_probability_batch(mover, opponent)


def in_two_sided_range(boards: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Which of the ``(N, 2, 25)`` boards have both sides within the two-sided database's
    range: every checker home, at most 6 a side, and not both borne off.

    ``InvalidPositionError`` for boards of another shape or dtype, or naming the first
    board that is no position (``row <index>: ...``), as ``bgfast.batch`` does."""
    return _in_range(batch._position_array(boards, "boards"))


def _in_range(counts: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """:func:`in_two_sided_range` of boards already checked."""
    home = counts[:, :, :6].sum(axis=2, dtype=np.int32)
    outside = np.any(counts[:, :, 6:], axis=(1, 2))
    in_range: npt.NDArray[np.bool_] = ~outside & np.all(home <= 6, axis=1) & (home.sum(1) > 0)
    return in_range


def plays_may_reach_two_sided_range(boards: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Which of the ``(N, 2, 25)`` boards can have plays whose results are in the two-sided
    database's range: those whose side not to move, which the play leaves as it is, already
    has at most 6 checkers, all home.

    ``boards`` as :func:`in_two_sided_range` takes them (an array or a list of Positions);
    ``InvalidPositionError`` for boards of another shape or dtype, or naming the first
    board that is no position (``row <index>: ...``), as ``bgfast.batch`` does."""
    opponents = batch._position_array(boards, "boards")[:, 1]
    reach: npt.NDArray[np.bool_] = ~np.any(opponents[:, 6:], axis=1) & (
        opponents[:, :6].sum(axis=1, dtype=np.int32) <= 6
    )
    return reach


def _plays_of_may_reach_two_sided_range(position: Position) -> bool:
    """:func:`plays_may_reach_two_sided_range` of one Position, a valid board by
    construction (so not checked again): whether the side not to move has at most 6
    checkers, all home."""
    opponent: list[int] = position.to_array()[1].tolist()
    return not any(opponent[6:]) and sum(opponent[:6]) <= 6


def exact_chances(boards: npt.ArrayLike, chances: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``chances`` (``(N, 5)``, as ``Net.evaluate`` gives them) of the ``(N, 2, 25)``
    ``boards`` for each side to move, with those of boards in the two-sided database's
    range made exact: the database's winning chance, and no gammon (each side has borne
    off 9 checkers or more). A net's are not (the shipped race net is off by 0.03 on
    average there, 0.24 at worst); GNU Backgammon's evaluation reads its database too. A
    copy; the other rows as given.

    ``InvalidPositionError`` for boards of another shape or dtype, or naming the first
    board that is no position (``row <index>: ...``, its index in ``boards``);
    ``BgfastError`` for chances that are not ``(N, 5)`` numbers, one row per board."""
    counts = batch._position_array(boards, "boards")
    try:
        out = np.array(chances, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise BgfastError(f"chances must be ({len(counts)}, 5) numbers: {error}") from None
    if out.shape != (len(counts), 5):
        raise BgfastError(
            f"chances must be ({len(counts)}, 5), a row of five for each of the"
            f" {len(counts)} boards, got shape {out.shape}"
        )
    return _exact_chances_of(counts, out, _in_range(counts))


def _exact_chances_of(
    counts: npt.NDArray[np.uint8], out: npt.NDArray[np.float32], exact: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float32]:
    """:func:`exact_chances` of boards already checked (``counts``, uint8), ``out`` the
    float32 chances to change in place (and returned), ``exact`` the boards'
    :func:`_in_range`."""
    rows = np.flatnonzero(exact)
    if rows.size:
        near = counts[rows]
        out[rows] = 0.0
        out[rows, 0] = win_probability_batch(near[:, 0, :6], near[:, 1, :6])
    return out


def cubeful_equity(
    position: TwoSides,
    cube: Cube = "centred",
    may_double: bool = True,
    doubles_left: int | None = None,
) -> float:
    """Money equity of the side on roll per unit of cube with perfect cube play (no
    gammons are possible here), the cube ``'centred'``, ``'owned'`` by the side on roll,
    or ``'unavailable'`` (owned by the opponent). The owners as ``bgfast.cubeful`` and the
    rollouts name them, seen from the side on roll, are accepted too: ``'mover'`` is
    ``'owned'``, ``'opponent'`` is ``'unavailable'``, and ``'centered'``, ``'center'`` and
    ``'centre'`` are ``'centred'``; another name is a ``BgfastError`` (R17). With
    ``may_double`` the side on roll's own cube action now is included; without it, the
    equity of not doubling now.

    ``doubles_left`` is how many more times the cube may be turned before the game's limit
    (R17, ``Rules.max_cube``): log2 of the limit over the cube's value, 0 to 15; 0 is a dead
    cube, worth the cubeless equity. ``None``, the default, is a cube that can always be
    turned again, GNU Backgammon's table; from 7 doubles left the values are that table's
    (within 1e-6). The first call for a limit builds its tables: a third of a second and
    10 MB a double left, six at most."""
    owner: str = cube
    if isinstance(cube, str):  # anything else: the native call's TypeError
        if cube not in _CUBE_SPELLINGS:
            raise BgfastError(
                "R17: cube must be 'centred' (or 'centered', 'center', 'centre'), 'owned' (or"
                " 'mover': by the side on roll) or 'unavailable' (or 'opponent': owned by the"
                f" opponent), got {shown(cube)}"
            )
        owner = _CUBE_SPELLINGS[cube]
    return _cubeful_equity_on(two_sided(), position, owner, may_double, doubles_left)


def _cubeful_equity_on(
    table: TwoSidedTable,
    position: TwoSides,
    owner: str,
    may_double: bool,
    doubles_left: int | None = None,
) -> float:
    """:func:`cubeful_equity` read from ``table`` (:func:`two_sided`, fetched once for a
    batch of positions), the cube ``owner`` as the table names it (``'centred'``,
    ``'owned'`` or ``'unavailable'``)."""
    equity = table.cubeful_equity(position, owner, may_double, doubles_left)
    if equity is None:  # pragma: no cover - the cached table is always cubeful
        raise BearoffRangeError("the cached two-sided table was built without cube equities")
    return equity


# Command line


class _Progress:
    """The build's progress bar on stderr: drawn only when stderr is a terminal, and never
    going backwards (the workers report their counts in any order)."""

    def __init__(self, stream: Any = None) -> None:
        self._stream = sys.stderr if stream is None else stream
        isatty = getattr(self._stream, "isatty", None)
        self.drawing = bool(isatty is not None and isatty())
        self._started = time.perf_counter()
        self._shown: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, name: str, done: int, total: int) -> None:
        with self._lock:
            # Reports arrive from several workers: show only the furthest one.
            if done <= self._shown.get(name, -1):
                return
            self._shown[name] = done
            if self.drawing:
                self._draw(name, done, total)

    def _draw(self, name: str, done: int, total: int) -> None:
        width = 30
        filled = min(width, width * done // total) if total else width
        self._stream.write(
            f"\r{name:<10} [{'#' * filled}{'.' * (width - filled)}] "
            f"{min(100, 100 * done // max(total, 1)):3d}%  "
            f"{time.perf_counter() - self._started:5.1f} s"
        )
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()

    @property
    def tables(self) -> set[str]:
        """The tables that reported progress (were built, not read from the cache)."""
        return set(self._shown)


_BUILD_HELP = "Build the bear-off databases into the cache ahead of first use."


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_build_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threads", type=_positive, default=None, help="threads (default: all)")
    parser.add_argument("--force", action="store_true", help="rebuild even if cached")
    parser.add_argument("--cache-dir", type=Path, default=None, help="cache directory")


def _run_build(args: argparse.Namespace) -> int:
    directory = cache_dir() if args.cache_dir is None else args.cache_dir
    # A directory that cannot take the tables is refused before anything is built (a
    # bad --cache-dir is bad input, exit 2), unless it holds both, valid, already.
    why = _why_not_writable(directory)
    if why is not None and (args.force or not _holds_valid_tables(directory)):
        where = "the cache directory" if args.cache_dir is None else "--cache-dir"
        print(f"bgfast: {where} {directory}: {why}", file=sys.stderr)
        return 2
    progress = _Progress()
    unwritten: dict[Path, OSError] = {}
    paths = _build(
        threads=args.threads,
        force=args.force,
        progress=progress,
        directory=args.cache_dir,
        unwritten=unwritten,
    )
    failed = [path for path in paths if path in unwritten or not path.is_file()]
    for path in paths:
        if path not in failed:
            print(f"{path}  {path.stat().st_size:,} bytes")
    if failed:
        for path in failed:
            error = unwritten.get(path)
            why = "" if error is None else f": {error.strerror or error}"
            print(f"bgfast: could not write {path}{why}", file=sys.stderr)
        return 1
    if not progress.tables:
        print("(both tables were already cached and valid; --force rebuilds)")
    return 0


def _why_not_writable(directory: Path) -> str | None:
    """Why ``directory`` cannot take a table file (the system's words: "Not a directory",
    "Permission denied", ...), or ``None`` if it can: it is made if missing, and a file is
    made in it and removed, as the build writes its tables."""
    try:
        if directory.exists() and not directory.is_dir():
            return os.strerror(errno.ENOTDIR)
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".bgfast-write-check.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        return error.strerror or str(error)
    return None


def _holds_valid_tables(directory: Path) -> bool:
    """Whether ``directory`` holds both tables, valid (a build there writes nothing)."""
    for path, reader in (
        (_one_sided_path(directory), OneSidedTable.from_bytes),
        (_two_sided_path(directory), _cubeful_two_sided),
    ):
        try:
            data = _read_regular_file(path)
            if data is None:
                return False
            reader(data)
        except (OSError, BearoffFileError):
            return False
    return True


def add_cli(commands: Any) -> None:
    """Registers ``bearoff build`` on the ``bgfast`` command's subparsers (the object
    ``ArgumentParser.add_subparsers()`` returns); the subcommand sets ``run`` to a
    function of the parsed arguments returning the exit status."""
    group = commands.add_parser("bearoff", help="bear-off databases")
    actions = group.add_subparsers(dest="bearoff_command", required=True)
    build_parser = actions.add_parser("build", help=_BUILD_HELP, description=_BUILD_HELP)
    _add_build_arguments(build_parser)
    build_parser.set_defaults(run=_run_build)


def cli_build(argv: Sequence[str] | None = None) -> int:
    """``bgfast bearoff build [--threads N] [--force] [--cache-dir DIR]``: builds both
    tables into the cache with a progress bar; returns the exit status (2, with the
    system's reason, for a cache directory it cannot write, before anything is built,
    unless it holds both tables already and ``--force`` is not given)."""
    parser = argparse.ArgumentParser(prog="bgfast bearoff build", description=_BUILD_HELP)
    _add_build_arguments(parser)
    return _run_build(parser.parse_args(argv))
