"""Positions for the rollout, pubeval and feature tests: the corpora and random play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

import bgfast

DATA = Path(__file__).parent / "data"


def corpus_ids() -> list[str]:
    """The Position IDs of both wildbg corpora (see data/NOTICE.md)."""
    ids: list[str] = []
    for name in ("wildbg_contact.csv", "wildbg_race.csv"):
        ids += [line.strip() for line in (DATA / name).read_text().splitlines() if line.strip()]
    return ids


def corpus_arrays() -> npt.NDArray[np.uint8]:
    """The corpora as an ``(N, 2, 25)`` array."""
    return np.stack([bgfast.Position.from_id(i).to_array() for i in corpus_ids()])


def random_play(games: int, plies: int, seed: int) -> npt.NDArray[np.uint8]:
    """Positions met in random self-play (``VecEnv``, random choices): ``(games*plies, 2, 25)``,
    including candidate results, which have checkers on the bar and borne off."""
    env = bgfast.VecEnv(games, seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(plies):
        seen.append(env.positions)
        cands = env.candidate_positions()[:, ::-1]  # the side on roll first
        _, offsets = env.candidates()
        counts = np.diff(offsets)
        seen.append(cands[offsets[:-1]])
        env.step(rng.integers(0, counts))
    return np.concatenate(seen)
