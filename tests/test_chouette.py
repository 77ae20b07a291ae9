"""Chouette bookkeeping: seating (R24), rotation (R25), team doubles (R26), box doubles (R27),
settlement (R28), the ledger, and saving/loading."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast._core import BgfastError
from bgfast.chouette import (
    Answer,
    Chouette,
    ChouetteFileError,
    Cube,
    Form,
    IllegalChouetteActionError,
    roll_off,
)
from bgfast.persist import checksum

from boards import json_paths

DATA = Path(__file__).parent / "data" / "chouette"

ABCD = {"A": 6, "B": 5, "C": 3, "D": 1}  # box A, captain B, then C, D


def four(form: Form = "team-cube", **options: bool) -> Chouette:
    return Chouette(["A", "B", "C", "D"], form, rolls=ABCD, **options)


def assert_rejected(c: Chouette, action: Any, match: str) -> None:
    """The action raises IllegalChouetteActionError citing ``match`` and changes nothing."""
    before = c.to_json()
    with pytest.raises(IllegalChouetteActionError, match=match) as info:
        action()
    assert isinstance(info.value, BgfastError) and isinstance(info.value, ValueError)
    assert c.to_json() == before


# ---------------------------------------------------------------- R24 seating


def test_r24_seating_by_roll_off() -> None:
    c = Chouette(["D", "C", "B", "A"], rolls={"A": 2, "B": 6, "C": 4, "D": 1})
    assert c.box == "B"  # highest die
    assert c.captain == "C"  # second highest
    assert c.queue == ("C", "A", "D")  # the rest in the order of their rolls
    assert c.players == ("D", "C", "B", "A")
    assert not c.in_game


def test_r24_ties_are_rolled_again() -> None:
    # A and C tie on 5 and re-roll: C 4 beats A 2. B and D tie on 3: D 6 beats B 1.
    rolls = {"A": [5, 2], "B": [3, 1], "C": [5, 4], "D": [3, 6]}
    c = Chouette(["A", "B", "C", "D"], rolls=rolls)
    assert (c.box, c.queue) == ("C", ("A", "D", "B"))
    # A three-way tie that needs two re-rolls for two of them.
    rolls = {"A": [4, 3, 1], "B": [4, 3, 2], "C": [4, 5]}
    c = Chouette(["A", "B", "C"], rolls=rolls)
    assert (c.box, c.queue) == ("C", ("B", "A"))


@pytest.mark.parametrize(
    ("rolls", "match"),
    [
        ({"A": 6, "B": 6, "C": 1}, "R24: ties are rolled again"),
        ({"A": 6, "B": [5, 2], "C": 1}, "R24: only tied players roll again"),
        ({"A": [6, 1], "B": [6, 1], "C": 1}, "R24: ties are rolled again"),
        ({"A": [6], "B": [6, 1], "C": 1}, "R24: ties are rolled again"),
        ({"A": 7, "B": 5, "C": 1}, "R24: 'A' rolled 7"),
        ({"A": 0, "B": 5, "C": 1}, "R24: 'A' rolled 0"),
        ({"A": [], "B": 5, "C": 1}, "R24: 'A' must roll"),
        ({"A": 6, "B": 5}, "R24: every player rolls"),
        ({"A": 6, "B": 5, "C": 1, "E": 2}, "R24: every player rolls"),
    ],
)
def test_r24_invalid_roll_offs_are_rejected(rolls: dict[str, Any], match: str) -> None:
    with pytest.raises(IllegalChouetteActionError, match=match):
        Chouette(["A", "B", "C"], rolls=rolls)


@pytest.mark.parametrize(
    ("players", "kwargs", "match"),
    [
        (["A", "B"], {}, "R24: a chouette needs 3 or more players"),
        (["A", "B", "A"], {}, "distinct"),
        (["A", "B", ""], {}, "non-empty"),
        ("ABC", {}, "sequence of names"),
        (["A", "B", "C"], {"form": "two-cubes"}, "unknown form"),
        (["A", "B", "C"], {"jacoby": 1}, "option jacoby must be a bool"),
        (["A", "B", "C"], {"rolls": {"A": 1, "B": 2, "C": 3}, "rng": 1}, "not both"),
    ],
)
def test_bad_construction_is_rejected(players: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(IllegalChouetteActionError, match=match):
        Chouette(players, **kwargs)


def test_r24_random_roll_off_is_recorded_and_valid() -> None:
    names = [f"P{i}" for i in range(8)]
    for seed in range(50):
        rolls = roll_off(names, random.Random(seed))
        c = Chouette(names, rolls=rolls)  # a random roll-off always passes validation
        assert Chouette(names, rng=seed).history == c.history
        assert c.history[0] == {"type": "seat", "rolls": {p: list(rolls[p]) for p in names}}


# ---------------------------------------------------------------- R25 rotation


def test_r25_box_wins_captain_goes_to_the_end() -> None:
    c = four()
    c.start_game()
    c.end_game("box")
    assert (c.box, c.queue) == ("A", ("C", "D", "B"))


def test_r25_team_wins_captain_becomes_box() -> None:
    c = four()
    c.start_game()
    c.end_game("team")
    assert (c.box, c.queue) == ("B", ("C", "D", "A"))


def test_r25_rotation_after_captain_replacement() -> None:
    # The captain B passes the box's double; C acts as captain and beats the box: the one who
    # beat the box (C) becomes box; B keeps his place at the head of the queue.
    c = four()
    c.start_game()
    c.box_double({"B": "pass", "C": "take", "D": "take"})
    assert c.acting_captain == "C"
    record = c.end_game("team")
    assert (record.captain, record.acting_captain) == ("B", "C")
    assert (c.box, c.queue) == ("C", ("B", "D", "A"))
    # Same, but the box beats C: the seated captain B has had his turn and goes to the end.
    c = four()
    c.start_game()
    c.box_double({"B": "pass", "C": "take", "D": "take"})
    c.end_game("box")
    assert (c.box, c.queue) == ("A", ("C", "D", "B"))


# ---------------------------------------------------------------- R26 team doubles


def test_r26_team_double_needs_every_member() -> None:
    c = four()
    c.start_game()
    assert c.members_who_may_double() == ("B", "C", "D")
    assert_rejected(c, lambda: c.team_double(["B", "C"], "take"), r"R26: .*not agreeing: \['D'\]")
    assert_rejected(c, lambda: c.team_double(["B", "C", "D", "A"], "take"), "'A' is the box")
    assert_rejected(c, lambda: c.team_double(["B", "C", "C", "D"], "take"), "twice")
    assert_rejected(c, lambda: c.team_double(["B", "C", "D"], "drop"), "R19")  # type: ignore[arg-type]
    assert c.team_double(["B", "C", "D"], "take") is None
    assert c.cube() == Cube(2, "box", True)
    # R17: now only the box may turn the cube.
    assert c.members_who_may_double() == ()
    assert c.members_box_may_double() == ("B", "C", "D")
    assert_rejected(c, lambda: c.team_double(["B", "C", "D"], "take"), "R17")


def test_r26_box_passes_the_team_double() -> None:
    c = four()
    c.start_game()
    record = c.team_double(["D", "C", "B"], "pass")
    assert record is not None and record.winner == "team" and record.kind is None
    assert record.payments == {"A": -3, "B": 1, "C": 1, "D": 1}
    assert [m.outcome for m in record.members] == ["box passed"] * 3
    assert not c.in_game and (c.box, c.queue) == ("B", ("C", "D", "A"))


def test_r26_redouble_after_some_members_passed() -> None:
    # Only the members still in the game need to agree to a redouble.
    c = four()
    c.start_game()
    c.box_double({"B": "take", "C": "pass", "D": "take"})
    assert c.cube() == Cube(2, "team", True)
    assert_rejected(c, lambda: c.team_double(["B", "C", "D"], "take"), "'C' has left this game")
    c.team_double(["B", "D"], "take")
    assert c.cube() == Cube(4, "box", True)


def test_r26_team_double_is_the_team_cube_forms() -> None:
    c = four("per-member-cubes")
    c.start_game()
    assert_rejected(c, lambda: c.team_double(["B", "C", "D"], "take"), "member_double")
    t = four()
    t.start_game()
    assert_rejected(t, lambda: t.member_double("B", "take"), "team_double")


# ---------------------------------------------------------------- R27 box doubles


def test_r27_each_member_answers_alone() -> None:
    c = four()
    c.start_game()
    assert_rejected(c, lambda: c.box_double({"B": "take", "C": "take"}), r"R27: .*\['D'\]")
    assert_rejected(c, lambda: c.box_double({}), "R27")
    assert c.box_double({"B": "take", "C": "pass", "D": "take"}) is None
    assert c.active_members == ("B", "D")
    assert c.acting_captain == "B"
    assert c.cube("B") == c.cube() == Cube(2, "team", True)
    assert_rejected(c, lambda: c.cube("C"), "'C' has left this game")
    assert_rejected(c, lambda: c.box_double({"B": "take", "D": "take"}), "R17")
    record = c.end_game("team", cubes={"B": 2, "D": 2})
    # C paid the stake before the double (1); B and D win 2 each.
    assert record.payments == {"A": -3, "B": 2, "C": -1, "D": 2}
    assert [(m.name, m.cube, m.outcome) for m in record.members] == [
        ("B", 2, "won"),
        ("C", 1, "passed"),
        ("D", 2, "won"),
    ]


def test_r27_captain_replacement_in_queue_order() -> None:
    c = four()
    c.start_game()
    c.box_double({"B": "pass", "C": "pass", "D": "take"})
    assert c.acting_captain == "D" and c.captain == "B"
    assert c.active_members == ("D",)


def test_r27_everyone_passes_the_box_wins() -> None:
    c = four()
    c.start_game()
    record = c.box_double({"D": "pass", "B": "pass", "C": "pass"})
    assert record is not None and record.winner == "box" and record.kind is None
    assert record.payments == {"A": 3, "B": -1, "C": -1, "D": -1}
    assert (c.box, c.queue) == ("A", ("C", "D", "B"))


def test_r27_per_member_cubes() -> None:
    c = four("per-member-cubes")
    c.start_game()
    c.member_double("C", "take")  # C's cube: 2, box owns
    assert c.cube("C") == Cube(2, "box", True) and c.cube("B") == Cube(1, "center")
    assert_rejected(c, lambda: c.cube(), "name the member")
    assert c.members_who_may_double() == ("B", "D")
    assert c.members_box_may_double() == ("B", "C", "D")
    # The box may double some members only; the doubled answer alone.
    c.box_double({"C": "take", "D": "pass"})
    assert c.cube("C") == Cube(4, "team", True)
    assert c.active_members == ("B", "C")
    assert_rejected(c, lambda: c.member_double("D", "take"), "'D' has left")
    assert_rejected(c, lambda: c.box_double({"C": "take"}), "R17")
    assert_rejected(c, lambda: c.member_double("A", "take"), "'A' is the box")
    assert_rejected(c, lambda: c.member_double("Z", "take"), "not playing")
    # The box passes the captain's double: the captain's game is over, C takes over.
    c.member_double("B", "pass")
    assert c.acting_captain == "C"
    record = c.end_game("box", "gammon")
    assert record.payments == {"A": -1 + 1 + 8, "B": 1, "C": -8, "D": -1}
    assert record.acting_captain == "C" and record.winner == "box"
    assert (c.box, c.queue) == ("A", ("C", "D", "B"))


def test_r27_per_member_game_ends_when_the_box_passes_the_last() -> None:
    c = Chouette(["X", "Y", "Z"], "per-member-cubes", rolls={"X": 6, "Y": 5, "Z": 4})
    c.start_game()
    c.box_double({"Y": "pass"})  # the captain passes: Z acts
    record = c.member_double("Z", "pass")  # the box passes Z: nobody left, the team won
    assert record is not None and record.winner == "team"
    assert record.payments == {"X": 0, "Y": -1, "Z": 1}
    assert (c.box, c.queue) == ("Z", ("Y", "X"))


# ---------------------------------------------------------------- R28 settlement


@pytest.mark.parametrize(
    ("options", "turned", "kind", "expected_per_member"),
    [
        ({}, False, "single", 1),
        ({}, False, "gammon", 2),
        ({}, False, "backgammon", 3),
        ({}, True, "backgammon", 6),
        ({"backgammon_as_double": True}, False, "backgammon", 2),
        ({"backgammon_as_double": True}, True, "backgammon", 4),
        ({"gammons": False}, True, "gammon", 2),
        ({"gammons": False}, False, "backgammon", 1),
        ({"jacoby": True}, False, "gammon", 1),  # R23: cube never turned
        ({"jacoby": True}, False, "backgammon", 1),
        ({"jacoby": True}, True, "gammon", 4),
        ({"jacoby": True}, True, "backgammon", 6),
    ],
)
def test_r28_settlement_multipliers(
    options: dict[str, bool], turned: bool, kind: Any, expected_per_member: int
) -> None:
    c = Chouette(
        ["A", "B", "C", "D"],
        rolls=ABCD,
        jacoby=options.get("jacoby", False),
        gammons=options.get("gammons", True),
        backgammon_as_double=options.get("backgammon_as_double", False),
    )
    c.start_game()
    if turned:
        c.team_double(["B", "C", "D"], "take")
    record = c.end_game("box", kind)
    assert record.payments == {
        "A": 3 * expected_per_member,
        **{m: -expected_per_member for m in "BCD"},
    }
    assert c.balances == record.payments


def test_r28_jacoby_is_judged_per_member_cube() -> None:
    c = four("per-member-cubes", jacoby=True)
    c.start_game()
    c.member_double("D", "take")
    record = c.end_game("team", "gammon")
    # B and C: cube 1, never turned -> single; D: cube 2, turned -> gammon counts.
    assert record.payments == {"A": -(1 + 1 + 4), "B": 1, "C": 1, "D": 4}


def test_r28_end_game_checks_reported_cubes_and_arguments() -> None:
    c = four()
    assert_rejected(c, lambda: c.end_game("box"), "no game in progress")
    assert_rejected(c, lambda: c.play("8/5 6/5"), "play: no game in progress")
    c.start_game()
    assert_rejected(c, c.start_game, "in progress")
    assert_rejected(c, lambda: c.end_game("box", cubes={"B": 2, "C": 1, "D": 1}), "R28")
    assert_rejected(c, lambda: c.end_game("box", cubes={"B": 1, "C": 1}), "R28")
    assert_rejected(c, lambda: c.end_game("white"), "winner")  # type: ignore[arg-type]
    assert_rejected(c, lambda: c.end_game("box", "triple"), "R16")  # type: ignore[arg-type]
    c.end_game("box", cubes={"B": 1, "C": 1, "D": 1})


# ---------------------------------------------------------------- a 10-game ledger by hand


def test_four_players_ten_games_ledger_by_hand() -> None:
    c = four()  # team-cube form; box A, queue B C D; default options (gammons count)
    expected_seats = []

    # Game 1: no doubles, the box wins a single: B, C, D pay 1 each.
    #   A +3, B -1, C -1, D -1.  Box wins: captain B to the end -> box A, queue C D B.
    c.start_game()
    c.end_game("box")
    expected_seats.append(("A", ("C", "D", "B")))

    # Game 2: the team doubles (all agree), A takes (cube 2 with the box); the team wins a
    #   gammon: 2 x 2 = 4 each.  A -12; B, C, D +4.
    #   Balances: A 3-12 = -9, B 3, C 3, D 3.  Team wins: C becomes box, A to the end.
    c.start_game()
    c.team_double(["C", "D", "B"], "take")
    c.end_game("team", "gammon")
    expected_seats.append(("C", ("D", "B", "A")))

    # Game 3: box C doubles; D takes, B passes (pays 1), A takes (cube 2 with the team).
    #   The team (D, A) redoubles to 4; C passes and pays D and A 2 each.
    #   Game: B -1, D +2, A +2, C +1-4 = -3.
    #   Balances: A -7, B 2, C 0, D 5.  Team wins: D becomes box, C to the end.
    c.start_game()
    c.box_double({"D": "take", "B": "pass", "A": "take"})
    c.team_double(["D", "A"], "pass")
    expected_seats.append(("D", ("B", "A", "C")))

    # Game 4: box D doubles; captain B passes (pays 1), A takes (acting captain), C takes.
    #   The box wins a backgammon: A and C pay 2 x 3 = 6 each.  D +13.
    #   Balances: A -13, B 1, C -6, D 18.  Box wins: seated captain B to the end.
    c.start_game()
    c.box_double({"B": "pass", "A": "take", "C": "take"})
    assert c.acting_captain == "A"
    c.end_game("box", "backgammon")
    expected_seats.append(("D", ("A", "C", "B")))

    # Game 5: box D doubles, everyone passes: A, C, B pay 1 each.  D +3.
    #   Balances: A -14, B 0, C -7, D 21.  Box wins: A to the end.
    c.start_game()
    c.box_double({"A": "pass", "C": "pass", "B": "pass"})
    expected_seats.append(("D", ("C", "B", "A")))

    # Game 6: the team doubles, D takes (2, box).  D redoubles to 4: C takes, B passes (pays
    #   2), A takes.  The team wins a single: C +4, A +4.  D: +2 - 8 = -6.
    #   Balances: A -10, B -2, C -3, D 15.  Team wins: C becomes box, D to the end.
    c.start_game()
    c.team_double(["C", "B", "A"], "take")
    c.box_double({"C": "take", "B": "pass", "A": "take"})
    c.end_game("team")
    expected_seats.append(("C", ("B", "A", "D")))

    # Game 7: box C doubles; captain B passes, A passes (1 each), D takes and acts as captain.
    #   The team (D alone) wins a gammon: D +2 x 2 = 4.  C: +2 - 4 = -2.
    #   Balances: A -11, B -3, C -5, D 19.  Team wins: acting captain D becomes box; C to
    #   the end; B and A keep their order -> queue B A C.
    c.start_game()
    c.box_double({"B": "pass", "A": "pass", "D": "take"})
    c.end_game("team", "gammon", cubes={"D": 2})
    expected_seats.append(("D", ("B", "A", "C")))

    # Game 8: no doubles, the box wins a single: B, A, C pay 1.  D +3.
    #   Balances: A -12, B -4, C -6, D 22.  Box wins: B to the end.
    c.start_game()
    c.end_game("box")
    expected_seats.append(("D", ("A", "C", "B")))

    # Game 9: the team doubles, D passes and pays A, C, B 1 each.  D -3.
    #   Balances: A -11, B -3, C -5, D 19.  Team wins: A becomes box, D to the end.
    c.start_game()
    c.team_double(["A", "C", "B"], "pass")
    expected_seats.append(("A", ("C", "B", "D")))

    # Game 10: the team doubles, A takes (2, box); the team wins a gammon: 4 each, A -12.
    #   Balances: A -23, B 1, C -1, D 23.  Team wins: C becomes box, A to the end.
    c.start_game()
    c.team_double(["C", "B", "D"], "take")
    c.end_game("team", "gammon")
    expected_seats.append(("C", ("B", "D", "A")))

    assert c.balances == {"A": -23, "B": 1, "C": -1, "D": 23}
    assert (c.box, c.queue) == expected_seats[-1]
    # Each game's seats and per-game payments, from the comments above.
    per_game = [
        {"A": 3, "B": -1, "C": -1, "D": -1},
        {"A": -12, "B": 4, "C": 4, "D": 4},
        {"A": 2, "B": -1, "C": -3, "D": 2},
        {"A": -6, "B": -1, "C": -6, "D": 13},
        {"A": -1, "B": -1, "C": -1, "D": 3},
        {"A": 4, "B": -2, "C": 4, "D": -6},
        {"A": -1, "B": -1, "C": -2, "D": 4},
        {"A": -1, "B": -1, "C": -1, "D": 3},
        {"A": 1, "B": 1, "C": 1, "D": -3},
        {"A": -12, "B": 4, "C": 4, "D": 4},
    ]
    assert [r.payments for r in c.ledger] == per_game
    assert [r.number for r in c.ledger] == list(range(1, 11))
    boxes = ["A", "A", "C", "D", "D", "D", "C", "D", "D", "A"]
    assert [r.box for r in c.ledger] == boxes
    assert [r.box for r in c.ledger[1:]] == [seat[0] for seat in expected_seats[:-1]]
    # Running balances after each game, also by hand.
    running = [
        {"A": 3, "B": -1, "C": -1, "D": -1},
        {"A": -9, "B": 3, "C": 3, "D": 3},
        {"A": -7, "B": 2, "C": 0, "D": 5},
        {"A": -13, "B": 1, "C": -6, "D": 18},
        {"A": -14, "B": 0, "C": -7, "D": 21},
        {"A": -10, "B": -2, "C": -3, "D": 15},
        {"A": -11, "B": -3, "C": -5, "D": 19},
        {"A": -12, "B": -4, "C": -6, "D": 22},
        {"A": -11, "B": -3, "C": -5, "D": 19},
        {"A": -23, "B": 1, "C": -1, "D": 23},
    ]
    totals = dict.fromkeys("ABCD", 0)
    for game, after in zip(per_game, running):
        for k, v in game.items():
            totals[k] += v
        assert totals == after and sum(after.values()) == 0
    # The history alone rebuilds the same chouette, and so does its JSON.
    assert Chouette.from_history(c.players, c.form, c.history, **c.options) == c
    assert Chouette.from_json(c.to_json()) == c


def test_per_member_game_by_hand() -> None:
    c = Chouette(["X", "Y", "Z"], "per-member-cubes", rolls={"X": 6, "Y": 5, "Z": 4})
    c.start_game()
    c.member_double("Y", "take")  # Y's cube 2, the box owns it
    c.box_double({"Z": "take"})  # Z's cube 2, Z owns it
    c.box_double({"Y": "pass"})  # Y pays 2 and leaves; Z acts as captain
    c.member_double("Z", "take")  # Z's cube 4, the box owns it
    record = c.end_game("box", "gammon", cubes={"Z": 4})
    # Y -2; Z pays 4 x 2 = 8; the box X +10.  Box wins: seated captain Y to the end.
    assert record.payments == {"X": 10, "Y": -2, "Z": -8}
    assert (c.box, c.queue) == ("X", ("Z", "Y"))


# ---------------------------------------------------------------- saving and loading


def test_json_round_trip_and_history_replay_mid_game() -> None:
    c = four("per-member-cubes", jacoby=True)
    c.start_game()
    c.member_double("C", "take")
    c.box_double({"B": "pass", "D": "take"})
    text = c.to_json()
    loaded = Chouette.from_json(text)
    assert loaded == c and loaded.to_json() == text
    assert loaded.acting_captain == "C" and loaded.cube("D") == Cube(2, "team", True)
    # The loaded chouette plays on like the original.
    assert loaded.end_game("team", "gammon") == c.end_game("team", "gammon")
    assert loaded == c


def _tampered(text: str, edit: Any, *, reseal: bool) -> str:
    doc = json.loads(text)
    edit(doc)
    if reseal:  # recompute the checksum so only the replay check can notice
        _reseal(doc)
    return json.dumps(doc)


def _reseal(doc: dict[str, Any]) -> None:
    """Give an edited document a checksum that matches it, as a careful forger would."""
    doc.pop("checksum", None)
    doc["checksum"] = "sha256:" + checksum(doc)


def _played() -> str:
    c = four()
    for _ in range(3):
        c.start_game()
        c.team_double(list(c.active_members), "take")
        c.end_game("box", "gammon")
    return c.to_json()


@pytest.mark.parametrize("reseal", [False, True])
@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda d: d["balances"].update(A=d["balances"]["A"] + 1), "does not match|checksum"),
        (lambda d: d["ledger"][0].update(winner="team"), "does not match|checksum"),
        (lambda d: d["state"].update(box="B"), "does not match|checksum"),
        (lambda d: d["history"][2].update(answer="pass"), "not legal|checksum"),
        (lambda d: d["history"][3].update(kind="single"), "does not match|checksum"),
        (
            lambda d: d["history"].append({"type": "end", "winner": "box", "kind": "single"}),
            "not legal|checksum",
        ),
        (lambda d: d["history"][0]["rolls"].update(B=6), "not legal|checksum"),
        (lambda d: d["history"][1].update(type="restart"), "not legal|checksum"),
        (lambda d: d["history"][1].update(extra=1), "not legal|checksum"),
        (lambda d: d["options"].update(gammons=False), "does not match|checksum"),
        # Equal in Python (True == 1 == 1.0) but not the file that was saved.
        (lambda d: d["ledger"][0].update(number=True), "does not match|checksum"),
        (lambda d: d["balances"].update(A=float(d["balances"]["A"])), "does not match|checksum"),
        (lambda d: d["options"].update(beavers=True), "malformed|checksum"),
        (lambda d: d.pop("players"), "malformed|checksum"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(format="something else"), "not a saved chouette"),
    ],
)
def test_tampered_files_are_refused(edit: Any, match: str, reseal: bool) -> None:
    text = _tampered(_played(), edit, reseal=reseal)
    with pytest.raises(ChouetteFileError, match=match) as info:
        Chouette.from_json(text)
    assert isinstance(info.value, BgfastError)
    if not reseal and "checksum" in match:
        assert "checksum" in str(info.value)


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"format": "bgfast.Chouette"}', b"\xff"])
def test_garbage_is_refused(text: str | bytes) -> None:
    with pytest.raises(ChouetteFileError):
        Chouette.from_json(text)


@pytest.mark.parametrize(
    ("name", "box", "balances"),
    [
        ("team_cube_v1.json", "Ćiril", {"Zoë": 2, "Bjørn": 3, "Ćiril": -4, "Ana": -1}),
        ("per_member_mid_game_v1.json", "B", {"A": -6, "B": 1, "C": 1, "D": 4}),
    ],
)
def test_files_saved_by_earlier_bgfast_still_load(
    name: str, box: str, balances: dict[str, int]
) -> None:
    # Saved by bgfast 8ea9230 (before chouette used bgfast.persist); the format is frozen.
    path = DATA / name
    c = Chouette.load(path)
    assert (c.box, c.balances) == (box, balances)
    assert c.to_json() == path.read_text(encoding="utf-8")


def test_save_and_load_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c = four()
    path = tmp_path / "chouette.json"
    c.save(path)
    assert Chouette.load(path) == c
    c.start_game()
    c.end_game("team")

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk on fire"):
        c.save(path)
    monkeypatch.undo()
    # The old file is intact and no temporary file is left behind.
    assert Chouette.load(path) == four()
    assert [p.name for p in tmp_path.iterdir()] == ["chouette.json"]
    c.save(path)
    assert Chouette.load(path) == c


# ---------------------------------------------------------------- properties


ANSWERS: tuple[Answer, ...] = ("take", "pass")


def _random_step(c: Chouette, data: st.DataObject) -> None:
    """Take one random legal action."""
    if not c.in_game:
        c.start_game()
        return
    choices = ["end"]
    if c.members_box_may_double():
        choices.append("box")
    if c.members_who_may_double():
        choices.append("team")
    choice = data.draw(st.sampled_from(choices))
    answer = st.sampled_from(ANSWERS)
    if choice == "end":
        c.end_game(
            data.draw(st.sampled_from(["box", "team"])),
            data.draw(st.sampled_from(["single", "gammon", "backgammon"])),
        )
    elif choice == "box":
        eligible = c.members_box_may_double()
        if c.form == "team-cube":
            doubled = list(eligible)
        else:
            doubled = data.draw(st.lists(st.sampled_from(eligible), min_size=1, unique=True))
        c.box_double({m: data.draw(answer) for m in doubled})
    elif c.form == "team-cube":
        c.team_double(list(c.active_members), data.draw(answer))
    else:
        c.member_double(data.draw(st.sampled_from(c.members_who_may_double())), data.draw(answer))


def _random_illegal(c: Chouette, data: st.DataObject) -> None:
    """Try one action that may well be illegal; it must either work or change nothing."""
    names = [*c.players, "nobody"]
    # Arguments drawn from wider sets than the types allow, to exercise validation.
    anything: Any = data.draw(st.sampled_from(["box", "team", "draw", "take", "pass", "beaver"]))
    some_names: Any = data.draw(st.lists(st.sampled_from(names), max_size=5))
    answers: Any = data.draw(
        st.dictionaries(st.sampled_from(names), st.sampled_from(["take", "pass"]))
    )
    actions: list[Callable[[], object]] = [
        c.start_game,
        lambda: c.end_game(anything),
        lambda: c.team_double(some_names, anything),
        lambda: c.member_double(data.draw(st.sampled_from(names)), anything),
        lambda: c.box_double(answers),
    ]
    before = c._document()
    try:
        data.draw(st.sampled_from(actions))()
    except IllegalChouetteActionError:
        assert c._document() == before


chouettes = st.builds(
    lambda n, form, seed, jacoby, bg: Chouette(
        [f"P{i}" for i in range(n)], form, rng=seed, jacoby=jacoby, backgammon_as_double=bg
    ),
    st.integers(3, 6),
    st.sampled_from(["team-cube", "per-member-cubes"]),
    st.integers(0, 2**32),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=30, deadline=None)
@given(chouettes, st.data())
def test_property_ledger_sums_to_zero_after_every_game(c: Chouette, data: st.DataObject) -> None:
    games = 0
    for _ in range(data.draw(st.integers(1, 60))):
        _random_step(c, data)
        assert sum(c.balances.values()) == 0
        if len(c.ledger) > games:
            games = len(c.ledger)
            record = c.ledger[-1]
            assert sum(record.payments.values()) == 0
            assert set(record.payments) == set(c.players)
    total: dict[str, int] = dict.fromkeys(c.players, 0)
    for record in c.ledger:
        for name, points in record.payments.items():
            total[name] += points
    assert total == c.balances


@settings(max_examples=20, deadline=None)
@given(chouettes, st.data())
def test_property_json_round_trips(c: Chouette, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(0, 30))):
        _random_step(c, data)
        if data.draw(st.booleans()):
            text = c.to_json()
            loaded = Chouette.from_json(text)
            assert loaded == c and loaded.to_json() == text
            assert Chouette.from_history(c.players, c.form, c.history, **c.options) == c


def _random_actions_never_reach_an_invalid_state(c: Chouette, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 50))):
        if data.draw(st.booleans()):
            _random_step(c, data)
        else:
            _random_illegal(c, data)
        assert c._invariant_violations() == []
        if c.in_game:
            assert c.acting_captain in c.active_members
            assert c.box not in c.active_members
    assert Chouette.from_json(c.to_json()) == c


@settings(max_examples=30, deadline=None)
@given(chouettes, st.data())
def test_property_random_actions_never_reach_an_invalid_state(
    c: Chouette, data: st.DataObject
) -> None:
    _random_actions_never_reach_an_invalid_state(c, data)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(chouettes, st.data())
def test_property_random_actions_never_reach_an_invalid_state_long(
    c: Chouette, data: st.DataObject
) -> None:
    _random_actions_never_reach_an_invalid_state(c, data)


def test_docstring_examples_run() -> None:
    import doctest

    import bgfast.chouette

    result = doctest.testmod(bgfast.chouette)
    assert result.attempted > 0 and result.failed == 0


def test_history_records_every_action_and_settlement() -> None:
    c = four()
    c.start_game()
    c.box_double({"B": "take", "C": "pass", "D": "take"})
    c.end_game("box", "gammon")
    assert c.history[1:] == (
        {"type": "start"},
        {"type": "box_double", "answers": {"B": "take", "C": "pass", "D": "take"}},
        {"type": "end", "winner": "box", "kind": "gammon", "cubes": {"B": 2, "D": 2}},
        {"type": "settle", "game": 1, "payments": {"A": 9, "B": -4, "C": -1, "D": -4}},
    )
    # The history is a copy: editing it does not touch the chouette.
    c.history[1]["type"] = "edited"
    assert c.history[1] == {"type": "start"}


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda h: h.pop(), "ended without its settle event"),
        (lambda h: h.insert(4, h[4]), "does not match the game's settlement"),
        (lambda h: h[4]["payments"].update(A=10), "does not match the game's settlement"),
        (lambda h: h.insert(5, h[4]), "does not match the game's settlement"),
        (lambda h: h[3]["cubes"].update(B=4), "R28: end-of-game cubes"),
        (lambda h: h.pop(0), "R24: a chouette's history starts with the seating"),
        (lambda h: h.insert(2, {"type": "start"}), "in progress"),
    ],
)
def test_replaying_a_bad_history_is_refused(edit: Any, match: str) -> None:
    c = four()
    c.start_game()
    c.box_double({"B": "take", "C": "pass", "D": "take"})
    c.end_game("box", "gammon")
    history = list(c.history)
    edit(history)
    with pytest.raises(IllegalChouetteActionError, match=match):
        Chouette.from_history(c.players, c.form, history)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.sampled_from(["A", "B", "take", "box"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ABCD"), inner),
    max_leaves=5,
)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_property_tampered_files_never_load_a_wrong_state(data: st.DataObject) -> None:
    text = _played()
    doc = json.loads(text)
    paths = [p for p in json_paths(doc) if p and p[0] != "checksum"]
    path = data.draw(st.sampled_from(paths))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(json_values)
    _reseal(doc)
    tampered = json.dumps(doc)
    try:
        loaded = Chouette.from_json(tampered)
    except ChouetteFileError:
        return
    # Only an edit that leaves the same document (e.g. a value replaced by itself) may load,
    # and then what loads is exactly what the file says.
    assert json.loads(loaded.to_json()) == json.loads(tampered)
