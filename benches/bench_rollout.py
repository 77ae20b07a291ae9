"""Playouts side by side: bgfast vs Python loops over GNU Backgammon's and bgsage's move lists.

Each contender plays complete cubeless games from the standard start, the same policy for
both sides. ``random`` picks uniformly among the distinct legal results; ``pubeval`` plays
the result with the best pubeval score (GNU Backgammon's ``pub_eval_score`` in its loop and
on bgsage's boards, which has none of its own). bgfast plays with ``bearoff=None``, so its
games do not stop at the exact bear-off database either, and every one must end with a side
that has borne off 15 (``RolloutResult.ends["finished"]``); a peer's game ends only when a
side has borne off 15. The contenders take turns in each of three rounds (best round each),
so a burst of load from other jobs hits them alike; a peer that is not installed is left out
with a line saying so (under pytest, its tests are skipped).

    python -m pytest benches/bench_rollout.py --benchmark-only   # pytest-benchmark
    python benches/bench_rollout.py                              # the BENCHMARKS.md table
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

import bgfast

try:
    import bgsage
except ImportError:  # pragma: no cover - optional peer
    bgsage = None

#: The peers' Python modules, by contender: a missing one skips only that contender.
PEER_MODULES = {
    "gnubg_nn.moves loop": ("gnubg_nn",),
    # bgsage's pubeval games score with GNU Backgammon's pubeval.
    "bgsage.possible_moves loop": ("bgsage", "gnubg_nn"),
}

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
    # bearoff=None: whole games, as the peers play them (the default, "exact", ends a game
    # once it enters the two-sided bear-off database and counts its exact value).
    r = bgfast.rollout(games=games, policy=policy, seed=1, threads=threads, bearoff=None)
    assert r.games == games and r.win + r.lose == 1.0
    assert r.ends["finished"] == games, f"not every game was played out: {r.ends}"
    return r.games


def run_peer(game: Callable[[random.Random], int], games: int) -> int:
    rng = random.Random(1)
    results = [game(rng) for _ in range(games)]
    assert all(r != 0 for r in results)
    return len(results)


def missing_peer(name: str) -> str | None:
    """The first module contender ``name`` needs that is not installed, or None."""
    for module in PEER_MODULES.get(name, ()):
        if importlib.util.find_spec(module) is None:
            return module
    return None


def contenders() -> dict[str, Callable[[str, int], int]]:
    """Name -> run(policy, games), every contender whether installed or not."""
    return {
        "bgfast (1 thread)": lambda p, n: run_bgfast(p, n, 1),
        "bgfast (2 threads)": lambda p, n: run_bgfast(p, n, 2),
        "gnubg_nn.moves loop": lambda p, n: run_peer(lambda r: gnubg_game(r, p), n),
        "bgsage.possible_moves loop": lambda p, n: run_peer(lambda r: bgsage_game(r, p), n),
    }


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
    for module in PEER_MODULES.get(name, ()):
        pytest.importorskip(module)
    table = contenders()
    games = GAMES["bgfast"] if name.startswith("bgfast") else GAMES["peer"]
    benchmark.group = f"playouts-{policy}"
    played = benchmark.pedantic(table[name], args=(policy, games), rounds=3, iterations=1)
    benchmark.extra_info["games"] = games
    benchmark.extra_info["correct"] = played == games


def installed_contenders() -> dict[str, Callable[[str, int], int]]:
    """The contenders whose modules are installed; a line on stdout for each one left out."""
    table = {}
    for name, run in contenders().items():
        module = missing_peer(name)
        if module is None:
            table[name] = run
        else:
            print(f"({name}: {module} is not installed, left out)")
    return table


ROUNDS = 3


def best_rates(policy: str, table: dict[str, Callable[[str, int], int]]) -> dict[str, float]:
    """Each contender's best games/s over ROUNDS rounds in which the contenders take turns
    (one thread, then two, then the peers), so that no contender's runs all fall in one
    stretch of a shared host's load."""
    best = dict.fromkeys(table, 0.0)
    for _ in range(ROUNDS):
        for name, run in table.items():
            games = GAMES["bgfast"] if name.startswith("bgfast") else GAMES["peer"]
            t = time.perf_counter()
            assert run(policy, games) == games
            best[name] = max(best[name], games / (time.perf_counter() - t))
    return best


def main() -> None:
    """Prints the BENCHMARKS.md table: games/s, best of three interleaved rounds, and the
    speed-ups."""
    table = installed_contenders()
    print("| policy | contender | games | games/s | bgfast 1 thread vs this |")
    print("|---|---|---:|---:|---:|")
    for policy in ("random", "pubeval"):
        rates = best_rates(policy, table)
        base = rates["bgfast (1 thread)"]
        for name, rate in rates.items():
            games = GAMES["bgfast"] if name.startswith("bgfast") else GAMES["peer"]
            print(f"| {policy} | {name} | {games} | {rate:,.0f} | {base / rate:,.1f}x |")


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
