"""Rollouts on a Dask cluster through its ``concurrent.futures`` executor (when installed)."""

from __future__ import annotations

import pytest

import bgfast
from bgfast.rollout import SHARD_GAMES

distributed = pytest.importorskip("distributed")


def test_dask_local_cluster_gives_the_local_result() -> None:
    games = SHARD_GAMES + 321
    local = bgfast.rollout(games=games, policy="random", seed=31, threads=1)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False)
    with cluster, distributed.Client(cluster) as client:
        executor = client.get_executor()
        remote = bgfast.rollout(games=games, policy="random", seed=31, executor=executor)
    assert remote.counts == local.counts and not remote.partial
