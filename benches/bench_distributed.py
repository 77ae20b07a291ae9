"""Rollouts beyond one process: games/s on 1 process, a 2-process pool and a 2-worker Dask cluster.

The same rollout (random policy, same seed, from the standard start) is played three ways:
locally on one thread, on a ``ProcessPoolExecutor`` of 2 processes and on a Dask
``LocalCluster`` of 2 worker processes (1 thread each, on 127.0.0.1, no dashboard). The
counts must be identical; the table gives games/s and the scaling ratio against one process
(best of ``--repeats`` runs; pools and the cluster are started and warmed up untimed).

    python benches/bench_distributed.py                  # 200,000 games, best of 3
    python benches/bench_distributed.py --games 400000 --repeats 5

A script, not a pytest-benchmark module: collected by pytest, it skips.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor

import bgfast
from bgfast.rollout import SHARD_GAMES

if "pytest" in sys.modules:
    import pytest

    pytest.skip("a script: python benches/bench_distributed.py", allow_module_level=True)

SEED = 20261129


def best(run: Callable[[], bgfast.RolloutResult], repeats: int) -> tuple[float, tuple[int, ...]]:
    """The best wall-clock games/s of ``repeats`` runs, and the counts (equal every run)."""
    rates = []
    counts: tuple[int, ...] | None = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - t0
        assert counts is None or result.counts == counts, "a run gave other counts"
        counts = result.counts
        rates.append(result.games / seconds)
    assert counts is not None
    return max(rates), counts


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

    rows: list[tuple[str, float]] = []
    bgfast.rollout(games=2_000, policy="random", seed=1, threads=1)  # warm up
    rate, local = best(
        lambda: bgfast.rollout(games=games, policy="random", seed=SEED, threads=1), repeats
    )
    rows.append(("1 process (threads=1)", rate))

    with ProcessPoolExecutor(max_workers=2) as pool:
        on(pool, 4 * SHARD_GAMES)  # warm up both workers
        rate, counts = best(lambda: on(pool, games), repeats)
        assert counts == local, "the process pool gave other counts"
    rows.append(("ProcessPoolExecutor, 2 processes", rate))

    try:
        import distributed
    except ImportError:
        print("(dask[distributed] not installed: no Dask row)", file=sys.stderr)
    else:
        with (
            distributed.LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            executor = client.get_executor()
            on(executor, 4 * SHARD_GAMES)  # warm up
            rate, counts = best(lambda: on(executor, games), repeats)
            assert counts == local, "the Dask cluster gave other counts"
        rows.append(("Dask LocalCluster, 2 worker processes", rate))

    load = os.getloadavg()[0]
    print(f"{games} random games from the start, seed {SEED}, best of {repeats};")
    print(f"counts identical in every run: {local}; load average {load:.1f} at the end")
    print()
    print("| where | games/s | vs 1 process |")
    print("|---|---:|---:|")
    one = rows[0][1]
    for name, rate in rows:
        print(f"| {name} | {rate:,.0f} | {rate / one:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
