"""GNU Backgammon's verdict on how ``bgfast serve gnubg-external`` chooses plays in match
play: the play of the highest cubeful value at the board's stakes (what the server plays)
against the net's best cubeless money play (what it played before), on the same boards.

Positions come from games the net plays against itself (2 to 40 plies from the start),
each given a random 5-point match score, a Crawford game at half the 1-away scores, a cube
of 2 owned by either side in two fifths of the others, and a random roll. Where the two
plays differ, gnubg (0 ply, ``hint``: cubeful match equity, in EMG) values both; the table
gives the mean of the server's play's value less the other's, with its standard error, by
kind of score.

    python benches/gnubg_external_plays.py [--cases 600] [--policy wildbg|wildbg-large]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import gnubg_external

from bgfast import Net, Position, codec
from bgfast.serve_gnubg import ExternalPlayer

import gnubg_program

LENGTH = 5


@dataclasses.dataclass(frozen=True)
class Case:
    gnubg_id: str
    cubeless: str  # the net's best play by cubeless money equity
    cubeful: str  # the server's play
    kind: str  # "Crawford game", "post-Crawford", "cube owned", "cube centred"


def _cases(policy: str, wanted: int, seed: int) -> tuple[list[Case], int]:
    net = Net.wildbg() if policy == "wildbg" else Net.wildbg_large()
    player = ExternalPlayer(policy)
    rng = random.Random(seed)
    cases: list[Case] = []
    tried = 0
    while len(cases) < wanted:
        position = Position()
        for _ in range(rng.randrange(2, 40)):
            if position.outcome is not None:
                break
            position = net.best_move(position, (rng.randint(1, 6), rng.randint(1, 6))).result
        if position.outcome is not None:
            continue
        score = (rng.randrange(LENGTH), rng.randrange(LENGTH))
        one_away = [LENGTH - s == 1 for s in score].count(True)
        crawford = one_away == 1 and rng.random() < 0.5
        cube: tuple[int, int | None] = (1, None)
        if not crawford and rng.random() < 0.4:
            cube = (2, rng.randrange(2))
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        state = gnubg_external.state_to_act(
            position, dice, cube=cube, match_length=LENGTH, score=score, crawford=crawford
        )
        tried += 1
        cubeless = str(net.best_move(position, dice))
        cubeful = player.reply(gnubg_external.board_line(state))
        if cubeless != cubeful:
            kind = (
                "Crawford game"
                if crawford
                else "post-Crawford"
                if one_away
                else "cube owned"
                if cube[0] > 1
                else "cube centred"
            )
            cases.append(Case(codec.gnubg_id_of(state), cubeless, cubeful, kind))
    return cases, tried


def _gnubg_values(cases: list[Case]) -> list[dict[str, float]]:
    """gnubg's 0-ply cubeful equity (EMG) of every play, board by board."""
    commands = ["set threads 1", f"new match {LENGTH}"]
    commands.append("set evaluation chequerplay evaluation plies 0")
    for case in cases:
        commands += [f"set gnubgid {case.gnubg_id}", "hint 999"]
    output = gnubg_program.run([*commands, "quit"], timeout=3600)
    blocks = output.split("Setting GNUbg ID")[1:]
    assert len(blocks) == len(cases), (len(blocks), len(cases))
    line = re.compile(r"^\s*\d+\. Cubeful 0-ply\s+(.*?)\s+Eq\.:\s+([+-]\d+\.\d+)", re.M)
    return [
        {" ".join(m.group(1).split()): float(m.group(2)) for m in line.finditer(block)}
        for block in blocks
    ]


def _row(name: str, gains: list[float]) -> str:
    n = len(gains)
    mean = sum(gains) / n
    sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1)) if n > 1 else 0.0
    better = sum(g > 0 for g in gains) / n
    worse = sum(g < 0 for g in gains) / n
    return f"| {name} | {n} | {mean:+.4f} | {sd / math.sqrt(n):.4f} | {better:.2f} | {worse:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=600, help="boards where the plays differ")
    parser.add_argument("--policy", default="wildbg", choices=["wildbg", "wildbg-large"])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    cases, tried = _cases(args.policy, args.cases, args.seed)
    print(f"policy {args.policy}: the plays differ on {len(cases)} of {tried} boards")
    by_kind: dict[str, list[float]] = defaultdict(list)
    for case, values in zip(cases, _gnubg_values(cases)):
        gain = values[" ".join(case.cubeful.split())] - values[" ".join(case.cubeless.split())]
        by_kind[case.kind].append(gain)
    print("| boards | n | server's play less the cubeless one, EMG | stderr | better | worse |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in ("cube centred", "cube owned", "Crawford game", "post-Crawford"):
        if by_kind[kind]:
            print(_row(kind, by_kind[kind]))
    print(_row("all", [g for gains in by_kind.values() for g in gains]))


if __name__ == "__main__":
    main()
