"""Contract tests of ``bgfast.bearoff`` (see contract_support).

Home boards of any form are taken exactly or refused (``InvalidPositionError`` for what is no
board, ``BearoffRangeError`` for what a table does not cover); indexes of any int are mapped or
refused naming the index; the batch lookups answer row by row as the scalar ones, whatever
the dtype or layout; file bytes are trusted only when valid. Table builds with absurd
thread counts and forged files that allocate are in test_contract_isolated.py.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from contract_support import (
    CONTRACT,
    HOME,
    INT_DTYPES,
    SPECIAL,
    assert_reports_given,
    check,
    dtype_range,
    layouts,
    positions,
    rejects,
    rejects_argument,
)
from hypothesis import example, given
from hypothesis import strategies as st

from bgfast import (
    BearoffFileError,
    BearoffRangeError,
    BgfastError,
    InvalidDiceError,
    InvalidPositionError,
    Position,
    bearoff,
)

POSITIONS = 54_264
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
ONE = bearoff.one_sided()
TWO = bearoff.two_sided()


def valid_board(points: Any) -> bool:
    values = list(points)
    return (
        len(values) == 6 and all(0 <= int(v) <= 15 for v in values) and sum(map(int, values)) <= 15
    )


def small_boards(max_checkers: int = 15) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, max_checkers), min_size=6, max_size=6).filter(
        lambda b: sum(b) <= max_checkers
    )


any_boards = st.one_of(
    small_boards(),
    small_boards(6),
    st.lists(st.one_of(st.integers(-2, 17), st.sampled_from(SPECIAL)), min_size=6, max_size=6),
    st.lists(st.integers(0, 3), min_size=0, max_size=8),
)


# index, position


@CONTRACT
@given(any_boards)
@example([2**63, 0, 0, 0, 0, 0])
@example([2**70, 0, 0, 0, 0, 0])
@example([8, 8, 0, 0, 0, 0])
def test_index_any_points(points: list[int]) -> None:
    outcome = check(lambda: bearoff.index(points))
    if outcome.ok:
        assert valid_board(points), f"{points} accepted"
        assert bearoff.position(outcome.value) == tuple(points)
        return
    assert not valid_board(points), f"refused: {outcome.error!r}"
    assert isinstance(outcome.error, InvalidPositionError), repr(outcome.error)
    assert_reports_given(outcome.error, set(points) | {sum(p for p in points if p > 0)})


@pytest.mark.parametrize("value", [None, 5, "abcdef", [1.0, 0, 0, 0, 0, 0], Position()])
def test_index_not_points(value: Any) -> None:
    rejects(lambda: bearoff.index(value), (InvalidPositionError, TypeError))


@CONTRACT
@given(st.one_of(st.integers(), st.integers(-5, POSITIONS + 5), st.sampled_from(SPECIAL)))
@example(-1)
@example(2**63)
@example(np.uint64(2**64 - 1))
def test_position_any_index(index: Any) -> None:
    outcome = check(lambda: bearoff.position(index))
    if 0 <= int(index) < POSITIONS:
        assert outcome.ok, outcome.error
        assert bearoff.index(list(outcome.value)) == index
        return
    error = outcome.error
    assert isinstance(error, BearoffRangeError), repr(error)
    assert str(int(index)) in str(error), f"the message does not name index {index}: {error}"
    assert f"0..{POSITIONS}" not in str(error) or f"0..{POSITIONS - 1}" in str(error), (
        f"{POSITIONS} is itself out of range: {error}"
    )


@pytest.mark.parametrize("value", [1.0, "1", None, [1]])
def test_position_of_other_types(value: Any) -> None:
    rejects(lambda: bearoff.position(value), (TypeError, BgfastError))


# one-sided, one board

ONE_SIDED = [
    "rolls_distribution",
    "gammon_distribution",
    "expected_rolls",
    "variance",
    "epc",
]


@CONTRACT
@given(any_boards, st.sampled_from(ONE_SIDED))
def test_one_sided_any_points(points: list[int], name: str) -> None:
    outcome = check(lambda: getattr(bearoff, name)(points))
    if outcome.ok:
        assert valid_board(points), f"{points} accepted"
        assert np.all(np.isfinite(outcome.value))
    else:
        assert not valid_board(points), f"refused: {outcome.error!r}"
        assert isinstance(outcome.error, InvalidPositionError), repr(outcome.error)
    other = check(lambda: getattr(ONE, name)(points))
    assert other.ok == outcome.ok
    other = check(lambda: ONE.expected_rolls_to_first_off(points))
    assert other.ok == outcome.ok


@CONTRACT
@given(small_boards(), small_boards())
@example([0] * 6, [1, 0, 0, 0, 0, 0])
@example([1, 0, 0, 0, 0, 0], [0] * 6)
@example([0] * 6, [0] * 6)
def test_race_probabilities(mover: list[int], opponent: list[int]) -> None:
    """(win, win gammon, lose gammon): a gammon needs the loser to have all 15 left (R16)."""
    outcome = check(lambda: bearoff.race_probabilities(mover, opponent))
    if sum(mover) == 0 and sum(opponent) == 0:
        assert not outcome.ok, f"both sides borne off is no position: {outcome.value}"
        assert isinstance(outcome.error, InvalidPositionError), repr(outcome.error)
        return
    assert outcome.ok, outcome.error
    win, win_gammon, lose_gammon = outcome.value
    assert 0 <= win_gammon <= win <= 1 and 0 <= lose_gammon <= 1 - win + 1e-12
    if sum(opponent) < 15:
        assert win_gammon == 0, f"a gammon won against {sum(opponent)} left: {outcome.value}"
    if sum(mover) < 15:
        assert lose_gammon == 0, f"a gammon lost with {sum(mover)} left: {outcome.value}"


dice_values = st.one_of(st.integers(-2, 8), st.sampled_from([2**63, 2**64, -(2**63) - 1]))


@CONTRACT
@given(small_boards(), dice_values, dice_values)
@example([1, 1, 0, 0, 0, 0], 2**63, 1)
def test_one_sided_best_play_any_dice(points: list[int], d1: int, d2: int) -> None:
    outcome = check(lambda: bearoff.best_play(points, d1, d2))
    if 1 <= d1 <= 6 and 1 <= d2 <= 6:
        assert outcome.ok, outcome.error
        if sum(points) == 0:
            assert outcome.value is None
        else:
            assert valid_board(outcome.value)
            assert sum(outcome.value) <= sum(points)
        return
    assert isinstance(outcome.error, InvalidDiceError), repr(outcome.error)
    assert_reports_given(outcome.error, {d1, d2})


# batch lookups: row by row as the scalar ones, any dtype and layout


@st.composite
def board_arrays(draw: st.DrawFn, max_checkers: int = 15) -> tuple[np.ndarray, list[list[int]]]:
    dtype = draw(st.sampled_from(INT_DTYPES))
    lo, hi = dtype_range(dtype)
    n = draw(st.integers(0, 4))
    rows = []
    for _ in range(n):
        row = draw(small_boards(max_checkers))
        if draw(st.integers(0, 5)) == 0:
            row[draw(st.integers(0, 5))] = draw(
                st.sampled_from([v for v in [*SPECIAL, 16, 7] if lo <= v <= hi])
            )
        rows.append(row)
    array = np.array(rows, dtype=object).reshape(n, 6).astype(dtype)
    return layouts(array, draw(st.integers(0, 3))), rows


BATCH = {
    "index_batch": (bearoff.index_batch, bearoff.index),
    "epc_batch": (bearoff.epc_batch, bearoff.epc),
    "expected_rolls_batch": (bearoff.expected_rolls_batch, bearoff.expected_rolls),
    "rolls_distribution_batch": (bearoff.rolls_distribution_batch, bearoff.rolls_distribution),
    "gammon_distribution_batch": (
        bearoff.gammon_distribution_batch,
        bearoff.gammon_distribution,
    ),
}


@CONTRACT
@given(board_arrays(), st.sampled_from(sorted(BATCH)))
def test_one_sided_batches(case: tuple[np.ndarray, list[list[int]]], name: str) -> None:
    array, rows = case
    many, one = BATCH[name]
    before = array.copy()
    outcome = check(lambda: many(array))
    assert np.array_equal(array, before)
    bad = [k for k, r in enumerate(rows) if not valid_board(r)]
    if outcome.ok:
        assert not bad, f"row {bad[0] if bad else ''} {rows[bad[0]] if bad else ''} accepted"
        expected = np.array([one(r) for r in rows]).reshape(np.shape(outcome.value))
        assert np.array_equal(outcome.value, expected), f"{name}: answered for other rows"
        return
    assert bad, f"legal rows refused: {outcome.error!r}"
    error = outcome.error
    assert isinstance(error, InvalidPositionError), repr(error)
    assert f"row {bad[0]}" in str(error), f"the first bad row is {bad[0]}: {error}"


def test_one_sided_batches_in_fortran_order() -> None:
    rows = np.array([[1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 1], [0, 0, 0, 3, 0, 0]], np.uint8)
    for name, (many, one) in BATCH.items():
        expected = np.array([one(list(r)) for r in rows])
        got = many(np.asfortranarray(rows))
        assert np.array_equal(got.reshape(expected.shape), expected), f"{name}: transposed rows"


@CONTRACT
@given(board_arrays(6), board_arrays(6), st.booleans())
def test_win_probability_batch(
    mover: tuple[np.ndarray, list[list[int]]],
    opponent: tuple[np.ndarray, list[list[int]]],
    same_length: bool,
) -> None:
    (m, mrows), (o, orows) = mover, opponent
    if same_length:
        n = min(len(mrows), len(orows))
        m, mrows, o, orows = m[:n], mrows[:n], o[:n], orows[:n]
    outcome = check(lambda: bearoff.win_probability_batch(m, o))
    if outcome.ok:
        assert len(mrows) == len(orows)
        assert all(sum(a) + sum(b) > 0 for a, b in zip(mrows, orows)), "both sides borne off"
        expected = [bearoff.win_probability((a, b)) for a, b in zip(mrows, orows)]
        assert np.array_equal(outcome.value, np.array(expected, dtype=np.float64)), (
            "answered for other rows"
        )
        return
    error = outcome.error
    assert isinstance(error, (InvalidPositionError, BearoffRangeError)), repr(error)
    if len(mrows) == len(orows):
        pairs = list(zip(mrows, orows))
        assert any(
            not (valid_board(a) and valid_board(b)) or sum(a) > 6 or sum(b) > 6 for a, b in pairs
        ) or any(sum(a) + sum(b) == 0 for a, b in pairs), f"legal rows refused: {error!r}"


def test_win_probability_batch_in_fortran_order() -> None:
    mover = np.array([[1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 1], [0, 0, 0, 3, 0, 0]], np.uint8)
    opponent = mover[::-1].copy()
    expected = [bearoff.win_probability((list(a), list(b))) for a, b in zip(mover, opponent)]
    got = bearoff.win_probability_batch(np.asfortranarray(mover), np.asfortranarray(opponent))
    assert np.array_equal(got, np.array(expected)), "transposed rows"


@st.composite
def index_arrays(draw: st.DrawFn) -> tuple[np.ndarray, list[int]]:
    dtype = draw(st.sampled_from(INT_DTYPES))
    lo, hi = dtype_range(dtype)
    values = st.one_of(
        st.integers(max(lo, 0), min(hi, POSITIONS - 1)),
        st.sampled_from([v for v in [*SPECIAL, POSITIONS, POSITIONS - 1] if lo <= v <= hi]),
    )
    exact = draw(st.lists(values, max_size=5))
    array = np.array(exact, dtype=object).astype(dtype)
    return layouts(array, draw(st.integers(0, 3))), exact


@CONTRACT
@given(index_arrays())
def test_position_batch(case: tuple[np.ndarray, list[int]]) -> None:
    array, exact = case
    outcome = check(lambda: bearoff.position_batch(array))
    bad = [i for i in exact if not 0 <= i < POSITIONS]
    if outcome.ok:
        assert not bad, f"index {bad[0] if bad else ''} accepted"
        assert outcome.value.tolist() == [list(bearoff.position(i)) for i in exact]
        return
    assert bad, f"legal indexes refused: {outcome.error!r}"
    error = outcome.error
    assert isinstance(error, BearoffRangeError), repr(error)
    assert str(bad[0]) in str(error), f"the message does not name index {bad[0]}: {error}"


@pytest.mark.parametrize(
    "value", [np.zeros((2, 2), int), np.array([0.0, 1.0]), "abc", None, 5, [[0]]]
)
def test_position_batch_not_indexes(value: Any) -> None:
    rejects(lambda: bearoff.position_batch(value), (BgfastError, TypeError))


# two-sided


pairs = st.tuples(
    st.one_of(small_boards(6), small_boards(), any_boards),
    st.one_of(small_boards(6), small_boards(), any_boards),
)


@CONTRACT
@given(pairs)
@example(([0] * 6, [0] * 6))
def test_two_sided_any_pair(pair: tuple[list[int], list[int]]) -> None:
    mover, opponent = pair
    boards = valid_board(mover) and valid_board(opponent)
    covered = boards and sum(mover) <= 6 and sum(opponent) <= 6
    for call in (
        lambda: bearoff.win_probability(pair),
        lambda: bearoff.cubeful_equity(pair),
        lambda: bearoff.cubeful_equity(pair, "owned", False),
        lambda: TWO.best_play(pair, 3, 1),
    ):
        outcome = check(call)
        if outcome.ok:
            assert covered, f"{pair} accepted"
            assert sum(mover) + sum(opponent) > 0, f"both sides borne off: {outcome.value}"
            continue
        error = outcome.error
        if not boards or sum(mover) + sum(opponent) == 0:
            assert isinstance(error, InvalidPositionError), repr(error)
        else:
            assert isinstance(error, BearoffRangeError), f"{pair}: {error!r}"


@CONTRACT
@given(positions)
def test_two_sided_positions(pos: Position) -> None:
    counts = pos.to_array()
    home = not counts[:, 6:].any()
    covered = home and counts[0].sum() <= 6 and counts[1].sum() <= 6
    outcome = check(lambda: bearoff.win_probability(pos))
    if covered:
        assert outcome.ok, outcome.error
        assert 0 <= outcome.value <= 1
    else:
        assert isinstance(outcome.error, BearoffRangeError), repr(outcome.error)


@CONTRACT
@given(st.one_of(st.text(max_size=12), st.sampled_from([None, 5, b"owned", "Owned"])))
@example("nope")
@example("mover")
def test_cubeful_equity_any_cube(cube: Any) -> None:
    pair = ([1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0])
    outcome = check(lambda: bearoff.cubeful_equity(pair, cube))
    names = ("owned", "unavailable", "mover", "opponent")
    if cube in ("centred", "centered", "center", "centre", *names):
        assert outcome.ok and -1 <= outcome.value <= 1
    elif isinstance(cube, str):
        rejects_argument(lambda: bearoff.cubeful_equity(pair, cube), "cube")
    else:
        assert not outcome.ok


@CONTRACT
@given(dice_values, dice_values)
def test_two_sided_best_play_any_dice(d1: int, d2: int) -> None:
    pair = ([1, 1, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0])
    outcome = check(lambda: TWO.best_play(pair, d1, d2))
    if 1 <= d1 <= 6 and 1 <= d2 <= 6:
        assert outcome.ok
    else:
        assert isinstance(outcome.error, InvalidDiceError), repr(outcome.error)


@pytest.mark.parametrize(
    "value", [None, 5, "ab", [[1, 0, 0, 0, 0, 0]], ([1, 0, 0, 0, 0, 0],), np.zeros((2, 6), int)]
)
def test_two_sided_not_a_pair(value: Any) -> None:
    rejects(lambda: bearoff.win_probability(value), (InvalidPositionError, TypeError))


@pytest.mark.parametrize("value", [None, 5, "4HPwATDgc/ABMA", np.zeros((2, 25), np.uint8)])
def test_position_epc_not_a_position(value: Any) -> None:
    rejects(lambda: bearoff.position_epc(value), (TypeError, BgfastError))


def test_position_epc_of_home_positions() -> None:
    for pos in HOME[:20]:
        assert bearoff.position_epc(pos) == pos.epc


# file bytes


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def wrap(kind: int, payload: bytes, version: int = 1) -> bytes:
    header = b"BGFBEAR\n" + struct.pack("<IIQQ", version, kind, len(payload), fnv1a64(payload))
    return header + payload


TABLES = {1: bearoff.OneSidedTable, 2: bearoff.TwoSidedTable}


@CONTRACT
@given(st.binary(max_size=64), st.sampled_from([1, 2]))
def test_from_bytes_any_bytes(data: bytes, kind: int) -> None:
    rejects(lambda: TABLES[kind].from_bytes(data), BearoffFileError)
    rejects(lambda: TABLES[kind].from_bytes(wrap(kind, data)), BearoffFileError)


@CONTRACT
@given(
    st.sampled_from([1, 2]),
    st.sampled_from([0, 1, 2, 924, POSITIONS, 2**32 - 1]),
    st.integers(0, 2**32 - 1),
    st.binary(max_size=64),
)
def test_from_bytes_forged_checksummed_payloads(
    kind: int, count: int, second: int, rest: bytes
) -> None:
    """A payload with a correct checksum but impossible content (FNV is not a MAC)."""
    payload = struct.pack("<II", count, second) + rest
    rejects(lambda: TABLES[kind].from_bytes(wrap(kind, payload)), BearoffFileError)


@pytest.mark.parametrize("kind", [1, 2])
def test_from_bytes_damaged_real_files(kind: int) -> None:
    real = (ONE if kind == 1 else TWO).to_bytes()
    assert TABLES[kind].from_bytes(real).to_bytes() == real
    other = 3 - kind
    rejects(lambda: TABLES[other].from_bytes(real), BearoffFileError)
    for cut in (0, 8, 31, 32, len(real) // 2, len(real) - 1):
        rejects(lambda cut=cut: TABLES[kind].from_bytes(real[:cut]), BearoffFileError)
    for at in (0, 9, 13, 17, 25, 40, len(real) - 1):
        damaged = bytearray(real)
        damaged[at] ^= 0x41
        rejects(lambda d=bytes(damaged): TABLES[kind].from_bytes(d), BearoffFileError)
    rejects(lambda: TABLES[kind].from_bytes(real + b"\x00"), BearoffFileError)


@pytest.mark.parametrize("value", [bytearray(b"x"), memoryview(b"x"), "abc", None, 5])
def test_from_bytes_other_types(value: Any) -> None:
    rejects(lambda: bearoff.OneSidedTable.from_bytes(value), (TypeError, BearoffFileError))


# builds and the cache


@pytest.mark.parametrize("table", [bearoff.OneSidedTable, bearoff.TwoSidedTable])
def test_build_zero_threads(table: Any) -> None:
    rejects_argument(lambda: table.build(threads=0), "threads")


@pytest.fixture
def cached_dir(tmp_path: Path) -> Path:
    """A cache directory holding valid tables (copied, not built)."""
    (tmp_path / f"bearoff-one-sided-v{ONE.FORMAT_VERSION}.bin").write_bytes(ONE.to_bytes())
    (tmp_path / f"bearoff-two-sided-v{TWO.FORMAT_VERSION}.bin").write_bytes(TWO.to_bytes())
    return tmp_path


@pytest.mark.parametrize("threads", [0, -1, 2**70, 1.5, "2"])
def test_build_checks_threads_even_when_cached(cached_dir: Path, threads: Any) -> None:
    """A bad ``threads`` is refused whether or not the tables need building."""
    outcome = check(lambda: bearoff.build(threads=threads, directory=cached_dir))
    assert not outcome.ok, "a bad thread count accepted because the tables were cached"
    if isinstance(outcome.error, BgfastError):
        assert not isinstance(outcome.error, InvalidPositionError), repr(outcome.error)


def test_build_checks_progress_even_when_cached(cached_dir: Path) -> None:
    outcome = check(lambda: bearoff.build(progress=5, directory=cached_dir))  # type: ignore[arg-type]
    assert not outcome.ok, "a progress that is not callable accepted"


def test_build_directory_as_str(cached_dir: Path) -> None:
    outcome = check(lambda: bearoff.build(directory=str(cached_dir)))  # type: ignore[arg-type]
    if not outcome.ok:
        assert "directory" in str(outcome.error), repr(outcome.error)
