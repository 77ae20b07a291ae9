"""Numpy integers are taken wherever the game layer takes an int (a training script's
values come out of arrays), kept as the Python ints they stand for, since what a game
is given it saves; numpy booleans and bools are refused as counts, as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bgfast
from bgfast import cubeful, met
from bgfast.errors import BgfastError


def test_stakes_and_cube_decisions_take_numpy_integers_r17_r20() -> None:
    given = cubeful.Stakes.check(
        cube=(np.int64(2), "mover"), match_length=np.int32(7), score=(np.int8(2), np.uint16(3))
    )
    plain = cubeful.Stakes.check(cube=(2, "mover"), match_length=7, score=(2, 3))
    assert given == plain
    assert all(type(v) is int for v in (given.cube_value, given.match_length, *given.score))
    assert cubeful.Stakes.check(max_cube=np.int64(4)).max_cube == 4
    chances = [0.6, 0.2, 0.01, 0.1, 0.01]
    assert cubeful.decide(chances, cube=(np.int64(2), "mover")) == cubeful.decide(
        chances, cube=(2, "mover")
    )


def test_rules_games_and_matches_save_the_ints_numpy_integers_stand_for() -> None:
    rules = bgfast.Rules(max_cube=np.int32(8), auto_doubles=np.int64(1))
    assert rules == bgfast.Rules(max_cube=8, auto_doubles=1)
    assert type(rules.max_cube) is int and type(rules.auto_doubles) is int
    game = bgfast.Game(rules=rules, seed=np.int64(3))
    twin = bgfast.Game(rules=bgfast.Rules(max_cube=8, auto_doubles=1), seed=3)
    for g in (game, twin):
        g.roll()
    assert game.to_json() == twin.to_json()
    assert bgfast.Game.from_json(game.to_json()) == game
    match = bgfast.Match(np.int64(5), seed=np.uint8(9))
    assert match.length == 5 and json.loads(match.to_json())
    assert bgfast.Match(np.int64(0), seed=1).length == 0  # a money session
    scored = bgfast.Game(match_length=np.int64(5), score=(np.int64(1), np.int64(3)), seed=1)
    assert scored.state.score == (1, 3) and type(scored.state.score[0]) is int
    moment = game.state.replace(turns_played=(np.int64(1), np.int8(0)), auto_doubles=np.int64(0))
    assert moment.turns_played == (1, 0) and type(moment.auto_doubles) is int
    assert moment.to_dict() == game.state.replace(turns_played=(1, 0)).to_dict()


def test_match_equity_tables_take_numpy_integers_r20() -> None:
    assert met.equity(np.int64(3), np.int32(5)) == met.equity(3, 5)
    assert met.take_point(np.int64(2), np.int64(4), np.int64(2)) == met.take_point(2, 4, 2)


def test_a_chouette_roll_off_takes_numpy_dice_r24() -> None:
    rolls = {"ann": np.int64(6), "bob": np.int32(5), "cy": [np.int8(3)]}
    chouette = bgfast.Chouette(["ann", "bob", "cy"], rolls=rolls)  # type: ignore[dict-item]
    plain = bgfast.Chouette(["ann", "bob", "cy"], rolls={"ann": 6, "bob": 5, "cy": 3})
    assert chouette.to_json() == plain.to_json()


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_booleans_are_no_counts(flag: object) -> None:
    with pytest.raises(BgfastError, match="max_cube"):
        cubeful.Stakes.check(max_cube=flag)
    with pytest.raises(BgfastError, match="seed"):
        bgfast.Game(seed=flag)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="must be an int"):
        met.equity(flag, 3)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="score"):
        cubeful.Stakes.check(match_length=5, score=(flag, 0))


# Found by an adversarial pass (tests/test_hardening_numpy_ints.py): values checked as
# numbers but kept as numpy values, which saves could not hold or arithmetic wrapped.


def test_a_game_keeps_its_match_length_and_a_resigning_player_as_ints() -> None:
    game = bgfast.Game(match_length=np.int64(5), seed=1)
    assert type(game.state.match_length) is int
    assert bgfast.Game.from_json(game.to_json()) == game and game.gnubg_id()
    game.roll(3, 1)
    game.resign("single", player=np.int64(game.turn))
    assert game.history[-1]["player"] == game.turn and type(game.history[-1]["player"]) is int
    assert bgfast.Game.from_json(game.to_json()) == game


def test_a_cube_of_numpy_integers_doubles_as_the_ints_do_r17() -> None:
    cube = bgfast.Cube(value=np.uint8(128), owner=np.int64(0), max_value=np.uint8(128))
    assert cube == bgfast.Cube(value=128, owner=0, max_value=128)
    assert not cube.may_double(0)  # a uint8 128 doubled wrapped to 0
    assert bgfast.Cube(value=np.uint8(128), owner=0).taken(1).value == 256
    assert met.take_point(2, 4, np.uint8(2)) == met.take_point(2, 4, 2)


def test_results_and_offers_keep_ints_and_refuse_other_numbers() -> None:
    from bgfast.state import CubeOffer, GameResult

    result = GameResult(np.int64(1), "single", np.int64(2), "resign")
    assert result == GameResult(1, "single", 2, "resign")
    assert json.dumps(result.to_dict())
    game = bgfast.Game(seed=1)
    game.roll(3, 1)
    game.play(game.legal_moves()[0])
    state = game.state
    offer = CubeOffer(np.int64(state.turn), np.int64(2))
    assert json.dumps(state.replace(phase="doubled", offer=offer).to_dict())
    with pytest.raises(BgfastError, match="pending cube value"):
        state.replace(phase="doubled", offer=CubeOffer(state.turn, 2.0))  # type: ignore[arg-type]


def test_seeds_of_duels_and_chouettes_take_numpy_integers() -> None:
    result = bgfast.duel("pubeval", "random", games=2, seed=np.uint64(3), threads=1)
    assert type(result.seed) is int and json.dumps(result.to_dict())
    names = ["ann", "bob", "cy"]
    assert (
        bgfast.Chouette(names, rng=np.int64(3)).to_json() == bgfast.Chouette(names, rng=3).to_json()
    )
    for bad in (True, 2.5, 2**70):
        with pytest.raises(bgfast.chouette.IllegalChouetteActionError, match="rng"):
            bgfast.Chouette(names, rng=bad)  # type: ignore[arg-type]


def test_a_0d_integer_array_is_an_integer_as_in_the_native_checks() -> None:
    assert bgfast.Game(seed=np.array(3)).to_json() == bgfast.Game(seed=3).to_json()
    with pytest.raises(BgfastError):
        bgfast.Game(seed=np.array(3.0))  # type: ignore[arg-type]
