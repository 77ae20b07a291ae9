"""An adversarial pass over the stakes' cube limit (``Stakes.max_cube``, R17) and R16's
option (``Stakes.backgammon_counts_double``): each test failed before its fix.

``rollout_cube`` named a beaver (``"double, beaver"``) whenever beavers were on, even where
the beaver would turn the cube past the game's limit, which the engine refuses; the cube
model's own decision already knew. ``Stakes.check(max_cube=None)`` is the largest cube (as
``Rules.max_cube=None`` is), but the constructor and ``dataclasses.replace`` refused
``None``, so stakes copied from a game's ``Rules.max_cube`` failed one way and not the
other. The analysis rated a take as a "beaver" the game refuses; ``.mat`` and SGF files
were written for a match whose backgammons score as gammons, which neither format states,
and read back wrong.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

import bgfast
from bgfast.cubeful import Stakes, decide
from bgfast.vocab import CUBE_LIMIT

#: The rollout module (``bgfast.rollout`` is its function).
rollout_module = importlib.import_module("bgfast.rollout")


# ---------------------------------------------------------------------------- beavers


@pytest.mark.parametrize(
    ("cube", "limit", "may"),
    [
        ((1, "centred"), 2, False),  # the beaver would make it 4
        ((1, "centred"), 4, True),
        ((2, "mover"), 4, False),
        ((2, "mover"), 8, True),
        ((8192, "opponent"), CUBE_LIMIT, True),
        ((16384, "mover"), CUBE_LIMIT, False),
        ((1, "centred"), 1, False),  # no cube at all
    ],
    ids=str,
)
def test_a_beaver_needs_room_for_two_turns_of_the_cube_R17(
    cube: tuple[int, str], limit: int, may: bool
) -> None:
    assert Stakes.check(cube=cube, beavers=True, max_cube=limit).may_beaver is may
    assert not Stakes.check(cube=cube, max_cube=limit).may_beaver  # no beavers at all
    weak = [0.30, 0.05, 0.0, 0.10, 0.01]  # the doubler is the underdog: the taker beavers
    answer = decide(weak, cube=cube, beavers=True, max_cube=limit).answer
    assert answer == ("beaver" if may else "take")


def test_a_rolled_out_cube_names_no_beaver_past_the_limit_R17(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rolled-out values name the action as the cube model's decision does: a beaver
    only where the game lets the cube turn twice more (rollouts' values are noisy, so an
    underdog's double can come out right, and its take a beaver)."""
    named: list[bool] = []
    real = rollout_module.action_name

    def spy(*values: float, **options: Any) -> str:
        named.append(options["beavers"])
        return str(real(*values, **options))

    monkeypatch.setattr(rollout_module, "action_name", spy)
    common: dict[str, Any] = dict(
        games=36, seed=1, policy="pubeval", evaluator="wildbg", truncate=2, beavers=True
    )
    bgfast.rollout_cube(max_cube=2, **common)
    bgfast.rollout_cube(max_cube=4, **common)
    bgfast.rollout_cube(cube=(2, "mover"), max_cube=4, **common)
    assert named == [False, True, False]
    # The names: an underdog's double its taker would beaver, where it may and may not.
    assert real(-0.2, -0.1, 1.0, redouble=False, beavers=True) == "double, beaver"
    assert real(-0.2, -0.1, 1.0, redouble=False, beavers=False) == "double, take"


# ---------------------------------------------------------------------------- max_cube=None


def test_no_limit_is_the_largest_cube_however_the_stakes_are_built_R17() -> None:
    """``None`` (``Rules.max_cube`` for a game without a limit) is 32768 in ``check``, the
    constructor and ``dataclasses.replace`` alike; the stakes are then equal, and equal
    stakes share the cube models' caches."""
    checked = Stakes.check(cube=(2, "mover"), max_cube=None)
    limited = Stakes.check(cube=(2, "mover"), max_cube=4)
    replaced = dataclasses.replace(limited, max_cube=None)  # type: ignore[arg-type]
    assert replaced == checked and hash(replaced) == hash(checked)
    assert replaced.max_cube == CUBE_LIMIT
    built = Stakes(2, "mover", False, False, 0, (0, 0), False, checked.met, max_cube=None)  # type: ignore[arg-type]
    assert built == checked
    state = bgfast.Game(seed=1).state
    assert state.rules.max_cube is None
    copied = dataclasses.replace(limited, max_cube=state.rules.max_cube)  # type: ignore[arg-type]
    assert copied == checked
    for bad in (0, 3, 2.0, True, "4", 65536):
        with pytest.raises(bgfast.BgfastError, match="max_cube"):
            dataclasses.replace(limited, max_cube=bad)  # type: ignore[arg-type]


def test_the_analysis_names_no_beaver_past_the_limit_R17() -> None:
    """A take the analysis rates is never "beaver" where the game refuses the beaver."""
    for seed in range(1, 6):
        game = bgfast.Game(rules=bgfast.Rules(max_cube=2, beavers=True), seed=seed)
        game.roll((3, 1))
        game.play("8/5 6/5")
        game.double()
        game.take()
        takes = [d for d in bgfast.analyse(game, threads=1).decisions if d.kind == "take"]
        assert takes and all(d.best != "beaver" for d in takes)


def test_match_files_refuse_a_backgammon_scored_as_a_gammon_R16() -> None:
    """Neither format states R16's option: written, the match's backgammons would read
    back as three times the cube, so writing it is refused by name."""
    match = bgfast.Match(3, rules=bgfast.Rules(backgammon_counts_double=True), seed=1)
    match.new_game().roll()
    for write in (match.to_sgf, match.to_mat):
        with pytest.raises(bgfast.MatchOptionError, match="R16's option"):
            write()
