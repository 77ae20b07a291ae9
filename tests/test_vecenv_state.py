"""A VecEnv pickled or copied plays on exactly as the original (a training run checkpoints
its games); a damaged state is refused."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bgfast


def steps(env: bgfast.VecEnv, count: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    """``count`` steps of random choices and of the env's own ``"random"`` policy in
    turn; everything each step shows."""
    rng = np.random.default_rng(seed)
    seen = []
    for k in range(count):
        features, offsets = env.candidates()
        mine = rng.integers(0, np.diff(offsets))
        choice = env.policy_choices("random") if k % 2 else mine
        rewards, done = env.step(choice)
        seen.append(
            (features, rewards, done, env.final_positions, env.truncated, env.positions, env.dice)
        )
    return seen


def assert_same(a: list[tuple[np.ndarray, ...]], b: list[tuple[np.ndarray, ...]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


def test_a_pickled_env_plays_on_exactly() -> None:
    env = bgfast.VecEnv(6, seed=13, scheme="wildbg")
    steps(env, 151, seed=1)  # games have ended and started again
    copied = pickle.loads(pickle.dumps(env))
    assert (copied.n, copied.seed, copied.scheme) == (env.n, env.seed, env.scheme)
    for name in ("positions", "dice", "players", "final_positions", "truncated"):
        np.testing.assert_array_equal(getattr(copied, name), getattr(env, name))
    np.testing.assert_array_equal(copied.observe(), env.observe())
    assert_same(steps(copied, 300, seed=2), steps(env, 300, seed=2))
    # reset goes back to game 0 of the same seed, as a new env does.
    copied.reset()
    np.testing.assert_array_equal(copied.positions, bgfast.VecEnv(6, seed=13).positions)


def test_copies_are_independent() -> None:
    env = bgfast.VecEnv(4, seed=5)
    steps(env, 40, seed=3)
    shallow, deep = copy.copy(env), copy.deepcopy(env)
    before = env.positions.copy()
    steps(shallow, 10, seed=4)
    np.testing.assert_array_equal(env.positions, before)
    assert_same(steps(deep, 50, seed=6), steps(env, 50, seed=6))


def test_a_pickle_taken_between_candidates_and_step_plays_the_same_choice() -> None:
    env = bgfast.VecEnv(3, seed=2)
    steps(env, 7, seed=1)
    _, offsets = env.candidates()
    copied = pickle.loads(pickle.dumps(env))
    choice = np.diff(offsets) - 1  # the last candidate of each game
    assert_same([copied.step(choice)], [env.step(choice)])
    np.testing.assert_array_equal(copied.positions, env.positions)


def _state(env: bgfast.VecEnv) -> dict[str, Any]:
    return env.__getstate__()


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda s: s.update(version=2), "state version 2"),
        (lambda s: s.update(scheme="nope"), "unknown feature scheme 'nope'"),
        (lambda s: s.update(batch=s["batch"][:24] + bytes(8)), "a batch holds 1 to"),
        (lambda s: s.update(draws=1.5), "draws"),
        (lambda s: s.update(batch=s["batch"][:-1]), "bytes for 2 games"),
        (lambda s: s.update(batch=b"x" * 40), "does not start as"),
        (lambda s: s.update(batch="text"), "damaged VecEnv state"),
        (lambda s: s.pop("batch"), "missing field 'batch'"),
    ],
)
def test_a_damaged_state_is_refused(edit: Any, said: str) -> None:
    env = bgfast.VecEnv(2, seed=1)
    state = _state(env)
    edit(state)
    fresh = bgfast.VecEnv.__new__(bgfast.VecEnv)
    with pytest.raises(bgfast.InvalidSaveError, match="damaged VecEnv state") as error:
        fresh.__setstate__(state)
    assert said in str(error.value)


def test_a_state_that_is_no_dict_is_refused() -> None:
    fresh = bgfast.VecEnv.__new__(bgfast.VecEnv)
    with pytest.raises(bgfast.InvalidSaveError):
        fresh.__setstate__([1, 2])  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_changed_bytes_are_refused_or_play_on(data: st.DataObject) -> None:
    env = bgfast.VecEnv(2, seed=3)
    steps(env, 9, seed=1)
    state = _state(env)
    raw = bytearray(state["batch"])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    state["batch"] = bytes(raw)
    fresh = bgfast.VecEnv.__new__(bgfast.VecEnv)
    try:
        fresh.__setstate__(state)
    except bgfast.InvalidSaveError:
        return
    steps(fresh, 3, seed=2)  # whatever was taken is a batch that plays by the rules


class _Counting(bgfast.VecEnv):
    """A training script's env with an attribute of its own."""

    def __init__(self, n: int, seed: int = 0) -> None:
        super().__init__(n, seed)
        self.episodes = 7


def test_a_subclass_and_its_attributes_survive_a_pickle() -> None:
    env = _Counting(3, seed=1)
    steps(env, 5, seed=1)
    copied = pickle.loads(pickle.dumps(env))
    assert type(copied) is _Counting and copied.episodes == 7
    assert copy.deepcopy(env).episodes == 7


def test_a_game_cut_off_at_the_ply_cap_is_truncated_after_a_load() -> None:
    env = bgfast.VecEnv(2, seed=4)
    steps(env, 3, seed=1)
    state = env.__getstate__()
    raw = bytearray(state["batch"])
    # Game 0's ply count (header 32 bytes; a slot's key 10, generator 32, dice 2): one ply
    # short of bgfast.vecenv.MAX_PLIES, so that the next step cuts it off.
    raw[76:80] = (bgfast.vecenv.MAX_PLIES - 1).to_bytes(4, "little")
    forged = bgfast.VecEnv.__new__(bgfast.VecEnv)
    forged.__setstate__({**state, "batch": bytes(raw)})
    _, offsets = forged.candidates()
    rewards, done = forged.step(np.zeros(len(offsets) - 1, dtype=np.int64))
    assert done[0] and rewards[0] == 0 and forged.truncated[0]
    loaded = pickle.loads(pickle.dumps(forged))
    np.testing.assert_array_equal(loaded.truncated, forged.truncated)
    np.testing.assert_array_equal(loaded.final_positions, forged.final_positions)


def test_scores_that_are_real_numbers_of_another_type_say_how_to_convert_them() -> None:
    from fractions import Fraction

    env = bgfast.VecEnv(2, seed=1)
    features, _ = env.candidates()
    with pytest.raises(
        bgfast.BgfastError, match=r"a Fraction .*numpy.asarray\(scores, dtype=float\)"
    ):
        env.step_scores([Fraction(1, 2)] * len(features))
