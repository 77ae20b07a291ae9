"""Match analysis side by side: ``bgfast.analyse`` (wildbg's nets) and GNU Backgammon's
``analyse match`` (its own nets), both at 0 ply on one thread, on the same files.

Speed: a 7-point match (``tests/data/matches/noisy_7pt_seed1.mat``), the two programs
taking turns for ``--rounds`` rounds; GNU Backgammon's time is its run with ``analyse
match`` minus the same run without it (so its start-up and the file import cancel),
bgfast's the call of ``bgfast.analyse`` on the match already read: the first call after
GNU Backgammon's run (caches cold, the core just woken) and the best of three calls in a
row, each round; with the shipped net (``Net.wildbg()``) and with wildbg's larger nets
rating the decisions (``Net.wildbg_large()``, the luck measured by the shipped net, as
``analyse`` does by default). Error rates: 7-point matches GNU Backgammon plays against
itself, one player with evaluation noise, analysed by both programs (``show statistics
match`` beside ``Analysis.players``), bgfast with either net.

    python benches/bench_analyse.py                              # the BENCHMARKS.md tables
    python -m pytest benches/bench_analyse.py --benchmark-only   # bgfast alone
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

import bgfast
import bgfast.policies

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import gnubg_matches

import gnubg_program

TESTS = Path(__file__).resolve().parent.parent / "tests"
SPEED_MATCH = TESTS / "data" / "matches" / "noisy_7pt_seed1.mat"


def _gnubg_seconds(path: Path, analyse: bool) -> float:
    commands = [
        "set threads 1",
        "set analysis chequerplay evaluation plies 0",
        "set analysis cubedecision evaluation plies 0",
        f"import mat {path}",
    ]
    if analyse:
        commands.append("analyse match")
    start = time.perf_counter()
    gnubg_program.run(commands)
    return time.perf_counter() - start


def _timed(match: bgfast.Match, net: bgfast.Net, decisions: int) -> list[float]:
    """Three calls of ``bgfast.analyse`` in a row, their seconds."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        again = bgfast.analyse(match, net, threads=1)
        times.append(time.perf_counter() - start)
        assert len(again.decisions) == decisions
    return times


def speed(rounds: int) -> None:
    """GNU Backgammon's ``analyse match`` against ``bgfast.analyse`` on one thread."""
    text = SPEED_MATCH.read_text(encoding="utf-8")
    match = bgfast.Match.from_mat(text)
    nets = {"wildbg": bgfast.Net.wildbg(), "wildbg-large": bgfast.Net.wildbg_large()}
    analysis = bgfast.analyse(match, nets["wildbg"], threads=1)  # warm: the nets, the tables
    bgfast.analyse(match, nets["wildbg-large"], threads=1)
    decisions = len(analysis.decisions)
    first: dict[str, list[float]] = {name: [] for name in nets}
    best: dict[str, list[float]] = {name: [] for name in nets}
    full: list[float] = []
    base: list[float] = []
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "m.mat")
        path.write_text(text, encoding="utf-8")
        for _ in range(rounds):
            base.append(_gnubg_seconds(path, analyse=False))
            full.append(_gnubg_seconds(path, analyse=True))
            for name, net in nets.items():
                times = _timed(match, net, decisions)
                first[name].append(times[0])  # the first call after GNU Backgammon's run
                best[name].append(min(times))
            load = max(load, os.getloadavg()[0])
    theirs = statistics.median(full) - statistics.median(base)
    games = len(match.games)
    rolls = sum(p.rolls for p in analysis.players)
    print(
        f"{SPEED_MATCH.name}: {games} games, {rolls} rolls, {decisions} decisions; medians of"
        f" {rounds} interleaved rounds; load average up to {load:.2f}"
    )
    print("| analysis, 0 ply, one thread | seconds | bgfast faster |\n|---|---:|---:|")
    print(f"| GNU Backgammon `analyse match` | {theirs:.3f} | |")
    for name in nets:
        for label, times in (
            ("the first call after GNU Backgammon's", first[name]),
            ("the best of three calls in a row", best[name]),
        ):
            mine = statistics.median(times)
            print(f"| `bgfast.analyse`, {name}, {label} | {mine:.3f} | {theirs / mine:.1f}x |")
    print(
        f"(GNU Backgammon's run without the analysis: median {statistics.median(base):.3f} s;"
        f" with it {statistics.median(full):.3f} s)"
    )


def side_by_side(seeds: list[int], noise: float) -> None:
    """Both programs' error rates on 7-point matches with one noisy player, bgfast's with the
    shipped net and with the larger one."""
    nets = {"wildbg": bgfast.Net.wildbg(), "wildbg-large": bgfast.Net.wildbg_large()}
    print(
        f"\n7-point matches GNU Backgammon played against itself at 0 ply, player 0's chequer"
        f" play and cube decisions with noise {noise}:\n"
    )
    print(
        "| seed | player | gnubg | bgfast wildbg | ratio | bgfast wildbg-large | ratio |"
        " gnubg rating | bgfast ratings | gnubg s | bgfast s |"
        "\n|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|"
    )
    ratios: dict[str, list[float]] = {name: [] for name in nets}
    for seed in seeds:
        made = gnubg_matches.play_match(7, seed, noise=(noise, 0.0))
        match = bgfast.Match.from_mat(made.mat)
        (g0, g1), gnubg_seconds = gnubg_matches.analyse(made.mat)
        players = {}
        seconds = {}
        for name, net in nets.items():
            start = time.perf_counter()
            players[name] = bgfast.analyse(match, net, threads=1).players
            seconds[name] = time.perf_counter() - start
        for p, (g, who) in enumerate(zip((g0, g1), ("noisy", "clean"))):
            cells = []
            for name in nets:
                rate = players[name][p].error_rate
                ratio = rate / g.error_rate if g.error_rate else float("inf")
                if who == "noisy":
                    ratios[name].append(ratio)
                cells.append(f"{rate:.1f} | " + (f"{ratio:.2f}" if g.error_rate else "-"))
            ratings = " / ".join(players[name][p].rating for name in nets)
            times = " / ".join(f"{seconds[name]:.2f}" for name in nets)
            print(
                f"| {seed} | {who} | {g.error_rate:.1f} | {' | '.join(cells)} | {g.rating} |"
                f" {ratings} | {gnubg_seconds:.2f} | {times} |"
            )
    for name, found in ratios.items():
        print(
            f"\nnoisy player, bgfast ({name}) over GNU Backgammon: median"
            f" {statistics.median(found):.2f}, from {min(found):.2f} to {max(found):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=6, help="matches in the error-rate table")
    parser.add_argument("--noise", type=float, default=0.04)
    args = parser.parse_args()
    speed(args.rounds)
    if args.seeds:
        side_by_side(list(range(1, args.seeds + 1)), args.noise)


# ---------------------------------------------------------------------------- pytest


@pytest.mark.parametrize("name", ["wildbg", "wildbg-large"])
def test_analyse_7pt(benchmark, name: str) -> None:  # type: ignore[no-untyped-def]
    match = bgfast.Match.from_mat(SPEED_MATCH.read_text(encoding="utf-8"))
    net = bgfast.policies.net_of(name)
    assert net is not None
    expected = len(bgfast.analyse(match, net, threads=1).decisions)
    benchmark.group = f"analyse a 7-point match, one thread, {name}"
    analysis = benchmark(bgfast.analyse, match, net, 1)
    assert len(analysis.decisions) == expected


if __name__ == "__main__":
    main()
