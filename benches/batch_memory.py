"""Peak memory of one ``bgfast.batch.all_rolls`` call: the results plus a small constant per
thread.

Each measurement runs in a fresh interpreter: it loads the contact corpus repeated ``--copies``
times, calls ``all_rolls`` once, and compares the process's peak resident memory
(``resource.getrusage``'s ``ru_maxrss``) before and after with the bytes of the arrays
returned. The output arrays are allocated by Rust, so ``tracemalloc`` cannot see them::

    python benches/batch_memory.py --copies 20
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def measure(copies: int, threads: int) -> dict[str, float]:
    """One call in this process; meant to run in a fresh interpreter."""
    import numpy as np

    from bgfast import batch

    array = np.tile(
        batch.from_ids((DATA / "wildbg_contact.csv").read_text().split()), (copies, 1, 1)
    )
    batch.all_rolls(array[:50], threads=threads)  # start the pool, load the code
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    offsets, results, rolls = batch.all_rolls(array, threads=threads)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    output = offsets.nbytes + results.nbytes + rolls.nbytes
    return {
        "threads": threads,
        "positions": len(array),
        "results": len(results),
        "output_mib": output / 2**20,
        "peak_growth_mib": (peak - before) / 2**20,
        "overhead_mib": (peak - before - output) / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20, help="times to repeat the corpus")
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.copies, args.threads[0])))
        return
    print("threads  positions  results     output MiB  peak growth MiB  overhead MiB")
    for threads in args.threads:
        command = [sys.executable, __file__, "--child", "--copies", str(args.copies)]
        run = subprocess.run(
            [*command, "--threads", str(threads)],
            check=True,
            capture_output=True,
            text=True,
        )
        r = json.loads(run.stdout)
        print(
            f"{r['threads']:>7}  {r['positions']:>9}  {r['results']:>10}  {r['output_mib']:>10.1f}"
            f"  {r['peak_growth_mib']:>15.1f}  {r['overhead_mib']:>12.1f}"
        )


if __name__ == "__main__":
    main()
