"""The words of the game layer, and the one check of each.

Games, matches and chouettes speak one vocabulary: the players, who owns a cube, how a game
was won, where a game stands, what a cube offer is, the rule options and the settings of a
game. Each word is defined here once, with the one function that checks a value of it, so
that a player, a cube value or a seed is accepted or refused the same way everywhere.
Nothing here knows about :class:`~bgfast.Game`, :class:`~bgfast.Match` or
:class:`~bgfast.Chouette`; they all import it.

Rule ids (R1..R32) refer to the rule book, ``RULES.md``.
"""

from __future__ import annotations

import operator
import re
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Optional, TypedDict, Union

import numpy as np
import numpy.typing as npt

from bgfast.errors import GameStateError, MatchOptionError, shown

if TYPE_CHECKING:
    from bgfast.scoring import Rules

__all__ = [
    "ANSWERS",
    "CUBE_LIMIT",
    "GAME_SETTINGS",
    "KINDS",
    "MAX_MATCH_LENGTH",
    "OFFERS",
    "OWNERS",
    "PHASES",
    "PLAYERS",
    "REASONS",
    "RULE_ALIASES",
    "RULE_OPTIONS",
    "SIDES",
    "Answer",
    "CubeOwner",
    "GameSettings",
    "Kind",
    "Offer",
    "Owner",
    "Phase",
    "Player",
    "Reason",
    "Roll",
    "Side",
    "as_int",
    "as_int_or_same",
    "check_cube_owner",
    "check_cube_value",
    "check_flag",
    "check_kind",
    "check_match_length",
    "check_player",
    "check_score",
    "check_seed",
    "count_pair",
    "cube_value_problem",
]

# ---------------------------------------------------------------------------- numbers


def as_int(value: object) -> int | None:
    """``value`` as a Python int when it is an integer: an int, a numpy integer or a 0-d
    integer array (anything with ``__index__``, as the native checks take them), but not a
    bool, Python's or numpy's (``True`` is no count; numpy 1.x gave ``np.bool_`` an
    ``__index__``, so it is refused here by name); else ``None``. What the game layer is
    given it stores and saves, so a numpy integer becomes an int here."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def count_pair(value: object) -> tuple[int, int] | None:
    """``value`` as two non-negative ints (a tuple or list of two integers, :func:`as_int`),
    else ``None``: a score, turns played."""
    counts = [as_int(v) for v in value] if isinstance(value, (tuple, list)) else []
    first, second = counts if len(counts) == 2 else (None, None)
    if first is None or second is None or first < 0 or second < 0:
        return None
    return first, second


def as_int_or_same(value: object) -> object:
    """``value`` as a Python int when it is an integer (:func:`as_int`), else unchanged, for
    a check further on to name as it was given."""
    integer = as_int(value)
    return value if integer is None else integer


# ---------------------------------------------------------------------------- players

Player = int
"""A player of a game: 0 or 1, as in GNU Backgammon. In pictures and XGIDs player 1 is the
bottom side and player 0 the top side."""

PLAYERS: tuple[int, int] = (0, 1)
"""Both players, in order."""


def check_player(player: object, what: str = "player") -> int:
    """``player`` as the int 0 or 1, else :class:`~bgfast.GameStateError` naming ``what``.

    Only integers count (numpy's too): ``0.0 == 0`` in Python, but a float or a bool is not
    a player, and would be written into saved games as one.
    """
    value = as_int(player)
    if value not in PLAYERS:
        raise GameStateError(f"a {what} is 0 or 1, not {shown(player)}")
    assert value is not None
    return value


Roll = Union[tuple[int, int], Sequence[int], npt.NDArray[np.integer[Any]]]
"""A roll given as one value: a pair of dice 1..6 (a tuple, a list or a numpy array of two
ints). Everything that takes dice also takes them as two ints, and checks them with
``bgfast._core.check_dice``: a bool is not a die, a third die is an
:class:`~bgfast.InvalidDiceError`."""

#: How a roll is written in text: ``31``, ``3-1``, ``3,1`` or ``3 1``.
ROLL_TEXT = "two dice 1-6 such as 31, 3-1 or 3,1"


def roll_from_text(text: str) -> tuple[int, int] | None:
    """The roll ``text`` writes (:data:`ROLL_TEXT`), in the order written, or ``None``:
    the one reading of dice as text the command line and the HTTP server share."""
    found = re.fullmatch(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*", text)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


# ---------------------------------------------------------------------------- the cube

CUBE_LIMIT = 1 << 15
"""The highest cube value bgfast allows anywhere (games, matches, chouettes): 32768, the
largest a GNU Backgammon Match ID can hold."""

CubeOwner = Optional[int]
"""Who owns a game's cube: ``None`` while it is centred (either player may double, R17),
else the player who took the last double and alone may redouble (R19)."""

Side = Literal["box", "team"]
"""A side of a chouette's board (R24): the box plays alone against the team."""

SIDES: tuple[Side, ...] = ("box", "team")
"""Both sides of a chouette, the box first."""

Owner = Literal["center", "box", "team"]
"""Where a chouette's cube stands: in the middle, with the box, or with the team side (the
member, in the per-member form). A game's cube says the same with a :data:`CubeOwner`."""

OWNERS: tuple[Owner, ...] = ("center", "box", "team")
"""Where a chouette's cube can stand."""

Answer = Literal["take", "pass"]
"""An answer to a double (R19)."""

ANSWERS: tuple[Answer, ...] = ("take", "pass")
"""Both answers to a double."""

Offer = Literal["double", "beaver", "raccoon"]
"""A pending cube offer: a double (R17), a beaver (the doubled player takes and redoubles at
once, keeping the cube) or a raccoon (the doubler redoubles a beaver). Money play only for
the last two."""

OFFERS: tuple[Offer, ...] = ("double", "beaver", "raccoon")
"""The offers in the order they answer each other."""


def cube_value_problem(value: object, what: str = "cube value", limit: int = CUBE_LIMIT) -> str:
    """What is wrong with ``value`` as a cube value (a power of two from 1 to ``limit``,
    R17), or ``""`` if nothing is. For checks that report every problem at once."""
    v = as_int(value)
    if v is None or v < 1 or v & (v - 1):
        return f"{what} must be a power of two, not {shown(value)} (R17)"
    if v > limit:
        return f"{what} {shown(v)} is above {limit} (R17)"
    return ""


def check_cube_value(
    value: object,
    what: str = "cube value",
    limit: int = CUBE_LIMIT,
    error: type[Exception] = MatchOptionError,
) -> int:
    """``value`` as a cube value: a power of two from 1 to ``limit`` (32768 at most, the
    largest a Match ID holds; R17). Raises ``error`` (a :class:`~bgfast.MatchOptionError`
    unless given) naming ``what``."""
    problem = cube_value_problem(value, what, limit)
    if problem:
        raise error(problem)
    v = as_int(value)
    assert v is not None
    return v


def check_cube_owner(owner: object) -> int | None:
    """``owner`` as a :data:`CubeOwner`: ``None`` (centred) or the int 0 or 1; else
    :class:`~bgfast.MatchOptionError`."""
    if owner is None:
        return None
    player = as_int(owner)
    if player not in PLAYERS:
        raise MatchOptionError(f"owner must be None (centred), 0 or 1, not {shown(owner)}")
    return player


# ---------------------------------------------------------------------------- results

Kind = Literal["single", "gammon", "backgammon"]
"""How a game was won (R16): a single game, a gammon or a backgammon."""

KINDS: tuple[Kind, ...] = ("single", "gammon", "backgammon")
"""The three kinds of win, in increasing value."""

Reason = Literal["bear-off", "drop", "resign"]
"""How a game ended: a side bore off all its checkers (R15), a double was passed (R19), or
a resignation was accepted."""

REASONS: tuple[Reason, ...] = ("bear-off", "drop", "resign")
"""The ways a game ends."""


def check_kind(kind: object, error: type[Exception] = MatchOptionError) -> Kind:
    """``kind`` if it is one of :data:`KINDS`; else ``error`` naming the choices (R16)."""
    if not isinstance(kind, str) or kind not in KINDS:
        raise error(f"R16: a kind of win is one of {KINDS}, not {shown(kind)}")
    return kind


# ---------------------------------------------------------------------------- the flow

Phase = Literal["opening", "roll", "doubled", "move", "resign", "over"]
"""Where a game stands.

``opening``: nobody has rolled yet (R3). ``roll``: the player on roll may double or roll
(R18). ``doubled``: a double (or beaver, raccoon) waits for an answer (R19). ``move``: the
dice are rolled and the move is being made (R29: it may be changed until committed).
``resign``: a resignation waits for an answer. ``over``: the game has a result.
"""

PHASES: tuple[Phase, ...] = ("opening", "roll", "doubled", "move", "resign", "over")
"""Every phase, in the order a game usually meets them."""

# ---------------------------------------------------------------------------- rule options

RULE_OPTIONS: tuple[str, ...] = (
    "backgammon_counts_double",
    "jacoby",
    "auto_doubles",
    "beavers",
    "raccoons",
    "max_cube",
)
"""The options of :class:`~bgfast.Rules`, one name each (R16, R22, R23, R17)."""

RULE_ALIASES: dict[str, str] = {"backgammon_as_double": "backgammon_counts_double"}
"""Older spellings of rule options that are still accepted (a chouette took
``backgammon_as_double``), mapped to the one name."""

# ---------------------------------------------------------------------------- settings

MAX_MATCH_LENGTH = 32767
"""The longest match: 15 bits, as in a Match ID (R20)."""

GAME_SETTINGS: tuple[str, ...] = (
    "rules",
    "match_length",
    "score",
    "crawford",
    "holland",
    "table",
    "seed",
)
"""The settings a :class:`~bgfast.Game` is created with (:class:`GameSettings`)."""


class GameSettings(TypedDict, total=False):
    """The keyword arguments of :class:`~bgfast.Game` and
    :meth:`~bgfast.Game.from_history`: the match context, the table and the dice."""

    rules: Rules | None
    match_length: int
    score: tuple[int, int]
    crawford: bool
    holland: bool
    table: bool
    seed: int | None


def check_flag(name: str, value: object) -> bool:
    """``value`` as a Python bool (``np.bool_`` too); else :class:`~bgfast.MatchOptionError`
    naming ``name``. ``1`` is not ``True`` here: it would be written into saved files as a
    number. The one check of every on/off option (rules, games, matches, cubes, stakes,
    chouettes)."""
    if not isinstance(value, (bool, np.bool_)):
        raise MatchOptionError(f"{name} must be True or False, not {shown(value)}")
    return bool(value)


def check_seed(seed: object) -> int:
    """``seed`` as the seed of a dice stream: an int with ``|seed| < 2**64``, or a random
    one for ``None`` (it is kept, so a game stays reproducible). Else
    :class:`~bgfast.MatchOptionError`."""
    if seed is None:
        return secrets.randbits(63)
    value = as_int(seed)
    if value is None or abs(value) >= 1 << 64:
        raise MatchOptionError(
            f"seed must be an int of at most 64 bits (|seed| < 2**64), not {shown(seed)}"
        )
    return value


def check_match_length(length: object, *, money: bool, name: str = "match_length") -> int:
    """``length`` as a match length: 1 to :data:`MAX_MATCH_LENGTH` points (R20), or 0 for
    money play when ``money`` allows it. Else :class:`~bgfast.MatchOptionError`."""
    points = as_int(length)
    if money:
        if points is None:
            raise MatchOptionError(f"{name} must be an int (R20), not {shown(length)}")
        if not 0 <= points <= MAX_MATCH_LENGTH:
            raise MatchOptionError(
                f"{name} must be 0 (money) to {MAX_MATCH_LENGTH} points (R20), not {shown(length)}"
            )
        return points
    if points is None or not 1 <= points <= MAX_MATCH_LENGTH:
        raise MatchOptionError(
            f"a match is played to 1..{MAX_MATCH_LENGTH} points (R20), not {shown(length)}"
        )
    return points


def check_score(score: object, match_length: int) -> tuple[int, int]:
    """``score`` as a match score before a game, ``(player 0, player 1)``: two non-negative
    ints, ``(0, 0)`` in money play, neither at the match length (R20). Else
    :class:`~bgfast.MatchOptionError`."""
    pair = count_pair(score)
    if pair is None:
        raise MatchOptionError(f"score must be two non-negative ints, not {shown(score)}")
    if match_length == 0 and pair != (0, 0):
        raise MatchOptionError("a money game has no match score")
    if match_length and max(pair) >= match_length:
        raise MatchOptionError(
            f"score {shown(pair[0])}-{shown(pair[1])}: the {match_length}-point match "
            "is already won (R20)"
        )
    return pair
