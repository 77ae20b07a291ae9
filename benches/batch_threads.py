"""Thread scaling of the batch API: wall time of one call over a whole corpus, 1 vs 2 threads.

    OPENBLAS_NUM_THREADS=1 python benches/batch_threads.py            # --rounds 40

For each corpus (the wildbg contact and race positions, all 21 rolls: 21,000 lists a call)
it times ``batch.all_rolls`` (every result written as a ``(2, 25)`` row) and
``batch.move_counts`` (the same generation, nothing written) on 1 and on 2 threads. The four
calls take turns in every round, so a burst of load from another process hits them alike;
each figure is the fastest round (wall clock). Both outputs are checked to be identical for
1 and 2 threads. Thread scaling needs otherwise idle cores: the script prints the load
average before and after, and a run with a load above about 0.5 says little.
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bgfast import batch

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def corpus(name: str) -> Any:
    return batch.from_ids((DATA / f"wildbg_{name}.csv").read_text().split())


def call_with_threads(f: Callable[..., Any], positions: Any, threads: int) -> Any:
    return f(positions, threads=threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| corpus | call | 1 thread | 2 threads | M lists/s, 1 thread | 2 threads vs 1 |")
    print("|---|---|---:|---:|---:|---:|")
    for name in ("contact", "race"):
        positions = corpus(name)
        lists = len(positions) * 21
        calls: dict[str, Callable[[int], Any]] = {
            "all_rolls": functools.partial(call_with_threads, batch.all_rolls, positions),
            "move_counts": functools.partial(call_with_threads, batch.move_counts, positions),
        }
        for call in calls.values():  # warm-up; the outputs must not depend on threads
            two, one = call(2), call(1)
            for got, want in zip(*(x if isinstance(x, tuple) else (x,) for x in (two, one))):
                np.testing.assert_array_equal(got, want)
        best = {(c, t): float("inf") for c in calls for t in (1, 2)}
        for _ in range(args.rounds):
            for (c, t), seconds in best.items():
                start = time.perf_counter()
                out = calls[c](t)
                best[c, t] = min(seconds, time.perf_counter() - start)
                del out
        for c in calls:
            one, two = best[c, 1], best[c, 2]
            print(
                f"| {name} | {c} | {one * 1e3:.3f} ms | {two * 1e3:.3f} ms "
                f"| {lists / one / 1e6:.2f} | {one / two:.2f}x |"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
