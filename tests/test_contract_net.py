"""Contract tests of ``bgfast.Net`` and ``bgfast.duel``.

Counts are taken exactly or refused as ``InvalidPositionError``; bad layers, bad bytes and
bad files are an ``InvalidNetError``; a bad argument is a ``BgfastError`` (``TypeError``
for a wrong Python type). Never a panic, never a bare ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from contract_support import (
    CONTRACT,
    LIVE,
    check,
    count_arrays,
    positions,
    rejects,
    threads_ok,
    threads_values,
    valid_counts,
)
from hypothesis import given
from hypothesis import strategies as st

import bgfast
from bgfast import InvalidNetError, InvalidPositionError, Net, Position

WILDBG = Net.wildbg()
FILE = WILDBG.to_bytes()


def _valid(exact: Any, single: bool) -> bool:
    rows = [exact] if single else exact
    return all(valid_counts(r) and all(0 <= c <= 255 for side in r for c in side) for r in rows)


@CONTRACT
@given(count_arrays())
def test_evaluate_takes_exact_counts_or_refuses(case: tuple[np.ndarray, list[Any]]) -> None:
    array, exact = case
    outcome = check(lambda: WILDBG.evaluate(array, threads=1))
    if _valid(exact, single=False):
        assert outcome.ok, outcome.error
        want = WILDBG.evaluate(np.array(exact, dtype=np.uint8).reshape(-1, 2, 25), threads=1)
        np.testing.assert_array_equal(outcome.value, want)
    else:
        assert isinstance(outcome.error, InvalidPositionError), outcome.error


@CONTRACT
@given(count_arrays(rows=0))
def test_equity_of_one_array(case: tuple[np.ndarray, list[Any]]) -> None:
    array, exact = case
    outcome = check(lambda: WILDBG.equity(array))
    if _valid(exact, single=True):
        assert outcome.ok and isinstance(outcome.value, float), outcome.error
    else:
        assert isinstance(outcome.error, InvalidPositionError), outcome.error


@CONTRACT
@given(threads_values)
def test_threads(threads: Any) -> None:
    outcome = check(lambda: WILDBG.evaluate(LIVE[:3], threads=threads))
    assert outcome.ok == threads_ok(threads), outcome.error


@CONTRACT
@given(positions, st.tuples(st.integers(-2, 8), st.integers(-2, 8)))
def test_rank_and_best_move(pos: Position, dice: tuple[int, int]) -> None:
    ranked = check(lambda: WILDBG.rank(pos, dice))
    best = check(lambda: WILDBG.best_move(pos, dice))
    assert ranked.ok == best.ok
    if ranked.ok:
        assert ranked.value[0][0].result == best.value.result
        assert len(ranked.value) == len(pos.moves(*dice))
    else:
        assert isinstance(ranked.error, (bgfast.InvalidDiceError, bgfast.GameOverError))


@CONTRACT
@given(st.integers(0, len(FILE) - 1), st.integers(1, 255))
def test_every_damaged_byte_is_refused(offset: int, flip: int) -> None:
    damaged = bytearray(FILE)
    damaged[offset] ^= flip
    rejects(lambda: Net.from_bytes(bytes(damaged)), InvalidNetError)


@CONTRACT
@given(st.binary(max_size=200))
def test_random_bytes_are_refused(data: bytes) -> None:
    rejects(lambda: Net.from_bytes(data), InvalidNetError)


_SHAPES = st.tuples(st.integers(0, 8), st.integers(0, 260))
_ACTIVATIONS = st.sampled_from(["tanh", "sigmoid", "relu", "identity", "softmax", "gelu", ""])


@st.composite
def layer_lists(draw: st.DrawFn) -> list[tuple[Any, Any, Any]]:
    layers = []
    for _ in range(draw(st.integers(0, 3))):
        rows, cols = draw(_SHAPES)
        w = np.full((rows, cols), draw(st.sampled_from([0.1, np.nan, np.inf, -1.0])))
        b = np.zeros(draw(st.integers(0, 8)))
        layers.append((w, b, draw(_ACTIVATIONS)))
    return layers


@CONTRACT
@given(layer_lists(), st.sampled_from(["wildbg", "board", "pubeval"]))
def test_from_arrays_builds_or_names_the_problem(layers: list[Any], inputs: str) -> None:
    outcome = check(lambda: Net.from_arrays(layers, inputs=inputs))
    if outcome.ok:
        net = outcome.value
        assert net.evaluate(LIVE[:2]).shape == (2, 5)
    else:
        assert isinstance(outcome.error, InvalidNetError), outcome.error


@CONTRACT
@given(
    st.sampled_from(["wildbg", "pubeval", "race", "random", "gnubg", 3, None]),
    st.integers(-2, 6),
)
def test_duel_arguments(policy: Any, games: int) -> None:
    outcome = check(lambda: bgfast.duel(policy, "random", games=games, seed=1, threads=1))
    good = policy in ("wildbg", "pubeval", "race", "random") and games >= 2 and games % 2 == 0
    assert outcome.ok == good, outcome.error
    if good:
        assert outcome.value.games == games
