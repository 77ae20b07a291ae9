"""The Position API: construction, codecs, arrays, equality, errors (the foundation issue)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import bgfast
from bgfast import Position

START_ID = "4HPwATDgc/ABMA"


def test_start_position() -> None:
    start = Position()
    assert start.id == START_ID
    assert start.pips == (167, 167)
    assert not start.is_race
    assert start.outcome is None
    assert start.off == (0, 0)


def test_array_layout_and_round_trip() -> None:
    array = Position().to_array()
    assert array.shape == (2, 25) and array.dtype == np.uint8
    assert array[0, 5] == 5 and array[0, 23] == 2 and array[0, 24] == 0
    assert Position.from_array(array) == Position()
    assert Position.from_array(array.astype(np.int64).tolist()) == Position()


def test_equality_hash_repr_pickle() -> None:
    a, b = Position(), Position.from_id(START_ID)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert eval(repr(a), {"Position": Position}) == a
    assert pickle.loads(pickle.dumps(a)) == a
    moved = a.moves(3, 1)[0].result
    assert moved != a and moved.flipped() != moved


def test_moves_results_have_the_opponent_to_move() -> None:
    for move in Position().moves(6, 5):
        assert move.result.pips[1] == 167 - 11
        assert move.result.pips[0] == 167
        assert move.origin == Position()


def test_play_accepts_moves_and_text() -> None:
    start = Position()
    move = start.moves(3, 1)[0]
    assert start.play(move, (3, 1)) == move.result
    assert start.play("8/5 6/5", (1, 3)).id == "sGfwATDgc/ABMA"
    with pytest.raises(bgfast.IllegalMoveError):
        start.play("24/18", (3, 1))
    with pytest.raises(bgfast.IllegalMoveError):
        start.play(move, (6, 5))


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), (3, -1)])
def test_invalid_dice(dice: tuple[int, int]) -> None:
    with pytest.raises(bgfast.InvalidDiceError, match="1 to 6"):
        Position().moves(*dice)


def test_invalid_arrays_name_every_violation() -> None:
    bad = np.zeros((2, 25), dtype=np.int64)
    bad[0, 0] = 16  # 16 checkers
    bad[1, 23] = 1  # the opponent's 24-point is the mover's 1-point: shared
    bad[1, 24] = -1
    with pytest.raises(bgfast.InvalidPositionError) as info:
        Position.from_array(bad)
    message = str(info.value)
    assert "16 checkers" in message and "point 1" in message and "negative" in message
    with pytest.raises(bgfast.InvalidPositionError, match=r"shape \(2, 25\)"):
        Position.from_array(np.zeros((2, 24), dtype=np.uint8))
    assert issubclass(bgfast.InvalidPositionError, ValueError)


@pytest.mark.parametrize("text", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"])
def test_invalid_ids(text: str) -> None:
    with pytest.raises(bgfast.InvalidPositionError):
        Position.from_id(text)


def test_position_ids_from_gnubg_file() -> None:
    """Every row of formats/position_ids.tsv (made by GNU Backgammon) decodes and re-encodes."""
    from pathlib import Path

    rows = (Path(__file__).parent / "data" / "formats" / "position_ids.tsv").read_text()
    checked = 0
    for line in rows.splitlines():
        if line.startswith("#") or line.startswith("description") or not line.strip():
            continue
        _, on_roll, opponent, pid, *_ = line.split("\t")
        counts = [[int(x) for x in on_roll.split(",")], [int(x) for x in opponent.split(",")]]
        if sum(counts[0]) == 0 and sum(counts[1]) == 0:
            with pytest.raises(bgfast.InvalidPositionError, match="R15"):
                Position.from_id(pid)
            continue
        pos = Position.from_id(pid)
        assert pos.to_array().tolist() == counts, pid
        assert Position.from_array(counts).id == pid
        checked += 1
    assert checked > 10


def test_perft_depths_1_and_2() -> None:
    assert bgfast.perft(Position(), 1) == 447
    assert bgfast.perft(Position(), 2) == 202_782


def test_cli_lists_moves(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    assert main(["moves", START_ID, "31"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16
    assert any(line.split()[-1] == "sGfwATDgc/ABMA" for line in lines)
    assert main(["moves", "not-an-id", "31"]) == 2


@pytest.mark.parametrize(
    ("text", "dice", "rule"),
    [
        ("24/18", (6, 5), "R8"),  # only one die of 6-5 played although both can be
        ("13/7 13/8 6/1", (6, 5), "R4"),  # more pips than the dice
        ("6/off", (6, 5), "R13"),  # bearing off from the start
    ],
)
def test_play_names_the_rule_broken(text: str, dice: tuple[int, int], rule: str) -> None:
    with pytest.raises(bgfast.IllegalMoveError, match=rule) as info:
        Position().play(text, dice)
    assert info.value.rule == rule


@pytest.mark.parametrize("text", ["24-18", "24/18/", "26/20", "off/3", "8/2(5)"])
def test_play_rejects_bad_notation(text: str) -> None:
    with pytest.raises(bgfast.InvalidMoveError):
        Position().play(text, (6, 5))


def test_move_text_round_trips_for_every_opening_move() -> None:
    start = Position()
    for a in range(1, 7):
        for b in range(1, a + 1):
            for move in start.moves(a, b):
                assert start.play(str(move), (a, b)) == move.result, str(move)


def test_a_move_of_another_position_is_refused() -> None:
    move = Position().moves(3, 1)[0]
    with pytest.raises(bgfast.IllegalMoveError, match="another position"):
        move.result.play(move, (3, 1))
