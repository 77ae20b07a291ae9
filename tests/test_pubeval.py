"""pubeval: bgfast's scores equal GNU Backgammon's ``pub_eval_score`` (test-only oracle)."""

from __future__ import annotations

import numpy as np
import pytest
from rollout_corpus import corpus_arrays, corpus_ids, random_play

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
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 2: .*R1"):
        bgfast.pubeval.score(bad)
    with pytest.raises(bgfast.BgfastError, match="shape"):
        bgfast.pubeval.score(np.zeros((2, 24), dtype=np.int64))


def _gnubg_move_text(pairs: list[int]) -> str:
    """gnubg_nn's ``[from, to, ...]`` (0-based, 24 the bar, negative off) as move text."""
    steps = []
    for f, t in zip(pairs[::2], pairs[1::2]):
        steps.append(f"{'bar' if f == 24 else f + 1}/{'off' if t < 0 else t + 1}")
    return " ".join(steps)


def test_policy_choices_equal_gnubg_pub_best_move() -> None:
    # The pubeval policy plays the result with the best score for the mover, weights chosen
    # by the position before the move: GNU Backgammon's pub_best_move does the same. Where
    # every result keeps the position's race/contact class, bgfast.pubeval.score of the
    # results gives the policy's scores; rolls with tied best scores are left out.
    compared = 0
    for pid in corpus_ids()[::16]:
        pos = Position.from_id(pid)
        a = pos.to_array()
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                moves = pos.moves(d1, d2)
                results = [m.result for m in moves]
                if len(moves) < 2 or any(r.is_race != pos.is_race for r in results):
                    continue
                scores = bgfast.pubeval.score([r.flipped() for r in results])
                best = int(np.argmax(scores))
                if (scores == scores[best]).sum() > 1:
                    continue
                theirs = gnubg_nn.pub_best_move([a[1].tolist(), a[0].tolist()], d1, d2)
                assert pos.play(_gnubg_move_text(theirs), (d1, d2)) == results[best], (pid, d1, d2)
                compared += 1
    assert compared > 1000
