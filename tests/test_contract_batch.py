"""Contract tests of ``bgfast.batch`` (see contract_support).

Whatever array a batch function accepts, it answers for exactly the counts it holds: the
same as for a C-contiguous uint8 copy, whatever the dtype, layout or values. A bad row is
reported as ``row <index>: ...`` (the first bad row), a bad roll as ``InvalidDiceError``, a
bad thread count as a plain ``BgfastError``; nothing else escapes, and the caller's arrays
are never changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from contract_support import (
    CONTRACT,
    ENDED,
    LIVE,
    OTHER_DTYPES,
    SPECIAL,
    assert_reports_given,
    check,
    count_arrays,
    finished,
    given_numbers,
    layouts,
    positions,
    rejects,
    rejects_argument,
    representable,
    threads_ok,
    threads_values,
    valid_counts,
)
from hypothesis import example, given
from hypothesis import strategies as st

from bgfast import (
    BgfastError,
    GameOverError,
    InvalidDiceError,
    InvalidPositionError,
    Position,
    batch,
)

START = Position()
DICE = np.array([[3, 1], [6, 6], [5, 2], [1, 1], [6, 5], [4, 4]], dtype=np.int64)


def _dice_for(n: int) -> np.ndarray:
    return np.resize(DICE, (n, 2)).astype(np.int64)


#: name -> (call(positions, threads), whether finished games are refused (R15))
FUNCTIONS: dict[str, tuple[Callable[[Any, Any], Any], bool]] = {
    "ids": (lambda p, t: batch.ids(p, threads=t), False),
    "pip_counts": (lambda p, t: batch.pip_counts(p, threads=t), False),
    "to_positions": (lambda p, t: batch.to_positions(p, threads=t), False),
    "move_counts": (lambda p, t: batch.move_counts(p, threads=t), True),
    "move_counts_dice": (
        lambda p, t: batch.move_counts(p, _dice_for(len(p)), threads=t),
        True,
    ),
    "all_rolls": (lambda p, t: batch.all_rolls(p, threads=t), True),
    "moves": (lambda p, t: batch.moves(p, _dice_for(len(p)), threads=t), True),
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b)
    return bool(a == b)


def _first_bad(exact: list[Any], playable: bool) -> tuple[int, type[BgfastError]] | None:
    for k, rows in enumerate(exact):
        if not valid_counts(rows):
            return k, InvalidPositionError
        if playable and finished(rows):
            return k, GameOverError
    return None


def _check_rows(name: str, array: Any, exact: list[Any], threads: Any = 1) -> None:
    call, playable = FUNCTIONS[name]
    before = np.array(array, copy=True)
    outcome = check(lambda: call(array, threads))
    assert np.array_equal(np.asarray(array), before), "the caller's array changed"
    bad = _first_bad(exact, playable)
    if outcome.ok:
        assert bad is None, f"row {bad and bad[0]} {exact[bad[0]] if bad else ''} accepted"
        reference = np.array(exact, dtype=np.uint8).reshape(len(exact), 2, 25)
        expected = call(reference, 1)
        assert _same(outcome.value, expected), "answered for other positions"
        return
    error = outcome.error
    assert bad is not None, f"legal rows refused: {error!r}"
    k, cls = bad
    assert isinstance(error, cls), f"row {k}: expected {cls.__name__}, got {error!r}"
    assert str(error).startswith(f"row {k}:"), f"the first bad row is {k}: {error}"
    assert "must have shape" not in str(error)
    assert_reports_given(error, given_numbers(exact[k]) | {k})


@CONTRACT
@given(count_arrays(), st.sampled_from(sorted(FUNCTIONS)))
def test_batch_integer_arrays(case: tuple[np.ndarray, list[Any]], name: str) -> None:
    """Any integer dtype, layout and values."""
    array, exact = case
    _check_rows(name, array, exact)


_WRAP = [0, 2**31 - 255, 2**31 - 255, 525] + [0] * 21
_OPP = START.to_array()[1].tolist()
KNOWN = [
    [[[2**31 - 1, 1] + [0] * 23, [0] * 24 + [1]]],  # a panic
    [[_WRAP, _OPP]],  # wraps to 15 checkers: another position
    [START.to_array().tolist(), [[0] * 5 + [2**32 + 5] + [0] * 19, _OPP]],
    [[START.to_array()[0].tolist()[:5] + [2**40] + [0] * 19, _OPP]],
    [[[0] * 24 + [2**31 - 1], _OPP]],
    [[[-(2**40)] + [0] * 24, [0] * 24 + [1]]],
]


@pytest.mark.parametrize(
    ("exact", "dtype"),
    [(e, d) for e in KNOWN for d in (np.int64, np.int32) if representable(e, d)],
)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_batch_counts_that_overflow(exact: list[Any], dtype: Any, name: str) -> None:
    _check_rows(name, np.array(exact, dtype=dtype), exact)


def test_batch_large_parallel_batch_with_an_overflowing_row() -> None:
    """The same on the thread pool (threads=2), the bad row far down a large batch."""
    rows = np.repeat(START.to_array()[None].astype(np.int64), 3000, axis=0)
    rows[2500, 0] = [2**31 - 1, 1] + [0] * 23
    rows[2500, 1] = [0] * 24 + [1]
    exact = rows.tolist()
    for name in ("ids", "move_counts", "moves"):
        _check_rows(name, rows, exact, threads=2)


@CONTRACT
@given(positions, st.integers(1, 3), st.sampled_from(OTHER_DTYPES), st.integers(0, 3))
def test_batch_other_dtypes(pos: Position, n: int, dtype: Any, how: int) -> None:
    """Not an integer dtype: the same answer as for the counts, or refused for its dtype."""
    base = np.repeat(pos.to_array()[None], n, axis=0)
    array = layouts(base.astype(dtype), how)
    for name, (call, playable) in FUNCTIONS.items():
        outcome = check(lambda call=call: call(array, 1))
        if outcome.ok:
            exact = base.astype(bool).astype(np.uint8) if dtype is np.bool_ else base
            assert _same(outcome.value, call(exact, 1)), name
            continue
        error = outcome.error
        if playable and pos.outcome is not None and isinstance(error, GameOverError):
            continue
        assert isinstance(error, InvalidPositionError), f"{name}: {error!r}"
        text = str(error).lower()
        assert "dtype" in text or "integer" in text, f"{name}: {error}"


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int64, np.uint64, np.float64, object])
def test_batch_empty(dtype: Any) -> None:
    empty = np.zeros((0, 2, 25), dtype=dtype)
    for name, (call, _) in FUNCTIONS.items():
        outcome = check(lambda call=call: call(empty, 1))
        if outcome.ok:
            assert _same(outcome.value, call(np.zeros((0, 2, 25), np.uint8), 1)), name


@CONTRACT
@given(threads_values, st.sampled_from(sorted(FUNCTIONS)))
@example(2**63, "ids")
@example(2**64, "moves")
@example(-1, "all_rolls")
@example(0, "move_counts")
def test_batch_threads(threads: Any, name: str) -> None:
    call, _ = FUNCTIONS[name]
    rows = np.stack([p.to_array() for p in LIVE[:5]])
    if threads_ok(threads):
        assert _same(call(rows, threads), call(rows, 1))
        return
    if isinstance(threads, int):
        rejects_argument(lambda: call(rows, threads), "threads")
    else:
        rejects(lambda: call(rows, threads), (TypeError, BgfastError))


@CONTRACT
@given(threads_values)
def test_from_ids_threads(threads: Any) -> None:
    ids = [p.id for p in LIVE[:3]]
    if threads_ok(threads):
        assert np.array_equal(batch.from_ids(ids, threads=threads), batch.from_ids(ids))
    elif isinstance(threads, int):
        rejects_argument(lambda: batch.from_ids(ids, threads=threads), "threads")
    else:
        rejects(lambda: batch.from_ids(ids, threads=threads), (TypeError, BgfastError))


# dice

dice_dtypes = st.sampled_from(
    [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)


@st.composite
def dice_arrays(draw: st.DrawFn, n: int) -> tuple[Any, list[list[int]]]:
    dtype = draw(dice_dtypes)
    info = np.iinfo(dtype)
    values = st.one_of(
        st.integers(1, 6),
        st.sampled_from([v for v in SPECIAL if info.min <= v <= info.max]),
        st.integers(int(info.min), int(info.max)),
    )
    exact = [[draw(values), draw(values)] for _ in range(n)]
    array = np.array(exact, dtype=object).reshape(n, 2).astype(dtype)
    return layouts(array, draw(st.integers(0, 3))), exact


@CONTRACT
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(st.just(n), dice_arrays(n))))
def test_batch_dice_values(case: tuple[int, tuple[Any, list[list[int]]]]) -> None:
    n, (dice, exact) = case
    rows = np.stack([p.to_array() for p in LIVE[:n]])
    before = np.array(dice, copy=True)
    for call in (batch.moves, batch.move_counts):
        outcome = check(lambda call=call: call(rows, dice, threads=1))
        assert np.array_equal(dice, before), "the caller's dice changed"
        bad = [k for k, (a, b) in enumerate(exact) if not (1 <= a <= 6 and 1 <= b <= 6)]
        if outcome.ok:
            assert not bad, f"dice {exact[bad[0]]} accepted"
            reference = call(rows, np.array(exact, dtype=np.int64), threads=1)
            assert _same(outcome.value, reference)
            continue
        error = outcome.error
        assert bad, f"legal dice refused: {error!r}"
        assert isinstance(error, InvalidDiceError), repr(error)
        assert str(error).startswith(f"row {bad[0]}:"), str(error)
        assert_reports_given(error, {v for r in exact for v in r} | {bad[0]})


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(2**64 - 1, np.uint64), (2**63, np.uint64), (2**32 - 1, np.uint32), (2**31, np.uint32)],
)
def test_batch_dice_reports_the_value_given(value: int, dtype: Any) -> None:
    rows = START.to_array()[None]
    dice = np.array([[value, 1]], dtype=dtype)
    for call in (batch.moves, batch.move_counts):
        error = rejects(lambda call=call: call(rows, dice), InvalidDiceError, "dice")
        assert_reports_given(error, {value, 1, 0})


@pytest.mark.parametrize(
    "dice",
    [
        [[3, 1], [3]],  # ragged
        [[3, 1, 2]],
        [[3], [1]],
        [3.0, 1.0],  # one roll for every position, but not integers
        [3, 7],
        [[3.0, 1.0]],
        [[3.5, 1]],
        [[np.nan, 1]],
        [["3", "1"]],
        [[2**70, 1]],
        [[2**63, 1]],
        [[3, 1j]],
        [[True, True]],
        None,
        "31",
        5,
        np.zeros((1, 2), dtype="V8"),
        [[object(), 1]],
    ],
)
def test_batch_bad_dice(dice: Any) -> None:
    rows = START.to_array()[None]
    for call in (batch.moves, batch.move_counts):
        if dice is None and call is batch.move_counts:
            continue  # None there means all 21 rolls
        rejects(lambda call=call: call(rows, dice), InvalidDiceError, "dice")


def test_batch_dice_shape_mismatch() -> None:
    rows = np.stack([START.to_array()] * 3)
    for dice in (np.ones((2, 2), int), np.ones((4, 2), int), np.ones((0, 2), int)):
        rejects(lambda dice=dice: batch.moves(rows, dice), InvalidDiceError, "shape")


# positions of other kinds


@pytest.mark.parametrize(
    "value",
    [
        START,
        "abc",
        b"abc",
        None,
        5,
        {START},
        iter([START]),
        (p for p in [START]),
        START.to_array(),
        np.zeros((2, 2, 24), np.uint8),
        np.zeros((2, 3, 25), np.uint8),
        np.zeros((1, 1, 2, 25), np.uint8),
        np.array([START, START], dtype=object),
        START.moves(3, 1),
    ],
)
def test_batch_not_positions(value: Any) -> None:
    for name, (call, _) in FUNCTIONS.items():
        if name in ("moves", "move_counts_dice"):
            continue  # their dice are sized from the positions
        rejects(lambda call=call: call(value, 1), (InvalidPositionError, TypeError))


def test_batch_nested_lists_are_the_array_they_spell() -> None:
    array = np.stack([START.to_array(), Position.from_id("4HPwATDgc/ABMA").to_array()])
    for name, (call, _) in FUNCTIONS.items():
        assert _same(call(array.tolist(), 1), call(array, 1)), name


@CONTRACT
@given(st.lists(st.sampled_from([*LIVE[:20], *ENDED[:3], 5, None, "x", START.to_array()])))
def test_batch_sequences(items: list[Any]) -> None:
    """A sequence of Positions: the same as their stacked array; anything else in it is
    reported at its row."""
    bad = [k for k, item in enumerate(items) if not isinstance(item, Position)]
    for name, (call, playable) in FUNCTIONS.items():
        outcome = check(lambda call=call: call(items, 1))
        if bad:
            error = outcome.error
            ended = [k for k in range(bad[0]) if items[k].outcome is not None]
            if playable and ended and isinstance(error, GameOverError):
                assert str(error).startswith(f"row {ended[0]}:"), str(error)
                continue
            assert isinstance(error, InvalidPositionError), f"{name}: {outcome!r}"
            assert str(error).startswith(f"row {bad[0]}:"), str(error)
            continue
        exact = [p.to_array().tolist() for p in items]
        stacked = np.array(exact, dtype=np.uint8).reshape(len(items), 2, 25)
        if outcome.ok:
            assert _same(outcome.value, call(stacked, 1)), name
            assert _same(call(tuple(items), 1), outcome.value), name
        else:
            assert playable and isinstance(outcome.error, GameOverError), outcome.error
    outcome = check(lambda: batch.to_array(items))
    if bad:
        assert isinstance(outcome.error, InvalidPositionError)
    else:
        assert outcome.ok
        assert outcome.value.tolist() == [p.to_array().tolist() for p in items]


@pytest.mark.parametrize("value", [START.to_array()[None], None, "ab", 5, START])
def test_to_array_not_a_sequence_of_positions(value: Any) -> None:
    rejects(lambda: batch.to_array(value), (BgfastError, TypeError))


# from_ids

id_items = st.one_of(
    st.sampled_from([p.id for p in LIVE[:50]]),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=16),
    st.sampled_from(["AAAAAAAAAAAAAA", "\ud800", "4HPwATDgc/ABMA\n", "//////////////"]),
    st.sampled_from([5, None, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"]]),
)


@CONTRACT
@given(st.lists(id_items, max_size=6))
@example(["4HPwATDgc/ABMA", "\ud800"])
@example([" 4HPwATDgc/ABMA\r\n", ""])
def test_from_ids_any_items(items: list[Any]) -> None:
    outcome = check(lambda: batch.from_ids(items))
    decoded = [
        check(lambda i=i: Position.from_id(i)) if isinstance(i, str) else None for i in items
    ]
    bad = [k for k, d in enumerate(decoded) if d is None or not d.ok]
    if outcome.ok:
        assert not bad
        expected = [d.value.to_array().tolist() for d in decoded if d is not None]
        assert outcome.value.tolist() == expected
        return
    assert bad, f"legal IDs refused: {outcome.error!r}"
    error = outcome.error
    if isinstance(error, TypeError):
        assert not isinstance(items[bad[0]], str), repr(error)
        return
    assert isinstance(error, InvalidPositionError), repr(error)
    assert str(error).startswith(f"row {bad[0]}:"), str(error)


@pytest.mark.parametrize("value", [None, 5, "4HPwATDgc/ABMA", b"4HPwATDgc/ABMA", 1.5])
def test_from_ids_not_a_sequence(value: Any) -> None:
    rejects(lambda: batch.from_ids(value), (InvalidPositionError, TypeError))
