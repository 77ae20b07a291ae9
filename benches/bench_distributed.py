"""Rollouts beyond one process: games/s on 1 process, a 2-process pool and a 2-worker Dask cluster.

The same rollout (random policy, same seed, from the standard start) is played three ways:
locally on one thread, on a ``ProcessPoolExecutor`` of 2 processes and on Dask
``LocalCluster`` of 1 and one of 2 worker processes (1 thread each, on 127.0.0.1;
``dashboard_address=None`` leaves out the Bokeh dashboard, but each scheduler still serves
its small HTTP API, ``/health`` and ``/metrics`` among it, on 127.0.0.1:8787 or the next free
port: distributed has no option that turns that server off). The counts must be identical;
the table gives games/s and the scaling ratio against one process, and the 2-worker
cluster's rate against the 1-worker one (best of ``--repeats`` rounds, the contenders taking
turns in each round; the pool and the cluster are started and warmed up untimed).

    python benches/bench_distributed.py                  # 200,000 games, best of 3
    python benches/bench_distributed.py --games 400000 --repeats 5

A script, not a pytest-benchmark module: collected by pytest, it skips.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor

import bgfast

if "pytest" in sys.modules:
    import pytest

    pytest.skip("a script: python benches/bench_distributed.py", allow_module_level=True)

SEED = 20261129


def on(executor: Executor, games: int) -> bgfast.RolloutResult:
    """The benchmark rollout on ``executor``."""
    return bgfast.rollout(games=games, policy="random", seed=SEED, executor=executor)


def main(argv: list[str] | None = None) -> int:
    """Runs the three contenders and prints the BENCHMARKS.md table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    games, repeats = args.games, args.repeats

    contenders: dict[str, Callable[[], bgfast.RolloutResult]] = {
        "1 process (threads=1)": lambda: bgfast.rollout(
            games=games, policy="random", seed=SEED, threads=1
        ),
    }
    with contextlib.ExitStack() as stack:
        pool = stack.enter_context(ProcessPoolExecutor(max_workers=2))
        contenders["ProcessPoolExecutor, 2 processes"] = lambda: on(pool, games)
        try:
            import distributed
        except ImportError:
            print("(dask[distributed] not installed: no Dask row)", file=sys.stderr)
        else:
            for workers in (1, 2):
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                    )
                )
                client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
                name = f"Dask LocalCluster, {workers} worker process{'es' if workers > 1 else ''}"
                executor = client.get_executor()
                contenders[name] = functools.partial(on, executor, games)
        # Warm up (untimed): every worker process imported bgfast and played a shard.
        bgfast.rollout(games=2_000, policy="random", seed=1, threads=1)
        for name, run in contenders.items():
            if name != "1 process (threads=1)":
                run()
        # Round robin, so a burst of load from other jobs hits every contender alike.
        rates: dict[str, list[float]] = {name: [] for name in contenders}
        counts: dict[str, tuple[int, ...]] = {}
        for _ in range(repeats):
            for name, run in contenders.items():
                t0 = time.perf_counter()
                result = run()
                rates[name].append(result.games / (time.perf_counter() - t0))
                assert counts.setdefault(name, result.counts) == result.counts
    local = counts["1 process (threads=1)"]
    for name, c in counts.items():
        assert c == local, f"{name} gave other counts than the local run"
    rows = [(name, max(r)) for name, r in rates.items()]

    load = os.getloadavg()[0]
    print(f"{games} random games from the start, seed {SEED}, best of {repeats};")
    print(f"counts identical in every run: {local}; load average {load:.1f} at the end")
    print()
    print("| where | games/s | vs 1 process |")
    print("|---|---:|---:|")
    one = rows[0][1]
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / one:.2f}x |")
    dask = dict(rows)
    if "Dask LocalCluster, 1 worker process" in dask:
        one_worker = dask["Dask LocalCluster, 1 worker process"]
        ratio = dask["Dask LocalCluster, 2 worker processes"] / one_worker
        print(f"\nDask, 2 workers vs 1 worker: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
