"""A refereed game's events replayed quickly, for analysis: the moments between them.

:func:`bgfast.replay.walk` replays a game through a fresh :class:`~bgfast.Game`, which checks
every event again and builds a validated :class:`~bgfast.GameState` after each; the
analysis of a match needs only the board, the dice and the cube around each event, and the
events of a game that was refereed once are known to be legal. :func:`moments` follows them
with the core's positions and the game's own :class:`~bgfast.Cube` values, a few
microseconds an event, and builds a :class:`~bgfast.GameState` only when asked
(:meth:`Moment.state`). It ends by comparing where it got with the game's state; if they
differ (a case it does not follow) it falls back to :func:`bgfast.replay.walk`, so the
answer is always the referee's. ``tests/test_analysis.py`` checks the two walks agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from bgfast import events as ev
from bgfast import replay
from bgfast._core import BgfastError, IllegalMoveError, Move, Position
from bgfast.cube import Cube
from bgfast.game import Game
from bgfast.scoring import HOLLAND_RULE, Rules, holland_waits
from bgfast.state import CubeOffer, GameState
from bgfast.vocab import Offer, Phase

__all__ = ["Moment", "Step", "moments"]


class Moment(NamedTuple):
    """A game between two events: what the analysis reads of a :class:`GameState` (the
    same attribute names), the match context taken from the game's first state. (A named
    tuple: one is made for every event, and ``_replace`` is cheap.)"""

    base: GameState
    position: Position
    phase: Phase
    turn: int | None
    dice: tuple[int, int] | None
    cube: Cube
    offer: CubeOffer | None
    turns_played: tuple[int, int]
    auto_doubles: int

    @property
    def match_length(self) -> int:
        return self.base.match_length

    @property
    def score(self) -> tuple[int, int]:
        return self.base.score

    @property
    def crawford(self) -> bool:
        return self.base.crawford

    @property
    def rules(self) -> Rules:
        return self.base.rules

    @property
    def holland(self) -> bool:
        return self.base.holland

    @property
    def player_to_act(self) -> int | None:
        if self.phase in ("roll", "move"):
            return self.turn
        if self.phase == "doubled" and self.offer is not None:
            return self.offer.responder
        return None

    def why_not_double(self) -> str | None:
        """:meth:`bgfast.GameState.why_not_double` of this moment."""
        if self.phase != "roll" or self.turn is None:
            return "a double comes before the roll (R18)"
        reason = self.cube.why_not_double(self.turn)
        if reason is not None:
            return reason
        if holland_waits(self, self.turn, self.turns_played):
            return HOLLAND_RULE
        return None

    def state(self) -> GameState:
        """This moment as a validated :class:`~bgfast.GameState`."""
        return self.base.replace(
            position=self.position,
            phase=self.phase,
            turn=self.turn,
            dice=self.dice,
            cube=self.cube,
            offer=self.offer,
            resignation=None,
            result=None,
            turns_played=self.turns_played,
            auto_doubles=self.auto_doubles,
        )


@dataclass(frozen=True)
class Step:
    """One event with the moments before and after it, and for a committed legal play
    the :class:`~bgfast.Move` made."""

    before: Moment | GameState
    event: ev.Event
    after: Moment | GameState
    move: Move | None


def moments(game: Game) -> list[Step]:
    """Every event of ``game`` with the moments around it (see the module's docs)."""
    try:
        steps = list(_fast(game))
    except (BgfastError, AssertionError):  # pragma: no cover (a case the fast walk misses)
        steps = []
    final = game.state
    if steps:
        last = steps[-1].after
        assert isinstance(last, Moment)
        same = (
            last.position == final.position
            and last.turn == final.turn
            and last.dice == final.dice
            and last.cube == final.cube
            and (last.phase == final.phase or final.phase in ("over", "resign"))
        )
        if same:
            return steps
    elif not game.events:
        return []
    return [Step(s.before, s.event, s.after, s.move) for s in replay.walk(game)]


def _first(game: Game) -> GameState:
    record = game.to_dict()
    twin = Game.from_dict(
        {
            "format": record["format"],
            "version": record["version"],
            "setup": record["setup"],
            "events": [],
        }
    )
    return twin.state


def _plus(pair: tuple[int, int], player: int, by: int = 1) -> tuple[int, int]:
    return (pair[0] + by, pair[1]) if player == 0 else (pair[0], pair[1] + by)


def _fast(game: Game) -> Iterator[Step]:
    first = _first(game)
    now = Moment(
        first,
        first.position,
        first.phase,
        first.turn,
        first.dice,
        first.cube,
        first.offer,
        first.turns_played,
        first.auto_doubles,
    )
    staged: tuple[Position, Move | None] | None = None
    last: tuple[int, tuple[int, int], Position] | None = None  # for a call (R31)
    back_to: Phase = "roll"
    for event in game.events:
        before = now
        move: Move | None = None
        if isinstance(event, ev.Roll):
            assert event.dice is not None
            d0, d1 = event.dice
            if now.phase == "opening":
                if d0 == d1:
                    rules = first.rules
                    if (
                        first.match_length == 0
                        and now.auto_doubles < rules.auto_doubles
                        and now.cube.value * 2 <= now.cube.max_value
                    ):
                        now = now._replace(
                            cube=now.cube.auto_doubled(), auto_doubles=now.auto_doubles + 1
                        )
                else:
                    # The higher die's player plays both dice (R3), or passes (R10).
                    winner = 0 if d0 > d1 else 1
                    position = now.position.flipped() if winner == 1 else now.position
                    now = now._replace(phase="roll", turn=winner, position=position)
                    d0, d1 = max(d0, d1), min(d0, d1)
            if now.phase == "roll":
                assert now.turn is not None
                legal = now.position.moves(d0, d1)
                if len(legal) == 1 and legal[0].is_pass:  # R10: the turn passes at once
                    now = now._replace(
                        position=legal[0].result,
                        turn=1 - now.turn,
                        turns_played=_plus(now.turns_played, now.turn),
                    )
                else:
                    now = now._replace(phase="move", dice=(d0, d1))
                last = None
        elif isinstance(event, ev.Double):
            assert now.turn is not None
            now = now._replace(phase="doubled", offer=CubeOffer(now.turn, now.cube.value * 2))
        elif isinstance(event, (ev.Beaver, ev.Raccoon)):
            offer = now.offer
            assert offer is not None
            kind: Offer = "beaver" if isinstance(event, ev.Beaver) else "raccoon"
            now = now._replace(offer=CubeOffer(offer.doubler, offer.value * 2, kind))
        elif isinstance(event, ev.Take):
            offer = now.offer
            assert offer is not None
            now = now._replace(
                phase="roll", offer=None, cube=now.cube.taken(1 - offer.doubler, offer.value)
            )
        elif isinstance(event, ev.Drop):
            now = now._replace(phase="over", offer=None, dice=None)
        elif isinstance(event, ev.Move):
            assert now.dice is not None
            try:
                found = now.position.parse_move(event.move, now.dice)
                staged = (found.result, found)
            except IllegalMoveError:  # table mode: recorded as made (R31)
                staged = (now.position.play_physically(event.move), None)
        elif isinstance(event, ev.Undo):
            staged = None
        elif isinstance(event, ev.Commit):
            assert staged is not None and now.turn is not None and now.dice is not None
            result, move = staged
            last = (now.turn, now.dice, now.position)
            over = result.outcome is not None
            now = now._replace(
                position=result,
                turn=1 - now.turn,
                dice=None,
                phase="over" if over else "roll",
                turns_played=_plus(now.turns_played, now.turn),
            )
            staged = None
        elif isinstance(event, ev.Call):
            assert last is not None
            player, dice, position = last
            now = now._replace(
                phase="move",
                turn=player,
                position=position,
                dice=dice,
                turns_played=_plus(now.turns_played, player, -1),
            )
            last = None
        elif isinstance(event, ev.Resign):
            back_to = now.phase
            now = now._replace(phase="resign")
        elif isinstance(event, ev.Accept):
            now = now._replace(phase="over", dice=None, offer=None)
        elif isinstance(event, ev.Reject):
            now = now._replace(phase=back_to)
        elif isinstance(event, ev.Close):
            last = None
        yield Step(before, event, now, move)
