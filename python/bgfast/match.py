"""A match to N points (R20): its games, scores, the Crawford game (R21) and the winner; or a
session of money games.

The score, the Crawford game and post-Crawford play are derived from the finished games, never
stored apart from them, so they cannot disagree. Money-play options are refused in a match
(R22, R23). A match reads and writes the files analysts keep: Jellyfish ``.mat``
(:meth:`Match.from_mat`, :meth:`Match.to_mat`, syntax in :mod:`bgfast.matfile`) and GNU
Backgammon's SGF (:meth:`Match.from_sgf`, :meth:`Match.to_sgf`, :mod:`bgfast.sgf`); every play
of a file is replayed through the referee (:mod:`bgfast.replay`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from typing import Any, ClassVar, Union

from bgfast import matfile, met, replay, sgf, svg
from bgfast.errors import GameStateError, InvalidSaveError, MatchOptionError
from bgfast.game import Game
from bgfast.persist import Saved, atomic_write_text, damaged, read_file, same_json
from bgfast.scoring import Rules, is_post_crawford
from bgfast.transcript import MatchInfo, StatedRules, Transcript
from bgfast.vocab import check_flag, check_match_length, check_player, check_seed

TextOrPath = Union[str, bytes, "os.PathLike[str]"]
"""A match file's text, or the path of the file (see :meth:`Match.from_mat`)."""

__all__ = ["Match"]

_FORMAT = "bgfast-match"
_VERSION = 1


class Match(Saved):
    """A match to ``length`` points between players 0 and 1, or with ``length`` 0 a session
    of money games.

    Play each game with :meth:`new_game` (which returns the :class:`~bgfast.Game` to drive)
    until :attr:`winner` is set. The Crawford game (R21) and post-Crawford games follow from
    the scores; :attr:`holland` adds the Holland rule to post-Crawford games. A money
    session never ends; its :attr:`score` adds up the points won. Not thread-safe, as
    :class:`~bgfast.Game` is not: serialise the calls on one match and its games.

    Args:
        length: points to win (R20), 1 to 32767; 0 for a money session.
        rules: scoring options; money-only options raise :class:`MatchOptionError` in a match.
        holland: the Holland rule (in post-Crawford games the trailer may double only after
            both sides have rolled twice).
        table: record games in lenient table mode (R31).
        seed: seed of the dice streams (each game gets its own stream from it), an int with
            ``|seed| < 2**64``; ``None`` picks one at random. Whoever knows it knows every
            roll of every game to come: a save (:meth:`to_json`, :meth:`to_dict`) holds it,
            so keep saves from players (a server picks ``None``: a small seed could be
            found from the rolls shown).
        crawford_rule: whether the Crawford rule is played (R21; GNU Backgammon and most
            servers always play it). Without it there is no Crawford game.
        info: the players' names, the event, the date... (:class:`~bgfast.MatchInfo`).
    """

    FORMAT: ClassVar[str] = _FORMAT
    WHAT: ClassVar[str] = "match"

    def __init__(
        self,
        length: int,
        *,
        rules: Rules | None = None,
        holland: bool = False,
        table: bool = False,
        seed: int | None = None,
        crawford_rule: bool = True,
        info: MatchInfo | None = None,
    ) -> None:
        # 0 is a money session; anything else is a match length (R20).
        length = check_match_length(length, money=True, name="length")
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise MatchOptionError(f"rules must be a bgfast Rules, not {type(rules).__name__}")
        rules.check_match_play(length)
        seed = check_seed(seed)
        holland, table = check_flag("holland", holland), check_flag("table", table)
        crawford_rule = check_flag("crawford_rule", crawford_rule)
        if not length and (holland or not crawford_rule):
            raise MatchOptionError("the Holland and Crawford rules are match options (R21)")
        self._crawford_rule = crawford_rule
        self._info = MatchInfo() if info is None else _check_info(info)
        self._length = length
        self._rules = rules
        self._holland = holland
        self._table = table
        self._seed = seed
        self._games: list[Game] = []

    # ------------------------------------------------------------------ inspection

    @property
    def length(self) -> int:
        """Points needed to win (R20); 0 for a money session."""
        return self._length

    @property
    def is_money(self) -> bool:
        """Whether this is a session of money games (length 0) rather than a match."""
        return self._length == 0

    @property
    def crawford_rule(self) -> bool:
        """Whether the Crawford rule is played (R21)."""
        return self._crawford_rule

    @property
    def info(self) -> MatchInfo:
        """The players' names, the event, the date... (settable)."""
        return self._info

    @info.setter
    def info(self, info: MatchInfo) -> None:
        self._info = _check_info(info)

    @property
    def rules(self) -> Rules:
        """The scoring options of every game."""
        return self._rules

    @property
    def holland(self) -> bool:
        """Whether the Holland rule applies to post-Crawford games."""
        return self._holland

    @property
    def seed(self) -> int:
        """The seed the games' dice streams derive from.

        Secret from the players: with it anyone can compute every roll of the match still
        to come. Show players the current game's :attr:`~bgfast.Game.state`,
        :meth:`~bgfast.Game.gnubg_id` or :meth:`~bgfast.Game.xgid`, which hold no seed."""
        return self._seed

    @property
    def games(self) -> list[Game]:
        """The games played so far, the current one last (a new list; the games are live)."""
        return list(self._games)

    @property
    def game(self) -> Game | None:
        """The current (last started) game, or ``None`` before the first."""
        return self._games[-1] if self._games else None

    @property
    def score(self) -> tuple[int, int]:
        """Points of ``(player 0, player 1)`` from the finished games (may pass the length;
        a money session's points won)."""
        s = [0, 0]
        for g in self._games:
            if g.result is not None:
                s[g.result.winner] += g.result.points
        return s[0], s[1]

    def away(self, player: int) -> int:
        """Points ``player`` still needs (0 once they have won)."""
        player = check_player(player)
        if self.is_money:
            raise GameStateError("away: a money session has no points to win (R20)")
        return max(0, self._length - self.score[player])

    @property
    def winner(self) -> int | None:
        """The player who reached the length (R20), or ``None`` while the match goes on
        (always in a money session)."""
        if self.is_money:
            return None
        for p in (0, 1):
            if self.score[p] >= self._length:
                return p
        return None

    @property
    def is_over(self) -> bool:
        """Whether a player has won the match."""
        return self.winner is not None

    def _crawford_index(self) -> int | None:
        """Index of the Crawford game: the game after the first one that left a player at
        exactly N-1 (R21); ``None`` if no player has got there yet."""
        if self.is_money or not self._crawford_rule:
            return None
        s = [0, 0]
        for i, g in enumerate(self._games):
            if g.result is None:
                return None
            s[g.result.winner] += g.result.points
            if max(s) == self._length - 1 and max(s) < self._length:
                return i + 1
        return None

    @property
    def crawford(self) -> bool:
        """Whether the next game (or the current one, while it is played) is the Crawford
        game: no cube (R21)."""
        index = len(self._games) - (1 if self.game is not None and not self.game.is_over else 0)
        return self._crawford_index() == index and self.winner is None

    @property
    def post_crawford(self) -> bool:
        """Whether the next (or current) game is post-Crawford: the Crawford game has been
        played, a player is one point away, and the cube is back (R21). The same definition
        as :attr:`bgfast.Game.post_crawford` (:func:`bgfast.scoring.is_post_crawford`):
        never in a 1-point match. A match without the Crawford rule plays every game at a
        1-away score as a post-Crawford one."""
        if self.is_money:
            return False
        return self.winner is None and is_post_crawford(self._length, self.score, self.crawford)

    # ------------------------------------------------------------------ play

    def _game_seed(self, index: int) -> int:
        digest = hashlib.blake2b(f"{self._seed}:{index}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little") >> 1

    def new_game(self) -> Game:
        """Start the next game (the previous one must be over) and return it.

        The previous game is closed (:meth:`bgfast.Game.close`): its last move may no longer
        be called (R31), so the score it gave stands."""
        if self.is_over:
            raise GameStateError(
                f"new_game: the match is over: player {self.winner} won the "
                f"{self._length}-point match (R20)"
            )
        previous = self.game
        if previous is not None and not previous.is_over:
            raise GameStateError(
                f"new_game: the current game (game {len(self._games)}) is not over yet: a "
                "game ends when a side bears off all its checkers (R15), a double is passed "
                "(R19) or a resignation is accepted"
            )
        game = Game(
            rules=self._rules,
            match_length=self._length,
            score=self.score if self._length else (0, 0),
            crawford=self.crawford,
            holland=self._holland,
            table=self._table,
            seed=self._game_seed(len(self._games)),
        )
        if previous is not None and not previous.closed:
            previous.close()  # R31: the previous game's last move now stands
        self._games.append(game)
        return game

    def equity(self, player: int = 0, table: str | None = None) -> float:
        """Match winning chance of ``player`` at the current score, before the next game,
        from a match equity table (``bgfast.met.equity``; ``table`` names one, ``None`` is
        its default), with the Crawford / post-Crawford distinction of R21. 1.0 or 0.0 once
        the match is over."""
        player = check_player(player)
        if self.is_money:
            raise GameStateError(
                "equity: a money session has no match equity (no points to win, R20)"
            )
        if self.winner is not None:
            return 1.0 if self.winner == player else 0.0
        kwargs: dict[str, Any] = {} if table is None else {"table": table}
        if self.post_crawford:
            kwargs["post_crawford"] = True
        return float(met.equity(self.away(player), self.away(1 - player), **kwargs))

    # ------------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        """The match as JSON-ready data: settings and every game's record (the Crawford
        rule and the match information only when they differ from the defaults, so that
        records saved before them read back unchanged).

        The record holds the dice: the match's :attr:`seed` and each game's seed and draw
        count, so anyone who reads it can compute every roll to come. Keep it on the server
        (it is what resumes the match with the same dice); never show it to a player."""
        data: dict[str, Any] = {
            "format": _FORMAT,
            "version": _VERSION,
            "length": self._length,
            "rules": self._rules.to_dict(),
            "holland": self._holland,
            "table": self._table,
            "seed": self._seed,
            "games": [g.to_dict() for g in self._games],
            "score": list(self.score),
        }
        if not self._crawford_rule:
            data["crawford_rule"] = False
        info = self._info.to_dict()
        if info:
            data["info"] = info
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match: every game is replayed and must be the game the match would
        have started at that point (score, Crawford flag, seed)."""
        with damaged("match record"):
            return cls._from_dict(data)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Match:
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise InvalidSaveError("not a bgfast match record")
        if data.get("version") != _VERSION:
            raise InvalidSaveError(f"unsupported match record version {data.get('version')!r}")
        match = cls(
            data["length"],
            rules=Rules.from_dict(data["rules"]),
            holland=data["holland"],
            table=data["table"],
            seed=data["seed"],
            crawford_rule=data.get("crawford_rule", True),
            info=MatchInfo.from_dict(data.get("info", {})),
        )
        games = data["games"]
        if not isinstance(games, list):
            raise InvalidSaveError("games must be a list")
        for i, record in enumerate(games):
            expected = match.new_game()
            game = Game.from_dict(record)
            if game.to_dict()["setup"] != expected.to_dict()["setup"]:
                raise InvalidSaveError(
                    f"game {i + 1} does not start as the match says it must "
                    f"(score, Crawford game R21, options or seed differ)"
                )
            match._games[-1] = game
        if not same_json(data.get("score"), list(match.score)):
            raise InvalidSaveError("the stored score differs from the replayed games")
        # Each game checked its own record; every other field must be what the match holds.
        rebuilt = match.to_dict()
        differing = sorted(
            k
            for k in set(data) | set(rebuilt)
            if k != "games" and not same_json(data.get(k), rebuilt.get(k))
        )
        if differing:
            raise InvalidSaveError(f"the match record's fields {differing} are not the match's")
        return match

    def copy(self) -> Match:
        """An independent copy: the same settings and games, each game copied
        (:meth:`bgfast.Game.copy`), so that play on one never changes the other."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._games = [g.copy() for g in self._games]
        return twin

    def __copy__(self) -> Match:
        """``copy.copy(match)`` is :meth:`copy` (a shallow copy would share the games)."""
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def svg(self, *, home: svg.Home = "right", swap_sides: bool = False) -> str:
        """An SVG picture of the current game (:func:`bgfast.svg.match_svg`); with
        ``swap_sides`` the players change sides after each game (R32)."""
        return svg.match_svg(self, home=home, swap_sides=swap_sides)

    def _repr_svg_(self) -> str:
        return svg.match_svg(self)

    def __repr__(self) -> str:
        s = self.score
        n = len(self._games)
        # A game in play says so: a file cut short reads as a match whose last game is.
        playing = f", game {n} in play" if self.game is not None and not self.game.is_over else ""
        if self.is_money:
            return f"<Match (money session): {s[0]}-{s[1]}, {n} games{playing}>"
        return f"<Match to {self._length}: {s[0]}-{s[1]}, {n} games{playing}>"

    # ------------------------------------------------------------------ match files

    @classmethod
    def from_transcript(cls, transcript: Transcript) -> Match:
        """The match a file's :class:`~bgfast.transcript.Transcript` records, every entry
        played through the referee (:func:`bgfast.replay.play_games`). Anything illegal,
        impossible or inconsistent raises :class:`~bgfast.InvalidSaveError` naming the
        game, the move number and what is wrong; no match is returned half read.

        A rule the file does not state is read from its play: a money session without the
        Jacoby rule (R23) stated is read with it only when its score lines need it, a match
        without the Crawford rule (R21) stated is read without it when a cube is offered in
        the game that would be the Crawford game (:func:`bgfast.replay.crawford_rule_of`);
        a match that reads either way is read with the rule, the default."""
        crawford = replay.crawford_rule_of(transcript)
        try:
            return cls._replayed(transcript, replay.rules_of(transcript), crawford)
        except InvalidSaveError as first:
            if transcript.length or transcript.rules.jacoby is not None:
                raise
            # GNU Backgammon's .mat files do not say whether the Jacoby rule (R23) was
            # played; the score lines do.
            try:
                return cls._replayed(transcript, replay.rules_of(transcript, jacoby=True), crawford)
            except InvalidSaveError:
                raise first from None

    @classmethod
    def _replayed(cls, transcript: Transcript, rules: Rules, crawford: bool) -> Match:
        length = transcript.length
        jacobys = set(transcript.jacoby_by_game)
        if jacobys and jacobys != {rules.jacoby}:
            raise InvalidSaveError("the games of the session do not all play the same Jacoby rule")
        try:
            match = cls(
                length,
                rules=rules,
                seed=0,
                crawford_rule=crawford,
                info=transcript.info,
            )
        except MatchOptionError as e:
            raise InvalidSaveError(f"the file's settings: {e}") from None
        replay.play_games(transcript, match.new_game)
        return match

    def to_transcript(self, *, mat: bool = False) -> Transcript:
        """The match as a file records it (see :func:`bgfast.replay.transcript_of`).
        :class:`~bgfast.MatchOptionError` for a backgammon that scores as a gammon (R16's
        option), which neither file format can state: read back, its scores would not add
        up."""
        if self._rules.backgammon_counts_double:
            raise MatchOptionError(
                "neither a .mat nor an SGF file can state R16's option (a backgammon scores as"
                " a gammon): the match's backgammons would read back as three times the cube"
            )
        stated = StatedRules(
            crawford=self._crawford_rule if self._length else None,
            jacoby=self._rules.jacoby if not self._length else None,
            beavers=self._rules.beavers if not self._length else None,
            raccoons=self._rules.raccoons if not self._length else None,
            max_cube=self._rules.max_cube,
        )
        return replay.transcript_of(
            self._games, length=self._length, info=self._info, rules=stated, mat=mat
        )

    @classmethod
    def from_mat(cls, source: TextOrPath) -> Match:
        """The match (or money session) of a Jellyfish ``.mat`` file: its text (``str``), its
        bytes, or its path (a :class:`os.PathLike`, or a ``str`` of one line that names an
        existing file, or that is not a match file's text: one that does not begin with
        ``;``, ``#``, ``N point match`` or an SGF tree's ``(;`` (a ``(`` before a name,
        as in ``(2019) final.mat``, is a path's), holds no SGF node such as ``(;`` or
        ``;FF[`` and is no longer than a path can be). A path naming no file raises
        :class:`FileNotFoundError`, as ``open`` does. Every play is replayed through the
        referee; a file that is damaged, illegal or inconsistent raises
        :class:`~bgfast.InvalidSaveError` naming the game, the move number and what is wrong;
        so does a path that is not a regular file (a device, a FIFO) or is longer than a
        match file can be, left unread.

        A game without a ``Wins`` line that ended by a bear-off or a pass is won so, as
        GNU Backgammon imports it; a ``Wins`` line with no indentation at all (an editor
        stripped it) names no column, and is read only in such a game. Any other game
        without a result must be the file's last: it loads in play (``match.game.is_over``
        is false), as GNU Backgammon writes a match in progress; a file cut short between
        two whole lines reads the same way, so check it when the match should be complete.
        A file that ends in a move number with no move after it (``11)``, which GNU
        Backgammon does not write) is cut short: an :class:`~bgfast.InvalidSaveError`.

        GNU Backgammon writes no ``[Crawford]`` tag, even for a match played without the
        Crawford rule (R21), so a file without one cannot tell: it is read without the
        rule when a cube is offered in the game that would be the Crawford game, which the
        rule forbids (:func:`bgfast.replay.crawford_rule_of`); otherwise ``crawford_rule``
        is ``True``, the default, though the match may have been played without it."""
        text = _read(source)
        with damaged(".mat file"):
            return cls.from_transcript(matfile.parse(text))

    def to_mat(self, path: str | os.PathLike[str] | None = None) -> str:
        """The match as a ``.mat`` file's text, as GNU Backgammon writes it; with ``path``,
        also written there atomically. GNU Backgammon's ``import mat`` reads it back
        unchanged except, in a file's last game only (a next game's score line sets the
        score), the points of a resignation accepted while a double is pending, written as
        the kind times the cube on offer (as ``export match mat`` writes it), which
        ``import mat`` scores as more than the cube before the offer (a single game
        resigned on 1 offered at 2, scored 1, as 2; a gammon, scored 2, as 3). Other
        resignations are written as the points scored, as GNU Backgammon writes them: a
        gammon resigned on a centred cube under the Jacoby rule (R23) reads back as a
        single game of 1 point, the score the same. A match a ``.mat`` file cannot
        hold (a name with ``:`` or with spaces around it, a comment line that reads as one
        of its header tags such as ``[Crawford "Off"]``, an illegal play that stood, an
        automatic double at the opening, R22, a backgammon scored as a gammon, R16's
        option) raises :class:`~bgfast.MatchOptionError`."""
        text = matfile.write(self.to_transcript(mat=True))
        if path is not None:
            atomic_write_text(path, text)
        return text

    @classmethod
    def from_sgf(cls, source: TextOrPath) -> Match:
        """The match (or money session) of a GNU Backgammon SGF file (``GM[6]``): text,
        bytes or a path, as :meth:`from_mat` takes them (a mistyped path is a
        :class:`FileNotFoundError`). Moves, cube actions and
        resignations are replayed through the referee; damage raises
        :class:`~bgfast.InvalidSaveError`."""
        text = _read(source)
        with damaged("SGF file"):
            return cls.from_transcript(sgf.parse(text))

    def to_sgf(self, path: str | os.PathLike[str] | None = None) -> str:
        """The match as GNU Backgammon's SGF (``load match`` reads it); with ``path``, also
        written there atomically. A match it cannot hold (no game, a backgammon scored as a
        gammon, R16's option) raises :class:`~bgfast.MatchOptionError`."""
        text = sgf.write(self.to_transcript(mat=False))
        if path is not None:
            atomic_write_text(path, text)
        return text


def _check_info(info: object) -> MatchInfo:
    if not isinstance(info, MatchInfo):
        raise MatchOptionError(f"info must be a bgfast MatchInfo, not {type(info).__name__}")
    return info


def _read(source: object) -> str | bytes:
    """The text of a match file given as text, bytes or a path (a regular file of at most
    :data:`~bgfast.persist.MAX_FILE_BYTES`: a device or a FIFO is refused unread).

    A ``str`` is a path when it is one line that names an existing file, or one line that
    could name a file (:func:`_may_be_path`) and is not a match file's text
    (:func:`_is_text`): a mistyped ``"club.mat"`` is then the :class:`FileNotFoundError` a
    :class:`pathlib.Path` gives, not a complaint about the file's first line. Text too
    long to be a path, or holding an SGF node, is text: damaged, it is an
    :class:`~bgfast.InvalidSaveError`, not the ``OSError`` of opening it."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if isinstance(source, os.PathLike):
        return read_file(source, "match file")
    if isinstance(source, str):
        if _may_be_path(source) and (not _is_text(source) or os.path.isfile(source)):
            try:
                return read_file(source, "match file")
            except OSError as e:
                if e.errno != errno.ENAMETOOLONG:
                    raise
                # No file can have that name: it is text, damaged at its start.
        return source
    raise TypeError(f"a match file is text, bytes or a path, not {type(source).__name__}")


_MAT_FIRST_LINE = re.compile(r"\s*\d+\s+point\s+match\b", re.IGNORECASE)

#: The start of an SGF game tree: ``(`` and its first node's ``;``, or ``(`` alone.
_SGF_TREE_START = re.compile(r"\(\s*(;|$)")

#: An SGF node with a property (``(;``, ``;FF[``): text, never in a file's name.
_SGF_NODE = re.compile(r"\(\s*;|;\s*[A-Z]{1,2}\[")

#: The longest name of one file or folder that Linux, macOS and Windows allow.
_NAME_MAX = 255


def _may_be_path(text: str) -> bool:
    """Whether ``text`` could name a file: one line, no longer than any system allows
    (4096 characters, :data:`_NAME_MAX` for each part between separators)."""
    if not 0 < len(text) < 4096 or any(c in text for c in "\n\r\0"):
        return False
    parts = re.split(r"[\\/]", text) if os.sep == "\\" else text.split("/")
    return all(len(part) <= _NAME_MAX for part in parts)


def _is_text(line: str) -> bool:
    """Whether one line is a match file's text: it starts as one does
    (:func:`_starts_as_text`) or holds an SGF node further on (an SGF file written without
    line breaks, after a stray character such as a form feed or a mis-decoded BOM)."""
    return _starts_as_text(line) or _SGF_NODE.search(line) is not None


def _starts_as_text(line: str) -> bool:
    """Whether one line may be the start of a match file's text: blank, an SGF game tree
    (``(`` then ``;``, or ``(`` alone: a file name such as ``(2019) final.mat`` is no
    tree), a ``.mat`` comment (``;`` or ``#``) or a ``.mat`` file's ``N point match``."""
    stripped = line.lstrip("\ufeff \t")
    return (
        not stripped
        or stripped[0] in ";#"
        or _SGF_TREE_START.match(stripped) is not None
        or _MAT_FIRST_LINE.match(stripped) is not None
    )
