"""``VecEnv.step`` and ``VecEnv.step_scores`` refusals say what was given.

``step(None)`` and ``step("abc")`` once said "choices must be a 1-D array ... got shape
[]" (numpy's view of what it made of them), and ``step_scores([2**70] * M)`` said
"scores must be real numbers, not object values" of numbers too large for numpy's
integers. A refused step changes nothing.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import bgfast
from bgfast import BgfastError


@pytest.fixture
def env() -> bgfast.VecEnv:
    e = bgfast.VecEnv(3, seed=1)
    e.reset()
    return e


def _unchanged(env: bgfast.VecEnv, positions: np.ndarray, dice: np.ndarray) -> None:
    assert np.array_equal(env.positions, positions) and np.array_equal(env.dice, dice)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (None, "got None, which is no array of choices"),
        ("abc", "got the str 'abc', text, which is no array of choices"),
        (b"01", "got the bytes b'01', text, which is no array of choices"),
        (3, "got a single int (3), which is no array of choices"),
        (np.int64(1), "got a single int64 (np.int64(1)), which is no array of choices"),
        (np.array(1), "got a 0-D array (array(1)), a single value"),
        ({0, 1, 2}, "got a set ({0, 1, 2}), which is no array of choices"),
    ],
    ids=["None", "str", "bytes", "int", "numpy-int", "0-D array", "set"],
)
def test_step_says_what_it_was_given(env: bgfast.VecEnv, given: object, said: str) -> None:
    positions, dice = env.positions, env.dice
    with pytest.raises(BgfastError) as caught:
        env.step(given)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("choices must be a 1-D array of candidate indices, one per game (3)")
    assert said in message
    assert "shape []" not in message
    _unchanged(env, positions, dice)


def test_step_still_reads_lists_and_arrays(env: bgfast.VecEnv) -> None:
    twin = bgfast.VecEnv(3, seed=1)
    twin.reset()
    rewards, done = env.step([0, 0, 0])
    rewards2, done2 = twin.step(np.zeros(3, dtype=np.int32))
    assert np.array_equal(rewards, rewards2) and np.array_equal(done, done2)
    with pytest.raises(BgfastError, match=r"expected 3 choices \(one per game\), got 2"):
        env.step([0, 0])


def _m(env: bgfast.VecEnv) -> int:
    features, _ = env.candidates()
    return len(features)


@pytest.mark.parametrize("sign", [1, -1])
def test_step_scores_says_integers_beyond_64_bits_are_not_float64(
    env: bgfast.VecEnv, sign: int
) -> None:
    positions, dice = env.positions, env.dice
    with pytest.raises(BgfastError) as caught:
        env.step_scores([sign * 2**70] * _m(env))
    message = str(caught.value)
    assert "object values" not in message
    assert re.search(r"the score at row 0 \(-?1180591620717411303424\) is an integer", message)
    assert "beyond 64 bits" in message and "float64" in message
    assert "does not represent exactly" in message
    _unchanged(env, positions, dice)


def test_step_scores_names_the_row_of_the_big_one(env: bgfast.VecEnv) -> None:
    m = _m(env)
    with pytest.raises(BgfastError, match=rf"the score at row {m - 1} \(1180591620717411303424\)"):
        env.step_scores([1] * (m - 1) + [2**70])


def test_step_scores_says_a_number_too_large_for_float64(env: bgfast.VecEnv) -> None:
    with pytest.raises(BgfastError, match="is too large for float64") as caught:
        env.step_scores([10**400] * _m(env))
    assert "object values" not in str(caught.value)
    assert "<an int of 1329 bits>" in str(caught.value)


@pytest.mark.parametrize(
    ("bad", "said"),
    [(None, "not None"), (True, "not True"), ("x", "not 'x'")],
)
def test_step_scores_names_a_value_that_is_no_number(
    env: bgfast.VecEnv, bad: object, said: str
) -> None:
    # Mixed with a huge int, numpy keeps every score as a Python object.
    scores = [2**70] * _m(env)
    scores[1] = bad  # type: ignore[call-overload]
    with pytest.raises(
        BgfastError, match=rf"scores must be real numbers, {said} \(the score at row 1\)"
    ):
        env.step_scores(scores)


def test_an_explicit_object_array_of_numbers_is_named_as_such(env: bgfast.VecEnv) -> None:
    with pytest.raises(BgfastError, match=r"not of Python objects \(dtype object\)"):
        env.step_scores(np.ones(_m(env), dtype=object))


def test_segment_argmax_gives_the_same_messages() -> None:
    with pytest.raises(BgfastError, match="beyond 64 bits"):
        bgfast.segment_argmax([2**70, 1], np.array([0, 2]))


def test_ordinary_scores_still_play(env: bgfast.VecEnv) -> None:
    rewards, done = env.step_scores(np.arange(_m(env), dtype=np.float64))
    assert rewards.shape == (3,) and done.shape == (3,)
