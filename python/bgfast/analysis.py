"""Match analysis: every play and cube decision of a match rated at 0 ply, as GNU
Backgammon's ``analyse match`` rates them.

:func:`analyse` replays a :class:`~bgfast.Match` (or one :class:`~bgfast.Game`) and scores,
with a net (wildbg's by default), every decision a player made:

- **chequer plays**: every legal play of the roll is scored by its cubeful value at the
  score (the opponent's value of the result after its own cube action, by the cube model
  of :mod:`bgfast.cubeful`, turned round); the loss is the best play's value minus the
  played one's;
- **cube decisions** (no double / double, take / pass) by :func:`bgfast.cubeful.decide` on
  the net's chances before the roll;
- in the two-sided bear-off database's range, plays and cube decisions are valued
  exactly, as GNU Backgammon values them (:func:`bgfast.cubeful.exact_bearoff_values`:
  the database's cubeful equities in money play, the cube model at a cube life found
  from them in a match);
- **luck**: each roll's value (its best play's) minus the average over all 21 rolls (the
  opening roll against the 30 opening rolls of either player, as GNU Backgammon does).

Losses are in EMG, normalised to the cube (equivalent money points at the cube now, GNU
Backgammon's ``mwc2eq``), and in matches also in match-winning chances (MWC). The per-player
summary follows GNU Backgammon's statistics: the error rate is the total loss per unforced
decision (plays with more than one legal result, and close or actual cube decisions) in
thousandths of EMG ("Error rate mEMG"), the rating its band (Awful! .. Supernatural), each
decision marked doubtful, bad or very bad past 0.04, 0.08 and 0.16 EMG.

The net's work is batched: all 21 rolls' plays of every roll of a game are scored in one
call to :meth:`bgfast.Net.evaluate` (numpy, the GIL released, ``threads=`` honoured), and
the cube model runs natively over the whole batch at once
(:func:`bgfast.cubeful.cube_values`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt

from bgfast import _moments, batch, bearoff, codec, cubeful
from bgfast import events as ev
from bgfast import met as tables
from bgfast._core import Move, Net, Position, check_threads
from bgfast.errors import BgfastError, shown
from bgfast.game import Game
from bgfast.match import Match
from bgfast.policies import SHIPPED_NETS, policy_name
from bgfast.scoring import holland_waits_after_play
from bgfast.state import GameState
from bgfast.transcript import move_numbers

__all__ = [
    "LUCK_RATINGS",
    "RATINGS",
    "Analysis",
    "Decision",
    "Mark",
    "PlayerStats",
    "RollLuck",
    "analyse",
    "luck_rating",
    "mark_of",
    "rating",
]

Mark = Literal["doubtful", "bad", "very bad"]
"""How bad a decision was: its loss past 0.04, 0.08 or 0.16 EMG (GNU Backgammon's skill
levels)."""

#: GNU Backgammon's skill levels: a loss above each (EMG, normalised to the cube) earns its
#: mark.
_MARKS: tuple[tuple[float, Mark], ...] = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))

RATINGS: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
    (float("inf"), "Awful!"),
)
"""The ratings by error rate (EMG per unforced decision, below each bound), GNU
Backgammon's (``analysis.c``: ``arThrsRating``)."""

LUCK_RATINGS: tuple[tuple[float, str], ...] = (
    (-0.06, "Go to bed"),
    (-0.03, "Bad dice, man!"),
    (0.03, "None"),
    (0.06, "Good dice, man!"),
    (float("inf"), "Go to Las Vegas"),
)
"""The luck ratings by luck rate (EMG per roll), GNU Backgammon's: below -0.06 "Go to
bed", below -0.03 "Bad dice, man!", up to 0.03 "None", up to 0.06 "Good dice, man!",
above "Go to Las Vegas" (its roll marks, 0.3 and 0.6, over ten rolls)."""

#: A roll's luck above this (EMG) is "lucky", above the second "very lucky"; minus them
#: unlucky.
_LUCK_MARKS = (0.3, 0.6)

#: Whether a cube decision is close: doubling is less than this worse than the best
#: action (GNU Backgammon's ``isCloseCubedecision``).
_CLOSE = 0.16


def mark_of(loss: float) -> Mark | None:
    """The mark a decision losing ``loss`` EMG earns: ``"very bad"`` above 0.16, ``"bad"``
    above 0.08, ``"doubtful"`` above 0.04, else ``None``."""
    for bound, mark in _MARKS:
        if loss > bound:
            return mark
    return None


def rating(error_rate: float) -> str:
    """The rating of an error rate in mEMG per unforced decision (GNU Backgammon's bands:
    below 2 "Supernatural", 5 "World class", 8 "Expert", 12 "Advanced", 18
    "Intermediate", 26 "Casual player", 35 "Beginner", else "Awful!")."""
    for bound, name in RATINGS:
        if error_rate / 1000.0 < bound:
            return name
    return RATINGS[-1][1]


def luck_rating(luck_rate: float) -> str:
    """The luck rating of a luck rate in mEMG per roll (see :data:`LUCK_RATINGS`)."""
    rate = luck_rate / 1000.0
    if rate < LUCK_RATINGS[0][0]:
        return LUCK_RATINGS[0][1]
    if rate < LUCK_RATINGS[1][0]:
        return LUCK_RATINGS[1][1]
    if rate <= LUCK_RATINGS[2][0]:
        return LUCK_RATINGS[2][1]
    if rate <= LUCK_RATINGS[3][0]:
        return LUCK_RATINGS[3][1]
    return LUCK_RATINGS[4][1]


# ---------------------------------------------------------------------------- records

DecisionKind = Literal["move", "double", "take"]


@dataclass(frozen=True)
class Decision:
    """One decision of a player, rated.

    Attributes:
        game: the game's number (1 for the first).
        move: the move number, as a ``.mat`` file numbers its lines.
        player: who decided (0 or 1).
        kind: ``"move"`` (a chequer play), ``"double"`` (whether to double: the player
            doubled or rolled) or ``"take"`` (the answer to a double).
        dice: the roll of a chequer play, else ``None``.
        played: the play made (``24/21 13/11``; ``""`` for a roll that could not be
            played; in table mode an illegal play that stood, R31, as written), or the
            action: ``"no double"``, ``"double"`` (``"no redouble"``, ``"redouble"`` for a
            cube the player owns), ``"take"``, ``"beaver"`` or ``"pass"``.
        best: the best play or action by the analysis.
        loss: what the decision cost, in EMG normalised to the cube (0 for the best).
        loss_mwc: the same in match-winning chances (matches only, else ``None``).
        mark: ``"doubtful"``, ``"bad"`` or ``"very bad"`` (:func:`mark_of`), else ``None``.
        counted: whether it counts in the error rate: a play with more than one legal
            result (or an illegal play that stood); a close or actual cube decision (GNU
            Backgammon's rule).
        cube: the cube's value at the decision.
    """

    game: int
    move: int
    player: int
    kind: DecisionKind
    dice: tuple[int, int] | None
    played: str
    best: str
    loss: float
    loss_mwc: float | None
    mark: Mark | None
    counted: bool
    cube: int
    _moment: _moments.Moment | GameState = field(repr=False, compare=False)

    @functools.cached_property
    def state(self) -> GameState:
        """The game's state at the decision: the roller on turn (for a chequer play, with
        the dice rolled; for a take, the doubler's state before the double). Built when
        first asked for."""
        moment = self._moment
        return moment.state() if isinstance(moment, _moments.Moment) else moment

    @property
    def position(self) -> str:
        """The GNUbg ID (``PositionID:MatchID``) of the state decided in."""
        return _gnubg_id(self.state)

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON-ready data."""
        return {
            "game": self.game,
            "move": self.move,
            "player": self.player,
            "kind": self.kind,
            "dice": None if self.dice is None else list(self.dice),
            "played": self.played,
            "best": self.best,
            "loss": self.loss,
            "loss_mwc": self.loss_mwc,
            "mark": self.mark,
            "counted": self.counted,
            "cube": self.cube,
            "position": self.position,
        }

    def words(self, player: str | None = None) -> str:
        """The decision in a line: ``game 1, move 6, player 0: take; best pass: -0.412 EMG
        (-3.10% MWC) [very bad]``, the player named ``player`` when given (a name, say). Both
        losses are written negative, as the analysis' totals are."""
        who = f"player {self.player}" if player is None else player
        roll = f"{self.dice[0]}{self.dice[1]}: " if self.dice else ""
        played = self.played or "(no play)"
        mark = f" [{self.mark}]" if self.mark else ""
        mwc = "" if self.loss_mwc is None else f" (-{100 * self.loss_mwc:.2f}% MWC)"
        return (
            f"game {self.game}, move {self.move}, {who}: {roll}{played}; "
            f"best {self.best or '(no play)'}: -{self.loss:.3f} EMG{mwc}{mark}"
        )

    def __str__(self) -> str:
        return self.words()


@dataclass(frozen=True)
class RollLuck:
    """The luck of one roll: its value minus the average roll's (EMG normalised to the
    cube, and MWC in matches), from the roller's side."""

    game: int
    move: int
    player: int
    dice: tuple[int, int]
    luck: float
    luck_mwc: float | None

    @property
    def mark(self) -> str | None:
        """``"very lucky"``, ``"lucky"``, ``"unlucky"``, ``"very unlucky"`` (past 0.3 and
        0.6 EMG either way), else ``None``."""
        lucky, very = _LUCK_MARKS
        if self.luck > very:
            return "very lucky"
        if self.luck > lucky:
            return "lucky"
        if self.luck < -very:
            return "very unlucky"
        if self.luck < -lucky:
            return "unlucky"
        return None


@dataclass(frozen=True)
class PlayerStats:
    """One player's summary, as GNU Backgammon's ``show statistics match`` gives it.

    Totals are in EMG (normalised to the cube at each decision) and, in matches, MWC;
    rates are per decision in thousandths (``error_rate`` is GNU Backgammon's "Error rate
    mEMG"; ``error_rate_mwc`` in thousandths of MWC, 3.09 for its -0.309%).
    """

    player: int
    name: str
    moves: int
    unforced_moves: int
    cube_decisions: int
    close_cube_decisions: int
    chequer_marks: dict[str, int]
    cube_marks: dict[str, int]
    chequer_error: float
    chequer_error_mwc: float | None
    cube_error: float
    cube_error_mwc: float | None
    rolls: int
    luck: float
    luck_mwc: float | None

    @property
    def error(self) -> float:
        """Total loss of chequer plays and cube decisions (EMG)."""
        return self.chequer_error + self.cube_error

    @property
    def error_mwc(self) -> float | None:
        """Total loss in MWC (matches)."""
        if self.chequer_error_mwc is None or self.cube_error_mwc is None:
            return None
        return self.chequer_error_mwc + self.cube_error_mwc

    @property
    def unforced_decisions(self) -> int:
        """Unforced plays and close or actual cube decisions: what the error rate counts."""
        return self.unforced_moves + self.close_cube_decisions

    @property
    def chequer_rate(self) -> float:
        """mEMG lost per unforced play."""
        return _rate(self.chequer_error, self.unforced_moves)

    @property
    def cube_rate(self) -> float:
        """mEMG lost per close or actual cube decision."""
        return _rate(self.cube_error, self.close_cube_decisions)

    @property
    def error_rate(self) -> float:
        """mEMG lost per unforced decision (GNU Backgammon's "Error rate mEMG")."""
        return _rate(self.error, self.unforced_decisions)

    @property
    def error_rate_mwc(self) -> float | None:
        """Thousandths of MWC lost per unforced decision (matches)."""
        total = self.error_mwc
        return None if total is None else _rate(total, self.unforced_decisions)

    @property
    def rating(self) -> str:
        """The overall rating of :attr:`error_rate` (:func:`rating`); ``"N/A"`` with no
        unforced decision."""
        return rating(self.error_rate) if self.unforced_decisions else "N/A"

    @property
    def chequer_rating(self) -> str:
        """The rating of the chequer play alone."""
        return rating(self.chequer_rate) if self.unforced_moves else "N/A"

    @property
    def cube_rating(self) -> str:
        """The rating of the cube decisions alone."""
        return rating(self.cube_rate) if self.close_cube_decisions else "N/A"

    @property
    def luck_rate(self) -> float:
        """mEMG of luck per roll."""
        return _rate(self.luck, self.rolls)

    @property
    def luck_rating(self) -> str:
        """The luck rating (:func:`luck_rating`)."""
        return luck_rating(self.luck_rate) if self.rolls else "N/A"

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data, the rates and ratings included."""
        return {
            "player": self.player,
            "name": self.name,
            "moves": self.moves,
            "unforced_moves": self.unforced_moves,
            "cube_decisions": self.cube_decisions,
            "close_cube_decisions": self.close_cube_decisions,
            "chequer_marks": dict(self.chequer_marks),
            "cube_marks": dict(self.cube_marks),
            "chequer_error": self.chequer_error,
            "chequer_error_mwc": self.chequer_error_mwc,
            "cube_error": self.cube_error,
            "cube_error_mwc": self.cube_error_mwc,
            "error": self.error,
            "error_mwc": self.error_mwc,
            "chequer_rate": self.chequer_rate,
            "cube_rate": self.cube_rate,
            "error_rate": self.error_rate,
            "error_rate_mwc": self.error_rate_mwc,
            "rating": self.rating,
            "chequer_rating": self.chequer_rating,
            "cube_rating": self.cube_rating,
            "rolls": self.rolls,
            "luck": self.luck,
            "luck_mwc": self.luck_mwc,
            "luck_rate": self.luck_rate,
            "luck_rating": self.luck_rating,
        }


def _rate(total: float, count: int) -> float:
    return 1000.0 * total / count if count else 0.0


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` found: per player (:attr:`players`), per decision
    (:attr:`decisions`, in the order they were made) and per roll (:attr:`rolls`)."""

    players: tuple[PlayerStats, PlayerStats]
    decisions: tuple[Decision, ...]
    rolls: tuple[RollLuck, ...]
    length: int
    net: str
    cube_life: cubeful.CubeLife
    met: str | None
    luck_net: str = "wildbg"

    def worst(self, n: int = 10) -> list[Decision]:
        """The ``n`` costliest decisions, worst first (ties in the order played): at most
        ``n``, an int from 0 (a negative ``n`` is a :class:`~bgfast.BgfastError`, anything
        but an int a ``TypeError``)."""
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"n must be an int, not {type(n).__name__}")
        if n < 0:
            raise BgfastError(f"n is how many decisions to list, 0 or more, not {shown(n)}")
        ranked = sorted(enumerate(self.decisions), key=lambda kd: (-kd[1].loss, kd[0]))
        return [d for _, d in ranked[: int(n)] if d.loss > 0.0]

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON-ready data."""
        return {
            "length": self.length,
            "net": self.net,
            "luck_net": self.luck_net,
            "cube_life": self.cube_life,
            "met": self.met,
            "players": [p.to_dict() for p in self.players],
            "decisions": [d.to_dict() for d in self.decisions],
            "rolls": [
                {
                    "game": r.game,
                    "move": r.move,
                    "player": r.player,
                    "dice": list(r.dice),
                    "luck": r.luck,
                    "luck_mwc": r.luck_mwc,
                    "mark": r.mark,
                }
                for r in self.rolls
            ],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=1)

    def summary(self) -> str:
        """The per-player table, as GNU Backgammon's statistics print it."""
        a, b = self.players
        unit = " (MWC)" if self.length > 0 else ""
        rows: list[tuple[str, str, str]] = [("Player", a.name, b.name)]

        def add(label: str, f: Callable[[PlayerStats], str]) -> None:
            rows.append((label, f(a), f(b)))

        def total(emg: float, mwc: float | None) -> str:
            return f"{-emg:+.3f}" + ("" if mwc is None else f" ({-100 * mwc:+.3f}%)")

        def per(rate: float, mwc: float | None) -> str:
            return f"{-rate:+.1f}" + ("" if mwc is None else f" ({-mwc / 10:+.3f}%)")

        add("Unforced moves", lambda p: str(p.unforced_moves))
        for mark in ("doubtful", "bad", "very bad"):
            rows.append(
                (f"Moves marked {mark}", str(a.chequer_marks[mark]), str(b.chequer_marks[mark]))
            )
        add(
            f"Chequer error total EMG{unit}",
            lambda p: total(p.chequer_error, p.chequer_error_mwc),
        )
        add("Chequer error rate mEMG", lambda p: f"{-p.chequer_rate:+.1f}")
        add("Chequerplay rating", lambda p: p.chequer_rating)
        add("Close or actual cube decisions", lambda p: str(p.close_cube_decisions))
        add(f"Cube error total EMG{unit}", lambda p: total(p.cube_error, p.cube_error_mwc))
        add("Cube decision rating", lambda p: p.cube_rating)
        add(
            f"Luck total EMG{unit}",
            lambda p: total(-p.luck, None if p.luck_mwc is None else -p.luck_mwc),
        )
        add("Luck rating", lambda p: p.luck_rating)
        add(f"Error total EMG{unit}", lambda p: total(p.error, p.error_mwc))
        add(f"Error rate mEMG{unit}", lambda p: per(p.error_rate, p.error_rate_mwc))
        add("Overall rating", lambda p: p.rating)
        width = max(len(r[0]) for r in rows) + 2
        col = max(len(r[1]) for r in rows) + 3
        return "\n".join(f"{r[0]:<{width}}{r[1]:<{col}}{r[2]}" for r in rows)

    def __str__(self) -> str:
        return self.summary()


# ---------------------------------------------------------------------------- the work


State = Union[_moments.Moment, GameState]  # (Python 3.9: no | between types at run time)
"""A game between two events, as the analysis reads it."""

# The stakes a play's results are valued at, and whether the opponent may double at its
# turn after the play (the Holland rule).
_Valued = tuple[cubeful.Stakes, bool]


@dataclass
class _Turn:
    """A roll to analyse: the position before it, seen by the roller, with the stakes."""

    game: int
    move: int
    player: int
    state: State  # where the roll is played: the roller on turn, with the dice if any
    dice: tuple[int, int]
    stakes: cubeful.Stakes
    opening: bool
    played: Move | None = None  # the play committed for it
    # Whether the opponent may double at its turn after the play (the Holland rule).
    they_may_double: bool = True
    # An illegal play that stood (table mode, R31): its text as written and its result.
    played_text: str = ""
    illegal_result: Position | None = None


@dataclass
class _Cube:
    """A cube decision to analyse."""

    game: int
    move: int
    player: int  # who decides
    action: str  # "no double", "double", "take", "beaver", "pass"
    state: State  # the doubler's state before the double (the doubler on turn)
    doubler: int
    stakes: cubeful.Stakes  # the doubler's


@dataclass
class _Totals:
    moves: int = 0
    unforced: int = 0
    cube: int = 0
    close: int = 0
    chequer: list[float] = field(default_factory=lambda: [0.0, 0.0])
    cubes: list[float] = field(default_factory=lambda: [0.0, 0.0])
    rolls: int = 0
    luck: list[float] = field(default_factory=lambda: [0.0, 0.0])
    chequer_marks: dict[str, int] = field(
        default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0}
    )
    cube_marks: dict[str, int] = field(
        default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0}
    )


Progress = Callable[[int, int], None]
"""Called as ``progress(games_done, games)`` after each game."""


def analyse(
    match: Match | Game,
    net: Net | None = None,
    threads: int | None = None,
    *,
    luck_net: Net | None = None,
    cube_life: cubeful.CubeLife = cubeful.DEFAULT_CUBE_LIFE,
    met: str = tables.DEFAULT_TABLE,
    progress: Progress | None = None,
) -> Analysis:
    """Rate every play and cube decision of ``match`` (a :class:`~bgfast.Match`, or one
    :class:`~bgfast.Game`) at 0 ply with ``net`` (:meth:`bgfast.Net.wildbg` by default;
    :meth:`bgfast.Net.wildbg_large` judges closer to GNU Backgammon, in about 1.3 times the
    time with the default ``luck_net``).

    ``luck_net`` measures the luck of each roll (:meth:`bgfast.Net.wildbg` by default, whatever
    ``net`` is). Luck scores the plays of all 21 rolls at every roll, twenty times the work
    of rating the plays made, so a fast net there keeps a strong ``net`` affordable; GNU
    Backgammon likewise sets its luck analysis apart (``set analysis luckanalysis``).

    ``threads`` is the thread count of the net's batches and the move generation (``None``:
    one per CPU; the results are the same on any count). ``cube_life`` and ``met`` are the
    cube model's (see :func:`bgfast.cubeful.decide`): ``cube_life="gnubg"`` values each
    position at GNU Backgammon's cube life index of it, as gnubg's 0-ply analysis does.
    ``progress(done, games)`` is called after each game. A match whose score the match
    equity table does not cover raises a :class:`~bgfast.BgfastError`.
    """
    if isinstance(match, Match):
        games = match.games
        length = match.length
        names = match.info.players
        crawford_rule = match.crawford_rule
    elif isinstance(match, Game):
        games = [match]
        length = match.match_length
        names = ("Player 0", "Player 1")
        crawford_rule = True  # a game does not say: the rule of nearly every match
    else:
        raise TypeError(f"analyse takes a bgfast Match or Game, not {type(match).__name__}")
    net = _net_arg("net", net)
    luck_net = _net_arg("luck_net", luck_net)
    threads = check_threads(threads)
    life = cubeful.check_cube_life(cube_life)
    met_name = cubeful.met_name(met)
    worker = _Analyst(net, luck_net, threads, life, met_name, crawford_rule)
    decisions: list[Decision] = []
    rolls: list[RollLuck] = []
    totals = (_Totals(), _Totals())
    for number, game in enumerate(games, 1):
        turns, cubes = worker.collect(game, number)
        decisions += worker.chequer_and_luck(turns, totals, rolls)
        decisions += worker.cube(cubes, worker.chances(cubes), totals)
        if progress is not None:
            progress(number, len(games))
    decisions.sort(key=lambda d: (d.game, d.move, d.player, _ORDER[d.kind]))
    match_play = length > 0
    players = tuple(
        PlayerStats(
            player=p,
            name=names[p],
            moves=t.moves,
            unforced_moves=t.unforced,
            cube_decisions=t.cube,
            close_cube_decisions=t.close,
            chequer_marks=t.chequer_marks,
            cube_marks=t.cube_marks,
            chequer_error=t.chequer[0],
            chequer_error_mwc=t.chequer[1] if match_play else None,
            cube_error=t.cubes[0],
            cube_error_mwc=t.cubes[1] if match_play else None,
            rolls=t.rolls,
            luck=t.luck[0],
            luck_mwc=t.luck[1] if match_play else None,
        )
        for p, t in enumerate(totals)
    )
    return Analysis(
        (players[0], players[1]),
        tuple(decisions),
        tuple(rolls),
        length,
        _net_name(net),
        life,
        met_name if match_play else None,
        _net_name(luck_net),
    )


_ORDER = {"double": 0, "take": 1, "move": 2}


#: Rows of results in the two-sided bear-off database's range, with their boards.
_Bearoffs = tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]


def _exact_in_bearoffs(
    boards: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    chances: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], _Bearoffs]:
    """``Net.score_rolls``'s ``chances`` of every play of all 21 rolls of ``boards`` (block
    ``21 i + k``, rows ``offsets[21 i + k]..``), exact where a result is in the two-sided
    bear-off database's range, and those results' rows and boards. Only a board whose side
    not to move already has at most 6 checkers, all home, can have such results: only
    those are played again."""
    near = np.flatnonzero(bearoff.plays_may_reach_two_sided_range(boards))
    if not near.size:
        return chances, _no_bearoffs()
    out = np.array(chances)
    _, results, _ = batch.all_rolls(boards[near])
    rows = np.concatenate([np.arange(offsets[21 * i], offsets[21 * i + 21]) for i in near])
    out[rows] = bearoff.exact_chances(results, chances[rows])
    exact = bearoff.in_two_sided_range(results)
    return out, (rows[exact], results[exact])


def _bearoffs_among(results: npt.NDArray[np.uint8]) -> _Bearoffs:
    """The rows of ``results`` in the two-sided bear-off database's range, with their
    boards."""
    rows = np.flatnonzero(bearoff.in_two_sided_range(results))
    return rows.astype(np.int64), results[rows]


def _no_bearoffs() -> _Bearoffs:
    return np.zeros(0, dtype=np.int64), np.zeros((0, 2, 25), dtype=np.uint8)


#: The rolls in the order of ``bgfast.batch.all_rolls`` and ``Net.score_rolls``: the 15
#: non-doubles (21, 31, 32, ..., 65), then the doubles (11 .. 66); higher die first.
_ROLLS: dict[tuple[int, int], int] = {
    roll: k
    for k, roll in enumerate(
        [(hi, lo) for hi in range(2, 7) for lo in range(1, hi)] + [(d, d) for d in range(1, 7)]
    )
}


def _net_arg(what: str, net: object) -> Net:
    """``net``, or the shipped :meth:`bgfast.Net.wildbg` for ``None``."""
    if net is None:
        return Net.wildbg()
    if not isinstance(net, Net):
        raise TypeError(f"{what} must be a bgfast Net or None, not {type(net).__name__}")
    return net


def _net_name(net: Net) -> str:
    name = policy_name(net)
    return name if name in SHIPPED_NETS else f"a {net.inputs} net"


class _Analyst:
    def __init__(
        self,
        net: Net,
        luck_net: Net,
        threads: int,
        cube_life: cubeful.CubeLife,
        met: str,
        crawford_rule: bool,
    ) -> None:
        self.net = net
        self.luck_net = luck_net
        # One net for both: the plays made are among the 21 rolls' plays scored for the luck.
        self.one_net = net == luck_net
        self.threads = threads
        self.cube_life = cube_life
        # GNU Backgammon's cube life index of each position: the results' boards are read.
        self.by_position = cube_life == cubeful.GNUBG_CUBE_LIFE
        self.met = met
        self.crawford_rule = crawford_rule
        self._stakes: dict[tuple[Any, ...], cubeful.Stakes] = {}
        self._scales: dict[cubeful.Stakes, float] = {}
        self._emg: dict[cubeful.Stakes, Callable[[float], float]] = {}

    # ---------------------------------------------------------------- stakes

    def stakes(self, state: State, player: int) -> cubeful.Stakes:
        """The stakes seen by ``player`` in ``state`` (the cube now, the match score)."""
        cube = state.cube
        owner = (
            "centred" if cube.owner is None else ("mover" if cube.owner == player else "opponent")
        )
        key = (
            state.match_length,
            state.score,
            player,
            state.crawford,
            cube.value,
            owner,
            state.rules.jacoby,
            state.rules.beavers,
            state.rules.cube_limit,
            state.rules.backgammon_counts_double,
        )
        found = self._stakes.get(key)
        if found is None:
            if state.match_length:
                found = cubeful.Stakes.check(
                    cube=(cube.value, owner),
                    match_length=state.match_length,
                    score=(state.score[player], state.score[1 - player]),
                    crawford=state.crawford,
                    met=self.met,
                    crawford_rule=self.crawford_rule,
                    max_cube=state.rules.cube_limit,
                    backgammon_counts_double=state.rules.backgammon_counts_double,
                )
            else:
                found = cubeful.Stakes.check(
                    cube=(cube.value, owner),
                    jacoby=state.rules.jacoby,
                    beavers=state.rules.beavers,
                    max_cube=state.rules.cube_limit,
                    backgammon_counts_double=state.rules.backgammon_counts_double,
                )
            self._stakes[key] = found
        return found

    def scale(self, stakes: cubeful.Stakes) -> float:
        """EMG per unit of the stakes' values (1 in money play: values are EMG already)."""
        found = self._scales.get(stakes)
        if found is None:
            found = self._scales[stakes] = stakes.emg_scale() if stakes.is_match else 1.0
        return found

    # ---------------------------------------------------------------- collecting

    def collect(self, game: Game, number: int) -> tuple[list[_Turn], list[_Cube]]:
        """The rolls and cube decisions of ``game``, with their states and stakes."""
        steps = _moments.moments(game)
        # A game begun with the dice already rolled (from a Game's state or an ID with dice)
        # has no Roll event for its first play, which is rated all the same.
        first = steps[0].before if steps else None
        rolled_before = first is not None and first.phase == "move" and first.dice is not None
        # Move numbers as a .mat file numbers its lines (the take of a beaver takes no cell).
        actors: list[int] = []
        if first is not None and rolled_before:
            assert first.turn is not None
            actors.append(first.turn)
        at: list[int] = []  # index into actors for each step (or -1)
        for step in steps:
            actor = _actor(step)
            at.append(len(actors) if actor is not None else -1)
            if actor is not None:
                actors.append(actor)
        numbers = move_numbers(actors)
        turns: list[_Turn] = []
        cubes: list[_Cube] = []
        doubled = False
        doubling_state: State | None = None
        pending: _Turn | None = None
        staged_text = ""  # the text of the last move staged
        last_number = 1
        if first is not None and rolled_before:
            assert first.turn is not None and first.dice is not None
            last_number = numbers[0]
            pending = _Turn(
                number,
                last_number,
                first.turn,
                first,
                first.dice,
                self.stakes(first, first.turn),
                False,
            )
            turns.append(pending)
        for step, k in zip(steps, at):
            if k >= 0:
                last_number = numbers[k]
            before, event, after = step.before, step.event, step.after
            if isinstance(event, ev.Roll):
                if before.phase == "opening":
                    if after.phase == "opening":
                        continue  # a tie (R3)
                    if after.phase != "move":
                        continue  # the winner could not play it: a pass (R10), no decision
                    assert after.turn is not None and after.dice is not None
                    player, state, dice, opening = after.turn, after, after.dice, True
                else:
                    assert before.turn is not None and event.dice is not None
                    # The state with the dice to play, or (a roll that cannot be played)
                    # the one it was rolled in.
                    state = after if after.phase == "move" else before
                    player, dice, opening = before.turn, event.dice, False
                    if not doubled and self._may_double(before, player):
                        cubes.append(
                            _Cube(
                                number,
                                last_number,
                                player,
                                "no double",
                                before,
                                player,
                                self.stakes(before, player),
                            )
                        )
                doubled = False
                turn = _Turn(
                    number, last_number, player, state, dice, self.stakes(state, player), opening
                )
                turn.they_may_double = not holland_waits_after_play(state, player)
                turns.append(turn)
                pending = turn if after.phase == "move" else None
            elif isinstance(event, ev.Double):
                assert before.turn is not None
                doubled = True
                cubes.append(
                    _Cube(
                        number,
                        last_number,
                        before.turn,
                        "double",
                        before,
                        before.turn,
                        self.stakes(before, before.turn),
                    )
                )
                doubling_state = before
            elif isinstance(event, (ev.Take, ev.Drop, ev.Beaver)):
                offer = before.offer
                assert offer is not None
                if offer.kind != "double":
                    continue  # beavers' and raccoons' answers: not analysed (as GNU Backgammon)
                # A game begun with the double already offered (from a Game's state or an ID)
                # has no Double event: the state before it is the offer's without the offer
                # (the doubler on turn, the cube not yet turned).
                offered = doubling_state if doubling_state is not None else _unoffered(before)
                action = {ev.Take: "take", ev.Drop: "pass", ev.Beaver: "beaver"}[type(event)]
                cubes.append(
                    _Cube(
                        number,
                        last_number,
                        offer.responder,
                        action,
                        offered,
                        offer.doubler,
                        self.stakes(offered, offer.doubler),
                    )
                )
            elif isinstance(event, ev.Move):
                staged_text = event.move
            elif isinstance(event, ev.Commit) and pending is not None:
                if step.move is not None:
                    pending.played = step.move
                else:  # an illegal play, which stands unless it is called (R31)
                    pending.played_text = staged_text
                    pending.illegal_result = after.position
                pending = None
            elif isinstance(event, ev.Call):
                # The illegal play is taken back; the play that replaces it is rated.
                pending = turns[-1] if turns else None
                if pending is not None:
                    pending.played_text, pending.illegal_result = "", None
        return turns, cubes

    def _may_double(self, state: State, player: int) -> bool:
        if state.why_not_double() is not None:
            return False
        return self.stakes(state, player).why_no_double() is None

    # ---------------------------------------------------------------- chequer play and luck

    def chequer_and_luck(
        self, turns: list[_Turn], totals: tuple[_Totals, _Totals], rolls: list[RollLuck]
    ) -> list[Decision]:
        """The chequer plays and the luck of ``turns``."""
        if not turns:
            return []
        # The positions whose 21 rolls are scored: every roll's, and for an opening roll
        # the start as the other player sees it too.
        positions: list[Position] = []
        stakes: list[_Valued] = []
        for turn in turns:
            positions.append(turn.state.position)
            stakes.append((turn.stakes, turn.they_may_double))
            if turn.opening:
                # The other player's view of the start (the same for the usual start, not
                # for a game begun from another position).
                other = 1 - turn.player
                positions.append(turn.state.position.flipped())
                waits = holland_waits_after_play(turn.state, other)
                stakes.append((self.stakes(turn.state, other), not waits))
        # Every play of all 21 rolls scored from its roll's origin, in one native call
        # (float32, as the net gives them: the values need no more).
        boards = batch.to_array(positions)
        offsets, probabilities = self.luck_net.score_rolls(boards, threads=self.threads)
        probabilities, in_bearoffs = _exact_in_bearoffs(boards, offsets, probabilities)
        # The plays of the rolls rolled, as positions: the same lists in the same order.
        dice = np.array([[max(t.dice), min(t.dice)] for t in turns], dtype=np.uint8)
        play_offsets, plays = batch.moves(
            batch.to_array([t.state.position for t in turns]), dice, threads=self.threads
        )
        # The luck net's values of every roll's plays; the plays made valued by the net
        # that rates them (the same rows when it is the same net).
        every = batch.all_rolls(boards, threads=self.threads)[1] if self.by_position else None
        values = self._values(probabilities, offsets[::21], stakes, in_bearoffs, every)
        if not self.one_net:
            chances = self._chances(plays)
            played_values = self._values(
                chances,
                play_offsets,
                [(t.stakes, t.they_may_double) for t in turns],
                _bearoffs_among(plays),
                plays,
            )
        # Illegal plays that stood (table mode, R31) are no legal result: valued on their own.
        illegal = [(t, t.illegal_result) for t in turns if t.illegal_result is not None]
        illegal_values: dict[int, float] = {}
        if illegal:
            illegal_boards = batch.to_array([result for _, result in illegal])
            found = self._values(
                self._chances(illegal_boards),
                np.arange(len(illegal) + 1, dtype=np.int64),
                [(t.stakes, t.they_may_double) for t, _ in illegal],
                _bearoffs_among(illegal_boards),
                illegal_boards,
            )
            illegal_values = {id(t): float(v) for (t, _), v in zip(illegal, found)}
        # Every block holds one result at least (a roll that cannot be played: the pass).
        best = np.maximum.reduceat(values, offsets[:-1])
        weights = np.array([2.0] * 15 + [1.0] * 6)
        decisions: list[Decision] = []
        row = 0
        for k, turn in enumerate(turns):
            s = turn.stakes
            scale = self.scale(s)
            block = 21 * row
            mine = best[block : block + 21]
            actual = _ROLLS[(max(turn.dice), min(turn.dice))]
            if turn.opening:
                # The 15 opening rolls the other player would have won, seen by this one.
                theirs = best[block + 21 : block + 21 + 15]
                as_mine = (1.0 - theirs) if s.is_match else -theirs
                mean = float(mine[:15].sum() + as_mine.sum()) / 30.0
                row += 2
            else:
                mean = float(mine @ weights) / 36.0
                row += 1
            luck = float(mine[actual]) - mean
            t = totals[turn.player]
            t.rolls += 1
            t.luck[0] += luck * scale
            t.luck[1] += luck if s.is_match else 0.0
            rolls.append(
                RollLuck(
                    turn.game,
                    turn.move,
                    turn.player,
                    turn.dice,
                    luck * scale,
                    luck if s.is_match else None,
                )
            )
            b = block + actual
            start, stop = int(offsets[b]), int(offsets[b + 1])
            results = plays[int(play_offsets[k]) : int(play_offsets[k + 1])]
            if len(results) != stop - start:  # pragma: no cover (one generator)
                raise BgfastError("the plays of a roll differ between two lists of them")
            if self.one_net:
                block_values = values[start:stop]
            else:
                block_values = played_values[int(play_offsets[k]) : int(play_offsets[k + 1])]
            decisions.append(
                self._play(
                    turn,
                    results,
                    block_values,
                    int(block_values.argmax()),
                    t,
                    illegal_values.get(id(turn)),
                )
            )
        return decisions

    def _values(
        self,
        probabilities: npt.NDArray[np.float32],
        offsets: npt.NDArray[np.int64],
        stakes: list[_Valued],
        in_bearoffs: _Bearoffs,
        results: npt.NDArray[np.uint8] | None,
    ) -> npt.NDArray[np.float32]:
        """The value of each result for the player who moved (money per unit of the cube,
        match-winning chances in a match): the opponent's value after its own cube action
        (none where it may not double), turned round; exact for the results in the
        two-sided bear-off database's range (``in_bearoffs``: their rows and boards),
        as GNU Backgammon values them. Block ``k`` (rows ``offsets[k]..offsets[k + 1]``)
        is played at ``stakes[k]``. ``results``, every row's board (the opponent to move),
        is read for GNU Backgammon's cube life index by position (:attr:`by_position`)."""
        values = np.empty(len(probabilities), dtype=np.float32)
        # Where each row's board is in in_bearoffs (-1: not in the database's range).
        exact_rows, exact_boards = in_bearoffs
        board_of = np.full(len(probabilities), -1, dtype=np.int64)
        board_of[exact_rows] = np.arange(len(exact_rows))
        for valued in set(stakes):
            parts = [
                np.arange(offsets[k], offsets[k + 1]) for k, t in enumerate(stakes) if t == valued
            ]
            rows = np.concatenate(parts)
            s, they_may_double = valued
            values[rows] = cubeful.value_for_the_side_that_moved(
                probabilities[rows],
                s.for_opponent(),
                self.cube_life,
                they_may_double,
                results[rows] if self.by_position and results is not None else None,
            )
            exact = rows[board_of[rows] >= 0]
            if exact.size:
                values[exact] = cubeful.value_for_the_side_that_moved(
                    probabilities[exact],
                    s.for_opponent(),
                    self.cube_life,
                    they_may_double,
                    exact_boards[board_of[exact]],
                )
        return values

    def chances(self, cubes: list[_Cube]) -> npt.NDArray[np.float32]:
        """The chances of the positions of ``cubes`` (the doubler on roll)."""
        if not cubes:
            return np.zeros((0, 5), dtype=np.float32)
        return self._chances(batch.to_array([c.state.position for c in cubes]))

    def _chances(self, boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        """The net's chances of ``boards`` for their sides to move, exact in the two-sided
        bear-off database's range (:func:`bgfast.bearoff.exact_chances`)."""
        return bearoff.exact_chances(boards, self.net.evaluate(boards, threads=self.threads))

    def _play(
        self,
        turn: _Turn,
        results: npt.NDArray[np.uint8],
        values: npt.NDArray[np.float32],
        best: int,
        t: _Totals,
        illegal_value: float | None = None,
    ) -> Decision:
        t.moves += 1
        position, dice = turn.state.position, turn.dice
        forced = len(results) <= 1
        if illegal_value is not None:
            # An illegal play that stood (R31): rated against the best legal play, and
            # counted as a decision even when the roll had one legal play.
            loss, loss_mwc = self._charge(t, turn, float(values[best]) - illegal_value, True)
            best_text = _best_text(position, dice, results[best], best)
            return self._decision(turn, turn.played_text, best_text, loss, loss_mwc, True)
        if turn.played is None:
            if forced:
                return self._decision(turn, "", "", 0.0, 0.0, False)
            # Rolled, then resigned or not played yet: no play to rate.
            return self._decision(
                turn, "", _best_text(position, dice, results[best], best), 0.0, 0.0, False
            )
        played_text = str(turn.played)
        if forced:
            played_index = best = 0
        else:
            target = turn.played.result.to_array()
            found = np.flatnonzero((results == target).all(axis=(1, 2)))
            played_index = int(found[0]) if len(found) else best
        difference = float(values[best] - values[played_index])
        loss, loss_mwc = self._charge(t, turn, difference, not forced)
        best_text = (
            played_text if played_index == best else _best_text(position, dice, results[best], best)
        )
        return self._decision(turn, played_text, best_text, loss, loss_mwc, not forced)

    def _charge(
        self, t: _Totals, turn: _Turn, difference: float, counted: bool
    ) -> tuple[float, float]:
        """The loss of a play ``difference`` worse than the best (in EMG normalised to the
        cube, and in the values' own unit), added to the totals and the marks."""
        loss = max(0.0, difference * self.scale(turn.stakes))
        loss_mwc = max(0.0, difference)
        if counted:
            t.unforced += 1
            t.chequer[0] += loss
            t.chequer[1] += loss_mwc if turn.stakes.is_match else 0.0
        mark = mark_of(loss)
        if mark is not None:
            t.chequer_marks[mark] += 1
        return loss, loss_mwc

    def _decision(
        self,
        turn: _Turn,
        played: str,
        best: str,
        loss: float,
        loss_mwc: float,
        counted: bool,
    ) -> Decision:
        return Decision(
            game=turn.game,
            move=turn.move,
            player=turn.player,
            kind="move",
            dice=turn.dice,
            played=played,
            best=best,
            loss=loss,
            loss_mwc=loss_mwc if turn.stakes.is_match else None,
            mark=mark_of(loss),
            counted=counted,
            cube=turn.state.cube.value,
            _moment=turn.state,
        )

    # ---------------------------------------------------------------- cube decisions

    def cube(
        self,
        cubes: list[_Cube],
        probabilities: npt.NDArray[np.float32],
        totals: tuple[_Totals, _Totals],
    ) -> list[Decision]:
        if not cubes:
            return []
        # The doubler's three values by bgfast.cubeful's model, all decisions of a set of
        # stakes at once.
        nd = np.empty(len(cubes))
        dt = np.empty(len(cubes))
        dp = np.empty(len(cubes))
        # Exact in the two-sided bear-off database's range, as GNU Backgammon's.
        boards = batch.to_array([c.state.position for c in cubes])
        for s in {c.stakes for c in cubes}:
            rows = np.array([k for k, c in enumerate(cubes) if c.stakes == s])
            values = cubeful.cube_values(
                probabilities[rows], s, self.cube_life, boards=boards[rows]
            )
            nd[rows], dt[rows], dp[rows] = values[:, 0], values[:, 1], values[:, 2]
        decisions = []
        for k, c in enumerate(cubes):
            s = c.stakes
            scale = self.scale(s)
            # In EMG normalised to the cube: a pass is worth exactly +1 to the doubler.
            to_emg = self.to_emg(s)
            no_double, take, cash = to_emg(nd[k]), to_emg(dt[k]), to_emg(dp[k])
            played = c.action
            if c.action in ("no double", "double"):
                # A cube the doubler owns is redoubled, as decide and GNU Backgammon name it.
                redouble = s.cube_owner == "mover"
                best, loss, close = _doubling(
                    c.action == "double", no_double, take, cash, s.may_beaver, redouble
                )
                if redouble:
                    played = {"double": "redouble", "no double": "no redouble"}[c.action]
            else:
                # The taker's view: taking is worth -take, passing -cash.
                took = c.action in ("take", "beaver")
                loss = max(0.0, (take - cash) if took else (cash - take))
                close = True
                best = cubeful.answer_name(take, cash, s.may_beaver)
            t = totals[c.player]
            t.cube += 1
            mark = mark_of(loss)
            if close:
                t.close += 1
            t.cubes[0] += loss
            t.cubes[1] += loss / scale if s.is_match else 0.0
            if mark is not None:
                t.cube_marks[mark] += 1
            decisions.append(
                Decision(
                    game=c.game,
                    move=c.move,
                    player=c.player,
                    kind="double" if c.action in ("no double", "double") else "take",
                    dice=None,
                    played=played,
                    best=best,
                    loss=loss,
                    loss_mwc=loss / scale if s.is_match else None,
                    mark=mark,
                    counted=close,
                    cube=c.state.cube.value,
                    _moment=c.state,
                )
            )
        return decisions

    def to_emg(self, stakes: cubeful.Stakes) -> Callable[[float], float]:
        """Values of ``stakes`` (money per unit of the cube, or match chances) in EMG
        normalised to the cube (:meth:`bgfast.cubeful.Stakes.emg`, its terms cached)."""
        if not stakes.is_match:
            return float
        found = self._emg.get(stakes)
        if found is None:
            win, lose = stakes.match_value(True), stakes.match_value(False)

            def found(mwc: float, win: float = win, lose: float = lose) -> float:
                return (2.0 * float(mwc) - (win + lose)) / (win - lose)

            self._emg[stakes] = found
        return found


def _doubling(
    doubled: bool,
    no_double: float,
    take: float,
    cash: float,
    may_beaver: bool,
    redouble: bool = False,
) -> tuple[str, float, bool]:
    """The best action (:func:`bgfast.cubeful.action_name`, "redouble" for a cube the
    player owns, ``redouble``; "too good" for too good to double), the loss and whether the
    decision is close, for a player who ``doubled`` or not, from its values in EMG. A
    double the taker beavers (:func:`bgfast.cubeful.beavers_now`) is worth twice the take
    to the doubler, as GNU Backgammon's "no double, beaver" weighs it (passing the beaver
    would cost 2, no better); gnubg's own analysis charges such a double by the take
    alone."""
    beavered = cubeful.beavers_now(take, cash, may_beaver)
    double_value = 2.0 * take if beavered else min(take, cash)
    optimal = max(no_double, double_value)
    loss = max(0.0, optimal - (double_value if doubled else no_double))
    close = doubled or optimal - double_value < _CLOSE
    best = cubeful.action_name(no_double, take, cash, redouble=redouble, beavers=may_beaver)
    return ("too good" if best.startswith("too good") else best), loss, close


def _unoffered(state: State) -> State:
    """The state before the double waiting in ``state`` was offered."""
    if isinstance(state, _moments.Moment):
        return state._replace(phase="roll", offer=None)
    return replace(state, phase="roll", offer=None)


def _actor(step: _moments.Step) -> int | None:
    """Who acted in ``step``, for the move numbers of a ``.mat`` file (``None``: no cell)."""
    event, before, after = step.event, step.before, step.after
    if isinstance(event, ev.Roll):
        if before.phase == "opening":
            return after.turn if after.phase != "opening" else None
        return before.turn
    if isinstance(event, (ev.Double, ev.Beaver, ev.Raccoon)):
        return before.player_to_act
    if isinstance(event, (ev.Take, ev.Drop)):
        offer = before.offer
        assert offer is not None
        if isinstance(event, ev.Take) and offer.kind == "beaver":
            return None
        return offer.responder
    return None


def _best_text(
    position: Position, dice: tuple[int, int], result: npt.NDArray[np.uint8], index: int
) -> str:
    """The play of ``dice`` that reaches ``result``, the ``index``-th of the batch's list
    (which lists them in ``Position.moves`` order; checked)."""
    moves = position.moves(dice)
    if index < len(moves) and np.array_equal(moves[index].result.to_array(), result):
        return str(moves[index])
    for move in moves:  # pragma: no cover (the orders agree)
        if np.array_equal(move.result.to_array(), result):
            return str(move)
    raise BgfastError(f"no legal play of {shown(dice)} reaches the best result")  # pragma: no cover


def _gnubg_id(state: GameState) -> str:
    try:
        return codec.gnubg_id_of(state)
    except BgfastError:
        return state.position.id
