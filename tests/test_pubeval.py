"""pubeval: bgfast's scores equal GNU Backgammon's ``pub_eval_score`` (test-only oracle)."""

from __future__ import annotations

import numpy as np
import pytest
from rollout_corpus import corpus_arrays, random_play

import bgfast
from bgfast import Position

gnubg_nn = pytest.importorskip("gnubg_nn")


def oracle(positions: np.ndarray) -> np.ndarray:
    """gnubg_nn scores its board[0]; bgfast's row 0 is the side to move: pass rows as they are."""
    return np.array([gnubg_nn.pub_eval_score(p.tolist()) for p in positions], dtype=np.float32)


def test_start_position() -> None:
    assert bgfast.pubeval.score(Position()) == pytest.approx(6.840549945831299, abs=1e-6)


def test_corpora_equal_the_oracle() -> None:
    positions = corpus_arrays()
    assert len(positions) == 2000
    ours = bgfast.pubeval.score(positions)
    np.testing.assert_array_equal(ours, oracle(positions))


def test_random_play_equals_the_oracle() -> None:
    # Thousands of positions from play: bars, hits, bear-offs, races and finished sides.
    positions = random_play(games=40, plies=60, seed=3)
    assert len(positions) >= 4000
    ours = bgfast.pubeval.score(positions)
    np.testing.assert_array_equal(ours, oracle(positions))


def test_won_side_scores_the_sentinel() -> None:
    board = np.zeros((2, 25), dtype=np.uint8)
    board[1, 3] = 2  # row 0 has borne off all 15 (R15)
    assert (
        bgfast.pubeval.score(board) == bgfast.pubeval.WON == gnubg_nn.pub_eval_score(board.tolist())
    )


def test_shapes_and_list_of_positions() -> None:
    start = Position()
    assert isinstance(bgfast.pubeval.score(start.to_array()), float)
    many = bgfast.pubeval.score([start, start.flipped()])
    assert many.shape == (2,) and many.dtype == np.float32


def test_bad_input_names_the_position_and_rule() -> None:
    bad = np.zeros((3, 2, 25), dtype=np.int64)
    bad[:, 0, 5] = 15
    bad[:, 1, 5] = 15
    bad[2, 0, 5] = 16
    with pytest.raises(bgfast.InvalidPositionError, match=r"positions\[2\].*R1"):
        bgfast.pubeval.score(bad)
    with pytest.raises(bgfast.BgfastError, match="shape"):
        bgfast.pubeval.score(np.zeros((2, 24), dtype=np.int64))
