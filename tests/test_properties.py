"""Property tests (Hypothesis) for legal moves, Position IDs and input errors.

Positions are drawn two ways: any valid arrangement of checkers (``valid_arrays``), and
positions reached by random legal play from the start. The legality properties are checked
against a small brute-force reference written here from RULES.md (R4-R14), independent of
the Rust generator.
"""

from __future__ import annotations

import contextlib
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import bgfast
from bgfast import Position

gnubg_nn = pytest.importorskip("gnubg_nn")

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Counts = list[int]


@st.composite
def valid_arrays(draw: st.DrawFn) -> np.ndarray:
    """A ``(2, 25)`` array of a valid position: at most 15 checkers a side, no point held
    by both sides, and at least one checker on the board for each (the game goes on)."""
    array = np.zeros((2, 25), dtype=np.uint8)
    taken: set[int] = set()  # points in the mover's numbering
    for row in (0, 1):
        total = draw(st.integers(1, 15))
        for _ in range(total):
            slot = draw(st.integers(0, 24))  # 24 = bar
            point = slot + 1 if row == 0 else 25 - (slot + 1)  # mover's numbering
            if slot != 24 and point in taken and array[row, slot] == 0:
                continue  # the other side holds it
            array[row, slot] += 1
            if slot != 24:
                taken.add(point)
        if array[row].sum() == 0:
            array[row, 24] = 1  # every point was taken: the bar is always free
    return array


@st.composite
def played_positions(draw: st.DrawFn) -> Position:
    """A position reached by random legal play from the start."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    pos = Position()
    for _ in range(draw(st.integers(0, 60))):
        moves = pos.moves(rng.randint(1, 6), rng.randint(1, 6))
        after = rng.choice(moves).result
        if after.outcome is not None:
            break
        pos = after
    return pos


positions = st.one_of(valid_arrays().map(Position.from_array), played_positions())
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


# --- A brute-force reference for single steps (R6, R7, R12-R14) ------------------------


def single_steps(mover: Counts, opp: Counts, die: int) -> list[tuple[int, int]]:
    """Every lawful ``(from, to)`` step of one die; index ``p - 1`` is point ``p``, 24 the bar.

    The mover's point ``p`` is the opponent's ``25 - p``, at index ``24 - p``.
    """

    def open_point(to: int) -> bool:
        return opp[24 - to] < 2  # R7

    if mover[24]:  # R12: the bar first
        to = 25 - die
        return [(25, to)] if open_point(to) else []
    out = []
    home = sum(mover[6:25]) == 0  # R13
    for frm in range(1, 25):
        if not mover[frm - 1]:
            continue
        to = frm - die
        if to >= 1:
            if open_point(to):
                out.append((frm, to))
        elif home and (to == 0 or not any(mover[frm:24])):  # R14
            out.append((frm, 0))
    return out


def apply_step(mover: Counts, opp: Counts, frm: int, to: int) -> tuple[Counts, Counts, bool]:
    mover, opp = list(mover), list(opp)
    mover[frm - 1] -= 1
    hit = False
    if to:
        mover[to - 1] += 1
        if opp[24 - to]:
            assert opp[24 - to] == 1, "landed on a blocked point"
            opp[24 - to] -= 1
            opp[24] += 1
            hit = True
    return mover, opp, hit


def most_dice(mover: Counts, opp: Counts, d1: int, d2: int) -> int:
    """The most dice any play of the roll uses (R8), by brute force."""

    def deepest(m: Counts, o: Counts, seq: list[int]) -> int:
        if not seq:
            return 0
        best = 0
        for frm, to in single_steps(m, o, seq[0]):
            m2, o2, _ = apply_step(m, o, frm, to)
            best = max(best, 1 + deepest(m2, o2, seq[1:]))
            if best == len(seq):
                break
        return best

    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    return max(deepest(mover, opp, seq) for seq in orders)


def rows(pos: Position) -> tuple[Counts, Counts]:
    mover, opp = pos.to_array().tolist()
    return mover, opp


# --- Properties ------------------------------------------------------------------------


@SETTINGS
@given(positions, dice)
def test_checkers_are_conserved(pos: Position, roll: tuple[int, int]) -> None:
    mover, opp = rows(pos)
    for move in pos.moves(*roll):
        after_opp, after_mover = rows(move.result)  # the result has the opponent to move
        borne_off = sum(1 for _, to, _ in move.steps if to == 0)
        assert sum(after_mover) == sum(mover) - borne_off
        assert sum(after_opp) == sum(opp)  # hit checkers go to the bar, never off
        assert max(after_mover) <= 15 and max(after_opp) <= 15


@SETTINGS
@given(positions, dice)
def test_every_result_is_reached_by_its_steps(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.moves(*roll):
        mover, opp = rows(pos)
        hit_points = set()
        for frm, to, hit in move.steps:
            assert mover[frm - 1] > 0, f"{move.steps}: no checker on {frm} (R1)"
            assert 0 <= to < frm
            mover, opp, did_hit = apply_step(mover, opp, frm, to)
            # The flag marks the first landing on a blot; later landings there find none.
            assert hit == did_hit
            if did_hit:
                hit_points.add(to)
        assert rows(move.result) == (opp, mover)


@SETTINGS
@given(positions, dice)
def test_no_duplicate_results(pos: Position, roll: tuple[int, int]) -> None:
    moves = pos.moves(*roll)
    ids = [m.result.id for m in moves]
    assert len(set(ids)) == len(ids)
    assert len(set(moves)) == len(moves)


@SETTINGS
@given(positions, dice)
def test_pips_match_dice_and_most_dice_are_used(pos: Position, roll: tuple[int, int]) -> None:
    d1, d2 = roll
    mover, opp = rows(pos)
    most = most_dice(mover, opp, d1, d2)
    moves = pos.moves(d1, d2)
    for move in moves:
        # R8: every play uses as many dice as possible; fewer only when no longer play exists.
        assert len(move.steps) == most, (pos.id, roll, move.steps)
        distances = sorted((frm - to, to == 0) for frm, to, _ in move.steps)
        if d1 == d2:
            # R5: each step moves the double's number; only a bear-off may move fewer (R14).
            assert all(d == d1 or (off and d < d1) for d, off in distances)
        elif most == 2:
            # R4: one step per die, each die its full value unless bearing off (R14).
            (a, a_off), (b, b_off) = distances

            def fits(x: int, x_off: bool, die: int) -> bool:
                return x == die or (x_off and x < die)

            assert (fits(a, a_off, d1) and fits(b, b_off, d2)) or (
                fits(a, a_off, d2) and fits(b, b_off, d1)
            )
        elif most == 1:
            # R9: the higher die when it can be played.
            ((dist, off),) = distances
            high, low = max(d1, d2), min(d1, d2)
            high_playable = bool(single_steps(mover, opp, high))
            die = high if high_playable else low
            assert dist == die or (off and dist < die), (pos.id, roll, move.steps)
    if most == 0:
        (only,) = moves
        assert only.is_pass and only.result == pos.flipped()  # R10


@SETTINGS
@given(positions, dice)
def test_move_text_plays_back(pos: Position, roll: tuple[int, int]) -> None:
    for move in pos.moves(*roll):
        assert pos.play(move, roll) == move.result
        if not move.is_pass:
            assert pos.play(str(move), roll) == move.result


@SETTINGS
@given(valid_arrays())
def test_position_id_round_trips(array: np.ndarray) -> None:
    pos = Position.from_array(array)
    again = Position.from_id(pos.id)
    assert again == pos
    assert (again.to_array() == array).all()
    # The same ID as GNU Backgammon's, whose board is [not on roll, on roll].
    assert gnubg_nn.position_id([array[1].tolist(), array[0].tolist()]) == pos.id


# --- Invalid input raises the right error class (all BgfastError, ValueError) ---------


@SETTINGS
@given(valid_arrays(), st.integers(0, 1), st.integers(0, 24), st.integers(-1000, -1))
def test_negative_counts_are_invalid(array: np.ndarray, row: int, col: int, value: int) -> None:
    bad = array.astype(np.int64)
    bad[row, col] = value
    with pytest.raises(bgfast.InvalidPositionError):
        Position.from_array(bad)


@SETTINGS
@given(valid_arrays(), st.integers(0, 1), st.integers(0, 24))
def test_more_than_fifteen_is_invalid(array: np.ndarray, row: int, col: int) -> None:
    bad = array.astype(np.int64)
    bad[row, col] += 16 - int(bad[row].sum())
    with pytest.raises(bgfast.InvalidPositionError, match="R1"):
        Position.from_array(bad)


@SETTINGS
@given(st.integers(1, 24))
def test_shared_point_is_invalid(point: int) -> None:
    bad = np.zeros((2, 25), dtype=np.uint8)
    bad[0, point - 1] = 1
    bad[1, 24 - point] = 1  # the same point from the opponent's side
    with pytest.raises(bgfast.InvalidPositionError):
        Position.from_array(bad)


@SETTINGS
@given(st.text(max_size=20))
def test_garbage_ids_are_invalid_positions(text: str) -> None:
    # Either a valid 14-character ID or the expected error; never another exception.
    with contextlib.suppress(bgfast.InvalidPositionError):
        Position.from_id(text)


@SETTINGS
@given(st.integers(-10, 20), st.integers(-10, 20))
def test_dice_out_of_range(d1: int, d2: int) -> None:
    assume(not (1 <= d1 <= 6 and 1 <= d2 <= 6))
    with pytest.raises(bgfast.InvalidDiceError):
        Position().moves(d1, d2)


def test_error_classes_are_value_errors() -> None:
    for cls in (
        bgfast.InvalidPositionError,
        bgfast.InvalidMoveError,
        bgfast.IllegalMoveError,
        bgfast.InvalidDiceError,
        bgfast.GameOverError,
    ):
        assert issubclass(cls, bgfast.BgfastError)
        assert issubclass(cls, ValueError)


@SETTINGS
@given(positions, dice)
def test_wrong_move_is_illegal(pos: Position, roll: tuple[int, int]) -> None:
    # A move of another position is rejected with IllegalMoveError and changes nothing.
    other = Position()
    assume(pos != other)
    move = other.moves(*roll)[0]
    assume(move.result not in {m.result for m in pos.moves(*roll)})
    before = pos.id
    with pytest.raises(bgfast.IllegalMoveError):
        pos.play(move, roll)
    assert pos.id == before


@pytest.mark.parametrize(
    "text", ["24/x", "24", "26/20", "off/3", "3/bar", "7/9", "8/2(5)", "13*/7", "13/7(3) 8/2(2)"]
)
def test_bad_notation_is_invalid_move(text: str) -> None:
    start = Position()
    with pytest.raises(bgfast.InvalidMoveError, match="at character"):
        start.play(text, (6, 5))
    assert start == Position()


NOTATION = st.lists(
    st.sampled_from(["bar", "off", "/", "/", "*", "(2)", " ", *map(str, range(26))]),
    max_size=10,
).map("".join)


@SETTINGS
@given(positions, dice, NOTATION)
def test_any_text_is_legal_or_a_named_error(
    pos: Position, roll: tuple[int, int], text: str
) -> None:
    results = {m.result for m in pos.moves(*roll)}
    try:
        assert pos.play(text, roll) in results
    except bgfast.InvalidMoveError:
        pass  # a syntax error
    except bgfast.IllegalMoveError as e:
        assert str(e).startswith("R"), str(e)  # names the rule broken


def test_text_means_its_result_and_errors_name_the_rule() -> None:
    start = Position()
    target = start.play("24/13", (6, 5))
    assert start.play("24/18/13", (6, 5)) == target
    assert start.play("13/11 13/7", (6, 2)) == start.play("13/7 13/11", (6, 2))
    with pytest.raises(bgfast.IllegalMoveError, match="R8"):
        start.play("24/18", (6, 5))
    with pytest.raises(bgfast.IllegalMoveError, match="R4"):
        start.play("13/4", (6, 4))
