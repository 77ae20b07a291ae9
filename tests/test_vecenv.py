"""VecEnv: whole games in numpy arrays, auto-reset, reproducible, rules respected."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import bgfast
from bgfast.vecenv import segment_argmax


def play(env: bgfast.VecEnv, steps: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Random choices for ``steps`` steps, yielding ``(rewards, done)`` after each."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        _, offsets = env.candidates()
        yield env.step(rng.integers(0, np.diff(offsets)))


def test_games_end_with_fifteen_off_for_the_winner_r15_r16() -> None:
    env = bgfast.VecEnv(16, seed=1)
    env.reset()
    ended = 0
    for rewards, done in play(env, 400, seed=1):
        finals = env.final_positions[done]
        ended += int(done.sum())
        for final, reward in zip(finals, rewards[done]):
            # The loser is on roll (row 0); the winner, row 1, has borne off all 15 (R15).
            assert final[1].sum() == 0 and final[0].sum() > 0
            loser_off = 15 - int(final[0].sum())
            kind = 1 if loser_off else (3 if final[0, 18:].sum() else 2)
            assert abs(int(reward)) == kind  # single, gammon, backgammon (R16)
        assert not rewards[~done].any()
    assert ended > 20


def test_reward_sign_follows_the_first_player() -> None:
    env = bgfast.VecEnv(8, seed=2)
    rng = np.random.default_rng(2)
    for _ in range(300):
        _, offsets = env.candidates()
        players = env.players.copy()
        rewards, done = env.step(rng.integers(0, np.diff(offsets)))
        # Only the player who just moved can have won: player 0 wins positive rewards.
        for p, r in zip(players[done], rewards[done]):
            assert (r > 0) == (p == 0)


def test_same_seed_same_games() -> None:
    a = bgfast.VecEnv(5, seed=7)
    b = bgfast.VecEnv(5, seed=7)
    for (ra, da), (rb, db) in zip(list(play(a, 150, 3)), list(play(b, 150, 3))):
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    np.testing.assert_array_equal(a.positions, b.positions)
    a.reset()
    c = bgfast.VecEnv(5, seed=7)
    np.testing.assert_array_equal(a.positions, c.positions)
    np.testing.assert_array_equal(a.dice, c.dice)


def test_opening_rolls_are_never_doubles_r3() -> None:
    env = bgfast.VecEnv(200, seed=3)
    dice = env.dice
    assert (dice[:, 0] != dice[:, 1]).all()


def test_candidates_layout_and_step_scores() -> None:
    env = bgfast.VecEnv(4, seed=4)
    features, offsets = env.candidates()
    assert features.shape == (offsets[-1], 198) and features.dtype == np.float32
    assert offsets.shape == (5,) and (np.diff(offsets) >= 1).all()
    # The chooser's view: row 1 (the opponent) is on roll next.
    assert (features[:, 196] == 0).all() and (features[:, 197] == 1).all()
    scores = np.random.default_rng(0).random(offsets[-1])
    choice = segment_argmax(scores, offsets)
    expected = [int(np.argmax(scores[a:b])) for a, b in zip(offsets[:-1], offsets[1:])]
    assert choice.tolist() == expected
    twin = bgfast.VecEnv(4, seed=4)
    twin.candidates()
    env.step(choice)
    twin.step_scores(scores)
    np.testing.assert_array_equal(env.positions, twin.positions)
    obs = env.observe()
    assert obs.shape == (4, 198) and (obs[:, 196] == 1).all()


def test_bad_choice_raises_and_changes_nothing() -> None:
    env = bgfast.VecEnv(3, seed=5)
    before = env.positions.copy()
    _, offsets = env.candidates()
    with pytest.raises(bgfast.IllegalMoveError, match="game 1"):
        env.step([0, int(np.diff(offsets)[1]), 0])
    with pytest.raises(bgfast.BgfastError, match="choices"):
        env.step([0, 0])
    np.testing.assert_array_equal(env.positions, before)
    with pytest.raises(bgfast.BgfastError):
        bgfast.VecEnv(0)


def test_candidate_positions_are_seen_by_the_chooser_like_candidates() -> None:
    """candidate_positions() gave the results with the opponent on roll (row 0), while
    candidates() describes them as the player choosing sees them."""
    env = bgfast.VecEnv(6, seed=5)
    for _ in range(20):
        features, offsets = env.candidates()
        results = env.candidate_positions()
        assert len(results) == len(features) == offsets[-1]
        for game in range(env.n):
            pos = bgfast.Position.from_array(env.positions[game])
            dice = tuple(int(d) for d in env.dice[game])
            expected = {m.result.flipped() for m in pos.moves(dice)}
            rows = results[offsets[game] : offsets[game + 1]]
            assert {bgfast.Position.from_array(r) for r in rows} == expected
            # Row 0 is the chooser: the checkers of the side that was on roll.
            assert all(int(r[0].sum()) <= int(env.positions[game][0].sum()) for r in rows)
        env.step(np.zeros(env.n, dtype=np.int64))


def test_segment_argmax_is_exported_where_the_docs_use_it() -> None:
    assert bgfast.segment_argmax is segment_argmax and "segment_argmax" in bgfast.__all__
    assert bgfast.vecenv.__doc__ is not None
    assert "bgfast.segment_argmax(scores, offsets)" in bgfast.vecenv.__doc__


def test_candidates_are_seen_from_the_side_each_scheme_says() -> None:
    # The docs said every scheme saw them from the chooser; position evaluators' schemes
    # see them as they stand, the opponent on roll (as in rollouts).
    for scheme in ("board", "wildbg", "wildbg-race", "pubeval", "tesauro198"):
        env = bgfast.VecEnv(8, seed=2, scheme=scheme)
        features, _ = env.candidates()
        chooser = env.candidate_positions()
        if scheme in ("pubeval", "tesauro198"):
            expected = bgfast.encode(chooser, scheme)
            if scheme == "tesauro198":
                expected[:, 196:198] = [0.0, 1.0]  # the player who just moved
        else:
            expected = bgfast.encode(np.ascontiguousarray(chooser[:, ::-1]), scheme)
        np.testing.assert_array_equal(features, expected, err_msg=scheme)


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint8, np.int8, np.int64])
def test_segment_argmax_refuses_falling_offsets_of_any_integer_dtype(dtype: type) -> None:
    # np.diff of unsigned offsets wraps around: [0, 3, 2, 4] passed the check and numpy
    # raised its own "repeats may not contain negative values".
    with pytest.raises(bgfast.BgfastError, match="offsets must rise"):
        segment_argmax(np.arange(4.0), np.array([0, 3, 2, 4], dtype=dtype))
    assert list(segment_argmax(np.arange(4.0), np.array([0, 3, 4], dtype=dtype))) == [2, 0]
