"""A rollout's on/off switches (``quasi_random``, ``cubeful``, ``variance_reduction``) take
numpy booleans as the bools they stand for, as every other bgfast option does
(``bgfast.vocab.check_flag``); anything else is still refused with a ``BgfastError``
naming the switch. They once refused ``np.True_`` ("must be True or False, not
np.True_")."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import BgfastError, MatchOptionError

FLAGS = ["quasi_random", "cubeful", "variance_reduction"]


def _needs(flag: str) -> dict[str, Any]:
    """The other arguments a switch needs on: cubeful play and variance reduction
    evaluate with a net."""
    return {} if flag == "quasi_random" else {"evaluator": bgfast.Net.wildbg()}


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize(("numpy_value", "value"), [(np.True_, True), (np.False_, False)])
def test_numpy_bools_are_the_bools_they_stand_for(
    flag: str, numpy_value: np.bool_, value: bool
) -> None:
    common = dict(games=8, policy="pubeval", seed=5, **_needs(flag))
    with_numpy = bgfast.rollout(**common, **{flag: numpy_value})
    with_bool = bgfast.rollout(**common, **{flag: value})
    assert with_numpy.settings == with_bool.settings
    assert with_numpy.settings[flag] is value  # a Python bool, not np.bool_
    assert with_numpy.equity == with_bool.equity
    assert with_numpy.counts == with_bool.counts
    json.dumps(with_numpy.to_dict())  # np.bool_ would not be JSON


def test_the_numpy_quasi_random_switch_changes_the_rollout() -> None:
    on = bgfast.rollout(games=36, policy="pubeval", seed=5, quasi_random=np.True_)
    off = bgfast.rollout(games=36, policy="pubeval", seed=5, quasi_random=np.False_)
    assert on.settings["quasi_random"] is True and off.settings["quasi_random"] is False
    assert on.quasi_random and not off.quasi_random


def test_numpy_bools_in_rollout_moves_and_rollout_cube() -> None:
    game = bgfast.Game(seed=1)
    game.roll(3, 1)
    moves = bgfast.rollout_moves(
        game.state, games=4, policy="pubeval", seed=2, quasi_random=np.True_
    )
    assert moves is not None
    cube = bgfast.rollout_cube(
        None,
        games=4,
        policy="pubeval",
        seed=2,
        quasi_random=np.False_,
        variance_reduction=np.True_,
        evaluator=bgfast.Net.wildbg(),
    )
    assert cube is not None


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("bad", [1, 0, "yes", None, 1.0, np.array([True])])
def test_anything_else_is_refused_naming_the_switch(flag: str, bad: object) -> None:
    with pytest.raises(BgfastError, match=f"^{flag} must be True or False, not ") as caught:
        bgfast.rollout(games=4, policy="pubeval", seed=1, **{flag: bad}, **_needs(flag))
    # A rollout switch is no match option.
    assert not isinstance(caught.value, MatchOptionError)


def test_a_cubeless_money_rollout_leaves_the_jacoby_rule_out_with_the_cube() -> None:
    # R23 is about the cube: a cubeless rollout's games count gammons and its net plays by
    # that equity, with or without the rule. It once chose plays counting gammons single
    # while reporting the equity that counts them.
    args: dict[str, Any] = dict(games=72, seed=1, threads=1, policy="wildbg")
    plain, jacoby = bgfast.rollout(**args), bgfast.rollout(jacoby=True, **args)
    assert (jacoby.equity, jacoby.stderr) == (plain.equity, plain.stderr)
    assert jacoby.settings["jacoby"] is False
    game = bgfast.Game(seed=3, rules=bgfast.Rules(jacoby=True))
    game.roll(3, 1)
    game.play("8/5 6/5")
    on_roll = game.state
    assert bgfast.rollout(on_roll, **args).equity == bgfast.rollout(on_roll.position, **args).equity
    # Cubeful, the rule counts: the cube starts in the middle.
    cubeful = dict(args, games=24, cubeful=True, truncate=4)
    assert bgfast.rollout(jacoby=True, **cubeful).value != bgfast.rollout(**cubeful).value
