"""GNU Backgammon's SGF match files (Smart Game Format, ``GM[6]``): the syntax only.

:func:`parse` reads a file into a :class:`~bgfast.transcript.Transcript` and :func:`write`
writes one back; :meth:`bgfast.Match.from_sgf` and :meth:`bgfast.Match.to_sgf` add the
referee (:mod:`bgfast.replay`). A file is one game tree a game::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]
    PW[gnubg]PB[root]DT[2026-11-29]RU[Crawford]RE[B+2]
    ;W[32xumk]
    ;B[65aggl]
    ...
    ;B[double]
    ;W[take]
    ...)

The root node holds the game: ``MI`` (match length, game number from 0, the score of
White and Black before it), the players (``PW`` White is player 0, ``PB`` Black player 1),
the first game's match information (``DT``, ``EV``, ``RO``, ``PC``, ``AN``, ``GC``,
``WR``, ``BR``), the rules (``RU``: ``Crawford``, ``CrawfordGame``, ``Jacoby``, ``NoCube``;
bgfast adds ``Beavers``, ``Raccoons`` and a cube limit ``CubeLimit=8``, which GNU Backgammon
passes over) and the result
(``RE[B+2]``, ``R`` after the points for a resignation). Each later node holds one action
of ``W`` or ``B``: the dice and the play, each checker step two letters (``a``..``x`` the
points from White's 1-point, Black's counted the other way; ``y`` the bar, ``z`` off),
``double`` (also a beaver or raccoon when it answers a double), ``take`` or ``drop``; or
``PL[W]DI[52]``, dice rolled and not played (a resignation follows). GNU Backgammon's
analysis properties (``A``, ``DA``, ``LU``, marks, comments, statistics) are read past;
positions edited mid-game (``AE``, ``AB``, ``AW``, ``CP``, ``CV``) and any other property are
an :class:`~bgfast.InvalidSaveError`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field

from bgfast._version import __version__
from bgfast.errors import InvalidSaveError, MatchOptionError
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

_ROOT = {
    "FF", "GM", "CA", "AP", "MI", "PW", "PB", "WR", "BR", "DT", "EV", "RO", "PC", "AN", "GC",
    "RU", "CV", "RE", "GS", "C",
}  # fmt: skip
# What GNU Backgammon writes beside a move: analysis, marks, luck, comments.
_NOTES = {"A", "DA", "LU", "BM", "DO", "IT", "TE", "GB", "GW", "BC", "DC", "MR", "CR", "C", "N"}
_EDITS = {"AE", "AB", "AW", "CP", "CV"}
_MOVE_VALUE = re.compile(r"^([1-6])([1-6])([a-z]*)$")
_RESULT = re.compile(r"^([WB])\+(\d{1,9})(R?)$")
_MI = re.compile(r"^(length|game|ws|bs):(\d{1,9})$")
_RULES = {"Crawford", "CrawfordGame", "Jacoby", "NoCube", "Beavers", "Raccoons"}
_CUBE_LIMIT = re.compile(r"^CubeLimit=(\d{1,6})$")
_MAX_NODES = 1_000_000
_IDENT = re.compile(r"[A-Z]+")


def _decode(text: str | bytes) -> str:
    if isinstance(text, (bytes, bytearray)):
        return decode(bytes(text))  # UTF-8, else Windows-1252, else Latin-1
    if not isinstance(text, str):
        raise TypeError(f"an SGF file is text or bytes, not {type(text).__name__}")
    return text.removeprefix("\ufeff")


# ---------------------------------------------------------------------------- syntax


@dataclass
class _Node:
    props: dict[str, list[str]]
    where: str


@dataclass
class _Tree:
    """A game tree's main line: its nodes and those of its first variation, and so on."""

    nodes: list[_Node] = field(default_factory=list)
    where: str = ""


def _position(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    return f"line {line}"


class _Lines:
    """Line numbers of indices met in increasing order, as :func:`_position` gives them:
    each call counts only the line breaks since the previous one, so that a reader that
    names the line of every token reads in linear time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.line = 1

    def at(self, i: int) -> str:
        if i < self.index:
            return _position(self.text, i)
        self.line += self.text.count("\n", self.index, i)
        self.index = i
        return f"line {self.line}"


def _value(text: str, i: int) -> tuple[str, int]:
    """The property value starting after the ``[`` at ``i - 1``: escapes undone (``\\]``,
    ``\\\\``; a backslash before a line break removes both). Returns it and the index after
    its ``]``."""
    out: list[str] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "]":
            return "".join(out), i + 1
        if c == "\\":
            i += 1
            if i == n:
                break
            c = text[i]
            if c == "\n":
                i += 1
                continue
        out.append(c)
        i += 1
    raise InvalidSaveError(
        f"{_position(text, n)}: the file ends inside a property value (truncated)"
    )


def _trees(text: str) -> list[_Tree]:
    """The game trees of a collection, each as its main line (the first variation at each
    fork, as GNU Backgammon reads it)."""
    trees: list[_Tree] = []
    # Per open tree: whether it is on the main line, and how many variations it has opened.
    stack: list[list[int]] = []
    i, n = 0, len(text)
    nodes = 0
    lines = _Lines(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            break
        c = text[i]
        where = lines.at(i)
        if c == "(":
            if not stack:
                trees.append(_Tree(where=where))
                stack.append([1, 0])
            else:
                parent = stack[-1]
                stack.append([int(parent[0] == 1 and parent[1] == 0), 0])
                parent[1] += 1
            i += 1
        elif c == ")":
            if not stack:
                raise InvalidSaveError(f"{where}: ')' closes no game tree")
            if not trees[-1].nodes:
                raise InvalidSaveError(f"{where}: an empty game tree")
            stack.pop()
            i += 1
        elif c == ";":
            if not stack:
                raise InvalidSaveError(f"{where}: a node outside any game tree")
            if stack[-1][1]:
                raise InvalidSaveError(f"{where}: a node after the variations of its tree")
            nodes += 1
            if nodes > _MAX_NODES:
                raise InvalidSaveError(f"{where}: more than {_MAX_NODES} nodes")
            i += 1
            props: dict[str, list[str]] = {}
            while True:
                while i < n and text[i].isspace():
                    i += 1
                m = _IDENT.match(text, i)
                if m is None:
                    break
                name = m.group()
                i = m.end()
                values: list[str] = []
                while True:
                    while i < n and text[i].isspace():
                        i += 1
                    if i < n and text[i] == "[":
                        value, i = _value(text, i + 1)
                        values.append(value)
                    else:
                        break
                if not values:
                    raise InvalidSaveError(f"{_position(text, i)}: property {name} has no value")
                if name in props:
                    raise InvalidSaveError(f"{where}: property {name} twice in one node")
                props[name] = values
            if stack[-1][0]:
                trees[-1].nodes.append(_Node(props, where))
        else:
            what = f"unknown token {text[i : i + 12]!r}"
            raise InvalidSaveError(f"{where}: {what}: SGF is '(', ';', properties and ')'")
    if stack:
        raise InvalidSaveError(
            f"{_position(text, n)}: the file ends inside a game tree (truncated)"
        )
    if not trees:
        raise InvalidSaveError("not an SGF file: no game tree")
    return trees


# ---------------------------------------------------------------------------- meaning


def _one(node: _Node, name: str, label: str) -> str:
    values = node.props[name]
    if len(values) != 1:
        raise InvalidSaveError(f"{label}: {name} holds one value, not {len(values)}")
    return values[0]


def _point(letter: str, player: int) -> int:
    """A point of GNU Backgammon's SGF letters in the mover's own numbering (25 the bar,
    0 off)."""
    if letter == "y":
        return 25
    if letter == "z":
        return 0
    index = ord(letter) - ord("a")
    return index + 1 if player == 0 else 24 - index


def _letter(point: int, player: int) -> str:
    if point == 25:
        return "y"
    if point == 0:
        return "z"
    return chr(ord("a") + (point - 1 if player == 0 else 24 - point))


@dataclass
class _Game:
    length: int | None = None
    number: int | None = None
    score: list[int | None] = field(default_factory=lambda: [None, None])
    players: list[str | None] = field(default_factory=lambda: [None, None])
    info: dict[str, object] = field(default_factory=dict)
    rules: set[str] = field(default_factory=set)
    result: Result | None = None


def _root(node: _Node, label: str) -> _Game:
    g = _Game()
    unknown = sorted(set(node.props) - _ROOT)
    if unknown:
        raise InvalidSaveError(f"{label}: unknown property {unknown[0]} in the game's root node")
    gm = node.props.get("GM")
    if gm is None or gm != ["6"]:
        raise InvalidSaveError(f"{label}: not a backgammon game (GM[6]), GM is {gm}")
    if node.props.get("FF", ["4"])[0] not in ("3", "4"):
        raise InvalidSaveError(f"{label}: unsupported SGF version FF[{node.props['FF'][0]}]")
    for value in node.props.get("MI", []):
        m = _MI.match(value)
        if m is None:
            raise InvalidSaveError(f"{label}: unknown match information MI[{value}]")
        number = int(m[2])
        if m[1] == "length":
            g.length = number
        elif m[1] == "game":
            g.number = number
        else:
            g.score[0 if m[1] == "ws" else 1] = number
    for k, name in enumerate(("PW", "PB")):
        if name in node.props:
            g.players[k] = _one(node, name, label)
    texts = {"EV": "event", "RO": "round", "PC": "place", "AN": "annotator", "GC": "comment"}
    for prop, key in texts.items():
        if prop in node.props:
            g.info[key] = _one(node, prop, label)
    ratings = [node.props.get(n, [""])[0] for n in ("WR", "BR")]
    if any(ratings):
        g.info["ratings"] = tuple(ratings)
    if "DT" in node.props:
        text = _one(node, "DT", label)
        m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
        if m is None:
            raise InvalidSaveError(f"{label}: the date DT[{text}] is not YYYY-MM-DD")
        try:
            g.info["date"] = datetime.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError as e:
            raise InvalidSaveError(f"{label}: the date DT[{text}] is no day: {e}") from None
    if "RU" in node.props:
        for rule in _one(node, "RU", label).split(":"):
            limit = _CUBE_LIMIT.match(rule)
            if limit is not None and cube_value_problem(int(limit[1])):
                raise InvalidSaveError(f"{label}: {rule!r} in RU is no cube value (R17)")
            if rule not in _RULES and limit is None:
                raise InvalidSaveError(f"{label}: unknown or unsupported rule {rule!r} in RU")
            g.rules.add(rule)
    if "CV" in node.props and _one(node, "CV", label) != "1":
        raise InvalidSaveError(
            f"{label}: automatic doubles (CV, R22) are not recorded roll by roll; bgfast "
            "cannot replay them"
        )
    if "RE" in node.props:
        text = _one(node, "RE", label)
        m = _RESULT.match(text)
        if m is None:
            raise InvalidSaveError(f"{label}: the result RE[{text}] is not W+N or B+N (R)")
        points = int(m[2])
        if points < 1:
            raise InvalidSaveError(f"{label}: a game is won by one point or more, not {text}")
        g.result = Result(int(m[1] == "B"), points, m[3] == "R", f"RE[{text}]")
    return g


def _entries(tree: _Tree, label: str) -> list[Entry]:
    entries: list[Entry] = []
    for k, node in enumerate(tree.nodes[1:], 2):
        where = f"node {k}, {node.where}"
        props = node.props
        edits = sorted(set(props) & _EDITS)
        if edits:
            raise InvalidSaveError(
                f"{label}, {where}: the position or the cube was edited ({edits[0]}); "
                "bgfast replays games as they were played"
            )
        unknown = sorted(set(props) - _NOTES - {"B", "W", "PL", "DI"})
        if unknown:
            raise InvalidSaveError(f"{label}, {where}: unknown property {unknown[0]}")
        moves = [c for c in "WB" if c in props]
        if len(moves) > 1:
            raise InvalidSaveError(f"{label}, {where}: both players act in one node")
        if "DI" in props:
            if moves or "PL" not in props:
                raise InvalidSaveError(f"{label}, {where}: dice set by DI need PL and no move")
            player_text = _one(node, "PL", f"{label}, {where}")
            dice_text = _one(node, "DI", f"{label}, {where}")
            if player_text not in ("W", "B") or not re.fullmatch(r"[1-6][1-6]", dice_text):
                raise InvalidSaveError(
                    f"{label}, {where}: PL[{player_text}]DI[{dice_text}] is no roll"
                )
            dice = (int(dice_text[0]), int(dice_text[1]))
            entries.append(Entry(int(player_text == "B"), "roll", dice, "", None, 0, where))
            continue
        if "PL" in props:
            raise InvalidSaveError(
                f"{label}, {where}: PL sets the player on roll of an edited position"
            )
        if not moves:
            continue  # a node of notes only
        player = int(moves[0] == "B")
        value = _one(node, moves[0], f"{label}, {where}")
        if value in ("double", "take", "drop"):
            kind: EntryKind = value  # type: ignore[assignment]
            entries.append(Entry(player, kind, None, None, None, 0, where))
            continue
        m = _MOVE_VALUE.match(value)
        if m is None:
            raise InvalidSaveError(
                f"{label}, {where}: {moves[0]}[{value}] is no roll, play or cube action"
            )
        letters = m[3]
        if len(letters) % 2 or len(letters) > 8:
            raise InvalidSaveError(
                f"{label}, {where}: {moves[0]}[{value}]: a play is one to four steps"
            )
        steps = []
        for a, b in zip(letters[::2], letters[1::2]):
            if a == "z" or b == "y":
                raise InvalidSaveError(
                    f"{where}: {moves[0]}[{value}]: no step starts off the board or ends on the bar"
                )
            steps.append(f"{_point(a, player)}/{_point(b, player)}")
        dice = (int(m[1]), int(m[2]))
        entries.append(Entry(player, "roll", dice, " ".join(steps), None, 0, where))
    numbers = _numbers(entries)
    return [
        Entry(e.player, e.kind, e.dice, e.play, e.value, n, e.where)
        for e, n in zip(entries, numbers)
    ]


def _numbers(entries: list[Entry]) -> list[int]:
    """Move numbers as a ``.mat`` file would have them: the take that answers a beaver (a
    double answering a double) takes no cell there."""
    counted: list[int] = []
    chain = 0  # doubles in a row: 1 a double, 2 a beaver, 3 a raccoon
    for k, e in enumerate(entries):
        if e.kind == "double":
            chain += 1
        else:
            if not (e.kind == "take" and chain == 2):
                counted.append(k)
            chain = 0
            continue
        counted.append(k)
    numbers_of = dict(zip(counted, move_numbers([entries[k].player for k in counted])))
    out = []
    last = 1
    for k in range(len(entries)):
        last = numbers_of.get(k, last)
        out.append(last)
    return out


def parse(text: str | bytes) -> Transcript:
    """The match or money session of an SGF file's text (str, or bytes in UTF-8, else
    Windows-1252, else Latin-1), syntax checked; :class:`~bgfast.InvalidSaveError` names
    the game and node of anything that is not the format."""
    trees = _trees(_decode(text))
    length: int | None = None
    players: list[str | None] = [None, None]
    info: dict[str, object] = {}
    games: list[GameRecord] = []
    rules: set[str] | None = None
    jacobys: list[bool] = []
    for index, tree in enumerate(trees):
        label = f"game {index + 1}"
        root = _root(tree.nodes[0], f"{label} ({tree.where})")
        if root.number is not None and root.number != index:
            raise InvalidSaveError(f"{label}: MI says it is game {root.number + 1}")
        if root.length is None:
            raise InvalidSaveError(f"{label}: no match length (MI[length:N])")
        if root.length > MAX_MATCH_LENGTH:
            raise InvalidSaveError(f"{label}: a match is at most {MAX_MATCH_LENGTH} points (R20)")
        if length is None:
            length = root.length
        elif root.length != length:
            raise InvalidSaveError(f"{label}: a {root.length}-point game in a {length}-point match")
        for k in (0, 1):
            name = root.players[k]
            if name is None:
                continue
            if players[k] is None:
                players[k] = name
            elif players[k] != name:
                raise InvalidSaveError(f"{label}: player {k} is {name!r}, earlier {players[k]!r}")
        for key, value in root.info.items():
            if info.setdefault(key, value) != value:
                raise InvalidSaveError(f"{label}: its {key} differs from the first game's")
        match_rules = root.rules - {"CrawfordGame", "Jacoby"}
        if rules is None:
            rules = match_rules
        elif rules != match_rules:
            raise InvalidSaveError(f"{label}: its rules RU differ from the first game's")
        jacobys.append("Jacoby" in root.rules)
        score = None
        if root.score != [None, None]:
            if None in root.score:
                raise InvalidSaveError(f"{label}: MI gives one player's score only")
            score = (int(root.score[0] or 0), int(root.score[1] or 0))
        crawford_game = ("CrawfordGame" in root.rules) if length else None
        entries = _entries(tree, label)
        games.append(
            GameRecord(index + 1, score, crawford_game, tuple(entries), root.result, tree.where)
        )
    assert length is not None and rules is not None
    names = [p if p is not None else f"Player {k}" for k, p in enumerate(players)]
    try:
        match_info = MatchInfo(players=(names[0], names[1]), **info)  # type: ignore[arg-type]
    except MatchOptionError as e:
        raise InvalidSaveError(f"bad match information: {e}") from None
    stated = StatedRules(
        crawford=("Crawford" in rules) if length else None,
        jacoby=None if length else jacobys[0],
        beavers=None if length or "Beavers" not in rules else True,
        raccoons=None if length or "Raccoons" not in rules else True,
        max_cube=1 if "NoCube" in rules else _stated_cube_limit(rules),
    )
    return Transcript(length, match_info, stated, tuple(games), tuple(jacobys))


def _stated_cube_limit(rules: set[str]) -> int | None:
    limits = [int(m[1]) for m in map(_CUBE_LIMIT.match, rules) if m is not None]
    if len(limits) > 1:
        raise InvalidSaveError(f"RU states {len(limits)} cube limits")
    return limits[0] if limits and limits[0] != CUBE_LIMIT else None


# ---------------------------------------------------------------------------- writing


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _node(entry: Entry, *, dice_only: bool) -> str:
    colour = "WB"[entry.player]
    if entry.kind == "roll":
        assert entry.dice is not None
        dice = f"{entry.dice[0]}{entry.dice[1]}"
        if dice_only:
            return f";PL[{colour}]DI[{dice}]"
        letters = ""
        for step in (entry.play or "").split():
            a, b = step.rstrip("*").split("/")
            letters += _letter(int(a), entry.player) + _letter(int(b), entry.player)
        return f";{colour}[{dice}{letters}]"
    word = {"double": "double", "beaver": "double", "raccoon": "double"}.get(entry.kind, entry.kind)
    return f";{colour}[{word}]"


def write(transcript: Transcript) -> str:
    """The SGF text of ``transcript``, one game tree a game, as GNU Backgammon writes it
    (``load match`` reads it). Every entry is written, the take that answers a beaver
    included. A match without games has no game tree to write: :class:`MatchOptionError`."""
    info = transcript.info
    rules = transcript.rules
    length = transcript.length
    if not transcript.games:
        raise MatchOptionError("an SGF file is its games: a match with no game has none to write")
    out: list[str] = []
    jacobys = transcript.jacoby_by_game
    for index, game in enumerate(transcript.games):
        score = game.score or (0, 0)
        head = [
            f"(;FF[4]GM[6]CA[UTF-8]AP[bgfast:{_escape(__version__)}]",
            f"MI[length:{length}][game:{index}][ws:{score[0]}][bs:{score[1]}]",
            f"PW[{_escape(info.players[0])}]PB[{_escape(info.players[1])}]",
        ]
        if index == 0:
            for prop, value in (("WR", info.ratings[0]), ("BR", info.ratings[1])):
                if value:
                    head.append(f"{prop}[{_escape(value)}]")
            if info.date is not None:
                d = info.date
                head.append(f"DT[{d.year:04d}-{d.month:02d}-{d.day:02d}]")
            for prop, value in (
                ("EV", info.event),
                ("RO", info.round),
                ("PC", info.place),
                ("AN", info.annotator),
                ("GC", info.comment),
            ):
                if value:
                    head.append(f"{prop}[{_escape(value)}]")
        ru = []
        if rules.max_cube == 1:
            ru.append("NoCube")
        if length and rules.crawford is not False:
            ru.append("Crawford")
        if length and game.crawford_game:
            ru.append("CrawfordGame")
        jacoby = jacobys[index] if index < len(jacobys) else bool(rules.jacoby)
        if not length and jacoby:
            ru.append("Jacoby")
        if not length and rules.beavers:
            ru.append("Beavers")
        if not length and rules.raccoons:
            ru.append("Raccoons")
        if rules.max_cube not in (None, 1):
            ru.append(f"CubeLimit={rules.max_cube}")
        if ru:
            head.append(f"RU[{':'.join(ru)}]")
        r = game.result
        if r is not None:
            head.append(f"RE[{'WB'[r.winner]}+{r.points}{'R' if r.resigned else ''}]")
        out.append("".join(head))
        entries = game.entries
        for k, entry in enumerate(entries):
            # A roll left unplayed before a resignation: GNU Backgammon's PL/DI form.
            dice_only = (
                k == len(entries) - 1
                and entry.kind == "roll"
                and not entry.play
                and r is not None
                and r.resigned is True
            )
            out.append(_node(entry, dice_only=dice_only))
        out[-1] += ")"
    return "\n".join(out) + "\n"
