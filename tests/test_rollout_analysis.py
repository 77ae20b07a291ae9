"""Candidate plays and cube decisions rolled out on common dice (``rollout_moves``,
``rollout_cube``), and every mode on executors."""

from __future__ import annotations

import math
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

import bgfast
from bgfast import Position

CONTACT = "4PPgAQjg2+ABMA"


def test_the_opening_31_makes_the_5_point() -> None:
    # Every candidate plays game k on the same dice: the differences are paired. 8/5 6/5 is
    # about 0.15 ahead of the next play (12,960 games: 8.5 standard errors).
    ranked = bgfast.rollout_moves(Position(), (3, 1), games=5184, seed=31, top=3)
    assert str(ranked[0].move) == "8/5 6/5"
    assert ranked[0].diff == 0.0 and ranked[0].diff_stderr == 0.0
    best = ranked[0].result
    for m in ranked[1:]:
        assert m.diff < 0
        unpaired = math.hypot(m.result.stderr["equity"], best.stderr["equity"])
        assert 0 < m.diff_stderr < unpaired
    assert [m.result.value for m in ranked] == sorted(
        (m.result.value for m in ranked), reverse=True
    )
    assert all(m.result.player == "the side that played" for m in ranked)


def test_candidate_rollouts_are_the_rollouts_of_their_results() -> None:
    # A candidate's numbers are those of its result rolled out alone, seen by the player
    # who made the play (the same dice: game k of both).
    start = Position()
    ranked = bgfast.rollout_moves(start, (6, 4), moves=["24/14", "8/2 6/2"], games=300, seed=2)
    for m in ranked:
        alone = bgfast.rollout(m.move.result, games=300, seed=2)
        assert m.result.equity == -alone.equity
        assert m.result.win == pytest.approx(alone.lose, abs=1e-15)
    assert {str(m.move) for m in ranked} == {"24/14", "8/2 6/2"}


def test_candidates_given_as_moves_text_or_top() -> None:
    start = Position()
    moves = start.moves(4, 2)
    ranked = bgfast.rollout_moves(start, (4, 2), moves=[moves[0], moves[1]], games=36, seed=1)
    assert {m.move for m in ranked} == {moves[0], moves[1]}
    top = bgfast.rollout_moves(start, (4, 2), top=2, games=36, seed=1)
    best_two = [r.result for r, _, _ in bgfast.Net.wildbg().rank(start, (4, 2))[:2]]
    assert {m.move.result for m in top} == set(best_two)
    with pytest.raises(bgfast.IllegalMoveError):
        bgfast.rollout_moves(start, (4, 2), moves=["24/17"], games=10)
    with pytest.raises(bgfast.InvalidMoveError):
        bgfast.rollout_moves(start, (4, 2), moves=["24//18"], games=10)
    with pytest.raises(bgfast.InvalidDiceError):
        bgfast.rollout_moves(start, (4, 7), games=10)
    with pytest.raises(bgfast.InvalidDiceError):
        bgfast.rollout_moves(start, (4, 2, 1), games=10)
    with pytest.raises(bgfast.BgfastError, match="top"):
        bgfast.rollout_moves(start, (4, 2), top=2, games=10, policy="pubeval")


def test_candidate_rollouts_do_not_depend_on_threads() -> None:
    kwargs = dict(games=24, seed=9, top=3, cubeful=True, truncate=15, variance_reduction=True)
    one = bgfast.rollout_moves(Position(), (5, 2), threads=1, **kwargs)  # type: ignore[arg-type]
    two = bgfast.rollout_moves(Position(), (5, 2), threads=2, **kwargs)  # type: ignore[arg-type]
    assert [(m.move, m.result.cubeful_equity, m.diff_stderr) for m in one] == [
        (m.move, m.result.cubeful_equity, m.diff_stderr) for m in two
    ]


def test_cube_rollout_values_and_action() -> None:
    c = bgfast.rollout_cube(CONTACT, games=300, seed=3, truncate=8)
    assert c.double_pass == 1.0 and c.mwc is None
    assert c.action == bgfast.cubeful.action_name(
        c.no_double, c.double_take, c.double_pass, redouble=False, beavers=False
    )
    nd, dt = c.results
    assert nd.cubeful_equity == c.no_double and dt.cubeful_equity == c.double_take
    unpaired = math.hypot(c.stderr["no_double"], c.stderr["double_take"])
    assert c.stderr["double_take - no_double"] < unpaired
    owned = bgfast.rollout_cube(CONTACT, games=36, seed=3, truncate=2, cube=(2, "mover"))
    assert owned.action.startswith(("no redouble", "redouble", "too good to redouble"))


def test_cube_rollout_in_a_match_reports_chances_and_emg() -> None:
    c = bgfast.rollout_cube(CONTACT, games=100, seed=4, match_length=7, score=(2, 4), truncate=6)
    assert c.mwc is not None
    stakes = bgfast.cubeful.Stakes.check(match_length=7, score=(2, 4))
    assert c.mwc["double_pass"] == stakes.match_value(True)
    assert c.double_pass == pytest.approx(1.0)
    assert c.no_double == pytest.approx(stakes.emg(c.mwc["no_double"]))


@pytest.mark.parametrize(
    "position, stakes",
    [
        ("wu3BARJwn8ECBg", {}),  # a double, take by the net's chances
        (CONTACT, {}),
        ("wu3BARJwn8ECBg", {"match_length": 7, "score": (0, 0)}),
        ("2cYBwhGYtwNEGA", {"match_length": 5, "score": (2, 4), "crawford": False}),
    ],
)
def test_a_cube_rollout_truncated_at_once_is_the_evaluators_own_decision(
    position: str, stakes: dict[str, object]
) -> None:
    # The no-double line was scored after the best cube action, so it equalled double/take
    # wherever the evaluator doubles, and the action read "no double".
    c = bgfast.rollout_cube(position, games=36, seed=1, truncate=0, **stakes)  # type: ignore[arg-type]
    chances = bgfast.Net.wildbg().evaluate(Position.from_id(position))
    d = bgfast.cubeful.decide(chances, **stakes)  # type: ignore[arg-type]
    # Money: per unit of the cube; a match: match-winning chances (decide's values).
    values = c.mwc if stakes else {"no_double": c.no_double, "double_take": c.double_take}
    assert values is not None
    assert (values["no_double"], values["double_take"]) == pytest.approx(
        (d.no_double, d.double_take), abs=1e-6
    )
    assert c.action == d.action
    assert c.stderr["no_double"] == c.stderr["double_take"] == 0.0


def test_cube_rollout_refuses_who_cannot_double() -> None:
    with pytest.raises(bgfast.BgfastError, match="R17"):
        bgfast.rollout_cube(CONTACT, games=10, cube=(2, "opponent"))
    with pytest.raises(bgfast.BgfastError, match="R21"):
        bgfast.rollout_cube(CONTACT, games=10, match_length=5, score=(4, 1))
    with pytest.raises(bgfast.BgfastError, match="dead"):
        bgfast.rollout_cube(CONTACT, games=10, match_length=5, score=(3, 1), cube=(2, "mover"))
    with pytest.raises(bgfast.BgfastError, match="needs a net"):
        bgfast.rollout_cube(CONTACT, games=10, policy="pubeval")


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=2) as executor:
        yield executor


def test_every_mode_on_an_executor_gives_the_local_bits(pool: ProcessPoolExecutor) -> None:
    kwargs = dict(
        games=24,
        seed=5,
        cubeful=True,
        variance_reduction=True,
        truncate=10,
        match_length=5,
        score=(1, 2),
    )
    local = bgfast.rollout(CONTACT, **kwargs)  # type: ignore[arg-type]
    remote = bgfast.rollout(CONTACT, executor=pool, **kwargs)  # type: ignore[arg-type]
    assert remote.to_dict()["statistics"] == local.to_dict()["statistics"]
    moves = dict(games=12, seed=5, top=2, truncate=6)
    here = bgfast.rollout_moves(Position(), (3, 1), **moves)  # type: ignore[arg-type]
    there = bgfast.rollout_moves(Position(), (3, 1), executor=pool, **moves)  # type: ignore[arg-type]
    assert [(m.move, m.result.equity, m.diff_stderr) for m in here] == [
        (m.move, m.result.equity, m.diff_stderr) for m in there
    ]
    cube_here = bgfast.rollout_cube(CONTACT, games=12, seed=5, truncate=4)
    cube_there = bgfast.rollout_cube(CONTACT, games=12, seed=5, truncate=4, executor=pool)
    assert (cube_here.no_double, cube_here.double_take, cube_here.stderr) == (
        cube_there.no_double,
        cube_there.double_take,
        cube_there.stderr,
    )


def test_a_match_without_the_crawford_rule_lets_the_trailer_double_at_once() -> None:
    # 5-away against 1-away: the Crawford game with the rule; a post-Crawford one without.
    with pytest.raises(bgfast.BgfastError, match="R21"):
        bgfast.rollout_cube(CONTACT, games=8, match_length=5, score=(0, 4))
    c = bgfast.rollout_cube(
        CONTACT, games=64, seed=1, match_length=5, score=(0, 4), crawford_rule=False
    )
    table = bgfast.met.load(bgfast.met.DEFAULT_TABLE)
    assert c.mwc is not None
    assert c.mwc["double_pass"] == pytest.approx(table.equity(4, 1, post_crawford=True))
    settings = c.results[0].settings
    assert settings["crawford"] is False and settings["crawford_rule"] is False
