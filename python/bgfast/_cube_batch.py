"""The cube model of :mod:`bgfast.cubeful`, over many positions at once (numpy).

Match analysis scores every candidate play of every roll of a match (about a hundred
thousand positions for a 7-point match, for the luck of each roll) by its cubeful value at
the score, and one native call a position (``bgfast._core.cube_values``) would cost more
than the net's evaluation of them. :class:`CubeModel` is the same model (Rick Janowski's,
as the engine's ``cube.rs`` has it: dead and live cube mixed by the cube life; money per
unit of the cube, match play in match-winning chances with the live cash points found
level by level from the match equity table) written over arrays of probabilities for one
set of stakes. ``tests/test_cube_batch.py`` checks it against the native model on random
chances and stakes; change the two together.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bgfast.cubeful import Stakes

__all__ = ["MODELS_KEPT", "CubeModel", "cube_model"]

#: Cube models kept by :func:`cube_model` (one per cube value, owner, score and cube life):
#: a server sent boards of ever new stakes drops the oldest rather than grow.
MODELS_KEPT = 1024

Floats = npt.NDArray[np.floating[Any]]
_Ratios = tuple[Floats, Floats, Floats, Floats]
_Levels = dict[int, tuple[Floats, Floats]]


@dataclass(frozen=True)
class _Met:
    size: int
    pre: list[float]
    post: list[float]

    def mwc(self, mine: int, theirs: int, post_crawford: bool) -> float:
        if mine <= 0:
            return 1.0
        if theirs <= 0:
            return 0.0

        def clamp(n: int) -> int:
            return min(n, self.size) - 1

        if post_crawford and mine == 1:
            return 1.0 - self.post[clamp(theirs)]
        if post_crawford and theirs == 1:
            return self.post[clamp(mine)]
        return self.pre[clamp(mine) * self.size + clamp(theirs)]


class CubeModel:
    """Cubeful values of the side to move (about to roll) for one set of stakes, over rows
    of gnubg's five chances: ``(N, 5)`` win, win gammon, win backgammon, lose gammon, lose
    backgammon. Values are what :func:`bgfast.cubeful.decide` gives row by row: money per
    unit of the cube now, match play in match-winning chances."""

    def __init__(self, stakes: Stakes, cube_life: float) -> None:
        self.stakes = stakes
        self.x = float(cube_life)
        self.value_of_cube = stakes.cube_value
        self.owner = stakes.cube_owner
        self.is_match = stakes.is_match
        self._memo: dict[tuple[int, int, int], float] = {}
        if self.is_match:
            native = stakes.native()
            pre, post = list(native[1]), list(native[2])
            self._met = _Met(len(post), pre, post)
            self._away = stakes.away
            self._crawford = stakes.crawford

    # ---------------------------------------------------------------- match helpers

    def _mwc_after(self, player: int, winner: int, points: int) -> float:
        """Player ``player``'s chances (0 the side to move) once ``winner`` won ``points``."""
        key = (player, winner, points)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._mwc_after_uncached(player, winner, points)
        return found

    def _mwc_after_uncached(self, player: int, winner: int, points: int) -> float:
        away = list(self._away)
        away[winner] -= points
        post = self._crawford or 1 in self._away
        return self._met.mwc(away[player], away[1 - player], post)

    def _counted(self, p: Floats) -> Floats:
        """``p`` laid out by column (:func:`_columns`), as the game scores it
        (:meth:`Stakes.counted`)."""
        return _columns(self.stakes.counted(p))

    def _may_turn(self) -> bool:
        """Whether anyone may double the cube again (twice it within the game's limit)."""
        return self.value_of_cube * 2 <= self.stakes.max_cube

    def may_double(self) -> bool:
        """Whether the side to move may double (the engine's ``CubeContext::may_double``)."""
        if self.owner == "opponent" or not self._may_turn():
            return False
        if not self.is_match:
            return True
        mine, theirs = self._away
        post_crawford = not self._crawford and 1 in (mine, theirs)
        return (
            not self._crawford and mine > self.value_of_cube and not (post_crawford and mine == 1)
        )

    # ---------------------------------------------------------------- values

    def dead(self, p: Floats) -> Floats:
        """The cubeless value (a dead cube)."""
        p = self._counted(p)
        win, wg, wbg, lg, lbg = (p[:, k] for k in range(5))
        if not self.is_match:
            if self.stakes.jacoby and self.owner == "centred":
                return 2.0 * win - 1.0
            return 2.0 * win - 1.0 + wg + wbg - lg - lbg
        c = self.value_of_cube
        won = [self._mwc_after(0, 0, k * c) for k in (1, 2, 3)]
        lost = [self._mwc_after(0, 1, k * c) for k in (1, 2, 3)]
        value: Floats = (
            lost[0]
            + win * (won[0] - lost[0])
            + wg * (won[1] - won[0])
            + wbg * (won[2] - won[1])
            - lg * (lost[0] - lost[1])
            - lbg * (lost[1] - lost[2])
        )
        return value

    def no_double(
        self, p: Floats, ratios: _Ratios | None = None, levels: _Levels | None = None
    ) -> Floats:
        """The value of not doubling now (Janowski, cube life ``x``). ``ratios`` and
        ``levels`` pass on what :meth:`value` worked out for the same rows."""
        p = self._counted(p)
        if not self._may_turn():
            return self.dead(p)  # nobody may double again: the cube is dead for both
        if self.is_match:
            ratios = self._ratios(p) if ratios is None else ratios
            return self._match_no_double(p, ratios, levels)
        return self._money_no_double(p)

    def double_take(
        self, p: Floats, ratios: _Ratios | None = None, levels: _Levels | None = None
    ) -> Floats:
        """The value of doubling when the opponent takes."""
        p = self._counted(p)
        if not self._may_turn():
            return self.no_double(p, ratios, levels)
        after = self._taken()
        value = after.no_double(p, ratios, levels)
        return 2.0 * value if not self.is_match else value

    def double_pass(self) -> float:
        """The value of doubling when the opponent passes."""
        if not self.is_match:
            return 1.0
        return self._mwc_after(0, 0, self.value_of_cube)

    def value(self, p: Floats) -> Floats:
        """The value after the side to move's best cube action and the opponent's answer
        (the no-double value where it may not double)."""
        p = self._counted(p)
        ratios = levels = None
        if self.is_match:
            ratios = self._ratios(p)
            # The cash points at the cube now and at twice it come out of one pass.
            levels = self._cash_levels(ratios) if self._alive() else None
        nd = self.no_double(p, ratios, levels)
        if not self.may_double():
            return nd
        dt = self.double_take(p, ratios, levels)
        dp = self.double_pass()
        answer = np.minimum(dt, dp)
        return np.where(answer > nd, answer, nd)

    def value_for_the_other_side(self, p: Floats) -> Floats:
        """:meth:`value` for the side not on roll, who has just played: the rows are its
        plays' results (``Net.evaluate`` of them, the opponent on roll) and this model the
        opponent's stakes (:meth:`Stakes.for_opponent`). Match-winning chances add up to
        1; money values to 0."""
        theirs = self.value(p)
        return 1.0 - theirs if self.is_match else -theirs

    def _taken(self) -> CubeModel:
        twin = object.__new__(CubeModel)
        twin.__dict__.update(self.__dict__)
        twin.value_of_cube = self.value_of_cube * 2
        twin.owner = "opponent"
        twin._memo = self._memo  # the same score: the same match values
        return twin

    def _money_no_double(self, p: Floats) -> Floats:
        dead = self.dead(p)
        win = p[:, 0]
        sure = (win <= 1e-7) | (win >= 1.0 - 1e-7)
        w_safe = np.where(sure, 0.5, win)
        w = 1.0 + (p[:, 1] + p[:, 2]) / w_safe
        l = 1.0 + (p[:, 3] + p[:, 4]) / (1.0 - w_safe)  # noqa: E741 (Janowski's L)
        take_point = (l - 0.5) / (w + l + 0.5)
        cash_point = (l + 1.0) / (w + l + 0.5)
        jacoby = self.stakes.jacoby
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.owner == "centred":
                low = -1.0 if jacoby else -l + (l - 1.0) * win / take_point
                middle = -1.0 + 2.0 * (win - take_point) / (cash_point - take_point)
                high = 1.0 if jacoby else 1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point)
                live = np.where(win < take_point, low, np.where(win < cash_point, middle, high))
            elif self.owner == "mover":
                live = np.where(
                    win < cash_point,
                    -l + (1.0 + l) * win / cash_point,
                    1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point),
                )
            else:
                live = np.where(
                    win < take_point,
                    -l + (l - 1.0) * win / take_point,
                    -1.0 + (w + 1.0) * (win - take_point) / (1.0 - take_point),
                )
        value = dead * (1.0 - self.x) + live * self.x
        return np.where(sure, dead, value)

    def _alive(self) -> bool:
        mine, theirs = self._away
        c = self.value_of_cube
        return not (self._crawford or (mine <= c and theirs <= c) or (mine == 2 and theirs == 2))

    def _ratios(self, p: Floats) -> _Ratios:
        """Shares of the wins of the side to move that are gammons (without backgammons)
        and backgammons, and the same of its losses."""
        win = p[:, 0]
        lose = 1.0 - win
        # A share of nothing is nothing (no wins: no gammon share).
        per_win = np.divide(1.0, win, out=np.zeros_like(win), where=win > 0.0)
        per_loss = np.divide(1.0, lose, out=np.zeros_like(lose), where=lose > 0.0)
        wb = p[:, 2] * per_win
        lb = p[:, 4] * per_loss
        return p[:, 1] * per_win - wb, wb, p[:, 3] * per_loss - lb, lb

    def _match_no_double(self, p: Floats, ratios: _Ratios, levels: _Levels | None) -> Floats:
        dead = self.dead(p)
        if not self._alive():
            return dead
        if levels is None or self.value_of_cube not in levels:
            levels = self._cash_levels(ratios)
        mover_cash, opponent_cash = levels[self.value_of_cube]
        c = self.value_of_cube
        won = [self._mwc_after(0, 0, k * c) for k in (1, 2, 3)]
        lost = [self._mwc_after(0, 1, k * c) for k in (1, 2, 3)]
        wg, wb, lg, lb = ratios
        win_all = (1.0 - wg - wb) * won[0] + wg * won[1] + wb * won[2]
        lose_all = (1.0 - lg - lb) * lost[0] + lg * lost[1] + lb * lost[2]
        cash, opponent_cash_value = won[0], lost[0]
        too_good = mover_cash
        opponent_too_good = 1.0 - opponent_cash
        win = p[:, 0]

        def line(
            x0: Floats | float, y0: Floats | float, x1: Floats | float, y1: Floats | float
        ) -> Floats:
            with np.errstate(divide="ignore", invalid="ignore"):
                sloped = y0 + (y1 - y0) * (win - x0) / (np.subtract(x1, x0))
            return np.where(np.greater(x1, x0), sloped, y1)

        if self.owner == "centred":
            live = np.where(
                win <= opponent_too_good,
                line(0.0, lose_all, opponent_too_good, opponent_cash_value),
                np.where(
                    win < too_good,
                    line(opponent_too_good, opponent_cash_value, too_good, cash),
                    line(too_good, cash, 1.0, win_all),
                ),
            )
        elif self.owner == "mover":
            live = np.where(
                win <= too_good,
                line(0.0, lose_all, too_good, cash),
                line(too_good, cash, 1.0, win_all),
            )
        else:
            live = np.where(
                win <= opponent_too_good,
                line(0.0, lose_all, opponent_too_good, opponent_cash_value),
                line(opponent_too_good, opponent_cash_value, 1.0, win_all),
            )
        return dead * (1.0 - self.x) + live * self.x

    def _cash_levels(self, ratios: _Ratios) -> _Levels:
        """The live-cube cash points of both sides (``cube.rs``'s ``cash_points``), row by
        row, at the cube now and at each level above it up to the highest that can still
        be turned (found from the top down)."""
        needed = [a - 1 for a in self._away]
        c = self.value_of_cube
        top = c
        while needed[0] >= 2 * top and needed[1] >= 2 * top:
            top *= 2
        shares = [(ratios[0], ratios[1]), (ratios[2], ratios[3])]
        n = ratios[0].shape[0]
        above: list[Floats] = [np.zeros(n, ratios[0].dtype), np.zeros(n, ratios[0].dtype)]
        level = top
        levels: _Levels = {}
        while True:
            here: list[Floats] = []
            for k in (0, 1):
                o = 1 - k
                gk, bk = shares[k]
                go, bo = shares[o]

                def won(points: int, k: int = k) -> float:
                    return self._mwc_after(k, k, points)

                def lost(points: int, k: int = k, o: int = o) -> float:
                    return self._mwc_after(k, o, points)

                def take_win(v: int, gk: Floats = gk, bk: Floats = bk) -> Floats:
                    share: Floats = (1.0 - gk - bk) * won(2 * v) + gk * won(4 * v) + bk * won(6 * v)
                    return share

                passed = won(level)
                if needed[0] < 2 * level or needed[1] < 2 * level:
                    effective = (
                        2 * level if needed[k] < 2 * level and needed[o] >= 2 * level else level
                    )
                    take_lose = (
                        (1.0 - go - bo) * lost(2 * effective)
                        + go * lost(4 * effective)
                        + bo * lost(6 * effective)
                    )
                    here.append(_ratio_or_half(take_lose - passed, take_lose - take_win(effective)))
                else:
                    redouble_pass = lost(2 * level)
                    tw = take_win(level)
                    here.append(1.0 - above[o] * _ratio_or_half(passed - tw, redouble_pass - tw))
            levels[level] = (here[0], here[1])
            if level == c:
                return levels
            above = here
            level //= 2


def _columns(p: Floats) -> Floats:
    """``p`` (rows of five chances) laid out column by column, so that each chance's
    column is contiguous (no copy when it is already); float32 chances (the net's) stay
    float32, which the analysis's sums need no more than, anything else is float64."""
    dtype = np.float32 if p.dtype == np.float32 else np.float64
    return np.asfortranarray(p, dtype=dtype)


def _ratio_or_half(num: Floats, den: Floats) -> Floats:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    ok = np.abs(den) > 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, num / np.where(ok, den, 1.0), 0.5)


@functools.lru_cache(maxsize=MODELS_KEPT)
def cube_model(stakes: Stakes, cube_life: float) -> CubeModel:
    """The cube model of ``stakes`` and ``cube_life``, kept for the next call at the same
    stakes (a model works out its match values once). Thread-safe."""
    return CubeModel(stakes, cube_life)
