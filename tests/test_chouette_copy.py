"""``Chouette.copy()`` and ``copy.copy(chouette)`` give an independent chouette.

A shallow copy once shared the game in progress, its board, the ledger, the balances, the
queue and the history: acting on the copy changed the original, whose save then no
longer loaded (its state no longer matched its history). As ``Game.copy`` and
``Match.copy``, the copy now owns every mutable part.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

import bgfast
from bgfast import Chouette

Act = Callable[[Chouette], object]


def _team_cube() -> Chouette:
    c = Chouette(["a", "b", "c"], rng=1)
    c.start_game()
    return c


def _per_member_on_board() -> Chouette:
    """A per-member-cubes game with the board in play: the box won the opening 3-1 and
    played it; the team is on roll."""
    c = Chouette(["a", "b", "c", "d"], "per-member-cubes", rng=1)
    c.start_game()
    c.roll(3, 1)
    c.play("8/5 6/5")
    return c


def _resign_all(c: Chouette) -> object:
    return c.resign("box", {m: "accept" for m in c.active_members})


def _member_double(c: Chouette) -> object:
    return c.member_double(c.active_members[0], "take")


def _roll_and_stage(c: Chouette) -> object:
    c.roll(6, 5)
    return c.move("24/13")


def _box_double_one_passes(c: Chouette) -> object:
    first, *rest = c.active_members
    return c.box_double({first: "pass", **{m: "take" for m in rest}})


def _snapshot(c: Chouette) -> tuple[object, ...]:
    board = c.game
    return (
        c.to_json(),
        c.in_game,
        c.ledger,
        c.balances,
        c.queue,
        c.box,
        c.active_members,
        c.history,
        None if board is None else (board.position, board.phase, board.events),
    )


@pytest.mark.parametrize("make_copy", [copy.copy, lambda c: c.copy()], ids=["copy.copy", "copy"])
def test_the_reported_case_leaves_the_original_and_its_save_unchanged(
    make_copy: Callable[[Chouette], Chouette],
) -> None:
    c = _team_cube()
    saved = c.to_json()
    d = make_copy(c)
    assert isinstance(d, Chouette) and d is not c and d == c
    record = _resign_all(d)
    assert record is not None and not d.in_game and len(d.ledger) == 1
    # The original still has its game in progress and no ledger entry.
    assert c.in_game and c.ledger == ()
    assert len(c.active_members) == 2
    assert c.to_json() == saved
    assert Chouette.from_dict(c.to_dict()) == c
    assert Chouette.from_json(c.to_json()) == c
    # The copy's own save is sound too.
    assert Chouette.from_dict(d.to_dict()) == d


@pytest.mark.parametrize(
    ("make", "act"),
    [
        (_team_cube, _resign_all),
        (_team_cube, lambda c: c.team_double(c.active_members, "pass")),
        (_team_cube, lambda c: c.end_game("team", "gammon")),
        (_per_member_on_board, _member_double),
        (_per_member_on_board, _roll_and_stage),
        (_per_member_on_board, _resign_all),
        (_team_cube, _box_double_one_passes),
    ],
    ids=[
        "team-resign",
        "team-double-pass",
        "end-game",
        "member-double",
        "board-roll-move",
        "board-resign",
        "box-double-pass",
    ],
)
@pytest.mark.parametrize("acted_on", ["copy", "original"])
def test_acting_on_one_leaves_the_other_unchanged(
    make: Callable[[], Chouette], act: Act, acted_on: str
) -> None:
    c = make()
    d = copy.copy(c)
    actor, other = (d, c) if acted_on == "copy" else (c, d)
    before = _snapshot(other)
    before_actor = actor.to_json()
    act(actor)
    assert actor.to_json() != before_actor  # the action did something
    assert _snapshot(other) == before
    assert Chouette.from_json(other.to_json()) == other
    assert Chouette.from_json(actor.to_json()) == actor


def test_the_board_of_the_copy_is_its_own() -> None:
    c = _per_member_on_board()
    d = c.copy()
    d.roll(6, 5)
    d.play("24/13")
    assert c.game is not None and d.game is not None
    assert c.game.phase == "roll" and len(c.game.events) == 3
    assert d.game.position != c.game.position
    # The original plays the same turn differently, and the copy does not follow.
    c.roll(6, 5)
    c.play("13/7 13/8")
    assert d.game.position != c.game.position
    assert Chouette.from_json(c.to_json()) == c
    assert Chouette.from_json(d.to_json()) == d


def test_the_copy_plays_on_exactly_as_the_original_would() -> None:
    actions: list[Act] = [
        lambda c: c.roll(6, 5),
        lambda c: c.play("24/13"),
        lambda c: c.box_double({m: "take" for m in c.active_members}),
        lambda c: c.roll(4, 2),
        lambda c: c.play("8/4 6/4"),
        lambda c: c.resign("team", {m: "accept" for m in c.active_members}, "gammon"),
        lambda c: c.start_game(),
        lambda c: c.end_game("box", "single"),
    ]
    c = _per_member_on_board()
    d = copy.copy(c)
    for act in actions:
        assert act(d) == act(c)
        assert d.to_dict() == c.to_dict()
    assert d == c and d.ledger == c.ledger and d.balances == c.balances
    # And both are what replaying their history gives.
    replayed = Chouette.from_history(c.players, c.form, c.history)
    assert replayed == c == d


def test_a_copy_between_games_is_independent() -> None:
    c = _team_cube()
    c.end_game("box")
    d = c.copy()
    assert not d.in_game and d == c
    d.start_game()
    d.end_game("team", "backgammon")
    assert len(c.ledger) == 1 and len(d.ledger) == 2
    assert c.balances != d.balances and c.box != d.box
    assert Chouette.from_json(c.to_json()) == c


def test_copy_keeps_a_subclass() -> None:
    class Table(Chouette):
        pass

    t = Table(["a", "b", "c"], rng=1)
    assert type(copy.copy(t)) is Table and type(t.copy()) is Table


def test_deepcopy_still_gives_an_independent_chouette() -> None:
    c = _per_member_on_board()
    d = copy.deepcopy(c)
    _member_double(d)
    assert c != d
    assert Chouette.from_json(c.to_json()) == c


def test_copy_is_documented() -> None:
    assert Chouette.copy.__doc__ and Chouette.__copy__.__doc__
    assert bgfast.Chouette is Chouette
