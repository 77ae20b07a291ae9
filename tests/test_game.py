"""bgfast.Game: one test (or more) per rule id it honours: R3, R16-R19, R22, R23, R29, R31."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import IllegalMoveError, InvalidDiceError, InvalidMoveError, Position
from bgfast.errors_game import GameStateError, InvalidSaveError, MatchOptionError
from bgfast.game import Game, GameResult
from bgfast.ids import MatchIdFields, encode_match_id
from bgfast.match import Match
from bgfast.persist import checksum
from bgfast.scoring import Rules
from bgfast.state import GameState

from boards import position


def game_at(
    mover: dict[int, int],
    opponent: dict[int, int],
    *,
    turn: int = 0,
    dice: tuple[int, int] = (0, 0),
    rules: Rules | None = None,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    cube: int = 1,
    owner: int | None = None,
    table: bool = False,
) -> Game:
    """A game with player ``turn`` on roll in a hand-built position (via a GNUbg ID)."""
    pos = position(mover, opponent)
    mid = encode_match_id(
        MatchIdFields(
            cube_value=cube,
            cube_owner=owner,
            dice_owner=turn,
            turn=turn,
            dice=dice,
            match_length=match_length,
            score=score,
            jacoby=bool(rules and rules.jacoby),
        )
    )
    return Game.from_gnubg_id(f"{pos.id}:{mid}", rules=rules, table=table, seed=7)


def state(game: Game) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


# ------------------------------------------------------------------ R3 opening roll


def test_r3_opening_tie_is_rolled_again() -> None:
    game = Game(seed=1)
    assert (game.phase, game.turn, game.player_to_act) == ("opening", None, None)
    game.roll((4, 4))
    assert (game.phase, game.turn, game.cube.value) == ("opening", None, 1)
    game.roll((2, 5))
    assert (game.phase, game.turn) == ("move", 1)


@pytest.mark.parametrize(("dice", "winner"), [((6, 1), 0), ((3, 5), 1)])
def test_r3_higher_die_moves_first_with_both_dice(dice: tuple[int, int], winner: int) -> None:
    game = Game(seed=1)
    game.roll(dice)
    assert game.turn == winner
    assert game.dice == (max(dice), min(dice))
    assert game.position == Position()
    game.play("8/2 6/5" if max(dice) == 6 else "13/8 13/10" if dice == (3, 5) else "")
    board = game.board()
    assert board[winner].tolist()[:13] != Position().to_array()[0].tolist()[:13]
    assert board[1 - winner].tolist() == Position().to_array()[0].tolist()
    assert (game.turn, game.phase) == (1 - winner, "roll")


def test_r3_random_opening_never_starts_with_a_double() -> None:
    for seed in range(200):
        game = Game(seed=seed)
        while game.phase == "opening":
            game.roll()
        assert game.dice is not None and game.dice[0] > game.dice[1]
        assert game.cube.value == 1


def test_seeded_rolls_are_reproducible() -> None:
    a, b = Game(seed=99), Game(seed=99)
    while a.phase == "opening":
        assert a.roll() == b.roll()
    assert a == b and a.dice == b.dice


# ------------------------------------------------------------------ R16 game value


def test_r16_single_gammon_backgammon() -> None:
    # mover bears off its last checker; the opponent's state decides the kind
    cases = [
        ({1: 1}, {6: 14}, "single", 1),  # opponent has borne one off
        ({1: 1}, {6: 15}, "gammon", 2),  # none off
        ({1: 1}, {6: 14, 25: 1}, "backgammon", 3),  # one on the bar
        ({1: 1}, {6: 14, 20: 1}, "backgammon", 3),  # one in the winner's home board
    ]
    for mover, opp, kind, points in cases:
        game = game_at(mover, opp, dice=(2, 1))
        game.play("1/off")
        assert game.result == GameResult(0, kind, points, "bear-off"), (mover, opp)


def test_r16_cube_multiplies_and_backgammon_counts_double_option() -> None:
    game = game_at({1: 1}, {6: 14, 25: 1}, dice=(2, 1), cube=4, owner=0)
    game.play("1/off")
    assert game.result is not None and game.result.points == 12
    game = game_at(
        {1: 1},
        {6: 14, 25: 1},
        dice=(2, 1),
        cube=4,
        owner=0,
        rules=Rules(backgammon_counts_double=True),
    )
    game.play("1/off")
    assert game.result is not None and (game.result.kind, game.result.points) == ("backgammon", 8)


# ------------------------------------------------------------------ R17-R19 cube


def test_r17_cube_face_and_ownership() -> None:
    game = Game(seed=3)
    assert (game.cube.value, game.cube.face, game.cube.owner) == (1, 64, None)
    game.roll((6, 1))
    game.play("13/7 8/7")
    assert game.turn == 1 and game.may_double()
    game.double()
    assert (game.phase, game.player_to_act, game.offered_cube) == ("doubled", 0, 2)
    game.take()
    assert (game.cube.value, game.cube.face, game.cube.owner) == (2, 2, 0)
    assert game.phase == "roll" and game.turn == 1
    # player 1 may not redouble a cube player 0 owns (R17)
    assert not game.may_double()
    with pytest.raises(GameStateError, match="R17"):
        game.double()
    game.roll((2, 1))
    game.play("13/11 6/5")
    assert game.turn == 0 and game.may_double()  # the owner may redouble
    game.double()
    game.take()
    assert (game.cube.value, game.cube.owner) == (4, 1)


def test_r18_double_only_before_rolling() -> None:
    game = Game(seed=3)
    with pytest.raises(GameStateError, match="R18"):
        game.double()  # no turn yet
    game.roll((6, 1))
    with pytest.raises(GameStateError, match="R18"):
        game.double()  # dice already rolled
    game.play("13/7 8/7")
    game.double()


def test_r18_player_who_cannot_move_may_double() -> None:
    closed = {p: 2 for p in range(1, 7)} | {13: 3}
    game = game_at({25: 1, 6: 14}, closed, turn=0)
    assert game.may_double()
    game.double()
    game.take()
    game.roll((6, 5))  # no entry: the turn passes at once (R10)
    assert (game.turn, game.phase, game.cube.value, game.cube.owner) == (1, "roll", 2, 1)
    assert game.history[-1] == {"type": "roll", "dice": [6, 5]}


def test_r19_drop_ends_the_game_for_the_value_before_the_double() -> None:
    game = game_at({6: 15}, {6: 15}, cube=2, owner=0)
    game.double()
    game.drop()
    assert game.result == GameResult(0, "single", 2, "drop")
    assert game.phase == "over"
    with pytest.raises(GameStateError):
        game.roll()


def test_r19_take_doubles_the_stake_and_gives_the_cube() -> None:
    game = game_at({1: 1}, {6: 15}, dice=(0, 0))
    game.double()
    game.take()
    game.roll((2, 1))
    game.play("1/off")
    assert game.result == GameResult(0, "gammon", 4, "bear-off")


def test_max_cube_setting() -> None:
    game = Game(rules=Rules(max_cube=2), seed=1)
    game.roll((6, 1))
    game.play("13/7 8/7")
    game.double()
    game.take()
    game.roll((6, 5))
    game.play("13/7 13/8")
    assert game.why_not_double() is not None and "maximum" in str(game.why_not_double())


# ------------------------------------------------------------------ beavers, raccoons


def test_beaver_and_raccoon_money_options() -> None:
    game = game_at({6: 15}, {6: 15}, rules=Rules(beavers=True, raccoons=True))
    game.double()
    game.beaver()
    assert (game.player_to_act, game.offered_cube, game.offer_kind) == (0, 4, "beaver")
    game.raccoon()
    assert (game.player_to_act, game.offered_cube, game.offer_kind) == (1, 8, "raccoon")
    game.take()
    assert (game.cube.value, game.cube.owner, game.turn, game.phase) == (8, 1, 0, "roll")


def test_beaver_dropped_pays_the_doubled_value() -> None:
    game = game_at({6: 15}, {6: 15}, rules=Rules(beavers=True))
    game.double()
    game.beaver()
    game.drop()  # the doubler refuses the beaver: pays the doubled stake
    assert game.result == GameResult(1, "single", 2, "drop")


def test_beaver_refused_when_not_allowed() -> None:
    game = game_at({6: 15}, {6: 15})
    game.double()
    before = state(game)
    with pytest.raises(MatchOptionError):
        game.beaver()
    assert state(game) == before
    with pytest.raises(MatchOptionError):
        Rules(raccoons=True)


# ------------------------------------------------------------------ R22, R23 money options


def test_r22_automatic_doubles_up_to_the_limit() -> None:
    game = Game(rules=Rules(auto_doubles=2), seed=5)
    for value in (2, 4, 4):
        game.roll((3, 3))
        assert (game.phase, game.cube.value, game.cube.owner) == ("opening", value, None)
    game.roll((3, 1))
    assert game.phase == "move" and game.cube.value == 4


def test_r22_r23_money_options_are_refused_in_match_play() -> None:
    for rules in (Rules(auto_doubles=1), Rules(jacoby=True), Rules(beavers=True)):
        with pytest.raises(MatchOptionError, match="match play"):
            Game(rules=rules, match_length=5)
        with pytest.raises(MatchOptionError, match="match play"):
            Match(5, rules=rules)


def test_r23_jacoby_gammons_count_single_while_cube_centred() -> None:
    jacoby = Rules(jacoby=True)
    game = game_at({1: 1}, {6: 15}, dice=(2, 1), rules=jacoby)
    game.play("1/off")
    assert game.result == GameResult(0, "gammon", 1, "bear-off")
    game = game_at({1: 1}, {6: 15}, rules=jacoby)
    game.double()
    game.take()
    game.roll((2, 1))
    game.play("1/off")
    assert game.result == GameResult(0, "gammon", 4, "bear-off")


# ------------------------------------------------------------------ R29 undo until commit


def test_r29_move_can_be_changed_until_committed() -> None:
    game = Game(seed=2)
    game.roll((3, 1))
    game.move("24/21 24/23")
    assert game.staged_move is not None and game.position == Position()
    assert game.staged_position == Position().play("24/21 24/23", (3, 1))
    game.undo()
    assert game.staged_move is None
    game.move("8/5 6/5")
    game.move("13/10 6/5")  # a new move replaces the staged one
    game.commit()
    assert game.position == Position().play("13/10 6/5", (3, 1))
    assert game.turn == 1
    with pytest.raises(
        GameStateError, match=r"^undo: no move staged .* committed move is final, R29"
    ):
        game.undo()
    kinds = [e["type"] for e in game.history]
    assert kinds == ["roll", "move", "undo", "move", "move", "commit"]


def test_r29_commit_needs_a_move_and_illegal_moves_are_refused() -> None:
    game = Game(seed=2)
    game.roll((3, 1))
    before = state(game)
    with pytest.raises(GameStateError, match="R29"):
        game.commit()
    with pytest.raises(IllegalMoveError):
        game.move("8/3")
    with pytest.raises(IllegalMoveError):
        game.play("24/18")
    assert state(game) == before


def test_any_notation_of_a_legal_move_is_that_move() -> None:
    """A move is its result: 8/4 with 3-1 is 8/5/4, written back in the core's notation."""
    game = Game(seed=2)
    game.roll((3, 1))
    game.play("8/4")
    assert not game.last_move_illegal
    assert game.position == Position().play("8/5 5/4", (3, 1)).flipped().flipped()
    assert game.history[1]["move"] in {str(m) for m in Position().moves(3, 1)}


def test_moves_from_legal_moves_are_accepted() -> None:
    game = Game(seed=2)
    game.roll((6, 1))
    game.play("13/7 8/7")
    game.roll((6, 6))
    moves = game.legal_moves()
    assert len(moves) == 4
    game.play(moves[0])
    assert game.history[-2]["move"] == str(moves[0])


def test_r30_no_roll_before_the_move_is_committed() -> None:
    game = Game(seed=2)
    game.roll((3, 1))
    game.move("8/5 6/5")
    with pytest.raises(GameStateError, match="R30"):
        game.roll((6, 6))
    game.commit()
    game.roll((6, 6))


# ------------------------------------------------------------------ R31 table mode


def test_r31_illegal_move_recorded_and_called_before_the_next_roll() -> None:
    game = Game(seed=2, table=True)
    game.roll((3, 1))
    game.play("8/3")  # a 5 was not rolled: recorded anyway in table mode
    assert game.last_move_illegal and game.turn == 1
    game.call()
    assert (game.turn, game.phase, game.dice, game.position) == (0, "move", (3, 1), Position())
    with pytest.raises(GameStateError, match="R31"):
        game.call()
    game.play("8/5 6/5")
    with pytest.raises(GameStateError, match="legal"):
        game.call()


@pytest.mark.parametrize("answer", [None, "take", "beaver"])
def test_r31_a_call_before_the_next_roll_takes_back_a_double_made_since(
    answer: str | None,
) -> None:
    # The double was made on a position that does not stand: the call takes it back
    # with the move, whether it waits for its answer or was taken (it once was refused
    # while waiting and, once taken, left the cube turned).
    game = Game(seed=2, table=True, rules=Rules(beavers=True))
    game.roll((3, 1))
    game.play("8/3")
    game.double()
    if answer is not None:
        getattr(game, answer)()
    assert game.last_move_illegal
    game.call()
    assert (game.turn, game.phase, game.dice, game.position) == (0, "move", (3, 1), Position())
    assert (game.cube.value, game.cube.owner, game.state.offer) == (1, None, None)
    assert Game.from_json(game.to_json()).state == game.state
    # Match files hold the game as played on: the double went with the move.
    match = Match(5, table=True, seed=3)
    game = match.new_game()
    while game.phase == "opening":
        game.roll()
    game.play("13/4")  # not a play of the opening roll
    game.double()
    if answer is not None:
        game.take()  # a match has no beavers
    game.call()
    game.play(game.legal_moves()[0])
    for back in (Match.from_mat(match.to_mat()), Match.from_sgf(match.to_sgf())):
        assert back.game is not None
        assert (back.game.position, back.game.cube) == (game.position, game.cube)


def test_r31_illegal_move_stands_after_the_next_roll() -> None:
    game = Game(seed=2, table=True)
    game.roll((3, 1))
    game.play("8/3")
    after = game.position
    game.roll((2, 1))
    with pytest.raises(GameStateError, match="R31"):
        game.call()
    assert game.position == after


def test_r31_strict_mode_refuses_and_table_mode_refuses_the_impossible() -> None:
    game = Game(seed=2)
    game.roll((3, 1))
    with pytest.raises(IllegalMoveError):
        game.play("8/3")
    table = Game(seed=2, table=True)
    table.roll((3, 1))
    before = state(table)
    with pytest.raises(IllegalMoveError, match="no checker"):
        table.play("7/4")
    with pytest.raises(IllegalMoveError, match="R7"):
        table.play("13/1")  # the opponent's 24-point holds 2
    with pytest.raises(InvalidMoveError):
        table.play("8/x")
    assert state(table) == before


def test_r31_illegal_hit_and_bear_off_are_recorded() -> None:
    game = game_at({1: 1, 6: 1}, {22: 1, 6: 13}, dice=(2, 1), table=True)
    game.play("6/3* 1/off")  # a 3 was not rolled; the blot on 3 is hit all the same
    assert game.last_move_illegal
    assert game.board()[1].tolist()[24] == 1 and game.board()[0].sum() == 1
    game.call()
    assert game.board()[1].tolist()[24] == 0
    game.play("6/4 1/off")
    assert not game.last_move_illegal


def test_r31_an_illegal_last_bear_off_may_be_called() -> None:
    game = game_at({6: 1}, {6: 15}, dice=(2, 1), table=True)
    game.play("6/off")  # a 6 was not rolled
    assert game.result == GameResult(0, "gammon", 2, "bear-off") and game.last_move_illegal
    game.call()
    assert (game.result, game.phase, game.turn, game.dice) == (None, "move", 0, (2, 1))
    game.play("6/4/3")
    assert game.board()[0].tolist()[2] == 1


# ------------------------------------------------------------------ resignations


@pytest.mark.parametrize(("kind", "points"), [("single", 2), ("gammon", 4), ("backgammon", 6)])
def test_resignation_accepted(kind: str, points: int) -> None:
    game = game_at({6: 15}, {6: 15}, cube=2, owner=1)
    game.resign(kind)  # type: ignore[arg-type]
    assert game.phase == "resign" and game.player_to_act == 1
    game.accept()
    assert game.result == GameResult(1, kind, points, "resign")  # type: ignore[arg-type]


def test_resignation_rejected_play_goes_on() -> None:
    game = game_at({6: 15}, {6: 15}, dice=(3, 1))
    before = game.position
    game.resign("gammon")
    game.reject()
    assert (game.phase, game.dice, game.position) == ("move", (3, 1), before)
    with pytest.raises(GameStateError):
        game.resign("triple")  # type: ignore[arg-type]


def test_resignation_accepted_after_the_roll_clears_the_dice() -> None:
    game = game_at({6: 15}, {6: 15}, dice=(3, 1))
    game.move("6/3 6/5")
    game.resign("single")
    game.accept()
    assert (game.phase, game.dice, game.staged_move) == ("over", None, None)
    assert game.match_id() == Game.from_json(game.to_json()).match_id()


def test_resignation_under_jacoby_counts_single() -> None:
    game = game_at({6: 15}, {6: 15}, rules=Rules(jacoby=True))
    game.resign("gammon", player=1)
    game.accept()
    assert game.result == GameResult(0, "gammon", 1, "resign")


# ------------------------------------------------------------------ rejected calls


def test_rejected_calls_change_nothing() -> None:
    game = Game(seed=4)
    game.roll((5, 2))
    before = state(game)
    for call in (
        game.double,
        game.take,
        game.drop,
        game.accept,
        game.reject,
        game.undo,
        game.call,
        game.beaver,
    ):
        with pytest.raises(bgfast.BgfastError):
            call()
    with pytest.raises(InvalidDiceError):
        game.roll((7, 1))
    with pytest.raises(GameStateError):
        game.roll((1, 1))  # already rolled
    assert state(game) == before


def test_bad_settings_are_refused() -> None:
    with pytest.raises(MatchOptionError):
        Game(match_length=5, score=(5, 0))
    with pytest.raises(MatchOptionError):
        Game(match_length=5, score=(3, 0), crawford=True)
    with pytest.raises(MatchOptionError):
        Game(score=(1, 0))
    with pytest.raises(MatchOptionError):
        Rules(max_cube=3)


# ------------------------------------------------------------------ persistence


def _played(seed: int, table: bool = False) -> Game:
    game = Game(seed=seed, table=table, rules=Rules(jacoby=True, beavers=True))
    game.roll()
    while game.phase == "opening":
        game.roll()
    game.play(game.legal_moves()[0])
    game.double()
    game.take()
    game.roll()
    if game.phase == "move":
        game.move(game.legal_moves()[-1])
    return game


def test_json_round_trip_is_exact() -> None:
    game = _played(11)
    text = game.to_json()
    again = Game.from_json(text)
    assert again == game
    assert again.to_json() == text
    assert again.gnubg_id() == game.gnubg_id()
    assert again.staged_move == game.staged_move


def test_tampered_json_is_refused() -> None:
    game = _played(12)
    data = json.loads(game.to_json())
    for path, value in [
        (("events", 0, "dice"), [6, 6]),  # a different random roll
        (("state", "cube", "value"), 4),
        # the same number as JSON of another type: true == 1 in Python, not in the file
        (("state", "cube", "value"), float(data["state"]["cube"]["value"])),
        (
            ("state", "cube", "value"),
            True if data["state"]["cube"]["value"] == 1 else data["state"]["cube"]["value"] + 0.0,
        ),
        (
            ("setup", "position"),
            "4HPwATDgc/ABMA" if data["setup"]["position"] != "4HPwATDgc/ABMA" else "sGfwATCYZ/ABMA",
        ),
    ]:
        bad = json.loads(json.dumps(data))
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        # with the old checksum: refused by the checksum
        with pytest.raises(InvalidSaveError, match="checksum"):
            Game.from_json(json.dumps(bad))
        # with a recomputed checksum: refused by the replay
        bad.pop("checksum")
        bad["checksum"] = checksum(bad)
        with pytest.raises(InvalidSaveError):
            Game.from_json(json.dumps(bad))
    with pytest.raises(InvalidSaveError):
        Game.from_json(game.to_json()[:-20])
    with pytest.raises(InvalidSaveError):
        Game.from_json("[]")


def test_save_is_atomic_and_loads_back(tmp_path: Path) -> None:
    game = _played(13)
    path = tmp_path / "game.json"
    game.save(str(path))
    game.roll() if game.phase == "roll" else game.commit()
    game.save(str(path))  # replaces the file
    assert Game.load(str(path)) == game
    assert os.listdir(tmp_path) == ["game.json"]


def test_from_history_rebuilds_the_game() -> None:
    game = _played(14)
    again = Game.from_history(game.history, rules=game.rules, seed=game.seed)
    assert again == game and again.gnubg_id() == game.gnubg_id()
    with pytest.raises(InvalidSaveError, match="event 0"):
        Game.from_history([{"type": "take"}])
    with pytest.raises(InvalidSaveError, match="event 0"):
        Game.from_history([{"type": "fly"}])
    with pytest.raises(InvalidSaveError, match="event 1"):
        Game.from_history([{"type": "roll", "dice": [3, 1]}, {"type": "move", "move": "8/3"}])


def test_reload_from_history_in_table_mode() -> None:
    game = Game(seed=2, table=True)
    game.roll((3, 1))
    game.play("8/3")
    game.call()
    game.play("8/5 6/5")
    assert Game.from_json(game.to_json()) == game
    assert Game.from_json(game.to_json()).position == game.position


# ------------------------------------------------------------------ str, repr


def test_text_views() -> None:
    game = Game(seed=2)
    game.roll((3, 1))
    assert "phase move" in str(game)
    assert repr(game).startswith("<Game 4HPwATDgc/ABMA:")
    assert game.pips() == (167, 167)


# ------------------------------------------------------------------ the scripted money tour


def test_tour_money_game_with_autos_beaver_and_jacoby() -> None:
    """A money game under Jacoby, beavers and one automatic double (R22, R23, R17-R19)."""
    rules = Rules(jacoby=True, beavers=True, raccoons=True, auto_doubles=1)
    game = Game(rules=rules, seed=2026)
    game.roll((4, 4))  # tie: automatic double, cube stays centred (R22)
    assert (game.phase, game.cube.value, game.cube.owner, game.cube.face) == ("opening", 2, None, 2)
    game.roll((2, 2))  # tie again: the limit of one automatic double is reached
    assert game.cube.value == 2
    game.roll((5, 3))  # player 0 wins the opening and plays 5-3 (R3)
    assert (game.turn, game.dice) == (0, (5, 3))
    game.play("8/3 6/3")
    assert game.xgid().endswith(":1:0:1:00:0:0:3:0:15")  # Jacoby + beaver flags
    game.double()  # player 1 doubles the centred 2-cube to 4
    game.beaver()  # player 0 beavers: 8, keeping the cube
    assert (game.player_to_act, game.offered_cube, game.xgid().split(":")[4]) == (1, 8, "B")
    game.take()  # player 1 accepts the beaver
    assert (game.cube.value, game.cube.owner, game.turn, game.phase) == (8, 0, 1, "roll")
    game.roll((6, 4))
    game.play("24/14")
    game.roll((6, 6))
    game.play("24/18(2) 13/7(2)")
    # player 1 gives up a gammon: the cube was turned, so Jacoby no longer applies (R23)
    game.resign("gammon", player=1)
    game.accept()
    assert game.result == GameResult(0, "gammon", 16, "resign")
    again = Game.from_json(game.to_json())
    assert again == game and again.result == game.result

    # the same start without a beaver: the cube stays centred, a gammon counts single
    game = Game(rules=rules, seed=2026)
    game.roll((4, 4))
    game.roll((5, 3))
    game.play("8/3 6/3")
    game.resign("gammon", player=1)
    game.accept()
    assert game.result == GameResult(0, "gammon", 2, "resign")


def test_an_opening_roll_with_no_legal_play_passes_the_turn_r10() -> None:
    # From a position given to GameState.start, the opening roll's winner may have no play:
    # the game waited for an empty move, where every later roll with no play passes.
    from bgfast._moments import moments

    counts = np.zeros((2, 25), dtype=np.uint8)
    counts[0, 24], counts[0, 5] = 1, 14  # player 0: one checker on the bar
    counts[1, 0:6], counts[1, 12] = 2, 3  # player 1: its home board closed
    start = Position.from_array(counts)
    game = Game.from_state(GameState.start(position=start), seed=1)
    game.roll(6, 5)  # player 0 wins the opening roll and cannot enter
    assert (game.phase, game.turn, game.dice) == ("roll", 1, None)
    assert game.position == start.flipped() and game.state.turns_played == (1, 0)
    # The quick replay the analysis uses walks it as the referee does.
    assert [(s.after.phase, s.after.turn) for s in moments(game)] == [("roll", 1)]
    assert Game.from_json(game.to_json()).state == game.state
    # A later roll with no play passes the same way: player 1 plays, player 0 is still shut.
    game.roll(2, 1)
    game.play(game.legal_moves()[0])
    # The analysis rates the play made, none at the pass (it had crashed on it).
    assert bgfast.analyse(game).players[1].unforced_moves == 1
    game.roll(6, 6)
    assert (game.phase, game.turn) == ("roll", 1)


def test_a_game_saved_with_the_old_opening_pass_loads_as_the_pass() -> None:
    # Saved by the referee before the opening pass: roll, an empty move, commit.
    saved = Path(__file__).parent / "data" / "saves" / "opening_pass_before_2026-12-04.json"
    game = Game.load(saved)
    assert game.history[0] == {"type": "roll", "dice": [6, 5]}
    assert {"type": "move", "move": ""} not in game.history
    assert (game.phase, game.turn) == ("roll", 0)
    assert Game.from_json(game.to_json()).state == game.state
