"""Contract tests of ``Position``, ``Moves``, ``Move`` and ``perft`` (see contract_support).

Every test asserts only the contract: a return value that is right for exactly the input
given, or a ``BgfastError`` subclass (``TypeError`` for a wrong Python type) whose message
names the problem; nothing else ever escapes.
"""

from __future__ import annotations

import collections.abc
import pickle
import re
from typing import Any

import numpy as np
import pytest
from contract_support import (
    CONTRACT,
    ENDED,
    HOME,
    LIVE,
    OTHER_DTYPES,
    SPECIAL,
    assert_reports_given,
    check,
    count_arrays,
    given_numbers,
    live_positions,
    mutated_rows,
    positions,
    rejects,
    representable,
    valid_counts,
)
from hypothesis import example, given
from hypothesis import strategies as st

import bgfast
from bgfast import (
    BearoffRangeError,
    BgfastError,
    GameOverError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Moves,
    Position,
)

START = Position()
START_OPPONENT = START.to_array()[1].tolist()
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

any_ints = st.one_of(st.integers(), st.sampled_from(SPECIAL), st.integers(-3, 9))


# Position.from_id


def _check_id(text: Any) -> None:
    outcome = check(lambda: Position.from_id(text))
    # ASCII whitespace around an ID is ignored (Rust's is_ascii_whitespace: no \v).
    given = text.strip(" \t\n\x0c\r") if isinstance(text, str) else text
    if outcome.ok:
        assert outcome.value.id == given, "an ID accepted as another position's"
        return
    error = outcome.error
    if isinstance(text, str):
        assert isinstance(error, InvalidPositionError), repr(error)
        said = re.search(r"has 14 characters, not (\d+)", str(error))
        if said:
            assert int(said.group(1)) == len(given), f"miscounted {text!r}: {error}"
            assert len(given) != 14, f"a 14-character ID said not to have 14: {error}"


@CONTRACT
@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=20))
@example("\ud800")
@example("\udcff" * 14)
@example("\uff14HPwATDgc/ABMA")  # 14 characters, 16 UTF-8 bytes
@example("4HPwATDgc/ABM\x00")
@example("")
@example("\t4HPwATDgc/ABMA\r\n")
@example("4HPwATDgc/ABMA\x0b")  # a vertical tab is no ASCII whitespace to Rust
def test_from_id_any_text(text: str) -> None:
    _check_id(text)


@CONTRACT
@given(positions, st.integers(0, 13), st.sampled_from(B64), st.integers(0, 13))
def test_from_id_mutated_ids_round_trip(pos: Position, i: int, c: str, j: int) -> None:
    text = list(pos.id)
    text[i] = c
    text[j] = B64[(B64.index(text[j]) + 1) % 64]
    _check_id("".join(text))


@pytest.mark.parametrize("value", [5, None, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"], 1.5])
def test_from_id_wrong_types(value: Any) -> None:
    assert not check(lambda: Position.from_id(value)).ok


# Position.from_array


def _check_from_array(array: Any, exact: Any) -> None:
    before = np.array(array, dtype=object, copy=True) if not isinstance(array, list) else None
    outcome = check(lambda: Position.from_array(array))
    valid = valid_counts(exact)
    if before is not None:
        assert np.array_equal(np.asarray(array, dtype=object), before), "the input changed"
    if outcome.ok:
        got = outcome.value.to_array().astype(int).tolist()
        assert got == [[int(v) for v in row] for row in exact], (
            f"accepted as another position: {got} for {exact}"
        )
        assert valid
        return
    error = outcome.error
    assert isinstance(error, InvalidPositionError), repr(error)
    assert not valid, f"a legal position refused: {error}"
    assert "must have shape" not in str(error), f"a (2, 25) array said misshapen: {error}"
    assert_reports_given(error, given_numbers(exact))


@CONTRACT
@given(count_arrays(rows=0))
def test_from_array_integer_arrays(case: tuple[np.ndarray, list[list[int]]]) -> None:
    """Any integer dtype and layout: accepted exactly when the counts are legal, and then
    as exactly these counts."""
    array, exact = case
    _check_from_array(array, exact)


@CONTRACT
@given(mutated_rows())
def test_from_array_nested_lists(rows: list[list[list[int]]]) -> None:
    """Python ints of any size in nested lists."""
    _check_from_array(rows[0], rows[0])


_OVERFLOW_ROW = [0, 2**31 - 255, 2**31 - 255, 525] + [0] * 21


HUGE_ROWS = [
    [[2**31 - 1, 1] + [0] * 23, [0] * 24 + [1]],  # the sum wraps: a panic
    [_OVERFLOW_ROW, START_OPPONENT],  # the sum wraps to 15: another position
    [[0] * 5 + [2**32 + 5] + [0] * 19, START_OPPONENT],
    [START.to_array()[0].tolist()[:5] + [2**40] + [0] * 19, START_OPPONENT],
    [[0] * 24 + [2**40], START_OPPONENT],
    [[2**70] + [0] * 24, [0] * 24 + [1]],
    [[-(2**70)] + [0] * 24, [0] * 24 + [1]],
    [[-(2**40)] + [0] * 24, [0] * 24 + [1]],
    [[2**64 - 1] + [0] * 24, [0] * 24 + [1]],
]

_FORMS = {"list": None, "int64": np.int64, "object": object, "uint64": np.uint64}


@pytest.mark.parametrize(
    ("rows", "form"),
    [
        (rows, form)
        for rows in HUGE_ROWS
        for form, dtype in _FORMS.items()
        if dtype is None or representable(rows, dtype)
    ],
)
def test_from_array_huge_counts(rows: list[list[int]], form: str) -> None:
    if form == "list":
        _check_from_array(rows, rows)
        return
    array = np.array(rows, dtype=_FORMS[form])
    _check_from_array(array, rows)


@CONTRACT
@given(positions, st.sampled_from(OTHER_DTYPES))
def test_from_array_other_dtypes(pos: Position, dtype: Any) -> None:
    """A (2, 25) array of another dtype: taken exactly, or refused for its dtype (never
    said to have the wrong shape)."""
    array = pos.to_array().astype(dtype)
    exact = [[_exact(v) for v in row] for row in array.tolist()]
    outcome = check(lambda: Position.from_array(array))
    if outcome.ok:
        assert outcome.value.to_array().astype(int).tolist() == exact
        assert valid_counts(exact)
        return
    error = outcome.error
    assert isinstance(error, InvalidPositionError)
    text = str(error).lower()
    assert "dtype" in text or "integer" in text or np.dtype(dtype).name in text, (
        f"a (2, 25) {np.dtype(dtype)} array refused without naming its dtype: {error}"
    )


def _exact(value: Any) -> int:
    """The integer a count of another dtype stands for (all counts drawn are integral)."""
    if isinstance(value, complex):
        return int(value.real)
    return int(value)


@pytest.mark.parametrize(
    "value",
    [
        np.zeros((25, 2), np.uint8),
        np.zeros((1, 2, 25), np.uint8),
        np.zeros((2, 24), np.int64),
        np.zeros((3, 25), np.int64),
        np.zeros(50, np.int64),
        np.zeros((), np.int64),
        [[0] * 25],
        [[0] * 25, [0] * 24],
        "x" * 50,
        None,
        5,
        START,
    ],
)
def test_from_array_wrong_shapes(value: Any) -> None:
    error = rejects(lambda: Position.from_array(value), (InvalidPositionError, TypeError))
    assert isinstance(error, TypeError) or "shape" in str(error) or "array" in str(error)


# Position.moves, Position.play


@CONTRACT
@given(live_positions, any_ints, any_ints)
@example(START, 2**70, 1)
@example(START, 2**63, 1)
@example(START, 1, -(2**64))
def test_moves_any_dice(pos: Position, d1: int, d2: int) -> None:
    outcome = check(lambda: pos.moves(d1, d2))
    if 1 <= d1 <= 6 and 1 <= d2 <= 6:
        assert outcome.ok and isinstance(outcome.value, Moves), outcome.error
        return
    error = outcome.error
    assert isinstance(error, InvalidDiceError), f"dice {d1}, {d2}: {error!r}"
    assert_reports_given(error, {d1, d2})


@pytest.mark.parametrize("dice", [(1.0, 2), ("3", 1), (None, 1), (np.uint64(2**64 - 1), 1)])
def test_moves_dice_of_other_types(dice: tuple[Any, Any]) -> None:
    rejects(lambda: START.moves(*dice), (InvalidDiceError, TypeError))


@pytest.mark.parametrize("pos", ENDED[:4])
def test_moves_of_a_finished_game(pos: Position) -> None:
    rejects(lambda: pos.moves(3, 1), GameOverError, "R15")
    rejects(lambda: pos.play("", (3, 1)), GameOverError, "R15")


@CONTRACT
@given(live_positions, st.sampled_from(ROLLS))
def test_every_move_plays_to_its_result(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.moves(*roll):
        assert pos.play(move, roll) == move.result
        assert pos.play(move, roll[::-1]) == move.result
        assert pos.play(str(move), roll) == move.result, f"{move} read as another move"


move_text = st.one_of(
    st.text(alphabet=st.characters(exclude_categories=()), max_size=12),
    st.text(alphabet="0123456789/*() barof", max_size=24),
    st.builds(
        lambda a, b, n: f"{a}/{b}" + (f"({n})" if n is not None else ""),
        st.one_of(st.integers(-5, 30), st.sampled_from(SPECIAL)),
        st.one_of(st.integers(-5, 30), st.sampled_from(SPECIAL)),
        st.none() | st.integers(-2, 6) | st.sampled_from([2**32 + 1, 10**20]),
    ),
)


@CONTRACT
@given(live_positions, move_text, st.sampled_from(ROLLS))
@example(START, "99999999999999999999999/1", (3, 1))
@example(START, "8/5(99999999999999999999)", (3, 1))
@example(START, "\ud800", (3, 1))
@example(START, "24/18(4)", (6, 6))
def test_play_any_text(pos: Position, text: str, roll: tuple[int, int]) -> None:
    outcome = check(lambda: pos.play(text, roll))
    if outcome.ok:
        assert outcome.value in {m.result for m in pos.moves(*roll)}
        return
    error = outcome.error
    assert isinstance(error, (InvalidMoveError, IllegalMoveError)), repr(error)
    # A character the message quotes ('\u{46000}') is not a number it reports.
    for n in re.findall(r"\d+", re.sub(r"'[^']*'", "", str(error))):
        if int(n) >= 256:
            assert n in text, f"the message reports {n}, not in {text!r}: {error}"


@pytest.mark.parametrize(
    "dice",
    [(3, 1, 2), (3,), (), (2**63, 1), (2**64, 1), (1, -(2**64)), (7, 1), (0, 0)],
)
def test_play_bad_dice_tuples(dice: tuple[int, ...]) -> None:
    rejects(lambda: START.play("8/5 6/5", dice), InvalidDiceError)  # type: ignore[arg-type]


@pytest.mark.parametrize("dice", [[3, 1], None, "31", 31, {3, 1}])
def test_play_dice_of_other_types(dice: Any) -> None:
    outcome = check(lambda: START.play("8/5 6/5", dice))
    assert outcome.ok or isinstance(outcome.error, (InvalidDiceError, TypeError))


@pytest.mark.parametrize("move", [5, None, b"8/5 6/5", ["8/5"], START])
def test_play_move_of_other_types(move: Any) -> None:
    rejects(lambda: START.play(move, (3, 1)), (TypeError, BgfastError))


def test_play_a_move_of_another_position() -> None:
    other = START.moves(3, 1)[0].result
    move = other.moves(6, 5)[0]
    rejects(lambda: START.play(move, (6, 5)), IllegalMoveError)


# Moves: a Sequence like the list of its moves

indexes = st.one_of(
    st.integers(-20, 20),
    st.integers(),
    st.sampled_from([2**31, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 2**100, -(2**100)]),
)
slice_parts = st.none() | indexes


def _run(call: Any) -> tuple[Any, BaseException | None]:
    try:
        return call(), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # a PanicException too
        return None, error


def _same_as_list(moves: Moves, key: Any) -> None:
    """``moves[key]`` answers as ``list(moves)[key]``: the same item, or the same class
    of error (``IndexError`` out of range, however large the int; ``TypeError`` for a
    key of another type)."""
    listed = list(moves)
    expected, expected_error = _run(lambda: listed[key])
    got, error = _run(lambda: moves[key])
    if expected_error is None:
        assert error is None, f"moves[{key!r}] raised {error!r}; the list gives an item"
        assert got == expected
        return
    assert error is not None, f"moves[{key!r}] returned {got!r}; the list raises"
    assert isinstance(error, type(expected_error)), (
        f"moves[{key!r}] raised {error!r}; the list raises {expected_error!r}"
    )


@CONTRACT
@given(live_positions, st.sampled_from(ROLLS), indexes)
@example(START, (3, 1), 2**63)
@example(START, (3, 1), -(2**63) - 1)
@example(START, (3, 1), 2**100)
@example(START, (3, 1), np.uint64(2**64 - 1))
@example(START, (3, 1), np.int64(-1))
@example(START, (3, 1), True)
def test_moves_index_like_a_list(pos: Position, roll: tuple[int, int], i: Any) -> None:
    _same_as_list(pos.moves(*roll), i)


@CONTRACT
@given(live_positions, st.sampled_from(ROLLS), slice_parts, slice_parts, slice_parts)
def test_moves_slice_like_a_list(
    pos: Position, roll: tuple[int, int], a: Any, b: Any, c: Any
) -> None:
    moves = pos.moves(*roll)
    key = slice(a, b, c)
    listed = list(moves)
    try:
        expected = listed[key]
    except ValueError:  # a zero step, as for a list
        with pytest.raises(ValueError):
            moves[key]
        return
    assert moves[key] == expected


@pytest.mark.parametrize("key", [1.0, "0", None, (0,), ..., [0]])
def test_moves_index_of_other_types(key: Any) -> None:
    with pytest.raises(TypeError):
        START.moves(3, 1)[key]


@CONTRACT
@given(live_positions, st.sampled_from(ROLLS), positions, st.sampled_from(ROLLS))
def test_moves_sequence_protocol(
    pos: Position, roll: tuple[int, int], other: Position, other_roll: tuple[int, int]
) -> None:
    """``Moves`` is registered as a ``collections.abc.Sequence``: it has the whole protocol,
    ``index`` and ``count`` included, with the list's answers."""
    moves = pos.moves(*roll)
    listed = list(moves)
    assert isinstance(moves, collections.abc.Sequence)
    assert len(moves) == len(listed)
    assert list(reversed(moves)) == listed[::-1]
    strangers: list[Any] = [5, None, "x", pos, [], object()]
    if other.outcome is None:
        strangers.extend(other.moves(*other_roll))
    for item in listed + strangers:
        inside = item in listed
        assert (item in moves) == inside
        assert moves.count(item) == listed.count(item)
        if inside:
            assert moves.index(item) == listed.index(item)
        else:
            with pytest.raises(ValueError):
                moves.index(item)
    if listed:
        last = listed[-1]
        n = len(listed)
        assert moves.index(last, 0, n) == listed.index(last, 0, n)
        assert moves.index(last, -1) == listed.index(last, -1)
        with pytest.raises(ValueError):
            moves.index(last, 0, n - 1)  # results are distinct: it is not before the end


# Move: pickling and its payload

step_values = st.one_of(st.integers(-2, 27), st.sampled_from([255, 256, 2**31, 2**64, -(2**70)]))
hit_values = st.one_of(st.booleans(), st.sampled_from([0, 1, None, "yes", np.bool_(True)]))
steps_lists = st.lists(st.tuples(step_values, step_values, hit_values), max_size=5)
odd_steps = st.sampled_from([None, "abc", 5, [(8, 5)], [(8, 5, False, 1)], {(8, 5, False): 1}])


@CONTRACT
@given(positions, st.one_of(steps_lists, odd_steps))
@example(START, [(8, 5, False), (6, 5, False)])
@example(START, [(24, 21, False), (21, 20, False)])
@example(START, [])
def test_move_from_steps_any_payload(origin: Position, steps: Any) -> None:
    """A pickle payload may be forged: ``Move._from_steps`` returns a legal move of that
    origin with exactly those steps, or refuses."""
    outcome = check(lambda: Move._from_steps(origin, steps))  # type: ignore[attr-defined]
    if not outcome.ok:
        assert isinstance(outcome.error, (BgfastError, TypeError))
        return
    move = outcome.value
    assert move.origin == origin
    given_steps = sorted((int(a), int(b), bool(h)) for a, b, h in steps)
    assert sorted(tuple(s) for s in move.steps) == given_steps, "not the steps given"
    legal = any(move in origin.moves(*roll) for roll in ROLLS if origin.outcome is None)
    assert legal, f"a forged payload made an illegal move {move!r}"


@pytest.mark.parametrize("origin", [None, 5, "4HPwATDgc/ABMA", START.to_array()])
def test_move_from_steps_bad_origin(origin: Any) -> None:
    rejects(lambda: Move._from_steps(origin, []), (BgfastError, TypeError))  # type: ignore[attr-defined]


@CONTRACT
@given(live_positions, st.sampled_from(ROLLS))
def test_pickles_round_trip(pos: Position, roll: tuple[int, int]) -> None:
    assert pickle.loads(pickle.dumps(pos)) == pos
    for move in pos.moves(*roll):
        again = pickle.loads(pickle.dumps(move))
        assert again == move and str(again) == str(move) and again.steps == move.steps


def test_pass_moves_pickle() -> None:
    passes = [m for p in LIVE for roll in ROLLS for m in p.moves(*roll) if m.is_pass][:50]
    assert passes
    for move in passes:
        assert pickle.loads(pickle.dumps(move)) == move


def test_forged_position_pickle() -> None:
    forged = pickle.dumps(START).replace(START.id.encode(), b"AAAAAAAAAAAAAA")
    rejects(lambda: pickle.loads(forged), InvalidPositionError)


# perft (only depths that return at once here; the rest run in a subprocess)


@pytest.mark.parametrize("depth", [-1, -(2**31), -(2**63), -(2**64), -(2**70)])
def test_perft_negative_depth(depth: int) -> None:
    rejects(lambda: bgfast.perft(START, depth), BgfastError, "depth")


@pytest.mark.parametrize("depth", [1.0, "1", None])
def test_perft_depth_of_other_types(depth: Any) -> None:
    rejects(lambda: bgfast.perft(START, depth), (TypeError, BgfastError))


@CONTRACT
@given(positions)
def test_perft_shallow(pos: Position) -> None:
    assert bgfast.perft(pos, 0) == 1
    if pos.outcome is not None:
        assert bgfast.perft(pos, 1) == 1
        return
    assert bgfast.perft(pos, 1) == sum(len(pos.moves(*r)) for r in ROLLS)


@pytest.mark.parametrize("value", [None, 5, "4HPwATDgc/ABMA", START.to_array()])
def test_perft_position_of_other_types(value: Any) -> None:
    rejects(lambda: bgfast.perft(value, 1), (TypeError, BgfastError))


# flipped, epc


@CONTRACT
@given(positions)
def test_flipped_and_epc(pos: Position) -> None:
    flipped = pos.flipped()
    assert flipped.flipped() == pos
    assert flipped.to_array().tolist() == pos.to_array()[::-1].tolist()
    outcome = check(lambda: pos.epc)
    home = not pos.to_array()[:, 6:].any()
    if home:
        assert outcome.ok and len(outcome.value) == 2, outcome.error
        assert all(np.isfinite(outcome.value))
    else:
        assert isinstance(outcome.error, BearoffRangeError), outcome.error


def test_pools_are_varied() -> None:
    assert len(LIVE) > 100 and ENDED and len(HOME) > 5


@pytest.mark.parametrize("other", [5, None, "x", 1.5])
def test_position_comparisons_with_other_types(other: Any) -> None:
    pos = Position()
    assert (pos == other) is False
    with pytest.raises(TypeError):
        _ = pos < other  # type: ignore[operator]
