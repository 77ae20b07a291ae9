"""Faults of rollouts on an executor: a worker's own Ctrl-C is a failed shard (not the
user's), a ShardError says how often the shard ran and whether the executor refused it,
futures that bring back no sums, Ctrl-C stopping a thread pool's running shards, and the
command's errors in its own words."""

from __future__ import annotations

import importlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import bgfast
from bgfast.cli import main

#: The module (``bgfast.rollout`` is the function), whose ``SHARD_GAMES`` is patched.
R = importlib.import_module("bgfast.rollout")

#: Games per shard in these tests (``SHARD_GAMES`` patched): many small shards.
SHARD = 50
GAMES = 6 * SHARD
#: A hang guard only: no test waits this long unless something is broken.
GUARD = 60.0


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(R, "SHARD_GAMES", SHARD)
    yield


def _local(seed: int, **kwargs: Any) -> bgfast.RolloutResult:
    return bgfast.rollout(games=GAMES, policy="random", seed=seed, threads=1, **kwargs)


# ----------------------------------------------------------- a worker's own Ctrl-C


def _is_shard_one(args: tuple[Any, ...]) -> bool:
    return isinstance(args[0], dict) and args[0]["first_game"] == SHARD


def _hold_shard_one(marker: str, fn: Callable[..., Any], *args: Any) -> Any:
    """In a pool worker: shard 1's first run writes this process's id to ``marker`` and
    waits for a signal there; any other call is ``fn(*args)``."""
    if _is_shard_one(args) and not os.path.exists(marker):
        Path(marker + ".tmp").write_text(str(os.getpid()))
        os.replace(marker + ".tmp", marker)
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:
            time.sleep(0.01)  # the test's signal lands here
        raise RuntimeError("no signal came")  # a hang guard
    return fn(*args)


def _interrupt_self(fn: Callable[..., Any], *args: Any) -> Any:
    """In a pool worker: shard 1 gets a SIGINT of its own process on every run."""
    if _is_shard_one(args):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(GUARD)  # interrupted at once
    return fn(*args)


class HoldingPool(ProcessPoolExecutor):
    """A real process pool whose shard 1 waits, on its first run, for a signal the test
    sends to its worker (whose id ``marker`` then holds)."""

    def __init__(self, marker: Path) -> None:
        super().__init__(max_workers=2)
        self.marker = str(marker)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_hold_shard_one, self.marker, fn, *args, **kwargs)


class SelfInterruptingPool(ProcessPoolExecutor):
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_interrupt_self, fn, *args, **kwargs)


def _signal_worker(marker: Path, signum: int) -> threading.Thread:
    """Sends ``signum`` to the worker whose id ``marker`` holds, once it is written."""

    def send() -> None:
        deadline = time.monotonic() + GUARD
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        pid = int(marker.read_text())
        assert pid != os.getpid()  # the worker only, never this process
        os.kill(pid, signum)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def test_a_sigint_reaching_only_a_worker_is_a_failed_shard_played_again(
    small_shards: None, tmp_path: Path
) -> None:
    # It was taken for the user's Ctrl-C: the rollout returned partial=True.
    local = _local(41)
    marker = tmp_path / "worker.pid"
    with HoldingPool(marker) as pool:
        sender = _signal_worker(marker, signal.SIGINT)
        remote = bgfast.rollout(games=GAMES, policy="random", seed=41, executor=pool)
        sender.join(GUARD)
        assert pool.submit(pow, 2, 3).result(GUARD) == 8  # the pool is still whole
    assert not remote.partial and remote.games == GAMES
    assert remote.counts == local.counts and remote.equity == local.equity


def test_a_worker_interrupted_on_every_run_gives_a_shard_error(small_shards: None) -> None:
    with SelfInterruptingPool(max_workers=2) as pool, pytest.raises(bgfast.ShardError) as info:
        bgfast.rollout(games=GAMES, policy="random", seed=42, executor=pool)
    message = str(info.value)
    assert message.startswith(f"shard 1 of 6 (games {SHARD}..{2 * SHARD - 1}) failed:")
    assert "KeyboardInterrupt (ran 3 times; given up after SHARD_RETRIES (2) retries)" in message
    assert isinstance(info.value.__cause__, KeyboardInterrupt)


# ------------------------------------------------ how often a failed shard ran


def test_a_killed_pool_worker_ran_the_shard_once_and_the_pool_refused_the_retry(
    small_shards: None, tmp_path: Path
) -> None:
    # It said "failed after 2 attempt(s)": the second was a submit the broken pool refused.
    marker = tmp_path / "worker.pid"
    pool = HoldingPool(marker)
    try:
        sender = _signal_worker(marker, signal.SIGKILL)
        with pytest.raises(bgfast.ShardError) as info:
            bgfast.rollout(games=GAMES, policy="random", seed=43, executor=pool)
        sender.join(GUARD)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    message = str(info.value)
    assert "attempt" not in message
    assert "failed: BrokenProcessPool: " in message
    assert "(ran once; the executor refused to take it again: BrokenProcessPool: " in message


class Refusing(Executor):
    """Takes ``accepted`` shards (played in threads), then refuses every submit."""

    def __init__(self, accepted: int) -> None:
        self.accepted = accepted
        self.inner = ThreadPoolExecutor(1)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.accepted == 0:
            raise RuntimeError("cluster is down")
        self.accepted -= 1
        return self.inner.submit(fn, *args, **kwargs)


@pytest.mark.parametrize("accepted", [0, 3])
def test_a_shard_the_executor_refuses_was_not_run(small_shards: None, accepted: int) -> None:
    # It said "failed after 1 attempt(s)" though nothing ran.
    executor = Refusing(accepted)
    first = accepted * SHARD
    with pytest.raises(bgfast.ShardError) as info:
        bgfast.rollout(games=GAMES, policy="random", seed=44, executor=executor)
    executor.inner.shutdown()
    assert str(info.value) == (
        f"shard {accepted} of 6 (games {first}..{first + SHARD - 1}) was not run: the"
        " executor refused it: RuntimeError: cluster is down"
    )


class AlwaysLost(Executor):
    """Every run of shard 2 fails like a lost worker; the others play in threads."""

    def __init__(self) -> None:
        self.inner = ThreadPoolExecutor(1)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if args[0]["first_game"] == 2 * SHARD:
            f: Future[Any] = Future()
            f.set_exception(ConnectionError("worker lost"))
            return f
        return self.inner.submit(fn, *args, **kwargs)


def test_a_shard_lost_on_every_run_says_it_ran_each_time(small_shards: None) -> None:
    executor = AlwaysLost()
    with pytest.raises(bgfast.ShardError) as info:
        bgfast.rollout(games=GAMES, policy="random", seed=45, executor=executor)
    executor.inner.shutdown()
    assert str(info.value) == (
        f"shard 2 of 6 (games {2 * SHARD}..{3 * SHARD - 1}) failed: ConnectionError: worker"
        " lost (ran 3 times; given up after SHARD_RETRIES (2) retries)"
    )


# ------------------------------------------------------ futures without sums


class Resolving(Executor):
    """Every future resolves at once to ``value``."""

    def __init__(self, value: object) -> None:
        self.value = value

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        f.set_result(self.value)
        return f


@pytest.mark.parametrize(("value", "shown"), [(None, "None (NoneType)"), ({}, "{} (dict)")])
def test_a_future_that_brings_back_no_sums_is_a_shard_error(
    small_shards: None, value: object, shown: str
) -> None:
    # It was a bare AttributeError ('NoneType' object has no attribute 'games').
    with pytest.raises(bgfast.ShardError) as info:
        bgfast.rollout(games=GAMES, policy="random", seed=46, executor=Resolving(value))
    assert str(info.value).startswith(
        f"shard 0 of 6 (games 0..{SHARD - 1}) came back from the executor as {shown}, not as"
        " the shard's sums"
    )


# ------------------------------------------------- Ctrl-C and a thread pool


class WatchedThreads(ThreadPoolExecutor):
    """A thread pool that tells when a shard starts and how each one ended."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        # Passed once both workers play a shard and the test is ready to press Ctrl-C.
        self.both_playing = threading.Barrier(3)
        self.started = 0
        self.ended: list[str] = []
        self.all_ended = threading.Condition()

    def _watch(self, fn: Callable[..., Any], *args: Any) -> Any:
        with self.all_ended:
            self.started += 1
            first_two = self.started <= 2
        if first_two:
            self.both_playing.wait(GUARD)
        outcome = "finished"
        try:
            return fn(*args)
        except Exception as error:
            outcome = type(error).__name__
            raise
        finally:
            with self.all_ended:
                self.ended.append(outcome)
                self.all_ended.notify_all()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(self._watch, fn, *args, **kwargs)


def test_ctrl_c_stops_the_shards_a_thread_pool_is_playing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # They played to their end (10,000 games each: minutes with variance reduction),
    # holding the caller's `with` block; threads cannot be stopped from outside.
    monkeypatch.setattr(R, "SHARD_GAMES", 10**7)  # minutes of games a shard
    pool = WatchedThreads()
    main_thread = threading.main_thread().ident
    assert main_thread == threading.get_ident()

    def ctrl_c() -> None:
        pool.both_playing.wait(GUARD)  # both workers are playing a shard
        assert main_thread is not None
        signal.pthread_kill(main_thread, signal.SIGINT)  # as a terminal's Ctrl-C

    sender = threading.Thread(target=ctrl_c, daemon=True)
    sender.start()
    r = bgfast.rollout(games=4 * 10**7, policy="random", seed=47, executor=pool)
    sender.join(GUARD)
    assert r.partial and r.games == 0
    with pool.all_ended:
        pool.all_ended.wait_for(lambda: len(pool.ended) == pool.started, GUARD)
    assert pool.ended == ["_ShardStopped", "_ShardStopped"]  # no other shard started
    pool.shutdown()


def test_a_pool_shut_down_with_its_futures_cancelled_is_a_shard_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `wait` never reports a future its executor cancelled (no worker takes it up to say
    # so): the rollout waited forever.
    monkeypatch.setattr(R, "SHARD_GAMES", 10**7)  # minutes of games a shard
    pool = WatchedThreads()

    def shut_down() -> None:
        pool.both_playing.wait(GUARD)  # two shards playing, the rest queued
        pool.shutdown(wait=False, cancel_futures=True)

    killer = threading.Thread(target=shut_down, daemon=True)
    killer.start()
    # The shards queued are cancelled, or refused if the shutdown came before their submit.
    cancelled = "cancelled by the executor before it ran|was not run: the executor refused it"
    with pytest.raises(bgfast.ShardError, match=cancelled):
        bgfast.rollout(games=4 * 10**7, policy="random", seed=47, executor=pool)
    killer.join(GUARD)
    with pool.all_ended:  # the shards it was playing stopped too
        pool.all_ended.wait_for(lambda: len(pool.ended) == pool.started, GUARD)
    assert pool.ended == ["_ShardStopped", "_ShardStopped"]


def test_a_thread_pool_plays_the_shards_in_chunks_to_the_same_bits(small_shards: None) -> None:
    kwargs: dict[str, Any] = dict(policy="wildbg", seed=48, variance_reduction=True)
    local = bgfast.rollout(games=2 * SHARD + 7, threads=1, **kwargs)
    with ThreadPoolExecutor(2) as pool:
        remote = bgfast.rollout(games=2 * SHARD + 7, executor=pool, **kwargs)
    assert remote.counts == local.counts and remote.equity == local.equity
    assert remote.stderr == local.stderr and not remote.partial


# --------------------------------------------------- the command's words


def _refused(capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    status = main(["rollout", "--policy", "random", *flags])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("flags", "said", "internal"),
    [
        (
            ["--threads", "2", "--workers", "2"],
            "--threads and --workers: the pool's workers play the shards, one thread each;"
            " give --threads for a run in this process, or --workers",
            "executor",
        ),
        (
            ["--threads", "2", "--dask-scheduler", "tcp://127.0.0.1:1"],
            "--threads and --dask-scheduler: the Dask cluster's workers play the shards",
            "executor",
        ),
        (["--seed", "-1"], "--seed must be from 0 to 18446744073709551615, not -1", "got"),
        (
            ["--games", str(2**64)],
            f"--games must be at most {2**64 - 1}, not {2**64}",
            "games must be from",
        ),
        (
            ["--moves", "31", "--top", str(2**40)],
            f"--top must be at most {2**31}, not {2**40}",
            "top must be from",
        ),
        (
            ["--truncate", str(2**40)],
            f"--truncate must be at most {2**32 - 1} plies, not {2**40}",
            "truncate must be from",
        ),
    ],
)
def test_counts_and_pools_are_refused_in_the_commands_words(
    flags: list[str], said: str, internal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, *flags)
    assert said in err and internal not in err
