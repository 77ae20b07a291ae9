"""The Position API: construction, codecs, arrays, equality, errors (the foundation issue)."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from rollout_corpus import corpus_ids

import bgfast
from bgfast import Move, Position

from boards import position

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


def test_whitespace_around_an_id_is_ignored() -> None:
    # As the GNUbg ID and XGID readers do: IDs come from file lines and terminals.
    assert Position.from_id(" 4HPwATDgc/ABMA\n") == Position()
    assert Position.from_id("\t4HPwATDgc/ABMA\r\n").id == "4HPwATDgc/ABMA"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "4HPwATDgc/ABM",
        "4HPwATDgc/AB!A",
        "//////////////",
        "4HPwATD gc/ABMA",
        "4HPwATDgc/ABMA\u00a0",
    ],
)
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


# ---------------------------------------------------------------- pickling moves

# (position, roll, what the moves of that roll must include): each kind of step once.
MOVE_CASES: dict[str, tuple[Position, tuple[int, int], Callable[[Move], bool]]] = {
    "ordinary": (Position(), (3, 1), lambda m: not any(hit for _, _, hit in m.steps)),
    "hit (R11)": (position({13: 2, 6: 13}, {15: 1, 1: 14}), (3, 1), lambda m: m.steps[0][2]),
    "bar entry and hit (R12)": (
        position({25: 1, 6: 14}, {1: 2, 3: 1, 24: 12}),
        (3, 2),
        lambda m: any(f == 25 for f, _, _ in m.steps) and any(h for _, _, h in m.steps),
    ),
    "bear-off (R14)": (
        position({1: 2, 2: 3, 5: 1}, {1: 15}),
        (6, 2),
        lambda m: any(t == 0 for _, t, _ in m.steps),
    ),
    "double (R5)": (Position(), (6, 6), lambda m: len(m.steps) == 4),
    "pass (R10)": (
        position({25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3}),
        (6, 5),
        lambda m: m.is_pass,
    ),
}


def assert_same_move(back: Any, m: Move) -> None:
    assert type(back) is Move
    assert back == m and hash(back) == hash(m)
    assert back.steps == m.steps and back.is_pass == m.is_pass
    assert back.origin == m.origin and back.result == m.result
    assert repr(back) == repr(m) and str(back) == str(m)


@pytest.mark.parametrize("case", MOVE_CASES)
def test_moves_pickle_and_copy(case: str) -> None:
    pos, roll, feature = MOVE_CASES[case]
    moves = list(pos.moves(*roll))
    assert any(feature(m) for m in moves), case  # the case shows what it is named for
    for m in moves:
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert_same_move(pickle.loads(pickle.dumps(m, protocol)), m)
        assert_same_move(copy.copy(m), m)
        assert_same_move(copy.deepcopy(m), m)
    assert pickle.loads(pickle.dumps(moves)) == moves


def test_every_move_of_the_corpora_unpickles_to_itself() -> None:
    # Unpickling searches the legal moves again; every generated move must be found.
    for pid in corpus_ids()[::40]:
        pos = Position.from_id(pid)
        for a in range(1, 7):
            for b in range(1, a + 1):
                for m in pos.moves(a, b):
                    assert_same_move(pickle.loads(pickle.dumps(m)), m)


class _Forged:
    """Pickles as a Move would (the same rebuilding function), with a payload of our own."""

    rebuild = Position().moves(3, 1)[0].__reduce__()[0]

    def __init__(self, *payload: object) -> None:
        self.payload = payload

    def __reduce__(self) -> tuple[Any, tuple[object, ...]]:
        return self.rebuild, self.payload


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ((Position(), [(6, 3, True)]), bgfast.IllegalMoveError),  # a hit on an empty point
        ((Position(), [(24, 18, False)]), bgfast.IllegalMoveError),  # half a 6-x (R8)
        ((Position(), [(7, 4, False), (6, 5, False)]), bgfast.IllegalMoveError),  # no checker
        ((Position(), []), bgfast.IllegalMoveError),  # every roll plays from the start (R10)
        ((Position(), [(1, 5, False)]), bgfast.IllegalMoveError),  # backwards
        ((Position(), [(6, 5, False)] * 5), bgfast.BgfastError),  # five steps
        ((Position(), [(300, 0, False)]), bgfast.BgfastError),
        ((Position(), [(6, 5)]), bgfast.BgfastError),
        ((Position(), [(6, 5, 1)]), bgfast.BgfastError),
        ((Position(), "6/5 6/3"), bgfast.BgfastError),
        ((START_ID, [(6, 5, False), (6, 3, False)]), bgfast.BgfastError),
        ((None, None), bgfast.BgfastError),
    ],
)
def test_forged_move_pickles_are_refused(payload: tuple[object, ...], error: type) -> None:
    data = pickle.dumps(_Forged(*payload))
    with pytest.raises(error) as info:
        pickle.loads(data)
    assert isinstance(info.value, bgfast.BgfastError)


def test_a_move_pickle_with_a_bad_origin_id_is_refused() -> None:
    data = pickle.dumps(Position().moves(3, 1)[0]).replace(START_ID.encode(), b"AAAAAAAAAAAAAA")
    with pytest.raises(bgfast.InvalidPositionError):
        pickle.loads(data)
    won = position({}, {1: 15})  # R15: the game is over, so no move and no pass
    with pytest.raises(bgfast.IllegalMoveError):
        pickle.loads(pickle.dumps(_Forged(won, [])))
