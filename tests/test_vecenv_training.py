"""VecEnv in a training loop: the random policy's own seeded stream, games cut off at the
ply cap (``truncated``), ``final_positions`` rows and the reward's perspective."""

from __future__ import annotations

import itertools

import numpy as np

import bgfast
from bgfast import Net, VecEnv
from bgfast.vecenv import MAX_PLIES


def _shared_picks(
    a: np.ndarray, b: np.ndarray, counts_a: np.ndarray, counts_b: np.ndarray
) -> float:
    """The share of equal picks among games offering both envs the same number (> 1) of
    candidates: near 1 / count by chance, 1.0 when the two draws are one stream."""
    same = (counts_a == counts_b) & (counts_a > 1)
    assert same.sum() > 100
    return float(np.mean(a[same] == b[same]))


# ------------------------------------------------------------------ 1: the random policy


def test_random_picks_of_neighbouring_seeds_share_no_stream_at_any_call_offset() -> None:
    """``seed + call`` made the env seeded 1 draw on its call c + 1 what the env seeded 2
    drew on its call c: workers seeded 0, 1, 2, ... explored with shifted copies."""
    n, calls = 4096, 4
    one, two = VecEnv(n, seed=1), VecEnv(n, seed=2)
    counts_one, counts_two = np.diff(one.candidates()[1]), np.diff(two.candidates()[1])
    picks_one = [one.policy_choices("random") for _ in range(calls)]
    picks_two = [two.policy_choices("random") for _ in range(calls)]
    for i, j in itertools.product(range(calls), repeat=2):
        share = _shared_picks(picks_one[i], picks_two[j], counts_one, counts_two)
        assert share < 0.5, f"seed 1 call {i} and seed 2 call {j} share {share:.0%} of picks"
    # Nor does one env repeat itself from call to call.
    for i, j in itertools.combinations(range(calls), 2):
        assert _shared_picks(picks_one[i], picks_one[j], counts_one, counts_one) < 0.5


def test_random_picks_follow_the_documented_seed() -> None:
    env = VecEnv(64, seed=2**64 - 1)
    for call in range(3):
        seed = np.random.SeedSequence([2**64 - 1, call]).generate_state(1, np.uint64)[0]
        expected = env._batch.policy_choices("random", int(seed))
        np.testing.assert_array_equal(env.policy_choices("random"), expected)


def test_a_reset_env_picks_as_a_fresh_one() -> None:
    env = VecEnv(256, seed=5)
    first = [env.policy_choices("random") for _ in range(3)]
    for _ in range(20):
        env.step_policy("random")
    env.reset()
    fresh = VecEnv(256, seed=5)
    for i in range(3):
        np.testing.assert_array_equal(env.policy_choices("random"), first[i])
    for _ in range(3):
        fresh.policy_choices("random")
    for _ in range(40):
        ra, da = env.step_policy("random")
        rb, db = fresh.step_policy("random")
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    np.testing.assert_array_equal(env.positions, fresh.positions)


def test_same_seed_same_random_games() -> None:
    a, b = VecEnv(128, seed=9), VecEnv(128, seed=9)
    for _ in range(200):
        ra, da = a.step_policy("random")
        rb, db = b.step_policy("random")
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    np.testing.assert_array_equal(a.positions, b.positions)
    np.testing.assert_array_equal(a.dice, b.dice)


def test_random_policy_calls_leave_the_games_dice_as_they_were() -> None:
    """The dice come from (seed, game number) alone: drawing random picks in between
    changes nothing of the games played."""
    drawing, plain = VecEnv(64, seed=3), VecEnv(64, seed=3)
    for _ in range(300):
        for _ in range(2):
            drawing.policy_choices("random")
        np.testing.assert_array_equal(drawing.dice, plain.dice)
        ra, da = drawing.step_policy("pubeval")
        rb, db = plain.step_policy("pubeval")
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    np.testing.assert_array_equal(drawing.positions, plain.positions)
    assert da.dtype == np.bool_


# ------------------------------------------------------------------ 2: the ply cap


def _never_bear_off(env: VecEnv) -> np.ndarray:
    """Scores for a policy that never bears off, hits whenever it can and leaves blots:
    its games never finish."""
    cp = env.candidate_positions().astype(np.int64)
    off = 15 - cp[:, 0].sum(1)
    opponent_pips = (cp[:, 1] * np.arange(1, 26)).sum(1)
    blots = (cp[:, 0, :24] == 1).sum(1)
    return -off * 1e9 + opponent_pips * 1e4 + blots * 100


def test_a_game_at_the_ply_cap_is_truncated_unfinished() -> None:
    env = VecEnv(2, seed=1)
    plies, done = 0, np.zeros(2, dtype=np.bool_)
    while not done.any() and plies <= MAX_PLIES:
        assert not env.truncated.any()
        rewards, done = env.step_scores(_never_bear_off(env))
        plies += 1
    assert plies == MAX_PLIES and done.all()
    assert (rewards == 0).all() and env.truncated.all()
    finals = env.final_positions[done]
    # Unfinished: both sides still have all 15 on the board; nobody lost.
    assert (finals.sum(axis=2) == 15).all()
    for final in finals:
        bgfast.Position.from_array(final)  # a valid position
    # The games started again; the next step clears the mark.
    np.testing.assert_array_equal(env.positions, _start(2))
    env.step_scores(_never_bear_off(env))
    assert not env.truncated.any()


def _start(n: int) -> np.ndarray:
    return np.broadcast_to(bgfast.Position().to_array(), (n, 2, 25))


def test_finished_games_are_never_truncated() -> None:
    env = VecEnv(256, seed=4)
    ended = 0
    for _ in range(300):
        rewards, done = env.step_policy("random")
        ended += int(done.sum())
        assert not env.truncated.any()
        assert (np.abs(rewards[done].astype(np.int64)) >= 1).all()
        assert not rewards[~done].any()
    assert ended > 100


def test_truncated_is_done_with_reward_zero() -> None:
    """The computation on a constructed step: only done games with reward 0 are cut off."""
    env = VecEnv(4, seed=1)
    rewards = np.array([0, 0, -2, 1], dtype=np.int8)
    done = np.array([False, True, True, False])
    finals = np.zeros((4, 2, 25), dtype=np.uint8)
    got = env._ended(rewards, done, finals)
    assert got[0] is rewards and got[1] is done
    np.testing.assert_array_equal(env.truncated, [False, True, False, False])
    assert env.final_positions is finals
    env.reset()
    assert env.truncated.shape == (4,) and not env.truncated.any()


# ------------------------------------------------------------------ 3: final_positions


def test_final_positions_of_done_games_evaluate() -> None:
    net = Net.wildbg()
    env = VecEnv(64, seed=6)
    evaluated = 0
    for _ in range(400):
        _, done = env.step_policy("random")
        if done.any():
            assert not env.final_positions[~done].any()  # zeros: not positions
            values = net.evaluate(env.final_positions[done])
            evaluated += len(values)
    assert evaluated > 10


# ------------------------------------------------------------------ 4: perspective


def test_players_is_uint8_and_the_documented_sign_is_right() -> None:
    env = VecEnv(64, seed=1)
    seen = 0
    for _ in range(400):
        players = env.players
        assert players.dtype == np.uint8
        sign = np.where(players == 0, 1, -1)
        assert (sign == 1 - 2 * players.astype(np.int8)).all()
        rewards, done = env.step_policy("pubeval")
        # The player who just moved is the only one who can have won: the mover's reward,
        # its sign times player 0's, is positive for every finished game.
        mover = rewards[done] * sign[done]
        assert (mover > 0).all()
        seen += int(done.sum())
    assert seen > 5
