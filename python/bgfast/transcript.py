"""A match as a file records it: the words of the file, before the referee checks them.

The match-file modules (:mod:`bgfast.matfile` for Jellyfish ``.mat``, :mod:`bgfast.sgf` for
GNU Backgammon's SGF) read text into a :class:`Transcript` and write one back; they check
the syntax only. :mod:`bgfast.replay` then plays every entry through the referee
(:class:`~bgfast.Game`), which checks that each play is legal, each cube action allowed
and each score adds up. Keeping the two apart (shakmaty's parse vs legality) lets one
referee serve both formats, and a file that is well formed but impossible names the game,
the move number and the rule it breaks.

:class:`MatchInfo` (the players' names, the event, the date, ...) is the part of a file
that is not play; a :class:`~bgfast.Match` carries it (:attr:`bgfast.Match.info`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace
from typing import Literal

from bgfast.errors import InvalidSaveError, MatchOptionError, shown

__all__ = [
    "Entry",
    "EntryKind",
    "GameRecord",
    "MatchInfo",
    "Result",
    "StatedRules",
    "Transcript",
    "decode",
    "move_numbers",
]

EntryKind = Literal["roll", "double", "beaver", "raccoon", "take", "drop"]
"""What an entry of a file records: a roll (with its play, if any), a double, a beaver, a
raccoon, a take or a pass ("drop", as the files write it)."""

_TEXT_FIELDS = ("event", "round", "place", "annotator")


def _check_text(name: str, value: object, *, lines: bool = False) -> str:
    if not isinstance(value, str):
        raise MatchOptionError(f"{name} must be text, not {shown(value)}")
    bad = [c for c in value if (ord(c) < 32 and not (lines and c == "\n")) or c == "\x7f"]
    if bad:
        raise MatchOptionError(f"{name} {shown(value)} holds a control character {bad[0]!r}")
    return value


@dataclass(frozen=True)
class MatchInfo:
    """What a match file says about a match besides its play.

    Attributes:
        players: the names of player 0 and player 1 (GNU Backgammon's order: player 0 is
            the left column of a ``.mat`` file and White in SGF). One line each, not empty.
        event: the event or tournament.
        round: the round of the event.
        place: where it was played (``.mat``'s ``Site``).
        date: the day it was played, or ``None``.
        annotator: who transcribed or annotated it.
        comment: free text, any number of lines.
        ratings: the players' ratings as the file gives them (SGF ``WR``/``BR``), or ``""``.
    """

    players: tuple[str, str] = ("Player 0", "Player 1")
    event: str = ""
    round: str = ""
    place: str = ""
    date: datetime.date | None = None
    annotator: str = ""
    comment: str = ""
    ratings: tuple[str, str] = ("", "")

    def __post_init__(self) -> None:
        for name in ("players", "ratings"):
            pair = getattr(self, name)
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise MatchOptionError(f"{name} must be two strings, not {shown(pair)}")
            object.__setattr__(self, name, tuple(_check_text(name, v) for v in pair))
        for i, player in enumerate(self.players):
            if not player.strip():
                raise MatchOptionError(f"player {i}'s name is empty")
        for name in _TEXT_FIELDS:
            _check_text(name, getattr(self, name))
        _check_text("comment", self.comment, lines=True)
        if self.date is not None and (
            not isinstance(self.date, datetime.date) or isinstance(self.date, datetime.datetime)
        ):
            raise MatchOptionError(f"date must be a datetime.date or None, not {shown(self.date)}")

    def replace(self, **changes: object) -> MatchInfo:
        """A copy with ``changes`` (field names as keywords), checked again."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        """The fields that differ from the defaults, JSON-ready (the date as
        ``YYYY-MM-DD``)."""
        default = MatchInfo()
        out: dict[str, object] = {}
        for name in ("players", "event", "round", "place", "date", "annotator", "comment",
                     "ratings"):  # fmt: skip
            value = getattr(self, name)
            if value != getattr(default, name):
                if isinstance(value, tuple):
                    out[name] = list(value)
                elif isinstance(value, datetime.date):
                    out[name] = value.isoformat()
                else:
                    out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: object) -> MatchInfo:
        """The info of :meth:`to_dict` output; :class:`~bgfast.InvalidSaveError` otherwise."""
        if not isinstance(data, dict):
            raise InvalidSaveError(f"match info is an object, not {shown(data)}")
        known = {"players", "event", "round", "place", "date", "annotator", "comment", "ratings"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidSaveError(f"unknown match info fields {unknown}")
        values = dict(data)
        for name in ("players", "ratings"):
            if name in values:
                if not isinstance(values[name], list):
                    raise InvalidSaveError(f"match info {name} is a list of two names")
                values[name] = tuple(values[name])
        if "date" in values:
            text = values["date"]
            try:
                values["date"] = datetime.date.fromisoformat(text)
            except (TypeError, ValueError):
                raise InvalidSaveError(f"bad date {shown(text)} in match info") from None
        try:
            return cls(**values)
        except MatchOptionError as e:
            raise InvalidSaveError(f"bad match info: {e}") from None


@dataclass(frozen=True)
class StatedRules:
    """The rules a file states, each ``None`` when the file does not say.

    Attributes:
        crawford: whether the match uses the Crawford rule (R21).
        jacoby: the Jacoby rule (R23, money).
        beavers: whether beavers are allowed (money).
        raccoons: whether raccoons are allowed (money).
        max_cube: the highest cube value (1: no cube), or ``None``.
    """

    crawford: bool | None = None
    jacoby: bool | None = None
    beavers: bool | None = None
    raccoons: bool | None = None
    max_cube: int | None = None


@dataclass(frozen=True)
class Entry:
    """One thing a file says happened, as written.

    Attributes:
        player: who did it (the column of a ``.mat`` line, the colour of an SGF node).
        kind: what it was (:data:`EntryKind`).
        dice: the roll, for a ``roll``.
        play: the play as the file writes it (points from the player's own side, 25 the
            bar, 0 off); ``""`` when the file names no play for the roll (a dance, or a
            roll followed by a resignation). ``None`` for cube actions.
        value: the cube value a double, beaver or raccoon offers, when the file says it.
        move: the move number (the numbered line of a ``.mat`` file; counted the same way
            for SGF).
        where: where the entry stands in the file, for messages (``line 12``, ``node 7``).
    """

    player: int
    kind: EntryKind
    dice: tuple[int, int] | None = None
    play: str | None = None
    value: int | None = None
    move: int = 0
    where: str = ""


@dataclass(frozen=True)
class Result:
    """How a file says a game ended.

    Attributes:
        winner: the player who won.
        points: the points the file says were won.
        resigned: ``True`` if the file says the loser resigned (SGF's ``R``), ``False`` if
            it says they did not, ``None`` when it does not say (``.mat``: a win that is
            neither a pass nor a bear-off is a resignation).
        where: where the file says it.
        match_won: ``True`` if the file says the game wins the match (``.mat``'s ``Wins N
            points and the match``), else ``None``.
        winner_stated: ``False`` when the file does not say whose win it is (a ``.mat``
            ``Wins`` line with no indentation, whose column is unknown): ``winner`` is then
            a placeholder, and only the game's end (a bear-off or a pass) can say who won.
    """

    winner: int
    points: int
    resigned: bool | None = None
    where: str = ""
    match_won: bool | None = None
    winner_stated: bool = True


@dataclass(frozen=True)
class GameRecord:
    """One game of a file.

    Attributes:
        number: the game's number (1 for the first).
        score: the score before the game as the file states it (``(player 0, player 1)``),
            or ``None`` when it does not.
        crawford_game: whether the file says this is the Crawford game (SGF), or ``None``.
        entries: what happened, in order.
        result: how it ended, or ``None`` when the file does not say (a game still in
            play, or one whose bear-off or pass says it).
        where: where the game starts in the file.
        score_where: where the file states the score, when that is elsewhere (a ``.mat``
            file's score line, under its ``Game N`` line).
    """

    number: int
    score: tuple[int, int] | None
    crawford_game: bool | None
    entries: tuple[Entry, ...]
    result: Result | None
    where: str = ""
    score_where: str = ""


@dataclass(frozen=True)
class Transcript:
    """A whole file: the match length (0 for a money session), what it says about the
    match and its rules, and its games."""

    length: int
    info: MatchInfo = field(default_factory=MatchInfo)
    rules: StatedRules = field(default_factory=StatedRules)
    games: tuple[GameRecord, ...] = ()
    jacoby_by_game: tuple[bool, ...] = ()
    """Per game, whether it says the Jacoby rule is in force (SGF writes it per game)."""


def decode(raw: bytes) -> str:
    """The text of a match file's bytes: UTF-8 (a byte-order mark stripped first, as
    eXtreme Gammon writes one), else Windows-1252 as Windows programs write it, else
    Latin-1, in which every byte is a character."""
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            pass
    return raw.decode("latin-1")


def move_numbers(players: list[int]) -> list[int]:
    """The move number of each action of a game, given who acted, as a ``.mat`` file
    numbers its lines: a line holds one action of player 0 (the left column) and then one
    of player 1 (the right); each action takes the next cell of its player's column, so a
    game that player 1 opens starts in the right column of line 1. (The take that answers
    a beaver is not written in a ``.mat`` file: leave it out of ``players``.)"""
    numbers = []
    cell = 0  # cells alternate: 2k is line k+1's left, 2k+1 its right
    for player in players:
        if cell % 2 != player:
            cell += 1
        numbers.append(cell // 2 + 1)
        cell += 1
    return numbers
