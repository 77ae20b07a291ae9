"""The doubling cube's value: cubeful equities and cube decisions from cubeless chances.

A net gives cubeless chances (``Net.evaluate``); a player with the cube needs cubeful
values. bgfast uses Rick Janowski's model, as GNU Backgammon does at 0 ply: a position's
cubeful value mixes the dead-cube value (the cubeless one) and the value with a fully live
cube (each side doubling exactly at the other's take point and cashing exactly at its own
cash point), ``value = (1 - x) dead + x live``, with ``x`` the **cube life index**: 0 a
dead cube, 1 a perfectly efficient one; 0.68 (the default) is GNU Backgammon's value for
contact positions, and ``cube_life="gnubg"`` takes its index of each position (lower in
races, :data:`CubeLife`) where the positions are given. In match play the points are
match-winning chances from a match equity table (``bgfast.met``), the live-cube cash
points found level by level up to the dead cube, with the Crawford rule (no cube in the
Crawford game) and the post-Crawford one (the 1-away leader never doubles).

In the two-sided bear-off database's range (at most 6 checkers a side, all home) GNU
Backgammon reads exact values instead, and so does bgfast where it is given the positions
(``decide(position=...)``, ``cube_values(boards=...)``, :func:`exact_bearoff_values`): the
database's cubeful equities in money play, and in a match the model at a cube life found
from them.

>>> import bgfast
>>> d = bgfast.cubeful.decide([0.72, 0.12, 0.0, 0.05, 0.0])
>>> d.action
'double, take'

Money values are per unit of the cube now (a double/pass is worth 1.0); match values are
the side to move's match-winning chances (``mwc``) with their equivalent in money points
at the cube now (``emg``, GNU Backgammon's ``mwc2eq``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from bgfast import _core, batch, bearoff
from bgfast import met as tables
from bgfast._core import Position
from bgfast.errors import BgfastError, MatchOptionError, shown
from bgfast.state import GameState
from bgfast.vocab import (
    CUBE_LIMIT,
    check_cube_value,
    check_flag,
    check_match_length,
    check_score,
)

__all__ = [
    "BEAROFF_MATCH_CUBE_LIFE",
    "BEAVER_FLOOR",
    "DEFAULT_CUBE_LIFE",
    "GNUBG_CUBE_LIFE",
    "OWNERS",
    "CubeDecision",
    "CubeLife",
    "Stakes",
    "action_name",
    "answer_name",
    "cube_values",
    "decide",
    "exact_bearoff_values",
]

#: GNU Backgammon's cube life index for contact positions, the default everywhere.
DEFAULT_CUBE_LIFE = 0.68

#: Sets of stakes whose cube models (and opponent's views) are kept for the next call: a
#: server sent boards of ever new stakes drops the oldest rather than grow.
STAKES_KEPT = 1024

#: The cube's owners, seen from the side to move.
OWNERS = ("centred", "mover", "opponent")

#: Accepted spellings of the owners.
_OWNER_SPELLINGS = {
    "centred": "centred",
    "centered": "centred",
    "center": "centred",
    "centre": "centred",
    "mover": "mover",
    "opponent": "opponent",
}


@dataclass(frozen=True)
class Stakes:
    """What a game is played for, seen from the side to move: the cube (value and owner,
    ``"centred"``, ``"mover"`` or ``"opponent"``), the money options (Jacoby R23,
    beavers), or a match (length, score as points won, side to move first, whether this
    game is the Crawford game, R21, the match equity table, and whether the match is
    played with the Crawford rule at all), and the highest value the game lets the cube
    reach (``max_cube``, R17: 1 for a game without a cube), and whether a backgammon scores
    as a gammon (``backgammon_counts_double``, R16's option). Build one with
    :meth:`Stakes.check`, which refuses what the rules do not allow; the constructor refuses
    the same (``crawford`` is then given, not found from the score).

    A match without the Crawford rule has no Crawford game: every game at a 1-away score
    is played as a post-Crawford one (the trailer doubles at once), so the cube model
    reads the table's post-Crawford values wherever a side is 1-away. The table's other
    entries are those of matches with the rule (no published table is made without it):
    a close approximation, which leaves the trailer's extra chances out.

    A cube at its limit is dead for both sides: its values are the cubeless ones. Below
    its limit the model counts the doubles left: the live cube's take and cash points are
    found level by level from the limit down (one double from it, whoever takes owns a dead
    cube), which comes to Janowski's points a few doubles below it. In a match
    the values after each game are the table's, made for matches played with a cube and no
    limit: an approximation for a match with a cube limit, and a rougher one for a match
    without the cube (``max_cube=1``), whose trailer after the Crawford game cannot double
    at once."""

    cube_value: int
    cube_owner: str
    jacoby: bool
    beavers: bool
    match_length: int
    score: tuple[int, int]
    crawford: bool
    met: str
    crawford_rule: bool = True
    max_cube: int = CUBE_LIMIT
    backgammon_counts_double: bool = False

    def __post_init__(self) -> None:
        # Built by hand (the constructor, dataclasses.replace), the stakes are checked as
        # check() checks them: a cube of 3, an owner "nobody" or a score past the match would
        # otherwise give cube values and match-winning chances without meaning, silently.
        fields = _checked_fields(
            cube=(self.cube_value, self.cube_owner),
            jacoby=self.jacoby,
            beavers=self.beavers,
            match_length=self.match_length,
            score=self.score,
            crawford=self.crawford,
            met=self.met,
            crawford_rule=self.crawford_rule,
            max_cube=self.max_cube,
            backgammon_counts_double=self.backgammon_counts_double,
        )
        self._set_checked(fields)

    def _set_checked(self, fields: dict[str, Any]) -> Stakes:
        """Sets the fields of these stakes, being built, to ``fields``: every field, checked
        and spelled canonically ("centred", bools) by :func:`_checked_fields`."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)
        return self

    @classmethod
    def check(
        cls,
        *,
        cube: object = (1, "centred"),
        jacoby: object = False,
        beavers: object = False,
        match_length: object = 0,
        score: object = (0, 0),
        crawford: object = None,
        met: object = tables.DEFAULT_TABLE,
        crawford_rule: object = True,
        max_cube: object = None,
        backgammon_counts_double: object = False,
    ) -> Stakes:
        """The stakes, checked; ``BgfastError`` (``MatchOptionError`` for a rule of match
        play) naming what is wrong. ``crawford=None`` means the Crawford game exactly when
        one side is 1-away (the first game at that score) and the match has the Crawford
        rule (``crawford_rule``, R21; a match setting, on by default). ``max_cube`` is the
        game's cube limit (``bgfast.Rules.max_cube``; ``None``, the default, 32768);
        ``backgammon_counts_double`` R16's option (``bgfast.Rules``).

        ``score`` is the points won so far, the side to move's score first (not
        ``Game.score``'s player order: for a game, pass its ``GameState`` to
        :meth:`of_state` instead, ``Stakes.of_state(game.state)``, which takes its stakes
        seen from the side on roll)."""
        fields = _checked_fields(
            cube=cube,
            jacoby=jacoby,
            beavers=beavers,
            match_length=match_length,
            score=score,
            crawford=crawford,
            met=met,
            crawford_rule=crawford_rule,
            max_cube=max_cube,
            backgammon_counts_double=backgammon_counts_double,
        )
        # Checked once: the constructor would check the canonical fields again, and they
        # pass (every field is given, as the constructor spells it).
        return object.__new__(cls)._set_checked(fields)

    @classmethod
    def of_state(
        cls, state: GameState, *, met: str = tables.DEFAULT_TABLE, crawford_rule: bool = True
    ) -> Stakes:
        """The stakes of a game state (from a GNUbg ID or an XGID, say), seen from its
        player on roll: the cube, the match score and Crawford, Jacoby and beavers; a state
        does not say whether its match has the Crawford rule (``crawford_rule``, a match's
        own setting: :attr:`bgfast.Match.crawford_rule`); the cube limit and how a
        backgammon scores are its rules' (``Rules.max_cube``, R16's option).
        ``BgfastError`` if nobody is on roll yet (before the opening roll, R3)."""
        if not isinstance(state, GameState):
            raise TypeError(f"state must be a bgfast GameState, not {type(state).__name__}")
        if state.turn is None:
            raise BgfastError("nobody is on roll before the opening roll (R3): no stakes yet")
        mover = state.turn
        cube = state.cube
        owner = "centred" if cube.owner is None else "mover" if cube.owner == mover else "opponent"
        return cls.check(
            cube=(cube.value, owner),
            jacoby=state.rules.jacoby if state.match_length == 0 else False,
            beavers=state.rules.beavers if state.match_length == 0 else False,
            match_length=state.match_length,
            score=(state.score[mover], state.score[1 - mover]),
            crawford=state.crawford if state.match_length else None,
            met=met,
            crawford_rule=crawford_rule,
            max_cube=state.rules.cube_limit,
            backgammon_counts_double=state.rules.backgammon_counts_double,
        )

    @classmethod
    def of(cls, subject: Position | GameState) -> Stakes:
        """The stakes a position or game state is played at by default: a state's own
        (:meth:`of_state`); for a bare position, which holds no cube or score, money with
        the cube centred at 1."""
        if isinstance(subject, Position):
            return _MONEY_CENTRED
        return cls.of_state(subject)

    def for_opponent(self) -> Stakes:
        """The same stakes seen by the other side (the cube's owner and the score turned
        round): the stakes of a result for the opponent, who rolls next."""
        return _seen_by_the_opponent(self)

    def for_rollouts(self) -> Stakes:
        """These stakes, which a rollout can play; ``BgfastError`` for a backgammon that
        scores as a gammon (R16's option), which rollouts do not play."""
        if self.backgammon_counts_double:
            raise BgfastError(
                "rollouts score a backgammon as three times the cube (R16): they do not play"
                " backgammon_counts_double"
            )
        return self

    def arguments(self) -> dict[str, Any]:
        """The stakes as the keyword arguments of ``bgfast.rollout``; ``BgfastError`` for a
        backgammon that scores as a gammon, which rollouts do not play."""
        self.for_rollouts()
        return {
            "cube": (self.cube_value, self.cube_owner),
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "match_length": self.match_length,
            "score": self.score,
            "crawford": self.crawford if self.is_match else None,
            "met": self.met,
            "crawford_rule": self.crawford_rule,
            "max_cube": self.max_cube,
        }

    @property
    def is_match(self) -> bool:
        """Whether this is match play (values are match-winning chances)."""
        return self.match_length > 0

    @property
    def away(self) -> tuple[int, int]:
        """Points away: the side to move, then the opponent (0, 0 in money play)."""
        if not self.is_match:
            return (0, 0)
        n = self.match_length
        return (n - self.score[0], n - self.score[1])

    def counted(self, p: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
        """Rows of five chances as this game scores them: with a backgammon worth a gammon
        (R16's option) the backgammon columns are emptied (the gammon columns already count
        backgammons), which makes every value of the model exact for the option."""
        if not self.backgammon_counts_double:
            return p
        counted = np.array(p, copy=True)
        counted[..., 2] = 0.0
        counted[..., 4] = 0.0
        return counted

    def cube(self) -> tuple[int, str, int]:
        """The cube as the native layer takes it: value, owner and limit."""
        return (self.cube_value, self.cube_owner, self.max_cube)

    def native(self) -> tuple[Any, ...]:
        """The stakes as the native layer takes them."""
        if not self.is_match:
            return ("money", self.jacoby, self.beavers)
        table = tables.load(self.met)
        pre = [x for row in table.pre for x in row]
        if not self.crawford_rule:
            # The table's 1-away entries (the Crawford game's values) read as post-Crawford
            # ones: the native model then needs no setting of its own for such matches.
            n = table.max_away
            for k, trailer in enumerate(table.post):
                pre[k] = 1.0 - trailer  # 1-away against (k + 1)-away
                pre[k * n] = trailer  # (k + 1)-away against 1-away
        mine, theirs = self.away
        return ("match", pre, list(table.post), mine, theirs, self.crawford)

    def match_value(self, mover_wins: bool) -> float:
        """The side to move's match-winning chances once one side wins the cube's value."""
        table = tables.load(self.met)
        mine, theirs = self.away
        if mover_wins:
            mine -= self.cube_value
        else:
            theirs -= self.cube_value
        if mine <= 0 or theirs <= 0:
            return 1.0 if mine <= 0 else 0.0
        # After the Crawford game or a post-Crawford one, the next game is post-Crawford;
        # without the Crawford rule, every game at a 1-away score is.
        post = (self.crawford or 1 in self.away or not self.crawford_rule) and 1 in (mine, theirs)
        return table.equity(mine, theirs, post_crawford=post)

    def emg(self, mwc: float) -> float:
        """``mwc`` in equivalent money points at the cube now (EMG): the linear map taking
        losing the cube's value to -1 and winning it to +1 (GNU Backgammon's ``mwc2eq``)."""
        win, lose = self.match_value(True), self.match_value(False)
        return (2.0 * mwc - (win + lose)) / (win - lose)

    def emg_scale(self) -> float:
        """How many EMG one unit of match-winning chances is worth."""
        return 2.0 / (self.match_value(True) - self.match_value(False))

    @property
    def may_beaver(self) -> bool:
        """Whether the doubled side may beaver a double now: money play with beavers, and
        room for the two turns of the cube a beaver makes (four times its value within the
        game's limit, as the engine's ``Cube::beavered`` has it)."""
        return self.beavers and self.cube_value * 4 <= self.max_cube

    def why_no_double(self) -> str | None:
        """Why the side to move may not double now (naming the rule), or ``None``."""
        if self.cube_owner == "opponent":
            return "R17: the opponent owns the cube"
        if self.cube_value * 2 > self.max_cube:
            if self.max_cube == 1:
                return "R17: the game is played without the cube"
            return f"R17: the cube is at its limit, {self.max_cube}"
        if self.is_match:
            mine, theirs = self.away
            if self.crawford:
                return "R21: the Crawford game is played without the cube"
            # Before the general case below, which every 1-away side meets (its cube is at
            # least 1); at 1-away both (double match point) nobody leads: the general case.
            if mine == 1 and theirs > 1:
                after = " after the Crawford game (R21)" if self.crawford_rule else ""
                return (
                    f"the cube is dead for the 1-away leader{after}: its double could only"
                    " help the trailer"
                )
            if mine <= self.cube_value:
                return (
                    f"the cube is dead for the side to move: {mine} away with the cube at"
                    f" {self.cube_value} already wins the match"
                )
        return None

    def words(self) -> str:
        """The stakes in a few words, seen from the side to move: ``"money, cube 1
        centred"``, ``"7-point match at 3-4, cube 2 the mover's, Crawford game"``."""
        owner = {"centred": "centred", "mover": "the mover's", "opponent": "the opponent's"}
        parts = [f"cube {self.cube_value} {owner[self.cube_owner]}"]
        if self.max_cube == 1:
            parts = ["no cube"]
        elif self.max_cube < CUBE_LIMIT:
            parts.append(f"at most {self.max_cube}")
        if self.backgammon_counts_double:
            parts.append("backgammons count double")
        if self.is_match:
            mine, theirs = self.score
            parts.insert(0, f"{self.match_length}-point match at {mine}-{theirs}")
            if self.crawford:
                parts.append("Crawford game")
            elif 1 in self.away and self.crawford_rule:
                parts.append("post-Crawford")
            if not self.crawford_rule:
                parts.append("no Crawford rule")
        else:
            parts.insert(0, "money")
            parts += [name for name in ("jacoby", "beavers") if getattr(self, name)]
        return ", ".join(parts)

    def describe(self) -> dict[str, Any]:
        """The stakes as plain data, for results and JSON: ``cube`` as ``[value, owner]``;
        ``max_cube`` only below 32768 and ``backgammon_counts_double`` only when true; a
        match's length, score, Crawford flag and table (``crawford_rule`` only when false),
        or money's ``jacoby`` and ``beavers``."""
        out: dict[str, Any] = {"cube": [self.cube_value, self.cube_owner]}
        if self.max_cube < CUBE_LIMIT:  # present only for a game with a cube limit
            out["max_cube"] = self.max_cube
        if self.backgammon_counts_double:  # present only for a game with the option
            out["backgammon_counts_double"] = True
        if self.is_match:
            out.update(
                match_length=self.match_length,
                score=list(self.score),
                crawford=self.crawford,
                met=self.met,
            )
            if not self.crawford_rule:
                out["crawford_rule"] = False
        else:
            out.update(jacoby=self.jacoby, beavers=self.beavers)
        return out


def why_no_cube_action(subject: Position | GameState) -> str | None:
    """Why the side to move of a position or game state has no cube decision to make now,
    whatever the stakes allow (:meth:`Stakes.why_no_double` says what they forbid), or
    ``None``: the game is over, a resignation or a beaver or raccoon waits for its answer
    (the cube offered then is not the one valued), or the dice are rolled."""
    position = subject if isinstance(subject, Position) else subject.position
    if position.outcome is not None:
        return "the game is over"
    if isinstance(subject, GameState):
        if subject.phase == "resign":
            return "a resignation waits for its answer"
        if subject.offer is not None and subject.offer.kind != "double":
            return f"a {subject.offer.kind} waits for its answer"
        if subject.dice is not None:
            return "the dice are rolled"
    return None


@functools.lru_cache(maxsize=STAKES_KEPT)
def _seen_by_the_opponent(stakes: Stakes) -> Stakes:
    """:meth:`Stakes.for_opponent`, kept: every play ranked at a set of stakes asks for it,
    and building stakes checks them."""
    owner = {"centred": "centred", "mover": "opponent", "opponent": "mover"}[stakes.cube_owner]
    return replace(stakes, cube_owner=owner, score=stakes.score[::-1])


def met_name(name: object) -> str:
    """The canonical name of a match equity table (``UnknownTableError`` if none)."""
    return met_table(name).name


def met_table(name: object) -> tables.MatchEquityTable:
    """The match equity table named ``name``."""
    if not isinstance(name, str):
        raise BgfastError(f"met must be the name of a table, not {shown(name)}")
    return tables.load(name)


def _cube(cube: object, is_match: bool, limit: int) -> tuple[int, str]:
    if not isinstance(cube, (tuple, list)) or len(cube) != 2:
        raise BgfastError(
            f"cube must be a pair (value, owner) such as (1, 'centred'), not {shown(cube)}"
        )
    value = check_cube_value(cube[0], "the cube value")
    owner = cube[1]
    canonical = _OWNER_SPELLINGS.get(owner) if isinstance(owner, str) else None
    if canonical is None:
        raise BgfastError(
            f"R17: the cube's owner is 'centred', 'mover' (the side to move) or 'opponent',"
            f" not {shown(owner)}"
        )
    if value > limit:
        raise BgfastError(f"R17: the cube value {value} is past the game's limit, {limit}")
    if is_match and canonical == "centred" and value != 1:
        raise MatchOptionError(
            f"R17: a centred cube is at 1 in match play (no automatic doubles), not {value}"
        )
    return value, canonical


def _checked_fields(
    *,
    cube: object,
    jacoby: object,
    beavers: object,
    match_length: object,
    score: object,
    crawford: object,
    met: object,
    crawford_rule: object,
    max_cube: object,
    backgammon_counts_double: object,
) -> dict[str, Any]:
    """The fields of the :class:`Stakes` that :meth:`Stakes.check` takes, checked and
    spelled canonically; ``BgfastError`` naming what is wrong."""
    # None is no limit but the largest cube, as Rules.max_cube has it (replace(), the
    # constructor and check() take the same).
    limit = check_cube_value(
        CUBE_LIMIT if max_cube is None else max_cube, "max_cube", error=BgfastError
    )
    doubled_backgammons = check_flag("backgammon_counts_double", backgammon_counts_double)
    jacoby, beavers = check_flag("jacoby", jacoby), check_flag("beavers", beavers)
    crawford_rule = check_flag("crawford_rule", crawford_rule)
    # None: found from the score; anything else is a flag (an array or "no" is not False).
    given_crawford = None if crawford is None else check_flag("crawford", crawford)
    length = check_match_length(match_length, money=True)
    the_score = check_score(score, length)
    if length == 0:
        if given_crawford:
            raise MatchOptionError("crawford needs match_length (R21)")
        if not crawford_rule:
            raise MatchOptionError("crawford_rule is a match setting: it needs match_length")
        value, owner = _cube(cube, is_match=False, limit=limit)
        return {
            "cube_value": value,
            "cube_owner": owner,
            "jacoby": jacoby,
            "beavers": beavers,
            "match_length": 0,
            "score": (0, 0),
            "crawford": False,
            "met": met_name(met),
            "crawford_rule": True,
            "max_cube": limit,
            "backgammon_counts_double": doubled_backgammons,
        }
    for option, on in (("jacoby", jacoby), ("beavers", beavers)):
        if on:
            raise MatchOptionError(f"{option} is a money-play option, not used in matches")
    table = met_table(met)
    for who, s in zip(("the side to move", "the opponent"), the_score):
        if length - s > table.max_away:
            raise MatchOptionError(
                f"R20: {who} is {length - s} points away; table {table.name!r} covers at"
                f" most {table.max_away}"
            )
    one_away = [length - s == 1 for s in the_score].count(True)
    if not crawford_rule:
        if given_crawford:
            raise MatchOptionError(
                "R21: a match played without the Crawford rule has no Crawford game"
            )
        is_crawford = False
    elif given_crawford is None:
        is_crawford = one_away == 1
    else:
        is_crawford = given_crawford
        if is_crawford and one_away != 1:
            raise MatchOptionError(
                f"R21: the Crawford game needs exactly one side 1-away, not the score"
                f" {the_score[0]}-{the_score[1]} of a {length}-point match"
            )
    value, owner = _cube(cube, is_match=True, limit=limit)
    if is_crawford and (value, owner) != (1, "centred"):
        raise MatchOptionError("R21: the Crawford game is played without the cube")
    return {
        "cube_value": value,
        "cube_owner": owner,
        "jacoby": False,
        "beavers": False,
        "match_length": length,
        "score": the_score,
        "crawford": is_crawford,
        "met": table.name,
        "crawford_rule": crawford_rule,
        "max_cube": limit,
        "backgammon_counts_double": doubled_backgammons,
    }


#: A cube life index: a number from 0 (a dead cube) to 1 (a fully efficient one), or
#: ``"gnubg"`` for GNU Backgammon's index by position (:data:`GNUBG_CUBE_LIFE`): 0.68 while
#: contact is possible, ``0.55 + pips / 800`` of the side on roll in a race (0.6 to 0.7),
#: 0.6 once both sides bear off. Rollouts take it, and so does every 0-ply call given the
#: positions (``decide(position=...)``, ``cube_values(boards=...)``, ``bgfast.hint``,
#: ``bgfast.analyse``).
CubeLife = Union[float, str]

#: The :data:`CubeLife` of GNU Backgammon's cube life index by position
#: (``bgfast._core.gnubg_cube_lives``).
GNUBG_CUBE_LIFE = "gnubg"


#: Money with the cube centred at 1: the stakes of a bare position.
_MONEY_CENTRED = Stakes.check()


def cube_life_from_text(text: str) -> CubeLife:
    """A cube life as a person types it (a command-line option, a query parameter): a
    number from 0 to 1, or ``gnubg``, spaces around either ignored; else ``BgfastError``."""
    word = text.strip()
    if word == GNUBG_CUBE_LIFE:
        return GNUBG_CUBE_LIFE
    try:
        return check_cube_life(float(word))
    except ValueError:
        raise BgfastError(
            f"cube_life must be a number from 0 to 1 or 'gnubg', not {text!r}"
        ) from None


def check_cube_life(cube_life: object) -> CubeLife:
    """``cube_life`` if it is a number from 0 to 1 (as a float) or ``"gnubg"`` (the index
    by position, :data:`GNUBG_CUBE_LIFE`); else ``BgfastError``."""
    if isinstance(cube_life, str) and cube_life == GNUBG_CUBE_LIFE:  # (an array compares by item)
        return GNUBG_CUBE_LIFE
    if (
        isinstance(cube_life, (bool, np.bool_))
        or not isinstance(cube_life, (int, float, np.integer, np.floating))
        or not 0.0 <= float(cube_life) <= 1.0
    ):
        raise BgfastError(
            f"cube_life must be a number from 0 to 1 or 'gnubg', not {shown(cube_life)}"
        )
    return float(cube_life)


#: The lowest double/take value (per unit of the cube now) at which the taker beavers: a
#: beaver may be passed (R19), which costs the beavered doubler 2, so a beaver is worth
#: ``min(-2 DT, 2)`` to the taker and beats a plain take only for ``-2 <= DT < 0``.
BEAVER_FLOOR = -2.0


def beavers_now(double_take: float, double_pass: float, may_beaver: bool) -> bool:
    """Whether the doubled side answers a double now with a beaver: it may beaver
    (:attr:`Stakes.may_beaver`), takes (taking is better for it than passing) and is the
    favourite once it owns the cube, by no more than twice the cube
    (``BEAVER_FLOOR <= double_take < 0``: past that, the doubler would pass the beaver)."""
    return bool(_beavers(np.float64(double_take), np.float64(double_pass), may_beaver))


def doubles_now(
    no_double: float, double_take: float, double_pass: float, beaver: bool = False
) -> bool:
    """Whether doubling is right, GNU Backgammon's rule (``FindBestCubeDecision``): a double
    is worth at least not doubling whatever the answer (a tie doubles: with a certain win
    and no gammon, "double, pass" cashes at once), unless the taker would beaver
    (``beaver``, :func:`beavers_now`) and twice the double/take value is less than not
    doubling ("no double, beaver")."""
    values = (np.float64(no_double), np.float64(double_take), np.float64(double_pass))
    return bool(_doubles(*values, np.bool_(beaver)))


def _beavers(dt: Any, dp: Any, may_beaver: bool) -> Any:
    """:func:`beavers_now` of numpy values, element by element: the one place it is
    written."""
    return may_beaver & (dt < dp) & (dt >= BEAVER_FLOOR) & (dt < 0.0)


def _doubles(nd: Any, dt: Any, dp: Any, beaver: Any) -> Any:
    """:func:`doubles_now` of numpy values, element by element: the one place it is
    written."""
    return (np.minimum(dt, dp) >= nd) & np.logical_not(beaver & (2.0 * dt < nd))


def action_name(
    no_double: float,
    double_take: float,
    double_pass: float,
    *,
    redouble: bool,
    beavers: bool,
    may_double: bool = True,
) -> str:
    """The cube action as players name it, from the three values of the side to move:
    ``"no double"``, ``"double, take"``, ``"double, pass"``, ``"too good to double"``
    (playing on beats the pass the double would get), ``"too good to double, take"``
    (playing on beats even the pass, and the opponent would take: GNU Backgammon's name
    where ``no_double > double_pass > double_take``), with ``beavers`` (the doubled side
    may beaver) ``"double, beaver"`` (the taker beavers, :func:`beavers_now`, and
    doubling is right all the same) and ``"no double, beaver"`` (doubling would be right
    against a take, but not once beavered: :func:`doubles_now`), and the same with
    ``"redouble"`` for a cube the side to move owns; ``"no double"`` when it may not
    double. As GNU Backgammon's ``FindBestCubeDecision``, a double worth exactly not
    doubling is named a double."""
    verb = "redouble" if redouble else "double"
    take = double_take < double_pass
    beaver = beavers_now(double_take, double_pass, beavers)
    if may_double and min(double_take, double_pass) >= no_double:
        if not take:
            return f"{verb}, pass"
        if beaver:
            return (
                f"{verb}, beaver"
                if doubles_now(no_double, double_take, double_pass, beaver)
                else f"no {verb}, beaver"
            )
        return f"{verb}, take"
    if may_double and no_double > double_pass:
        return f"too good to {verb}" if not take else f"too good to {verb}, take"
    return f"no {verb}"


def answer_name(double_take: float, double_pass: float, may_beaver: bool) -> str:
    """The doubled side's answer to a double now: ``"pass"`` when taking is no better for
    it (GNU Backgammon's convention), ``"beaver"`` when it beavers (:func:`beavers_now`),
    else ``"take"``."""
    if double_take >= double_pass:
        return "pass"
    return "beaver" if beavers_now(double_take, double_pass, may_beaver) else "take"


@dataclass(frozen=True)
class CubeDecision:
    """The side to move's cube decision at 0 ply, its main values in money points per unit
    of the cube now, match-winning chances in match play (:class:`bgfast.CubeRollout` has
    EMG there instead: compare the two by ``emg`` and ``mwc``, which mean the same on
    both).

    The values are the cubeful values of not doubling, doubling when the opponent takes
    and when it passes; in match play ``mwc`` holds the same three values and ``emg``
    their equivalent money points at the cube now (both ``None`` in money play). Then the
    action as players name it, whether the side to move may double at all (``why_not``
    says why not), and the doubled side's answer to a double now (``answer``: ``"take"``,
    ``"pass"`` or ``"beaver"``, :func:`answer_name`), the answer a pending double needs.
    The values are the side to move's, so a double/pass is 1 in money (``double_pass`` is
    the match-winning chances of winning the cube's value in a match, 1 in ``emg``). With
    beavers the taker beavers when it is the favourite once it owns the cube
    (``double_take`` below 0, not by its cubeless chances alone: wildbg's net beavers a
    double at the opening), by no more than twice the cube (``double_take`` at least -2: a
    beaver may be passed). ``answer`` is filled in even when no double may be made
    (``may_double`` false)."""

    no_double: float
    double_take: float
    double_pass: float
    action: str
    may_double: bool
    why_not: str | None
    emg: dict[str, float] | None
    answer: str
    mwc: dict[str, float] | None = field(init=False)

    def __post_init__(self) -> None:
        # In match play (where ``emg`` is given) the main values are the match-winning
        # chances: the same three under the name CubeRollout (whose main values are EMG)
        # gives them too.
        mwc = None
        if self.emg is not None:
            mwc = {
                "no_double": self.no_double,
                "double_take": self.double_take,
                "double_pass": self.double_pass,
            }
        object.__setattr__(self, "mwc", mwc)

    @property
    def value(self) -> float:
        """The position's value after both sides' best cube actions."""
        if not self.may_double or self.action.startswith(("no ", "too good")):
            return self.no_double
        return self.double_pass if self.action.endswith("pass") else self.double_take


Probabilities = Union[Sequence[float], npt.ArrayLike]

# How far chances may break ``backgammon <= gammon <= win`` (and the losing side's
# ``<= 1 - win``) or pass 0 and 1 by rounding, as float32 outputs do (a softmax head's
# win is the sum of three outcomes, which bgfast's nets keep at most 1, but other nets'
# chances come here too), and still be taken.
_CHANCE_TOLERANCE = 1e-6

_CHANCES = "win, win gammon, win backgammon, lose gammon, lose backgammon"


def _check_probabilities(probabilities: Probabilities) -> npt.NDArray[np.float64]:
    """gnubg's five cubeless chances (win, win gammon, win backgammon, lose gammon, lose
    backgammon, as ``Net.evaluate`` gives them) as a float64 array, checked: five
    finite numbers from 0 to 1 that fit together (a backgammon is also a gammon and a
    gammon also a win, R16: ``win backgammon <= win gammon <= win`` and ``lose backgammon
    <= lose gammon <= 1 - win``), all up to ``_CHANCE_TOLERANCE`` (a number rounded past 0
    or 1 is taken as 0 or 1); ``BgfastError`` naming what is wrong otherwise."""
    given = _as_numbers(probabilities)
    if given.size != 5:
        raise BgfastError(
            f"probabilities must be five numbers ({_CHANCES}), not {shown(probabilities)}"
        )
    p: npt.NDArray[np.float64] = given.astype(np.float64).reshape(5)  # (a copy)
    # One row: checked in plain floats, as _check_rows checks rows (the same messages).
    row: list[float] = p.tolist()
    low, high = -_CHANCE_TOLERANCE, 1.0 + _CHANCE_TOLERANCE
    if not all(math.isfinite(x) and low <= x <= high for x in row):
        raise BgfastError(
            f"probabilities must be chances from 0 to 1 ({_CHANCES}), not {shown(probabilities)}"
        )
    win, win_g, win_bg, lose_g, lose_bg = row
    for part, name, whole, of in (
        (win_bg, "win backgammon", win_g, "win gammon"),
        (win_g, "win gammon", win, "win"),
        (lose_bg, "lose backgammon", lose_g, "lose gammon"),
        (lose_g, "lose gammon", 1.0 - win, "the chance to lose (1 - win)"),
    ):
        if part > whole + _CHANCE_TOLERANCE:
            raise BgfastError(
                f"probabilities {shown(probabilities)} do not fit together: {name} {part:g}"
                f" is more than {of} {whole:g} (R16: a backgammon is also a gammon, a"
                " gammon also a win)"
            )
    if min(row) < 0.0 or max(row) > 1.0:
        np.clip(p, 0.0, 1.0, out=p)
    return p


def _check_probability_rows(probabilities: Probabilities) -> npt.NDArray[np.float64]:
    """Rows of gnubg's five chances, ``(N, 5)``, as a float64 array, each row checked as
    :func:`_check_probabilities` checks one."""
    given = _as_numbers(probabilities)
    if given.ndim != 2 or given.shape[1] != 5:
        raise BgfastError(
            f"probabilities must be rows of five numbers ({_CHANCES}), an (N, 5) array,"
            f" not {shown(probabilities)}"
        )
    p = given.astype(np.float64)
    _check_rows(p, lambda k: f"row {k} ({shown(p[k].tolist())})")
    return np.clip(p, 0.0, 1.0, out=p)  # (a copy: astype makes one)


def _as_numbers(probabilities: Probabilities) -> npt.NDArray[Any]:
    """``probabilities`` as an array of numbers; an empty object array if they are not."""
    try:
        given = np.asarray(probabilities)
    except (TypeError, ValueError):  # ragged, or not array-like
        return np.asarray(None)
    return given if given.dtype.kind in "iuf" else np.asarray(None)


def _check_rows(p: npt.NDArray[np.float64], named: Callable[[int], str]) -> None:
    """``BgfastError`` for the first row of ``p`` that is not five chances that fit
    together (up to ``_CHANCE_TOLERANCE``), naming it by ``named(row)``."""
    low, high = -_CHANCE_TOLERANCE, 1.0 + _CHANCE_TOLERANCE
    in_range = np.all(np.isfinite(p) & (p >= low) & (p <= high), axis=1)
    win, win_g, win_bg, lose_g, lose_bg = p.T
    relations = (
        (win_bg, "win backgammon", win_g, "win gammon"),
        (win_g, "win gammon", win, "win"),
        (lose_bg, "lose backgammon", lose_g, "lose gammon"),
        (lose_g, "lose gammon", 1.0 - win, "the chance to lose (1 - win)"),
    )
    over = [part > whole + _CHANCE_TOLERANCE for part, _, whole, _ in relations]
    # Every check over every row before naming one: the row named is the first bad one,
    # whatever is wrong with it, not the first to break whichever check runs first.
    bad = ~in_range | np.logical_or.reduce(over)
    if not bad.any():
        return
    k = int(np.argmax(bad))
    if not in_range[k]:
        raise BgfastError(f"probabilities must be chances from 0 to 1 ({_CHANCES}), not {named(k)}")
    for (part, name, whole, of), broken in zip(relations, over):
        if broken[k]:
            raise BgfastError(
                f"probabilities {named(k)} do not fit together: {name} {part[k]:g}"
                f" is more than {of} {whole[k]:g} (R16: a backgammon is also a gammon, a"
                " gammon also a win)"
            )


def decide(
    probabilities: Probabilities,
    *,
    cube: tuple[int, str] = (1, "centred"),
    jacoby: bool = False,
    beavers: bool = False,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool | None = None,
    cube_life: CubeLife = DEFAULT_CUBE_LIFE,
    met: str = tables.DEFAULT_TABLE,
    crawford_rule: bool = True,
    max_cube: int | None = None,
    backgammon_counts_double: bool = False,
    position: Position | None = None,
) -> CubeDecision:
    """The cube decision for cubeless ``probabilities`` (gnubg's five for the side to move,
    about to roll: win, win gammon, win backgammon, lose gammon, lose backgammon, as
    ``Net.evaluate`` gives them) with the stakes given (see :meth:`Stakes.check`).

    ``score`` is the points won so far, the side to move's score first (not
    ``Game.score``'s player order: for a game, pass its ``GameState`` to
    :meth:`Stakes.of_state` instead, which takes its stakes seen from the side on roll:
    ``decide(p, **Stakes.of_state(game.state).arguments())``, or
    ``cube_values([p], Stakes.of_state(game.state))``, which also plays R16's
    ``backgammon_counts_double``).

    ``cube_life`` is the model's cube life index (:data:`CubeLife`): a number from 0 to 1
    (:data:`DEFAULT_CUBE_LIFE` by default), or ``"gnubg"`` for GNU Backgammon's index of
    ``position`` (which it needs), as gnubg's own 0-ply cube analysis has it.

    ``position``, the side to move's, makes the decision exact where it is in the
    two-sided bear-off database's range, as GNU Backgammon's is
    (:func:`exact_bearoff_values`; the chances given are not used there)."""
    stakes = Stakes.check(
        cube=cube,
        jacoby=jacoby,
        beavers=beavers,
        match_length=match_length,
        score=score,
        crawford=crawford,
        met=met,
        crawford_rule=crawford_rule,
        max_cube=max_cube,
        backgammon_counts_double=backgammon_counts_double,
    )
    return decide_for(probabilities, stakes, check_cube_life(cube_life), position=position)


def decide_for(
    probabilities: Probabilities,
    stakes: Stakes,
    cube_life: CubeLife,
    *,
    position: Position | None = None,
) -> CubeDecision:
    """:func:`decide` with checked stakes and cube life."""
    p = _check_probabilities(probabilities)
    if position is None:
        values = _values_at(p[None], stakes, cube_life, None)
    else:
        if not isinstance(position, Position):
            raise TypeError(f"position must be a bgfast Position, not {shown(position)}")
        board = position.to_array()[None]
        values = with_exact_bearoffs(_values_at(p[None], stakes, cube_life, board), board, stakes)
    nd, dt, dp, _ = (float(v) for v in values[0])
    why = stakes.why_no_double()
    may_beaver = stakes.may_beaver
    action = action_name(
        nd,
        dt,
        dp,
        redouble=stakes.cube_owner == "mover",
        beavers=may_beaver,
        may_double=why is None,
    )
    answer = answer_name(dt, dp, may_beaver)
    emg = None
    if stakes.is_match:
        emg = {
            "no_double": stakes.emg(nd),
            "double_take": stakes.emg(dt),
            "double_pass": stakes.emg(dp),
        }
    return CubeDecision(nd, dt, dp, action, why is None, why, emg, answer)


def cube_values(
    probabilities: Probabilities,
    stakes: Stakes,
    cube_life: CubeLife = DEFAULT_CUBE_LIFE,
    *,
    boards: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    """The cube model over many positions at once: for ``(N, 5)`` rows of gnubg's chances
    of the side to move, about to roll (``Net.evaluate`` of many positions), an ``(N, 4)``
    float64 array of the values of no double, double/take and double/pass, then the value
    after both sides' best cube action (no double where the side to move may not double):
    :func:`decide`'s numbers row by row, at the same ``stakes`` (:meth:`Stakes.check`) for
    every row. Money per unit of the cube now, match play in match-winning chances.
    Native, the GIL released, the chances read as float32 (as a net gives them);
    ``BgfastError`` naming the first row that is not five chances that fit together.
    ``boards``, the positions' ``(N, 2, 25)`` arrays (``bgfast.batch.to_array``), makes
    the rows of positions in the two-sided bear-off database's range exact
    (:func:`exact_bearoff_values`), as GNU Backgammon values them, and lets ``cube_life``
    be ``"gnubg"``: each row at GNU Backgammon's cube life index of its position
    (:data:`CubeLife`), as :func:`decide` with that position.

    >>> import numpy as np
    >>> values = cube_values(np.array([[0.72, 0.12, 0.0, 0.05, 0.0]]), Stakes.check())
    >>> values.shape
    (1, 4)
    """
    if not isinstance(stakes, Stakes):
        raise TypeError(f"stakes must be bgfast.cubeful.Stakes, not {type(stakes).__name__}")
    checked = _check_probability_rows(probabilities)
    life = check_cube_life(cube_life)
    if boards is None:
        return _values_at(checked, stakes, life, None)
    given = _check_boards(boards, len(checked))
    return with_exact_bearoffs(_values_at(checked, stakes, life, given), given, stakes)


def value_for_the_side_that_moved(
    theirs: npt.NDArray[np.floating[Any]],
    their_stakes: Stakes,
    cube_life: CubeLife,
    they_may_double: bool = True,
    results: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.float64]:
    """The values of a player's results, turned round from the opponent's view: ``theirs``
    are the opponent's chances (on roll in each result, as ``Net.evaluate`` of the results
    gives them) and ``their_stakes`` its stakes (:meth:`Stakes.for_opponent`); the opponent
    values each result after its own best cube action (without one when it may not double
    at that turn, as the Holland rule may have it, its cube still live later), and the
    player gets the rest. Match-winning chances add up to 1, money values to 0. Unchecked:
    for chances a net gave. ``results``, the results' ``(N, 2, 25)`` boards (the opponent
    to move), makes those in the two-sided bear-off database's range exact
    (:func:`exact_bearoff_values`); ``cube_life`` ``"gnubg"`` needs them (each result at
    GNU Backgammon's index, the opponent on roll)."""
    values = _values_at(theirs, their_stakes, cube_life, results)
    if results is not None:
        values = with_exact_bearoffs(values, results, their_stakes)
    value = values[:, 3 if they_may_double else 0]
    return 1.0 - value if their_stakes.is_match else -value


@functools.lru_cache(maxsize=STAKES_KEPT)
def _model(stakes: Stakes, cube_life: float) -> _core.CubeModel:
    """The native model of ``stakes`` and ``cube_life``, kept for the next call at the
    same stakes: building one copies the match equity table."""
    return _core.CubeModel(stakes.cube(), stakes.native(), cube_life)


def _values(
    probabilities: npt.NDArray[np.floating[Any]], stakes: Stakes, cube_life: float
) -> npt.NDArray[np.float64]:
    """:func:`cube_values` of rows already checked."""
    counted = stakes.counted(np.asarray(probabilities))
    return _model(stakes, cube_life).values(np.ascontiguousarray(counted, dtype=np.float32))


def _values_at(
    probabilities: npt.NDArray[np.floating[Any]],
    stakes: Stakes,
    cube_life: CubeLife,
    boards: npt.NDArray[np.uint8] | None,
) -> npt.NDArray[np.float64]:
    """:func:`_values` at a checked cube life: a number, or ``"gnubg"``, each row at GNU
    Backgammon's index of its board (``boards``, the side to move first, which it needs;
    ``BgfastError`` without them)."""
    if not isinstance(cube_life, str):
        return _values(probabilities, stakes, cube_life)
    if boards is None:
        raise BgfastError(
            "cube_life='gnubg' is GNU Backgammon's cube life index of each position: it"
            " needs the position(s) (decide's position=, cube_values' boards=), or give"
            " cube_life as a number from 0 to 1"
        )
    lives = _core.gnubg_cube_lives(boards)
    return _mixed(probabilities, stakes, lives, lives)


def _mixed(
    probabilities: npt.NDArray[np.floating[Any]],
    stakes: Stakes,
    life_nd: npt.NDArray[np.float64],
    life_dt: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """:func:`_values` of each row at its own cube life index: no double at ``life_nd``,
    double/take at ``life_dt``. The model is linear in the index for both (a pass cashes,
    whatever the cube's life), so they mix the values of a dead and a fully live cube; the
    value after the best action is then chosen by :func:`_best_of`, the rule of every
    action name."""
    dead, live = _values(probabilities, stakes, 0.0), _values(probabilities, stakes, 1.0)
    nd = dead[:, 0] + life_nd * (live[:, 0] - dead[:, 0])
    dt = dead[:, 1] + life_dt * (live[:, 1] - dead[:, 1])
    dp = dead[:, 2]
    out: npt.NDArray[np.float64] = np.stack([nd, dt, dp, _best_of(nd, dt, dp, stakes)], axis=1)
    return out


# ---------------------------------------------------------------- two-sided bear-offs

#: GNU Backgammon's cube life index of two-sided bear-offs in match play (``rTSCubeX``):
#: the most the index derived from a position's exact money values may be.
BEAROFF_MATCH_CUBE_LIFE = 0.6

#: The two-sided table's names of the cube's owners (``bgfast.bearoff.cubeful_equity``).
_TABLE_CUBE: dict[str, bearoff.Cube] = {
    "centred": "centred",
    "mover": "owned",
    "opponent": "unavailable",
}


def exact_bearoff_values(
    boards: npt.ArrayLike, stakes: Stakes
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The rows of ``boards`` (``(N, 2, 25)``, each with its side to move first) in the
    two-sided bear-off database's range, and their values as :func:`cube_values` gives
    them (no double, double/take, double/pass, the value after the best cube action), as
    GNU Backgammon values these positions (in money play at any ply, in a match at 0 ply):

    - money: the database's exact cubeful equities per unit of the cube now (no gammon is
      possible there, so the Jacoby rule changes nothing; a cube limit, R17, is counted
      by the doubles it leaves, :func:`bgfast.bearoff.cubeful_equity`);
    - match play: the cube model at a cube life index found for each cube position from
      the exact money values, ``(exact - dead) / (live - dead)`` with the Janowski values
      of a dead and a fully live money cube, from 0 to :data:`BEAROFF_MATCH_CUBE_LIFE`
      (that cap where a live cube is worth no more than a dead one).

    ``BgfastError`` for boards of another shape, ``InvalidPositionError`` for a board that
    is no position."""
    boards = _check_boards(boards)
    rows = np.flatnonzero(bearoff._in_range(boards))
    if not rows.size:
        return rows, np.zeros((0, 4))
    sides = [(tuple(b[0, :6].tolist()), tuple(b[1, :6].tolist())) for b in boards[rows]]
    table = bearoff.two_sided()  # once for every row (each lookup reads the environment)
    if stakes.is_match:
        win = np.array([table.win_probability(pair) for pair in sides])
        values = _match_bearoff_values(sides, win, stakes, table)
    else:
        values = np.array([_money_bearoff_values(pair, stakes, table) for pair in sides])
    return rows, values.reshape(len(rows), 4)


def with_exact_bearoffs(
    values: npt.NDArray[np.float64], boards: npt.NDArray[np.uint8], stakes: Stakes
) -> npt.NDArray[np.float64]:
    """``values`` (:func:`cube_values` of ``boards``) with the rows of positions in the
    two-sided bear-off database's range made exact (:func:`exact_bearoff_values`)."""
    rows, exact = exact_bearoff_values(boards, stakes)
    if not rows.size:
        return values
    out = np.array(values, dtype=np.float64)
    out[rows] = exact
    return out


def _doubles_left(stakes: Stakes) -> int:
    """How many more times the cube may be turned before the game's limit (R17)."""
    return (stakes.max_cube // stakes.cube_value).bit_length() - 1


def _best_of(
    nd: npt.NDArray[np.float64],
    dt: npt.NDArray[np.float64],
    dp: npt.NDArray[np.float64],
    stakes: Stakes,
) -> npt.NDArray[np.float64]:
    """The values after the best cube actions: doubling where :func:`doubles_now`."""
    if stakes.why_no_double() is not None:
        return nd
    doubles = _doubles(nd, dt, dp, _beavers(dt, dp, stakes.may_beaver))
    best: npt.NDArray[np.float64] = np.where(doubles, np.minimum(dt, dp), nd)
    return best


def _money_bearoff_values(
    sides: tuple[tuple[int, ...], tuple[int, ...]], stakes: Stakes, table: _core.TwoSidedTable
) -> list[float]:
    """:func:`exact_bearoff_values` of one position in money play, read from ``table``."""
    left = _doubles_left(stakes)
    cube = _TABLE_CUBE[stakes.cube_owner]
    nd = bearoff._cubeful_equity_on(table, sides, cube, may_double=False, doubles_left=left)
    if left == 0:
        dt = nd  # a dead cube: as the cube model has it, doubling changes nothing
    else:
        taken = bearoff._cubeful_equity_on(
            table, sides, "unavailable", may_double=False, doubles_left=left - 1
        )
        dt = 2.0 * taken
    one = np.array([1.0])
    best = _best_of(np.array([nd]), np.array([dt]), one, stakes)
    return [nd, dt, 1.0, float(best[0])]


def _match_bearoff_values(
    sides: list[tuple[tuple[int, ...], tuple[int, ...]]],
    win: npt.NDArray[np.float64],
    stakes: Stakes,
    table: _core.TwoSidedTable,
) -> npt.NDArray[np.float64]:
    """:func:`exact_bearoff_values` of positions in a match: the cube model, linear in the
    cube life index, mixed row by row at the index of each cube position (no double at the
    stakes' cube, double/take at twice it owned by the opponent); ``table`` the two-sided
    one."""
    chances = np.zeros((len(win), 5))
    chances[:, 0] = win
    owner = stakes.cube_owner
    life_nd = np.array([_bearoff_life(pair, w, owner, table) for pair, w in zip(sides, win)])
    life_dt = np.array([_bearoff_life(pair, w, "opponent", table) for pair, w in zip(sides, win)])
    return _mixed(chances, stakes, life_nd, life_dt)


def _bearoff_life(
    sides: tuple[tuple[int, ...], tuple[int, ...]],
    win: float,
    owner: str,
    table: _core.TwoSidedTable,
) -> float:
    """GNU Backgammon's cube life index of a two-sided bear-off in match play for a cube
    ``owner`` ("centred", "mover", "opponent"): where the exact money equity (cube at 1,
    no double now) lies between the dead cube's (the cubeless equity) and a fully live
    one's (Janowski's, with no gammon), from 0 to :data:`BEAROFF_MATCH_CUBE_LIFE`."""
    exact = bearoff._cubeful_equity_on(table, sides, _TABLE_CUBE[owner], may_double=False)
    dead = 2.0 * win - 1.0
    live = _live_money_equity(win, owner)
    if abs(live - dead) <= 1e-4:  # no room between them to place the exact value
        return BEAROFF_MATCH_CUBE_LIFE
    return min(max((exact - dead) / (live - dead), 0.0), BEAROFF_MATCH_CUBE_LIFE)


def _live_money_equity(win: float, owner: str) -> float:
    """Janowski's money equity with a fully live cube and no gammon (take point 20%, cash
    point 80%) for the side to move with winning chance ``win``, the cube at 1 and
    ``owner``'s; the dead cube's where ``win`` is all but 0 or 1."""
    if not 1e-7 < win < 1.0 - 1e-7:
        return 2.0 * win - 1.0
    take, cash = 0.2, 0.8
    if owner == "centred":
        return min(max(-1.0 + 2.0 * (win - take) / (cash - take), -1.0), 1.0)
    if owner == "mover":
        return min(-1.0 + 2.0 * win / cash, 1.0)
    return max(-1.0 + 2.0 * (win - take) / (1.0 - take), -1.0)


def _check_boards(boards: npt.ArrayLike, rows: int | None = None) -> npt.NDArray[np.uint8]:
    """``boards`` as an ``(rows, 2, 25)`` uint8 array (any number of rows if ``rows`` is
    None) of positions: ``InvalidPositionError`` (a ``BgfastError``) naming the shape, dtype
    or type given instead, or the first board that is no position (``row <index>: ...``,
    as ``bgfast.batch.pip_counts`` names it)."""
    return batch._position_array(boards, "boards", rows)
