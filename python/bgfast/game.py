"""One game of backgammon as an explicit state machine with an event history.

:class:`Game` owns the flow of a game around the core's :class:`~bgfast.Position`: the opening
roll (R3), the doubling window before each roll (R17-R19), rolls (seeded or given), moves
validated by the core, undo until commit (R29), resignations, and the result (R16). A lenient
*table* mode records illegal moves from real games; they may be called until the next roll
(R31).

Players are ``0`` and ``1`` as in GNU Backgammon. In pictures and XGIDs player 1 is the bottom
side (``X``, upper-case in an XGID) and player 0 the top side (``O``). The core's positions are
seen from the side to move; :attr:`Game.position` is seen from :attr:`Game.turn`.

Every change goes through one recorded event, so a game can be rebuilt from its history
(:meth:`Game.from_json`), and a rejected call leaves the game unchanged.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bgfast._core import IllegalMoveError, InvalidDiceError, InvalidMoveError, Move, Position
from bgfast.cube import Cube, check_player
from bgfast.errors_game import GameStateError, InvalidSaveError, MatchOptionError, shown
from bgfast.persist import atomic_write_text, damaged, dumps, loads, same_json
from bgfast.scoring import KINDS, Kind, Rules, crawford_allowed, is_post_crawford

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["Game", "GameResult", "Phase"]

Phase = Literal["opening", "roll", "doubled", "move", "resign", "over"]
"""Where a game stands.

``opening``: nobody has rolled yet (R3). ``roll``: :attr:`Game.turn` may double or roll
(R18). ``doubled``: a double (or beaver, raccoon) waits for an answer (R19). ``move``: the
dice are rolled and the move is being made (R29: it may be changed until committed).
``resign``: a resignation waits for an answer. ``over``: the game has a result.
"""

_ANIMALS = ("double", "beaver", "raccoon")
_FORMAT = "bgfast-game"
_VERSION = 1


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
    reason: Literal["bear-off", "drop", "resign"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "winner": self.winner,
            "kind": self.kind,
            "points": self.points,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class _Offer:
    """A pending double (level 0), beaver (1) or raccoon (2)."""

    doubler: int  # the player who offered the original double (the player on roll)
    value: int  # the cube value if this offer is taken
    level: int

    @property
    def responder(self) -> int:
        # Doubles and raccoons are answered by the taker, beavers by the doubler.
        return self.doubler if self.level == 1 else 1 - self.doubler


@dataclass(frozen=True)
class _Resign:
    player: int
    kind: Kind
    back_to: Phase


@dataclass(frozen=True)
class _Staged:
    text: str
    result: Position  # opponent to move
    illegal: bool


@dataclass(frozen=True)
class _LastMove:
    player: int
    dice: tuple[int, int]
    before: Position  # seen from ``player``
    text: str
    illegal: bool


def _roll_dice(seed: int, draw: int) -> tuple[int, int]:
    """The ``draw``-th pair of dice of a seeded stream: stable across Python versions."""
    dice: list[int] = []
    block = 0
    while True:
        digest = hashlib.blake2b(
            b"%d:%d:%d" % (seed, draw, block), digest_size=16, person=b"bgfast-dice"
        ).digest()
        for b in digest:
            if b < 252:  # 252 = 42 * 6: unbiased
                dice.append(b % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
        block += 1


def _check_dice(dice: object) -> tuple[int, int]:
    if (
        not isinstance(dice, (tuple, list))
        or len(dice) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise InvalidDiceError(f"dice are two numbers from 1 to 6, not {shown(dice)}")
    return int(dice[0]), int(dice[1])


_player = check_player


_POINT = r"(?:bar|off|\d{1,2})"
_TOKEN = re.compile(rf"^({_POINT}\*?(?:/{_POINT}\*?)+)(?:\((\d)\))?$", re.IGNORECASE)


def _parse_steps(text: str) -> list[tuple[int, int]]:
    """Checker steps ``(from, to)`` of move text, without any legality check (table mode)."""
    steps: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.match(token)
        if not m:
            raise InvalidMoveError(f"cannot read {token!r} in move {text!r}")
        points: list[int] = []
        for part in m.group(1).split("/"):
            p = part.rstrip("*").lower()
            value = 25 if p == "bar" else 0 if p == "off" else int(p)
            if not 0 <= value <= 25:
                raise InvalidMoveError(f"no point {value} in move {text!r}")
            points.append(value)
        repeat = int(m.group(2) or 1)
        if not 1 <= repeat <= 4:
            raise InvalidMoveError(f"bad repeat count in {token!r}")
        path = list(zip(points, points[1:]))
        for a, b in path:
            if a <= b:
                raise InvalidMoveError(f"{a}/{b} in {text!r} does not move forward")
        steps.extend(path * repeat)
    return steps


def _apply_physically(position: Position, text: str) -> Position:
    """The result of moving checkers as ``text`` says, legal or not (table mode, R31).

    Refuses only what cannot happen on a real board: moving a checker that is not there,
    or landing on a point that two or more opposing checkers hold (R7).
    """
    board = position.to_array().astype(np.int64)
    steps = _parse_steps(text)
    if not steps:
        raise InvalidMoveError(f"no checker steps in {text!r}")
    for a, b in steps:
        src = 24 if a == 25 else a - 1
        if board[0, src] == 0:
            where = "the bar" if a == 25 else f"point {a}"
            raise IllegalMoveError(f"{text}: no checker on {where} to move (R1)")
        if b == 0:
            board[0, src] -= 1
            continue
        if b == 25:
            raise IllegalMoveError(f"{text}: a checker cannot move to the bar")
        opp = 24 - b  # the opponent's index of the same physical point
        if board[1, opp] >= 2:
            raise IllegalMoveError(
                f"{text}: point {b} holds {board[1, opp]} opposing checkers (R7)"
            )
        board[0, src] -= 1
        board[0, b - 1] += 1
        if board[1, opp] == 1:
            board[1, opp] = 0
            board[1, 24] += 1
    return Position.from_array(board.astype(np.uint8)).flipped()


class Game:
    """A game of backgammon (money or one game of a match) as an inspectable state machine.

    Create one with the match context, then drive it with :meth:`roll`, :meth:`double`,
    :meth:`take`, :meth:`drop`, :meth:`move`/:meth:`undo`/:meth:`commit` (or :meth:`play`),
    :meth:`resign`/:meth:`accept`/:meth:`reject`. :attr:`phase` and :attr:`player_to_act`
    say what may happen next; anything else raises :class:`GameStateError` (or the core's
    :class:`~bgfast.IllegalMoveError`) and changes nothing.

    Args:
        rules: scoring and cube options (money options are refused in match play).
        match_length: points to win the match (R20); 0 for money play.
        score: the match score before this game, ``(player 0, player 1)``.
        crawford: whether this is the Crawford game (R21): no cube. Only valid when a player
            is exactly one point away.
        holland: Holland rule (match option): in post-Crawford games the trailer may double
            only after each side has played two rolls.
        table: lenient mode for recording real games: an illegal move is recorded and
            stands unless :meth:`call` is used before the next roll (R31).
        seed: seed of the dice stream used by :meth:`roll` without dice (an int,
            ``|seed| < 2**64``); ``None`` picks one at random (it is kept, so the game
            stays reproducible).
    """

    def __init__(
        self,
        *,
        rules: Rules | None = None,
        match_length: int = 0,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        holland: bool = False,
        table: bool = False,
        seed: int | None = None,
    ) -> None:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise MatchOptionError(f"rules must be a bgfast Rules, not {type(rules).__name__}")
        if isinstance(match_length, bool) or not isinstance(match_length, int):
            raise MatchOptionError(f"match_length must be an int, not {shown(match_length)}")
        if not 0 <= match_length <= 32767:
            raise MatchOptionError(
                f"match_length must be 0 (money) to 32767, not {shown(match_length)}"
            )
        rules.check_match_play(match_length)
        if (
            not isinstance(score, (tuple, list))
            or len(score) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in score)
        ):
            raise MatchOptionError(f"score must be two non-negative ints, not {shown(score)}")
        score = (int(score[0]), int(score[1]))
        if match_length == 0 and score != (0, 0):
            raise MatchOptionError("a money game has no match score")
        if match_length and max(score) >= match_length:
            raise MatchOptionError(
                f"score {shown(score[0])}-{shown(score[1])}: the {match_length}-point match "
                "is already won (R20)"
            )
        if crawford and not crawford_allowed(match_length, score):
            raise MatchOptionError(
                "the Crawford game needs exactly one player one point away (R21), "
                f"not {score[0]}-{score[1]} in a {match_length}-point match"
            )
        for name, flag in (("crawford", crawford), ("holland", holland), ("table", table)):
            if not isinstance(flag, (bool, np.bool_)):
                raise MatchOptionError(f"{name} must be True or False, not {shown(flag)}")
        if holland and match_length == 0:
            raise MatchOptionError("the Holland rule is a match option")
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, int) or abs(seed) >= 1 << 64:
            raise MatchOptionError(
                f"seed must be an int of at most 64 bits (|seed| < 2**64), not {shown(seed)}"
            )
        self._rules = rules
        self._match_length = match_length
        self._score = score
        self._crawford = bool(crawford)
        self._holland = bool(holland)
        self._table = bool(table)
        self._seed = seed
        self._draws = 0
        self._phase: Phase = "opening"
        self._turn: int | None = None
        self._position = Position()
        self._dice: tuple[int, int] | None = None
        self._cube = Cube(
            max_value=rules.cube_limit,
            enabled=not crawford,
            beavers=rules.beavers,
            raccoons=rules.raccoons,
        )
        self._offer: _Offer | None = None
        self._resign: _Resign | None = None
        self._staged: _Staged | None = None
        self._moves: list[Move] | None = None  # legal moves of the current roll (cache)
        self._hint: Move | None = None
        self._last: _LastMove | None = None
        self._result: GameResult | None = None
        self._autos = 0
        self._turns = [0, 0]
        self._events: list[dict[str, Any]] = []
        self._setup: dict[str, Any] = self._snapshot()

    # ------------------------------------------------------------------ inspection

    @property
    def rules(self) -> Rules:
        """The scoring and cube options."""
        return self._rules

    @property
    def match_length(self) -> int:
        """Points to win the match (R20); 0 in money play."""
        return self._match_length

    @property
    def score(self) -> tuple[int, int]:
        """The match score before this game, ``(player 0, player 1)``."""
        return self._score

    @property
    def crawford(self) -> bool:
        """Whether this is the Crawford game (R21): the cube is out of play."""
        return self._crawford

    @property
    def post_crawford(self) -> bool:
        """Whether this is a post-Crawford game: the Crawford game has been played, a player
        is one away and the cube is back (R21; never in a 1-point match, see
        :func:`bgfast.scoring.is_post_crawford`)."""
        return is_post_crawford(self._match_length, self._score, self._crawford)

    @property
    def holland(self) -> bool:
        """Whether the Holland rule is in force (it applies in post-Crawford games only)."""
        return self._holland

    @property
    def table(self) -> bool:
        """Whether this game is in lenient table mode (illegal moves recorded, R31)."""
        return self._table

    @property
    def seed(self) -> int:
        """The seed of the dice stream used by :meth:`roll` without dice."""
        return self._seed

    @property
    def phase(self) -> Phase:
        """Where the game stands (see :data:`Phase`)."""
        return self._phase

    @property
    def turn(self) -> int | None:
        """The player on roll (``None`` before the opening roll)."""
        return self._turn

    @property
    def player_to_act(self) -> int | None:
        """Who must act next: the roller, the player answering a double or resignation;
        ``None`` before the opening roll (both roll) and after the game."""
        if self._phase in ("roll", "move"):
            return self._turn
        if self._phase == "doubled":
            assert self._offer is not None
            return self._offer.responder
        if self._phase == "resign":
            assert self._resign is not None
            return 1 - self._resign.player
        return None

    @property
    def position(self) -> Position:
        """The board seen from :attr:`turn` (from player 0 before the opening roll).

        While a move is staged (R29) this is still the position before it; see
        :attr:`staged_position`.
        """
        return self._position

    @property
    def staged_move(self) -> str | None:
        """The move made but not yet committed (R29), as text, or ``None``."""
        return None if self._staged is None else self._staged.text

    @property
    def staged_position(self) -> Position | None:
        """The position after the staged move (opponent to move), or ``None``."""
        return None if self._staged is None else self._staged.result

    @property
    def dice(self) -> tuple[int, int] | None:
        """The dice to play (``move`` phase), else ``None``; after the opening roll the
        winner's die comes first (R3)."""
        return self._dice

    @property
    def cube(self) -> Cube:
        """The doubling cube (R17); while a double is pending it shows the old value."""
        return self._cube

    @property
    def offered_cube(self) -> int | None:
        """The cube value on offer while a double, beaver or raccoon waits, else ``None``."""
        return None if self._offer is None else self._offer.value

    @property
    def offer_kind(self) -> str | None:
        """``double``, ``beaver`` or ``raccoon`` while one waits for an answer."""
        return None if self._offer is None else _ANIMALS[self._offer.level]

    @property
    def resignation(self) -> tuple[int, Kind] | None:
        """``(player, kind)`` of a resignation waiting for an answer, else ``None``."""
        return None if self._resign is None else (self._resign.player, self._resign.kind)

    @property
    def result(self) -> GameResult | None:
        """The result once the game is over, else ``None``."""
        return self._result

    @property
    def is_over(self) -> bool:
        """Whether the game has a result."""
        return self._result is not None

    @property
    def history(self) -> list[dict[str, Any]]:
        """The events so far (copies): replaying them rebuilds this game exactly."""
        return [dict(e) for e in self._events]

    @property
    def last_move_illegal(self) -> bool:
        """Whether the last committed move broke the rules and may still be called (R31)."""
        return self._last is not None and self._last.illegal

    def board(self) -> npt.NDArray[np.uint8]:
        """The checkers as a ``(2, 25)`` array indexed by player: row ``p`` is player
        ``p``'s checkers on its own points 1..24 (columns 0..23) and its bar (column 24)."""
        a = self._position.to_array()
        return a if (self._turn or 0) == 0 else a[::-1].copy()

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(player 0, player 1)``."""
        mover, other = self._position.pips
        return (mover, other) if (self._turn or 0) == 0 else (other, mover)

    def legal_moves(self) -> list[Move]:
        """The legal moves for the rolled dice (``move`` phase), from the core."""
        return list(self._legal())

    def _legal(self) -> list[Move]:
        if self._phase != "move" or self._dice is None:
            raise GameStateError(f"no dice to move in phase {self._phase!r}")
        if self._moves is None:
            self._moves = list(self._position.moves(*self._dice))
        return self._moves

    def why_not_double(self) -> str | None:
        """Why the player on roll may not double now, or ``None`` if they may (R17, R18)."""
        if self._phase != "roll" or self._turn is None:
            return (
                f"a double comes before the roll, at the start of a turn (R18); "
                f"the game is in phase {self._phase!r}"
            )
        reason = self._cube.why_not_double(self._turn)
        if reason is not None:
            return reason
        if self._holland and self.post_crawford:
            trailer = self._score[self._turn] < self._score[1 - self._turn]
            if trailer and min(self._turns) < 2:
                return "Holland rule: the trailer may double only after both sides rolled twice"
        return None

    def may_double(self) -> bool:
        """Whether the player on roll may double now (R17, R18, R21)."""
        return self.why_not_double() is None

    # ------------------------------------------------------------------ actions

    def roll(self, dice: Sequence[int] | None = None) -> tuple[int, int]:
        """Roll the dice (from the seeded stream) or record ``dice`` rolled by hand.

        At the opening (R3) the pair is ``(player 0's die, player 1's die)``: a tie is
        rolled again (with an automatic double in money play if the rules allow, R22), else
        the higher die moves first, playing both dice. Later, the player on roll rolls two
        dice; a roll with no legal play passes the turn at once (R10). Rolling ends the
        time to call an illegal move (R31). Returns the dice rolled.
        """
        rolled: tuple[int, int] = self._do(
            {"type": "roll", **({} if dice is None else {"dice": list(dice)})}
        )
        return rolled

    def double(self) -> None:
        """The player on roll offers a double, before rolling (R17, R18)."""
        self._do({"type": "double"})

    def take(self) -> None:
        """Accept the pending double, beaver or raccoon (R19): the taker owns the cube."""
        self._do({"type": "take"})

    def drop(self) -> None:
        """Pass (refuse) the pending double, beaver or raccoon (R19): the game ends and the
        other side wins the cube value before this offer."""
        self._do({"type": "drop"})

    def beaver(self) -> None:
        """Money option: the doubled player takes and at once redoubles, keeping the cube."""
        self._do({"type": "beaver"})

    def raccoon(self) -> None:
        """Money option: the doubler answers a beaver by doubling once more."""
        self._do({"type": "raccoon"})

    def move(self, move: Move | str) -> None:
        """Make (stage) a move for the rolled dice; it replaces any staged move and may be
        undone or changed until :meth:`commit` (R29).

        The core validates it (:class:`~bgfast.IllegalMoveError` names the rule); any text
        whose result is a legal move's result is that move ("a move is its result"), and is
        recorded in the core's notation. In table mode an illegal move that is physically
        possible is staged anyway (R31).
        """
        self._hint = move if isinstance(move, Move) else None
        try:
            self._do({"type": "move", "move": self._move_text(move)})
        finally:
            self._hint = None

    def undo(self) -> None:
        """Take back the staged move (R29)."""
        self._do({"type": "undo"})

    def commit(self) -> None:
        """Commit the staged move ("the dice are picked up", R29): the turn passes, or the
        game ends if the mover has borne off all checkers (R15, R16)."""
        self._do({"type": "commit"})

    def play(self, move: Move | str) -> None:
        """:meth:`move` then :meth:`commit`: changes nothing if the move is refused."""
        self.move(move)
        self.commit()

    def call(self) -> None:
        """Call the last move illegal (table mode, R31), before the next roll: it is taken
        back and the same player plays the same dice again. A game that ended with an
        illegal bear-off may be called until the game is closed (:meth:`close`)."""
        self._do({"type": "call"})

    def close(self) -> None:
        """Close a finished game: the next game has started, so its last move stands and
        can no longer be called (R31: a call comes before the next roll).
        :meth:`bgfast.Match.new_game` closes the previous game."""
        self._do({"type": "close"})

    @property
    def closed(self) -> bool:
        """Whether the game is over and closed (see :meth:`close`)."""
        return bool(self._events) and self._events[-1]["type"] == "close"

    def resign(self, kind: Kind = "single", player: int | None = None) -> None:
        """Offer to resign a single game, a gammon or a backgammon. ``player`` defaults to
        the player to act. The opponent answers with :meth:`accept` or :meth:`reject`."""
        event: dict[str, Any] = {"type": "resign", "kind": kind}
        if player is not None:
            event["player"] = player
        self._do(event)

    def accept(self) -> None:
        """Accept the pending resignation: the game ends for its value (R16, R23)."""
        self._do({"type": "accept"})

    def reject(self) -> None:
        """Reject the pending resignation: play goes on where it stood."""
        self._do({"type": "reject"})

    # ------------------------------------------------------------------ the engine

    def _move_text(self, move: Move | str) -> str:
        if isinstance(move, Move):
            return str(move)
        if not isinstance(move, str):
            raise InvalidMoveError(f"a move is a Move or text, not {type(move).__name__}")
        return move

    def _do(self, event: dict[str, Any]) -> Any:
        """Apply one event: validate everything first, then change state, then record it."""
        handler = getattr(self, "_on_" + str(event.get("type")), None)
        if handler is None:
            raise InvalidSaveError(f"unknown event {shown(event)}")
        value = handler(event)
        self._events.append(event)
        return value

    def _need(self, *phases: Phase) -> None:
        if self._phase not in phases:
            raise GameStateError(
                f"not possible in phase {self._phase!r} (allowed in: {', '.join(phases)})"
            )

    def _draw(self, event: dict[str, Any]) -> tuple[int, int]:
        if "dice" in event:
            dice = _check_dice(event["dice"])
            if event.get("random"):
                expect = _roll_dice(self._seed, self._draws)
                if expect != dice:
                    raise InvalidSaveError(
                        f"recorded random roll {dice} is not the seeded stream's {expect}"
                    )
                self._draws += 1
            return dice
        dice = _roll_dice(self._seed, self._draws)
        self._draws += 1
        event["dice"] = list(dice)
        event["random"] = True
        return dice

    def _on_roll(self, event: dict[str, Any]) -> tuple[int, int]:
        if "dice" in event:
            _check_dice(event["dice"])
        if self._phase == "move":
            raise GameStateError(
                "R30: no rolling before the move of the dice in play is committed (R29)"
            )
        self._need("opening", "roll")
        if self._phase == "opening":
            dice = self._draw(event)
            d0, d1 = dice
            if d0 == d1:
                if (
                    self._match_length == 0
                    and self._autos < self._rules.auto_doubles
                    and self._cube.value * 2 <= self._cube.max_value
                ):
                    self._cube = self._cube.auto_doubled()
                    self._autos += 1
                return dice
            winner = 0 if d0 > d1 else 1
            self._turn = winner
            if winner == 1:
                self._position = self._position.flipped()
            self._dice = (max(dice), min(dice))
            self._phase = "move"
            return dice
        dice = self._draw(event)
        assert self._turn is not None
        self._last = None  # R31: the next roll is made, the last move stands
        moves = list(self._position.moves(*dice))
        if len(moves) == 1 and moves[0].is_pass:
            self._turns[self._turn] += 1
            self._position = moves[0].result
            self._turn = 1 - self._turn
            return dice
        self._dice = dice
        self._moves = moves
        self._phase = "move"
        return dice

    def _on_double(self, event: dict[str, Any]) -> None:
        reason = self.why_not_double()
        if reason is not None:
            raise GameStateError(f"cannot double: {reason}")
        assert self._turn is not None
        self._offer = _Offer(doubler=self._turn, value=self._cube.value * 2, level=0)
        self._phase = "doubled"

    def _on_beaver(self, event: dict[str, Any]) -> None:
        self._animal(1, self._rules.beavers, "beavers")

    def _on_raccoon(self, event: dict[str, Any]) -> None:
        self._animal(2, self._rules.raccoons, "raccoons")

    def _animal(self, level: int, allowed: bool, name: str) -> None:
        self._need("doubled")
        assert self._offer is not None
        if self._match_length:
            raise MatchOptionError(f"{name} are a money option, not used in match play")
        if not allowed:
            raise MatchOptionError(f"{name} are not allowed by this game's rules")
        if self._offer.level != level - 1:
            raise GameStateError(
                f"a {_ANIMALS[level]} answers a {_ANIMALS[level - 1]}, "
                f"not a {_ANIMALS[self._offer.level]}"
            )
        if self._offer.value * 2 > self._cube.max_value:
            raise GameStateError(f"the cube may not pass {self._cube.max_value}")
        self._offer = _Offer(self._offer.doubler, self._offer.value * 2, level)

    def _on_take(self, event: dict[str, Any]) -> None:
        self._need("doubled")
        assert self._offer is not None
        self._cube = self._cube.taken(1 - self._offer.doubler, self._offer.value)
        self._offer = None
        self._phase = "roll"

    def _on_drop(self, event: dict[str, Any]) -> None:
        self._need("doubled")
        assert self._offer is not None
        loser = self._offer.responder
        self._finish(GameResult(1 - loser, "single", self._offer.value // 2, "drop"))
        self._offer = None

    def _on_move(self, event: dict[str, Any]) -> None:
        self._need("move")
        text = event.get("move")
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move event needs move text: {shown(event)}")
        assert self._dice is not None
        legal = self._legal()
        hint = self._hint
        if hint is not None and any(hint is m for m in legal):
            self._staged = _Staged(text, hint.result, False)  # one of legal_moves(): valid
            return
        try:
            result = self._position.play(text, self._dice)
            illegal = False
        except IllegalMoveError as refused:
            # "A move is its result": other notations of a legal play (11/10 10/5 for
            # 11/6 6/5) reach a legal result and are that move.
            try:
                result = _apply_physically(self._position, text)
            except (IllegalMoveError, InvalidMoveError):
                if not self._table:
                    raise refused from None
                raise
            illegal = all(m.result != result for m in legal)
            if illegal and not self._table:
                raise
        if not illegal:
            for m in legal:
                if m.result == result:
                    text = str(m)
                    break
        event["move"] = text
        self._staged = _Staged(text, result, illegal)

    def _on_undo(self, event: dict[str, Any]) -> None:
        self._need("move")
        if self._staged is None:
            raise GameStateError("no move to undo (R29)")
        self._staged = None

    def _on_commit(self, event: dict[str, Any]) -> None:
        self._need("move")
        if self._staged is None:
            raise GameStateError("no move made to commit (R29)")
        assert self._turn is not None and self._dice is not None
        staged = self._staged
        mover = self._turn
        self._last = _LastMove(mover, self._dice, self._position, staged.text, staged.illegal)
        self._turns[mover] += 1
        self._staged = None
        self._dice = None
        self._moves = None
        self._position = staged.result
        self._turn = 1 - mover
        outcome = staged.result.outcome
        if outcome is not None:
            kind: Kind = outcome.kind
            self._finish(
                GameResult(
                    mover,
                    kind,
                    self._rules.points(kind, self._cube.value, self._cube.centred),
                    "bear-off",
                )
            )
        else:
            self._phase = "roll"

    def _on_close(self, event: dict[str, Any]) -> None:
        self._need("over")
        if self.closed:
            raise GameStateError("the game is already closed")
        self._last = None  # R31: the next game's roll ends the time to call

    def _on_call(self, event: dict[str, Any]) -> None:
        if self.closed:
            raise GameStateError(
                "no move to call: the next game has started, so the last move stands (R31)"
            )
        last = self._last
        open_game = self._phase == "roll"
        ended = (
            self._phase == "over" and self._result is not None and self._result.reason == "bear-off"
        )
        if last is None or not (open_game or ended):
            raise GameStateError("no move to call: a move may be called until the next roll (R31)")
        if not last.illegal:
            raise GameStateError(f"the last move {last.text} was legal (R31)")
        self._result = None
        self._turns[last.player] -= 1
        self._turn = last.player
        self._position = last.before
        self._dice = last.dice
        self._moves = None
        self._phase = "move"
        self._last = None

    def _on_resign(self, event: dict[str, Any]) -> None:
        self._need("roll", "move", "doubled")
        kind = event.get("kind")
        if kind not in KINDS:
            raise GameStateError(f"a resignation is one of {KINDS}, not {shown(kind)}")
        player = event.get("player", self.player_to_act)
        player = _player(player)
        self._resign = _Resign(player, kind, self._phase)
        self._phase = "resign"

    def _on_accept(self, event: dict[str, Any]) -> None:
        self._need("resign")
        assert self._resign is not None
        r = self._resign
        points = self._rules.points(r.kind, self._cube.value, self._cube.centred)
        self._staged = None
        self._offer = None
        self._finish(GameResult(1 - r.player, r.kind, points, "resign"))
        self._resign = None

    def _on_reject(self, event: dict[str, Any]) -> None:
        self._need("resign")
        assert self._resign is not None
        self._phase = self._resign.back_to
        self._resign = None

    def _finish(self, result: GameResult) -> None:
        self._result = result
        self._phase = "over"
        self._dice = None
        self._moves = None
        self._staged = None

    # ------------------------------------------------------------------ persistence

    def _snapshot(self) -> dict[str, Any]:
        """The whole state as plain data (also the setup a game is rebuilt from)."""
        return {
            "rules": self._rules.to_dict(),
            "match_length": self._match_length,
            "score": list(self._score),
            "crawford": self._crawford,
            "holland": self._holland,
            "table": self._table,
            "seed": self._seed,
            "draws": self._draws,
            "phase": self._phase,
            "turn": self._turn,
            "position": self._position.id,
            "dice": None if self._dice is None else list(self._dice),
            "cube": self._cube.to_dict(),
            "offer": None
            if self._offer is None
            else [self._offer.doubler, self._offer.value, self._offer.level],
            "resign": None
            if self._resign is None
            else [self._resign.player, self._resign.kind, self._resign.back_to],
            "staged": None if self._staged is None else [self._staged.text, self._staged.illegal],
            "last_move": None
            if self._last is None
            else [
                self._last.player,
                list(self._last.dice),
                self._last.before.id,
                self._last.text,
                self._last.illegal,
            ],
            "result": None if self._result is None else self._result.to_dict(),
            "autos": self._autos,
            "turns": list(self._turns),
        }

    @classmethod
    def _from_setup(cls, setup: dict[str, Any]) -> Game:
        """A game in the state ``setup`` (a :meth:`_snapshot` without a staged move, last
        move or result), checked for consistency."""
        try:
            game = cls(
                rules=Rules.from_dict(setup["rules"]),
                match_length=setup["match_length"],
                score=tuple(setup["score"]),
                crawford=setup["crawford"],
                holland=setup["holland"],
                table=setup["table"],
                seed=setup["seed"],
            )
            draws = setup["draws"]
            if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
                raise InvalidSaveError(f"bad draw count {draws!r}")
            game._draws = draws
            phase = setup["phase"]
            if phase not in ("opening", "roll", "doubled", "move", "resign"):
                raise InvalidSaveError(f"a game cannot start in phase {phase!r}")
            game._phase = phase
            turn = setup["turn"]
            if phase == "opening":
                if turn is not None:
                    raise InvalidSaveError("nobody is on roll before the opening roll")
            else:
                game._turn = _player(turn, "turn")
            game._position = Position.from_id(setup["position"])
            if game._position.outcome is not None:
                raise InvalidSaveError("the position is already won (R15)")
            dice = setup["dice"]
            in_move = phase == "move" or (
                phase == "resign" and setup["resign"] and setup["resign"][2] == "move"
            )
            if in_move:
                game._dice = _check_dice(dice)
            elif dice is not None:
                raise InvalidSaveError(f"no dice belong to phase {phase!r}")
            cube = Cube.from_dict(setup["cube"])
            if (
                cube.max_value != game._cube.max_value
                or cube.beavers != game._cube.beavers
                or cube.raccoons != game._cube.raccoons
                or cube.enabled != game._cube.enabled
            ):
                raise InvalidSaveError("the cube settings do not match the rules")
            if cube.value > 1 and game._crawford:
                raise InvalidSaveError("no cube is turned in the Crawford game (R21)")
            game._cube = cube
            offer = setup["offer"]
            if phase == "doubled" or (phase == "resign" and setup["resign"][2] == "doubled"):
                doubler, value, level = offer
                if _player(doubler) != game._turn or level not in (0, 1, 2):
                    raise InvalidSaveError(f"bad pending double {offer!r}")
                if value != cube.value * 2 ** (level + 1) or value > cube.max_value:
                    raise InvalidSaveError(f"bad pending cube value {value!r}")
                if cube.why_not_double(doubler) is not None:
                    raise InvalidSaveError(f"player {doubler} may not double this cube")
                if level and (game._match_length or not game._rules.beavers):
                    raise InvalidSaveError("a beaver needs money play with beavers allowed")
                if level == 2 and not game._rules.raccoons:
                    raise InvalidSaveError("a raccoon needs money play with raccoons allowed")
                game._offer = _Offer(doubler, value, level)
            elif offer is not None:
                raise InvalidSaveError("a pending double outside the doubled phase")
            resign = setup["resign"]
            if phase == "resign":
                player, kind, back_to = resign
                if kind not in KINDS or back_to not in ("roll", "move", "doubled"):
                    raise InvalidSaveError(f"bad resignation {resign!r}")
                game._resign = _Resign(_player(player), kind, back_to)
            elif resign is not None:
                raise InvalidSaveError("a resignation outside the resign phase")
            if (
                setup["staged"] is not None
                or setup["last_move"] is not None
                or setup["result"] is not None
            ):
                raise InvalidSaveError("a setup holds no staged move, last move or result")
            autos, turns = setup["autos"], setup["turns"]
            if not isinstance(autos, int) or not 0 <= autos <= game._rules.auto_doubles:
                raise InvalidSaveError(f"bad automatic double count {autos!r}")
            if cube.value < 2**autos:
                raise InvalidSaveError("the cube is lower than its automatic doubles (R22)")
            if (
                not isinstance(turns, list)
                or len(turns) != 2
                or not all(isinstance(t, int) and t >= 0 for t in turns)
            ):
                raise InvalidSaveError(f"bad turn counts {turns!r}")
            game._autos, game._turns = autos, list(turns)
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, InvalidSaveError):
                raise
            raise InvalidSaveError(f"invalid game setup: {e!r}") from e
        game._setup = game._snapshot()
        if not same_json(setup, game._setup):
            extra = sorted(set(setup) - set(game._setup))
            raise InvalidSaveError(
                f"the setup is not the state it describes (unknown fields {extra})"
                if extra
                else "the setup is not the state it describes (a field in another form)"
            )
        return game

    @classmethod
    def from_history(
        cls,
        events: Sequence[dict[str, Any]],
        *,
        rules: Rules | None = None,
        match_length: int = 0,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
        holland: bool = False,
        table: bool = False,
        seed: int | None = None,
    ) -> Game:
        """A new game (same arguments as :class:`Game`) with ``events`` (from
        :attr:`history`) replayed; an event that cannot be replayed raises
        :class:`InvalidSaveError` naming it."""
        game = cls(
            rules=rules,
            match_length=match_length,
            score=score,
            crawford=crawford,
            holland=holland,
            table=table,
            seed=seed,
        )
        with damaged("game history"):
            if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
                raise InvalidSaveError(f"a history is a list of events, not {shown(events)}")
            game._replay(events)
        return game

    def _replay(self, events: Sequence[Any]) -> None:
        for i, event in enumerate(events):
            if not isinstance(event, dict):
                raise InvalidSaveError(f"event {i} is not an object: {shown(event)}")
            try:
                self._do(dict(event))
            except InvalidSaveError as e:
                raise InvalidSaveError(f"event {i} {shown(event)}: {e}") from e
            except ValueError as e:
                raise InvalidSaveError(f"event {i} {shown(event)} cannot be replayed: {e}") from e
        if self._events != list(events):
            raise InvalidSaveError("the events do not replay to themselves (edited record)")

    def to_dict(self) -> dict[str, Any]:
        """The game as JSON-ready data: its setup, its events and its current state."""
        return {
            "format": _FORMAT,
            "version": _VERSION,
            "setup": self._setup,
            "events": self.history,
            "state": self._snapshot(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game by replaying its events from its setup; the replayed state must
        equal the stored one, else :class:`InvalidSaveError`."""
        with damaged("game record"):
            if not isinstance(data, dict) or data.get("format") != _FORMAT:
                raise InvalidSaveError("not a bgfast game record")
            if data.get("version") != _VERSION:
                raise InvalidSaveError(f"unsupported game record version {data.get('version')!r}")
            unknown = sorted(set(data) - {"format", "version", "setup", "events", "state"})
            if unknown:
                raise InvalidSaveError(f"unknown fields {unknown} in a game record")
            events = data.get("events")
            if not isinstance(data.get("setup"), dict) or not isinstance(events, list):
                raise InvalidSaveError("a game record needs a setup and a list of events")
            game = cls._from_setup(data["setup"])
            game._replay(events)
            if "state" in data and not same_json(data["state"], game._snapshot()):
                raise InvalidSaveError("the stored state differs from the replayed events")
            return game

    def to_json(self) -> str:
        """The game as JSON text with a checksum (see :func:`bgfast.persist.dumps`)."""
        return dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """Load a game from :meth:`to_json` text; a malformed, inconsistent or tampered
        record raises :class:`InvalidSaveError`."""
        return cls.from_dict(loads(text, _FORMAT))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` atomically (a crash leaves the old file)."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Game:
        """Load a game saved with :meth:`save`."""
        # bytes: text that is not UTF-8 is a damaged save (InvalidSaveError), not a
        # UnicodeDecodeError from reading it
        with open(path, "rb") as f:
            return cls.from_json(f.read())

    def copy(self) -> Game:
        """An independent copy (rebuilt from the history)."""
        return Game.from_dict(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._setup == other._setup and self._events == other._events

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ IDs and pictures

    def match_id(self) -> str:
        """The GNU Backgammon Match ID (12 characters) of the current state."""
        from bgfast.ids import game_match_id

        return game_match_id(self)

    def gnubg_id(self) -> str:
        """The GNU Backgammon ID ``PositionID:MatchID`` of the current state."""
        from bgfast.ids import game_position_for_id

        return f"{game_position_for_id(self).id}:{self.match_id()}"

    @classmethod
    def from_gnubg_id(
        cls,
        gnubg_id: str,
        *,
        table: bool = False,
        seed: int | None = None,
        rules: Rules | None = None,
    ) -> Game:
        """A game in the state of a GNU Backgammon ``PositionID:MatchID``.

        ``rules`` gives money options the ID cannot hold (its Jacoby bit is applied).
        """
        from bgfast.ids import game_from_gnubg_id

        return game_from_gnubg_id(gnubg_id, table=table, seed=seed, rules=rules)

    def xgid(self) -> str:
        """The XGID (eXtreme Gammon ID) of the current state."""
        from bgfast.ids import game_xgid

        return game_xgid(self)

    @classmethod
    def from_xgid(cls, xgid: str, *, table: bool = False, seed: int | None = None) -> Game:
        """A game in the state of an XGID (position, cube, turn, dice, score, rules)."""
        from bgfast.ids import game_from_xgid

        return game_from_xgid(xgid, table=table, seed=seed)

    def fibs_board(self, you: str = "You", opponent: str = "Opponent") -> str:
        """The FIBS ``board:`` line as GNU Backgammon writes it, seen by player 1 (``you``)."""
        from bgfast.ids import game_fibs_board

        return game_fibs_board(self, you, opponent)

    @classmethod
    def from_fibs_board(cls, line: str, *, seed: int | None = None) -> Game:
        """A game from a FIBS ``board:`` line in GNU Backgammon's layout (player 1 is
        "you"); the Jacoby rule is not part of it."""
        from bgfast.ids import game_from_fibs_board

        return game_from_fibs_board(line, seed=seed)

    def _repr_svg_(self) -> str:
        from bgfast.svg import game_svg

        return game_svg(self)

    def __repr__(self) -> str:
        return f"<Game {self.gnubg_id()} phase={self._phase}>"

    def __str__(self) -> str:
        who = "" if self._turn is None else f"player {self._turn} "
        view = "from player 0" if self._turn is None else f"from player {self._turn}"
        lines = [str(self._position), f"[{view}] phase {self._phase}, {who}on roll, {self._cube}"]
        if self._dice:
            lines.append(f"dice {self._dice[0]}{self._dice[1]}")
        if self._result:
            r = self._result
            lines.append(f"player {r.winner} wins {r.points} ({r.kind}, {r.reason})")
        return "\n".join(lines)
