"""The state of a game of backgammon as one validated, immutable value.

:class:`GameState` is everything a game is at one moment: the board, the cube (value,
owner and settings), the dice, who is on roll, where the game stands (:data:`Phase`), a
pending double or resignation, the result, and the match context (length, score, the
Crawford game, the Holland rule, the scoring rules). It is shakmaty's ``Setup`` and
``Position`` in one: the constructor checks every field and how they fit together, and
raises instead of building a state no game can be in. So a state read from a Match ID, an
XGID, a FIBS board or a saved file (:mod:`bgfast.codec`, :mod:`bgfast.persist`) is a state
that :class:`~bgfast.Game` can play from, and every encoder reads one.

Players are ``0`` and ``1`` (:mod:`bgfast.vocab`). The :attr:`GameState.position` is seen
from :attr:`GameState.turn` (from player 0 before the opening roll), as GNU Backgammon's
Position ID is seen from the player on roll.

>>> from bgfast import GameState
>>> start = GameState.start(match_length=5)
>>> start.phase, start.turn, start.cube.value
('opening', None, 1)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from bgfast._core import InvalidDiceError, Position, check_dice
from bgfast.cube import Cube
from bgfast.errors import GameStateError, InvalidStateError, MatchOptionError, shown
from bgfast.persist import same_json
from bgfast.scoring import HOLLAND_RULE, Rules, crawford_allowed, holland_waits, is_post_crawford
from bgfast.vocab import (
    KINDS,
    OFFERS,
    PHASES,
    PLAYERS,
    REASONS,
    Kind,
    Offer,
    Phase,
    Reason,
    as_int,
    as_int_or_same,
    check_flag,
    check_match_length,
    check_player,
    check_score,
    count_pair,
)

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "FIELDS",
    "CubeOffer",
    "GameResult",
    "GameState",
    "Resignation",
    "cube_of_resignation",
    "situation",
    "why_not",
]

FIELDS: tuple[str, ...] = (
    "rules",
    "match_length",
    "score",
    "crawford",
    "holland",
    "phase",
    "turn",
    "position",
    "dice",
    "cube",
    "offer",
    "resign",
    "result",
    "autos",
    "turns",
)
"""The keys of :meth:`GameState.to_dict`."""

# Phases a game waits in while a resignation is offered (the one it goes back to).
_RESIGNABLE: tuple[Phase, ...] = ("roll", "move", "doubled")


@dataclass(frozen=True)
class GameResult:
    """How a game ended.

    Attributes:
        winner: the player (0 or 1) who won.
        kind: ``single``, ``gammon`` or ``backgammon`` (R16); a dropped cube is ``single``.
        points: what the winner scores: cube value times the kind's multiplier (R16, R23),
            or for a drop the cube value before the double (R19).
        reason: ``bear-off`` (R15), ``drop`` (R19) or ``resign``.
    """

    winner: int
    kind: Kind
    points: int
    reason: Reason

    def __post_init__(self) -> None:
        object.__setattr__(self, "winner", _player(self.winner, "winner"))
        if self.kind not in KINDS:
            raise InvalidStateError(f"a result's kind is one of {KINDS}, not {shown(self.kind)}")
        points = as_int(self.points)
        if points is None or points < 1:
            raise InvalidStateError(f"a result scores a positive int, not {shown(self.points)}")
        object.__setattr__(self, "points", points)
        if self.reason not in REASONS:
            raise InvalidStateError(f"a game ends by one of {REASONS}, not {shown(self.reason)}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_dict`)."""
        return {
            "winner": self.winner,
            "kind": self.kind,
            "points": self.points,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        """The result of :meth:`to_dict` output; :class:`InvalidStateError` otherwise."""
        if not isinstance(data, dict) or set(data) != {"winner", "kind", "points", "reason"}:
            raise InvalidStateError(f"not a game result: {shown(data)}")
        return cls(data["winner"], data["kind"], data["points"], data["reason"])


@dataclass(frozen=True)
class CubeOffer:
    """A cube offer waiting for an answer: a double, beaver or raccoon (R17-R19).

    Attributes:
        doubler: the player who offered the original double (the player on roll).
        value: the cube value if this offer is taken.
        kind: ``double``, ``beaver`` (the doubled player took and redoubled at once) or
            ``raccoon`` (the doubler redoubled the beaver).
    """

    doubler: int
    value: int
    kind: Offer = "double"

    def __post_init__(self) -> None:
        # Numpy integers are kept as ints (a state is saved); the state checks the rest.
        object.__setattr__(self, "doubler", as_int_or_same(self.doubler))
        object.__setattr__(self, "value", as_int_or_same(self.value))

    @property
    def level(self) -> int:
        """0 for a double, 1 for a beaver, 2 for a raccoon."""
        return OFFERS.index(self.kind)

    @property
    def responder(self) -> int:
        """Who answers: the doubled player for a double or a raccoon, the doubler for a
        beaver."""
        return self.doubler if self.kind == "beaver" else 1 - self.doubler


@dataclass(frozen=True)
class Resignation:
    """A resignation waiting for an answer.

    Attributes:
        player: the player offering to resign.
        kind: what they give up: a single game, a gammon or a backgammon (R16).
        back_to: the phase the game returns to if it is rejected (``roll``, ``move`` or
            ``doubled``).
    """

    player: int
    kind: Kind
    back_to: Phase

    def __post_init__(self) -> None:
        # A numpy integer is kept as an int (a state is saved); the state checks the rest.
        object.__setattr__(self, "player", as_int_or_same(self.player))


def cube_of_resignation(state: GameState) -> Cube:
    """The cube a resignation accepted in ``state`` is scored on (R16, R23). While a double
    waits, the cube before it; while a beaver or a raccoon waits, the cube as it took it
    before redoubling (turned, owned by whoever made that offer), so that resigning never
    costs less than passing (GNU Backgammon scores it so)."""
    offer = state.offer
    if offer is None or offer.kind == "double":
        return state.cube
    return state.cube.taken(1 - offer.responder, offer.value // 2)


def roll_to_play(
    dice: object, rolled: tuple[int, int] | None, holder: str
) -> tuple[int, int] | None:
    """The roll whose plays to rank or roll out: ``dice`` when given (checked as every
    entry point checks dice), else ``rolled``, the roll ``holder`` (a game state, an ID)
    has rolled, or ``None``. Dice that contradict a roll already rolled are refused with
    an ``InvalidDiceError``: the roll is part of the game, and ranking another one at the
    game's cube and score would answer a question nobody asked."""
    if dice is None:
        return rolled
    roll = check_dice(dice)
    if rolled is not None and sorted(roll) != sorted(rolled):
        raise InvalidDiceError(
            f"{holder} has rolled {rolled[0]}-{rolled[1]}, not {roll[0]}-{roll[1]}:"
            " leave the dice out, or give its roll"
        )
    return roll


def _player(value: object, what: str) -> int:
    """``value`` as a player (:func:`bgfast.vocab.check_player`), else
    :class:`InvalidStateError`: in a state, a bad player is a state that cannot be."""
    try:
        return check_player(value, what)
    except GameStateError as e:
        raise InvalidStateError(str(e)) from None


def _start_cube(rules: Rules, crawford: bool, value: int = 1, owner: int | None = None) -> Cube:
    """The cube ``rules`` give a game (the Crawford game's out of play), at ``value`` and
    ``owner``: 1 and centred, as a game starts with it."""
    return Cube(
        value=value,
        owner=owner,
        max_value=rules.cube_limit,
        enabled=not crawford,
        beavers=rules.beavers,
        raccoons=rules.raccoons,
    )


def _pair(value: object, what: str) -> tuple[int, int]:
    pair = count_pair(value)
    if pair is None:
        raise InvalidStateError(f"{what} must be two non-negative ints, not {shown(value)}")
    return pair


@dataclass(frozen=True)
class GameState:
    """One moment of a game of backgammon, validated (see the module's docs).

    Build one with :meth:`start` (the state before the opening roll), from a decoder of
    :mod:`bgfast.codec` (GNUbg IDs, XGIDs, FIBS boards), from saved data (:meth:`from_dict`),
    from a game (:attr:`bgfast.Game.state`), or field by field; a
    state whose parts do not fit raises :class:`~bgfast.InvalidStateError` (a bad setting:
    :class:`~bgfast.MatchOptionError`). :meth:`replace` makes a changed copy, checked again.

    Attributes:
        position: the checkers, seen from :attr:`turn` (from player 0 before the opening).
        phase: where the game stands (:data:`bgfast.vocab.Phase`).
        turn: the player on roll; ``None`` before the opening roll (R3).
        dice: the dice to play in the ``move`` phase (the opening winner's die first), else
            ``None``.
        cube: the doubling cube; while an offer waits it shows the value before it.
        offer: the double, beaver or raccoon waiting for an answer, else ``None``.
        resignation: the resignation waiting for an answer, else ``None``.
        result: how the game ended (``over`` phase), else ``None``.
        rules: the scoring and cube options.
        match_length: points to win the match (R20); 0 in money play.
        score: the match score before this game, ``(player 0, player 1)``.
        crawford: whether this is the Crawford game (R21): no cube.
        holland: the Holland rule: in post-Crawford games the trailer may double only after
            both sides have rolled twice.
        auto_doubles: automatic doubles so far (R22, money play).
        turns_played: turns each player has completed, ``(player 0, player 1)`` (for the
            Holland rule).
    """

    position: Position = field(default_factory=Position)
    phase: Phase = "opening"
    turn: int | None = None
    dice: tuple[int, int] | None = None
    cube: Cube = field(default_factory=Cube)
    offer: CubeOffer | None = None
    resignation: Resignation | None = None
    result: GameResult | None = None
    rules: Rules = field(default_factory=Rules)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    holland: bool = False
    auto_doubles: int = 0
    turns_played: tuple[int, int] = (0, 0)

    @classmethod
    def start(
        cls,
        *,
        rules: Rules | None = None,
        match_length: int = 0,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        holland: bool = False,
        position: Position | None = None,
    ) -> GameState:
        """The state before the opening roll (R3): the standard start (or ``position``,
        seen from player 0), the cube centred at 1 with the settings ``rules`` give, and
        the match context. Settings that are not allowed raise
        :class:`~bgfast.MatchOptionError`."""
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise MatchOptionError(f"rules must be a bgfast Rules, not {type(rules).__name__}")
        crawford = check_flag("crawford", crawford)
        return cls(
            position=Position() if position is None else position,
            cube=_start_cube(rules, crawford),
            rules=rules,
            match_length=match_length,
            score=score,
            crawford=crawford,
            holland=holland,
        )

    # ------------------------------------------------------------------ validation

    def __post_init__(self) -> None:
        self._check_settings()
        self._check_state()

    def _set(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _check_settings(self) -> None:
        if not isinstance(self.rules, Rules):
            raise MatchOptionError(f"rules must be a bgfast Rules, not {type(self.rules).__name__}")
        match_length = check_match_length(self.match_length, money=True)
        self._set("match_length", match_length)
        self.rules.check_match_play(match_length)
        self._set("score", check_score(self.score, match_length))
        for name in ("crawford", "holland"):
            self._set(name, check_flag(name, getattr(self, name)))
        if self.crawford and not crawford_allowed(match_length, self.score):
            raise MatchOptionError(
                "the Crawford game needs exactly one player one point away (R21), "
                f"not {self.score[0]}-{self.score[1]} in a {match_length}-point match"
            )
        if self.holland and match_length == 0:
            raise MatchOptionError("the Holland rule is a match option")

    def _check_state(self) -> None:
        bad = InvalidStateError
        if not isinstance(self.position, Position):
            raise bad(f"position must be a bgfast Position, not {type(self.position).__name__}")
        if self.phase not in PHASES:
            raise bad(f"phase is one of {PHASES}, not {shown(self.phase)}")
        cube = self.cube
        if not isinstance(cube, Cube):
            raise bad(f"cube must be a bgfast Cube, not {type(cube).__name__}")
        rules = self.rules
        settings_fit = type(cube) is Cube and (
            cube.max_value,
            cube.enabled,
            cube.beavers,
            cube.raccoons,
        ) == (rules.cube_limit, not self.crawford, rules.beavers, rules.raccoons)
        # Else the cube the rules give, at this value and owner, says how they differ (a
        # Cube refuses a value above their limit), as it always did.
        if not settings_fit and cube != _start_cube(rules, self.crawford, cube.value, cube.owner):
            raise bad("the cube settings do not match the rules (limit, beavers, Crawford)")
        if cube.value > 1 and self.crawford:
            raise bad("no cube is turned in the Crawford game (R21)")
        autos = as_int(self.auto_doubles)
        if autos is None:
            raise bad(f"auto_doubles must be an int, not {shown(self.auto_doubles)}")
        self._set("auto_doubles", autos)
        if not 0 <= autos <= self.rules.auto_doubles:
            raise bad(f"{autos} automatic doubles; the rules allow {self.rules.auto_doubles} (R22)")
        if cube.value < 2**autos:
            raise bad("the cube is lower than its automatic doubles (R22)")
        # Neither is reached by play: a cube changes hands only by a take, which doubles it,
        # and a match has no automatic doubles to turn it in the middle.
        if cube.owner is not None and cube.value == 1:
            raise bad(
                "R17: a player owns the cube by taking a double: an owned cube is at 2 or more"
            )
        if self.match_length and cube.owner is None and cube.value > 1:
            raise bad(
                f"R17: a centred cube is at 1 in match play (automatic doubles, R22, are a"
                f" money option), not {cube.value}"
            )
        self._set("turns_played", _pair(self.turns_played, "turns_played"))
        phase = self.phase
        if phase == "opening":
            if self.turn is not None:
                raise bad("nobody is on roll before the opening roll (R3)")
        else:
            self._set("turn", _player(self.turn, "turn"))
        resignation = self.resignation
        waiting: Phase = phase
        if phase == "resign":
            if not isinstance(resignation, Resignation):
                raise bad("the resign phase needs the resignation that waits")
            _player(resignation.player, "resigning player")
            if resignation.kind not in KINDS or resignation.back_to not in _RESIGNABLE:
                raise bad(f"bad resignation {shown(resignation)}")
            waiting = resignation.back_to
        elif resignation is not None:
            raise bad("a resignation outside the resign phase")
        if waiting == "move":
            if self.dice is None:
                raise bad("the move phase needs the dice rolled")
            self._set("dice", check_dice(self.dice))
        elif self.dice is not None:
            raise bad(f"no dice belong to phase {phase!r}")
        self._check_offer(waiting)
        self._check_result()
        if phase != "over" and self.position.outcome is not None:
            raise bad(f"the position is already won (R15) in phase {phase!r}")

    def _check_offer(self, waiting: Phase) -> None:
        bad = InvalidStateError
        offer = self.offer
        if waiting != "doubled":
            if offer is not None:
                raise bad("a pending double outside the doubled phase")
            return
        if not isinstance(offer, CubeOffer) or offer.kind not in OFFERS:
            raise bad(f"the doubled phase needs the offer that waits, not {shown(offer)}")
        if _player(offer.doubler, "doubler") != self.turn:
            raise bad("the player on roll doubles (R18)")
        if as_int(offer.value) is None or offer.value != self.cube.value * 2 ** (offer.level + 1):
            raise bad(f"bad pending cube value {shown(offer.value)}")
        if offer.value > self.cube.max_value:
            raise bad(f"the cube may not pass {self.cube.max_value}")
        reason = self.cube.why_not_double(offer.doubler)
        if reason is not None:
            raise bad(f"player {offer.doubler} may not double this cube: {reason}")
        if offer.level and (self.match_length or not self.rules.beavers):
            raise bad("a beaver needs money play with beavers allowed")
        if offer.level == 2 and not self.rules.raccoons:
            raise bad("a raccoon needs money play with raccoons allowed")

    def _check_result(self) -> None:
        bad = InvalidStateError
        result = self.result
        if self.phase != "over":
            if result is not None:
                raise bad("a result before the game is over")
            return
        if not isinstance(result, GameResult):
            raise bad("a finished game needs its result")
        if self.offer is not None or self.resignation is not None:
            raise bad("nothing waits for an answer once the game is over")
        if result.reason == "bear-off":
            outcome = self.position.outcome
            # After the last move the loser is on roll: the winner is the opponent.
            if outcome is None or outcome.winner != "opponent" or result.winner == self.turn:
                raise bad("a bear-off result needs the winner's last checker off (R15)")
            if outcome.kind != result.kind:
                raise bad(f"the board shows a {outcome.kind}, not a {result.kind} (R16)")
        if result.reason in ("bear-off", "resign"):
            points = self.rules.points(result.kind, self.cube.value, self.cube.centred)
            if result.points != points:
                raise bad(f"a {result.kind} with this cube scores {points}, not {result.points}")

    def replace(self, **changes: Any) -> GameState:
        """A copy with ``changes`` (field names as keywords), validated like a new state."""
        return dataclasses.replace(self, **changes)

    def _evolve(self, **changes: Any) -> GameState:
        """A copy with ``changes`` (field names as keywords), **not** validated: for callers
        that checked the change themselves, so that a valid state stays valid. The
        referee's handlers (:class:`bgfast.Game`) are such callers: each checks that its
        action is allowed and builds the fields of the state it leads to (a double at
        twice the cube by the player on roll, a take's cube owned by the taker, a
        bear-off's result from the board and the cube...). Anything else uses
        :meth:`replace`. An unknown field name is a ``TypeError``, as for :meth:`replace`.
        """
        if not changes.keys() <= _FIELD_NAMES:
            unknown = sorted(set(changes) - _FIELD_NAMES)
            raise TypeError(f"GameState has no field {unknown[0]!r}")
        twin = object.__new__(type(self))
        fields = twin.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return twin

    def _check(self) -> GameState:
        """This state, validated as a new one is (:class:`~bgfast.InvalidStateError`,
        :class:`~bgfast.MatchOptionError`): for a state built by :meth:`_evolve`, once its
        maker wants it checked after all (a loader, at the end of a replay)."""
        self.__post_init__()
        return self

    # ------------------------------------------------------------------ reading

    @property
    def player_to_act(self) -> int | None:
        """Who must act next: the roller, the player answering a double or resignation;
        ``None`` before the opening roll (both roll) and after the game."""
        if self.phase in ("roll", "move"):
            return self.turn
        if self.phase == "doubled":
            assert self.offer is not None
            return self.offer.responder
        if self.phase == "resign":
            assert self.resignation is not None
            return 1 - self.resignation.player
        return None

    @property
    def post_crawford(self) -> bool:
        """Whether this is a post-Crawford game (R21; :func:`bgfast.scoring.is_post_crawford`)."""
        return is_post_crawford(self.match_length, self.score, self.crawford)

    @property
    def is_over(self) -> bool:
        """Whether the game has a result."""
        return self.result is not None

    def board(self) -> npt.NDArray[np.uint8]:
        """The checkers as a ``(2, 25)`` array indexed by player: row ``p`` is player
        ``p``'s checkers on its own points 1..24 (columns 0..23) and its bar (column 24)."""
        a = self.position.to_array()
        return a if (self.turn or 0) == 0 else a[::-1].copy()

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(player 0, player 1)``."""
        mover, other = self.position.pips
        return (mover, other) if (self.turn or 0) == 0 else (other, mover)

    def why_not_double(self) -> str | None:
        """Why the player on roll may not double now, or ``None`` if they may (R17, R18,
        R21, the Holland rule)."""
        if self.phase != "roll" or self.turn is None:
            return why_not(
                self,
                "double",
                "a double comes at the start of one's own turn, before rolling",
                "R18",
            )
        reason = self.cube.why_not_double(self.turn)
        if reason is not None:
            return reason
        if holland_waits(self, self.turn, self.turns_played):
            return HOLLAND_RULE
        return None

    # ------------------------------------------------------------------ plain data

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data, in the layout of a saved game's ``setup`` and
        ``state`` (see :meth:`from_dict`)."""
        offer, resign = self.offer, self.resignation
        return {
            "rules": self.rules.to_dict(),
            "match_length": self.match_length,
            "score": list(self.score),
            "crawford": self.crawford,
            "holland": self.holland,
            "phase": self.phase,
            "turn": self.turn,
            "position": self.position.id,
            "dice": None if self.dice is None else list(self.dice),
            "cube": self.cube.to_dict(),
            "offer": None if offer is None else [offer.doubler, offer.value, offer.level],
            "resign": None if resign is None else [resign.player, resign.kind, resign.back_to],
            "result": None if self.result is None else self.result.to_dict(),
            "autos": self.auto_doubles,
            "turns": list(self.turns_played),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """The state of :meth:`to_dict` output. Anything else raises a
        :class:`~bgfast.BgfastError` (:class:`~bgfast.InvalidStateError` for data in the
        wrong form or a state that cannot be, a ``TypeError`` for data of the wrong type),
        including data in another JSON form than :meth:`to_dict` writes (``1.0`` for ``1``,
        ``true`` for ``1``)."""
        if not isinstance(data, dict) or set(data) != set(FIELDS):
            keys = sorted(data) if isinstance(data, dict) else shown(data)
            raise InvalidStateError(f"not a game state: keys {keys}")
        offer = data["offer"]
        resign = data["resign"]
        dice = data["dice"]
        position = data["position"]
        if not isinstance(position, str):
            raise InvalidStateError(f"a position is a Position ID, not {shown(position)}")
        state = cls(
            position=Position.from_id(position),
            phase=data["phase"],
            turn=data["turn"],
            dice=None if dice is None else check_dice(dice),
            cube=Cube.from_dict(data["cube"]),
            offer=None if offer is None else _offer(offer),
            resignation=None if resign is None else _resignation(resign),
            result=None if data["result"] is None else GameResult.from_dict(data["result"]),
            rules=Rules.from_dict(data["rules"]),
            match_length=data["match_length"],
            score=data["score"],
            crawford=data["crawford"],
            holland=data["holland"],
            auto_doubles=data["autos"],
            turns_played=data["turns"],
        )
        if not same_json(data, state.to_dict()):
            raise InvalidStateError("the state data holds a field in another form")
        return state

    # ------------------------------------------------------------------ text

    def __str__(self) -> str:
        """An ASCII board with player 1 (``X``) at the bottom and player 0 (``O``) at the
        top, each with its pips and checkers off, and what the game waits for."""
        board = self.board()
        lines = _board_text(board[1], board[0])
        pips = self.pips()
        off = [15 - int(board[p].sum()) for p in PLAYERS]
        lines.append(
            f"X player 1: {pips[1]} pips, {off[1]} off    O player 0: {pips[0]} pips, {off[0]} off"
        )
        lines.append(self.summary())
        return "\n".join(lines)

    def summary(self) -> str:
        """One line saying where the game stands and what it waits for: who is on roll and
        with which dice, a pending double or resignation, or who won; then the cube and the
        match score."""
        p = self.player_to_act
        if self.phase == "opening":
            what = "the opening roll: each player rolls one die (R3)"
        elif self.phase == "roll":
            what = f"player {self.turn} on roll"
        elif self.phase == "move":
            assert self.dice is not None
            what = f"player {self.turn} to play {self.dice[0]}-{self.dice[1]}"
        elif self.phase == "doubled":
            assert self.offer is not None
            offer = self.offer
            who = 1 - offer.responder
            what = f"player {who} offers a {offer.kind} to {offer.value}: player {p} to answer"
        elif self.phase == "resign":
            assert self.resignation is not None
            r = self.resignation
            what = f"player {r.player} offers to resign a {r.kind}: player {p} to answer"
        else:
            assert self.result is not None
            r2 = self.result
            how = {"bear-off": "bearing off", "drop": "a passed double", "resign": "resignation"}
            what = (
                f"player {r2.winner} won a {r2.kind} for {r2.points} "
                f"point{'s' if r2.points != 1 else ''} ({how[r2.reason]})"
            )
        parts = [f"phase {self.phase}: {what}", str(self.cube)]
        if self.match_length:
            crawford = " (Crawford)" if self.crawford else ""
            parts.append(
                f"match to {self.match_length}, score {self.score[0]}-{self.score[1]}{crawford}"
            )
        return "; ".join(parts)


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(GameState))

# The actions a phase that waits for an answer still allows (the answers, and a resignation
# instead of answering a double); any other action must wait for the answer.
_WHILE_WAITING: dict[Phase, tuple[str, ...]] = {
    "doubled": ("take", "drop", "beaver", "raccoon", "resign"),
    "resign": ("accept", "reject"),
}


def situation(state: GameState) -> str:
    """Where ``state`` stands, in a player's words, for the messages that refuse an action:
    "the game is at its opening roll", "player 0 is to play 3-1", "player 0's double to 2
    waits for player 1's answer", "the game is over: ..." (with the rule that ended it)."""
    phase = state.phase
    if phase == "opening":
        return "the game is at its opening roll"
    if phase == "roll":
        return f"player {state.turn} is on roll and has not rolled yet"
    if phase == "move":
        assert state.dice is not None
        return f"player {state.turn} is to play {state.dice[0]}-{state.dice[1]}"
    if phase == "doubled":
        assert state.offer is not None
        offer = state.offer
        offerer = 1 - offer.responder
        return (
            f"player {offerer}'s {offer.kind} to {offer.value} waits for player "
            f"{offer.responder}'s answer"
        )
    if phase == "resign":
        assert state.resignation is not None
        r = state.resignation
        return (
            f"player {r.player}'s offer to resign a {_kind_words(r.kind)} waits for player "
            f"{1 - r.player}'s answer"
        )
    assert state.result is not None
    result = state.result
    winner, loser = result.winner, 1 - result.winner
    won = f"{result.points} point{'s' if result.points != 1 else ''}"
    if result.reason == "bear-off":
        how = (
            f"player {winner} bore off all checkers and won a {_kind_words(result.kind)}, "
            f"{won} (R15)"
        )
    elif result.reason == "drop":
        how = f"player {loser} passed a double, so player {winner} won {won} (R19)"
    else:
        how = f"player {loser} resigned a {_kind_words(result.kind)}, so player {winner} won {won}"
    return f"the game is over: {how}"


def why_not(state: GameState, action: str, missing: str, rule: str = "") -> str:
    """Why ``action`` is refused in ``state``, in a player's words, for its message.

    What the game waits for comes first: the game is over, or a double (R19) or a
    resignation waits for an answer that ``action`` is not. Otherwise the reason is
    ``missing`` (what the action needs and the game lacks, "no double to answer"), then
    where the game stands and ``rule`` (its id, perhaps with words: "R19").
    """
    phase = state.phase
    where = situation(state)
    if phase == "over":
        return where
    if phase == "doubled" and action not in _WHILE_WAITING[phase]:
        return f"{where}: take or drop it first (R19)"
    if phase == "resign" and action not in _WHILE_WAITING[phase]:
        return f"{where}: accept or reject it first"
    return f"{missing} ({where}; {rule})" if rule else f"{missing} ({where})"


def _kind_words(kind: Kind) -> str:
    return "single game" if kind == "single" else kind


def _offer(data: object) -> CubeOffer:
    if not isinstance(data, list) or len(data) != 3:
        raise InvalidStateError(f"bad pending double {shown(data)}")
    doubler, value, level = data
    if level not in (0, 1, 2) or isinstance(level, bool):
        raise InvalidStateError(f"bad pending double {shown(data)}")
    return CubeOffer(_player(doubler, "doubler"), value, OFFERS[level])


def _resignation(data: object) -> Resignation:
    if not isinstance(data, list) or len(data) != 3:
        raise InvalidStateError(f"bad resignation {shown(data)}")
    player, kind, back_to = data
    return Resignation(_player(player, "resigning player"), kind, back_to)


def _board_text(bottom: npt.NDArray[np.uint8], top: npt.NDArray[np.uint8]) -> list[str]:
    """The lines of an ASCII board: ``bottom``'s checkers (``X``) on its points 1..24, bar
    last, numbered from its side; ``top``'s (``O``) opposite."""
    rows = 5

    def stack(p: int) -> tuple[str, int]:
        x, o = int(bottom[p - 1]), int(top[24 - p])
        return ("X", x) if x else ("O", o)

    def cell(p: int, row: int) -> str:
        c, n = stack(p)
        if n > row:
            return f"{n:>2} " if row == rows - 1 and n > rows else f" {c} "
        return " . "

    def header(points: list[int]) -> str:
        return " " + "".join(("   " if i == 6 else "") + f"{p:>3}" for i, p in enumerate(points))

    def line(points: list[int], row: int) -> str:
        return (
            "|"
            + "".join(("| |" if i == 6 else "") + cell(p, row) for i, p in enumerate(points))
            + "|"
        )

    upper, lower = list(range(13, 25)), list(range(12, 0, -1))
    border = "+" + "-" * 41 + "+"
    out = [header(upper), border]
    out += [line(upper, r) for r in range(rows)]
    bar = f"bar  X:{int(bottom[24])}  O:{int(top[24])}"
    out.append("|" + bar.center(41) + "|")
    out += [line(lower, r) for r in reversed(range(rows))]
    out += [border, header(lower)]
    return out
