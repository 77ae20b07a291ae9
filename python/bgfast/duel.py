"""Duels: head-to-head cubeless money games between two policies, on common dice.

``bgfast.duel(a, b, games=..., seed=...)`` plays ``games`` games from the standard start
between policies ``a`` and ``b`` (``"wildbg"``, ``"pubeval"``, ``"race"``, ``"random"`` or a
``bgfast.Net``). Each deal of dice (an opening roll, R3, and every roll after it) is played
twice: once with ``a`` on roll first, once with ``b`` on the same dice, so the luck of the
dice cancels between the two games and what remains is the difference in play. The result is
``a``'s points per game (single 1, gammon 2, backgammon 3) with its standard error from the
spread of the deals (the two games of a deal are not independent; the deals are) and a 95%
interval.

Reproducible: deal ``k`` takes its dice from ``(seed, k)`` alone and results are integer
counts, so the same seed gives the same result on any number of threads.
"""

from __future__ import annotations

import math
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from bgfast import _core
from bgfast._core import BgfastError
from bgfast._running import Z95, Progress, check_progress, finite, run_in_chunks
from bgfast.policies import Policy, check_policy, policy_name

__all__ = ["DuelResult", "duel"]


@dataclass(frozen=True)
class DuelResult:
    """What a duel found, for policy ``a``.

    ``points_per_game`` is ``a``'s mean cubeless points per game (negative when ``b`` plays
    better); ``stderr`` its standard error and ``ci95`` its 95% interval. ``wins`` and
    ``losses`` count ``a``'s games by kind (single, gammon, backgammon); ``truncated`` the
    games stopped unfinished at the ply limit (0 points). ``partial`` is true when Ctrl-C
    stopped the duel: it then counts the deals that finished.
    """

    a: str
    b: str
    seed: int
    counts: tuple[int, int, int, int, int, int, int, int, int, int]
    seconds: float
    threads: int
    partial: bool
    games: int = field(init=False)
    points_per_game: float = field(init=False)
    stderr: float = field(init=False)
    ci95: tuple[float, float] = field(init=False)
    wins: tuple[int, int, int] = field(init=False)
    losses: tuple[int, int, int] = field(init=False)
    truncated: int = field(init=False)

    def __post_init__(self) -> None:
        deals, points, squares, ws, wg, wb, ls, lg, lb, truncated = self.counts
        games = 2 * deals
        mean = points / games if games else math.nan
        if deals > 1:
            deal_mean = points / deals
            variance = max(0.0, (squares - deals * deal_mean * deal_mean) / (deals - 1))
            stderr = math.sqrt(variance / deals) / 2
        else:
            stderr = math.nan
        values = {
            "games": games,
            "points_per_game": mean,
            "stderr": stderr,
            "ci95": (mean - Z95 * stderr, mean + Z95 * stderr),
            "wins": (ws, wg, wb),
            "losses": (ls, lg, lb),
            "truncated": truncated,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready values (NaN as ``None``)."""
        low, high = self.ci95
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            "games": self.games,
            "points_per_game": finite(self.points_per_game),
            "stderr": finite(self.stderr),
            "ci95": [finite(low), finite(high)],
            "wins": list(self.wins),
            "losses": list(self.losses),
            "truncated": self.truncated,
            "seconds": self.seconds,
            "threads": self.threads,
            "partial": self.partial,
        }

    def __str__(self) -> str:
        low, high = self.ci95
        return (
            f"{self.a} vs {self.b}: {self.points_per_game:+.4f} points per game for"
            f" {self.a} (stderr {self.stderr:.4f}, 95% CI {low:+.4f} to {high:+.4f}),"
            f" {self.games:,} games on common dice, seed {self.seed}"
            + (" (interrupted)" if self.partial else "")
        )


def duel(
    a: Policy,
    b: Policy,
    *,
    games: int = 10_000,
    seed: int | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> DuelResult:
    """Plays ``games`` cubeless money games between policies ``a`` and ``b`` on common dice
    (each deal twice, sides swapped; ``games`` must be even) and returns ``a``'s
    ``DuelResult``. ``seed`` fixes the dice (a random one is drawn and reported when
    ``None``); ``threads`` defaults to every CPU; ``progress(done, total)`` is called as
    games finish. Ctrl-C stops the duel and returns what finished with ``partial=True``.
    """
    a, b = check_policy(a, "policy a"), check_policy(b, "policy b")
    games = _core.check_int("games", games, 2, 2**64 - 2)
    if games % 2:
        raise BgfastError(f"games must be even (each deal is played twice), got {games}")
    if seed is None:
        seed = secrets.randbits(63)
    seed = _core.check_int("seed", seed, 0, 2**64 - 1)
    threads = _core.check_threads(threads)
    check_progress(progress)
    deals = games // 2
    tally = [0] * 10

    def play(done: int, size: int) -> None:
        nonlocal tally
        part = _core.duel_tally(a, b, done, size, seed, threads)
        tally = [x + y for x, y in zip(tally, part)]

    def games_done(deals_done: int, _deals: int) -> None:
        if progress is not None:
            progress(2 * deals_done, games)

    start = time.perf_counter()
    partial = run_in_chunks(deals, max(16, 8 * threads), 1, play, games_done)
    d, p, sq, ws, wg, wb, ls, lg, lb, tr = tally
    return DuelResult(
        a=policy_name(a),
        b=policy_name(b),
        seed=seed,
        counts=(d, p, sq, ws, wg, wb, ls, lg, lb, tr),
        seconds=time.perf_counter() - start,
        threads=threads,
        partial=partial,
    )
