"""Rollouts on a ``concurrent.futures`` executor: fixed shards, identical to a local run."""

from __future__ import annotations

import os
import pickle
import signal
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Callable

import pytest

import bgfast
from bgfast.rollout import SHARD_GAMES, run_shard

GAMES = 2 * SHARD_GAMES + 123


def test_process_pool_gives_the_local_result() -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=21, threads=1)
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = bgfast.rollout(games=GAMES, policy="random", seed=21, executor=pool)
        # The executor is the caller's: still usable afterwards.
        assert pool.submit(int, "7").result() == 7
    assert remote.counts == local.counts and not remote.partial


def test_killed_worker_still_gives_the_identical_result() -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=22, threads=1)
    pool = ProcessPoolExecutor(max_workers=2)
    try:
        pids = set()
        while len(pids) < 2:
            pids.add(pool.submit(os.getpid).result())
        os.kill(next(iter(pids)), signal.SIGKILL)
        remote = bgfast.rollout(games=GAMES, policy="random", seed=22, executor=pool)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    assert remote.counts == local.counts


class FlakyExecutor(Executor):
    """Runs shards in threads; the first ``failures`` submissions fail like a lost worker."""

    def __init__(self, failures: int) -> None:
        self.inner = ThreadPoolExecutor(2)
        self.failures = failures
        self.specs: list[dict[str, Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.specs.append(pickle.loads(pickle.dumps(args[0])))  # plain, picklable data
        if self.failures > 0:
            self.failures -= 1
            f: Future[Any] = Future()
            f.set_exception(ConnectionError("worker lost"))
            return f
        return self.inner.submit(fn, *args, **kwargs)


def test_lost_shards_are_played_again_with_the_same_dice() -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=23, threads=1)
    flaky = FlakyExecutor(failures=3)
    remote = bgfast.rollout(games=GAMES, policy="random", seed=23, executor=flaky)
    assert remote.counts == local.counts
    firsts = sorted({s["first_game"] for s in flaky.specs})
    assert firsts == [k * SHARD_GAMES for k in range(3)]  # shards fixed by the game count
    flaky.inner.shutdown()


def test_worker_refuses_another_version() -> None:
    spec = {
        "version": "0.0.0-other",
        "position": "4HPwATDgc/ABMA",
        "first_game": 0,
        "games": 10,
        "policy": "random",
        "seed": 1,
        "truncate": None,
        "stratify": True,
        "threads": 1,
    }
    with pytest.raises(bgfast.BgfastError, match="version"):
        run_shard(spec)


def test_evaluator_cannot_be_sent_to_an_executor() -> None:
    with ThreadPoolExecutor(1) as pool, pytest.raises(bgfast.BgfastError, match="executor"):
        bgfast.rollout(games=10, policy=lambda x: x[:, 0], executor=pool)


class FailingExecutor(Executor):
    """The first shard fails with a bgfast error; the others never finish on their own."""

    def __init__(self) -> None:
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        if not self.futures:
            f.set_exception(bgfast.BgfastError("shard refused"))
        self.futures.append(f)
        return f


def test_an_error_cancels_the_outstanding_shards() -> None:
    failing = FailingExecutor()
    with pytest.raises(bgfast.BgfastError, match="refused"):
        bgfast.rollout(games=GAMES, policy="random", seed=24, executor=failing)
    assert len(failing.futures) == 3
    assert all(f.cancelled() for f in failing.futures[1:])
