"""Analysis rollouts side by side with GNU Backgammon's own, from the opening position.

bgfast: ``bgfast.rollout(policy="wildbg")``, cubeless, quasi-random dice, exact two-sided
bear-offs, without and with variance reduction, on one thread and on two. GNU Backgammon:
the Debian program's 0-ply cubeless rollout (``set threads 1``, quasi-random, exact
two-sided bear-off truncation, one-sided off, ``set rollout varredn off`` / ``on``), timed
by the wall clock for two trial counts so that its start-up time cancels (the slope is its
cost per game). Each figure is the median of interleaved rounds of one run, one and two
threads taking turns on the same number of games. Reported: games per second, the ratios, and
the standard error of the equity reached in one second of one thread (the figure that matters
to a user: it folds speed and variance together), from the one-thread run's spread.

    python -m pytest benches/bench_rollout_analysis.py --benchmark-only   # pytest-benchmark
    python benches/bench_rollout_analysis.py --vr-positions 10 --paired 12960   # BENCHMARKS.md
    python benches/bench_rollout_analysis.py --rounds 0 --vr-positions 10 --policy wildbg-large
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import bgfast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import gnubg_program

START = "4HPwATDgc/ABMA"
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"

#: Games per timed run, the same on one thread and on two: (plain, with variance reduction).
GAMES = {False: 8000, True: 600}
#: gnubg's trial counts (a small and a large run; the slope is the cost per game).
GNUBG_TRIALS = {False: (36, 1296), True: (36, 180)}


def gnubg_seconds(trials: int, variance_reduction: bool) -> float:
    """Wall-clock seconds of one whole gnubg run of ``trials`` games."""
    commands = gnubg_program.rollout_commands(
        START, trials=trials, cubeful=False, variance_reduction=variance_reduction
    )
    t0 = time.perf_counter()
    gnubg_program.run(commands, terminal=True)
    return time.perf_counter() - t0


def gnubg_rate(variance_reduction: bool) -> float:
    """gnubg's games per second, its start-up time subtracted."""
    small, large = GNUBG_TRIALS[variance_reduction]
    seconds = gnubg_seconds(large, variance_reduction) - gnubg_seconds(small, variance_reduction)
    return (large - small) / seconds


def bgfast_run(variance_reduction: bool, threads: int) -> tuple[float, float]:
    """bgfast's games per second and the equity's standard deviation per game."""
    games = GAMES[variance_reduction]
    t0 = time.perf_counter()
    r = bgfast.rollout(
        START, games=games, seed=1, threads=threads, variance_reduction=variance_reduction
    )
    seconds = time.perf_counter() - t0
    return games / seconds, r.stderr["equity"] * math.sqrt(games)


def table(rounds: int) -> None:
    rows: dict[str, list[float]] = {}
    spread: dict[bool, float] = {}
    for k in range(rounds):
        for vr in (False, True):
            rows.setdefault(f"gnubg {vr}", []).append(gnubg_rate(vr))
            # One and two threads take turns, the first of them alternating between rounds.
            for threads in (1, 2) if k % 2 == 0 else (2, 1):
                rate, sd = bgfast_run(vr, threads)
                rows.setdefault(f"bgfast {vr} {threads}", []).append(rate)
                if threads == 1:  # the last table is about one thread
                    spread[vr] = sd
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"medians of {rounds} interleaved rounds; load average {_load()}")
    print("| rollout, opening, 1 thread | gnubg games/s | bgfast games/s | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for vr, name in ((False, "cubeless, plain"), (True, "cubeless, variance reduction")):
        g, b = med[f"gnubg {vr}"], med[f"bgfast {vr} 1"]
        print(f"| {name} | {g:,.1f} | {b:,.0f} | {b / g:.1f}x | 10x |")
    print()
    print("| bgfast, 2 threads vs 1 | 1 thread | 2 threads | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for vr, name in ((False, "plain"), (True, "variance reduction")):
        one, two = med[f"bgfast {vr} 1"], med[f"bgfast {vr} 2"]
        print(f"| {name} | {one:,.0f} | {two:,.0f} | {two / one:.2f}x | 1.7x |")
    print()
    plain, vr_games = GAMES[False], GAMES[True]
    print(f"sd of a game from the one-thread runs of {plain:,} plain and {vr_games:,} VR games:")
    print("| bgfast, one thread | sd of a game's equity | games/s | stderr after 1 s |")
    print("|---|---:|---:|---:|")
    for vr, name in ((False, "plain"), (True, "variance reduction")):
        rate = med[f"bgfast {vr} 1"]
        print(f"| {name} | {spread[vr]:.3f} | {rate:,.0f} | {spread[vr] / math.sqrt(rate):.4f} |")


def variance_reduction_effect(positions: int, games: int, policy: str) -> None:
    """The standard error with variance reduction over the one without, at equal games, on
    contact positions of the wildbg corpus (every 97th line), and pooled over them; and the
    games per second of one thread with and without it, from the start."""
    ids = (DATA / "wildbg_contact.csv").read_text().split()[::97][:positions]
    print(f"variance reduction at {games} games a rollout, both with the same seed, {policy}:")
    print("| position | stderr plain | stderr with VR | ratio |")
    print("|---|---:|---:|---:|")
    plain_total = vr_total = 0.0
    for pid in ids:
        se = [
            bgfast.rollout(pid, games=games, seed=1, policy=policy, variance_reduction=vr).stderr[
                "equity"
            ]
            for vr in (False, True)
        ]
        plain_total += se[0] ** 2
        vr_total += se[1] ** 2
        print(f"| {pid} | {se[0]:.4f} | {se[1]:.4f} | {se[1] / se[0]:.2f} |")
    print(f"| pooled | | | {math.sqrt(vr_total / plain_total):.2f} |")
    for vr, n in ((False, 2000), (True, 100)):
        r = bgfast.rollout(START, games=n, seed=1, policy=policy, variance_reduction=vr, threads=1)
        spread = r.stderr["equity"] * math.sqrt(n)
        print(
            f"from the start, one thread, variance reduction {vr}: {r.games_per_second:,.1f}"
            f" games/s, sd of a game {spread:.3f},"
            f" stderr after 1 s {spread / math.sqrt(r.games_per_second):.4f}"
        )


def paired_effect(games: int, policy: str) -> None:
    """The opening 31's best plays on common dice: each difference's paired standard error
    beside the unpaired one (what independent dice would give), full games and truncated."""
    for truncate in (None, 10):
        ranked = bgfast.rollout_moves(
            START, (3, 1), top=5, games=games, seed=99, truncate=truncate, policy=policy
        )
        best = ranked[0].result
        print(f"opening 31, {games} games a play, truncate={truncate}:")
        print("| play | equity | diff | paired stderr | unpaired stderr | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for m in ranked:
            unpaired = math.hypot(m.result.stderr["equity"], best.stderr["equity"])
            ratio = f"{m.diff_stderr / unpaired:.2f}" if m.diff_stderr else ""
            print(
                f"| {m.move} | {m.result.equity:+.4f} | {m.diff:+.4f} | {m.diff_stderr:.4f} |"
                f" {unpaired:.4f} | {ratio} |"
            )
        print()


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:  # pragma: no cover - not Linux
        return "?"


# ------------------------------------------------------------------ pytest-benchmark


@pytest.mark.parametrize("variance_reduction", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_bgfast_rollout(benchmark: Any, variance_reduction: bool, threads: int) -> None:
    games = GAMES[variance_reduction] // 8  # the same on one thread and on two
    r = benchmark(
        lambda: bgfast.rollout(
            START, games=games, seed=1, threads=threads, variance_reduction=variance_reduction
        )
    )
    assert r.games == games


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_gnubg_rollout(benchmark: Any, variance_reduction: bool) -> None:
    try:
        subprocess.run([gnubg_program.PROGRAM, "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("GNU Backgammon's program is not installed (apt-get install gnubg)")
    large = GNUBG_TRIALS[variance_reduction][1]
    # One whole run of the larger trial count (start-up included).
    benchmark.pedantic(gnubg_seconds, args=(large, variance_reduction), rounds=1, iterations=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--vr-positions", type=int, default=0, help="also the VR effect on N contact positions"
    )
    parser.add_argument(
        "--paired", type=int, default=0, help="also the opening 31's plays on N common games"
    )
    parser.add_argument(
        "--policy", default="wildbg", help="bgfast's policy for --vr-positions and --paired"
    )
    args = parser.parse_args()
    if args.rounds:
        table(args.rounds)
    if args.vr_positions:
        print()
        variance_reduction_effect(args.vr_positions, 1296, args.policy)
    if args.paired:
        print()
        paired_effect(args.paired, args.policy)
