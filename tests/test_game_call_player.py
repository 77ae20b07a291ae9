"""``Game.call`` takes ``player=`` as every other action a server relays does.

R31 (RULES.md): an illegal move "may be called by either player before the next roll",
so either player may call (the opponent calls it, or the mover corrects it), whoever is
to act: after the move the opponent is on roll, or the mover answers a double made
since. ``player`` is checked as the other actions check it, with the same message
(``call: a player is 0 or 1, not 2``), before anything else, and a refused call changes
nothing.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import bgfast
from bgfast import GameStateError
from bgfast.state import GameState

from boards import position


def _called_position() -> bgfast.Game:
    """A table-mode game in which player 0 played 3-1 illegally (8/4 6/5) and committed:
    player 1 is on roll and may call it."""
    game = bgfast.Game(table=True, seed=1)
    game.roll(3, 1)
    game.play("8/4 6/5")
    assert game.phase == "roll" and game.player_to_act == 1
    return game


def test_call_takes_player_as_a_keyword() -> None:
    parameter = inspect.signature(bgfast.Game.call).parameters["player"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert parameter.default is None
    assert "player" in (bgfast.Game.call.__doc__ or "")


@pytest.mark.parametrize(
    "caller", [1, 0, np.int64(1), np.uint8(0)], ids=["opp", "mover", "np1", "np0"]
)
def test_either_player_may_call_r31(caller: object) -> None:
    game = _called_position()
    plain = _called_position()
    game.call(player=caller)  # type: ignore[arg-type]
    plain.call()
    # The move is taken back: the mover plays the same dice again, as without player=.
    assert game.phase == "move" and game.turn == 0 and game.dice == (3, 1)
    assert game == plain and game.history == plain.history


@pytest.mark.parametrize("caller", [0, 1])
def test_either_player_may_call_while_a_double_since_waits(caller: int) -> None:
    game = _called_position()
    game.double(player=1)
    assert game.phase == "doubled" and game.player_to_act == 0
    game.call(player=caller)
    assert game.phase == "move" and game.turn == 0 and game.cube.value == 1


@pytest.mark.parametrize("caller", [0, 1])
def test_either_player_may_call_an_illegal_last_bear_off(caller: int) -> None:
    # Player 0 bears off its last checker from the 6 point with 2-1 (illegal; table mode
    # records it): the game is over, nobody is to act, and the move may be called until
    # the game is closed (R31).
    state = GameState.start(position=position({6: 1}, {6: 15}))
    game = bgfast.Game.from_state(state, table=True, seed=1)
    game.roll(2, 1)
    game.play("6/off")
    assert game.phase == "over" and game.player_to_act is None and game.last_move_illegal
    game.call(player=caller)
    assert (game.result, game.phase, game.turn, game.dice) == (None, "move", 0, (2, 1))


@pytest.mark.parametrize("bad", [2, -1, True, 0.0, "0", np.float64(1.0)])
def test_a_bad_player_is_refused_as_the_other_actions_refuse_it(bad: object) -> None:
    game = _called_position()
    before = game.to_json()
    with pytest.raises(GameStateError) as called:
        game.call(player=bad)  # type: ignore[arg-type]
    # Same check, same message as roll(player=...), naming call.
    other = _called_position()
    with pytest.raises(GameStateError) as rolled:
        other.roll(player=bad)  # type: ignore[arg-type]
    assert str(called.value) == str(rolled.value).replace("roll: ", "call: ", 1)
    assert str(called.value).startswith("call: a player is 0 or 1, not ")
    assert game.to_json() == before  # nothing changed: the move may still be called
    game.call(player=1)
    assert game.phase == "move"


def test_a_bad_player_is_named_before_the_state() -> None:
    # As the other actions: the player is checked first, even with nothing to call.
    game = bgfast.Game(table=True, seed=1)
    with pytest.raises(GameStateError, match=r"^call: a player is 0 or 1, not 2$"):
        game.call(player=2)


def test_a_right_player_still_meets_the_calls_own_checks() -> None:
    game = bgfast.Game(table=True, seed=1)
    game.roll(3, 1)
    game.play("8/5 6/5")  # legal
    before = game.to_json()
    with pytest.raises(GameStateError, match=r"^call: the last move 8/5 6/5 was legal \(R31\)$"):
        game.call(player=1)
    assert game.to_json() == before
    game.roll(4, 2, player=1)
    with pytest.raises(GameStateError, match="R31"):
        game.call(player=0)


def test_the_call_replays_and_saves_as_without_player() -> None:
    game = _called_position()
    game.call(player=1)
    assert bgfast.Game.from_json(game.to_json()) == game
    assert bgfast.Game.from_history(game.history, table=True, seed=1) == game
