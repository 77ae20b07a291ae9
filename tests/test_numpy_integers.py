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
