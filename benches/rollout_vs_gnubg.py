"""Rollouts side by side: bgfast (wildbg's nets) and GNU Backgammon's program (its own
nets), the same positions and settings, cubeless and cubeful, with their standard errors.

Both play 0-ply, quasi-random dice, exact two-sided bear-offs (gnubg's one-sided
truncation off), the Jacoby rule and beavers off, no truncation, no variance reduction.
The nets differ, so the numbers are two estimates of two players' equities, not of one:
they should agree within a few hundredths in races, less closely in contact.

    python benches/rollout_vs_gnubg.py [--games 5184]   # the BENCHMARKS.md table
    python benches/rollout_vs_gnubg.py --policy wildbg-large    # bgfast with the larger nets
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import bgfast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import gnubg_program

#: (label, Position ID, match) of the table: two races and two contact positions from the
#: wildbg corpora and the opening, money, and one of them at 3-4 in a 7-point match
#: (the side on roll 4-away, the other 3-away).
CASES = [
    ("race, 52 against 56 pips", "t9sFAQBv20UAAA", None),
    ("race, 86 against 81 pips", "yr+TAADO9gMGAA", None),
    ("opening (side on roll)", "4HPwATDgc/ABMA", None),
    ("contact, corpus", "zJ2DAQwbzoMDQA", None),
    ("contact, 7-point match 3-4", "zJ2DAQwbzoMDQA", (7, 3, 4)),
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games", type=int, default=5184, help="games a position, in each program (5184)"
    )
    parser.add_argument("--policy", default="wildbg", help="bgfast's policy (wildbg-large, ...)")
    args = parser.parse_args()
    print(f"games per rollout: {args.games}; seed 1 in both programs; bgfast plays {args.policy}")
    print(
        "| position | rollout | gnubg | bgfast | difference | gnubg s | bgfast s |\n"
        "|---|---|---:|---:|---:|---:|---:|"
    )
    for label, pid, match in CASES:
        for cubeful in (False, True):
            t0 = time.perf_counter()
            values, errors = gnubg_program.rollout(
                pid, trials=args.games, cubeful=cubeful, match=match
            )
            gnubg_seconds = time.perf_counter() - t0
            t0 = time.perf_counter()
            kwargs: dict[str, object] = {}
            if match is not None:
                length, mine, theirs = match
                kwargs = dict(match_length=length, score=(mine, theirs))
            r = bgfast.rollout(
                pid,
                games=args.games,
                policy=args.policy,
                seed=1,
                threads=1,
                cubeful=cubeful,
                **kwargs,  # type: ignore[arg-type]
            )
            ours_seconds = time.perf_counter() - t0
            if cubeful:
                theirs_v, theirs_e = values.cubeful, errors.cubeful
                name = "cubeful" + (" EMG" if match else "")
                mine_v = r.emg if match else r.cubeful_equity
                mine_e = r.stderr["emg" if match else "cubeful_equity"]
            else:
                theirs_v, theirs_e = values.cubeless, errors.cubeless
                name = "cubeless" + (" EMG" if match else "")
                mine_v = r.emg if match else r.equity
                mine_e = r.stderr["emg" if match else "equity"]
            assert theirs_v is not None and theirs_e is not None and mine_v is not None
            diff = mine_v - theirs_v
            together = math.hypot(mine_e, theirs_e)
            print(
                f"| {label} | {name} | {theirs_v:+.3f} ± {theirs_e:.3f} |"
                f" {mine_v:+.3f} ± {mine_e:.3f} | {diff:+.3f} ({diff / together:+.1f} se) |"
                f" {gnubg_seconds:.1f} | {ours_seconds:.1f} |"
            )


if __name__ == "__main__":
    main()
