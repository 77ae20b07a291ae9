"""Resigning a chouette game (R28 settles each member's cube) and the chouette's refusals:
each an IllegalChouetteActionError that names the action, the box, the team or a member,
and the rule."""

from __future__ import annotations

import json
import pickle
import random
import re
from typing import Any

import pytest

from bgfast import GameStateError
from bgfast.chouette import BOX, Chouette, ChouetteFileError, IllegalChouetteActionError
from bgfast.persist import checksum

NAMES = ["Ann", "Bob", "Cy", "Di"]
ROLLS = {"Ann": 6, "Bob": 5, "Cy": 3, "Di": 1}  # box Ann, captain Bob, then Cy, Di
TEAM3 = ("Bob", "Cy", "Di")


def _chouette(form: Any = "team-cube", **options: Any) -> Chouette:
    c = Chouette(NAMES, form, rolls=ROLLS, **options)
    c.start_game()
    return c


def _opened(form: Any = "team-cube", **options: Any) -> Chouette:
    """A game whose board is in play: the box opened 5-2 and played; the team is on roll."""
    c = _chouette(form, **options)
    c.roll((5, 2))
    c.play("13/8 13/11")
    return c


def _refused(c: Chouette, action: Any, match: str) -> IllegalChouetteActionError:
    """``action`` is refused as the chouette's own error, citing ``match``; nothing changed."""
    before = c.to_json()
    board = c.game
    with pytest.raises(IllegalChouetteActionError, match=match) as info:
        action()
    assert isinstance(info.value, GameStateError)  # still caught where a Game's refusal is
    assert c.to_json() == before and c.game == board
    return info.value


def _round_trips(c: Chouette) -> None:
    assert Chouette.from_json(c.to_json()) == c
    assert pickle.loads(pickle.dumps(c)) == c
    assert Chouette.from_history(c.players, c.form, c.history, **_options(c)) == c


def _options(c: Chouette) -> dict[str, bool]:
    return dict(c.options)


def _any_move(c: Chouette) -> None:
    board = c.game
    assert board is not None
    c.play(board.legal_moves()[0])


# ---------------------------------------------------------------- resignations


def test_the_box_resigns_on_the_board_and_every_member_accepts() -> None:
    c = _opened()
    record = c.resign("box", {m: "accept" for m in TEAM3}, "gammon")
    assert record is not None and not c.in_game
    assert (record.winner, record.kind) == ("team", "gammon")
    assert [(m.name, m.cube, m.outcome, m.points) for m in record.members] == [
        (m, 1, "box resigned", 2) for m in TEAM3
    ]
    assert record.payments == {"Ann": -6, "Bob": 2, "Cy": 2, "Di": 2}
    assert c.balances == record.payments and sum(c.balances.values()) == 0
    assert (c.box, c.queue) == ("Bob", ("Cy", "Di", "Ann"))  # R25: the team won
    assert [e["type"] for e in c.history[-2:]] == ["resign", "settle"]
    assert c.history[-2] == {
        "type": "resign",
        "side": "box",
        "kind": "gammon",
        "answers": {"Bob": "accept", "Cy": "accept", "Di": "accept"},
    }
    _round_trips(c)


def test_the_team_resigns_member_by_member_each_cube_settled() -> None:
    c = _opened("per-member-cubes")
    assert c.member_double("Bob", "take") is None  # Bob's cube: 2, the box owns it
    c.roll((3, 1))
    c.play("8/5 6/5")
    assert c.box_double({"Cy": "take"}) is None  # Cy's cube: 2, Cy owns it
    board = c.game
    # Bob (the captain) and Di resign a gammon; the box accepts Bob's and rejects Di's.
    assert c.resign("team", {"Bob": "accept", "Di": "reject", "Cy": "accept"}, "gammon") is None
    assert c.active_members == ("Di",) and c.acting_captain == "Di"  # the next still in
    assert c.game == board  # the board plays on where it stood
    assert set(c.balances.values()) == {0}  # results enter the ledger when the game ends
    _round_trips(c)  # a game in progress after a resignation saves and loads
    # The box resigns a single game to Di, who accepts: nobody is left, the team won.
    record = c.resign("box", {"Di": "accept"})
    assert record is not None and (record.winner, record.kind) == ("team", "single")
    assert [(m.name, m.outcome, m.points) for m in record.members] == [
        ("Bob", "resigned", -4),
        ("Cy", "resigned", -4),
        ("Di", "box resigned", 1),
    ]
    assert c.balances == {"Ann": 7, "Bob": -4, "Cy": -4, "Di": 1}
    assert (c.box, c.queue) == ("Di", ("Bob", "Cy", "Ann"))  # R25: the acting captain boxes
    _round_trips(c)


def test_a_rejected_resignation_changes_nothing_but_the_history() -> None:
    c = _opened()
    board, cube, balances = c.game, c.cube(), c.balances
    assert c.resign("team", {m: "reject" for m in TEAM3}, "backgammon") is None
    assert c.resign("box", {"Cy": "reject"}) is None
    assert (c.game, c.cube(), c.balances) == (board, cube, balances)
    assert c.active_members == TEAM3 and c.acting_captain == "Bob"
    assert c.history[-1]["type"] == "resign" and c.history[-2]["type"] == "resign"
    c.team_double(TEAM3, "take")  # the game goes on: the team is still on roll
    c.roll((6, 4))
    _any_move(c)
    _round_trips(c)


@pytest.mark.parametrize(
    ("options", "kind", "cube_turned", "points"),
    [
        ({}, "gammon", False, 2),
        ({}, "backgammon", False, 3),
        ({"backgammon_counts_double": True}, "backgammon", False, 2),
        ({"gammons": False}, "backgammon", True, 2),  # every game single: the cube's 2
        ({"jacoby": True}, "gammon", False, 1),  # R23: the cube was never turned
        ({"jacoby": True}, "gammon", True, 4),
    ],
)
def test_a_resignation_is_settled_as_a_game_of_its_kind(
    options: dict[str, bool], kind: Any, cube_turned: bool, points: int
) -> None:
    c = _opened(**options)
    if cube_turned:
        c.team_double(TEAM3, "take")  # the team cube: 2
    record = c.resign("team", {m: "accept" for m in TEAM3}, kind)
    assert record is not None and record.winner == "box" and record.kind == kind
    assert [m.points for m in record.members] == [-points] * 3
    assert c.balances["Ann"] == 3 * points and sum(c.balances.values()) == 0
    assert (c.box, c.queue) == ("Ann", ("Cy", "Di", "Bob"))  # R25: the box won


def test_a_resignation_with_a_move_staged_keeps_it_staged() -> None:
    c = _opened()
    c.roll((6, 4))
    c.move("24/14")
    staged = c.game.staged_move if c.game else None
    assert c.resign("box", {"Bob": "reject", "Cy": "accept"}) is None
    assert c.game is not None and c.game.staged_move == staged and c.game.phase == "move"
    assert c.commit() is None
    assert c.active_members == ("Bob", "Di")
    _round_trips(c)
    record = c.resign("team", {"Bob": "accept", "Di": "accept"})
    assert record is not None and record.payments == {"Ann": 1, "Bob": -1, "Cy": 1, "Di": -1}


def test_the_last_members_leaving_by_different_ways() -> None:
    # Bob passes the box's double; Cy and Di resign to the box: the box won the board.
    c = _opened("per-member-cubes")
    c.roll((3, 1))
    c.play("8/5 6/5")
    c.box_double({"Bob": "pass", "Cy": "take"})
    record = c.resign("team", {"Cy": "accept", "Di": "accept"})
    assert record is not None and record.winner == "box"
    assert record.payments == {"Ann": 4, "Bob": -1, "Cy": -2, "Di": -1}


def test_a_resignation_before_any_roll_is_a_game_on_a_real_board() -> None:
    c = _chouette()
    assert c.resign("box", {"Bob": "accept", "Cy": "reject", "Di": "reject"}) is None
    _refused(c, lambda: c.roll((3, 1)), r"^roll: R18: .*resignations came before any roll")
    record = c.end_game("box", "single", {"Cy": 1, "Di": 1})
    assert record.payments == {"Ann": 1, "Bob": 1, "Cy": -1, "Di": -1}
    _round_trips(c)


def test_refused_resignations_change_nothing() -> None:
    c = Chouette(NAMES, rolls=ROLLS)
    _refused(c, lambda: c.resign("box", {"Bob": "accept"}), r"^resign: no game in progress")
    c.start_game()
    c.roll((3, 3))  # a tied opening roll (R3): the game has not started
    _refused(c, lambda: c.resign("team", {"Bob": "accept"}), r"^resign: R3: nobody may resign")
    c.roll((1, 3))  # the team opens
    c.play("8/5 6/5")
    c.box_double({"Bob": "pass", "Cy": "take", "Di": "take"})  # the team is on roll
    all_in: Any = {"Cy": "accept", "Di": "accept"}
    resign: Any = c.resign  # given what its types forbid
    for action, match in [
        (lambda: resign("captain", all_in), r"^resign: side must be 'box' or 'team'"),
        (lambda: resign("box", all_in, "triple"), r"^resign: R16: kind must be one of"),
        (lambda: resign("box", {}), r"^resign: R28: .* needs each member's answer"),
        (lambda: resign("team", []), r"^resign: R28: .* the box's answer to each member"),
        (lambda: resign("box", {"Cy": "take"}), r"^resign: answer 'accept' or 'reject'"),
        (lambda: resign("box", {"Cy": "accept", "Di": None}), "not None"),
        (lambda: resign("team", {"Ann": "accept"}), r"^resign: R24: 'Ann' is the box"),
        (lambda: resign("team", {"Bob": "accept"}), r"^resign: team member 'Bob' has left"),
        (lambda: resign("box", {"Eve": "accept"}), r"^resign: 'Eve' is not playing"),
    ]:
        _refused(c, action, match)
    assert c.resign("box", all_in) is not None  # what was refused was not the state's fault


def test_a_tampered_resignation_in_a_saved_file_does_not_load() -> None:
    c = _opened()
    c.resign("box", {"Bob": "accept", "Cy": "reject", "Di": "reject"}, "gammon")
    doc = json.loads(c.to_json())
    event = next(e for e in doc["history"] if e["type"] == "resign")
    event["answers"]["Cy"] = "accept"  # Cy would have been paid too
    doc.pop("checksum")
    doc["checksum"] = "sha256:" + checksum(doc)
    with pytest.raises(ChouetteFileError, match="does not match its own history"):
        Chouette.from_json(json.dumps(doc))
    history = [dict(e) for e in c.history]
    history[-1] = {**history[-1], "answers": {"Bob": "maybe"}}
    with pytest.raises(IllegalChouetteActionError, match="answer 'accept' or 'reject'"):
        Chouette.from_history(c.players, c.form, history)


def test_the_game_property_is_a_copy() -> None:
    c = _opened()
    board = c.game
    assert board is not None
    board.resign("gammon", player=BOX)
    board.accept()  # the copy is over ...
    assert board.is_over
    assert c.in_game and c.game is not None and c.game.phase == "roll"  # ... not the chouette
    assert c.resign("box", {m: "accept" for m in TEAM3}, "gammon") is not None


@pytest.mark.parametrize("seed", range(12))
def test_random_games_with_resignations_settle_to_zero(seed: int) -> None:
    rng = random.Random(seed)
    c = Chouette(NAMES, rng.choice(["team-cube", "per-member-cubes"]), rolls=ROLLS)
    for _ in range(6):
        c.start_game()
        for _ in range(3000):
            board = c.game
            if board is None:
                break
            if board.phase == "roll" and rng.random() < 0.05:
                side: Any = rng.choice(["box", "team"])
                members = rng.sample(c.active_members, rng.randint(1, len(c.active_members)))
                answers: Any = {m: rng.choice(["accept", "reject"]) for m in members}
                c.resign(side, answers, rng.choice(["single", "gammon", "backgammon"]))
            elif board.phase in ("opening", "roll"):
                c.roll((rng.randint(1, 6), rng.randint(1, 6)))
            else:
                c.play(rng.choice(board.legal_moves()))
            assert c._invariant_violations() == []
        else:
            pytest.fail("a game did not end")
        assert sum(c.balances.values()) == 0
    _round_trips(c)


# ---------------------------------------------------------------- the refusals' words


def test_board_refusals_are_the_chouettes_and_name_the_sides() -> None:
    c = _opened()
    for action, match in [
        (lambda: c.undo(), r"^undo: no move staged to undo \(the team is on roll.*R29\)"),
        (lambda: c.end_game("box"), r"^end_game: R15: this game's board is played here"),
        (lambda: c.commit(), r"^commit: no move staged .*R29"),
        (lambda: c.move("13/8"), r"^move: no dice to play: roll first \(the team is on roll"),
        (lambda: c.play("13/8"), r"^play: no dice to play: .*R3\)"),
    ]:
        error = _refused(c, action, match)
        assert not re.search(r"player [01]", str(error))
    c.roll((6, 4))
    error = _refused(c, lambda: c.roll((3, 1)), r"^roll: too early: the team is still to play")
    assert "R29" in str(error) and "player" not in str(error)


def test_team_cube_refusals_name_the_team_cube() -> None:
    c = _opened()
    c.team_double(TEAM3, "take")  # the box owns the team cube
    c.roll((6, 4))
    _any_move(c)
    c.box_double({m: "take" for m in TEAM3})  # the team owns it
    c.roll((6, 4))
    _any_move(c)
    c.roll((6, 4))
    _any_move(c)
    error = _refused(
        c,
        lambda: c.box_double({m: "take" for m in TEAM3}),
        r"^box_double: R17: the team owns the team cube; the box may not double it",
    )
    assert "Bob" not in str(error)
    c.roll((3, 1))  # the box to play
    _refused(
        c,
        lambda: c.team_double(TEAM3, "take"),
        r"^team_double: R18: a double comes .* before rolling; the box is to play 3-1",
    )


@pytest.mark.parametrize("form", ["team-cube", "per-member-cubes"])
def test_cube_limit_refusals_name_the_action_and_r17(form: Any) -> None:
    c = _chouette(form)  # a game on a real board: doubles need no turns
    for i in range(15):  # 2**15 = 32768, the limit
        if i % 2 == 0:
            if form == "team-cube":
                c.team_double(TEAM3, "take")
            else:
                c.member_double("Bob", "take")
        else:
            c.box_double({"Bob": "take"} if form != "team-cube" else dict.fromkeys(TEAM3, "take"))
    assert c.cube("Bob").value == 32768 and c.cube("Bob").owner == "box"
    what = "the team cube" if form == "team-cube" else "Bob's cube"
    answers: Any = dict.fromkeys(TEAM3 if form == "team-cube" else ("Bob",), "take")
    _refused(
        c,
        lambda: c.box_double(answers),
        rf"^box_double: R17: cannot double: {what} is at its maximum value 32768",
    )


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (lambda c: c.start_game(), r"^start_game: game 1 is in progress"),
        (lambda c: c.cube("Ann"), r"^cube: R24: 'Ann' is the box"),
        (lambda c: c.team_double(["Bob", "Cy"], "take"), r"^team_double: R26: .*not agreeing"),
        (lambda c: c.team_double(TEAM3, "drop"), r"^team_double: R19: answer 'take' or 'pass'"),
        (lambda c: c.member_double("Bob", "take"), r"^member_double: the per-member-cubes"),
        (lambda c: c.box_double({"Bob": "take"}), r"^box_double: R27: .*no answer from"),
        (lambda c: c.box_double({}), r"^box_double: R27: the box's double needs"),
    ],
)
def test_refusals_name_the_action_first(action: Any, match: str) -> None:
    c = _chouette()
    _refused(c, lambda: action(c), match)
