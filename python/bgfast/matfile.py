"""Jellyfish ``.mat`` match files, as GNU Backgammon, eXtreme Gammon and the servers write
them: the syntax only.

:func:`parse` reads the text of a file into a :class:`~bgfast.transcript.Transcript` and
:func:`write` writes one back; neither knows the rules. :meth:`bgfast.Match.from_mat` and
:meth:`bgfast.Match.to_mat` add the referee (:mod:`bgfast.replay`). A file looks like::

    ; [Event "Club night"]
    ; [EventDate "2026.11.29"]

     3 point match

     Game 1
     gnubg : 0                      root : 0
      1) 32: 24/21 13/11             65: 24/18 18/13
      ...
      5) 66:                          Doubles => 2
      6)  Takes                      41: 20/16 16/15
     ...
                                      Wins 2 points

Each numbered line holds one entry of player 0 (the left column) and one of player 1 (the
right): a roll and its play (``52: 13/8 24/22``; points from the mover's own side, 25 the
bar, 0 off; nothing after the dice when the roll cannot be played), ``Doubles => 2``,
``Beavers => 4``, ``Raccoons => 8`` (GNU Backgammon writes a raccoon as a second
``Beavers``), ``Takes`` or ``Drops``. Columns are counted with tabs expanded to 8-column
stops; a lone entry starting at column 15 or later is player 1's. A ``Wins N points`` line
in a player's column ends the game for that player (GNU Backgammon indents player 0's by 6
spaces and player 1's by 34); one with no indentation at all names no column, and is read
only when the game's bear-off or pass says who won. A game with no ``Wins`` line that ended
by a bear-off or a pass is read as won so. When a ``Wins`` line follows neither a pass nor
the last checker borne off, the other player resigned (``N`` is the resigned kind times the
cube, or times the cube on offer for a resignation that answers a double, beaver or
raccoon, as GNU Backgammon writes it; it writes a gammon resigned on a centred cube under
the Jacoby rule as the 1 point it scores, which reads as a single game). A take that
answers a beaver or a raccoon may be left out: the doubler's next roll says it. A session
of money games is a ``0 point match``; its score lines add up the points won.

Header comments hold the match's information (``[Site]``, ``[Event]``, ``[Round]``,
``[EventDate]``, ``[Transcriber]``, the players' names) and its rules as eXtreme Gammon
writes them (``[Crawford "Off"]``, ``[Jacoby "On"]``, ``[Beaver "On"]``, ``[CubeLimit
"8"]``; bgfast adds ``[Raccoon "On"]``, which a file shows otherwise only by a raccoon
played); other comment lines are the match's comment. Comment lines stand in the header
only. GNU Backgammon writes no ``[Crawford]`` tag, even for a match played without the
rule: such a file cannot tell, and :meth:`bgfast.Match.from_mat` reads it without the rule
when a cube is offered in the would-be Crawford game. Anything else is an
:class:`~bgfast.InvalidSaveError` naming the line.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from bgfast.errors import InvalidSaveError, MatchOptionError, shown
from bgfast.transcript import (
    Entry,
    EntryKind,
    GameRecord,
    MatchInfo,
    Result,
    StatedRules,
    Transcript,
    decode,
    move_numbers,
)
from bgfast.vocab import CUBE_LIMIT, MAX_MATCH_LENGTH, cube_value_problem

__all__ = ["parse", "write"]

# A lone entry on a line belongs to the right column when it starts this far in, tabs
# expanded to 8-column stops (GNU Backgammon's own import splits its lines at the same
# column). GNU Backgammon indents player 0's "Wins" line by 6 spaces, player 1's by 34.
_RIGHT_COLUMN = 15
_TAB_SIZE = 8

_MATCH_LINE = re.compile(r"^\s*(\d{1,9})\s+point\s+match\s*$", re.IGNORECASE)
_GAME_LINE = re.compile(r"^\s*game\s+(\d{1,9})\s*$", re.IGNORECASE)
# GNU Backgammon pads "name : points" to 31 characters and writes the second name right
# after it, so past 31 no space separates the first score from the second name.
_SCORE_LINE = re.compile(r"^\s*(\S(?:.*?\S)?)\s*:\s*(\d{1,9})\s*(\S(?:.*?\S)?)\s*:\s*(\d{1,9})\s*$")
_NUMBERED = re.compile(r"^(\s*(\d{1,9})\))(.*)$")
_TAG = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9 ]*?)\s+"(.*)"\s*\]$')
_DICE = re.compile(r"^([1-6])([1-6]):$")
_STEP = re.compile(r"^(?:\d{1,2}|bar|off)(?:/(?:\d{1,2}|bar|off)\*?)+(?:\(\d\))?$", re.IGNORECASE)
_NUMBER = re.compile(r"^\d{1,9}$")
_CUBE_WORDS: dict[str, EntryKind] = {
    "doubles": "double",
    "beavers": "beaver",
    "raccoons": "raccoon",
}

# Tags eXtreme Gammon and the servers write that say nothing bgfast keeps.
_IGNORED_TAGS = {
    "eventtime",
    "unrated",
    "match id",
    "player 1 elo",
    "player 2 elo",
    "timecontrol",
}


def _fail(where: str, what: str) -> InvalidSaveError:
    return InvalidSaveError(f"{where}: {what}")


def _decode(text: str | bytes) -> str:
    if isinstance(text, (bytes, bytearray)):
        return decode(bytes(text))  # UTF-8, else Windows-1252, else Latin-1
    if not isinstance(text, str):
        raise TypeError(f"a .mat file is text or bytes, not {type(text).__name__}")
    return text.removeprefix("\ufeff")  # eXtreme Gammon starts with a byte-order mark


# ---------------------------------------------------------------------------- reading


@dataclass
class _Header:
    info: dict[str, object]
    names: list[str | None]
    comment: list[str]
    crawford: bool | None = None
    jacoby: bool | None = None
    beavers: bool | None = None
    raccoons: bool | None = None
    max_cube: int | None = None


def _on_off(where: str, key: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    raise _fail(where, f'[{key} "{value}"] is neither "On" nor "Off"')


def _date(where: str, value: str) -> datetime.date:
    m = re.fullmatch(r"\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})\s*", value)
    if m is None:
        raise _fail(where, f"the date {value!r} is not YYYY.MM.DD")
    try:
        return datetime.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError as e:
        raise _fail(where, f"the date {value!r} is no day: {e}") from None


# Tags the reader takes from the header comments (the rest stay comment lines).
_READ_TAGS = {
    "site",
    "event",
    "round",
    "transcriber",
    "eventdate",
    "player 1",
    "player 2",
    "crawford",
    "jacoby",
    "beaver",
    "raccoon",
    "cubelimit",
    "variation",
} | _IGNORED_TAGS


def _read_tag(text: str) -> re.Match[str] | None:
    """The tag a comment line holds if the reader takes it as one, else ``None``."""
    tag = _TAG.match(text.strip())
    return tag if tag is not None and tag[1].strip().lower() in _READ_TAGS else None


def _comment_text(line: str) -> str:
    """A comment line's text: what follows its ``;`` (or ``#``) and the one space the
    writer puts there, indentation kept."""
    text = line.lstrip()[1:]
    return text[1:] if text.startswith(" ") else text


def _read_comment(header: _Header, where: str, text: str) -> None:
    tag = _read_tag(text)
    if tag is None:
        header.comment.append(text)
        return
    key, value = tag[1].strip(), tag[2]
    lower = key.lower()
    fields = {"site": "place", "event": "event", "round": "round", "transcriber": "annotator"}
    if lower in fields:
        header.info[fields[lower]] = value
    elif lower == "eventdate":
        header.info["date"] = _date(where, value)
    elif lower in ("player 1", "player 2"):
        header.names[int(lower[-1]) - 1] = value.strip()
    elif lower == "crawford":
        header.crawford = _on_off(where, key, value)
    elif lower == "jacoby":
        header.jacoby = _on_off(where, key, value)
    elif lower == "beaver":
        header.beavers = _on_off(where, key, value)
    elif lower == "raccoon":
        header.raccoons = _on_off(where, key, value)
    elif lower == "cubelimit":
        if not re.fullmatch(r"\s*\d{1,6}\s*", value) or cube_value_problem(int(value)):
            raise _fail(where, f'[CubeLimit "{value}"] is no cube value (R17)')
        limit = int(value)
        header.max_cube = None if limit == CUBE_LIMIT else limit
    elif lower == "variation" and value.strip().lower() != "backgammon":
        raise _fail(where, f"bgfast plays backgammon, not the variation {value!r}")


@dataclass
class _Item:
    """One entry of a line as written, before it is given to a player."""

    column: int  # where it starts on the line
    words: list[str]


def _items(rest: str, offset: int, where: str) -> list[_Item]:
    """The entries of the text after a line's number: each starts with dice (``52:``) or
    a keyword; move steps follow dice."""
    items: list[_Item] = []
    for token in re.finditer(r"\S+", rest):
        word = token.group()
        lower = word.lower()
        starts = (
            _DICE.match(word) is not None
            or lower in _CUBE_WORDS
            or lower in ("takes", "drops", "wins")
        )
        if starts:
            items.append(_Item(offset + token.start(), [word]))
        elif not items:
            raise _fail(where, f"unknown token {word!r}: an entry starts with dice or a cube word")
        else:
            items[-1].words.append(word)
    return items


def _entry(item: _Item, player: int, move: int, where: str) -> Entry | Result:
    head, *rest = item.words
    lower = head.lower()
    dice = _DICE.match(head)
    if dice is not None:
        steps = list(rest)
        # eXtreme Gammon writes "???" for a roll followed by a resignation and "Cannot
        # Move" for a dance; GNU Backgammon reads both as no play.
        if [s.lower() for s in steps] == ["cannot", "move"] or all(set(s) <= {"?"} for s in steps):
            steps = []
        for step in steps:
            if _STEP.match(step) is None:
                raise _fail(where, f"{step!r} in the play of {head} is no checker step")
        d = (int(dice[1]), int(dice[2]))
        return Entry(player, "roll", d, " ".join(steps), None, move, where)
    if lower in _CUBE_WORDS:
        if len(rest) != 2 or rest[0] != "=>" or _NUMBER.match(rest[1]) is None:
            raise _fail(where, f"{' '.join(item.words)!r}: a cube entry reads '{head} => N'")
        return Entry(player, _CUBE_WORDS[lower], None, None, int(rest[1]), move, where)
    if lower in ("takes", "drops"):
        if rest:
            raise _fail(where, f"unknown token {rest[0]!r} after {head!r}")
        return Entry(player, "take" if lower == "takes" else "drop", None, None, None, move, where)
    # Wins N point(s) [and the match]
    ok = (
        len(rest) >= 2
        and _NUMBER.match(rest[0]) is not None
        and rest[1].lower() in ("point", "points")
        and [w.lower() for w in rest[2:]] in ([], ["and", "the", "match"])
    )
    if not ok:
        raise _fail(where, f"{' '.join(item.words)!r}: a result reads 'Wins N points'")
    points = int(rest[0])
    if points < 1:
        raise _fail(where, "a game is won by one point or more")
    return Result(player, points, None, where, match_won=True if rest[2:] else None)


#: The longest line read: real lines are under a hundred characters, and no line this
#: long can be a .mat file's.
_MAX_LINE = 10_000


def _lines(text: str) -> list[str]:
    """The lines of ``text``, tabs expanded (8-column stops), so that the columns of a
    file whose spaces an editor turned into tabs read as written."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for k, line in enumerate(lines):
        if len(line) > _MAX_LINE:
            raise InvalidSaveError(f"line {k + 1}: {len(line)} characters is no .mat line")
        if "\t" in line:
            lines[k] = line.expandtabs(_TAB_SIZE)
    return lines


def parse(text: str | bytes) -> Transcript:
    """The match or money session of a ``.mat`` file's text (str, or bytes in UTF-8,
    Windows-1252 or Latin-1), syntax checked; :class:`~bgfast.InvalidSaveError` names the
    line of anything that is not the format. A file without a ``[Crawford]`` tag leaves
    the Crawford rule unstated (``rules.crawford`` is ``None``): the file cannot tell."""
    lines = _lines(_decode(text))
    header = _Header(info={}, names=[None, None], comment=[])
    length: int | None = None
    i = 0
    while i < len(lines):
        line, where = lines[i], f"line {i + 1}"
        i += 1
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in ";#":
            _read_comment(header, where, _comment_text(line))
            continue
        m = _MATCH_LINE.match(line)
        if m is None:
            raise _fail(
                where, f"unknown line {shown(line.strip(), 60)} before the 'N point match' line"
            )
        length = int(m[1])
        if length > MAX_MATCH_LENGTH:
            raise _fail(where, f"a match is at most {MAX_MATCH_LENGTH} points, not {length} (R20)")
        break
    if length is None:
        raise InvalidSaveError("not a .mat file: no ' N point match' line")
    games: list[GameRecord] = []
    names: list[str] | None = None
    while i < len(lines):
        line, where = lines[i], f"line {i + 1}"
        i += 1
        if not line.strip():
            continue
        _refuse_comment(line, where)
        m = _GAME_LINE.match(line)
        if m is None:
            raise _fail(
                where, f"unknown line {shown(line.strip(), 60)}: a game starts with 'Game N'"
            )
        number = int(m[1])
        if number != len(games) + 1:
            raise _fail(where, f"game {number} follows game {len(games)}")
        game, names, i = _read_game(lines, i, number, where, names)
        games.append(game)
    info = dict(header.info)
    players = names or [n or f"Player {k}" for k, n in enumerate(header.names)]
    for k, name in enumerate(header.names):
        if name is not None and names is not None and name != names[k]:
            raise InvalidSaveError(
                f"the header names player {k + 1} {name!r}, the games {names[k]!r}"
            )
    info["players"] = tuple(players)
    if header.comment:
        info["comment"] = "\n".join(header.comment)
    try:
        match_info = MatchInfo(**info)  # type: ignore[arg-type]
    except MatchOptionError as e:
        raise InvalidSaveError(f"bad match information: {e}") from None
    rules = StatedRules(
        crawford=header.crawford if length else None,
        jacoby=header.jacoby if not length else None,
        beavers=header.beavers if not length else None,
        raccoons=header.raccoons if not length else None,
        max_cube=header.max_cube,
    )
    return Transcript(length, match_info, rules, tuple(games))


def _refuse_comment(line: str, where: str) -> None:
    if line.lstrip()[:1] in (";", "#"):
        raise _fail(
            where,
            "a comment line can only stand in the header, before the 'N point match' line",
        )


def _read_game(
    lines: list[str], i: int, number: int, start: str, names: list[str] | None
) -> tuple[GameRecord, list[str], int]:
    """Game ``number`` from line ``i`` (after its 'Game N' line): its score line and its
    numbered lines, up to the next game. Returns the game, the players' names and the
    index of the first line after it."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        raise _fail(start, f"game {number} has no score line")
    where = f"line {i + 1}"
    m = _SCORE_LINE.match(lines[i])
    if m is None:
        raise _fail(where, f"game {number}'s score line reads 'name : points  name : points'")
    game_names = [m[1], m[3]]
    if names is not None and game_names != names:
        raise _fail(where, f"game {number} is played by {game_names}, the match by {names}")
    score = (int(m[2]), int(m[4]))
    score_where = where
    i += 1
    entries: list[Entry] = []
    result: Result | None = None
    row = 0
    bare: tuple[str, int] | None = None  # the last line, when it is a number alone
    while i < len(lines) and not _GAME_LINE.match(lines[i]):
        line, where = lines[i], f"line {i + 1}"
        i += 1
        if not line.strip():
            continue
        _refuse_comment(line, where)
        if result is not None:
            raise _fail(where, f"game {number} goes on after its result ({result.where})")
        numbered = _NUMBERED.match(line)
        if numbered is None:
            items = _items(line, 0, where)
            move = row
        else:
            move = int(numbered[2])
            if move != row + 1:
                raise _fail(where, f"game {number}: move {move} follows move {row}")
            row = move
            items = _items(numbered[3], len(numbered[1]), where)
        # GNU Backgammon writes no numbered line without an entry, not even for a game in
        # play: a file that ends in one was cut short after the number.
        bare = (where, move) if numbered is not None and not items else None
        if not items:
            continue
        if len(items) > 2:
            raise _fail(where, f"game {number}, move {move}: more than two entries on a line")
        columns = [0, 1] if len(items) == 2 else [int(items[0].column >= _RIGHT_COLUMN)]
        for item, player in zip(items, columns):
            parsed = _entry(item, player, move, where)
            if isinstance(parsed, Result):
                result = parsed
                if numbered is None and len(items) == 1 and item.column == 0:
                    # No indentation at all (stripped by an editor): the column, and so
                    # the winner, is unknown; only the game's end can say it.
                    result = Result(
                        0, parsed.points, None, where, parsed.match_won, winner_stated=False
                    )
            elif result is not None:
                raise _fail(where, f"game {number} goes on after its result")
            else:
                entries.append(parsed)
    if bare is not None and result is None:
        raise _fail(
            bare[0],
            f"game {number} ends in move {bare[1]} with no entry: the file is cut short",
        )
    record = GameRecord(number, score, None, tuple(entries), result, start, score_where)
    return record, game_names, i


# ---------------------------------------------------------------------------- writing


def _check_name(name: str) -> str:
    if ":" in name:
        raise MatchOptionError(
            f"a .mat file cannot hold the name {name!r}: ':' ends a name on its score lines"
        )
    if name != name.strip():
        raise MatchOptionError(
            f"a .mat file cannot hold the name {name!r}: the spaces around a name on its "
            "score lines are not part of it"
        )
    return name


def _cell(entry: Entry) -> str:
    if entry.kind == "roll":
        assert entry.dice is not None
        text = f"{entry.dice[0]}{entry.dice[1]}:"
        return f"{text} {entry.play}" if entry.play else text
    if entry.kind in ("double", "beaver", "raccoon"):
        word = {"double": "Doubles", "beaver": "Beavers", "raccoon": "Raccoons"}[entry.kind]
        return f" {word} => {entry.value}"
    return " Takes" if entry.kind == "take" else " Drops"


def _wins(result: Result) -> str:
    unit = "point" if result.points == 1 else "points"
    indent = " " * (34 if result.winner == 1 else 6)
    return f"{indent}Wins {result.points} {unit}"


def write(transcript: Transcript) -> str:
    """The ``.mat`` text of ``transcript``, laid out as GNU Backgammon writes it (which it
    imports with ``import mat``). The entries are written as given: the take that answers a
    beaver must be left out, as the format has it. A name holding ``:``, or starting or
    ending with a space, raises :class:`~bgfast.MatchOptionError`."""
    info = transcript.info
    names = [_check_name(n) for n in info.players]
    out: list[str] = []
    for key, value in (("Site", info.place), ("Event", info.event), ("Round", info.round)):
        if value:
            out.append(f'; [{key} "{value}"]')
    if info.date is not None:
        d = info.date
        out.append(f'; [EventDate "{d.year:04d}.{d.month:02d}.{d.day:02d}"]')
    if info.annotator:
        out.append(f'; [Transcriber "{info.annotator}"]')
    rules = transcript.rules
    if transcript.length and rules.crawford is False:
        out.append('; [Crawford "Off"]')
    if rules.max_cube is not None:
        out.append(f'; [CubeLimit "{rules.max_cube}"]')
    if not transcript.length:
        if rules.jacoby:
            out.append('; [Jacoby "On"]')
        if rules.beavers:
            out.append('; [Beaver "On"]')
        if rules.raccoons:
            out.append('; [Raccoon "On"]')
    if info.comment:
        out.append("")
        for line in info.comment.split("\n"):
            if _read_tag(line) is not None:
                # The format has no way to tell such a line from the tag itself, which
                # would change the match read back (a [Crawford "Off"] line its rules).
                raise MatchOptionError(
                    f"a .mat file cannot hold the comment line {line!r}: it reads as a tag"
                )
            out.append(f"; {line}" if line else ";")
    out += ["", f" {transcript.length} point match", ""]
    for game in transcript.games:
        out.append(f" Game {game.number}")
        score = game.score or (0, 0)
        left = f"{names[0]} : {score[0]}"
        # A space at least between the columns: a long name must not run into the next.
        out.append(f" {left + ' ':<31}{names[1]} : {score[1]}")
        numbers = move_numbers([e.player for e in game.entries])
        rows: dict[int, list[str]] = {}
        for entry, number in zip(game.entries, numbers):
            rows.setdefault(number, ["", ""])[entry.player] = _cell(entry)
        result = game.result
        last = max(rows, default=0)
        # Player 1's win goes beside a last line with an empty right cell, as GNU
        # Backgammon writes it (its import reads a pass only so); else on a line of its own.
        beside = result is not None and result.winner == 1 and last and not rows[last][1]
        for number in sorted(rows):
            left_cell, right_cell = rows[number]
            if beside and number == last:
                assert result is not None
                right_cell = _wins(result).strip()
            if right_cell:
                # Two spaces at least between the cells: GNU Backgammon splits there.
                line = f"{number:3d}) {left_cell:<27}  {right_cell}"
            else:
                line = f"{number:3d}) {left_cell}"
            out.append(line.rstrip())
        if result is not None and not beside:
            out.append(_wins(result))
        out.append("")
    return "\n".join(out) + "\n"
