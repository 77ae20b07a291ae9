"""Chouette bookkeeping (R24-R28): seating, rotation, cubes, settlement and the ledger.

A chouette is backgammon for three or more players: "the box" plays alone against a team whose
captain moves the checkers. :class:`Chouette` is a plain state machine that records what
happens at the table; it never moves checkers (play the board with ``bgfast.Game`` or a real
board, then record the result here). Every action is validated first and a rejected action
changes nothing. Everything that happened is kept as an event history, from which the whole
state can be rebuilt, and a ledger of every game with a running balance per player that
always sums to zero.

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

* **Captain replacement.** When the acting captain leaves the game (passes the box's double,
  or, in the per-member form, has a double passed by the box), the next member still in the
  game in queue order becomes acting captain for the rest of that game.
* **The board result.** A game played out is won by the side that bears off first. A game
  that ends because nobody is left on the team side is won by the team if its last member left
  because the box passed their double, otherwise by the box.
* **Rotation (R25).** If the box wins, the box stays and the captain seated for that game goes
  to the end of the team queue. If the team wins, the acting captain at the end (the one who
  beat the box) becomes the box and the old box goes to the end of the queue. Everyone else
  keeps their order.
* **Settlement (R28)** is only ever between a member and the box: a member who passes pays the
  box the stake before the double; a member whose double the box passes is paid that stake;
  at the end of a played game each member still in pays or is paid their cube value times the
  game's multiplier (1, 2 for a gammon, 3 for a backgammon; R16, R23 options below).

Money options (all off by default except gammons): ``jacoby`` (R23: gammons and backgammons
count single on a cube that was never turned, judged per member's cube), ``gammons=False``
(every game counts single) and ``backgammon_as_double`` (R16 option: a backgammon counts 2).
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

from bgfast._core import BgfastError
from bgfast.errors_game import GameStateError, InvalidSaveError, shown
from bgfast.persist import atomic_write_text, damaged, dumps, loads, same_json
from bgfast.scoring import CUBE_LIMIT

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
    "Side",
    "roll_off",
]

Form = Literal["team-cube", "per-member-cubes"]
"""The chouette's cube form: one team cube (the seed's form) or one cube per member."""
Side = Literal["box", "team"]
"""A side of the board."""
Kind = Literal["single", "gammon", "backgammon"]
"""How a played-out game was won (R16)."""
Answer = Literal["take", "pass"]
"""An answer to a double (R19)."""
Owner = Literal["center", "box", "team"]
"""Where a cube stands: in the middle, with the box, or with the team side (the member, in
the per-member form)."""
MemberOutcome = Literal["won", "lost", "passed", "box passed"]
"""How a member's game ended: played out and won or lost, the member passed the box's double,
or the box passed the member's (or the team's) double."""

FORMS: tuple[Form, ...] = ("team-cube", "per-member-cubes")
"""The supported forms."""

_FILE_FORMAT = "bgfast.Chouette"
_FILE_VERSION = 1
# Chouette files have always labelled their digest; game and match files do not.
_CHECKSUM_PREFIX = "sha256:"
_KINDS: tuple[Kind, ...] = ("single", "gammon", "backgammon")
_SIDES: tuple[Side, ...] = ("box", "team")
_ANSWERS: tuple[Answer, ...] = ("take", "pass")


class ChouetteError(BgfastError):
    """Base class of the errors raised by :class:`Chouette` (a ``ValueError``)."""


class IllegalChouetteActionError(ChouetteError, GameStateError):
    """An action the chouette rules (R24-R28) or the current state forbid; nothing changed.

    Also a :class:`~bgfast.GameStateError`, the class a :class:`~bgfast.Game` raises for
    an action its state does not allow (a double beyond the cube limit, for one)."""


class ChouetteFileError(ChouetteError, InvalidSaveError):
    """A saved chouette that is malformed, inconsistent with its own history, or tampered.

    Also an :class:`~bgfast.InvalidSaveError`, like every damaged save."""


@dataclass(frozen=True)
class Cube:
    """A cube's value and where it stands (R17). ``turned`` is whether it was ever doubled."""

    value: int
    """The stake it carries, in points (1 until the first double)."""
    owner: Owner
    """Who may turn it next: ``"center"`` (either side), ``"box"`` or ``"team"``."""
    turned: bool = False
    """Whether it was doubled and taken in this game (for the Jacoby rule, R23)."""

    def doubled(self, new_owner: Owner) -> Cube:
        """The cube after a take: twice the value, on the taker's side."""
        return Cube(self.value * 2, new_owner, True)

    def may_double(self, side: Side) -> bool:
        """Whether ``side`` may turn this cube (R17: in the middle, or owned by that side,
        and below the cube limit a Game has too, ``bgfast.scoring.CUBE_LIMIT``)."""
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
    """How a played-out game was won; ``None`` when it ended because every member left."""
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


def _seat_order(players: Sequence[str], rolls: Mapping[str, Sequence[int]]) -> list[str]:
    """The seating order from a roll-off, or IllegalChouetteActionError naming what is wrong."""
    if set(rolls) != set(players):
        missing = sorted(set(players) - set(rolls))
        extra = sorted(shown(r) for r in set(rolls) - set(players))
        raise IllegalChouetteActionError(
            f"R24: every player rolls for seats; missing {missing}, not playing {extra}"
        )
    dice: dict[str, tuple[int, ...]] = {}
    for p in players:
        seq = rolls[p]
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence) or len(seq) == 0:
            raise IllegalChouetteActionError(f"R24: {p!r} must roll at least one die")
        for d in seq:
            if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6:
                raise IllegalChouetteActionError(f"R24: {p!r} rolled {shown(d)}, not a die 1..6")
        dice[p] = tuple(seq)
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
    return sorted(players, key=lambda p: dice[p], reverse=True)


class _Game:
    """The mutable state of the game in progress (internal)."""

    def __init__(self, form: Form, box: str, team: Sequence[str]) -> None:
        self.box = box
        self.team = tuple(team)
        self.active = list(team)
        self.acting_captain = team[0]
        self.team_cube = Cube(1, "center")
        self.cubes = {m: Cube(1, "center") for m in team}
        self.form = form
        self.results: dict[str, MemberResult] = {}
        # Whether the last member to leave did so because the box passed their double.
        self.last_left_by_box_pass = False

    def cube_of(self, member: str) -> Cube:
        return self.team_cube if self.form == "team-cube" else self.cubes[member]

    def set_cube(self, member: str, cube: Cube) -> None:
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
            "cubes": {m: _cube_json(self.cube_of(m)) for m in self.team if m not in self.results},
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


class Chouette:
    """A chouette's state and history: seats, the game in progress, the ledger and balances.

    ``Chouette(players, form)`` seats the players by roll-off (R24): pass ``rolls`` (each
    player's dice in the order rolled, ties rolled again) to record a real roll-off, or an
    ``rng`` to roll here. Then, for each game: :meth:`start_game`, any doubles
    (:meth:`team_double`, :meth:`member_double`, :meth:`box_double`), and :meth:`end_game`
    unless everyone left by passing. Seats rotate after each game (R25).

    >>> c = Chouette(["Ann", "Bob", "Cy"], rolls={"Ann": 6, "Bob": 4, "Cy": 2})
    >>> c.box, c.captain, c.queue
    ('Ann', 'Bob', ('Bob', 'Cy'))
    >>> c.start_game()
    >>> c.end_game("team", "gammon").payments
    {'Ann': -4, 'Bob': 2, 'Cy': 2}
    >>> c.box, c.queue
    ('Bob', ('Cy', 'Ann'))
    """

    def __init__(
        self,
        players: Sequence[str],
        form: Form = "team-cube",
        *,
        rolls: Mapping[str, _Roll] | None = None,
        rng: random.Random | int | None = None,
        jacoby: bool = False,
        gammons: bool = True,
        backgammon_as_double: bool = False,
    ) -> None:
        """Seat ``players`` (3 or more distinct names) by roll-off for a chouette of ``form``.

        Raises:
            IllegalChouetteActionError: fewer than 3 players, duplicate or empty names, an
                unknown form or option, or a roll-off that breaks R24.
        """
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
        if len(set(names)) != len(names):
            raise IllegalChouetteActionError(f"player names must be distinct: {names}")
        if form not in FORMS:
            raise IllegalChouetteActionError(f"unknown form {shown(form)}; choose one of {FORMS}")
        for opt, value in (
            ("jacoby", jacoby),
            ("gammons", gammons),
            ("backgammon_as_double", backgammon_as_double),
        ):
            if not isinstance(value, bool):
                raise IllegalChouetteActionError(f"option {opt} must be a bool, not {shown(value)}")
        if rolls is not None and rng is not None:
            raise IllegalChouetteActionError("give rolls or rng for the roll-off, not both")
        if rolls is None:
            generator = rng if isinstance(rng, random.Random) else random.Random(rng)
            dice: Mapping[str, Sequence[int]] = roll_off(names, generator)
        else:
            if not isinstance(rolls, Mapping):
                raise IllegalChouetteActionError("rolls must map each player to their dice")
            dice = {p: (d,) if isinstance(d, int) else d for p, d in rolls.items()}
        order = _seat_order(names, dice)

        self._players = tuple(names)
        self._form: Form = form
        self._options = {
            "jacoby": jacoby,
            "gammons": gammons,
            "backgammon_as_double": backgammon_as_double,
        }
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
        """The money options: ``jacoby``, ``gammons``, ``backgammon_as_double``."""
        return dict(self._options)

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
        game = self._require_game()
        if member is None:
            if self._form != "team-cube":
                raise IllegalChouetteActionError(
                    "name the member: in the per-member-cubes form each member has a cube"
                )
            return game.team_cube
        self._require_active(game, member)
        return game.cube_of(member)

    def members_box_may_double(self) -> tuple[str, ...]:
        """Members whose cube the box may turn now (R17); empty between games.

        In the team-cube form this is every active member or nobody.
        """
        game = self._game
        if game is None:
            return ()
        return tuple(m for m in game.active if game.cube_of(m).may_double("box"))

    def members_who_may_double(self) -> tuple[str, ...]:
        """Members whose cube the team side may turn now (R17); empty between games.

        In the team-cube form this is every active member (who must all agree, R26) or nobody.
        """
        game = self._game
        if game is None:
            return ()
        return tuple(m for m in game.active if game.cube_of(m).may_double("team"))

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
        ``box_double`` (each doubled member's answer), ``end`` (winner, kind and each
        remaining member's cube at the end) and ``settle`` (the finished game's payment per
        player; derived from the others and checked when the history is replayed).
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
                f"game {len(self._ledger) + 1} is in progress; end it before starting another"
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
        game = self._require_game()
        if self._form != "team-cube":
            raise IllegalChouetteActionError(
                "team_double is the team-cube form's double; in the per-member-cubes form each "
                "member doubles alone with member_double"
            )
        agreed = self._member_set(game, agreeing, "agreeing")
        if game.team_cube.owner == "box":
            raise IllegalChouetteActionError("R17: the box owns the cube; the team may not double")
        _check_limit(game.team_cube, "the team cube")
        if agreed != set(game.active):
            missing = [m for m in game.active if m not in agreed]
            raise IllegalChouetteActionError(
                f"R26: a team double needs every team member to agree; not agreeing: {missing}"
            )
        self._check_answer(answer)
        self._history.append(
            {"type": "team_double", "agreeing": [m for m in game.active], "answer": answer}
        )
        if answer == "take":
            game.team_cube = game.team_cube.doubled("box")
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
        game = self._require_game()
        if self._form != "per-member-cubes":
            raise IllegalChouetteActionError(
                "member_double is the per-member-cubes form's double; in the team-cube form "
                "the team doubles together with team_double (R26)"
            )
        self._require_active(game, member)
        if game.cubes[member].owner == "box":
            raise IllegalChouetteActionError(
                f"R17: the box owns {member}'s cube; {member} may not double"
            )
        _check_limit(game.cubes[member], f"{member}'s cube")
        self._check_answer(answer)
        self._history.append({"type": "member_double", "member": member, "answer": answer})
        if answer == "take":
            game.cubes[member] = game.cubes[member].doubled("box")
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
        game = self._require_game()
        if not isinstance(answers, Mapping) or not answers:
            raise IllegalChouetteActionError(
                "R27: the box's double needs each doubled member's answer"
            )
        doubled = self._member_set(game, answers.keys(), "answers")
        for m in game.active:
            if m in doubled and game.cube_of(m).owner == "team":
                raise IllegalChouetteActionError(
                    f"R17: the team side owns {m}'s cube; the box may not double it"
                )
            if m in doubled:
                _check_limit(game.cube_of(m), f"{m}'s cube")
        if self._form == "team-cube" and doubled != set(game.active):
            missing = [m for m in game.active if m not in doubled]
            raise IllegalChouetteActionError(
                f"R27: the box doubles the team cube, so every member answers alone; "
                f"no answer from {missing}"
            )
        for a in answers.values():
            self._check_answer(a)
        ordered = {m: answers[m] for m in game.active if m in doubled}
        self._history.append({"type": "box_double", "answers": dict(ordered)})
        old = {m: game.cube_of(m) for m in ordered}
        for m, a in ordered.items():
            if a == "pass":
                self._leave(game, m, "passed")
        takers = [m for m, a in ordered.items() if a == "take"]
        for m in takers:
            game.set_cube(m, old[m].doubled("team"))
        self._replace_captain(game)
        return self._finish_if_empty(game)

    def end_game(
        self, winner: Side, kind: Kind = "single", cubes: Mapping[str, int] | None = None
    ) -> GameRecord:
        """Record the result of a game played out, settle it (R28) and rotate seats (R25).

        ``winner`` is the side that bore off first and ``kind`` how (R16). ``cubes``, if
        given, is each active member's cube value at the end as the table saw it; it must
        match the cubes recorded here. Each member still in is paid by the box (team won) or
        pays the box (box won) their cube value times the game's multiplier: 1, 2 for a gammon,
        3 for a backgammon (2 with ``backgammon_as_double``; 1 if ``gammons`` is off, or with
        ``jacoby`` while that member's cube was never turned, R23).

        Raises:
            IllegalChouetteActionError: no game in progress, an unknown side or kind, or
                ``cubes`` that disagree with the recorded cubes.
        """
        game = self._require_game()
        if winner not in _SIDES:
            raise IllegalChouetteActionError(f"winner must be 'box' or 'team', not {shown(winner)}")
        if kind not in _KINDS:
            raise IllegalChouetteActionError(
                f"R16: kind must be one of {_KINDS}, not {shown(kind)}"
            )
        if cubes is not None:
            if not isinstance(cubes, Mapping):
                raise IllegalChouetteActionError("cubes must map each active member to a value")
            recorded = {m: game.cube_of(m).value for m in game.active}
            if dict(cubes) != recorded:
                raise IllegalChouetteActionError(
                    f"R28: end-of-game cubes {shown(dict(cubes))} disagree with the recorded "
                    f"cubes {recorded}"
                )
        self._history.append(
            {
                "type": "end",
                "winner": winner,
                "kind": kind,
                "cubes": {m: game.cube_of(m).value for m in game.active},
            }
        )
        for m in list(game.active):
            cube = game.cube_of(m)
            points = cube.value * self._multiplier(kind, cube)
            won = winner == "team"
            game.results[m] = MemberResult(
                m, cube.value, "won" if won else "lost", points if won else -points
            )
        game.active.clear()
        return self._finish(game, winner, kind)

    # ----------------------------------------------------------------- persistence

    def to_json(self) -> str:
        """The whole chouette as JSON: settings, history, state, ledger, balances, checksum.

        :meth:`from_json` rebuilds it exactly; ``from_json(c.to_json()).to_json() ==
        c.to_json()``.
        """
        return dumps(self._document(), checksum_prefix=_CHECKSUM_PREFIX, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Chouette:
        """Rebuild a chouette saved by :meth:`to_json`.

        The state is rebuilt by replaying the saved history and must equal the saved state,
        ledger and balances; the checksum must match.

        Raises:
            ChouetteFileError: not JSON, not a bgfast chouette, a bad checksum, a history that
                breaks the rules, or a saved state that differs from the replayed one.
        """
        try:
            document = loads(
                text,
                _FILE_FORMAT,
                expected_version=_FILE_VERSION,
                checksum_prefix=_CHECKSUM_PREFIX,
            )
        except InvalidSaveError as e:
            raise ChouetteFileError(f"not a saved chouette: {e}") from None
        with damaged("chouette file", ChouetteFileError):
            return cls._from_document(document)

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
        backgammon_as_double: bool = False,
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

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` atomically (a temporary file, then ``os.replace``).

        A crash mid-save leaves the old file intact.
        """
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Chouette:
        """Read a chouette written by :meth:`save` (see :meth:`from_json`)."""
        return cls.from_json(Path(path).read_bytes())

    # ----------------------------------------------------------------- dunders

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

    def _require_game(self) -> _Game:
        if self._game is None:
            raise IllegalChouetteActionError("no game in progress: call start_game() first")
        return self._game

    @staticmethod
    def _require_active(game: _Game, member: object) -> None:
        if member not in game.active:
            if member == game.box:
                raise IllegalChouetteActionError(f"{shown(member)} is the box, not a team member")
            if member in game.team:
                raise IllegalChouetteActionError(f"{shown(member)} has left this game")
            raise IllegalChouetteActionError(f"{shown(member)} is not playing in this chouette")

    def _member_set(self, game: _Game, members: Iterable[str], what: str) -> set[str]:
        if isinstance(members, str) or not isinstance(members, Iterable):
            raise IllegalChouetteActionError(f"{what} must be a collection of member names")
        listed = list(members)
        for m in listed:
            self._require_active(game, m)
        if len(set(listed)) != len(listed):
            raise IllegalChouetteActionError(f"{what} names a member twice: {shown(listed)}")
        return set(listed)

    @staticmethod
    def _check_answer(answer: object) -> None:
        if answer not in _ANSWERS:
            raise IllegalChouetteActionError(f"R19: answer 'take' or 'pass', not {shown(answer)}")

    def _multiplier(self, kind: Kind, cube: Cube) -> int:
        if kind == "single" or not self._options["gammons"]:
            return 1
        if self._options["jacoby"] and not cube.turned:
            return 1
        if kind == "gammon" or self._options["backgammon_as_double"]:
            return 2
        return 3

    def _leave(self, game: _Game, member: str, outcome: MemberOutcome) -> None:
        cube = game.cube_of(member)
        # R19/R27: the pass settles at the stake before the double.
        points = cube.value if outcome == "box passed" else -cube.value
        game.results[member] = MemberResult(member, cube.value, outcome, points)
        game.active.remove(member)
        game.last_left_by_box_pass = outcome == "box passed"

    @staticmethod
    def _replace_captain(game: _Game) -> None:
        # Called once per action, after everyone who left in it has left: the next member
        # still in, in queue order, takes over; if nobody is left the last captain stays.
        if game.acting_captain not in game.active and game.active:
            game.acting_captain = game.active[0]

    def _finish_if_empty(self, game: _Game) -> GameRecord | None:
        if game.active:
            return None
        # Nobody left on the team side: the box won unless it passed the last double.
        winner: Side = "team" if game.last_left_by_box_pass else "box"
        return self._finish(game, winner, None)

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
        elif kind == "end":
            _expect_keys(event, {"type", "winner", "kind", "cubes"})
            self.end_game(event["winner"], event["kind"], event["cubes"])
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
                c = game.cube_of(m)
                if c.value < 1 or c.value & (c.value - 1):
                    problems.append(f"{m}'s cube {c.value} is not a power of two")
                if (c.value > 1) != c.turned or (c.owner == "center") != (c.value == 1):
                    problems.append(f"{m}'s cube {c} is inconsistent")
        return problems


def _check_limit(cube: Cube, what: str) -> None:
    if cube.at_limit:
        raise IllegalChouetteActionError(
            f"cannot double: {what} is at its maximum value {cube.value} "
            f"(the cube limit {CUBE_LIMIT}, as in a Game)"
        )


def _expect_keys(event: Mapping[str, Any], keys: set[str]) -> None:
    if set(event) != keys:
        raise IllegalChouetteActionError(
            f"history event {dict(event)!r} must have exactly the keys {sorted(keys)}"
        )
