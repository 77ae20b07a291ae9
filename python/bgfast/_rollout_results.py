"""What rollouts report: exact sums from the native engine, and the result types built
from them (one position, candidate plays, a cube decision).

Each game's outputs are added natively as fixed-point integers (the value times 2**128), so
sums are exact and any thread count, shard layout or executor gives the same bits; here
they are Python ints, added exactly, and a mean is the correctly rounded float of the exact
quotient.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from bgfast._core import Move
from bgfast._rollout_settings import RolloutSettings
from bgfast._running import Z95, finite
from bgfast.errors import shown

__all__ = [
    "VALUE",
    "CubeRollout",
    "MoveRollout",
    "RawSums",
    "RolloutResult",
]

#: The fixed-point scale of the native sums.
ONE = 1 << 128

#: The per-game outputs, in the native order.
OUTPUTS = (
    "win",
    "win_gammon",
    "win_backgammon",
    "lose_gammon",
    "lose_backgammon",
    "equity",
    "value",
)
#: The index of the rollout's value among the outputs.
VALUE = OUTPUTS.index("value")

#: How games end, in the native order.
ENDS = ("finished", "passed", "truncated", "bearoff", "capped")

#: The cube's owners in words, as the stakes' words say them.
_OWNER_WORDS = {"centred": "centred", "mover": "the mover's", "opponent": "the opponent's"}

_PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")


#: The text of one of the sums in a saved record.
_DECIMAL = re.compile(r"-?[0-9]+", re.ASCII)

#: The largest square of a value one game can have: its value is at most a backgammon at
#: the largest cube, three times 32768 (2**17), and variance reduction's corrections keep
#: it far below 2**20.
_LARGEST_SQUARE = 2**40


def _fits(square: int, bound: int) -> bool:
    """``square <= bound`` with room for the float64 rounding of each game's square (a
    relative 2**-40 and one unit more than any rounding could need)."""
    return square <= bound + (bound >> 40) + ONE * ONE


def _wide(halves: tuple[int, int]) -> int:
    high, low = halves
    return (high << 128) + low


@dataclass(frozen=True)
class BranchSums:
    """One branch's exact sums: per output the sum and the sum of squares (times
    ``2**128``), and its games by how they ended."""

    sums: tuple[int, ...]
    squares: tuple[int, ...]
    ends: tuple[int, ...]

    def __add__(self, other: BranchSums) -> BranchSums:
        return BranchSums(
            tuple(a + b for a, b in zip(self.sums, other.sums)),
            tuple(a + b for a, b in zip(self.squares, other.squares)),
            tuple(a + b for a, b in zip(self.ends, other.ends)),
        )


@dataclass(frozen=True)
class RawSums:
    """The exact sums of a rollout's games (plain ints: a shard sends them back)."""

    games: int
    branches: tuple[BranchSums, ...]
    cross: tuple[int, ...]

    @classmethod
    def zero(cls, branches: int) -> RawSums:
        """No games yet."""
        empty = BranchSums((0,) * len(OUTPUTS), (0,) * len(OUTPUTS), (0,) * len(ENDS))
        return cls(0, (empty,) * branches, (0,) * (branches * (branches + 1) // 2))

    @classmethod
    def from_native(cls, raw: Any) -> RawSums:
        """From a native run's ``(games, branches, cross)``."""
        games, branches, cross = raw
        return cls(
            int(games),
            tuple(
                BranchSums(
                    tuple(_wide(h) for h in sums),
                    tuple(_wide(h) for h in squares),
                    tuple(int(e) for e in ends),
                )
                for sums, squares, ends in branches
            ),
            tuple(_wide(h) for h in cross),
        )

    def to_plain(self) -> dict[str, Any]:
        """The sums as JSON-ready data (the big integers as decimal text, which every JSON
        reader keeps exactly); :meth:`from_plain` reads it back."""
        return {
            "games": self.games,
            "branches": [
                {
                    "sums": [str(x) for x in b.sums],
                    "squares": [str(x) for x in b.squares],
                    "ends": list(b.ends),
                }
                for b in self.branches
            ],
            "cross": [str(x) for x in self.cross],
        }

    @classmethod
    def from_plain(cls, data: Any, branches: int) -> RawSums:
        """The sums of :meth:`to_plain` data for ``branches`` branches, checked: a
        ``ValueError`` names what does not hold (a count of the wrong length, a negative
        one, games that do not add up, a sum no games could give: past the largest value
        a game has, or larger than its sum of squares allows). Sums that games could have
        given are taken: like the file's checksum, this finds damage, not forgery."""

        def ints(values: Any, length: int, what: str, *, text: bool) -> tuple[int, ...]:
            if not isinstance(values, list) or len(values) != length:
                raise ValueError(f"{what} must be a list of {length} numbers")
            if text and not all(type(x) is str and _DECIMAL.fullmatch(x) for x in values):
                raise ValueError(f"{what} must hold decimal text (ASCII digits)")
            if not text and not all(type(x) is int for x in values):
                raise ValueError(f"{what} must hold integers")
            out = tuple(int(x) for x in values)
            if what in ("squares", "ends") and any(x < 0 for x in out):
                raise ValueError(f"{what} may not be negative")
            return out

        games = data["games"]
        if type(games) is not int or not 0 <= games < 2**64:
            raise ValueError(f"games must be a count, not {shown(games)}")
        if not isinstance(data["branches"], list) or len(data["branches"]) != branches:
            raise ValueError(f"the sums must have {branches} branch(es)")
        largest = games * _LARGEST_SQUARE * ONE
        parts = []
        for b in data["branches"]:
            sums = ints(b["sums"], len(OUTPUTS), "sums", text=True)
            squares = ints(b["squares"], len(OUTPUTS), "squares", text=True)
            ends = ints(b["ends"], len(ENDS), "ends", text=False)
            if sum(ends) != games:
                raise ValueError(f"a branch's games by end add up to {sum(ends)}, not {games}")
            for total, square in zip(sums, squares):
                # (sum of v)**2 <= games * (sum of v**2), each square rounded to float64.
                if square > largest or not _fits(total * total, games * square * ONE):
                    raise ValueError("a sum no games could give: larger than its squares allow")
            parts.append(BranchSums(sums, squares, ends))
        cross = ints(data["cross"], branches * (branches + 1) // 2, "cross", text=True)
        k = 0
        for i in range(branches):
            for j in range(i, branches):
                qi, qj = parts[i].squares[VALUE], parts[j].squares[VALUE]
                if not _fits(cross[k] * cross[k], qi * qj):
                    raise ValueError("a paired sum no games could give: larger than the squares")
                k += 1
        return cls(games, tuple(parts), cross)

    def __add__(self, other: RawSums) -> RawSums:
        return RawSums(
            self.games + other.games,
            tuple(a + b for a, b in zip(self.branches, other.branches)),
            tuple(a + b for a, b in zip(self.cross, other.cross)),
        )

    def mean(self, branch: int, output: int) -> float:
        """The exact mean of one output, correctly rounded (NaN without games)."""
        if self.games == 0:
            return math.nan
        return float(Fraction(self.branches[branch].sums[output], self.games * ONE))

    def _second_moment(self, total: int) -> float:
        return total / ONE / self.games

    def variance(self, branch: int, output: int) -> float:
        """The sample variance of one output over games (NaN below two games)."""
        n = self.games
        if n < 2:
            return math.nan
        mean = self.mean(branch, output)
        raw = self._second_moment(self.branches[branch].squares[output]) - mean * mean
        return max(raw, 0.0) * n / (n - 1)

    def covariance(self, i: int, j: int) -> float:
        """The sample covariance of two branches' values over the same games."""
        n = self.games
        if n < 2:
            return math.nan
        a, b = min(i, j), max(i, j)
        k = a * len(self.branches) - a * (a + 1) // 2 + b
        mi, mj = self.mean(i, VALUE), self.mean(j, VALUE)
        return (self._second_moment(self.cross[k]) - mi * mj) * n / (n - 1)

    def stderr(self, branch: int, output: int) -> float:
        """The standard error of one output's mean."""
        return math.sqrt(self.variance(branch, output) / self.games) if self.games else math.nan

    def difference_stderr(self, i: int, j: int) -> float:
        """The standard error of the difference of two branches' mean values, paired by
        game (common dice)."""
        if self.games < 2:
            return math.nan
        var = self.variance(i, VALUE) + self.variance(j, VALUE) - 2.0 * self.covariance(i, j)
        return math.sqrt(max(var, 0.0) / self.games)

    def counts(self, branch: int, evaluated: bool) -> tuple[float | int, ...]:
        """Games by exclusive outcome, as the cubeless counts of earlier releases: single,
        gammon and backgammon wins, the same losses, and the games scored by the
        evaluator or stopped unfinished. Integers when every game was played out; a game
        ended exactly or by an evaluator counts its chances."""
        s = self.branches[branch].sums
        ends = self.branches[branch].ends
        win, wg, wbg, lg, lbg = (Fraction(x, ONE) for x in s[:5])
        capped = ends[ENDS.index("capped")]
        # A game stopped unfinished without an evaluator reports nothing (zeros).
        lose = self.games - (0 if evaluated else capped) - win
        exclusive = (win - wg, wg - wbg, wbg, lose - lg, lg - lbg, lbg)
        stopped = ends[ENDS.index("truncated")] + capped
        shares = (int(x) if x.denominator == 1 else float(x) for x in exclusive)
        return (*shares, stopped)


@dataclass(frozen=True)
class RolloutResult:
    """What a rollout found, for one side ("the player": the side to move, or for a
    candidate play the side that played it).

    ``win`` counts every win, ``win_gammon`` gammons and backgammons, ``win_backgammon``
    backgammons (GNU Backgammon's convention), likewise for losses. ``equity`` is the mean
    cubeless equity in points per game (R16). In a cubeful money rollout
    ``cubeful_equity`` is the cubeful equity per unit of the starting cube; in match play
    ``mwc`` is the match-winning chances and ``emg`` their equivalent in money points at
    the starting cube (``cubeful_equity`` is that EMG when the rollout is cubeful). Values
    that do not apply are ``None``. ``stderr`` and ``ci95`` map each name to its standard
    error and 95% interval. ``ends`` counts the games by how they ended; ``counts`` holds
    the outcome counts of earlier releases. ``partial`` is true when Ctrl-C stopped the run.
    ``seconds`` is the run's wall-clock time (with a checkpoint, summed over every run that
    played its games) and ``games_per_second`` the games over it;
    ``threads`` the threads that played them in this process (with ``executor=``, 1: each
    shard plays on one thread of its worker, and the workers play at once); ``executor``
    the class name of the executor that played the shards, else ``None``. ``settings``
    holds the rollout's settings and stakes as plain data, with ``stakes`` in words
    (``"money, cube 2 the mover's"``); for a cube rollout's double/take line they are the
    stakes its games were played at (the cube doubled, the opponent's), and
    ``values_normalised_to_cube`` the cube before the double, to which its values are
    normalised.
    """

    position: str
    player: str
    policy: str
    settings: dict[str, Any]
    games: int
    win: float
    win_gammon: float
    win_backgammon: float
    lose: float
    lose_gammon: float
    lose_backgammon: float
    equity: float
    cubeful_equity: float | None
    mwc: float | None
    emg: float | None
    stderr: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    counts: tuple[float | int, ...]
    ends: dict[str, int]
    seconds: float
    threads: int
    partial: bool
    executor: str | None = None
    truncated: int = field(init=False)
    games_per_second: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "truncated", self.ends.get("truncated", 0) + self.ends.get("capped", 0)
        )
        rate = self.games / self.seconds if self.seconds > 0 else math.inf
        object.__setattr__(self, "games_per_second", rate)

    @classmethod
    def from_sums(
        cls,
        sums: RawSums,
        branch: int,
        *,
        position: str,
        player: str,
        policy: str,
        settings: RolloutSettings,
        seconds: float,
        threads: int,
        partial: bool,
        executor: str | None = None,
    ) -> RolloutResult:
        """The result of branch ``branch`` of a run."""
        values: dict[str, float] = {}
        errors: dict[str, float] = {}
        for j, name in enumerate(OUTPUTS[:6]):
            values[name] = sums.mean(branch, j)
            errors[name] = sums.stderr(branch, j)
        values["lose"] = 1.0 - values["win"] if sums.games else math.nan
        errors["lose"] = errors["win"]
        value, value_se = sums.mean(branch, VALUE), sums.stderr(branch, VALUE)
        cubeful = mwc = emg = None
        stakes = settings.stakes
        if stakes.is_match:
            scale = stakes.emg_scale()
            mwc, emg = value, stakes.emg(value)
            values["mwc"], errors["mwc"] = mwc, value_se
            values["emg"], errors["emg"] = emg, value_se * scale
            if settings.cubeful:
                cubeful = emg
                values["cubeful_equity"], errors["cubeful_equity"] = emg, value_se * scale
        elif settings.cubeful:
            cubeful = value
            values["cubeful_equity"], errors["cubeful_equity"] = value, value_se
        ends = dict(zip(ENDS, sums.branches[branch].ends))
        return cls(
            position=position,
            player=player,
            policy=policy,
            settings=settings.describe(),
            games=sums.games,
            win=values["win"],
            win_gammon=values["win_gammon"],
            win_backgammon=values["win_backgammon"],
            lose=values["lose"],
            lose_gammon=values["lose_gammon"],
            lose_backgammon=values["lose_backgammon"],
            equity=values["equity"],
            cubeful_equity=cubeful,
            mwc=mwc,
            emg=emg,
            stderr=errors,
            ci95={k: (v - Z95 * errors[k], v + Z95 * errors[k]) for k, v in values.items()},
            counts=sums.counts(branch, settings.evaluator is not None),
            ends=ends,
            seconds=seconds,
            threads=threads,
            partial=partial,
            executor=executor,
        )

    @property
    def value(self) -> float:
        """The number the rollout is about: the match-winning chances in match play, the
        cubeful equity in a cubeful money rollout, else the cubeless equity."""
        if self.mwc is not None:
            return self.mwc
        return self.cubeful_equity if self.cubeful_equity is not None else self.equity

    @property
    def value_name(self) -> str:
        """Which of ``mwc``, ``cubeful_equity`` and ``equity`` :attr:`value` is."""
        if self.mwc is not None:
            return "mwc"
        return "cubeful_equity" if self.cubeful_equity is not None else "equity"

    @property
    def quasi_random(self) -> bool:
        """Whether the first two rolls were rotated over all 1,296 pairs."""
        return bool(self.settings["quasi_random"])

    @property
    def stratified(self) -> bool:
        """The former name of :attr:`quasi_random`."""
        return self.quasi_random

    @property
    def seed(self) -> int:
        """The dice seed (drawn at random and reported when none was given)."""
        return int(self.settings["seed"])

    def _statistic_names(self) -> tuple[str, ...]:
        extra = tuple(n for n in ("cubeful_equity", "mwc", "emg") if n in self.stderr)
        return (*_PROBABILITIES, "equity", *extra)

    def _value(self, name: str) -> float:
        return float(getattr(self, name))

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: every statistic with its stderr and interval, the settings,
        how the games ended. Values that do not exist (a standard error from fewer than
        two games) are ``None``."""
        stats = {
            name: {
                "value": finite(self._value(name)),
                "stderr": finite(self.stderr[name]),
                "ci95": [finite(x) for x in self.ci95[name]],
            }
            for name in self._statistic_names()
        }
        names = (
            "win_single",
            "win_gammon",
            "win_backgammon",
            "lose_single",
            "lose_gammon",
            "lose_backgammon",
            "truncated",
        )
        return {
            "position": self.position,
            "player": self.player,
            "policy": self.policy,
            "seed": self.seed,
            "games": self.games,
            "truncated": self.truncated,
            "stratified": self.stratified,
            "partial": self.partial,
            "threads": self.threads,
            "executor": self.executor,
            "seconds": self.seconds,
            "games_per_second": finite(self.games_per_second),
            "settings": self.settings,
            "ends": self.ends,
            "counts": dict(zip(names, self.counts)),
            "statistics": stats,
        }

    def table(self) -> str:
        """The statistics as a text table, saying whose numbers they are."""
        s = self.settings
        how = ["cubeful" if s["cubeful"] else "cubeless", s["stakes"]]
        if "values_normalised_to_cube" in s:  # a cube rollout's double/take line
            value, owner = s["values_normalised_to_cube"]
            how.append(
                f"values normalised to the cube before the double ({value} {_OWNER_WORDS[owner]})"
            )
        if "holland_wait_plies" in s:  # present only while the rule holds the cube
            how.append(f"Holland rule: no double for {s['holland_wait_plies']} plies")
        if s["truncate"] is not None:
            how.append(f"truncated at {s['truncate']} plies")
        if s["variance_reduction"]:
            how.append("variance reduction")
        if s["bearoff"] == "played out":
            # The database's cubeful values are money equities: such games play on.
            how.append("bear-offs played out (no exact cubeful match values)")
        elif s["bearoff"]:
            how.append("exact bear-offs")
        lines = [
            f"position {self.position}  policy {self.policy}  seed {self.seed}",
            f"{', '.join(how)}; numbers for {self.player}",
            f"{'':16}{'value':>9}{'stderr':>9}   95% interval",
        ]
        for name in self._statistic_names():
            lo, hi = self.ci95[name]
            label = {"mwc": "MWC", "emg": "EMG"}.get(name, name.replace("_", " "))
            lines.append(
                f"{label:16}{self._value(name):9.4f}{self.stderr[name]:9.4f}   [{lo:.4f}, {hi:.4f}]"
            )
        ended = ", ".join(f"{n} {k}" for k, n in self.ends.items() if n and k != "finished")
        lines.append(
            f"games {self.games}"
            + (f" ({ended})" if ended else "")
            + f", {self.games_per_second:,.0f} games/s on {self._players()},"
            f" {self.seconds:.2f} s" + ("  PARTIAL (interrupted)" if self.partial else "")
        )
        return "\n".join(lines)

    def _players(self) -> str:
        """Who played the games, for the table: the threads, or the executor's workers."""
        if self.executor is not None:
            return f"a {self.executor}'s workers (a thread a shard)"
        return f"{self.threads} thread{'s' if self.threads != 1 else ''}"

    def __str__(self) -> str:
        return self.table()


@dataclass(frozen=True)
class MoveRollout:
    """One candidate play's rollout: the play, its result (for the player who made it),
    and how far its value is below the best candidate's (``diff <= 0``; 0 for the best),
    with the standard error of that difference from the same dice (common random
    numbers). Values and differences are in :attr:`RolloutResult.value`'s unit."""

    move: Move
    result: RolloutResult
    diff: float
    diff_stderr: float

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return {
            "move": str(self.move),
            "diff": finite(self.diff),
            "diff_stderr": finite(self.diff_stderr),
            "result": self.result.to_dict(),
        }


@dataclass(frozen=True)
class CubeRollout:
    """A cube decision rolled out on common dice, its main values in money points per
    unit of the cube now, EMG in match play (:class:`bgfast.cubeful.CubeDecision` has
    match-winning chances there instead: compare the two by ``emg`` and ``mwc``, which
    mean the same on both).

    The values are the side to move's cubeful values of not doubling, doubling when the
    opponent takes, and doubling when it passes, normalised to the cube now; in match play
    ``emg`` holds the same three values and ``mwc`` their match-winning chances (both
    ``None`` in money play). ``action`` is the action players would name, ``stderr`` the
    standard errors (``stderr["double_take - no_double"]`` is paired, from the same dice).
    ``results`` are the two lines' rollouts: no double, then double/take, played with the
    cube doubled and the opponent's, its values normalised to the cube before the double.
    """

    no_double: float
    double_take: float
    double_pass: float
    action: str
    stderr: dict[str, float]
    mwc: dict[str, float] | None
    results: tuple[RolloutResult, RolloutResult]
    emg: dict[str, float] | None = field(init=False)

    def __post_init__(self) -> None:
        # In match play the main values are the EMG: the same three under the name that
        # CubeDecision (whose main values are match-winning chances) gives them too.
        emg = None
        if self.mwc is not None:
            emg = {name: getattr(self, name) for name in _CUBE_VALUES}
        object.__setattr__(self, "emg", emg)

    @property
    def games(self) -> int:
        """Games each line played (both on the same dice)."""
        return self.results[0].games

    @property
    def partial(self) -> bool:
        """Whether Ctrl-C stopped the rollout short of its games: the decision rests on
        :attr:`games` only."""
        return self.results[0].partial

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON."""
        return {
            "action": self.action,
            "games": self.games,
            "partial": self.partial,
            "no_double": finite(self.no_double),
            "double_take": finite(self.double_take),
            "double_pass": finite(self.double_pass),
            "stderr": {k: finite(v) for k, v in self.stderr.items()},
            # Finite or None like the values: no games (Ctrl-C before the first) gives NaN,
            # which JSON has not.
            "mwc": _finite_values(self.mwc),
            "emg": _finite_values(self.emg),
            "no_double_result": self.results[0].to_dict(),
            "double_take_result": self.results[1].to_dict(),
        }

    def table(self) -> str:
        """The three values, the action, the errors, and the two margins the action rests
        on (double or not, take or pass), each called close within two errors."""
        r = self.results[0]
        unit = "EMG" if self.mwc is not None else "equity"
        lines = [
            f"position {r.position}  policy {r.policy}  seed {r.seed}",
            f"cube decision for {r.player}: {self.action}",
            f"{'':16}{unit:>9}{'stderr':>9}" + ("      MWC" if self.mwc else ""),
        ]
        for name in _CUBE_VALUES:
            mwc = f"{self.mwc[name]:9.4f}" if self.mwc else ""
            lines.append(
                f"{name.replace('_', ' '):16}{getattr(self, name):9.4f}"
                f"{self.stderr[name]:9.4f}{mwc}"
            )
        lines += self._margin_lines()
        lines.append(f"games {r.games}" + ("  PARTIAL (interrupted)" if r.partial else ""))
        return "\n".join(lines)

    def _margin_lines(self) -> list[str]:
        """The margins the action rests on, each with its error: doubling or not (the
        double is worth the lower of double/take and double/pass; against a take the error
        is paired, from the same dice, and a pass is exact, so only no double's counts),
        and taking or passing (double/pass is exact: double/take's error)."""
        if self.double_take <= self.double_pass:
            double, paired = "double/take", True
            double_value, error = self.double_take, self.stderr["double_take - no_double"]
        else:
            double, paired = "double/pass", False
            double_value, error = self.double_pass, self.stderr["no_double"]
        return [
            f"double or not: {double} - no double:"
            f" {_margin_words(double_value - self.no_double, error, paired)}",
            f"take or pass: double/take - double/pass:"
            f" {_margin_words(self.double_take - self.double_pass, self.stderr['double_take'])}",
        ]

    def __str__(self) -> str:
        return self.table()


#: A cube decision's three values, in the order they are reported.
_CUBE_VALUES = ("no_double", "double_take", "double_pass")


def _finite_values(values: dict[str, float] | None) -> dict[str, float | None] | None:
    return None if values is None else {k: finite(v) for k, v in values.items()}


def _margin_words(margin: float, error: float, paired: bool = False) -> str:
    """A margin with its standard error and how many errors it is: a margin of less than
    two is a close call, not a verdict."""
    words = f"{margin:+.4f}, stderr {error:.4f}" + (" (paired)" if paired else "")
    if not (error > 0 and math.isfinite(margin)):
        return words
    errors = abs(margin) / error
    close = ": close, more games would tell" if errors < 2 else ""
    return f"{words}, {errors:.1f} standard errors{close}"
