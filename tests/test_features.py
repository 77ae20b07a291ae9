"""Feature encodings: tesauro198 equals gym-backgammon's ``get_board_features`` (test-only
oracle), pubeval inputs equal Tesauro's setx, and ``out=`` writes in place."""

from __future__ import annotations

import numpy as np
import pytest
from rollout_corpus import corpus_arrays, random_play

import bgfast
from bgfast import Position


def gym_features(position: np.ndarray, white_on_roll: bool) -> list[float]:
    """gym-backgammon's features for a bgfast (2, 25) array, row 0 as WHITE.

    White's point p is gym index p - 1; black's point q is gym index 24 - q.
    """
    game_module = pytest.importorskip("gym_backgammon.envs.backgammon")
    game = game_module.Backgammon()
    white, black = game_module.WHITE, game_module.BLACK
    board = [(0, None)] * 24
    for p in range(1, 25):
        if position[0, p - 1]:
            board[p - 1] = (int(position[0, p - 1]), white)
        if position[1, p - 1]:
            board[24 - p] = (int(position[1, p - 1]), black)
    game.board = board
    game.bar = [int(position[0, 24]), int(position[1, 24])]
    game.off = [15 - int(position[0].sum()), 15 - int(position[1].sum())]
    return list(game.get_board_features(white if white_on_roll else black))


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    return np.concatenate([corpus_arrays(), random_play(games=20, plies=40, seed=5)])


def test_tesauro198_equals_gym_backgammon(positions: np.ndarray) -> None:
    pytest.importorskip("gym_backgammon")
    ours = bgfast.encode(positions)
    assert ours.shape == (len(positions), 198) and ours.dtype == np.float32
    for p, row in zip(positions, ours):
        np.testing.assert_array_equal(row, np.array(gym_features(p, True), dtype=np.float32))


def test_candidates_are_seen_by_the_chooser() -> None:
    pytest.importorskip("gym_backgammon")
    env = bgfast.VecEnv(3, seed=2)
    features, _ = env.candidates()
    results = env.candidate_positions()  # row 0 the player who moved, row 1 on roll
    for f, chooser_view in zip(features, results):
        np.testing.assert_array_equal(f, np.array(gym_features(chooser_view, False), np.float32))


def tesauro_setx(position: np.ndarray) -> np.ndarray:
    """Tesauro's ``setx`` from his published ``pubeval.c``, on the ``pos[0..27]`` array that
    GNU Backgammon builds from a board (row 0 is "the computer", moving 24 -> 1)."""
    own, opp = position[0].astype(int), position[1].astype(int)
    pos = [0] * 28
    for j in range(1, 25):  # computer's point j; the opponent's checkers there are on its 25 - j
        pos[j] = own[j - 1] if own[j - 1] else -opp[24 - j]
    pos[0], pos[25], pos[26] = -opp[24], own[24], 15 - own.sum()
    x = np.zeros(122, dtype=np.float32)
    for j in range(1, 25):
        n, k = pos[25 - j], 5 * (j - 1)
        if n == -1:
            x[k] = 1.0
        if n == 1:
            x[k + 1] = 1.0
        if n >= 2:
            x[k + 2] = 1.0
        if n == 3:
            x[k + 3] = 1.0
        if n >= 4:
            x[k + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    return x


def test_pubeval_inputs_equal_tesauros_setx(positions: np.ndarray) -> None:
    ours = bgfast.encode(positions, scheme="pubeval")
    assert ours.shape == (len(positions), 122)
    for p, row in zip(positions, ours):
        np.testing.assert_array_equal(row, tesauro_setx(p))


def test_out_is_written_in_place() -> None:
    many = np.stack([Position().to_array(), Position().flipped().to_array()])
    out = np.full((2, 198), 7.0, dtype=np.float32)
    got = bgfast.encode(many, out=out)
    assert got is out
    np.testing.assert_array_equal(out, bgfast.encode(many))
    one = np.zeros(198, dtype=np.float32)
    assert bgfast.encode(Position(), out=one) is one and one.sum() == 27.0


def test_bad_scheme_and_out() -> None:
    with pytest.raises(bgfast.BgfastError, match="scheme"):
        bgfast.encode(Position(), scheme="nope")
    with pytest.raises(bgfast.BgfastError, match="shape"):
        bgfast.encode(np.stack([Position().to_array()] * 2), out=np.zeros((3, 198), np.float32))


def test_an_out_that_cannot_be_written_says_why() -> None:
    rows = np.stack([Position().to_array()] * 2)
    read_only = np.zeros((2, 198), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(bgfast.BgfastError, match="read-only"):
        bgfast.encode(rows, out=read_only)
    unaligned = np.frombuffer(bytearray(2 * 198 * 4 + 1), np.float32, offset=1).reshape(2, 198)
    assert unaligned.flags.c_contiguous and not unaligned.flags.aligned
    with pytest.raises(bgfast.BgfastError, match="aligned"):
        bgfast.encode(rows, out=unaligned)
