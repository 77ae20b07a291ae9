"""Rollouts on a ``concurrent.futures`` executor: fixed shards, identical to a local run."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Callable

import pytest

import bgfast
from bgfast.rollout import SHARD_GAMES, SHARD_RETRIES, _check_sendable, run_shard

GAMES = 2 * SHARD_GAMES + 123


def test_process_pool_gives_the_local_result() -> None:
    local = bgfast.rollout(games=GAMES, policy="random", seed=21, threads=1)
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = bgfast.rollout(games=GAMES, policy="random", seed=21, executor=pool)
        # The executor is the caller's: still usable afterwards.
        assert pool.submit(int, "7").result() == 7
    assert remote.counts == local.counts and not remote.partial
    # The table says who played: the executor's workers, not "1 thread".
    assert (local.executor, remote.executor) == (None, "ProcessPoolExecutor")
    assert "on 1 thread," in local.table()
    assert "on a ProcessPoolExecutor's workers" in remote.table()
    assert remote.to_dict()["executor"] == "ProcessPoolExecutor"


def test_a_broken_process_pool_raises_shard_error_and_no_total() -> None:
    # A ProcessPoolExecutor does not retry: a worker killed with SIGKILL breaks the pool, so
    # the run must fail with ShardError naming a shard, never return a total.
    pool = ProcessPoolExecutor(max_workers=2)
    try:
        pids = set()
        while len(pids) < 2:
            pids.add(pool.submit(os.getpid).result())
        os.kill(next(iter(pids)), signal.SIGKILL)
        with pytest.raises(bgfast.ShardError, match=r"shard \d+ of 3 .*BrokenProcessPool"):
            bgfast.rollout(games=GAMES, policy="random", seed=22, executor=pool)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


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


class ShardOneFails(Executor):
    """Shard 1 always fails like a lost worker; the other shards never finish on their own."""

    def __init__(self) -> None:
        self.futures: list[Future[Any]] = []
        self.hanging: list[Future[Any]] = []
        self.attempts = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if args[0]["first_game"] == SHARD_GAMES:
            self.attempts += 1
            f: Future[Any] = Future()
            f.set_exception(ConnectionError("worker lost"))
        else:
            f = Future()  # never finishes on its own: must be cancelled
            self.hanging.append(f)
        self.futures.append(f)
        return f


def test_a_shard_the_executor_gives_up_on_raises_shard_error() -> None:
    failing = ShardOneFails()
    second = rf"games {SHARD_GAMES}\.\.{2 * SHARD_GAMES - 1}"
    with pytest.raises(bgfast.ShardError, match=rf"shard 1 of 3 \({second}\)") as info:
        bgfast.rollout(games=GAMES, policy="random", seed=25, executor=failing)
    assert "ConnectionError: worker lost" in str(info.value)
    assert isinstance(info.value.__cause__, ConnectionError)
    assert isinstance(info.value, bgfast.BgfastError)
    assert failing.attempts == 1 + SHARD_RETRIES
    assert len(failing.hanging) == 2 and all(f.cancelled() for f in failing.hanging)


def test_an_unpicklable_setting_fails_before_submission() -> None:
    # Every spec field is checked with pickle; the error names the field.
    spec = {"position": "4HPwATDgc/ABMA", "seed": 1, "policy": lambda x: x}
    with pytest.raises(bgfast.BgfastError, match=r"pickle refuses: policy=<function"):
        _check_sendable(spec)
    _check_sendable({"position": "4HPwATDgc/ABMA", "seed": 1, "policy": "random"})
    # An evaluator callable is refused before anything reaches the executor.
    recording = ShardOneFails()
    with pytest.raises(bgfast.BgfastError, match="not sent to an executor"):
        bgfast.rollout(games=10, policy=lambda x: x[:, 0], executor=recording)
    assert recording.futures == []


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
    with pytest.raises(bgfast.ShardError, match=r"shard 0 of 3.*refused"):
        bgfast.rollout(games=GAMES, policy="random", seed=24, executor=failing)
    assert len(failing.futures) == 3
    assert all(f.cancelled() for f in failing.futures[1:])


def test_rollout_results_and_positions_pickle() -> None:
    result = bgfast.rollout(games=300, policy="random", seed=26, threads=1)
    back = pickle.loads(pickle.dumps(result))
    assert isinstance(back, bgfast.RolloutResult)
    assert back.counts == result.counts and back.to_dict() == result.to_dict()
    assert back.stderr == result.stderr and back.ci95 == result.ci95
    pos = bgfast.Position.from_id("4HPwATDgc/ABMA")
    assert pickle.loads(pickle.dumps(pos)) == pos


def test_progress_is_reported_as_shards_finish() -> None:
    seen: list[tuple[int, int]] = []
    with ThreadPoolExecutor(2) as pool:
        bgfast.rollout(
            games=GAMES,
            policy="random",
            seed=27,
            executor=pool,
            progress=lambda d, t: seen.append((d, t)),
        )
    assert {t for _, t in seen} == {GAMES} and seen[-1][0] == GAMES
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    sizes = {0, SHARD_GAMES, 123}  # every report is a sum of whole shards
    assert all((d % SHARD_GAMES) in sizes for d, _ in seen)


def test_cli_workers_gives_the_local_result_with_a_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bgfast.cli import main

    local = bgfast.rollout(games=GAMES, policy="random", seed=28, threads=1)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    argv = ["rollout", "--games", str(GAMES), "--policy", "random", "--seed", "28"]
    assert main([*argv, "--workers", "2", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert tuple(data["counts"].values()) == local.counts and not data["partial"]
    assert f"] {GAMES}/{GAMES} games" in err  # the bar, driven by finished shards
    assert main([*argv, "--workers", "0"]) == 2
    assert "--workers must be from 1 to 256" in capsys.readouterr().err


class OneShardAtATime(Executor):
    """Shard 0 finishes at once (played here); the others stay pending until cancelled."""

    def __init__(self) -> None:
        self.pending: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        if args[0]["first_game"] == 0:
            f.set_result(fn(*args, **kwargs))
        else:
            self.pending.append(f)
        return f


def test_ctrl_c_cancels_the_outstanding_shards_and_returns_a_partial_prefix() -> None:
    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt  # as if Ctrl-C came while waiting for the next shard

    executor = OneShardAtATime()
    r = bgfast.rollout(games=GAMES, policy="random", seed=29, executor=executor, progress=interrupt)
    first = bgfast.rollout(games=SHARD_GAMES, policy="random", seed=29, threads=1)
    assert r.partial and r.games == SHARD_GAMES and r.counts == first.counts
    assert len(executor.pending) == 2 and all(f.cancelled() for f in executor.pending)


def test_ctrl_c_stops_cli_workers_mid_shard_with_the_finished_shards() -> None:
    # The pool's shutdown waited for every shard still playing (10,000 games: here, with the
    # larger nets and variance reduction, many minutes), then threw their games away; a
    # terminal's Ctrl-C, sent to every process of the group, also broke the workers' shards.
    script = (
        "import sys; from bgfast.cli import main; print('imported', flush=True);"
        " sys.exit(main(['rollout', '--games', '100000000', '--seed', '1', '--workers', '2',"
        " '--policy', 'wildbg-large', '--vr', '--json']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    assert proc.stdout is not None and proc.stdout.readline() == "imported\n"
    time.sleep(3)  # the workers start and play; no timing is asserted
    os.killpg(proc.pid, signal.SIGINT)
    # Far sooner than one shard's end (hours here): a hang guard, not a timing.
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["partial"] is True and result["games"] % SHARD_GAMES == 0
