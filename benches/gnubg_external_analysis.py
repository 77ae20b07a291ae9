"""GNU Backgammon's judgement of ``bgfast serve gnubg-external``'s play: gnubg (0 ply) plays
5-point matches against the server, then analyses each match at 0 ply (``analyse match``,
``show statistics match``); the error rates of the server's side are summed over the
matches (each match's error total over its decisions, gnubg's "Error rate mEMG").

Every match is also replayed against the server's log (every play legal and the one the
server sent), as the test suite does.

    python benches/gnubg_external_analysis.py [--matches 20] [--policy wildbg]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import gnubg_external


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--policy", default="wildbg")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    totals = {"checker": [0.0, 0], "cube": [0.0, 0]}
    started = time.perf_counter()
    print("| match | server as | checker decisions | mEMG | cube decisions | mEMG | overall |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with gnubg_external.Server(args.policy) as server:
        for k in range(args.matches):
            player = k % 2
            output, mat = gnubg_external.play_match(
                server.address,
                length=args.length,
                seed=args.seed + k,
                player=player,
                analyse=True,
            )
            # one connection a match, numbered from 1 in order
            records = [r for r in server.records() if r["connection"] == k + 1]
            gnubg_external.replay(mat, player, records)
            s = gnubg_external.statistics(output, player)
            totals["checker"][0] += s.checker_rate * s.checker_decisions
            totals["checker"][1] += s.checker_decisions
            totals["cube"][0] += s.cube_rate * s.cube_decisions
            totals["cube"][1] += s.cube_decisions
            print(
                f"| {k + 1} | {player} | {s.checker_decisions} | {s.checker_rate:.1f} |"
                f" {s.cube_decisions} | {s.cube_rate:.1f} | {s.overall_rate:.1f} |",
                flush=True,
            )
    checker = totals["checker"][0] / max(1, totals["checker"][1])
    cube = totals["cube"][0] / max(1, totals["cube"][1])
    decisions = totals["checker"][1] + totals["cube"][1]
    overall = (totals["checker"][0] + totals["cube"][0]) / max(1, decisions)
    print(
        f"\n{args.matches} matches, policy {args.policy}: checker play {checker:.1f} mEMG per"
        f" unforced move ({totals['checker'][1]}), cube {cube:.1f} mEMG per cube decision"
        f" ({totals['cube'][1]}), both {overall:.1f} mEMG per decision;"
        f" {time.perf_counter() - started:.0f} s"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
