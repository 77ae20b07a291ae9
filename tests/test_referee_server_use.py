"""A server using bgfast as its referee: copies it may play on, saves it must keep from the
players, and actions it relays for a named player (``player=``).

- ``copy.copy`` of a game or a match is an independent copy: play on it leaves the original
  unchanged and still saved and loaded as it was (it once shared the event list).
- A save holds the dice (the seed and the draw count): it predicts every roll to come, while
  the state, its GNUbg ID, XGID, FIBS board and the history hold no seed (docs/game.md,
  "Saves hold the dice").
- Every action of the player to act takes ``player=``: the wrong player is refused with a
  ``GameStateError`` naming who is to act and the rule (R3, R18, R19, R30), and nothing
  changes; the right player acts as without it. ``resign(kind, player)`` is unchanged.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable

import pytest

import bgfast
from bgfast import GameStateError

# --------------------------------------------------------------------------- copies


def _game_in_move() -> bgfast.Game:
    game = bgfast.Game(seed=1)
    game.roll(3, 1)
    return game


def test_copy_copy_of_a_game_is_independent() -> None:
    game = _game_in_move()
    saved = game.to_json()
    twin = copy.copy(game)
    assert twin is not game and twin == game
    twin.play("8/5 6/5")
    twin.roll()
    # The original is untouched: same events, same state, and its save loads.
    assert [type(e).__name__ for e in game.events] == ["Roll"]
    assert game.phase == "move"
    assert game.to_json() == saved
    assert bgfast.Game.from_json(game.to_json()) == game
    # And the original plays on without touching the copy.
    copied = twin.to_json()
    game.play("24/21 24/23")
    assert twin.to_json() == copied
    assert bgfast.Game.from_json(twin.to_json()) == twin


def test_copy_copy_of_a_game_keeps_a_staged_move_apart() -> None:
    game = _game_in_move()
    game.move("8/5 6/5")
    twin = copy.copy(game)
    twin.undo()
    twin.play("24/21 24/23")
    assert game.staged_move == "8/5 6/5"
    game.commit()
    assert bgfast.Game.from_json(game.to_json()) == game


def test_copy_copy_of_a_match_is_independent() -> None:
    match = bgfast.Match(3, seed=2)
    first = match.new_game()
    first.roll(3, 1)
    saved = match.to_json()
    twin = copy.copy(match)
    assert twin is not match and twin == match
    assert twin.game is not match.game
    twin_game = twin.game
    assert twin_game is not None
    twin_game.play("8/5 6/5")
    twin_game.resign("single", 1)
    twin_game.accept()
    twin.new_game()
    assert len(match.games) == 1 and match.game is first
    assert first.phase == "move" and match.score == (0, 0)
    assert match.to_json() == saved
    assert bgfast.Match.from_json(match.to_json()) == match
    assert bgfast.Match.from_json(twin.to_json()) == twin
    assert len(twin.games) == 2 and twin.score == (1, 0)


def test_match_copy_method_and_deepcopy_and_pickle() -> None:
    match = bgfast.Match(5, seed=3)
    match.new_game().roll(4, 2)
    for twin in (match.copy(), copy.deepcopy(match), pickle.loads(pickle.dumps(match))):
        assert twin == match
        game = twin.game
        assert game is not None and game is not match.game
        game.play("8/4 6/4")
        assert twin != match
    assert bgfast.Match.from_json(match.to_json()) == match
    game = match.game
    assert game is not None and game.phase == "move"


def test_game_deepcopy_and_pickle_still_work() -> None:
    game = _game_in_move()
    for twin in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert twin == game
        twin.play("8/5 6/5")
        assert twin != game
    assert game.phase == "move"
    assert bgfast.Game.from_json(game.to_json()) == game


# --------------------------------------------------------------------------- saves hold the dice


def _seen_by_players(game: bgfast.Game) -> list[str]:
    """Everything docs/game.md says a server may send a player, as text."""
    return [
        json.dumps(game.state.to_dict()),
        str(game),
        str(game.state),
        game.gnubg_id(),
        game.match_id(),
        game.xgid(),
        game.fibs_board(),
        json.dumps(game.history),
    ]


def test_a_save_predicts_the_rolls_to_come() -> None:
    """The documented risk: a mid-game save rolls exactly the dice the game will roll."""
    game = bgfast.Game(match_length=7)  # a random seed, as a server picks
    while game.phase == "opening":  # a tie is rolled again (R3)
        game.roll()
    if game.phase == "move":
        game.play(game.legal_moves()[0])
    save = game.to_json()
    data = game.to_dict()
    assert data["setup"]["seed"] == game.seed and data["state"]["seed"] == game.seed
    assert data["state"]["draws"] >= 1
    ahead = bgfast.Game.from_json(save)
    for _ in range(5):
        predicted = ahead.roll()
        assert game.roll() == predicted
        if game.phase != "move":
            continue
        move = game.legal_moves()[0]
        game.play(move)
        ahead.play(str(move))


def test_a_match_save_holds_the_seed() -> None:
    match = bgfast.Match(5)
    match.new_game().roll()
    data = match.to_dict()
    assert data["seed"] == match.seed
    game = match.game
    assert game is not None
    assert data["games"][0]["state"]["seed"] == game.seed
    for doc in (bgfast.Match.to_json.__doc__, bgfast.Match.to_dict.__doc__):
        assert doc is not None and "never show it to a player" in doc.lower()


def test_what_a_player_is_shown_holds_no_seed() -> None:
    """The state, the IDs, the FIBS board and the history are the same whatever the seed:
    they cannot hold it. Two games on different seeds, the same dice given by hand."""
    seeds = (123_456_789_012_345, 987_654_321_098_765)
    games = [bgfast.Game(match_length=5, seed=s) for s in seeds]
    for game in games:
        game.roll(6, 1)
        game.play("13/7 8/7")
        game.roll(5, 5)
    shown = [_seen_by_players(g) for g in games]
    assert shown[0] == shown[1]
    for game, texts in zip(games, shown):
        assert "seed" not in game.state.to_dict()
        for text in texts:
            assert str(game.seed) not in text
            assert "seed" not in text and "draws" not in text
    # What is shown is not a save: it does not load as one.
    with pytest.raises(bgfast.InvalidSaveError):
        bgfast.Game.from_json(json.dumps(games[0].state.to_dict()))


def test_the_docstrings_and_the_docs_warn_of_the_seed() -> None:
    for doc in (
        bgfast.Game.seed.__doc__,
        bgfast.Game.to_json.__doc__,
        bgfast.Game.to_dict.__doc__,
        bgfast.Match.seed.__doc__,
        bgfast.Match.to_json.__doc__,
        bgfast.Match.to_dict.__doc__,
    ):
        assert doc is not None and "roll" in doc and "seed" in doc
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "game.md").read_text("utf-8")
    assert "### Saves hold the dice" in text
    assert "## Serving players: pass `player=`" in text


# --------------------------------------------------------------------------- player=


def _refused(game: bgfast.Game, act: Callable[[], object], who: int, rule: str) -> str:
    """``act`` raises a GameStateError naming player ``who`` as the one to act and ``rule``,
    and changes nothing."""
    before = game.to_json()
    with pytest.raises(GameStateError) as info:
        act()
    assert game.to_json() == before
    message = str(info.value)
    assert f"player {who} is to act" in message, message
    assert rule in message, message
    return message


def test_roll_move_play_undo_commit_for_the_wrong_player() -> None:
    game = bgfast.Game(match_length=5, seed=4)
    # The opening roll: both players roll (R3), so either may ask for it.
    game.roll(3, 1, player=1)
    assert game.player_to_act == 0 and game.phase == "move"
    _refused(game, lambda: game.move("8/5 6/5", player=1), 0, "R3")
    _refused(game, lambda: game.play("8/5 6/5", player=1), 0, "R3")
    _refused(game, lambda: game.roll(player=1), 0, "R30")
    game.move("8/5 6/5", player=0)
    _refused(game, lambda: game.undo(player=1), 0, "R3")
    _refused(game, lambda: game.commit(player=1), 0, "R3")
    game.undo(player=0)
    game.move("8/5 6/5", player=0)
    game.commit(player=0)
    assert (game.player_to_act, game.phase) == (1, "roll")
    message = _refused(game, lambda: game.roll(4, 2, player=0), 1, "R3")
    assert message.startswith("roll: player 0 may not act now")
    _refused(game, lambda: game.roll(player=0), 1, "R3")
    assert game.roll(4, 2, player=1) == (4, 2)
    _refused(game, lambda: game.play("8/4 6/4", player=0), 1, "R3")
    game.play("8/4 6/4", player=1)
    assert game.player_to_act == 0
    assert bgfast.Game.from_json(game.to_json()) == game


def test_cube_actions_for_the_wrong_player() -> None:
    rules = bgfast.Rules(beavers=True, raccoons=True)
    game = bgfast.Game(rules=rules, seed=5)
    game.roll(3, 1)
    game.play("8/5 6/5")  # player 1 is on roll
    _refused(game, lambda: game.double(player=0), 1, "R18")
    game.double(player=1)
    assert game.player_to_act == 0
    for act in (game.take, game.drop, game.beaver):
        _refused(game, lambda act=act: act(player=1), 0, "R19")  # type: ignore[misc]
    game.beaver(player=0)
    assert game.player_to_act == 1
    _refused(game, lambda: game.raccoon(player=0), 1, "R19")
    _refused(game, lambda: game.take(player=0), 1, "R19")
    game.raccoon(player=1)
    assert game.player_to_act == 0
    twin = game.copy()
    game.take(player=0)
    assert game.phase == "roll" and game.cube.value == 8 and game.cube.owner == 0
    twin.drop(player=0)
    assert twin.result is not None and twin.result.winner == 1


def test_resignation_answers_for_the_wrong_player() -> None:
    game = bgfast.Game(match_length=5, seed=6)
    game.roll(5, 2)
    game.resign("gammon", 0)  # unchanged: kind and resigner, positional
    assert game.player_to_act == 1
    _refused(game, lambda: game.accept(player=0), 1, "resignation")
    _refused(game, lambda: game.reject(player=0), 1, "resignation")
    twin = game.copy()
    game.reject(player=1)
    assert game.phase == "move" and game.resignation is None
    twin.accept(player=1)
    assert twin.result is not None and twin.result.winner == 1 and twin.result.kind == "gammon"
    # resign still takes its player by keyword and defaults to the player to act.
    game.resign("single", player=1)
    game.reject(player=0)
    game.resign()
    assert game.resignation == (0, "single")


def test_the_right_player_acts_as_without_player() -> None:
    """The same actions with and without ``player=`` give the same game and history."""
    plain, served = bgfast.Game(seed=7), bgfast.Game(seed=7)
    plain.roll(6, 1)
    served.roll(6, 1, player=0)
    plain.play("13/7 8/7")
    served.play("13/7 8/7", player=0)
    plain.double()
    served.double(player=1)
    plain.take()
    served.take(player=0)
    plain.roll()
    served.roll(player=1)
    assert plain == served and plain.to_json() == served.to_json()


def test_player_given_as_a_bad_value_is_refused() -> None:
    game = _game_in_move()
    before = game.to_json()
    for bad in (2, -1, True, 0.0, "0"):
        with pytest.raises(GameStateError, match=r"^play: a player is 0 or 1"):
            game.play("8/5 6/5", player=bad)  # type: ignore[arg-type]
    assert game.to_json() == before
    import numpy as np

    game.play("8/5 6/5", player=np.int64(0))  # type: ignore[arg-type]
    assert game.player_to_act == 1


def test_no_player_to_act_leaves_the_refusal_to_the_action() -> None:
    """Before the opening roll and after the game nobody is to act: the action's own check
    refuses what may not be done, whoever asks."""
    game = bgfast.Game(seed=8)
    with pytest.raises(GameStateError, match=r"^take: no double to answer"):
        game.take(player=0)
    game.roll(2, 1)
    game.resign("backgammon", 1)
    game.accept(player=0)
    assert game.player_to_act is None
    before = game.to_json()
    with pytest.raises(GameStateError, match=r"^roll: .*the game is over"):
        game.roll(player=1)
    assert game.to_json() == before


def test_a_match_game_takes_player_too() -> None:
    match = bgfast.Match(3, seed=9)
    game = match.new_game()
    game.roll(1, 2, player=0)  # player 1 won the opening
    _refused(game, lambda: game.play("8/7 6/4", player=0), 1, "R3")
    game.play("8/7 6/4", player=1)
    assert bgfast.Match.from_json(match.to_json()) == match
