"""bgfast.batch: the numpy batch API agrees with Position.moves, whatever the thread count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import Position, batch

DATA = Path(__file__).parent / "data"
ROLLS = [(a, b) for a in range(2, 7) for b in range(1, a)] + [(d, d) for d in range(1, 7)]
# Distinct results over each corpus (tests/data/NOTICE.md): (the 6 doubles, the 15 others).
TOTALS = {"contact": (218_356, 185_957), "race": (140_720, 122_570)}


def corpus(name: str) -> list[str]:
    return (DATA / f"wildbg_{name}.csv").read_text().split()


@pytest.fixture(scope="module", params=["contact", "race"])
def named(request: pytest.FixtureRequest) -> tuple[str, npt.NDArray[np.uint8]]:
    name: str = request.param
    return name, batch.from_ids(corpus(name))


def single_path(positions: list[Position], dice: list[tuple[int, int]]) -> list[list[str]]:
    return [[m.result.id for m in p.moves(*d)] for p, d in zip(positions, dice)]


def batch_path(offsets: npt.NDArray[np.int64], results: npt.NDArray[np.uint8]) -> list[list[str]]:
    ids = batch.ids(results)
    return [ids[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


def test_corpus_totals(named: tuple[str, npt.NDArray[np.uint8]]) -> None:
    """Every (position, roll) of both corpora: the known totals of distinct results (R4-R14)."""
    name, array = named
    offsets, results, rolls = batch.all_rolls(array)
    counts = np.diff(offsets)
    doubles = rolls[:, 0] == rolls[:, 1]
    assert (int(counts[doubles].sum()), int(counts[~doubles].sum())) == TOTALS[name]
    assert results.shape == (offsets[-1], 2, 25) and results.dtype == np.uint8
    assert offsets.dtype == np.int64 and offsets[0] == 0


def test_move_counts(named: tuple[str, npt.NDArray[np.uint8]]) -> None:
    """Counts alone agree with the offsets of all_rolls and moves, for any thread count."""
    _, array = named
    offsets, _, rolls = batch.all_rolls(array)
    counts = batch.move_counts(array)
    assert counts.shape == (len(array), 21) and counts.dtype == np.int64
    np.testing.assert_array_equal(counts.ravel(), np.diff(offsets))
    np.testing.assert_array_equal(batch.move_counts(array, threads=2), counts)
    some = batch.move_counts(array[:21], rolls[:21])
    np.testing.assert_array_equal(some, counts[np.arange(21), np.arange(21)])


def test_moves_equal_single_calls(named: tuple[str, npt.NDArray[np.uint8]]) -> None:
    """Row by row, in order, the same results as Position.moves (a sample; all under -m slow)."""
    _, array = named
    rng = np.random.default_rng(7)
    rows = rng.choice(len(array), 300, replace=False)
    dice = rng.integers(1, 7, size=(300, 2))
    offsets, results = batch.moves(array[rows], dice)
    positions = batch.to_positions(array[rows])
    expected = single_path(positions, [(int(a), int(b)) for a, b in dice])
    assert batch_path(offsets, results) == expected


@pytest.mark.slow
def test_all_rolls_equal_single_calls_everywhere(
    named: tuple[str, npt.NDArray[np.uint8]],
) -> None:
    _, array = named
    offsets, results, rolls = batch.all_rolls(array)
    positions = [p for p in batch.to_positions(array) for _ in range(21)]
    dice = [(int(a), int(b)) for a, b in rolls]
    assert batch_path(offsets, results) == single_path(positions, dice)


def test_thread_count_invariance(named: tuple[str, npt.NDArray[np.uint8]]) -> None:
    """Byte-identical output for 1, 2 and 3 threads and the default."""
    _, array = named
    reference = batch.all_rolls(array, threads=1)
    for threads in (2, 3, None):
        for got, want in zip(batch.all_rolls(array, threads=threads), reference):
            np.testing.assert_array_equal(got, want)
    dice = np.tile(np.array(ROLLS), (len(array) // 21 + 1, 1))[: len(array)]
    one = batch.moves(array, dice, threads=1)
    two = batch.moves(array, dice, threads=2)
    for got, want in zip(two, one):
        np.testing.assert_array_equal(got, want)


def test_output_larger_than_first_guessed_is_identical_on_threads(
    named: tuple[str, npt.NDArray[np.uint8]],
) -> None:
    """Double 1s give about 60 results a contact position, more than the output's first
    guess (24 a block), so the buffer must grow: while workers write (a late part, written
    once every chunk is done, on 2 threads) or as it fills (1 thread)."""
    _, array = named
    ones = np.ones((len(array), 2), dtype=np.int64)
    one = batch.moves(array, ones, threads=1)
    for threads in (2, 3):
        for got, want in zip(batch.moves(array, ones, threads=threads), one):
            np.testing.assert_array_equal(got, want)
    offsets, results = one
    assert len(results) == offsets[-1]
    first = bgfast.Position.from_array(array[0]).moves(1, 1)
    assert [bgfast.Position.from_array(r).id for r in results[: offsets[1]]] == [
        m.result.id for m in first
    ]


def test_reused_output_buffers_never_change_live_results(
    named: tuple[str, npt.NDArray[np.uint8]],
) -> None:
    """Result arrays borrow buffers that are reused once numpy frees them: an array, or a view
    of one, that is still alive keeps its bytes whatever later calls write."""
    _, array = named
    _, first = batch.all_rolls(array)[:2]
    kept = first.copy()
    view = first[1000:2000]
    view_kept = view.copy()
    for threads in (1, 2, 1, 2):
        # Each call may take a freed buffer of an earlier one: never one still in use.
        offsets, results, _ = batch.all_rolls(array[::-1], threads=threads)
        assert results.ctypes.data != first.ctypes.data
        np.testing.assert_array_equal(first, kept)
        del offsets, results
    del first
    for _ in range(3):
        batch.all_rolls(array[::-1])
        np.testing.assert_array_equal(view, view_kept)
    # Writable, like any fresh array; writing is the caller's own business.
    _, results = batch.moves(array[:10], np.full((10, 2), 3))
    assert results.flags.writeable and results.flags.c_contiguous
    results[:] = 0


def test_a_freed_result_buffer_serves_the_next_call(
    named: tuple[str, npt.NDArray[np.uint8]],
) -> None:
    """The point of the pool: once numpy frees a large result array, the next call of that
    size writes into memory already mapped (a kept buffer) instead of fresh pages. After a
    warm-up call the pool holds the same buffers before every call, so each call of the
    loop below takes the same one."""
    _, array = named
    addresses = []
    for _ in range(3):
        results = batch.all_rolls(array)[1]
        addresses.append(results.ctypes.data)
        del results
    assert addresses[1] == addresses[2]
    # A small result never takes a large kept buffer.
    kept = batch.all_rolls(array)[1]
    small = batch.moves(array[:2], np.array([[3, 1], [6, 6]]))[1]
    assert small.ctypes.data != addresses[2] and kept.ctypes.data == addresses[2]


def test_all_rolls_layout() -> None:
    """Block 21 i + k is position i with roll k, in the order of the 15 non-doubles then
    the 6 doubles; the same as moves() over repeated rows."""
    positions = [Position(), Position.from_id("v3sAAAhmdzMAAQ")]
    offsets, results, rolls = batch.all_rolls(positions)
    assert rolls.shape == (42, 2) and rolls.dtype == np.uint8
    assert [tuple(r) for r in rolls[:21].tolist()] == ROLLS
    np.testing.assert_array_equal(rolls[21:], rolls[:21])
    assert offsets.shape == (43,)
    again = batch.moves(np.repeat(batch.to_array(positions), 21, axis=0), rolls)
    np.testing.assert_array_equal(again[0], offsets)
    np.testing.assert_array_equal(again[1], results)
    # The start: 21:15, 31:16, ... (tests/data/NOTICE.md), 447 in all.
    assert list(np.diff(offsets[:22])[:2]) == [15, 16] and offsets[21] == 447


def test_results_have_the_opponent_to_move() -> None:
    offsets, results = batch.moves([Position()], np.array([[6, 5]]))
    assert offsets.tolist() == [0, 7]  # 65 from the start: 7 distinct results
    after = batch.to_positions(results)
    assert Position().play("24/13", (6, 5)) in after
    assert {p.pips for p in after} == {(167, 156)}  # row 0 is now the opponent


def test_sequences_of_positions() -> None:
    positions = [Position(), Position.from_id("m/oZAIDb7UQAAA")]
    dice = [[3, 1], [6, 6]]
    from_list = batch.moves(positions, dice)
    from_tuple = batch.moves(tuple(positions), dice)
    from_array = batch.moves(batch.to_array(positions), np.array(dice))
    for a, b, c in zip(from_list, from_tuple, from_array):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert batch.ids(positions) == [p.id for p in positions]
    assert batch.pip_counts(positions).tolist() == [list(p.pips) for p in positions]
    assert batch.to_positions(batch.to_array(positions)) == positions


def test_empty_input() -> None:
    empty = np.zeros((0, 2, 25), dtype=np.uint8)
    for positions in (empty, []):
        offsets, results = batch.moves(positions, np.zeros((0, 2), dtype=np.int64))
        assert offsets.tolist() == [0] and results.shape == (0, 2, 25)
        offsets, results, rolls = batch.all_rolls(positions)
        assert offsets.tolist() == [0] and results.shape == (0, 2, 25) and rolls.shape == (0, 2)
        assert batch.ids(positions) == []
        assert batch.pip_counts(positions).shape == (0, 2)
    assert batch.from_ids([]).shape == (0, 2, 25)


def test_ids_round_trip_and_pips(named: tuple[str, npt.NDArray[np.uint8]]) -> None:
    name, array = named
    ids = corpus(name)
    assert batch.ids(array) == ids
    assert batch.ids(array, threads=2) == ids
    positions = [Position.from_id(i) for i in ids[:50]]
    np.testing.assert_array_equal(array[:50], np.stack([p.to_array() for p in positions]))
    assert batch.pip_counts(array[:50]).tolist() == [list(p.pips) for p in positions]


def test_non_contiguous_and_other_integer_dtypes(
    named: tuple[str, npt.NDArray[np.uint8]],
) -> None:
    _, array = named
    strided = array[::3]
    assert not strided.flags.c_contiguous
    want = batch.all_rolls(np.ascontiguousarray(strided))
    for positions in (strided, strided.astype(np.int64), strided.astype(np.int16)):
        for got, expected in zip(batch.all_rolls(positions), want):
            np.testing.assert_array_equal(got, expected)


def start_rows(n: int) -> npt.NDArray[np.uint8]:
    return np.repeat(Position().to_array()[None], n, axis=0)


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_position_rows_are_named(threads: int) -> None:
    """The first bad row in row order is reported with its violation; nothing is returned."""
    array = start_rows(2000)
    array[1500, 0, 0] += 1  # 16 checkers (R1)
    array[1900, 0, 0] += 1
    before = array.copy()
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1500: .*R1: .*16 checkers"):
        batch.moves(array, np.full((2000, 2), 3), threads=threads)
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1500: "):
        batch.all_rolls(array, threads=threads)
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1500: "):
        batch.ids(array, threads=threads)
    np.testing.assert_array_equal(array, before)

    shared = start_rows(3)
    shared[2, 0, 0] = 1  # the mover's point 1 holds the opponent's two checkers (R6)
    shared[2, 0, 5] -= 1
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 2: .*R6"):
        batch.all_rolls(shared, threads=threads)

    negative = start_rows(4).astype(np.int32)
    negative[3, 1, 7] = -2
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 3: .*negative count -2"):
        batch.all_rolls(negative, threads=threads)


def test_finished_game_rows_raise_game_over() -> None:
    array = start_rows(3)
    array[1, 1] = 0  # the opponent has borne off everything (R15)
    with pytest.raises(bgfast.GameOverError, match=r"^row 1: R15"):
        batch.moves(array, np.full((3, 2), 2))
    # Non-move functions accept finished games.
    assert batch.pip_counts(array)[1].tolist() == [167, 0]


def test_bad_dice_rows_are_named() -> None:
    dice = np.full((5, 2), 4)
    dice[3] = (7, 1)
    with pytest.raises(bgfast.InvalidDiceError, match=r"^row 3: dice must be two numbers"):
        batch.moves(start_rows(5), dice)
    dice[3] = (0, 1)
    with pytest.raises(bgfast.InvalidDiceError, match=r"^row 3: "):
        batch.moves(start_rows(5), dice)


def test_one_roll_is_the_roll_of_every_position() -> None:
    positions = [Position(), Position.from_id("4HPwATDgc/ABMA")]
    each = np.array([[3, 1], [3, 1]])
    for one in [(3, 1), np.array([3, 1], dtype=np.uint8)]:
        for got, want in zip(batch.moves(positions, one), batch.moves(positions, each)):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(
            batch.move_counts(positions, one), batch.move_counts(positions, each)
        )
    with pytest.raises(bgfast.InvalidDiceError, match=r"^row 0: dice must be two numbers"):
        batch.moves(positions, (3, 7))
    with pytest.raises(bgfast.InvalidDiceError, match=r"or \(2,\), one roll for all"):
        batch.moves(positions, (3,))


def test_shape_and_type_errors() -> None:
    with pytest.raises(bgfast.InvalidPositionError, match=r"\(N, 2, 25\)"):
        batch.moves(np.zeros((3, 2, 24), dtype=np.uint8), np.full((3, 2), 1))
    with pytest.raises(bgfast.InvalidPositionError, match="integer"):
        batch.all_rolls(start_rows(2).astype(np.float64))
    with pytest.raises(bgfast.InvalidPositionError, match="not one Position"):
        batch.all_rolls(Position())  # type: ignore[arg-type]
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1: "):
        batch.all_rolls([Position(), "4HPwATDgc/ABMA"])  # type: ignore[list-item]
    with pytest.raises(bgfast.InvalidDiceError, match=r"shape \(2, 2\)"):
        batch.moves(start_rows(2), np.full((3, 2), 1))
    with pytest.raises(bgfast.InvalidDiceError, match="integers"):
        batch.moves(start_rows(2), np.full((2, 2), 1.0))
    with pytest.raises(bgfast.BgfastError, match="threads must be from 1 to 256"):
        batch.all_rolls(start_rows(2), threads=0)
    with pytest.raises(bgfast.BgfastError, match="threads must be from 1 to 256"):
        batch.moves(start_rows(2), np.full((2, 2), 1), threads=10**6)


def test_from_ids_names_the_bad_row() -> None:
    ids = [Position().id] * 4
    ids[2] = "not an id"
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 2: "):
        batch.from_ids(ids)
    with pytest.raises(bgfast.InvalidPositionError, match="not one str"):
        batch.from_ids(Position().id)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_first_bad_row_is_named_whether_its_position_or_its_roll_is_bad(threads: int) -> None:
    positions = start_rows(3)
    positions[0, 0, 5] = 9  # row 0: 19 checkers (R1)
    dice = np.array([[3, 1], [3, 1], [7, 1]])  # row 2: a die of 7
    for call in (batch.moves, batch.move_counts):
        with pytest.raises(bgfast.InvalidPositionError, match=r"^row 0: .*R1"):
            call(positions, dice, threads=threads)
    positions = start_rows(3).astype(np.int32)
    positions[2, 0, 5] = 300  # row 2: a count past a byte
    dice = np.array([[0, 1], [3, 1], [3, 1]])  # row 0: a die of 0
    for call in (batch.moves, batch.move_counts):
        with pytest.raises(bgfast.InvalidDiceError, match=r"^row 0: "):
            call(positions, dice, threads=threads)
        with pytest.raises(bgfast.InvalidPositionError, match=r"^row 2: "):
            call(positions, np.array([[3, 1]] * 3), threads=threads)


def test_a_bool_is_no_die() -> None:
    for dice in [(True, 1), [[3, 1], [np.True_, 2]]]:
        with pytest.raises(bgfast.InvalidDiceError, match="bool"):
            batch.moves(start_rows(len(dice) if isinstance(dice, list) else 1), dice)
        with pytest.raises(bgfast.InvalidDiceError, match="bool"):
            batch.move_counts(start_rows(2), dice)
