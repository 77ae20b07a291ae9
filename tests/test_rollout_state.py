"""Rollouts of a game's state: the stakes from the state (the cube, the score, Crawford,
the game's rules), the dice it has rolled, and the Holland rule, which holds the
trailer's cube for the first turns of a post-Crawford game."""

from __future__ import annotations

from typing import Any

import pytest
from holland_states import CONTACT, post_crawford

import bgfast
from bgfast import Cube, GameState, Rules
from bgfast.scoring import HOLLAND_RULE, holland_wait_plies

QUICK: dict[str, Any] = {"games": 72, "seed": 5, "truncate": 2}


# ---------------------------------------------------------------------------- the stakes


def test_a_states_stakes_are_the_rollouts() -> None:
    # Money with the cube at 2 on the mover's side and the Jacoby rule.
    state = GameState(
        position=CONTACT,
        phase="roll",
        turn=0,
        cube=Cube(2, 0, beavers=True),
        rules=Rules(jacoby=True, beavers=True),
    )
    given = bgfast.rollout(state, cubeful=True, **QUICK)
    spelled = bgfast.rollout(
        CONTACT, cubeful=True, cube=(2, "mover"), jacoby=True, beavers=True, **QUICK
    )
    assert given.cubeful_equity == spelled.cubeful_equity
    assert given.settings == spelled.settings


def test_a_match_states_score_is_seen_from_its_player_on_roll() -> None:
    state = GameState(position=CONTACT, phase="roll", turn=1, match_length=7, score=(5, 2))
    given = bgfast.rollout(state, cubeful=True, **QUICK)
    spelled = bgfast.rollout(CONTACT, cubeful=True, match_length=7, score=(2, 5), **QUICK)
    assert given.mwc == spelled.mwc
    cube = bgfast.rollout_cube(state, **QUICK)
    assert cube.mwc == bgfast.rollout_cube(CONTACT, match_length=7, score=(2, 5), **QUICK).mwc


def test_stake_arguments_beside_a_state_are_refused_by_name() -> None:
    state = post_crawford()
    with pytest.raises(bgfast.BgfastError, match="drop cube=, score="):
        bgfast.rollout(state, cube=(2, "mover"), score=(1, 1), games=1)
    # The defaults, given again, say nothing the state contradicts.
    bgfast.rollout(state, score=(0, 0), games=1, seed=1, truncate=0)


def test_a_state_must_stand_where_a_rollout_starts() -> None:
    with pytest.raises(bgfast.BgfastError, match="R3"):
        bgfast.rollout(GameState.start(), games=1)
    doubled = bgfast.Game()
    doubled.roll(3, 1)
    doubled.play("8/5 6/5")
    doubled.double()
    with pytest.raises(bgfast.BgfastError, match="R19"):
        bgfast.rollout(doubled.state, games=1)
    rolled = post_crawford(phase="move", dice=(3, 1))
    with pytest.raises(bgfast.BgfastError, match="rollout_moves"):
        bgfast.rollout(rolled, games=1)
    with pytest.raises(bgfast.BgfastError, match="R18"):
        bgfast.rollout_cube(rolled, games=1)
    with pytest.raises(bgfast.InvalidDiceError, match="a roll is two dice"):
        bgfast.rollout_moves(post_crawford(), games=1)
    with pytest.raises(bgfast.BgfastError, match="has rolled 3-1, not 4-2"):
        bgfast.rollout_moves(rolled, (4, 2), games=1)


def test_rollout_moves_of_a_state_plays_its_rolled_dice() -> None:
    rolled = post_crawford(phase="move", dice=(3, 1), holland=False)
    by_state = bgfast.rollout_moves(rolled, top=2, **QUICK)
    by_dice = bgfast.rollout_moves(rolled, (1, 3), top=2, **QUICK)
    spelled = bgfast.rollout_moves(
        CONTACT, (3, 1), top=2, match_length=5, score=(2, 4), crawford=False, **QUICK
    )
    triples = [[(m.move, m.result.mwc) for m in r] for r in (by_state, by_dice, spelled)]
    assert triples[0] == triples[1] == triples[2]


# ---------------------------------------------------------------------- the Holland rule


@pytest.mark.parametrize(
    ("changes", "plies"),
    [
        ({}, 4),  # the trailer may double at its third turn: ply 4
        ({"turn": 0}, 5),  # the leader on roll first: the trailer's third turn is ply 5
        ({"turns_played": (1, 0)}, 4),  # the leader has rolled once: still 2 each to come
        ({"turns_played": (2, 1)}, 2),
        ({"turns_played": (2, 2)}, 0),  # both have rolled twice: the rule is spent
        ({"holland": False}, 0),
        ({"score": (3, 2)}, 0),  # not post-Crawford: neither side is 1-away
    ],
)
def test_the_plies_the_holland_rule_holds_the_cube(changes: dict[str, Any], plies: int) -> None:
    state = post_crawford(**changes)
    assert holland_wait_plies(state, state.turn or 0) == plies


def test_the_holland_rule_holds_the_trailers_first_double() -> None:
    # Post-Crawford, the trailer doubles at once where the rule lets it: here it must not,
    # so its first turn plays as a cube decision's no-double line, and the game without
    # the rule as its double/take line, game for game.
    held = bgfast.rollout(post_crawford(), cubeful=True, games=200, seed=3, truncate=1)
    free = bgfast.rollout(post_crawford(holland=False), cubeful=True, games=200, seed=3, truncate=1)
    lines = bgfast.rollout_cube(post_crawford(holland=False), games=200, seed=3, truncate=1)
    assert lines.action == "double, take"
    assert held.mwc == lines.results[0].mwc  # no double
    assert free.mwc == lines.results[1].mwc  # double, take
    assert held.settings["holland_wait_plies"] == 4
    assert "Holland rule: no double for 4 plies" in held.table()
    assert "holland_wait_plies" not in free.settings
    cubeless = bgfast.rollout(post_crawford(), games=36, seed=3, truncate=1)
    assert "holland_wait_plies" not in cubeless.settings  # no cube, nothing held


def test_rollout_cube_refuses_a_double_the_holland_rule_forbids() -> None:
    with pytest.raises(bgfast.BgfastError, match=HOLLAND_RULE):
        bgfast.rollout_cube(post_crawford(), games=1)
    spent = post_crawford(turns_played=(2, 2))
    assert bgfast.rollout_cube(spent, **QUICK).mwc == (
        bgfast.rollout_cube(post_crawford(holland=False), **QUICK).mwc
    )


def test_a_plays_rollout_is_its_results_one_turn_later() -> None:
    # A candidate's games start at the opponent's turn, one ply into the decision: the
    # cube stays held for one ply less, as for the state after the play.
    rolled = post_crawford(phase="move", dice=(3, 1))
    settings: dict[str, Any] = {"cubeful": True, "games": 200, "seed": 9, "truncate": 6}
    play = CONTACT.moves(3, 1)[0]
    (m,) = bgfast.rollout_moves(rolled, moves=[play], **settings)
    after = post_crawford(position=m.move.result, turn=0, turns_played=(0, 1))
    assert holland_wait_plies(after, 0) == 3
    alone = bgfast.rollout(after, **settings)
    assert m.result.mwc is not None and alone.mwc is not None
    assert m.result.mwc == pytest.approx(1 - alone.mwc, abs=1e-12)
    unheld = bgfast.rollout(after.replace(holland=False), **settings)
    assert unheld.mwc != alone.mwc
