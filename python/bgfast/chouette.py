"""Chouette bookkeeping (R24-R28): seating, rotation, cubes, settlement and the ledger.

A chouette is backgammon for three or more players: "the box" plays alone against a team whose
captain moves the checkers. :class:`Chouette` is the referee of the table: every action is
validated first and a rejected action changes nothing. Everything that happened is kept as
an event history, from which the whole state can be rebuilt, and a ledger of every game
with a running balance per player that always sums to zero.

Each chouette game is a :class:`~bgfast.Game` between the box (player 0) and the team
(player 1), played through the chouette (:meth:`Chouette.roll`, :meth:`Chouette.play`, ...;
:attr:`Chouette.game` shows it): the chouette keeps the board and the cubes in step. A
double is allowed only before the doubling side rolls (R18), and the game ends, is settled
and the seats rotate when a side bears off its last checker (R15, R28, R25) or when
everyone on the team side has left it (by passes and resignations, :meth:`Chouette.resign`).
A game played on a real board can be recorded instead, without touching the board here:
then doubles and resignations are taken as they happened and :meth:`Chouette.end_game`
records the result (a game doubled or resigned before anything was rolled here is such a
game: nothing comes before the opening roll, R3, R18).
Every cube is a :class:`bgfast.Cube` between the box and the team side;
:meth:`Chouette.cube` shows it from the table's side (:class:`Cube`).

Two forms are supported:

``"team-cube"`` (the seed's form)
    One cube between the box and the team. A team double needs every team member still in the
    game to agree (R26). The box's double is answered by each member alone; those who pass pay
    the stake before the double and leave the game, those who take play on for the doubled
    stake with the cube on the team's side (R27).

``"per-member-cubes"`` (the modern form)
    Each team member has a cube of their own with the box. A member doubles alone; the box
    may double any members whose cube it may turn; each doubled member answers alone (R27).

House conventions bgfast uses where the rules are silent (documented so a ledger can be
checked by hand):

* **Resignations** are settled member by member, as doubles are answered (R27, R28): the
  box resigns to the members it names and each accepts or rejects alone; the team resigns
  member by member (each member concedes their own stake: the captain moves the checkers
  for the team but concedes nobody else's) and the box accepts or rejects each. An accepted
  resignation ends that member's game for their cube times the kind's multiplier; a
  rejected one changes nothing and play goes on (:meth:`Chouette.resign`).
* **Captain replacement.** When the acting captain leaves the game (passes the box's double,
  resigns, accepts the box's resignation, or, in the per-member form, has a double passed by
  the box), the next member still in the game in queue order becomes acting captain for the
  rest of that game.
* **The board result.** A game played out is won by the side that bears off first. A game
  that ends because nobody is left on the team side is won by the team if its last member left
  because the box passed their double or resigned to them, otherwise by the box.
* **Rotation (R25).** If the box wins, the box stays and the captain seated for that game goes
  to the end of the team queue. If the team wins, the acting captain at the end (the one who
  beat the box) becomes the box and the old box goes to the end of the queue. Everyone else
  keeps their order.
* **Settlement (R28)** is only ever between a member and the box: a member who passes pays the
  box the stake before the double; a member whose double the box passes is paid that stake;
  at the end of a played game, and for an accepted resignation, each member concerned pays
  or is paid their cube value times the game's multiplier (1, 2 for a gammon, 3 for a
  backgammon; R16, R23 options below).
* **Refusals.** Every refusal of an action is an :class:`IllegalChouetteActionError` (also a
  ``GameStateError``) whose message names the action, the rule where one applies and the
  sides as the box, the team or a member, the board's refusals included.

Money options (all off by default except gammons): ``jacoby`` (R23: gammons and backgammons
count single on a cube that was never turned, judged per member's cube), ``gammons=False``
(every game counts single) and ``backgammon_counts_double`` (R16 option: a backgammon counts
2; ``Rules`` names it so too; ``backgammon_as_double``, its first name here, is still
accepted and is the key saved files keep).
"""

from __future__ import annotations

import copy
import random
import re
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Union

from bgfast import cube as game_cube
from bgfast._core import BgfastError, Move, check_dice
from bgfast.errors import (
    ChouetteError,
    ChouetteFileError,
    GameStateError,
    IllegalChouetteActionError,
    MatchOptionError,
    shown,
)
from bgfast.game import Game
from bgfast.persist import Saved, damaged, same_json
from bgfast.scoring import Rules
from bgfast.vocab import (
    ANSWERS,
    CUBE_LIMIT,
    KINDS,
    SIDES,
    Answer,
    Kind,
    Owner,
    Roll,
    Side,
    as_int,
    check_flag,
)

__all__ = [
    "FORMS",
    "Answer",
    "Chouette",
    "ChouetteError",
    "ChouetteFileError",
    "Cube",
    "Form",
    "GameRecord",
    "IllegalChouetteActionError",
    "Kind",
    "MemberOutcome",
    "MemberResult",
    "Owner",
    "ResignAnswer",
    "Side",
    "roll_off",
]

Form = Literal["team-cube", "per-member-cubes"]
"""The chouette's cube form: one team cube (the seed's form) or one cube per member."""
MemberOutcome = Literal["won", "lost", "passed", "box passed", "resigned", "box resigned"]
"""How a member's game ended: played out and won or lost, the member passed the box's double,
the box passed the member's (or the team's) double, the member resigned (the box accepted),
or the box resigned (the member accepted)."""
ResignAnswer = Literal["accept", "reject"]
"""The answer to a resignation (:meth:`Chouette.resign`)."""

FORMS: tuple[Form, ...] = ("team-cube", "per-member-cubes")
"""The supported forms."""

BOX = 0
"""The box's player number on a chouette game's board (:attr:`Chouette.game`)."""
TEAM = 1
"""The team's player number on a chouette game's board."""

_FILE_FORMAT = "bgfast.Chouette"
_FILE_VERSION = 1
# Chouette files have always labelled their digest; game and match files do not.
_CHECKSUM_PREFIX = "sha256:"
_KINDS = KINDS
_SIDES = SIDES
_ANSWERS = ANSWERS
_RESIGN_ANSWERS: tuple[ResignAnswer, ...] = ("accept", "reject")
_PLAYER: dict[Side, int] = {"box": BOX, "team": TEAM}
_OWNER: dict[int | None, Owner] = {None: "center", BOX: "box", TEAM: "team"}
# The board of a chouette game: the cubes are the chouette's, so the board's is out of play.
_BOARD_RULES = Rules(max_cube=1)


@dataclass(frozen=True)
class Cube:
    """A chouette cube as the table sees it (R17): its value, on which side it stands, and
    whether it was turned. Each is a :class:`bgfast.Cube` between the box (player 0) and
    the team side (player 1), shown by :meth:`of`."""

    value: int
    """The stake it carries, in points (1 until the first double)."""
    owner: Owner
    """Who may turn it next: ``"center"`` (either side), ``"box"`` or ``"team"``."""
    turned: bool = False
    """Whether it was doubled and taken in this game (for the Jacoby rule, R23)."""

    @classmethod
    def of(cls, cube: game_cube.Cube) -> Cube:
        """The table's view of a game cube between the box (player 0) and the team."""
        return cls(cube.value, _OWNER[cube.owner], not cube.centred)

    def doubled(self, new_owner: Owner) -> Cube:
        """The cube after a take: twice the value, on the taker's side."""
        return Cube(self.value * 2, new_owner, True)

    def may_double(self, side: Side) -> bool:
        """Whether ``side`` may turn this cube (R17: in the middle, or owned by that side,
        and below the cube limit a Game has too, ``bgfast.vocab.CUBE_LIMIT``)."""
        return self.owner in ("center", side) and not self.at_limit

    @property
    def at_limit(self) -> bool:
        """Whether a double would pass the cube limit (32768, as in a Game)."""
        return self.value * 2 > CUBE_LIMIT


@dataclass(frozen=True)
class MemberResult:
    """One team member's part of a finished game."""

    name: str
    """The member."""
    cube: int
    """The member's stake when their game ended (before the refused double, for a pass)."""
    outcome: MemberOutcome
    """How the member's game ended."""
    points: int
    """What the box paid the member (negative: what the member paid the box)."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game in the ledger."""

    number: int
    """1 for the first game, counting up."""
    box: str
    """The box in this game."""
    captain: str
    """The captain seated for this game."""
    acting_captain: str
    """Who captained at the end (differs from ``captain`` after a replacement)."""
    team: tuple[str, ...]
    """The team in queue order at the start, captain first."""
    winner: Side
    """The side that won the board (decides the rotation, R25)."""
    kind: Kind | None
    """How a played-out game was won, or the kind resigned when the last members left by an
    accepted resignation; ``None`` when it ended because every member left otherwise."""
    members: tuple[MemberResult, ...]
    """Each member's result, in queue order."""

    @property
    def box_points(self) -> int:
        """What the box won in this game (the negative of the members' total)."""
        return -sum(m.points for m in self.members)

    @property
    def payments(self) -> dict[str, int]:
        """Each player's net result for this game, box included; the values sum to zero."""
        result = {self.box: self.box_points}
        result.update({m.name: m.points for m in self.members})
        return result


def roll_off(
    players: Sequence[str], rng: random.Random | None = None
) -> dict[str, tuple[int, ...]]:
    """Roll for seats (R24): everyone rolls one die; tied players roll again until all differ.

    Returns each player's dice in the order rolled, ready for ``Chouette(..., rolls=...)``.

    Raises:
        IllegalChouetteActionError: ``players`` is not a sequence of distinct names.
        TypeError: ``rng`` is not a ``random.Random``.
    """
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise IllegalChouetteActionError("players must be a sequence of names")
    if not all(isinstance(p, str) for p in players) or len(set(players)) != len(players):
        raise IllegalChouetteActionError(f"players must be distinct names: {shown(players)}")
    if rng is not None and not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, not {type(rng).__name__}")
    rng = rng if rng is not None else random.Random()
    rolls: dict[str, list[int]] = {p: [] for p in players}
    pending: list[list[str]] = [list(players)]
    while pending:
        group = pending.pop()
        for p in group:
            rolls[p].append(rng.randint(1, 6))
        by_die: dict[int, list[str]] = {}
        for p in group:
            by_die.setdefault(rolls[p][-1], []).append(p)
        pending.extend(g for g in by_die.values() if len(g) > 1)
    return {p: tuple(d) for p, d in rolls.items()}


def _seed(rng: object) -> int | None:
    """A roll-off's seed: ``None`` (a random one) or an integer of at most 64 bits, as a
    game's seed is."""
    seed = None if rng is None else as_int(rng)
    if rng is not None and (seed is None or abs(seed) >= 1 << 64):
        raise IllegalChouetteActionError(
            f"rng must be a random.Random or an int seed (|seed| < 2**64), not {shown(rng)}"
        )
    return seed


def _seat_order(
    players: Sequence[str], rolls: Mapping[str, object]
) -> tuple[list[str], dict[str, tuple[int, ...]]]:
    """The seating order from a roll-off and each player's dice (a die alone or a sequence
    of rerolls, as ints), or IllegalChouetteActionError naming what is wrong."""
    if set(rolls) != set(players):
        missing = sorted(set(players) - set(rolls))
        extra = sorted(shown(r) for r in set(rolls) - set(players))
        raise IllegalChouetteActionError(
            f"R24: every player rolls for seats; missing {missing}, not playing {extra}"
        )
    dice: dict[str, tuple[int, ...]] = {}
    for p in players:
        seq = rolls[p]
        if as_int(seq) is not None:
            seq = (seq,)
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence) or len(seq) == 0:
            raise IllegalChouetteActionError(
                f"R24: {p!r} must roll at least one die (a die, or a list or tuple of rerolls),"
                f" not {shown(rolls[p])}"
            )
        pips = [as_int(d) for d in seq]
        for d, pip in zip(seq, pips):
            if pip is None or not 1 <= pip <= 6:
                raise IllegalChouetteActionError(f"R24: {p!r} rolled {shown(d)}, not a die 1..6")
        dice[p] = tuple(pip for pip in pips if pip is not None)
    for p in players:
        for q in players:
            if p != q and dice[q][: len(dice[p])] == dice[p]:
                raise IllegalChouetteActionError(
                    f"R24: ties are rolled again: {p!r} {list(dice[p])} and {q!r} "
                    f"{list(dice[q])} are not separated"
                )
        if len(dice[p]) > 1 and not any(
            q != p and dice[q][: len(dice[p]) - 1] == dice[p][:-1] for q in players
        ):
            raise IllegalChouetteActionError(
                f"R24: only tied players roll again, but {p!r} rolled {list(dice[p])}"
            )
    return sorted(players, key=lambda p: dice[p], reverse=True), dice


class _Game:
    """The game in progress (internal): who plays, the cubes, the board."""

    def __init__(self, form: Form, box: str, team: Sequence[str]) -> None:
        self.box = box
        self.team = tuple(team)
        self.active = list(team)
        self.acting_captain = team[0]
        self.team_cube = game_cube.Cube()
        self.cubes = {m: game_cube.Cube() for m in team}
        self.form = form
        self.results: dict[str, MemberResult] = {}
        # Whether the last member to leave won their game (the box passed their double or
        # resigned to them).
        self.last_left_won = False
        # Whether a double or a resignation was recorded before the board was rolled on:
        # then the game is one played on a real board (R18 allows no double, R3 no
        # resignation, before the opening roll), and its board may not be started here.
        self.off_board = False
        # The board: the box is player 0, the team player 1. Dice always given, so the
        # seed is never drawn from.
        self.board = Game(rules=_BOARD_RULES, seed=0)

    def copy(self) -> _Game:
        """An independent copy: its own member lists, cubes, results and board (the cubes
        and results themselves are immutable values, shared)."""
        twin = _Game.__new__(_Game)
        twin.__dict__.update(self.__dict__)
        twin.active = list(self.active)
        twin.cubes = dict(self.cubes)
        twin.results = dict(self.results)
        twin.board = self.board.copy()
        return twin

    @property
    def board_in_play(self) -> bool:
        """Whether the board has been rolled on: doubles then follow its turns (R18)."""
        return self.board.phase != "opening" or bool(self.board.events)

    def cube_of(self, member: str) -> game_cube.Cube:
        return self.team_cube if self.form == "team-cube" else self.cubes[member]

    def set_cube(self, member: str, cube: game_cube.Cube) -> None:
        if self.form == "team-cube":
            self.team_cube = cube
        else:
            self.cubes[member] = cube

    def snapshot(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "team": list(self.team),
            "active": list(self.active),
            "acting_captain": self.acting_captain,
            "cubes": {
                m: _cube_json(Cube.of(self.cube_of(m))) for m in self.team if m not in self.results
            },
            "left": [_member_json(self.results[m]) for m in self.team if m in self.results],
        }


def _cube_json(c: Cube) -> dict[str, Any]:
    return {"value": c.value, "owner": c.owner, "turned": c.turned}


def _member_json(m: MemberResult) -> dict[str, Any]:
    return {"name": m.name, "cube": m.cube, "outcome": m.outcome, "points": m.points}


def _record_json(r: GameRecord) -> dict[str, Any]:
    return {
        "number": r.number,
        "box": r.box,
        "captain": r.captain,
        "acting_captain": r.acting_captain,
        "team": list(r.team),
        "winner": r.winner,
        "kind": r.kind,
        "members": [_member_json(m) for m in r.members],
    }


_Roll = Union[int, Sequence[int]]


class Chouette(Saved):
    """A chouette's state and history: seats, the game in progress, the ledger and balances.

    ``Chouette(players, form)`` seats the players by roll-off (R24): pass ``rolls`` (each
    player's dice in the order rolled, ties rolled again) to record a real roll-off, or an
    ``rng`` to roll here. Then, for each game: :meth:`start_game`, the board played here
    (:meth:`roll`, :meth:`play`; the game ends when a side bears off) or on a real board,
    any doubles (:meth:`team_double`, :meth:`member_double`, :meth:`box_double`) and
    resignations (:meth:`resign`), and for a game played on a real board :meth:`end_game`,
    unless everyone left by passing or resigning. Seats
    rotate after each game (R25). Not thread-safe, as :class:`~bgfast.Game` is not:
    serialise the calls on one chouette.

    >>> c = Chouette(["Ann", "Bob", "Cy"], rolls={"Ann": 6, "Bob": 4, "Cy": 2})
    >>> c.box, c.captain, c.queue
    ('Ann', 'Bob', ('Bob', 'Cy'))
    >>> c.start_game()
    >>> c.end_game("team", "gammon").payments
    {'Ann': -4, 'Bob': 2, 'Cy': 2}
    >>> c.box, c.queue
    ('Bob', ('Cy', 'Ann'))
    """

    FORMAT: ClassVar[str] = _FILE_FORMAT
    VERSION: ClassVar[int | None] = _FILE_VERSION
    CHECKSUM_PREFIX: ClassVar[str] = _CHECKSUM_PREFIX
    ENSURE_ASCII: ClassVar[bool] = False
    SAVE_ERROR: ClassVar[type[ChouetteFileError]] = ChouetteFileError
    WHAT: ClassVar[str] = "chouette"

    def __init__(
        self,
        players: Sequence[str],
        form: Form = "team-cube",
        *,
        rolls: Mapping[str, _Roll] | None = None,
        rng: random.Random | int | None = None,
        jacoby: bool = False,
        gammons: bool = True,
        backgammon_counts_double: bool | None = None,
        backgammon_as_double: bool | None = None,
    ) -> None:
        """Seat ``players`` (3 or more distinct names) by roll-off for a chouette of ``form``.

        ``backgammon_counts_double`` (R16 option) may also be given by its first name here,
        ``backgammon_as_double``.

        Raises:
            IllegalChouetteActionError: fewer than 3 players, duplicate or empty names (or
                names UTF-8 cannot hold), an unknown form or option, or a roll-off that
                breaks R24.
        """
        if backgammon_counts_double is None:
            backgammon_counts_double = (
                False if backgammon_as_double is None else backgammon_as_double
            )
        elif backgammon_as_double is not None and backgammon_as_double != backgammon_counts_double:
            raise IllegalChouetteActionError(
                "backgammon_as_double is backgammon_counts_double's first name: give one"
            )
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise IllegalChouetteActionError("players must be a sequence of names")
        names = list(players)
        if len(names) < 3:
            raise IllegalChouetteActionError(
                f"R24: a chouette needs 3 or more players, got {len(names)}"
            )
        for p in names:
            if not isinstance(p, str) or not p.strip():
                raise IllegalChouetteActionError(f"player names must be non-empty str: {shown(p)}")
            if not _is_utf8(p):
                # A save is UTF-8 text: such a name made the chouette unsavable.
                raise IllegalChouetteActionError(
                    f"player names must be text UTF-8 can hold (no lone surrogate): {shown(p)}"
                )
        if len(set(names)) != len(names):
            raise IllegalChouetteActionError(f"player names must be distinct: {names}")
        if not _is_one_of(form, FORMS):
            raise IllegalChouetteActionError(f"unknown form {shown(form)}; choose one of {FORMS}")
        flags: dict[str, bool] = {}
        for opt, value in (
            ("jacoby", jacoby),
            ("gammons", gammons),
            ("backgammon_counts_double", backgammon_counts_double),
        ):
            try:  # numpy booleans are kept as the bools they stand for: a chouette is saved
                flags[opt] = check_flag(opt, value)
            except MatchOptionError:
                raise IllegalChouetteActionError(
                    f"option {opt} must be a bool, not {shown(value)}"
                ) from None
        jacoby, gammons = flags["jacoby"], flags["gammons"]
        backgammon_counts_double = flags["backgammon_counts_double"]
        if rolls is not None and rng is not None:
            raise IllegalChouetteActionError("give rolls or rng for the roll-off, not both")
        if rolls is None:
            generator = rng if isinstance(rng, random.Random) else random.Random(_seed(rng))
            rolled: Mapping[str, object] = roll_off(names, generator)
        else:
            if not isinstance(rolls, Mapping):
                raise IllegalChouetteActionError("rolls must map each player to their dice")
            rolled = rolls
        order, dice = _seat_order(names, rolled)

        self._players = tuple(names)
        self._form: Form = form
        # Saved files keep the option's first name.
        self._options = {
            "jacoby": jacoby,
            "gammons": gammons,
            "backgammon_as_double": backgammon_counts_double,
        }
        self._rules = Rules(jacoby=jacoby, backgammon_counts_double=backgammon_counts_double)
        self._box = order[0]
        self._queue = order[1:]
        self._game: _Game | None = None
        self._ledger: list[GameRecord] = []
        self._balances = {p: 0 for p in names}
        self._history: list[dict[str, Any]] = [
            {"type": "seat", "rolls": {p: list(dice[p]) for p in names}}
        ]

    # ----------------------------------------------------------------- read-only state

    @property
    def players(self) -> tuple[str, ...]:
        """The players in the order given."""
        return self._players

    @property
    def form(self) -> Form:
        """``"team-cube"`` or ``"per-member-cubes"``."""
        return self._form

    @property
    def options(self) -> dict[str, bool]:
        """The money options as saved: ``jacoby``, ``gammons`` and ``backgammon_as_double``
        (the first name of :attr:`rules`' ``backgammon_counts_double``)."""
        return dict(self._options)

    @property
    def rules(self) -> Rules:
        """The scoring options as :class:`~bgfast.Rules`: ``jacoby`` and
        ``backgammon_counts_double`` (``gammons=False`` is the chouette's own)."""
        return self._rules

    @property
    def game(self) -> Game | None:
        """A copy of the board of the game in progress, the box player 0 and the team
        player 1; ``None`` between games.

        Each read is a new, independent :class:`~bgfast.Game`: acting on it (``roll``,
        ``play``, ``resign``, ...) changes the copy only, never the chouette, whose board
        moves only through :meth:`roll`, :meth:`move`, :meth:`commit`, :meth:`play` and
        whose game ends only through the chouette (:meth:`resign`, the doubles,
        :meth:`end_game`). Its own cube is out of play (the chouette keeps the cubes)."""
        if self._game is None:
            return None
        return self._game.board.copy()

    @property
    def box(self) -> str:
        """The player in the box (R24)."""
        return self._box

    @property
    def captain(self) -> str:
        """The captain: the first in the team queue (for the game in progress, the seated one)."""
        return self._queue[0]

    @property
    def queue(self) -> tuple[str, ...]:
        """The team in queue order, captain first (R24)."""
        return tuple(self._queue)

    @property
    def in_game(self) -> bool:
        """Whether a game is in progress."""
        return self._game is not None

    @property
    def acting_captain(self) -> str:
        """Who moves for the team now (after a replacement, not the seated captain)."""
        return self._game.acting_captain if self._game is not None else self.captain

    @property
    def active_members(self) -> tuple[str, ...]:
        """Team members still in the game in progress, in queue order (empty between games)."""
        return tuple(self._game.active) if self._game is not None else ()

    def cube(self, member: str | None = None) -> Cube:
        """The cube of ``member`` in the game in progress.

        In the team-cube form every member shares the team cube and ``member`` may be omitted.

        Raises:
            IllegalChouetteActionError: no game in progress, or not an active member.
        """
        game = self._require_game("cube")
        if member is None:
            if self._form != "team-cube":
                raise IllegalChouetteActionError(
                    "cube: name the member: in the per-member-cubes form each member has a cube"
                )
            return Cube.of(game.team_cube)
        self._require_active(game, member, "cube")
        return Cube.of(game.cube_of(member))

    def members_box_may_double(self) -> tuple[str, ...]:
        """Members whose cube the box may turn now (R17; with the board in play, only before
        the box rolls, R18); empty between games.

        In the team-cube form this is every active member or nobody.
        """
        game = self._game
        if game is None or self._why_not_now(game, "box") is not None:
            return ()
        return tuple(m for m in game.active if Cube.of(game.cube_of(m)).may_double("box"))

    def members_who_may_double(self) -> tuple[str, ...]:
        """Members whose cube the team side may turn now (R17; with the board in play, only
        before the team rolls, R18); empty between games.

        In the team-cube form this is every active member (who must all agree, R26) or nobody.
        """
        game = self._game
        if game is None or self._why_not_now(game, "team") is not None:
            return ()
        return tuple(m for m in game.active if Cube.of(game.cube_of(m)).may_double("team"))

    @property
    def ledger(self) -> tuple[GameRecord, ...]:
        """Every finished game, oldest first."""
        return tuple(self._ledger)

    @property
    def balances(self) -> dict[str, int]:
        """Each player's running balance in points; the values always sum to zero."""
        return dict(self._balances)

    @property
    def history(self) -> tuple[dict[str, Any], ...]:
        """Every event, oldest first, as JSON-ready dicts (copies).

        Event types: ``seat`` (each player's roll-off dice), ``start``, ``team_double``
        (who agreed, the box's answer), ``member_double`` (the member, the box's answer),
        ``box_double`` (each doubled member's answer), ``resign`` (the side that resigned,
        the kind and each member's answer or the box's answer to each member, ``accept``
        or ``reject``), the board's ``roll`` (the dice),
        ``move`` (the move text), ``undo`` and ``commit``, ``end`` (winner, kind and each
        remaining member's cube at the end, for a game played on a real board) and
        ``settle`` (the finished game's payment per player; derived from the others and
        checked when the history is replayed).
        """
        return tuple(copy.deepcopy(self._history))

    # ----------------------------------------------------------------- actions

    def start_game(self) -> None:
        """Start the next game: the box against the whole team, every cube at 1 in the middle.

        Raises:
            IllegalChouetteActionError: a game is already in progress.
        """
        if self._game is not None:
            raise IllegalChouetteActionError(
                f"start_game: game {len(self._ledger) + 1} is in progress; end it before "
                "starting another"
            )
        self._game = _Game(self._form, self._box, self._queue)
        self._history.append({"type": "start"})

    def team_double(self, agreeing: Collection[str], answer: Answer) -> GameRecord | None:
        """The team doubles the box in the team-cube form (R26); the box answers (R19).

        ``agreeing`` names the members who agree; it must be every member still in the game.
        On a take the cube doubles and goes to the box. On a pass the box pays every active
        member the stake before the double and the team wins the game; the finished game's
        record is returned.

        Raises:
            IllegalChouetteActionError: not the team-cube form, no game in progress, the team
                may not turn the cube (R17) or it is at the cube limit (32768), not everyone
                agrees (R26), or a bad answer.
        """
        game = self._require_game("team_double")
        if self._form != "team-cube":
            raise IllegalChouetteActionError(
                "team_double: the team-cube form's double; in the per-member-cubes form each "
                "member doubles alone with member_double"
            )
        self._check_now(game, "team", "team_double")
        agreed = self._member_set(game, agreeing, "agreeing", "team_double")
        if game.team_cube.owner == BOX:
            raise IllegalChouetteActionError(
                "team_double: R17: the box owns the team cube; the team may not double"
            )
        _check_limit(game.team_cube, "the team cube", "team_double")
        if agreed != set(game.active):
            missing = [m for m in game.active if m not in agreed]
            raise IllegalChouetteActionError(
                f"team_double: R26: a team double needs every team member to agree; "
                f"not agreeing: {missing}"
            )
        self._check_answer(answer, "team_double")
        self._history.append(
            {"type": "team_double", "agreeing": [m for m in game.active], "answer": answer}
        )
        game.off_board |= not game.board_in_play
        if answer == "take":
            game.team_cube = game.team_cube.taken(BOX)
            return None
        for m in list(game.active):
            self._leave(game, m, "box passed")
        self._replace_captain(game)
        return self._finish_if_empty(game)

    def member_double(self, member: str, answer: Answer) -> GameRecord | None:
        """A member doubles the box on their own cube (per-member-cubes form); the box answers.

        On a take the member's cube doubles and goes to the box. On a pass the box pays the
        member the stake before the double and the member's game is over (R19); if they were
        acting captain, the next member still in takes over. Returns the game's record if
        nobody is left.

        Raises:
            IllegalChouetteActionError: not the per-member-cubes form, no game in progress,
                not an active member, the member may not turn their cube (R17) or it is at the
                cube limit (32768), or a bad answer.
        """
        game = self._require_game("member_double")
        if self._form != "per-member-cubes":
            raise IllegalChouetteActionError(
                "member_double: the per-member-cubes form's double; in the team-cube form "
                "the team doubles together with team_double (R26)"
            )
        self._check_now(game, "team", "member_double")
        self._require_active(game, member, "member_double")
        if game.cubes[member].owner == BOX:
            raise IllegalChouetteActionError(
                f"member_double: R17: the box owns {member}'s cube; {member} may not double"
            )
        _check_limit(game.cubes[member], f"{member}'s cube", "member_double")
        self._check_answer(answer, "member_double")
        self._history.append({"type": "member_double", "member": member, "answer": answer})
        game.off_board |= not game.board_in_play
        if answer == "take":
            game.cubes[member] = game.cubes[member].taken(BOX)
            return None
        self._leave(game, member, "box passed")
        self._replace_captain(game)
        return self._finish_if_empty(game)

    def box_double(self, answers: Mapping[str, Answer]) -> GameRecord | None:
        """The box doubles; each doubled member takes or passes alone (R27).

        ``answers`` maps each doubled member to ``"take"`` or ``"pass"``. In the team-cube form
        the box doubles the team cube, so every active member must answer; in the
        per-member-cubes form the box may double any members whose cube it may turn. A member
        who passes pays the box the stake before the double and leaves the game; if the acting
        captain passes, the next member still in (in queue order) becomes acting captain. Those
        who take play on for the doubled stake, owning their cube. Returns the game's record if
        everyone passed (the box wins), else ``None``.

        Raises:
            IllegalChouetteActionError: no game in progress, no answers, an answer from someone
                not doubled or not in the game, a cube the box may not turn (R17) or one at the
                cube limit (32768), a missing
                answer in the team-cube form, or a bad answer.
        """
        game = self._require_game("box_double")
        self._check_now(game, "box", "box_double")
        if not isinstance(answers, Mapping) or not answers:
            raise IllegalChouetteActionError(
                "box_double: R27: the box's double needs each doubled member's answer"
            )
        doubled = self._member_set(game, answers.keys(), "answers", "box_double")
        for m in game.active:
            what = "the team cube" if self._form == "team-cube" else f"{m}'s cube"
            if m in doubled and game.cube_of(m).owner == TEAM:
                raise IllegalChouetteActionError(
                    f"box_double: R17: the team owns {what}; the box may not double it"
                )
            if m in doubled:
                _check_limit(game.cube_of(m), what, "box_double")
        if self._form == "team-cube" and doubled != set(game.active):
            missing = [m for m in game.active if m not in doubled]
            raise IllegalChouetteActionError(
                f"box_double: R27: the box doubles the team cube, so every member answers "
                f"alone; no answer from {missing}"
            )
        for a in answers.values():
            self._check_answer(a, "box_double")
        ordered = {m: answers[m] for m in game.active if m in doubled}
        self._history.append({"type": "box_double", "answers": dict(ordered)})
        game.off_board |= not game.board_in_play
        old = {m: game.cube_of(m) for m in ordered}
        for m, a in ordered.items():
            if a == "pass":
                self._leave(game, m, "passed")
        takers = [m for m, a in ordered.items() if a == "take"]
        for m in takers:
            game.set_cube(m, old[m].taken(TEAM))
        self._replace_captain(game)
        return self._finish_if_empty(game)

    def end_game(
        self, winner: Side, kind: Kind = "single", cubes: Mapping[str, int] | None = None
    ) -> GameRecord:
        """Record the result of a game played out on a real board, settle it (R28) and
        rotate seats (R25). (A game played here ends by itself when a side bears off.)

        ``winner`` is the side that bore off first and ``kind`` how (R16). ``cubes``, if
        given, is each active member's cube value at the end as the table saw it; it must
        match the cubes recorded here. Each member still in is paid by the box (team won) or
        pays the box (box won) their cube value times the game's multiplier: 1, 2 for a gammon,
        3 for a backgammon (2 with ``backgammon_counts_double``; 1 if ``gammons`` is off, or
        with ``jacoby`` while that member's cube was never turned, R23).

        Raises:
            IllegalChouetteActionError: no game in progress, the board played here (its
                bear-off decides, R15), an unknown side or kind, or ``cubes`` that disagree
                with the recorded cubes.
        """
        game = self._require_game("end_game")
        if game.board_in_play:
            raise IllegalChouetteActionError(
                "end_game: R15: this game's board is played here, so it ends when a side bears "
                "off its last checker (or by passes and resignations, resign); end_game "
                "records a game played on a real board"
            )
        if not _is_one_of(winner, _SIDES):
            raise IllegalChouetteActionError(
                f"end_game: winner must be 'box' or 'team', not {shown(winner)}"
            )
        _check_kind(kind, "end_game")
        if cubes is not None:
            if not isinstance(cubes, Mapping):
                raise IllegalChouetteActionError(
                    "end_game: cubes must map each active member to a value"
                )
            recorded = {m: game.cube_of(m).value for m in game.active}
            if dict(cubes) != recorded:
                raise IllegalChouetteActionError(
                    f"end_game: R28: end-of-game cubes {shown(dict(cubes))} disagree with the "
                    f"recorded cubes {recorded}"
                )
        self._history.append(
            {
                "type": "end",
                "winner": winner,
                "kind": kind,
                "cubes": {m: game.cube_of(m).value for m in game.active},
            }
        )
        return self._settle_played(game, winner, kind)

    def _settle_played(self, game: _Game, winner: Side, kind: Kind) -> GameRecord:
        """Settle a game played out (R28): each member still in is paid or pays their
        cube times the game's multiplier."""
        for m in list(game.active):
            cube = game.cube_of(m)
            points = cube.value * self._multiplier(kind, cube)
            won = winner == "team"
            game.results[m] = MemberResult(
                m, cube.value, "won" if won else "lost", points if won else -points
            )
        game.active.clear()
        return self._finish(game, winner, kind)

    def resign(
        self, side: Side, answers: Mapping[str, ResignAnswer], kind: Kind = "single"
    ) -> GameRecord | None:
        """A resignation of a single game, a gammon or a backgammon (``kind``) between the
        box and the team members named in ``answers``, offered and answered at once.

        ``side`` is the side that resigns:

        * ``"box"``: the box resigns to the members named, and each answers alone, as each
          answers the box's double (R27): ``answers`` maps each to ``"accept"`` or
          ``"reject"``. The box may resign to any of the members still in (all of them, the
          usual case, or some).
        * ``"team"``: each member named resigns their own game (a member's stake is theirs to
          concede: the captain moves the checkers for the team but concedes nobody else's
          stake), and ``answers`` maps each to the box's answer.

        An accepted resignation ends that member's game, settled as a game won or lost by
        ``kind`` (R28): the member's cube times the multiplier (1, 2 for a gammon, 3 for a
        backgammon, with the ``jacoby``, ``gammons`` and ``backgammon_counts_double``
        options, R16, R23), entered in the ledger and the balances when the game ends, as a
        pass is. A rejected one settles nothing: play goes on where it stood (the event is
        still recorded; before any roll, it still makes the game one played on a real
        board, below). Who leaves, leaves as a member who passed does: the
        next member still in becomes acting captain, and once nobody is left the game is
        over (won by the team if the box resigned, else by the box), seats rotate (R25) and
        its record is returned; otherwise ``None``.

        The board may be anywhere in play: on roll, or with dice to play (a staged move
        stays staged). A resignation before anything was rolled here, accepted or not,
        records a game played on a real board, as a double does (nothing comes before the
        opening roll, R3): its rolls are not made here, and ``end_game`` records its end.

        Raises:
            IllegalChouetteActionError: no game in progress, the board at a tied opening roll
                (R3), an unknown side or kind (R16), no answers, an answer from someone not in
                the game, or an answer that is not ``"accept"`` or ``"reject"``.
        """
        game = self._require_game("resign")
        if not _is_one_of(side, _SIDES):
            raise IllegalChouetteActionError(
                f"resign: side must be 'box' or 'team' (who resigns), not {shown(side)}"
            )
        _check_kind(kind, "resign")
        if game.board_in_play and game.board.phase == "opening":
            raise IllegalChouetteActionError(
                "resign: R3: nobody may resign before the game starts (the board is at its "
                "opening roll)"
            )
        if not isinstance(answers, Mapping) or not answers:
            who = "each member's answer" if side == "box" else "the box's answer to each member"
            raise IllegalChouetteActionError(f"resign: R28: a resignation needs {who}")
        named = self._member_set(game, answers.keys(), "answers", "resign")
        for a in answers.values():
            if not _is_one_of(a, _RESIGN_ANSWERS):
                raise IllegalChouetteActionError(
                    f"resign: answer 'accept' or 'reject', not {shown(a)}"
                )
        ordered = {m: answers[m] for m in game.active if m in named}
        self._history.append({"type": "resign", "side": side, "kind": kind, "answers": ordered})
        game.off_board |= not game.board_in_play
        outcome: MemberOutcome = "box resigned" if side == "box" else "resigned"
        accepted = [m for m, a in ordered.items() if a == "accept"]
        for m in accepted:
            self._leave(game, m, outcome, kind)
        self._replace_captain(game)
        return self._finish_if_empty(game, kind if accepted else None)

    # ----------------------------------------------------------------- the board

    def roll(self, dice: int | Roll | None = None, d2: int | None = None) -> tuple[int, int]:
        """Roll the board's dice, or record dice rolled by hand (one pair or two ints, as
        :meth:`bgfast.Game.roll` takes them). The opening roll is ``(the box's die, the
        team's die)`` (R3). Returns the dice.

        Raises:
            IllegalChouetteActionError: no game in progress, a game whose doubles or
                resignations came before any roll (one played on a real board, R18), or a
                roll the board refuses now (where :meth:`bgfast.Game.roll` raises
                ``GameStateError``; this is one too), naming the box and the team.
            InvalidDiceError: as :meth:`bgfast.Game.roll`.
        """
        game = self._require_game("roll")
        if game.off_board:
            raise IllegalChouetteActionError(
                "roll: R18: this game's doubles or resignations came before any roll, so it is "
                "played on a real board (nothing comes before the opening roll, R3); record "
                "its end with end_game"
            )
        if dice is None and d2 is None:
            rolled = (secrets.randbelow(6) + 1, secrets.randbelow(6) + 1)
        else:
            rolled = check_dice(dice, d2)
        _on_board("roll", game.board.roll, rolled)
        self._history.append({"type": "roll", "dice": list(rolled)})
        return rolled

    def move(self, move: Move | str) -> None:
        """Make (stage) the side on roll's move on the board (the acting captain moves for
        the team); it may be undone until :meth:`commit` (R29). Checked as
        :meth:`bgfast.Game.move` checks it.

        Raises:
            IllegalChouetteActionError: no game in progress, or no move is due on the board
                (where :meth:`bgfast.Game.move` raises ``GameStateError``; this is one too).
            IllegalMoveError, InvalidMoveError: as :meth:`bgfast.Game.move`.
        """
        self._stage(move, "move")

    def _stage(self, move: Move | str, action: str) -> None:
        game = self._require_game(action)
        _on_board(action, game.board.move, move)
        self._history.append({"type": "move", "move": game.board.staged_move})

    def undo(self) -> None:
        """Take back the staged move (R29).

        Raises:
            IllegalChouetteActionError: no game in progress, or no move staged (R29).
        """
        game = self._require_game("undo")
        _on_board("undo", game.board.undo)
        self._history.append({"type": "undo"})

    def commit(self) -> GameRecord | None:
        """Commit the staged move (R29). If it bore off the mover's last checker the game is
        over (R15): it is settled for its kind (R16, R28), seats rotate (R25) and the
        finished game's record is returned.

        Raises:
            IllegalChouetteActionError: no game in progress, or no move staged (R29).
        """
        game = self._require_game("commit")
        _on_board("commit", game.board.commit)
        self._history.append({"type": "commit"})
        result = game.board.result
        if result is None:
            return None
        return self._settle_played(game, "box" if result.winner == BOX else "team", result.kind)

    def play(self, move: Move | str) -> GameRecord | None:
        """:meth:`move` then :meth:`commit`; changes nothing if the move is refused (the
        refusals name ``play``)."""
        self._stage(move, "play")
        return self.commit()

    def _why_not_now(self, game: _Game, side: Side) -> str | None:
        """Why ``side`` may not double now on the board (R18), or ``None``. A game whose
        board is not played here (recorded from a real board) has no turns to follow."""
        if not game.board_in_play:
            return None
        board = game.board
        if board.phase != "roll":
            return (
                f"R18: a double comes at the start of one's own turn, before rolling; "
                f"{_board_situation(board)}"
            )
        if board.turn != _PLAYER[side]:
            other = "team" if side == "box" else "box"
            return f"R18: the {side} doubles only on its own turn; the {other} is on roll"
        return None

    def _check_now(self, game: _Game, side: Side, action: str) -> None:
        reason = self._why_not_now(game, side)
        if reason is not None:
            raise IllegalChouetteActionError(f"{action}: {reason}")

    # ----------------------------------------------------------------- persistence

    def to_dict(self) -> dict[str, Any]:
        """The whole chouette as a JSON-ready record: settings, history, state, ledger and
        balances (:meth:`to_json` adds the checksum). :meth:`from_dict` rebuilds it exactly;
        ``from_json(c.to_json()).to_json() == c.to_json()``."""
        return self._document()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chouette:
        """Rebuild a chouette from :meth:`to_dict` data (or a saved file's, without its
        checksum) by replaying the history; the replayed state, ledger and balances must
        equal the saved ones.

        Raises:
            ChouetteFileError: not a bgfast chouette, a history that breaks the rules, or a
                saved state that differs from the replayed one.
        """
        with damaged("chouette file", ChouetteFileError):
            if not isinstance(data, dict) or data.get("format") != _FILE_FORMAT:
                raise ChouetteFileError("not a saved chouette")
            if data.get("version") != _FILE_VERSION:
                raise ChouetteFileError(
                    f"unsupported chouette file version {shown(data.get('version'))}"
                )
            return cls._from_document(data)

    @classmethod
    def _from_document(cls, document: dict[str, Any]) -> Chouette:
        options = document["options"]
        if not isinstance(options, dict):
            raise ChouetteFileError(f"malformed chouette file: options {options!r}")
        try:
            rebuilt = cls.from_history(
                document["players"], document["form"], document["history"], **options
            )
        except (KeyError, TypeError, AttributeError) as e:
            raise ChouetteFileError(f"malformed chouette file: {e!r}") from None
        except ChouetteError as e:
            raise ChouetteFileError(f"chouette file history is not legal: {e}") from None
        expected = rebuilt._document()
        differing = sorted(
            k
            for k in set(expected) | set(document)
            if not same_json(expected.get(k), document.get(k))
        )
        if differing:
            raise ChouetteFileError(
                f"chouette file does not match its own history (fields {differing})"
            )
        return rebuilt

    @classmethod
    def from_history(
        cls,
        players: Sequence[str],
        form: Form,
        history: Iterable[Mapping[str, Any]],
        *,
        jacoby: bool = False,
        gammons: bool = True,
        backgammon_counts_double: bool | None = None,
        backgammon_as_double: bool | None = None,
    ) -> Chouette:
        """Rebuild a chouette by replaying its event history (see :attr:`history`).

        Raises:
            IllegalChouetteActionError: an event that is malformed or breaks the rules.
        """
        events = iter(history)
        first = next(events, None)
        if not isinstance(first, Mapping) or first.get("type") != "seat":
            raise IllegalChouetteActionError("R24: a chouette's history starts with the seating")
        _expect_keys(first, {"type", "rolls"})
        chouette = cls(
            players,
            form,
            rolls=first["rolls"],
            jacoby=jacoby,
            gammons=gammons,
            backgammon_counts_double=backgammon_counts_double,
            backgammon_as_double=backgammon_as_double,
        )
        pending_settle: list[dict[str, Any]] = []
        for event in events:
            if isinstance(event, Mapping) and event.get("type") == "settle":
                # A settle event must be the one the replay itself just produced.
                if not pending_settle or dict(event) != pending_settle.pop(0):
                    raise IllegalChouetteActionError(
                        f"R28: settle event {dict(event)!r} does not match the game's settlement"
                    )
                continue
            if pending_settle:
                raise IllegalChouetteActionError(
                    f"R28: game {pending_settle[0]['game']} ended without its settle event"
                )
            before = len(chouette._history)
            chouette._replay(event)
            pending_settle = [
                copy.deepcopy(e) for e in chouette._history[before:] if e["type"] == "settle"
            ]
        if pending_settle:
            raise IllegalChouetteActionError(
                f"R28: game {pending_settle[0]['game']} ended without its settle event"
            )
        return chouette

    # ----------------------------------------------------------------- dunders

    def copy(self) -> Chouette:
        """An independent copy: the same settings, seats, game in progress (its cubes and
        its board, copied with :meth:`bgfast.Game.copy`), ledger, balances and history, so
        that acting on one never changes the other or its save. No replay is needed: the
        recorded events, ledger entries and cubes are never changed once made, so the
        copies share them and copy only the lists and dicts that hold them."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._options = dict(self._options)
        twin._queue = list(self._queue)
        twin._game = None if self._game is None else self._game.copy()
        twin._ledger = list(self._ledger)
        twin._balances = dict(self._balances)
        twin._history = list(self._history)
        return twin

    def __copy__(self) -> Chouette:
        """``copy.copy(chouette)`` is :meth:`copy`: an independent chouette (a shallow copy
        would share the game in progress, the ledger and the history, so acting on it
        would change this chouette and break its save)."""
        return self.copy()

    def __eq__(self, other: object) -> bool:
        """Chouettes are equal when their settings and histories (hence states) are equal."""
        if not isinstance(other, Chouette):
            return NotImplemented
        return self._document() == other._document()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        """A short summary: form, seats, games played."""
        state = "in game" if self._game is not None else "between games"
        return (
            f"<Chouette {self._form} box={self._box!r} queue={list(self._queue)!r} "
            f"games={len(self._ledger)} {state}>"
        )

    # ----------------------------------------------------------------- internals

    def _require_game(self, action: str) -> _Game:
        """The game in progress, else a refusal of ``action`` that says so."""
        if self._game is None:
            raise IllegalChouetteActionError(
                f"{action}: no game in progress; call start_game() first"
            )
        return self._game

    @staticmethod
    def _require_active(game: _Game, member: object, action: str) -> None:
        if not _is_one_of(member, game.active):
            if _is_one_of(member, (game.box,)):
                raise IllegalChouetteActionError(
                    f"{action}: R24: {shown(member)} is the box, not a team member"
                )
            if _is_one_of(member, game.team):
                raise IllegalChouetteActionError(
                    f"{action}: team member {shown(member)} has left this game"
                )
            raise IllegalChouetteActionError(
                f"{action}: {shown(member)} is not playing in this chouette"
            )

    def _member_set(self, game: _Game, members: Iterable[str], what: str, action: str) -> set[str]:
        if isinstance(members, str) or not isinstance(members, Iterable):
            raise IllegalChouetteActionError(
                f"{action}: {what} must be a collection of member names"
            )
        listed = list(members)
        for m in listed:
            self._require_active(game, m, action)
        if len(set(listed)) != len(listed):
            raise IllegalChouetteActionError(
                f"{action}: {what} names a member twice: {shown(listed)}"
            )
        return set(listed)

    @staticmethod
    def _check_answer(answer: object, action: str) -> None:
        if not _is_one_of(answer, _ANSWERS):
            raise IllegalChouetteActionError(
                f"{action}: R19: answer 'take' or 'pass', not {shown(answer)}"
            )

    def _multiplier(self, kind: Kind, cube: game_cube.Cube) -> int:
        # The one scoring formula (Rules, R16, R23); ``gammons=False`` is the chouette's.
        if not self._options["gammons"]:
            return 1
        return self._rules.multiplier(kind, cube.centred)

    def _leave(
        self, game: _Game, member: str, outcome: MemberOutcome, kind: Kind = "single"
    ) -> None:
        """``member`` leaves the game in progress, settled (R28): a pass at the stake before
        the double (R19, R27), a resignation at the cube times ``kind``'s multiplier."""
        cube = game.cube_of(member)
        points = cube.value
        if outcome in ("resigned", "box resigned"):
            points *= self._multiplier(kind, cube)
        won = outcome in ("box passed", "box resigned")
        game.results[member] = MemberResult(member, cube.value, outcome, points if won else -points)
        game.active.remove(member)
        game.last_left_won = won

    @staticmethod
    def _replace_captain(game: _Game) -> None:
        # Called once per action, after everyone who left in it has left: the next member
        # still in, in queue order, takes over; if nobody is left the last captain stays.
        if game.acting_captain not in game.active and game.active:
            game.acting_captain = game.active[0]

    def _finish_if_empty(self, game: _Game, kind: Kind | None = None) -> GameRecord | None:
        if game.active:
            return None
        # Nobody left on the team side: the box won unless it passed the last double or
        # resigned to the last member.
        winner: Side = "team" if game.last_left_won else "box"
        return self._finish(game, winner, kind)

    def _finish(self, game: _Game, winner: Side, kind: Kind | None) -> GameRecord:
        record = GameRecord(
            number=len(self._ledger) + 1,
            box=game.box,
            captain=game.team[0],
            acting_captain=game.acting_captain,
            team=game.team,
            winner=winner,
            kind=kind,
            members=tuple(game.results[m] for m in game.team),
        )
        self._ledger.append(record)
        for name, points in record.payments.items():
            self._balances[name] += points
        # Derived, not an action: replay checks it against its own settlement.
        self._history.append({"type": "settle", "game": record.number, "payments": record.payments})
        # R25 rotation (see the module docs for the acting-captain convention).
        if winner == "box":
            self._queue = [m for m in game.team if m != record.captain] + [record.captain]
        else:
            self._box = record.acting_captain
            self._queue = [m for m in game.team if m != record.acting_captain] + [game.box]
        self._game = None
        return record

    def _replay(self, event: Mapping[str, Any]) -> None:
        if not isinstance(event, Mapping):
            raise IllegalChouetteActionError(f"history event is not an object: {shown(event)}")
        kind = event.get("type")
        if kind == "start":
            _expect_keys(event, {"type"})
            self.start_game()
        elif kind == "team_double":
            _expect_keys(event, {"type", "agreeing", "answer"})
            self.team_double(event["agreeing"], event["answer"])
        elif kind == "member_double":
            _expect_keys(event, {"type", "member", "answer"})
            self.member_double(event["member"], event["answer"])
        elif kind == "box_double":
            _expect_keys(event, {"type", "answers"})
            self.box_double(event["answers"])
        elif kind == "resign":
            _expect_keys(event, {"type", "side", "kind", "answers"})
            self.resign(event["side"], event["answers"], event["kind"])
        elif kind == "end":
            _expect_keys(event, {"type", "winner", "kind", "cubes"})
            self.end_game(event["winner"], event["kind"], event["cubes"])
        elif kind in _BOARD_EVENTS:
            _expect_keys(event, _BOARD_EVENTS[kind])
            try:
                if kind == "roll":
                    self.roll(event["dice"])
                elif kind == "move":
                    self.move(event["move"])
                elif kind == "undo":
                    self.undo()
                else:
                    self.commit()
            except BgfastError as e:
                raise IllegalChouetteActionError(f"board event {shown(dict(event))}: {e}") from e
        else:
            raise IllegalChouetteActionError(f"unknown history event type {shown(kind)}")

    def _document(self) -> dict[str, Any]:
        return {
            "format": _FILE_FORMAT,
            "version": _FILE_VERSION,
            "players": list(self._players),
            "form": self._form,
            "options": dict(self._options),
            "history": copy.deepcopy(self._history),
            "state": {
                "box": self._box,
                "queue": list(self._queue),
                "game": self._game.snapshot() if self._game is not None else None,
            },
            "ledger": [_record_json(r) for r in self._ledger],
            "balances": dict(self._balances),
        }

    def _invariant_violations(self) -> list[str]:
        """Broken internal invariants (always empty unless bgfast has a bug)."""
        problems: list[str] = []
        if sum(self._balances.values()) != 0:
            problems.append(f"balances sum to {sum(self._balances.values())}")
        if sorted([self._box, *self._queue]) != sorted(self._players):
            problems.append("box and queue are not the players")
        replayed: dict[str, int] = {p: 0 for p in self._players}
        for i, r in enumerate(self._ledger, 1):
            if r.number != i:
                problems.append(f"game {i} numbered {r.number}")
            for name, points in r.payments.items():
                replayed[name] += points
            if sum(r.payments.values()) != 0:
                problems.append(f"game {i} payments do not sum to zero")
        if replayed != self._balances:
            problems.append("balances are not the sum of the ledger")
        game = self._game
        if game is not None:
            if not game.active:
                problems.append("a game in progress with nobody on the team side")
            if game.acting_captain not in game.active:
                problems.append("the acting captain is not in the game")
            if [m for m in game.team if m in game.active] != game.active:
                problems.append("active members out of queue order")
            if set(game.active) & set(game.results):
                problems.append("a member both active and finished")
            if set(game.active) | set(game.results) != set(game.team):
                problems.append("members lost track of")
            for m in game.active:
                c = Cube.of(game.cube_of(m))
                if c.value < 1 or c.value & (c.value - 1):
                    problems.append(f"{m}'s cube {c.value} is not a power of two")
                if (c.value > 1) != c.turned or (c.owner == "center") != (c.value == 1):
                    problems.append(f"{m}'s cube {c} is inconsistent")
        return problems


_BOARD_EVENTS: dict[str, set[str]] = {
    "roll": {"type", "dice"},
    "move": {"type", "move"},
    "undo": {"type"},
    "commit": {"type"},
}


def _board_situation(board: Game) -> str:
    """Where the board stands when no double may come, in the chouette's words (the box
    and the team, not players 0 and 1)."""
    if board.phase == "move":
        assert board.dice is not None
        side = "box" if board.turn == BOX else "team"
        return f"the {side} is to play {board.dice[0]}-{board.dice[1]}"
    if board.phase == "opening":
        return "the board is at its opening roll (R3)"
    return f"the board is in phase {board.phase!r}"  # no other phase waits for a double here


_SEAT_WORDS = {"0": "the box", "1": "the team"}


def _on_board(action: str, call: Callable[..., object], *args: object) -> None:
    """Do ``call(*args)`` on a chouette game's board: a refusal of the board's state is the
    chouette's (an :class:`IllegalChouetteActionError`, also a ``GameStateError``) that
    names ``action``, the sides as the box and the team (not players 0 and 1) and a rule."""
    try:
        call(*args)
    except GameStateError as e:
        text = re.sub(r"^[a-z_]+: ", "", str(e))
        text = re.sub(r"\bplayer ([01])\b", lambda m: _SEAT_WORDS[m.group(1)], text)
        if not re.search(r"\bR\d", text):
            # The board names no rule only where a turn's order is broken: roll, then move.
            text = f"{text[:-1]}; R3)" if text.endswith(")") else f"{text} (R3)"
        raise IllegalChouetteActionError(f"{action}: {text}") from None


def _check_limit(cube: game_cube.Cube, what: str, action: str) -> None:
    if cube.value * 2 > CUBE_LIMIT:
        raise IllegalChouetteActionError(
            f"{action}: R17: cannot double: {what} is at its maximum value {cube.value} "
            f"(the cube limit {CUBE_LIMIT}, as in a Game)"
        )


def _check_kind(kind: object, action: str) -> None:
    if not _is_one_of(kind, _KINDS):
        raise IllegalChouetteActionError(
            f"{action}: R16: kind must be one of {_KINDS}, not {shown(kind)}"
        )


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_one_of(value: object, choices: Collection[str]) -> bool:
    """Whether ``value`` is one of the words ``choices``: a str, so that an object equal
    to every word (a numpy array of one, say) is not taken for one and saved."""
    return isinstance(value, str) and value in choices


def _expect_keys(event: Mapping[str, Any], keys: set[str]) -> None:
    if set(event) != keys:
        raise IllegalChouetteActionError(
            f"history event {dict(event)!r} must have exactly the keys {sorted(keys)}"
        )
