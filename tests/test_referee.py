"""The game layer as one referee: one grammar and one strictness with Position.play (R4, R31),
one validated state value, typed events, one vocabulary, one error family, one persistence
helper, and a roll accepted the same way everywhere."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bgfast
from bgfast import (
    BgfastError,
    Chouette,
    Game,
    GameState,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidStateError,
    Match,
    MatchOptionError,
    Position,
    Rules,
)
from bgfast import events as ev
from bgfast.codec import (
    MatchIdFields,
    encode_match_id,
    state_from_fibs_board,
    state_from_gnubg_id,
    state_from_xgid,
)
from bgfast.cube import Cube
from bgfast.persist import Saved
from bgfast.state import CubeOffer, GameResult, Resignation

from boards import position

# ------------------------------------------------------------------ one grammar, one strictness


def _opening_31(table: bool = False) -> Game:
    game = Game(seed=1, table=table)
    game.roll((3, 1))  # player 0 wins the opening and plays 3-1 from the start
    return game


@pytest.mark.parametrize("text", ["8/7 7/6 6/5 6/5", "6/5 8/7 7/5"])
def test_r4_a_play_that_does_not_use_the_dice_is_refused(text: str) -> None:
    """Four steps on 3-1, or 1, 1 and 2: the result is 8/5 6/5's, but the dice are 3 and 1
    (R4). Game.play once recorded them as 8/5 6/5; it is as strict as Position.play."""
    with pytest.raises(IllegalMoveError) as checked:
        Position().play(text, (3, 1))
    assert checked.value.rule == "R4"
    game = _opening_31()
    before = game.to_json()
    with pytest.raises(IllegalMoveError) as refereed:
        game.play(text)
    assert refereed.value.rule == "R4" and str(refereed.value) == str(checked.value)
    with pytest.raises(IllegalMoveError, match="R4"):
        game.move(text)
    assert game.to_json() == before


@pytest.mark.parametrize("text", ["8/7 7/6 6/5 6/5", "6/5 8/7 7/5"])
def test_r31_table_mode_records_such_a_play_as_illegal_and_it_may_be_called(text: str) -> None:
    game = _opening_31(table=True)
    game.play(text)
    assert game.last_move_illegal and game.history[1] == {"type": "move", "move": text}
    assert game.position == Position().play("8/5 6/5", (3, 1))  # the checkers as moved
    again = Game.from_json(game.to_json())
    assert again == game and again.last_move_illegal
    game.call()
    assert (game.turn, game.phase, game.dice, game.position) == (0, "move", (3, 1), Position())
    game.play("8/5 6/5")
    assert not game.last_move_illegal


def test_any_writing_of_a_legal_play_is_recorded_in_the_cores_notation() -> None:
    game = _opening_31()
    game.play("6/5 8/5")  # the order of steps does not matter (a move is its result)
    assert game.history[1]["move"] == "8/5 6/5" == str(Position().parse_move("6/5 8/5", 3, 1))


def test_table_mode_refuses_only_what_no_hand_can_do() -> None:
    game = _opening_31(table=True)
    before = game.to_json()
    for text, rule in (("7/4", "R1"), ("13/1", "R7"), ("bar/22", "R1")):
        with pytest.raises(IllegalMoveError) as info:
            game.play(text)
        assert info.value.rule == rule
    with pytest.raises(InvalidMoveError):
        game.play("8/x")
    assert game.to_json() == before


def test_the_game_module_keeps_no_move_grammar_of_its_own() -> None:
    import inspect

    source = inspect.getsource(bgfast.game)
    assert "import re" not in source and "_parse_steps" not in source
    assert "_apply_physically" not in source


def _step(point: int) -> str:
    return "bar" if point == 25 else "off" if point <= 0 else str(point)


@st.composite
def _plays(draw: st.DrawFn, pos: Position, dice: tuple[int, int]) -> str:
    """Move text for ``pos`` and ``dice``: a legal move, a legal move's steps in any order,
    or steps of any lengths from any points (mostly illegal)."""
    moves = list(pos.moves(dice))
    how = draw(st.sampled_from(["legal", "steps in any order", "anything"]))
    if how == "legal":
        return str(draw(st.sampled_from(moves)))
    if how == "steps in any order":
        move = draw(st.sampled_from(moves))
        steps = [f"{_step(a)}/{_step(b)}" for a, b, _ in move.steps]
        return " ".join(draw(st.permutations(steps)))
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        source = draw(st.integers(1, 25))
        pips = draw(st.sampled_from([*dice, 1, 2, 3, 4, 5, 6, dice[0] + dice[1]]))
        parts.append(f"{_step(source)}/{_step(source - pips)}")
    return " ".join(parts)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), st.data())
def test_the_referee_is_exactly_as_strict_as_position_play(
    seed: int, turns: int, data: st.DataObject
) -> None:
    game = Game(seed=seed)
    for _ in range(turns):
        if game.is_over:
            return
        if game.phase in ("opening", "roll"):
            game.roll()
        else:
            game.play(data.draw(st.sampled_from(game.legal_moves())))
    if game.phase != "move":
        return
    pos, dice = game.position, game.dice
    assert dice is not None
    text = data.draw(_plays(pos, dice))
    expected: Any
    try:
        expected = pos.play(text, dice)
    except BgfastError as e:
        expected = e
    try:
        game.move(text)
        got: Any = game.staged_position
    except BgfastError as e:
        got = e
    if isinstance(expected, BgfastError):
        assert type(got) is type(expected), (text, got, expected)
        assert getattr(got, "rule", None) == getattr(expected, "rule", None)
    else:
        assert got == expected and game.staged_move == str(pos.parse_move(text, dice))


def test_parse_move_and_play_physically() -> None:
    start = Position()
    move = start.parse_move("8/5 5/4", 3, 1)
    assert str(move) == "8/4" and move in start.moves(3, 1) and move.origin == start
    assert start.parse_move(move, (3, 1)) == move
    with pytest.raises(IllegalMoveError, match="R8"):
        start.parse_move("8/5", (3, 1))
    legal = start.parse_move("8/5 6/5", 3, 1)
    assert start.play_physically(legal) == start.play_physically("6/5 8/5") == legal.result
    after = start.play_physically("8/3")
    assert after.to_array()[1][2] == 1 and after.to_array()[1][7] == 2
    with pytest.raises(IllegalMoveError) as info:
        start.play_physically("7/1")
    assert info.value.rule == "R1"
    with pytest.raises(InvalidMoveError):
        start.play_physically("8/9")
    with pytest.raises(TypeError):
        start.play_physically(8)  # type: ignore[arg-type]


# ------------------------------------------------------------------ dice, the same everywhere

ROLLS: list[Any] = [
    (3, 1),
    [3, 1],
    np.array([3, 1]),
    np.array([3, 1], dtype=np.uint8),
    (np.int64(3), np.int8(1)),
]
NOT_ROLLS: list[Any] = [
    (True, 1),
    (3, True),
    (3, 1, 2),
    [3],
    (),
    (3.0, 1),
    ("3", "1"),
    "31",
    31,
    {3, 1},
    np.array([[3, 1]]),
    np.array([3.0, 1.0]),
    (0, 1),
    (7, 1),
    None,
]


def _accepting(dice: Any) -> dict[str, Any]:
    """Every entry point that takes a roll, called with ``dice`` as one value."""
    start = Position()
    game = Game(seed=3)
    chouette = Chouette(["A", "B", "C"], rolls={"A": 6, "B": 4, "C": 2})
    chouette.start_game()
    return {
        "Position.moves": lambda: len(start.moves(dice)),
        "Position.play": lambda: start.play("24/21 24/23", dice),
        "Position.parse_move": lambda: str(start.parse_move("24/21 24/23", dice)),
        "Game.roll": lambda: game.roll(dice),
        "Chouette.roll": lambda: chouette.roll(dice),
        "check_dice": lambda: bgfast._core.check_dice(dice),
    }


@pytest.mark.parametrize("dice", ROLLS, ids=repr)
def test_a_roll_is_one_pair_or_two_ints_everywhere(dice: Any) -> None:
    for name, call in _accepting(dice).items():
        assert call() is not None, name
    start = Position()
    d1, d2 = (int(d) for d in dice)
    assert start.moves(dice) == start.moves(d1, d2) == start.moves(dice[0], dice[1])
    assert start.play("24/21 24/23", d1, d2) == start.play("24/21 24/23", dice)
    game = Game(seed=3)
    assert game.roll(d1, d2) == (3, 1) and game.history[-1]["dice"] == [3, 1]


@pytest.mark.parametrize("dice", NOT_ROLLS, ids=repr)
def test_anything_else_is_an_invalid_dice_error_everywhere(dice: Any) -> None:
    """True is not a die (True == 1 in Python), a third die is no roll (R4, R5)."""
    for name, call in _accepting(dice).items():
        if dice is None and name in ("Game.roll", "Chouette.roll"):
            continue  # no dice: roll them
        with pytest.raises(InvalidDiceError, match="from 1 to 6"):
            call()
    with pytest.raises(InvalidDiceError):
        Position().moves(True, 1)
    with pytest.raises(InvalidDiceError):
        Game(seed=1).roll(3, True)  # type: ignore[arg-type]


# ------------------------------------------------------------------ one state value


def _midgame(seed: int = 5, **kwargs: Any) -> Game:
    game = Game(seed=seed, **kwargs)
    while game.phase == "opening":
        game.roll()
    for _ in range(6):
        if game.phase == "move":
            game.play(game.legal_moves()[-1])
        elif game.phase == "roll":
            game.roll()
    return game


def test_a_game_hands_out_its_state_an_immutable_value() -> None:
    game = _midgame()
    state = game.state
    assert isinstance(state, GameState)
    assert (state.position, state.phase, state.turn, state.dice, state.cube) == (
        game.position,
        game.phase,
        game.turn,
        game.dice,
        game.cube,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.phase = "over"  # type: ignore[misc]
    # A game built from the state plays on exactly like the original.
    again = Game.from_state(state, seed=game.seed)
    assert again.state == state and again.gnubg_id() == game.gnubg_id()
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_every_decoder_produces_a_state_and_every_encoder_reads_one() -> None:
    game = _midgame(match_length=7, score=(2, 4))
    state = game.state
    if state.phase != "move":
        game.roll((6, 5)) if state.phase == "roll" else None
        state = game.state
    same_counts = {"turns_played": state.turns_played}
    for decoded in (
        state_from_gnubg_id(game.gnubg_id()),
        state_from_xgid(game.xgid()),
        state_from_fibs_board(game.fibs_board()),
    ):
        assert isinstance(decoded, GameState)
        assert decoded.replace(**same_counts) == state
    assert Game.from_xgid(game.xgid()).state.replace(**same_counts) == state
    assert bgfast.codec.gnubg_id_of(state) == game.gnubg_id()


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"phase": "move"}, InvalidStateError),  # no turn, no dice
        ({"phase": "roll", "turn": 0, "dice": (3, 1)}, InvalidStateError),
        ({"phase": "move", "turn": 0}, InvalidStateError),
        ({"phase": "roll", "turn": 2}, InvalidStateError),
        ({"phase": "roll", "turn": 0, "offer": CubeOffer(0, 2)}, InvalidStateError),
        ({"phase": "doubled", "turn": 0, "offer": CubeOffer(1, 2)}, InvalidStateError),
        ({"phase": "doubled", "turn": 0, "offer": CubeOffer(0, 4)}, InvalidStateError),
        ({"phase": "doubled", "turn": 0, "offer": CubeOffer(0, 4, "beaver")}, InvalidStateError),
        ({"phase": "resign", "turn": 0}, InvalidStateError),
        ({"phase": "over", "turn": 0}, InvalidStateError),
        ({"phase": "dancing"}, InvalidStateError),
        ({"cube": Cube(max_value=64)}, InvalidStateError),  # the rules' limit is 32768
        ({"auto_doubles": 1}, InvalidStateError),  # the rules allow none (R22)
        ({"result": GameResult(0, "single", 1, "drop")}, InvalidStateError),
        ({"position": "4HPwATDgc/ABMA"}, InvalidStateError),
        # R17: a cube is owned only after a take (at 2 or more); in a match a centred cube
        # stays at 1 (no automatic doubles).
        ({"phase": "roll", "turn": 0, "cube": Cube(value=1, owner=0)}, InvalidStateError),
        (
            {"phase": "roll", "turn": 0, "match_length": 5, "cube": Cube(value=2)},
            InvalidStateError,
        ),
        ({"match_length": 5, "score": (5, 0)}, MatchOptionError),  # R20
        ({"match_length": 5, "crawford": True}, MatchOptionError),  # R21
        ({"rules": Rules(jacoby=True), "match_length": 5}, MatchOptionError),  # R23
        ({"holland": True}, MatchOptionError),
    ],
)
def test_a_state_that_cannot_be_is_refused(changes: dict[str, Any], error: type) -> None:
    with pytest.raises(error):
        GameState.start().replace(**changes)


def test_r17_a_cube_is_owned_only_after_a_take_and_centred_at_1_in_a_match() -> None:
    with pytest.raises(InvalidStateError, match="R17"):
        GameState.start().replace(phase="roll", turn=0, cube=Cube(value=1, owner=0))
    with pytest.raises(InvalidStateError, match="R17"):
        GameState.start().replace(phase="roll", turn=0, match_length=5, cube=Cube(value=2))
    # What play reaches stands: an owned 2, a centred cube at 1 in a match.
    assert GameState.start().replace(phase="roll", turn=0, cube=Cube(value=2, owner=1))
    assert GameState.start().replace(phase="roll", turn=0, match_length=5, cube=Cube())


def test_states_that_can_be_are_built_field_by_field() -> None:
    won = position({1: 1}, {6: 15})  # the mover bears off its last checker with any roll
    doubled = GameState(
        position=won,
        phase="doubled",
        turn=0,
        offer=CubeOffer(0, 2),
    )
    assert doubled.player_to_act == 1
    resigning = doubled.replace(phase="resign", resignation=Resignation(1, "gammon", "doubled"))
    assert resigning.player_to_act == 0 and resigning.offer == doubled.offer
    with pytest.raises(InvalidStateError, match="R15"):
        GameState(position=won.play("1/off", (2, 1)), phase="roll", turn=1)
    over = GameState(
        position=won.play("1/off", (2, 1)),
        phase="over",
        turn=1,
        result=GameResult(0, "gammon", 2, "bear-off"),
    )
    assert over.is_over and "player 0 won a gammon for 2 points" in str(over)
    with pytest.raises(InvalidStateError, match="R16"):
        over.replace(result=GameResult(0, "single", 1, "bear-off"))


def test_str_labels_the_seats_not_the_side_to_move() -> None:
    """The labels used to be "X = the side to move", swapping every turn."""
    game = Game(seed=2)
    game.roll((3, 1))
    texts = []
    for move in ("8/5 6/5", "13/11 6/5"):
        texts.append(str(game))
        game.play(move)
        if game.phase == "roll":
            game.roll((2, 1))
    texts.append(str(game))
    for text in texts:
        assert "X player 1:" in text and "O player 0:" in text
    # Player 0's made 5-point is on player 0's side (the top, its point 5 is column 20).
    assert "player 0 to play 3-1" in texts[0]
    assert "player 1 to play 2-1" in texts[1]


def test_str_shows_a_pending_double_or_beaver_and_the_winner() -> None:
    game = Game(seed=2, rules=Rules(beavers=True))
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    assert "player 1 offers a double to 2: player 0 to answer" in str(game)
    game.beaver()
    assert "player 0 offers a beaver to 4: player 1 to answer" in str(game)
    game.drop()
    assert "player 0 won a single for 2 points (a passed double)" in str(game)
    game = Game(seed=2)
    game.roll((3, 1))
    game.move("8/5 6/5")
    assert "staged move (not committed, R29): 8/5 6/5" in str(game)


# ------------------------------------------------------------------ typed events


def test_events_are_typed_values_and_their_json_is_the_history() -> None:
    game = _midgame()
    game.resign("gammon")
    game.reject()
    assert all(dataclasses.is_dataclass(e) for e in game.events)
    assert {type(e) for e in game.events} >= {ev.Roll, ev.Move, ev.Commit, ev.Resign, ev.Reject}
    assert [ev.to_dict(e) for e in game.events] == game.history
    assert [ev.from_dict(d) for d in game.history] == list(game.events)
    assert Game.from_history(game.history, seed=game.seed) == game
    assert ev.from_dict({"type": "roll", "dice": [3, 1], "random": True}) == ev.Roll((3, 1), True)
    for bad in (
        {"type": "roll", "dice": [3, 1], "random": False},
        {"type": "double", "by": 0},
        {"type": "move"},
        {"type": "resign"},
        {"type": "fly"},
        ["roll"],
    ):
        with pytest.raises(bgfast.InvalidSaveError):
            ev.from_dict(bad)


# ------------------------------------------------------------------ one vocabulary


def test_one_vocabulary_for_games_matches_and_chouettes() -> None:
    from bgfast import chouette, cube, scoring, vocab

    assert scoring.Kind is chouette.Kind is vocab.Kind
    assert scoring.KINDS is vocab.KINDS and chouette._KINDS is vocab.KINDS
    assert cube.check_player is vocab.check_player and cube.Player is vocab.Player
    assert scoring.CUBE_LIMIT == vocab.CUBE_LIMIT == 32768
    # One cube: a chouette's cubes are bgfast.Cube values shown from the table's side.
    assert chouette.Cube.of(Cube().taken(chouette.BOX)) == chouette.Cube(2, "box", True)
    assert chouette.Cube.of(Cube()) == chouette.Cube(1, "center", False)


def test_one_cube_value_check() -> None:
    from bgfast import met

    for call in (
        lambda: Cube(value=3),
        lambda: Rules(max_cube=3),
        lambda: encode_match_id(MatchIdFields(cube_value=3)),
        lambda: met.take_point(2, 4, cube=3),
        lambda: Cube(value=1 << 16, max_value=1 << 16),
    ):
        with pytest.raises(BgfastError, match=r"power of two|32768"):
            call()


def test_one_rule_option_name_and_the_old_spelling() -> None:
    names = ["A", "B", "C"]
    rolls = {"A": 6, "B": 4, "C": 2}
    new = Chouette(names, rolls=rolls, backgammon_counts_double=True)
    old = Chouette(names, rolls=rolls, backgammon_as_double=True)
    assert new == old and new.rules == Rules(backgammon_counts_double=True)
    assert new.options == {"jacoby": False, "gammons": True, "backgammon_as_double": True}
    with pytest.raises(bgfast.IllegalChouetteActionError, match="first name"):
        Chouette(names, rolls=rolls, backgammon_counts_double=True, backgammon_as_double=False)


def test_one_settings_list() -> None:
    from bgfast.vocab import GAME_SETTINGS, GameSettings

    assert tuple(GameSettings.__annotations__) == GAME_SETTINGS
    import inspect

    parameters = inspect.signature(Game).parameters
    assert tuple(parameters) == GAME_SETTINGS


# ------------------------------------------------------------------ one error family


def test_every_exception_is_in_one_module_and_one_family() -> None:
    from bgfast import chouette, errors, errors_game, met

    exported = [getattr(bgfast, n) for n in bgfast.__all__]
    classes = [c for c in exported if isinstance(c, type) and issubclass(c, BaseException)]
    assert len(classes) >= 19
    for cls in classes:
        assert issubclass(cls, BgfastError), cls
        assert getattr(errors, cls.__name__, None) is cls or cls is bgfast.ShardError, cls
    assert chouette.ChouetteError is errors.ChouetteError
    assert met.MetError is errors.MetError and met.InvalidCubeError is errors.InvalidCubeError
    assert errors_game.InvalidSaveError is errors.InvalidSaveError


@pytest.mark.parametrize("cls", [Game, Match, Chouette])
def test_every_damaged_save_is_an_invalid_save_error(cls: type[Saved]) -> None:
    assert issubclass(cls, Saved)
    with pytest.raises(bgfast.InvalidSaveError):
        cls.from_json('{"format": "something", "checksum": "0"}')


def test_a_damaged_chouette_file_is_caught_as_an_invalid_save() -> None:
    c = Chouette(["A", "B", "C"], rolls={"A": 6, "B": 4, "C": 2})
    text = c.to_json().replace('"A"', '"Z"', 1)
    try:
        Chouette.from_json(text)
    except bgfast.InvalidSaveError as e:
        assert isinstance(e, bgfast.ChouetteFileError)
    else:
        raise AssertionError("a damaged chouette file loaded")


# ------------------------------------------------------------------ the bindings translate


def test_epc_comes_from_the_core_without_the_python_cache(tmp_path: Any) -> None:
    """Position.epc called back into bgfast.bearoff (and its disk cache) from the bindings;
    now the core has its own table: an unusable cache directory does not matter."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import bgfast\n"
        "p = bgfast.Position.from_array([[1, 2, 0, 0, 0, 3] + [0] * 19, [0, 0, 4] + [0] * 22])\n"
        "print(p.epc)\n"
    )
    env = {**os.environ, "BGFAST_CACHE_DIR": str(blocked / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    epc = eval(out.stdout)  # a tuple of two floats
    from bgfast import bearoff

    assert epc == (bearoff.epc([1, 2, 0, 0, 0, 3]), bearoff.epc([0, 0, 4, 0, 0, 0]))
    assert not (blocked.parent / "cache").exists()
    with pytest.raises(bgfast.BearoffRangeError, match="R13"):
        _ = Position().epc
