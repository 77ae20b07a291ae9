"""One game of backgammon: the referee that moves a :class:`~bgfast.GameState` along.

:class:`Game` owns the flow of a game: the opening roll (R3), the doubling window before
each roll (R17-R19), rolls (seeded or given), moves checked by the core exactly as
:meth:`bgfast.Position.play` checks them, undo until commit (R29), resignations, and the
result (R16). A lenient *table* mode records illegal moves from real games; they may be
called until the next roll (R31).

The state itself is one immutable value, :class:`~bgfast.GameState` (:attr:`Game.state`),
which every decoder produces and every encoder reads (:mod:`bgfast.codec`). Every change
goes through one recorded event (:mod:`bgfast.events`), so a game can be rebuilt from its
history (:meth:`Game.from_json`), and a refused call leaves the game unchanged.

Players are ``0`` and ``1`` as in GNU Backgammon. In pictures and XGIDs player 1 is the bottom
side (``X``, upper-case in an XGID) and player 0 the top side (``O``). The core's positions are
seen from the side to move; :attr:`Game.position` is seen from :attr:`Game.turn`.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from bgfast import codec, svg
from bgfast import events as ev
from bgfast._core import (
    BgfastError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    check_dice,
)
from bgfast.cube import Cube
from bgfast.errors import GameStateError, InvalidSaveError, MatchOptionError, shown
from bgfast.persist import Saved, damaged, same_json
from bgfast.scoring import Rules
from bgfast.state import (
    FIELDS,
    CubeOffer,
    GameResult,
    GameState,
    Resignation,
    cube_of_resignation,
    situation,
    why_not,
)
from bgfast.svg import Home
from bgfast.vocab import (
    OFFERS,
    Kind,
    Offer,
    Phase,
    Roll,
    check_flag,
    check_kind,
    check_player,
    check_seed,
)

if TYPE_CHECKING:
    from typing import Unpack

    import numpy.typing as npt

    from bgfast.vocab import GameSettings

__all__ = ["Game", "GameResult", "Phase"]

_FORMAT = "bgfast-game"
_VERSION = 1
# The referee's own fields of a saved game's setup and state, beside the GameState's.
_REFEREE = ("table", "seed", "draws", "staged", "last_move")


@dataclass(frozen=True)
class _Staged:
    """A move made but not committed (R29)."""

    text: str
    result: Position  # opponent to move
    illegal: bool


@dataclass(frozen=True)
class _LastMove:
    """The last committed move, while it may still be called (R31)."""

    player: int
    dice: tuple[int, int]
    before: Position  # seen from ``player``
    text: str
    illegal: bool
    cube: Cube  # before the move: a call takes back a double made since, with the move


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


class Game(Saved):
    """A game of backgammon (money or one game of a match) as an inspectable state machine.

    Create one with the match context, then drive it with :meth:`roll`, :meth:`double`,
    :meth:`take`, :meth:`drop`, :meth:`move`/:meth:`undo`/:meth:`commit` (or :meth:`play`),
    :meth:`resign`/:meth:`accept`/:meth:`reject`. :attr:`phase` and :attr:`player_to_act`
    say what may happen next; anything else raises :class:`~bgfast.GameStateError` (or the
    core's :class:`~bgfast.IllegalMoveError`) and changes nothing. :meth:`from_state` starts
    a game from any :class:`~bgfast.GameState`. Not thread-safe: serialise the calls on one
    game (two threads acting at once can both pass the checks).

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
            ``|seed| < 2**64``); ``None`` picks one at random (63 bits; it is kept, so the
            game stays reproducible). Whoever knows the seed knows every roll to come: a
            save (:meth:`to_json`, :meth:`to_dict`) holds it, so keep saves from players.
            A server picks ``None``: a small seed could be found from the rolls shown.

    Serving players: the actions of the player to act (:meth:`roll`, :meth:`double`,
    :meth:`take`, :meth:`drop`, :meth:`beaver`, :meth:`raccoon`, :meth:`move`,
    :meth:`undo`, :meth:`commit`, :meth:`play`, :meth:`accept`, :meth:`reject`) take a
    keyword ``player``: given, the action is refused (:class:`~bgfast.GameStateError`,
    nothing changes) unless that player is :attr:`player_to_act` (either player may make
    the opening roll). Without it an action is made for :attr:`player_to_act`, whoever
    asks. :meth:`resign` names its resigner already.
    """

    FORMAT: ClassVar[str] = _FORMAT
    WHAT: ClassVar[str] = "game"

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
        state = GameState.start(
            rules=rules,
            match_length=match_length,
            score=score,
            crawford=crawford,
            holland=holland,
        )
        self._begin(state, table, seed)

    @classmethod
    def from_state(cls, state: GameState, *, table: bool = False, seed: int | None = None) -> Game:
        """A game that starts in ``state`` (any state still in play: the opening, a cube
        decision, a roll to play...), in table mode or not, with the dice stream of
        ``seed``. A finished state raises :class:`~bgfast.GameStateError`."""
        if not isinstance(state, GameState):
            raise TypeError(f"state must be a bgfast GameState, not {type(state).__name__}")
        if state.is_over:
            raise GameStateError(
                f"from_state: a game starts from a state in play, not a finished one; "
                f"{situation(state)}"
            )
        game = cls.__new__(cls)
        game._begin(state, table, seed)
        return game

    def _begin(self, state: GameState, table: object, seed: object) -> None:
        self._state = state
        self._table = check_flag("table", table)
        self._seed = check_seed(seed)
        self._draws = 0
        self._staged: _Staged | None = None
        self._moves: list[Move] | None = None  # legal moves of the current roll (cache)
        self._last: _LastMove | None = None
        self._events: list[ev.Event] = []
        self._setup: dict[str, Any] = self._snapshot()

    # ------------------------------------------------------------------ inspection

    @property
    def state(self) -> GameState:
        """The state of the game now (an immutable value; a staged move is not part of it:
        see :attr:`staged_position`)."""
        return self._state

    @property
    def rules(self) -> Rules:
        """The scoring and cube options."""
        return self._state.rules

    @property
    def match_length(self) -> int:
        """Points to win the match (R20); 0 in money play."""
        return self._state.match_length

    @property
    def score(self) -> tuple[int, int]:
        """The match score before this game, ``(player 0, player 1)``."""
        return self._state.score

    @property
    def crawford(self) -> bool:
        """Whether this is the Crawford game (R21): the cube is out of play."""
        return self._state.crawford

    @property
    def post_crawford(self) -> bool:
        """Whether this is a post-Crawford game: the Crawford game has been played, a player
        is one away and the cube is back (R21; never in a 1-point match, see
        :func:`bgfast.scoring.is_post_crawford`)."""
        return self._state.post_crawford

    @property
    def holland(self) -> bool:
        """Whether the Holland rule is in force (it applies in post-Crawford games only)."""
        return self._state.holland

    @property
    def table(self) -> bool:
        """Whether this game is in lenient table mode (illegal moves recorded, R31)."""
        return self._table

    @property
    def seed(self) -> int:
        """The seed of the dice stream used by :meth:`roll` without dice.

        Secret from the players: with it (and the draw count a save also holds) anyone can
        compute every roll still to come. Show players :attr:`state`, :meth:`gnubg_id`,
        :meth:`xgid` or :attr:`history`, which hold no seed."""
        return self._seed

    @property
    def phase(self) -> Phase:
        """Where the game stands (see :data:`bgfast.vocab.Phase`)."""
        return self._state.phase

    @property
    def turn(self) -> int | None:
        """The player on roll (``None`` before the opening roll)."""
        return self._state.turn

    @property
    def player_to_act(self) -> int | None:
        """Who must act next: the roller, the player answering a double or resignation;
        ``None`` before the opening roll (both roll) and after the game."""
        return self._state.player_to_act

    @property
    def position(self) -> Position:
        """The board seen from :attr:`turn` (from player 0 before the opening roll).

        While a move is staged (R29) this is still the position before it; see
        :attr:`staged_position`.
        """
        return self._state.position

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
        return self._state.dice

    @property
    def cube(self) -> Cube:
        """The doubling cube (R17); while a double is pending it shows the old value."""
        return self._state.cube

    @property
    def offered_cube(self) -> int | None:
        """The cube value on offer while a double, beaver or raccoon waits, else ``None``."""
        offer = self._state.offer
        return None if offer is None else offer.value

    @property
    def offer_kind(self) -> Offer | None:
        """``double``, ``beaver`` or ``raccoon`` while one waits for an answer."""
        offer = self._state.offer
        return None if offer is None else offer.kind

    @property
    def resignation(self) -> tuple[int, Kind] | None:
        """``(player, kind)`` of a resignation waiting for an answer, else ``None``."""
        r = self._state.resignation
        return None if r is None else (r.player, r.kind)

    @property
    def result(self) -> GameResult | None:
        """The result once the game is over, else ``None``."""
        return self._state.result

    @property
    def is_over(self) -> bool:
        """Whether the game has a result."""
        return self._state.is_over

    @property
    def events(self) -> tuple[ev.Event, ...]:
        """The events so far, typed (:mod:`bgfast.events`): replaying them rebuilds this
        game exactly."""
        return tuple(self._events)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The events so far in their JSON form (new dicts): replaying them with
        :meth:`from_history` rebuilds this game exactly."""
        return [ev.to_dict(e) for e in self._events]

    @property
    def last_move_illegal(self) -> bool:
        """Whether the last committed move broke the rules and may still be called (R31)."""
        return self._last is not None and self._last.illegal

    @property
    def closed(self) -> bool:
        """Whether the game is over and closed (see :meth:`close`)."""
        return bool(self._events) and isinstance(self._events[-1], ev.Close)

    def board(self) -> npt.NDArray[np.uint8]:
        """The checkers as a ``(2, 25)`` array indexed by player: row ``p`` is player
        ``p``'s checkers on its own points 1..24 (columns 0..23) and its bar (column 24)."""
        return self._state.board()

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(player 0, player 1)``."""
        return self._state.pips()

    def legal_moves(self) -> list[Move]:
        """The legal moves for the rolled dice (``move`` phase), from the core."""
        return list(self._legal())

    def _legal(self) -> list[Move]:
        self._need("legal_moves", ("move",), "no dice to play: roll first", self._opening_rule())
        state = self._state
        assert state.dice is not None
        if self._moves is None:
            self._moves = list(state.position.moves(state.dice))
        return self._moves

    def why_not_double(self) -> str | None:
        """Why the player on roll may not double now, or ``None`` if they may (R17, R18,
        R21, the Holland rule)."""
        return self._state.why_not_double()

    def may_double(self) -> bool:
        """Whether the player on roll may double now (R17, R18, R21)."""
        return self.why_not_double() is None

    # ------------------------------------------------------------------ actions

    def roll(
        self, dice: int | Roll | None = None, d2: int | None = None, *, player: int | None = None
    ) -> tuple[int, int]:
        """Roll the dice (from the seeded stream) or record dice rolled by hand, given as
        one pair (``roll((3, 1))``) or two ints (``roll(3, 1)``), as ``Position.moves``
        takes them (:class:`~bgfast.InvalidDiceError` otherwise).

        At the opening (R3) the pair is ``(player 0's die, player 1's die)``: a tie is
        rolled again (with an automatic double in money play if the rules allow, R22), else
        the higher die moves first, playing both dice. Later, the player on roll rolls two
        dice; a roll with no legal play (the opening roll too, from a position given to
        :meth:`GameState.start`) passes the turn at once (R10). Rolling ends the
        time to call an illegal move (R31). Returns the dice rolled.

        With ``player``, only that player may roll (:attr:`player_to_act`); either may make
        the opening roll.
        """
        given = None if dice is None and d2 is None else check_dice(dice, d2)
        self._check_player("roll", player)
        recorded = self._apply(ev.Roll(given))
        assert isinstance(recorded, ev.Roll) and recorded.dice is not None
        return recorded.dice

    def double(self, *, player: int | None = None) -> None:
        """The player on roll offers a double, before rolling (R17, R18). With ``player``,
        refused unless that player is on roll (:attr:`player_to_act`)."""
        self._check_player("double", player)
        self._apply(ev.Double())

    def take(self, *, player: int | None = None) -> None:
        """Accept the pending double, beaver or raccoon (R19): the taker owns the cube.
        With ``player``, refused unless that player answers it (:attr:`player_to_act`)."""
        self._check_player("take", player)
        self._apply(ev.Take())

    def drop(self, *, player: int | None = None) -> None:
        """Pass (refuse) the pending double, beaver or raccoon (R19): the game ends and the
        other side wins the cube value before this offer. With ``player``, refused unless
        that player answers it (:attr:`player_to_act`)."""
        self._check_player("drop", player)
        self._apply(ev.Drop())

    def beaver(self, *, player: int | None = None) -> None:
        """Money option: the doubled player takes and at once redoubles, keeping the cube.
        With ``player``, refused unless that player is the doubled one
        (:attr:`player_to_act`)."""
        self._check_player("beaver", player)
        self._apply(ev.Beaver())

    def raccoon(self, *, player: int | None = None) -> None:
        """Money option: the doubler answers a beaver by doubling once more. With
        ``player``, refused unless that player is the doubler (:attr:`player_to_act`)."""
        self._check_player("raccoon", player)
        self._apply(ev.Raccoon())

    def move(self, move: Move | str, *, player: int | None = None) -> None:
        """Make (stage) a move for the rolled dice; it replaces any staged move and may be
        undone or changed until :meth:`commit` (R29).

        The move is legal exactly when :meth:`bgfast.Position.play` accepts it for the dice:
        when it is one of the legal moves, however it is written ("a move is its result");
        it is recorded in the core's notation. Otherwise :class:`~bgfast.IllegalMoveError`
        names the rule broken (R4 for a play that does not use the dice), and bad notation
        is an :class:`~bgfast.InvalidMoveError`. In table mode an illegal move that a hand
        can make is staged anyway, as written, and may be called (R31).

        With ``player``, refused unless that player is to move (:attr:`player_to_act`).
        """
        self._check_player("move", player)
        self._stage(move, "move")

    def _stage(self, move: Move | str, action: str) -> None:
        """:meth:`move`, its refusals naming ``action`` (``move`` or ``play``)."""
        if isinstance(move, Move):
            self._apply(ev.Move(str(move)), hint=move, action=action)
        elif isinstance(move, str):
            self._apply(ev.Move(move), action=action)
        else:
            raise InvalidMoveError(f"a move is a Move or text, not {type(move).__name__}")

    def undo(self, *, player: int | None = None) -> None:
        """Take back the staged move (R29). With ``player``, refused unless that player is
        the mover (:attr:`player_to_act`)."""
        self._check_player("undo", player)
        self._apply(ev.Undo())

    def commit(self, *, player: int | None = None) -> None:
        """Commit the staged move ("the dice are picked up", R29): the turn passes, or the
        game ends if the mover has borne off all checkers (R15, R16). With ``player``,
        refused unless that player is the mover (:attr:`player_to_act`)."""
        self._check_player("commit", player)
        self._apply(ev.Commit())

    def play(self, move: Move | str, *, player: int | None = None) -> None:
        """:meth:`move` then :meth:`commit`: changes nothing if the move is refused. With
        ``player``, refused unless that player is to move (:attr:`player_to_act`)."""
        self._check_player("play", player)
        self._stage(move, "play")
        self.commit()

    def call(self, *, player: int | None = None) -> None:
        """Call the last move illegal (table mode, R31), before the next roll: it is taken
        back and the same player plays the same dice again. A double made since, waiting or
        taken, is taken back with it (it was made on a position that does not stand). A
        game that ended with an illegal bear-off may be called until the game is closed
        (:meth:`close`).

        Who may call: either player (R31: the opponent calls the move, or the mover
        corrects it), whoever is to act then (the opponent on roll, the mover answering a
        double made since, nobody once the game is over). With ``player``, it is checked
        as the other actions check it: a player is 0 or 1, else
        :class:`~bgfast.GameStateError` with their message and nothing changes; either
        player then may call, so a server relaying its clients' actions passes ``player``
        to every action alike. Who called is not recorded: a call replays the same."""
        if player is not None:
            try:
                check_player(player)
            except GameStateError as e:
                raise GameStateError(f"call: {e}") from None
        self._apply(ev.Call())

    def close(self) -> None:
        """Close a finished game: the next game has started, so its last move stands and
        can no longer be called (R31: a call comes before the next roll).
        :meth:`bgfast.Match.new_game` closes the previous game."""
        self._apply(ev.Close())

    def resign(self, kind: Kind = "single", player: int | None = None) -> None:
        """Offer to resign a single game, a gammon or a backgammon. ``player`` defaults to
        the player to act. The opponent answers with :meth:`accept` or :meth:`reject`."""
        self._apply(ev.Resign(kind, player))

    def accept(self, *, player: int | None = None) -> None:
        """Accept the pending resignation: the game ends for its value (R16, R23). With
        ``player``, refused unless that player is the one offered it
        (:attr:`player_to_act`)."""
        self._check_player("accept", player)
        self._apply(ev.Accept())

    def reject(self, *, player: int | None = None) -> None:
        """Reject the pending resignation: play goes on where it stood. With ``player``,
        refused unless that player is the one offered it (:attr:`player_to_act`)."""
        self._check_player("reject", player)
        self._apply(ev.Reject())

    def _check_player(self, action: str, player: object) -> None:
        """Refuse ``action`` asked for by ``player`` (``None``: not said, the action is made
        for :attr:`player_to_act`) unless that player may make it now: the player to act
        (:attr:`player_to_act`). When nobody is to act (the opening roll, which both
        players make, R3; a finished game) any player passes, and the action's own checks
        decide. A server relaying its clients' actions passes ``player`` so that a player
        cannot act for the other. :class:`~bgfast.GameStateError` names who is to act and
        the rule; nothing changes."""
        if player is None:
            return
        try:
            asker = check_player(player)
        except GameStateError as e:
            raise GameStateError(f"{action}: {e}") from None
        state = self._state
        actor = state.player_to_act
        if actor is None or asker == actor:
            return
        if state.phase == "doubled":
            rule = "R19: the player offered the cube answers"
        elif state.phase == "resign":
            rule = "a resignation is answered by the player it is offered to"
        elif action == "double":
            rule = "R18: a double comes only at the start of one's own turn"
        elif action == "roll" and state.phase == "move":
            rule = "R30: a roll comes after the opponent picks up his dice"
        else:
            rule = "R3: the players take turns"
        raise GameStateError(
            f"{action}: player {asker} may not act now, player {actor} is to act "
            f"({situation(state)}; {rule})"
        )

    # ------------------------------------------------------------------ the referee

    def _apply(self, event: ev.Event, hint: Move | None = None, action: str = "move") -> ev.Event:
        """Apply one event: check everything and compute the new state first, then change
        the game and record the event (as completed: the dice drawn, the move's notation).
        Returns the recorded event. A move's refusals name ``action`` (``play`` stages one
        too). The handlers build the new state with ``GameState._evolve``, unchecked: each
        checks that its action is allowed first, and a valid state's every allowed action
        leads to a valid state (:mod:`bgfast.state`'s checks hold by construction, which
        ``tests/test_speedups.py`` plays out)."""
        recorded: ev.Event
        if isinstance(event, ev.Move):
            recorded = self._on_move(event, hint, action)
        else:
            handler = _HANDLERS.get(type(event))
            if handler is None:
                raise InvalidSaveError(f"unknown event {shown(event)}")
            recorded = handler(self, event)
        self._events.append(recorded)
        return recorded

    def _need(self, action: str, phases: tuple[Phase, ...], missing: str, rule: str = "") -> None:
        """Refuse ``action`` unless the game is in one of ``phases``. The message names the
        action and says why in a player's words (:func:`bgfast.state.why_not`): what the
        game waits for, or ``missing`` (what the action needs) with where the game stands
        and ``rule``."""
        if self._state.phase not in phases:
            raise GameStateError(f"{action}: {why_not(self._state, action, missing, rule)}")

    def _on_roll(self, event: ev.Roll) -> ev.Roll:
        given = None if event.dice is None else check_dice(event.dice)
        state = self._state
        if state.phase == "move":
            assert state.dice is not None
            raise GameStateError(
                f"roll: too early: player {state.turn} is still to play "
                f"{state.dice[0]}-{state.dice[1]} and has not picked up the dice; a roll "
                "comes after the move is committed (R29, R30)"
            )
        self._need("roll", ("opening", "roll"), "no roll is due")
        draws = self._draws
        if given is None:
            dice = _roll_dice(self._seed, draws)
            draws += 1
        else:
            dice = given
            if event.random:
                expect = _roll_dice(self._seed, draws)
                if expect != dice:
                    raise InvalidSaveError(
                        f"recorded random roll {dice} is not the seeded stream's {expect}"
                    )
                draws += 1
        recorded = ev.Roll(dice, given is None or event.random)
        if state.phase == "opening":
            d0, d1 = dice
            if d0 == d1:
                cube = state.cube
                if (
                    state.match_length == 0
                    and state.auto_doubles < state.rules.auto_doubles
                    and cube.value * 2 <= cube.max_value
                ):
                    state = state._evolve(
                        cube=cube.auto_doubled(), auto_doubles=state.auto_doubles + 1
                    )
                self._state, self._draws = state, draws
                return recorded
            # The higher die's player plays both dice (R3), as any roll: or passes (R10).
            winner = 0 if d0 > d1 else 1
            state = state._evolve(
                phase="roll",
                turn=winner,
                position=state.position.flipped() if winner == 1 else state.position,
            )
            dice = (max(dice), min(dice))
        assert state.turn is not None
        moves = list(state.position.moves(dice))
        if len(moves) == 1 and moves[0].is_pass:  # R10: the turn passes at once
            state = state._evolve(
                position=moves[0].result,
                turn=1 - state.turn,
                turns_played=_plus_one(state.turns_played, state.turn),
            )
        else:
            state = state._evolve(phase="move", dice=dice)
        self._state, self._draws = state, draws
        self._last = None  # R31: the next roll is made, the last move stands
        self._moves = None if state.phase != "move" else moves
        return recorded

    def _on_double(self, event: ev.Double) -> ev.Double:
        state = self._state
        reason = state.why_not_double()
        if reason is not None:
            raise GameStateError(f"double: {reason}")
        assert state.turn is not None
        self._state = state._evolve(
            phase="doubled", offer=CubeOffer(state.turn, state.cube.value * 2, "double")
        )
        return event

    def _on_beaver(self, event: ev.Beaver) -> ev.Beaver:
        self._redouble("beaver", self._state.rules.beavers, "no double to answer with a beaver")
        return event

    def _on_raccoon(self, event: ev.Raccoon) -> ev.Raccoon:
        self._redouble("raccoon", self._state.rules.raccoons, "no beaver to answer with a raccoon")
        return event

    def _redouble(self, kind: Offer, allowed: bool, missing: str) -> None:
        self._need(kind, ("doubled",), missing, "R19")
        state = self._state
        offer = state.offer
        assert offer is not None
        name = f"{kind}s"
        if state.match_length:
            raise MatchOptionError(f"{kind}: {name} are a money option, not used in match play")
        if not allowed:
            raise MatchOptionError(f"{kind}: {name} are not allowed by this game's rules")
        level = OFFERS.index(kind)
        if offer.level != level - 1:
            raise GameStateError(
                f"{kind}: a {kind} answers a {OFFERS[level - 1]}, not a {offer.kind} "
                f"({situation(state)})"
            )
        if offer.value * 2 > state.cube.max_value:
            raise GameStateError(f"{kind}: the cube may not pass {state.cube.max_value}")
        self._state = state._evolve(offer=CubeOffer(offer.doubler, offer.value * 2, kind))

    def _on_take(self, event: ev.Take) -> ev.Take:
        self._need("take", ("doubled",), "no double to answer", "R19")
        state = self._state
        offer = state.offer
        assert offer is not None
        self._state = state._evolve(
            phase="roll",
            offer=None,
            cube=state.cube.taken(1 - offer.doubler, offer.value),
        )
        return event

    def _on_drop(self, event: ev.Drop) -> ev.Drop:
        self._need("drop", ("doubled",), "no double to answer", "R19")
        offer = self._state.offer
        assert offer is not None
        loser = offer.responder
        self._finish(GameResult(1 - loser, "single", offer.value // 2, "drop"), offer=None)
        return event

    def _on_move(self, event: ev.Move, hint: Move | None, action: str) -> ev.Move:
        self._need(action, ("move",), "no dice to play: roll first", self._opening_rule())
        text = event.move
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move event needs move text, not {shown(text)}")
        state = self._state
        assert state.dice is not None
        legal = self._legal()
        if hint is not None and any(hint is m for m in legal):
            self._staged = _Staged(text, hint.result, False)  # one of legal_moves(): valid
            return event
        try:
            # Legal exactly when Position.play says so: one grammar, one referee.
            found = state.position.parse_move(text, state.dice)
            staged = _Staged(str(found), found.result, False)
        except IllegalMoveError:
            if not self._table:
                raise
            # R31: recorded as made, callable until the next roll; a hand must be able to
            # make it (the core refuses what none can, naming the rule).
            staged = _Staged(text, state.position.play_physically(text), True)
        self._staged = staged
        return ev.Move(staged.text)

    def _on_undo(self, event: ev.Undo) -> ev.Undo:
        missing, rule = "no move staged to undo", "a committed move is final, R29"
        self._need("undo", ("move",), missing, rule)
        if self._staged is None:
            raise GameStateError(f"undo: {why_not(self._state, 'undo', missing, 'R29')}")
        self._staged = None
        return event

    def _on_commit(self, event: ev.Commit) -> ev.Commit:
        missing = "no move staged to commit"
        self._need("commit", ("move",), missing, "R29")
        staged = self._staged
        if staged is None:
            raise GameStateError(f"commit: {why_not(self._state, 'commit', missing, 'R29')}")
        state = self._state
        assert state.turn is not None and state.dice is not None
        mover = state.turn
        outcome = staged.result.outcome
        result = None
        if outcome is not None:
            kind: Kind = outcome.kind
            points = state.rules.points(kind, state.cube.value, state.cube.centred)
            result = GameResult(mover, kind, points, "bear-off")
        after = state._evolve(
            position=staged.result,
            turn=1 - mover,
            dice=None,
            phase="roll" if result is None else "over",
            result=result,
            turns_played=_plus_one(state.turns_played, mover),
        )
        self._last = _LastMove(
            mover, state.dice, state.position, staged.text, staged.illegal, state.cube
        )
        self._state = after
        self._staged = None
        self._moves = None
        return event

    def _on_close(self, event: ev.Close) -> ev.Close:
        if not self._state.is_over:
            # Not why_not: whatever the game waits for, the answer is that it goes on.
            raise GameStateError(f"close: the game is not over yet ({situation(self._state)})")
        if self.closed:
            raise GameStateError("close: the game is already closed")
        self._last = None  # R31: the next game's roll ends the time to call
        return event

    def _on_call(self, event: ev.Call) -> ev.Call:
        if self.closed:
            raise GameStateError(
                "call: no move to call: the next game has started, so the last move stands (R31)"
            )
        state = self._state
        last = self._last
        # Before the next roll (R31): also while a double made since waits for its answer
        # or after it was taken; the call takes the double back with the move.
        open_game = state.phase in ("roll", "doubled")
        ended = (
            state.phase == "over"
            and state.result is not None
            and (state.result.reason == "bear-off")
        )
        if last is None or not (open_game or ended):
            waiting = "" if last is None else f" ({situation(state)})"
            raise GameStateError(
                f"call: no move to call{waiting}: a move may be called until the next roll (R31)"
            )
        if not last.illegal:
            raise GameStateError(f"call: the last move {last.text} was legal (R31)")
        played = list(state.turns_played)
        played[last.player] -= 1
        self._state = state._evolve(
            phase="move",
            result=None,
            turn=last.player,
            position=last.before,
            dice=last.dice,
            turns_played=(played[0], played[1]),
            cube=last.cube,
            offer=None,
        )
        self._moves = None
        self._last = None
        return event

    def _on_resign(self, event: ev.Resign) -> ev.Resign:
        self._need(
            "resign", ("roll", "move", "doubled"), "nobody may resign before the game starts", "R3"
        )
        state = self._state
        try:
            kind = check_kind(event.kind, GameStateError)
            player = state.player_to_act if event.player is None else event.player
            player = check_player(player)
        except GameStateError as e:
            raise GameStateError(f"resign: {e}") from None
        self._state = state._evolve(
            phase="resign", resignation=Resignation(player, kind, state.phase)
        )
        # The event is saved: a player given as a numpy integer is recorded as the int.
        return event if event.player is None else ev.Resign(kind, player)

    def _on_accept(self, event: ev.Accept) -> ev.Accept:
        self._need("accept", ("resign",), "no resignation to accept")
        state = self._state
        r = state.resignation
        assert r is not None
        cube = cube_of_resignation(state)
        points = state.rules.points(r.kind, cube.value, cube.centred)
        self._finish(GameResult(1 - r.player, r.kind, points, "resign"), offer=None, cube=cube)
        return event

    def _on_reject(self, event: ev.Reject) -> ev.Reject:
        self._need("reject", ("resign",), "no resignation to reject")
        r = self._state.resignation
        assert r is not None
        self._state = self._state._evolve(phase=r.back_to, resignation=None)
        return event

    def _opening_rule(self) -> str:
        """R3 while the game waits for its opening roll (no dice to play yet), else none."""
        return "R3" if self._state.phase == "opening" else ""

    def _finish(self, result: GameResult, **changes: Any) -> None:
        self._state = self._state._evolve(
            phase="over", result=result, dice=None, resignation=None, **changes
        )
        self._moves = None
        self._staged = None

    # ------------------------------------------------------------------ persistence

    def _snapshot(self) -> dict[str, Any]:
        """The whole state as plain data: the GameState's fields and the referee's (also
        the setup a game is rebuilt from)."""
        staged, last = self._staged, self._last
        return {
            **self._state.to_dict(),
            "table": self._table,
            "seed": self._seed,
            "draws": self._draws,
            "staged": None if staged is None else [staged.text, staged.illegal],
            "last_move": None
            if last is None
            else [last.player, list(last.dice), last.before.id, last.text, last.illegal],
        }

    @classmethod
    def _from_setup(cls, setup: dict[str, Any]) -> Game:
        """A game in the state ``setup`` (a :meth:`_snapshot` without a staged move, last
        move or result), checked for consistency."""
        if not isinstance(setup, dict):
            raise InvalidSaveError(f"a game setup is an object, not {shown(setup)}")
        expected = set(FIELDS) | set(_REFEREE)
        if set(setup) != expected:
            extra, missing = sorted(set(setup) - expected), sorted(expected - set(setup))
            raise InvalidSaveError(
                f"the setup is not the state it describes (unknown fields {extra}, "
                f"missing {missing})"
            )
        state = GameState.from_dict({k: setup[k] for k in FIELDS})
        if state.is_over:
            raise InvalidSaveError("a game cannot start in phase 'over'")
        if setup["staged"] is not None or setup["last_move"] is not None:
            raise InvalidSaveError("a setup holds no staged move or last move")
        seed, draws = setup["seed"], setup["draws"]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidSaveError(f"bad seed {shown(seed)}")
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
            raise InvalidSaveError(f"bad draw count {shown(draws)}")
        game = cls.from_state(state, table=setup["table"], seed=seed)
        game._draws = draws
        game._setup = game._snapshot()
        if not same_json(setup, game._setup):
            raise InvalidSaveError(
                "the setup is not the state it describes (a field in another form)"
            )
        return game

    @classmethod
    def from_history(
        cls, events: Sequence[dict[str, Any]], **settings: Unpack[GameSettings]
    ) -> Game:
        """A new game (the same keyword arguments as :class:`Game`) with ``events`` (from
        :attr:`history`) replayed; an event that cannot be replayed raises
        :class:`~bgfast.InvalidSaveError` naming it."""
        game = cls(**settings)
        with damaged("game history"):
            if isinstance(events, (str, bytes)) or not isinstance(events, Sequence):
                raise InvalidSaveError(f"a history is a list of events, not {shown(events)}")
            game._replay(events)
        return game

    def _replay(self, events: Sequence[Any]) -> None:
        kept: list[Any] = []
        # Saved before the opening pass (R10, 2026-12-04), an opening roll with no play is
        # followed by an empty move and its commit: both are read as the pass they were.
        passed_at_opening = after_skipped_move = False
        for i, raw in enumerate(events):
            try:
                event = ev.from_dict(raw)
                if passed_at_opening and isinstance(event, ev.Move) and event.move == "":
                    passed_at_opening, after_skipped_move = False, True
                    continue
                if after_skipped_move and isinstance(event, ev.Commit):
                    after_skipped_move = False
                    continue
                opening = self._state.phase == "opening"
                self._apply(event)
                passed_at_opening = opening and self._state.phase == "roll"
                after_skipped_move = False
                kept.append(raw)
            except InvalidSaveError as e:
                raise InvalidSaveError(f"event {i} {shown(raw)}: {e}") from e
            except ValueError as e:
                raise InvalidSaveError(f"event {i} {shown(raw)} cannot be replayed: {e}") from e
        if self.history != kept:
            raise InvalidSaveError("the events do not replay to themselves (edited record)")
        # The handlers build each state unchecked (GameState._evolve), from their own
        # checks; a loaded game's state is checked in full once more, as a loader's is.
        try:
            self._state._check()
        except BgfastError as e:  # a handler went wrong: the state is no game's
            raise InvalidSaveError(f"the events replay to an impossible state: {e}") from e

    def to_dict(self) -> dict[str, Any]:
        """The game as JSON-ready data: its setup, its events and its current state.

        The record holds the dice: the :attr:`seed` and the number of rolls drawn, so
        anyone who reads it can compute every roll to come. Keep it on the server (it is
        what resumes the game with the same dice); show players :attr:`state`,
        :meth:`gnubg_id`, :meth:`xgid` or :attr:`history`, which hold no seed."""
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
        equal the stored one, else :class:`~bgfast.InvalidSaveError`."""
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

    def copy(self) -> Game:
        """An independent copy: the same state, history and staged move (no replay needed;
        every part but the lists is an immutable value)."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._events = list(self._events)
        twin._moves = None if self._moves is None else list(self._moves)
        twin._setup = copy.deepcopy(self._setup)
        return twin

    def __copy__(self) -> Game:
        """``copy.copy(game)`` is :meth:`copy`: an independent game (a shallow copy would
        share the event list, so playing on it would corrupt this game)."""
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._setup == other._setup and self._events == other._events

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ IDs and pictures

    def match_id(self) -> str:
        """The GNU Backgammon Match ID (12 characters) of the current state."""
        return codec.match_id_of(self._state)

    def gnubg_id(self) -> str:
        """The GNU Backgammon ID ``PositionID:MatchID`` of the current state."""
        return codec.gnubg_id_of(self._state)

    @classmethod
    def from_gnubg_id(
        cls,
        gnubg_id: str,
        *,
        table: bool = False,
        seed: int | None = None,
        rules: Rules | None = None,
    ) -> Game:
        """A game in the state of a GNU Backgammon ``PositionID:MatchID``
        (:func:`bgfast.codec.state_from_gnubg_id`).

        ``rules`` gives money options the ID cannot hold (its Jacoby bit is applied).
        """
        return cls.from_state(
            codec.state_from_gnubg_id(gnubg_id, rules=rules), table=table, seed=seed
        )

    def xgid(self) -> str:
        """The XGID (eXtreme Gammon ID) of the current state (:func:`bgfast.codec.xgid_of`)."""
        return codec.xgid_of(self._state)

    @classmethod
    def from_xgid(cls, xgid: str, *, table: bool = False, seed: int | None = None) -> Game:
        """A game in the state of an XGID (position, cube, turn, dice, score, rules)."""
        return cls.from_state(codec.state_from_xgid(xgid), table=table, seed=seed)

    def fibs_board(self, you: str = "You", opponent: str = "Opponent") -> str:
        """The FIBS ``board:`` line as GNU Backgammon writes it, seen by player 1 (``you``)."""
        return codec.fibs_board_of(self._state, you, opponent)

    @classmethod
    def from_fibs_board(cls, line: str, *, seed: int | None = None) -> Game:
        """A game from a FIBS ``board:`` line in any layout FIBS allows (colour, direction,
        home), as FIBS servers and GNU Backgammon write it, a pending double included
        (player 1 is "you"; :func:`bgfast.codec.state_from_fibs_board`); the Jacoby rule
        is not part of it."""
        return cls.from_state(codec.state_from_fibs_board(line), seed=seed)

    def svg(self, *, home: Home = "right", bottom: int = 1) -> str:
        """An SVG picture of the game now, player ``bottom`` at the bottom (player 1 by
        default, as GNU Backgammon and XG draw it); see :func:`bgfast.svg.game_svg`."""
        return svg.game_svg(self, home=home, bottom=bottom)

    def _repr_svg_(self) -> str:
        return svg.game_svg(self)

    def __repr__(self) -> str:
        return f"<Game {self.gnubg_id()} phase={self.phase}>"

    def __str__(self) -> str:
        """An ASCII board with the seats labelled (player 1 ``X`` at the bottom, player 0
        ``O`` at the top, whoever is on roll), what the game waits for, and a staged move."""
        lines = [str(self._state)]
        if self._staged is not None:
            lines.append(f"staged move (not committed, R29): {self._staged.text or '(pass)'}")
        if self.last_move_illegal:
            assert self._last is not None
            lines.append(
                f"player {self._last.player}'s last move {self._last.text} was illegal "
                "and may be called (R31)"
            )
        return "\n".join(lines)


def _plus_one(pair: tuple[int, int], player: int) -> tuple[int, int]:
    return (pair[0] + 1, pair[1]) if player == 0 else (pair[0], pair[1] + 1)


# Every event's handler but a move's (which also takes the Move object it came from).
_HANDLERS: dict[type[Any], Callable[[Game, Any], ev.Event]] = {
    ev.Roll: Game._on_roll,
    ev.Double: Game._on_double,
    ev.Take: Game._on_take,
    ev.Drop: Game._on_drop,
    ev.Beaver: Game._on_beaver,
    ev.Raccoon: Game._on_raccoon,
    ev.Undo: Game._on_undo,
    ev.Commit: Game._on_commit,
    ev.Call: Game._on_call,
    ev.Close: Game._on_close,
    ev.Resign: Game._on_resign,
    ev.Accept: Game._on_accept,
    ev.Reject: Game._on_reject,
}
