"""Rollouts on a Dask cluster of worker processes on loopback (when Dask is installed).

The cluster is a ``LocalCluster`` with 2 worker processes of 1 thread each, bound to
127.0.0.1 with no dashboard, so nothing listens beyond this machine.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, Callable

import pytest

import bgfast
from bgfast.rollout import SHARD_GAMES, run_shard

distributed = pytest.importorskip("distributed")

GAMES = 2 * SHARD_GAMES + 321


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as c:
        yield c


def test_dask_local_cluster_gives_the_local_result(cluster: Any) -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=31, threads=1)
    with distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        remote = bgfast.rollout(
            games=GAMES, policy="random", seed=31, executor=client.get_executor()
        )
    assert remote.counts == local.counts and not remote.partial


def die_once_in_shard(marker: str, spec: dict[str, Any]) -> tuple[int, ...]:
    """Plays a shard, but the first worker to reach shard 1 kills itself with SIGKILL."""
    if spec["first_game"] == SHARD_GAMES:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    return run_shard(spec)


class KillingExecutor(Executor):
    """Sends every shard through ``die_once_in_shard`` on a Dask executor."""

    def __init__(self, inner: Executor, marker: Path) -> None:
        self.inner = inner
        self.marker = str(marker)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert fn is run_shard
        return self.inner.submit(die_once_in_shard, self.marker, *args)


def test_a_worker_killed_during_a_shard_gives_the_identical_result(
    cluster: Any, tmp_path: Path
) -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=32, threads=1)
    marker = tmp_path / "killed"
    with distributed.Client(cluster) as client:
        executor = KillingExecutor(client.get_executor(), marker)
        remote = bgfast.rollout(games=GAMES, policy="random", seed=32, executor=executor)
        client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed worker
    assert marker.exists()  # a worker really died mid-shard; Dask played the shard again
    assert remote.counts == local.counts and not remote.partial


def test_cli_dask_scheduler_uses_the_cluster_and_leaves_it_running(
    cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from bgfast.cli import main

    local = bgfast.rollout(games=GAMES, policy="random", seed=33, threads=1)
    argv = ["rollout", "--games", str(GAMES), "--policy", "random", "--seed", "33", "--json"]
    assert main([*argv, "--dask-scheduler", cluster.scheduler_address]) == 0
    data = json.loads(capsys.readouterr().out)
    assert tuple(data["counts"].values()) == local.counts and not data["partial"]
    with distributed.Client(cluster.scheduler_address) as client:  # still up, still 2 workers
        assert len(client.scheduler_info()["workers"]) == 2


def test_cli_dask_scheduler_bad_address_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bgfast.cli import main

    assert main(["rollout", "--games", "10", "--dask-scheduler", "nonsense://x"]) == 2
    assert "cannot connect to the Dask scheduler at 'nonsense://x'" in capsys.readouterr().err
