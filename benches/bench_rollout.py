"""Playouts side by side: bgfast vs Python loops over GNU Backgammon's and bgsage's move lists.

Each contender plays complete cubeless games from the standard start, the same policy for
both sides. ``random`` picks uniformly among the distinct legal results; ``pubeval`` plays
the result with the best pubeval score (GNU Backgammon's ``pub_eval_score`` in its loop, a
and on bgsage's boards, which has none of its own). Every game is
checked to end with a winner who has borne off 15 (``correct`` in the report).

    python -m pytest benches/bench_rollout.py --benchmark-only   # pytest-benchmark
    python benches/bench_rollout.py                              # the BENCHMARKS.md table
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

import bgfast

gnubg_nn = pytest.importorskip("gnubg_nn") if "pytest" in sys.modules else None
try:
    import bgsage
except ImportError:  # pragma: no cover - optional peer
    bgsage = None

START_ID = "4HPwATDgc/ABMA"


# ---------------------------------------------------------------- GNU Backgammon loop


def gnubg_game(rng: random.Random, policy: str) -> int:
    """One game with gnubg_nn.moves; returns the winner's points (+ for the first player)."""
    import gnubg_nn as g

    board = g.board_from_position_id(START_ID)  # board[1] is on roll
    ply = 0
    while True:
        keys = g.moves(board, rng.randint(1, 6), rng.randint(1, 6))
        if keys:
            if policy == "random" or len(keys) == 1:
                after = g.board_from_position_key(rng.choice(keys))
            else:
                # Score each result for the player who moved: pub_eval_score scores board[0].
                best, after = -1e30, None
                for key in keys:
                    b = g.board_from_position_key(key)
                    s = g.pub_eval_score([list(b[1]), list(b[0])])
                    if s > best:
                        best, after = s, b
            assert after is not None
            if sum(after[1]) == 0:
                return 1 if ply % 2 == 0 else -1
            board = (after[1], after[0])
        else:
            board = (board[1], board[0])
        ply += 1


# ---------------------------------------------------------------- bgsage loop


def to_gnubg(board: list[int]) -> list[list[int]]:
    """A bgsage board (Tesauro's layout) as GNU Backgammon's two rows, its player in row 0."""
    own = [max(board[i], 0) for i in range(1, 25)] + [board[25]]
    opp = [-min(board[25 - q], 0) for q in range(1, 25)] + [board[0]]
    return [own, opp]


def bgsage_game(rng: random.Random, policy: str) -> int:
    """One game with bgsage.possible_moves; returns the winner's points."""
    assert bgsage is not None
    board = list(bgsage.STARTING_BOARD)
    ply = 0
    while True:
        results = bgsage.possible_moves(board, rng.randint(1, 6), rng.randint(1, 6))
        if results:
            if policy == "random" or len(results) == 1:
                board = rng.choice(results)
            else:
                # bgsage has no pubeval: score each result with GNU Backgammon's.
                import gnubg_nn as g

                scores = [g.pub_eval_score(to_gnubg(b)) for b in results]
                board = results[scores.index(max(scores))]
            over = bgsage.check_game_over(board)
            if over:
                return over if ply % 2 == 0 else -over
        board = bgsage.flip_board(board)
        ply += 1


# ---------------------------------------------------------------- contenders


def run_bgfast(policy: str, games: int, threads: int) -> int:
    r = bgfast.rollout(games=games, policy=policy, seed=1, threads=threads)
    assert r.games == games and r.win + r.lose == 1.0
    return r.games


def run_peer(game: Callable[[random.Random], int], games: int) -> int:
    rng = random.Random(1)
    results = [game(rng) for _ in range(games)]
    assert all(r != 0 for r in results)
    return len(results)


def contenders() -> dict[str, Callable[[str, int], int]]:
    """Name -> run(policy, games); peers only when installed."""
    out: dict[str, Callable[[str, int], int]] = {
        "bgfast (1 thread)": lambda p, n: run_bgfast(p, n, 1),
        "bgfast (2 threads)": lambda p, n: run_bgfast(p, n, 2),
        "gnubg_nn.moves loop": lambda p, n: run_peer(lambda r: gnubg_game(r, p), n),
    }
    if bgsage is not None:
        out["bgsage.possible_moves loop"] = lambda p, n: run_peer(lambda r: bgsage_game(r, p), n)
    return out


GAMES = {"bgfast": 20_000, "peer": 40}


@pytest.mark.parametrize("policy", ["random", "pubeval"])
@pytest.mark.parametrize(
    "name",
    [
        "bgfast (1 thread)",
        "bgfast (2 threads)",
        "gnubg_nn.moves loop",
        "bgsage.possible_moves loop",
    ],
)
def test_playouts(benchmark: Any, name: str, policy: str) -> None:
    table = contenders()
    if name not in table:
        pytest.skip(f"{name} is not installed")
    games = GAMES["bgfast"] if name.startswith("bgfast") else GAMES["peer"]
    benchmark.group = f"playouts-{policy}"
    played = benchmark.pedantic(table[name], args=(policy, games), rounds=3, iterations=1)
    benchmark.extra_info["games"] = games
    benchmark.extra_info["correct"] = played == games


def main() -> None:
    """Prints the BENCHMARKS.md table: games/s, best of three runs, and the speedups."""
    table = contenders()
    print("| policy | contender | games | games/s | bgfast 1 thread vs this |")
    print("|---|---|---:|---:|---:|")
    for policy in ("random", "pubeval"):
        rates = {}
        for name, run in table.items():
            games = GAMES["bgfast"] if name.startswith("bgfast") else GAMES["peer"]
            best = 0.0
            for _ in range(3):
                t = time.perf_counter()
                assert run(policy, games) == games
                best = max(best, games / (time.perf_counter() - t))
            rates[name] = (games, best)
        base = rates["bgfast (1 thread)"][1]
        for name, (games, rate) in rates.items():
            print(f"| {policy} | {name} | {games} | {rate:,.0f} | {base / rate:,.1f}x |")


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
