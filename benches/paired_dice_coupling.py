"""How much can the dice shared by two candidate plays' rollouts narrow their difference?

``bgfast.rollout_moves`` plays game ``k`` of every candidate on the same dice (common random
numbers). In full-length games of the opening 31 that makes the paired standard error of a
difference only a few percent smaller than the unpaired one (BENCHMARKS.md): the two games
part within a few rolls, and the same dice then mean different things. This script measures
two other ways to join the games' dice, both of which leave each game's dice fair:

- ``independent``: each candidate's own dice (the baseline, ratio 1);
- ``common``: the same roll in both games at each turn (what ``rollout_moves`` does);
- ``quantile``: the roll of the same luck rank. At each turn one uniform draw ``u`` of the
  36 dice outcomes picks, in each game, the outcome ranked ``u``-th by the value of its best
  play for the side to roll (the net's 0-ply view, ties in a fixed order). Each game's roll
  is uniform whatever happened before, so each candidate's rollout stays unbiased; a lucky
  roll in one game is a lucky roll in the other.

For each, the estimate is the cubeless result of the full game, and also with lookahead
variance reduction (the luck of each roll, from the same 21-roll values, subtracted). The
games are played by the net's cubeless best play (the policy of ``rollout``; ``--net``:
the shipped nets or the larger ones), in Python, one turn at a time: a measurement, not a
fast path.

    python benches/paired_dice_coupling.py --games 2000 --other 24/20
    python benches/paired_dice_coupling.py --games 600 --net wildbg-large \
        --couplings quantile,common
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import bgfast
from bgfast import Position, batch

#: The roll of each of the 36 dice outcomes: the 15 non-doubles (in ``batch.all_rolls``'
#: order) twice each, then the 6 doubles.
OUTCOMES = np.array([k for k in range(15) for _ in (0, 1)] + list(range(15, 21)))

#: Points a finished game scores, by its kind.
POINTS = {"single": 1, "gammon": 2, "backgammon": 3}


class Turn:
    """The 21 rolls of one position: each roll's best result and its value for the side to
    roll (the net's cubeless equity)."""

    def __init__(self, net: bgfast.Net, position: Position) -> None:
        board = position.to_array()[None]
        offsets, chances = net.score_rolls(board)
        _, results, _ = batch.all_rolls(board)
        p = chances.astype(np.float64)
        # The chances are the opponent's, on roll in each result.
        theirs = 2 * p[:, 0] - 1 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]
        self.values = np.empty(21)
        self.results: list[npt.NDArray[np.uint8]] = []
        for k in range(21):
            start, stop = offsets[k], offsets[k + 1]
            best = start + int(np.argmin(theirs[start:stop]))
            self.values[k] = -theirs[best]
            self.results.append(results[best])
        self.by_rank = np.argsort(self.values[OUTCOMES], kind="stable")
        self.mean = float(self.values[OUTCOMES].mean())


Chooser = Callable[[Turn, int, int, int], int]


def _independent(turn: Turn, game: int, u: int, v: int) -> int:
    return int(OUTCOMES[u if game == 0 else v])


def _common(turn: Turn, game: int, u: int, v: int) -> int:
    return int(OUTCOMES[u])


def _quantile(turn: Turn, game: int, u: int, v: int) -> int:
    return int(OUTCOMES[turn.by_rank[u]])


COUPLINGS: dict[str, Chooser] = {
    "independent": _independent,
    "common": _common,
    "quantile": _quantile,
}


def play_pair(
    net: bgfast.Net, starts: tuple[Position, Position], roll: Chooser, rng: np.random.Generator
) -> tuple[list[float], list[float]]:
    """Two games from ``starts`` (the opponent of the candidates' player on roll), on dice
    joined by ``roll``: each game's result and luck for the candidates' player."""
    positions = list(starts)
    sign = [-1.0, -1.0]  # the candidates' player's share of the side on roll's points
    results: list[float | None] = [None, None]
    luck = [0.0, 0.0]
    while None in results:
        u, v = int(rng.integers(36)), int(rng.integers(36))
        for game in (0, 1):
            if results[game] is not None:
                continue
            turn = Turn(net, positions[game])
            k = roll(turn, game, u, v)
            luck[game] += sign[game] * (turn.values[k] - turn.mean)
            after = Position.from_array(turn.results[k])
            if after.outcome is not None:
                # The roller won: the result is seen by the other side, on roll in it.
                results[game] = sign[game] * POINTS[after.outcome.kind]
            positions[game] = after
            sign[game] = -sign[game]
    return [float(r) for r in results if r is not None], luck


def measure(games: int, other: str, seed: int, net_name: str, couplings: list[str]) -> None:
    net = bgfast.Net.wildbg_large() if net_name == "wildbg-large" else bgfast.Net.wildbg()
    start = Position()
    starts = (start.play("8/5 6/5", (3, 1)), start.play(other, (3, 1)))
    print(
        f"opening 31: 8/5 6/5 against {other}, {games} games a coupling, seed {seed},"
        f" {net_name} plays and measures the luck"
    )
    print(
        f"{'coupling':<12} {'estimate':<9} {'diff':>6}  {'paired':>6}  {'unpaired':>6}  ratio"
        "  correlation"
    )
    for name in couplings:
        roll = COUPLINGS[name]
        rng = np.random.default_rng(seed)
        began = time.perf_counter()
        plain, reduced = [], []
        for _ in range(games):
            results, luck = play_pair(net, starts, roll, rng)
            plain.append(results)
            reduced.append([r - lk for r, lk in zip(results, luck)])
        for label, rows in (("full game", plain), ("with VR", reduced)):
            a, b = np.array(rows).T
            paired = float(np.std(a - b, ddof=1)) / np.sqrt(games)
            unpaired = float(np.sqrt((np.var(a, ddof=1) + np.var(b, ddof=1)) / games))
            print(
                f"{name:<12} {label:<9} {np.mean(a - b):+.3f}  {paired:.4f}  {unpaired:.4f}"
                f"  {paired / unpaired:5.2f}  {np.corrcoef(a, b)[0, 1]:+.2f}"
            )
        print(f"{'':12} ({time.perf_counter() - began:.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--other", default="24/20", help="the other candidate for the 31")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--net", choices=["wildbg", "wildbg-large"], default="wildbg")
    parser.add_argument(
        "--couplings",
        default=",".join(COUPLINGS),
        help=f"which to measure, comma-separated, of {', '.join(COUPLINGS)}",
    )
    args = parser.parse_args()
    couplings = args.couplings.split(",")
    if not set(couplings) <= set(COUPLINGS):
        parser.error(f"--couplings: choose from {', '.join(COUPLINGS)}")
    measure(args.games, args.other, args.seed, args.net, couplings)


if __name__ == "__main__":
    main()
