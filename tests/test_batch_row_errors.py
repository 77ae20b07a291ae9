"""Bad input to the Python batch API is refused as the native batch functions refuse it.

The native batch functions name the first bad row of a ``(N, 2, 25)`` array (``row
<index>: invalid position: ...``) and refuse a bool among nested counts; the Python
functions that take boards or positions too (``cubeful.cube_values(boards=...)``,
``bearoff.exact_chances``, ``bearoff.in_two_sided_range``, ``features.encode``,
``pubeval.score``) must do the same, naming the row as it is in the array given. Dice that
are no array of numbers (``None``, text, one number) are named as given.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import Position, batch, bearoff, cubeful, features, pubeval
from bgfast.cubeful import Stakes

START = Position().to_array()


def _starts(n: int, dtype: Any = np.uint8) -> np.ndarray:
    return np.broadcast_to(START, (n, 2, 25)).astype(dtype)


def _race(n: int) -> np.ndarray:
    """``n`` boards in the two-sided database's range: 1 checker against 2."""
    boards = np.zeros((n, 2, 25), dtype=np.int64)
    boards[:, 0, 0] = 1
    boards[:, 1, 0] = 2
    return boards


# 1. cube_values(boards=...) names the first bad row, as batch.pip_counts does.


@pytest.mark.parametrize("count", [16, -1])
def test_cube_values_names_the_first_bad_board(count: int) -> None:
    boards = _starts(80_000, np.int16)
    boards[73_512, 0, 5] = count
    boards[79_000, 0, 5] = count  # a later bad row is not the one named
    chances = np.tile([[0.5, 0.1, 0.0, 0.05, 0.0]], (len(boards), 1))
    with pytest.raises(bgfast.InvalidPositionError) as native:
        batch.pip_counts(boards)
    for life in (cubeful.DEFAULT_CUBE_LIFE, "gnubg"):
        with pytest.raises(bgfast.InvalidPositionError, match=r"^row 73512: invalid position"):
            cubeful.cube_values(chances, Stakes.check(), life, boards=boards)
        with pytest.raises(bgfast.InvalidPositionError) as python:
            cubeful.cube_values(chances, Stakes.check(), life, boards=boards)
        assert str(python.value) == str(native.value)
    assert "array([[" not in str(python.value)


def test_cube_values_names_the_shape_or_dtype_of_boards() -> None:
    chances = [[0.5, 0.1, 0.0, 0.05, 0.0]] * 3
    with pytest.raises(bgfast.InvalidPositionError, match=r"\(3, 2, 25\).*got shape \(2, 2, 25\)"):
        cubeful.cube_values(chances, Stakes.check(), boards=_starts(2))
    with pytest.raises(bgfast.InvalidPositionError, match="got dtype float64"):
        cubeful.cube_values(chances, Stakes.check(), boards=_starts(3, np.float64))
    with pytest.raises(bgfast.InvalidPositionError, match="got dtype bool"):
        cubeful.cube_values(chances, Stakes.check(), boards=_starts(3, bool))
    with pytest.raises(bgfast.InvalidPositionError, match="bool among the counts"):
        cubeful.cube_values(chances[:1], Stakes.check(), boards=[[[True] + [0] * 24] * 2])
    good = cubeful.cube_values(chances, Stakes.check(), boards=_starts(3, np.int64))
    assert good.shape == (3, 4)


# 2. bearoff.exact_chances names the row in the boards given, and checks shapes.


def test_exact_chances_names_the_row_of_the_boards_given() -> None:
    boards = _race(4)
    boards[0] = START  # out of range: given back as it is
    boards[3, 0, 0] = 20
    boards[3, 0, 1] = -14  # "home" adds up to 6: read as in range before
    for call in (
        lambda: bearoff.exact_chances(boards, np.zeros((4, 5))),
        lambda: bearoff.in_two_sided_range(boards),
    ):
        with pytest.raises(bgfast.InvalidPositionError, match=r"^row 3: invalid position"):
            call()


def test_exact_chances_refuses_mismatched_shapes_with_a_bgfast_error() -> None:
    boards = _race(4)
    with pytest.raises(bgfast.BgfastError, match=r"chances must be \(4, 5\).*got shape \(3, 5\)"):
        bearoff.exact_chances(boards, np.zeros((3, 5)))
    with pytest.raises(bgfast.BgfastError, match=r"got shape \(4, 4\)"):
        bearoff.exact_chances(boards, np.zeros((4, 4)))
    with pytest.raises(bgfast.BgfastError, match="chances"):
        bearoff.exact_chances(boards, [[0.5] * 5, [0.5]])
    with pytest.raises(bgfast.InvalidPositionError, match=r"\(N, 2, 25\).*got shape \(2, 25\)"):
        bearoff.exact_chances(boards[0], np.zeros((1, 5)))
    with pytest.raises(bgfast.InvalidPositionError, match="got dtype float64"):
        bearoff.in_two_sided_range(boards.astype(np.float64))


def test_exact_chances_still_makes_the_rows_in_range_exact() -> None:
    boards = _race(3)
    boards[1] = START
    got = bearoff.exact_chances(boards, np.full((3, 5), 0.25))
    win = bearoff.win_probability(((1, 0, 0, 0, 0, 0), (2, 0, 0, 0, 0, 0)))
    np.testing.assert_allclose(got[[0, 2]], [[win, 0, 0, 0, 0]] * 2, rtol=1e-6)
    np.testing.assert_array_equal(got[1], [0.25] * 5)
    assert bearoff.in_two_sided_range(boards).tolist() == [True, False, True]


# 3. A bool among nested counts is refused everywhere, as batch.ids refuses it.


def _with_a_bool() -> list[list[Any]]:
    board: list[list[Any]] = START.tolist()
    board[0][5] -= 1
    board[0][1] = True  # the mover's 2-point: a legal board if read as 1
    return board


@pytest.mark.parametrize(
    "call",
    [
        lambda b: batch.ids([b]),
        lambda b: bgfast.Net.wildbg().evaluate([b]),
        lambda b: features.encode([b], "board"),
        lambda b: features.encode(b, "wildbg"),
        lambda b: pubeval.score([b]),
        lambda b: pubeval.score(b),
    ],
    ids=["ids", "evaluate", "encode", "encode-one", "pubeval", "pubeval-one"],
)
def test_a_bool_among_the_counts_is_refused(call: Any) -> None:
    with pytest.raises(bgfast.InvalidPositionError, match="got a bool among the counts"):
        call(_with_a_bool())


def test_a_numpy_bool_among_the_counts_is_refused() -> None:
    board = _with_a_bool()
    board[0][1] = np.True_
    with pytest.raises(bgfast.InvalidPositionError, match="got a bool among the counts"):
        features.encode([board], "board")
    with pytest.raises(bgfast.InvalidPositionError, match="got a bool among the counts"):
        pubeval.score([START.astype(bool)])
    for bools in (START.astype(bool), START[None].astype(bool)):
        with pytest.raises(bgfast.InvalidPositionError, match="got dtype bool"):
            features.encode(bools, "board")
        with pytest.raises(bgfast.InvalidPositionError, match="got dtype bool"):
            pubeval.score(bools)


def test_the_same_counts_as_ints_are_taken() -> None:
    board = _with_a_bool()
    board[0][1] = 1
    np.testing.assert_array_equal(
        features.encode([board], "board"), features.encode(np.array([board]), "board")
    )
    assert pubeval.score(board) == pubeval.score(np.array(board))


# 4. Dice that are no array of numbers are named as given.


def test_no_dice_is_named() -> None:
    with pytest.raises(bgfast.InvalidDiceError, match=r"got None.*all_rolls"):
        batch.moves(_starts(2), None)  # type: ignore[arg-type]
    assert batch.move_counts(_starts(2), None).shape == (2, 21)  # all 21 rolls


@pytest.mark.parametrize(
    ("dice", "named"),
    [("31", r"got the str '31'; give the roll as \(3, 1\)"), (b"66", r"bytes b'66'.*\(6, 6\)")],
)
def test_dice_as_text_are_named_with_the_form_to_use(dice: Any, named: str) -> None:
    for call in (batch.moves, batch.move_counts):
        with pytest.raises(bgfast.InvalidDiceError, match=named):
            call(_starts(2), dice)


@pytest.mark.parametrize(("dice", "named"), [(31, "got the int 31"), (3.5, "got the float 3.5")])
def test_one_number_for_dice_is_named(dice: Any, named: str) -> None:
    with pytest.raises(bgfast.InvalidDiceError, match=named):
        batch.moves(_starts(2), dice)
