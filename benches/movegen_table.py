"""The BENCHMARKS.md table from a ``bench_movegen.py`` run saved with ``--benchmark-json``.

    pytest benches/bench_movegen.py --benchmark-only --benchmark-json=movegen.json
    python benches/movegen_table.py movegen.json

Rates use each benchmark's fastest round (the least disturbed by other processes); ratios
are against ``bgfast-batch-1t`` on the same fixture.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def _best(bench: dict[str, Any]) -> float:
    """The fastest round; the mean when a CPU clock too coarse for the call rounded it to 0."""
    stats = bench["stats"]
    return float(stats["min"] or stats["mean"])


def table(report: dict[str, Any]) -> str:
    rows: dict[str, list[dict[str, Any]]] = {}
    for bench in report["benchmarks"]:
        rows.setdefault(bench["group"].removeprefix("movegen-"), []).append(bench)
    lines = [
        "| fixture | library | lists | best time | lists / s | x bgfast-batch-1t | correct |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for fixture, benches in rows.items():
        reference = next(
            _best(b) for b in benches if b["extra_info"]["library"] == "bgfast-batch-1t"
        )
        for b in sorted(benches, key=_best):
            info, best = b["extra_info"], _best(b)
            lists = info["lists"]
            lines.append(
                f"| {fixture} | {info['library']} | {lists:,} | {best * 1e3:,.3f} ms "
                f"| {lists / best:,.0f} | {best / reference:.2f} | {info['correct']} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("report", help="a bench_movegen.py run's --benchmark-json file")
    with open(parser.parse_args().report) as f:
        print(table(json.load(f)))
