"""Match equity tables (METs) and gammonless dead-cube take points.

This module owns the match-winning chances (MWC) bgfast uses for match play (R20, R21). Three
tables ship with the package, transcribed unchanged from GNU Backgammon's ``met/*.xml`` with
their copyright and permission notices (see :attr:`MatchEquityTable.notice`):

``"kazaross-xg2"`` (the default), ``"rockwell-kazaross"`` (both to 25 points) and
``"woolsey"`` (to 15 points).

Scores are given as points *away* (the points still needed to win the match). How a score with
a 1-away player is looked up:

* By default (``post_crawford=False``) it is the **Crawford game**: the game played right after
  a player first reaches 1-away, without the cube (R21). This is what the pre-Crawford tables
  store in their 1-away rows and columns.
* With ``post_crawford=True`` it is a **post-Crawford** game (any later game, cube live), looked
  up in the table's post-Crawford column: the trailer's chances against a 1-away leader.
  ``post_crawford=True`` needs one side to be 1-away.
* 0-away means the match is won: 1.0 for that side, 0.0 for the other.

>>> from bgfast import met
>>> met.equity(2, 3)
0.59947
>>> round(met.take_point(2, 4), 5)
0.37128
"""

from __future__ import annotations

import csv
import functools
import io
import math
from dataclasses import dataclass

from bgfast import _core
from bgfast.errors import (
    InvalidCubeError,
    InvalidScoreError,
    MetError,
    UnknownTableError,
    shown,
)
from bgfast.vocab import as_int, check_cube_value

__all__ = [
    "DEFAULT_TABLE",
    "InvalidCubeError",
    "InvalidScoreError",
    "MatchEquityTable",
    "MetError",
    "UnknownTableError",
    "equity",
    "load",
    "table_names",
    "take_point",
]

DEFAULT_TABLE = "kazaross-xg2"
"""The table used when none is named: Kazaross-XG2 (GNU Backgammon's default too)."""


def table_names() -> tuple[str, ...]:
    """The names of the shipped tables, the default first."""
    return tuple(_core.SHIPPED_METS)


def _shipped(table: str) -> tuple[str, str]:
    """``(name, text)`` of the shipped table ``table`` names (any case, ``_`` or a space
    for ``-``): the files live in the native engine (its ``data/met``), one copy for Rust,
    C and Python."""
    if not isinstance(table, str):
        raise UnknownTableError(
            f"match equity table name must be a str, not {type(table).__name__}"
        )
    found = _core.shipped_met(table)
    if found is None:
        raise UnknownTableError(
            f"unknown match equity table {shown(table)}; known tables: {', '.join(table_names())}"
        )
    return found


def _canonical_name(table: str) -> str:
    return _shipped(table)[0]


def _away(name: str, value: object, max_away: int, table: str) -> int:
    """``value`` as a number of points away the table covers, else ``InvalidScoreError``."""
    # bool is an int subclass; True as "1-away" is a caller bug, not a score.
    away = as_int(value)
    if away is None:
        raise InvalidScoreError(f"{name} must be an int, not {type(value).__name__}")
    if away < 0 or away > max_away:
        raise InvalidScoreError(
            f"{name}={shown(value)} is outside table {table!r}, which covers 0..{max_away} "
            "away (R20)"
        )
    return away


@dataclass(frozen=True)
class MatchEquityTable:
    """One match equity table: pre-Crawford MWCs, post-Crawford MWCs and its notice.

    Build one with :func:`load`; instances are immutable and shared.
    """

    name: str
    """The table's name as given to :func:`load` (e.g. ``"kazaross-xg2"``)."""
    title: str
    """The table's description line from its source file."""
    notice: str
    """The source, copyright and permission notice that must travel with the table."""
    max_away: int
    """The longest score covered: both sides may be 1..max_away points away."""
    pre: tuple[tuple[float, ...], ...]
    """``pre[a-1][b-1]``: MWC of a player a-away against b-away before (or in) the Crawford
    game; an entry with a 1-away side is the Crawford-game value."""
    post: tuple[float, ...]
    """``post[n-1]``: MWC of the trailer n-away against a 1-away leader, post-Crawford."""

    def __post_init__(self) -> None:
        # The table is checked whoever builds it (a hand-made one too): a lookup past its
        # rows, a chance outside 0..1 or a table that rewards being further behind would
        # give wrong equities and take points outside 0..1 without a word.
        problem = _table_problem(self.max_away, self.pre, self.post)
        if problem is not None:
            raise MetError(f"table {shown(self.name)}: {problem}")
        object.__setattr__(self, "pre", tuple(tuple(float(x) for x in row) for row in self.pre))
        object.__setattr__(self, "post", tuple(float(x) for x in self.post))

    def equity(self, my_away: int, opp_away: int, *, post_crawford: bool = False) -> float:
        """Match-winning chance of the player ``my_away`` points away against ``opp_away``.

        0-away means the match is won (1.0 / 0.0). With one side 1-away the Crawford-game
        value is returned unless ``post_crawford`` is true (see the module docs).

        Raises:
            InvalidScoreError: a score that is negative, beyond :attr:`max_away`, both sides
                0-away, or ``post_crawford`` without a 1-away side.
        """
        my_away = _away("my_away", my_away, self.max_away, self.name)
        opp_away = _away("opp_away", opp_away, self.max_away, self.name)
        if my_away == 0 and opp_away == 0:
            raise InvalidScoreError("both sides 0-away is not a match score: only one can win")
        if post_crawford and 0 not in (my_away, opp_away) and 1 not in (my_away, opp_away):
            raise InvalidScoreError(
                f"post_crawford needs a 1-away side (R21), got {my_away}-away vs {opp_away}-away"
            )
        return self._mwc(my_away, opp_away, post_crawford)

    def _mwc(self, my_away: int, opp_away: int, post_crawford: bool) -> float:
        # Unchecked lookup for scores already known to be in range; <= 0 means won.
        if my_away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if post_crawford and my_away == 1:
            return 1.0 - self.post[opp_away - 1]
        if post_crawford and opp_away == 1:
            return self.post[my_away - 1]
        return self.pre[my_away - 1][opp_away - 1]

    def take_point(self, doubler_away: int, taker_away: int, cube: int = 1) -> float:
        """Gammonless dead-cube take point of the taker, in match-winning chances.

        The doubler, ``doubler_away`` points away, turns the cube from ``cube`` to ``2*cube``
        against a taker ``taker_away`` away. The taker's take point is
        ``(pass - lose) / (win - lose)``, where each term is the taker's MWC after passing
        (doubler scores ``cube``), or taking and losing or winning the game (``2*cube``).

        A score that first reaches 1-away is looked up as the Crawford game; if a side is
        already 1-away the game being doubled in is post-Crawford (the Crawford game has no
        cube, R21), so resulting 1-away scores are post-Crawford.

        Raises:
            InvalidScoreError: a side 0-away (the match is over) or beyond :attr:`max_away`.
            InvalidCubeError: ``cube`` is not a power of two from 1 to 32768 (R17).
        """
        doubler_away = _away("doubler_away", doubler_away, self.max_away, self.name)
        taker_away = _away("taker_away", taker_away, self.max_away, self.name)
        if doubler_away == 0 or taker_away == 0:
            raise InvalidScoreError(
                "no double is possible: the match is over (a side is 0-away, R20)"
            )
        cube = check_cube_value(cube, "cube", error=InvalidCubeError)
        post = doubler_away == 1 or taker_away == 1
        doubled = 2 * cube
        passed = self._mwc(taker_away, doubler_away - cube, post)
        lose = self._mwc(taker_away, doubler_away - doubled, post)
        win = self._mwc(taker_away - doubled, doubler_away, post)
        if not win > lose:
            # No shipped table gets here (a test scans every score and cube to 64).
            raise MetError(
                f"table {self.name!r} gives no spread between winning and losing at "
                f"{doubler_away}-away doubling {taker_away}-away on {cube}"
            )
        return (passed - lose) / (win - lose)


#: How far ``mwc(a, b) + mwc(b, a)`` may be from 1 (one of the two wins the match): the
#: rounding of a table published to three decimals, each entry rounded on its own.
_COMPLEMENT_TOLERANCE = 1e-3


def _is_chance(x: object) -> bool:
    return (
        isinstance(x, (int, float))
        and not isinstance(x, bool)
        and math.isfinite(x)
        and 0.0 <= x <= 1.0
    )


def _table_problem(max_away: object, pre: object, post: object) -> str | None:
    """What is wrong with a table's numbers, or ``None``: ``pre`` must be ``max_away`` rows of
    ``max_away`` chances, ``post`` ``max_away`` chances; the two sides' chances at a score
    add up to 1 (``post[0]``, 1-away against 1-away, is 0.5); nobody gains by being further
    behind (R20)."""
    if not isinstance(max_away, int) or isinstance(max_away, bool) or max_away < 1:
        return f"max_away must be an int from 1, not {shown(max_away)}"
    n = max_away
    if (
        not isinstance(pre, tuple)
        or len(pre) != n
        or not all(isinstance(row, tuple) and len(row) == n for row in pre)
    ):
        return f"pre must be {n} tuples of {n} chances (max_away {n})"
    if not isinstance(post, tuple) or len(post) != n:
        return f"post must be a tuple of {n} chances (max_away {n})"
    for a, row in enumerate(pre, 1):
        for b, mwc in enumerate(row, 1):
            if not _is_chance(mwc):
                return f"mwc {shown(mwc)} at {a},{b} is not a probability"
    for a, mwc in enumerate(post, 1):
        if not _is_chance(mwc):
            return f"post-Crawford mwc {shown(mwc)} at {a}-away is not a probability"
    for a in range(1, n + 1):
        for b in range(a, n + 1):
            if abs(pre[a - 1][b - 1] + pre[b - 1][a - 1] - 1.0) > _COMPLEMENT_TOLERANCE:
                return (
                    f"mwc at {a},{b} and {b},{a} add up to "
                    f"{pre[a - 1][b - 1] + pre[b - 1][a - 1]!r}, not 1 (one side wins)"
                )
    if abs(post[0] - 0.5) > _COMPLEMENT_TOLERANCE:
        return f"post-Crawford mwc at 1-away against 1-away is {post[0]!r}, not 0.5"
    # A table must not reward being further behind (Woolsey's rounded tails are flat); by
    # the complement, nor being nearer for the opponent.
    for a in range(2, n + 1):
        for b in range(1, n + 1):
            if pre[a - 1][b - 1] > pre[a - 2][b - 1]:
                return f"mwc increases with my_away at {a},{b}"
        if post[a - 1] > post[a - 2]:
            return f"post-Crawford mwc increases with my_away at {a}"
    return None


def _parse(name: str, text: str) -> MatchEquityTable:
    comments = [line[1:].strip() for line in text.splitlines() if line.startswith("#")]
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    pre: dict[tuple[int, int], float] = {}
    post: dict[int, float] = {}
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    if reader.fieldnames != ["table", "my_away", "opp_away", "mwc"]:
        raise MetError(f"table {name!r}: unexpected columns {reader.fieldnames}")
    for row in reader:
        a, b, mwc = int(row["my_away"]), int(row["opp_away"]), float(row["mwc"])
        if not (0.0 <= mwc <= 1.0) or math.isnan(mwc):
            raise MetError(f"table {name!r}: mwc {mwc} at {a},{b} is not a probability")
        if row["table"] == "pre":
            pre[a, b] = mwc
        elif row["table"] == "post" and b == 1:
            post[a] = mwc
        else:
            raise MetError(f"table {name!r}: bad row {row}")
    n = max(a for a, _ in pre)
    if set(pre) != {(a, b) for a in range(1, n + 1) for b in range(1, n + 1)} or set(post) != set(
        range(1, n + 1)
    ):
        raise MetError(f"table {name!r}: incomplete {n}x{n} table")
    pre_rows = tuple(tuple(pre[a, b] for b in range(1, n + 1)) for a in range(1, n + 1))
    post_col = tuple(post[a] for a in range(1, n + 1))
    # The first comment line is "<title>"; the rest (source, notice, column docs) is the notice.
    title = comments[0] if comments else name
    notice = "\n".join(c.lstrip("| ").rstrip() if c.startswith("|") else c for c in comments)
    return MatchEquityTable(
        name=name, title=title, notice=notice, max_away=n, pre=pre_rows, post=post_col
    )


@functools.cache
def _load_canonical(name: str) -> MatchEquityTable:
    return _parse(*_shipped(name))


def load(table: str = DEFAULT_TABLE) -> MatchEquityTable:
    """The named match equity table, read once from the package data and cached.

    Names are case-insensitive; ``_`` and spaces count as ``-``.

    Raises:
        UnknownTableError: a name not in :func:`table_names`.
    """
    return _load_canonical(_canonical_name(table))


def equity(
    my_away: int, opp_away: int, table: str = DEFAULT_TABLE, *, post_crawford: bool = False
) -> float:
    """Match-winning chance of the player ``my_away`` away against ``opp_away`` away.

    Shorthand for ``load(table).equity(...)``; see :meth:`MatchEquityTable.equity`.
    """
    return load(table).equity(my_away, opp_away, post_crawford=post_crawford)


def take_point(
    doubler_away: int, taker_away: int, cube: int = 1, table: str = DEFAULT_TABLE
) -> float:
    """The taker's gammonless dead-cube take point when the cube goes from ``cube`` to ``2*cube``.

    Shorthand for ``load(table).take_point(...)``; see :meth:`MatchEquityTable.take_point`.
    """
    return load(table).take_point(doubler_away, taker_away, cube)
