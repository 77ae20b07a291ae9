"""What the fast paths rely on: they give what the checked paths give.

- The referee builds each new state unchecked (``GameState._evolve``): every state of many
  random games (doubles, beavers, raccoons, automatic doubles, resignations, table-mode
  illegal moves and calls, match games) is one the checked constructor accepts and gives
  back unchanged; loaders still refuse impossible games.
- ``GameState`` compares its cube's settings field by field, with the old refusals.
- The ID decoders build their state once, with the old refusals.
- ``Stakes.check`` validates once; ``_check_probabilities`` checks one row in floats as
  ``_check_rows`` checks rows.
- The bear-off table's path is kept by the environment it is read from; a batch fetches
  the table once; ``hint``'s one-board test agrees with the batch one.
- ``bgfast bearoff build`` refuses a cache directory it cannot write before building.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import Game, GameState, Match, Position, Rules, bearoff, codec, cubeful
from bgfast import events as ev
from bgfast import game as game_module
from bgfast.cube import Cube
from bgfast.cubeful import Stakes
from bgfast.errors import (
    BgfastError,
    InvalidIdError,
    InvalidSaveError,
    InvalidStateError,
    MatchOptionError,
    shown,
)
from bgfast.persist import dumps, same_json

# ------------------------------------------------------------------ the referee's states


def _assert_checked(state: GameState) -> None:
    """``state`` (built unchecked) is one the checked constructor accepts and gives back
    unchanged: the same fields, of the same types, the same JSON."""
    again = dataclasses.replace(state)  # every field through __post_init__
    assert again == state
    for f in dataclasses.fields(GameState):
        assert type(getattr(again, f.name)) is type(getattr(state, f.name)), f.name
    assert same_json(again.to_dict(), state.to_dict())


def _random_game(seed: int) -> Game:
    """A random game, checking every state it passes through."""
    rng = random.Random(seed)
    kind = seed % 4
    if kind == 0:
        game = Game(seed=seed, rules=Rules(beavers=True, raccoons=True, auto_doubles=2))
    elif kind == 1:
        game = Game(seed=seed, rules=Rules(jacoby=True, max_cube=8), table=True)
    elif kind == 2:
        score = rng.choice([(0, 0), (4, 2), (2, 4), (4, 4), (3, 1)])
        crawford = 4 in score and score != (4, 4) and rng.random() < 0.5
        game = Game(seed=seed, match_length=5, score=score, crawford=crawford, holland=True)
    else:
        game = Game(seed=seed, table=True, rules=Rules(beavers=True))
    _assert_checked(game.state)
    for _ in range(400):
        if game.is_over:
            break
        phase = game.phase
        r = rng.random()
        if phase in ("roll", "move", "doubled") and r < 0.01:
            game.resign(rng.choice(["single", "gammon", "backgammon"]))
        elif phase == "resign":
            (game.accept if rng.random() < 0.3 else game.reject)()
        elif phase == "roll" and game.may_double() and r < 0.08:
            game.double()
        elif phase == "roll" and game.last_move_illegal and r < 0.5:
            game.call()
        elif phase in ("opening", "roll"):
            game.roll()
        elif phase == "doubled":
            offer = game.offer_kind
            if offer == "double" and game.rules.beavers and r < 0.3:
                game.beaver()
            elif offer == "beaver" and game.rules.raccoons and r < 0.5:
                game.raccoon()
            else:
                (game.drop if rng.random() < 0.2 else game.take)()
        else:  # move
            if game.table and r < 0.1:
                try:
                    game.move("24/23 24/23 13/12 13/12")  # illegal for most rolls
                except BgfastError:
                    game.move(rng.choice(game.legal_moves()))
            else:
                game.move(rng.choice(game.legal_moves()))
            if rng.random() < 0.05:
                game.undo()
                continue
            game.commit()
        _assert_checked(game.state)
    return game


def test_every_state_of_random_games_is_one_the_checked_constructor_accepts() -> None:
    events: set[str] = set()
    endings: set[str] = set()
    autos = 0
    for seed in range(160):
        game = _random_game(seed)
        events.update(type(e).__name__ for e in game.events)
        autos = max(autos, game.state.auto_doubles)
        if game.result is not None:
            endings.add(game.result.reason)
    # The games went through every kind of change the handlers make.
    for name in ("Roll", "Double", "Take", "Drop", "Beaver", "Raccoon", "Move", "Undo"):
        assert name in events, name
    for name in ("Commit", "Call", "Resign", "Accept", "Reject"):
        assert name in events, name
    assert endings == {"bear-off", "drop", "resign"} and autos > 0


def test_random_games_replay_and_load_to_the_same_states() -> None:
    for seed in range(0, 160, 7):
        game = _random_game(seed)
        loaded = Game.from_json(game.to_json())
        assert loaded.state == game.state and loaded == game
        assert same_json(loaded.to_dict(), game.to_dict())


def test_a_match_of_random_games_round_trips_through_its_files() -> None:
    match = Match(5, seed=4)
    rng = random.Random(4)
    while not match.is_over:
        game = match.new_game()
        while not game.is_over:
            if game.phase in ("opening", "roll"):
                if game.phase == "roll" and game.may_double() and rng.random() < 0.1:
                    game.double()
                    (game.take if rng.random() < 0.7 else game.drop)()
                    continue
                game.roll()
            else:
                game.play(rng.choice(game.legal_moves()))
            _assert_checked(game.state)
    assert Match.from_json(match.to_json()).to_json() == match.to_json()
    again = Match.from_mat(match.to_mat())
    assert [g.state for g in again.games] == [g.state for g in match.games]
    assert [g.state for g in Match.from_sgf(match.to_sgf()).games] == [g.state for g in match.games]


def _save(doc: dict[str, Any]) -> str:
    return dumps({k: v for k, v in doc.items() if k != "checksum"})


def _doc(game: Game) -> dict[str, Any]:
    return json.loads(game.to_json())  # type: ignore[no-any-return]


def test_a_forged_game_is_still_refused() -> None:
    game = Game(seed=5, match_length=5, score=(4, 2), crawford=True)
    game.roll((3, 1))
    game.play("8/5 6/5")
    # A double in the Crawford game, written into the events (R21).
    doc = _doc(game)
    doc["events"].append({"type": "double"})
    with pytest.raises(InvalidSaveError, match="Crawford"):
        Game.from_json(_save(doc))
    # A stored state that the events do not lead to, itself impossible: a turned cube.
    doc = _doc(game)
    doc["state"]["cube"]["value"] = 2
    with pytest.raises(InvalidSaveError):
        Game.from_json(_save(doc))
    # A setup that is no state: the cube turned in the Crawford game.
    doc = _doc(game)
    doc["setup"]["cube"]["value"] = 2
    doc["setup"]["cube"]["owner"] = 0
    with pytest.raises(InvalidSaveError, match="Crawford"):
        Game.from_json(_save(doc))
    # A take with no double, a beaver in a match.
    for event in ({"type": "take"}, {"type": "beaver"}):
        doc = _doc(game)
        doc["events"].append(event)
        with pytest.raises(InvalidSaveError):
            Game.from_json(_save(doc))


def test_a_replay_checks_the_state_it_ends_in(monkeypatch: pytest.MonkeyPatch) -> None:
    # The loaders' last line: a handler that built an impossible state (here a take that
    # leaves the cube at 1 with an owner, R17) is caught when a game is loaded.
    game = Game(seed=1)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.take()
    text = game.to_json()

    def broken_take(self: Game, event: Any) -> Any:
        state = self._state
        assert state.offer is not None
        owned = dataclasses.replace(state.cube, owner=1)  # owned, not turned: wrong
        self._state = state._evolve(phase="roll", offer=None, cube=owned)
        return event

    monkeypatch.setitem(game_module._HANDLERS, ev.Take, broken_take)
    with pytest.raises(InvalidSaveError, match="impossible state"):
        Game.from_json(text)


def test_evolve_is_private_and_replace_stays_checked() -> None:
    state = GameState.start()
    with pytest.raises(TypeError, match="no field 'nope'"):
        state._evolve(nope=1)
    with pytest.raises(InvalidStateError, match="R3"):
        state.replace(turn=0)
    unchecked = state._evolve(turn=0)  # the caller's word
    assert unchecked.turn == 0 and state.turn is None
    with pytest.raises(InvalidStateError, match="R3"):
        unchecked._check()


# ------------------------------------------------------------------ the cube's settings


def test_cube_settings_are_compared_with_the_old_refusals() -> None:
    rules = Rules(max_cube=2)
    with pytest.raises(MatchOptionError, match="invalid cube: value 4 is above max_value 2"):
        GameState(rules=rules, cube=Cube(value=4, owner=0), phase="roll", turn=0)
    with pytest.raises(InvalidStateError, match="settings do not match the rules"):
        GameState(rules=rules, cube=Cube(value=2, owner=0), phase="roll", turn=0)
    with pytest.raises(InvalidStateError, match="settings do not match the rules"):
        GameState(cube=Cube(beavers=True))
    with pytest.raises(InvalidStateError, match="settings do not match the rules"):
        GameState(cube=Cube(enabled=False))

    @dataclasses.dataclass(frozen=True)
    class OtherCube(Cube):
        pass

    with pytest.raises(InvalidStateError, match="settings do not match the rules"):
        GameState(cube=OtherCube())
    state = GameState(rules=rules, cube=Cube(value=2, owner=1, max_value=2), phase="roll", turn=0)
    assert state.cube.value == 2


# ------------------------------------------------------------------ the ID decoders


def test_id_decoders_keep_their_two_kinds_of_refusal() -> None:
    with pytest.raises(InvalidIdError, match=r"the match settings are invalid: .*Crawford"):
        # 5-point match, Crawford flag set at 0-0.
        codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:5:10")
    with pytest.raises(InvalidIdError, match=r"does not describe a playable game state: .*R17"):
        # A centred cube of 2 in match play.
        codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:5:10")
    eight = GameState(cube=Cube(value=8, owner=0), phase="roll", turn=1)
    with pytest.raises(InvalidIdError, match=r"does not describe .*above max_value 4"):
        codec.state_from_gnubg_id(codec.gnubg_id_of(eight), rules=Rules(max_cube=4))
    with pytest.raises(InvalidIdError, match="rules must be a bgfast Rules"):
        codec.state_from_gnubg_id("4HPwATDgc/ABMA:cIkKAAAAAAAA", rules="x")  # type: ignore[arg-type]


def test_an_id_s_state_is_the_one_start_and_replace_give() -> None:
    for xgid in (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
        "XGID=-b--BBC-C---cC---cBbc-b---:1:1:1:00:0:0:0:11:10",
        "XGID=-b--BBC-C---cC---cBbc-b---:1:1:1:51:0:0:0:11:10",
        "XGID=-b----E-C---eE---c-e----B-:1:0:1:B:0:0:2:0:10",
    ):
        state = codec.state_from_xgid(xgid)
        start = GameState.start(
            rules=state.rules,
            match_length=state.match_length,
            score=state.score,
            crawford=state.crawford,
        )
        built = start.replace(**{f.name: getattr(state, f.name) for f in dataclasses.fields(state)})
        assert built == state and same_json(built.to_dict(), state.to_dict())
        assert codec.state_from_gnubg_id(codec.gnubg_id_of(state), rules=state.rules).position == (
            state.position
        )


# ------------------------------------------------------------------ stakes and chances


def test_checked_stakes_are_what_the_constructor_makes_of_them() -> None:
    for kwargs in (
        {},
        {"cube": (2, "centered")},
        {"cube": (4, "opponent"), "jacoby": True, "beavers": True, "max_cube": 64},
        {"match_length": 7, "score": (2, 3)},
        {"match_length": 7, "score": (6, 3)},
        {"match_length": 7, "score": (6, 3), "crawford": False},
        {"match_length": 7, "score": (6, 6), "crawford_rule": False},
        {"match_length": 5, "score": (1, 1), "met": "rockwell-kazaross"},
        {"backgammon_counts_double": True, "cube": (2, "mover")},
    ):
        stakes = Stakes.check(**kwargs)
        again = dataclasses.replace(stakes)
        assert again == stakes and hash(again) == hash(stakes)
        for f in dataclasses.fields(Stakes):
            assert type(getattr(again, f.name)) is type(getattr(stakes, f.name)), f.name
    with pytest.raises(BgfastError, match="power of two"):
        Stakes.check(cube=(3, "mover"))
    with pytest.raises(MatchOptionError, match="R21"):
        Stakes.check(match_length=7, score=(2, 3), crawford=True)
    with pytest.raises(BgfastError):
        dataclasses.replace(Stakes.check(), cube_owner="nobody")


def _rows() -> list[list[float]]:
    rng = random.Random(11)
    special = [0.0, 1.0, -1e-7, -2e-6, 1 + 1e-7, 1 + 2e-6, float("nan"), float("inf"), 0.5]
    rows = []
    for _ in range(3000):
        if rng.random() < 0.5:
            win = rng.random()
            g = win * rng.random()
            row = [win, g, g * rng.random(), 0.0, 0.0]
            row[3] = (1 - win) * rng.random()
            row[4] = row[3] * rng.random()
            k = rng.randrange(5)
            row[k] += rng.choice([0.0, 1e-7, 2e-6, -2e-6, 0.1, -0.1])
        else:
            row = [rng.choice(special) if rng.random() < 0.3 else rng.random() for _ in range(5)]
        rows.append(row)
    return rows


def test_one_row_of_chances_is_checked_as_rows_are() -> None:
    for row in _rows():
        try:
            one = cubeful._check_probabilities(row)
        except BgfastError as error:
            with pytest.raises(BgfastError) as batch_error:
                cubeful._check_probability_rows([row])
            said = str(batch_error.value)
            # The batch names the row by its index and values; one row is named as given.
            named = re.sub(r"row 0 \(\[[^]]*\]\)", "<row>", said)
            assert str(error).replace(shown(row), "<row>") == named
            continue
        rows = cubeful._check_probability_rows([row])
        assert one.dtype == np.float64 and one.shape == (5,)
        assert np.array_equal(one, rows[0])
    given = np.array([0.5, 0.1, 0.0, 1e-7 - 1e-9, 0.0], dtype=np.float32)
    checked = cubeful._check_probabilities(given)
    assert checked is not given and checked.dtype == np.float64
    clipped = cubeful._check_probabilities([1 + 5e-7, 0.0, 0.0, 0.0, 0.0])
    assert clipped.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


# ------------------------------------------------------------------ bear-off tables


def _bearoff_boards(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    boards = np.zeros((count, 2, 25), dtype=np.uint8)
    for board in boards:
        for side in (0, 1):
            for _ in range(rng.integers(1, 8)):
                board[side, rng.integers(0, 6)] += 1
    return boards


def test_a_batch_reads_the_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    table = bearoff.two_sided()
    calls = []

    def counted() -> Any:
        calls.append(1)
        return table

    monkeypatch.setattr(bearoff, "two_sided", counted)
    boards = _bearoff_boards(24, 2)
    in_range = bearoff.in_two_sided_range(boards)
    assert in_range.sum() >= 5
    for stakes in (Stakes.check(cube=(2, "mover")), Stakes.check(match_length=7, score=(2, 3))):
        calls.clear()
        rows, values = cubeful.exact_bearoff_values(boards, stakes)
        assert calls == [1] and rows.tolist() == np.flatnonzero(in_range).tolist()
        assert values.shape == (len(rows), 4)
    # The values are the table's, as one position at a time reads them.
    monkeypatch.undo()
    money = Stakes.check()
    rows, values = cubeful.exact_bearoff_values(boards, money)
    for row, value in zip(rows, values):
        pair = (tuple(boards[row, 0, :6].tolist()), tuple(boards[row, 1, :6].tolist()))
        assert value[0] == bearoff.cubeful_equity(pair, "centred", may_double=False)
    calls.clear()
    far = np.array([Position().to_array()])
    assert cubeful.exact_bearoff_values(far, money)[0].size == 0


def test_the_table_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = bearoff._two_sided_path().name
    for key in ("BGFAST_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert bearoff._two_sided_path() == tmp_path / "home" / ".cache" / "bgfast" / name
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert bearoff._two_sided_path() == tmp_path / "xdg" / "bgfast" / name
    for sub in ("a", "b", "a"):
        monkeypatch.setenv("BGFAST_CACHE_DIR", str(tmp_path / sub))
        assert bearoff._two_sided_path() == tmp_path / sub / name
        assert bearoff._one_sided_path().parent == bearoff.cache_dir() == tmp_path / sub
    monkeypatch.setenv("BGFAST_CACHE_DIR", "")  # empty: not set
    assert bearoff._two_sided_path() == tmp_path / "xdg" / "bgfast" / name


def test_a_changed_cache_dir_takes_effect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = bearoff.two_sided()
    pair = ((1, 1, 0, 0, 0, 0), (0, 1, 1, 0, 0, 0))
    expected = bearoff.win_probability(pair)
    monkeypatch.setenv("BGFAST_CACHE_DIR", str(tmp_path))
    path = bearoff._two_sided_path()
    path.write_bytes(table.to_bytes())
    assert path.parent == tmp_path
    assert bearoff.two_sided() is not table  # the new directory's own
    assert bearoff.win_probability(pair) == expected


def test_one_board_may_reach_the_range_as_the_batch_says() -> None:
    rng = random.Random(8)
    positions = [Position()]
    for board in _bearoff_boards(60, 3):
        positions.append(Position.from_array(board))
        positions.append(Position.from_array(board[::-1].copy()))
    for _ in range(40):  # random games' positions, contact and race
        game = Game(seed=rng.randrange(1000))
        while not game.is_over:
            if game.phase in ("opening", "roll"):
                game.roll()
            else:
                game.play(rng.choice(game.legal_moves()))
                positions.append(game.position)
    batch_says = bearoff.plays_may_reach_two_sided_range(bgfast.batch.to_array(positions))
    one_says = [bearoff._plays_of_may_reach_two_sided_range(p) for p in positions]
    assert one_says == batch_says.tolist() and any(one_says) and not all(one_says)


def test_hint_in_a_bear_off_reads_the_table() -> None:
    net = bgfast.Net.wildbg()
    board = np.zeros((2, 25), dtype=np.uint8)
    board[0, :3] = (1, 1, 1)
    board[1, :3] = (0, 2, 1)
    ranked = bgfast.hint(net, Position.from_array(board), (6, 2))
    for play in ranked:
        result = play.move.result
        exact = 1.0 - bearoff.win_probability(result) if result.outcome is None else 1.0
        assert float(play.probabilities[0]) == pytest.approx(exact, abs=1e-6)


# ------------------------------------------------------------------ bgfast bearoff build


def test_build_refuses_a_cache_dir_it_cannot_write_before_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_build(**kwargs: Any) -> Any:
        raise AssertionError("built")

    monkeypatch.setattr(bearoff, "_build", no_build)
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for where in (a_file, a_file / "below"):
        assert bearoff.cli_build(["--cache-dir", str(where)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"bgfast: --cache-dir {where}: Not a directory\n"
    monkeypatch.setenv("BGFAST_CACHE_DIR", str(a_file))
    assert bearoff.cli_build([]) == 2
    assert capsys.readouterr().err == f"bgfast: the cache directory {a_file}: Not a directory\n"


def test_build_reads_valid_tables_from_a_directory_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bearoff._one_sided_path(tmp_path).write_bytes(bearoff.one_sided().to_bytes())
    bearoff._two_sided_path(tmp_path).write_bytes(bearoff.two_sided().to_bytes())
    monkeypatch.setattr(bearoff, "_why_not_writable", lambda directory: "Read-only file system")
    assert bearoff.cli_build(["--cache-dir", str(tmp_path)]) == 0
    assert "already cached and valid" in capsys.readouterr().out
    assert bearoff.cli_build(["--cache-dir", str(tmp_path), "--force"]) == 2
    assert capsys.readouterr().err == f"bgfast: --cache-dir {tmp_path}: Read-only file system\n"
