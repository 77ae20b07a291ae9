"""Each kind of failure of the native layer raises its one exception class.

The bindings map every failure (the variants of their `Error` type) to a class in one
match; this file triggers each reachable variant and asserts the exact class, so a mapping
cannot drift. The classes form one family: every bad input is a `bgfast.BgfastError` (a
`ValueError`), except a value of the wrong Python type (`TypeError`) and a result too large
for memory (`MemoryError`, tested in test_hardening.py).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import bgfast
from bgfast import Position, batch
from bgfast._core import GameBatch, OneSidedTable

START = Position()
OVER = Position.from_array([[1] + [0] * 24, [0] * 25])  # the opponent has borne off all 15


def nan_scores() -> None:
    env = GameBatch.env(2, 1)
    features, _ = env.candidates("pubeval")
    env.step_scores(np.full(len(features), np.nan, dtype=np.float32))


def wrong_length_scores() -> None:
    GameBatch.env(2, 1).step_scores(np.zeros(1, dtype=np.float32))


def no_such_choice() -> None:
    GameBatch.env(2, 1).step(np.array([0, 10**6]))


def raising_progress() -> None:
    def progress(done: int, total: int) -> None:
        raise LookupError("from the callback")

    OneSidedTable.build(threads=1, progress=progress)


#: (variant, call, exact class, message fragment)
MAPPINGS: list[tuple[str, Callable[[], Any], type[BaseException], str]] = [
    ("Position", lambda: Position.from_array([[16] + [0] * 24, [0] * 25]),
     bgfast.InvalidPositionError, "R1"),
    ("Id", lambda: Position.from_id("not an id!!!!!"), bgfast.InvalidPositionError,
     "Position ID"),
    ("Dice", lambda: START.moves(0, 1), bgfast.InvalidDiceError, "from 1 to 6"),
    ("Shape", lambda: Position.from_array(np.zeros((2, 24), dtype=np.uint8)),
     bgfast.InvalidPositionError, "shape (2, 25)"),
    ("Type", lambda: batch.ids([START], threads=1.5), TypeError, "threads must be an int"),
    ("GameOver", lambda: OVER.moves(3, 1), bgfast.GameOverError, "R15"),
    ("Illegal", lambda: START.play(START.moves(6, 5)[0], (3, 1)), bgfast.IllegalMoveError,
     ""),
    ("IllegalMove", lambda: START.play("24/18", (3, 1)), bgfast.IllegalMoveError, "R"),
    ("Syntax", lambda: START.play("8//5", (3, 1)), bgfast.InvalidMoveError, ""),
    ("Argument: threads", lambda: batch.ids([START], threads=0), bgfast.BgfastError,
     "threads must be from 1 to 256"),
    ("Argument: scheme", lambda: GameBatch.env(2, 1).candidates("nope"), bgfast.BgfastError,
     "unknown feature scheme"),
    ("Argument: policy", lambda: bgfast._core.RolloutPlan(
        [(START, "position")], (1, "centred", 32768), ("money", False, False), 1, True, None, None,
        False, None, None, "nope"), bgfast.BgfastError, "unknown policy"),
    ("Argument: depth", lambda: bgfast.perft(START, 8), bgfast.BgfastError, "depth"),
    ("Step: choice", no_such_choice, bgfast.IllegalMoveError, "R8"),
    ("Step: length", wrong_length_scores, bgfast.BgfastError, "expected"),
    ("Step: NaN", nan_scores, bgfast.BgfastError, "NaN"),
    ("Row", lambda: batch.ids(np.zeros((2, 2, 25), dtype=np.uint8)),
     bgfast.InvalidPositionError, "row 0: "),
    ("Bearoff: beyond R1", lambda: bgfast.bearoff.index([8, 8, 0, 0, 0, 0]),
     bgfast.InvalidPositionError, "R1"),
    ("Bearoff: range", lambda: bgfast.bearoff.position(54_264), bgfast.BearoffRangeError,
     "54264"),
    ("BearoffFile", lambda: OneSidedTable.from_bytes(b"not a table"),
     bgfast.BearoffFileError, ""),
    ("Python", raising_progress, LookupError, "from the callback"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        pytest.param(call, error, fragment, id=variant)
        for variant, call, error, fragment in MAPPINGS
    ],
)
def test_each_failure_raises_its_class(
    call: Callable[[], Any], error: type[BaseException], fragment: str
) -> None:
    with pytest.raises(BaseException) as info:
        call()
    assert type(info.value) is error, f"{type(info.value).__name__}: {info.value}"
    assert fragment in str(info.value)


def test_rule_ids_are_attributes_of_illegal_moves() -> None:
    with pytest.raises(bgfast.IllegalMoveError) as info:
        START.play("24/18", (3, 1))
    assert info.value.rule == "R4"
    with pytest.raises(bgfast.IllegalMoveError) as step:
        no_such_choice()
    assert step.value.rule == "R8"


def test_the_family() -> None:
    for error in (
        bgfast.InvalidPositionError,
        bgfast.InvalidMoveError,
        bgfast.IllegalMoveError,
        bgfast.InvalidDiceError,
        bgfast.GameOverError,
        bgfast.BearoffRangeError,
        bgfast.BearoffFileError,
        bgfast.InvalidSaveError,
        bgfast.InvalidIdError,
        bgfast.GameStateError,
        bgfast.MatchOptionError,
        bgfast.ShardError,
    ):
        assert issubclass(error, bgfast.BgfastError)
    assert issubclass(bgfast.BgfastError, ValueError)
