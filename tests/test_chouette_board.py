"""A chouette's games are Games: the board played through the chouette, the cubes kept in
step with it (R18 doubles before the doubling side rolls), the game settled and the seats
rotated when a side bears off (R15, R16, R25, R28), saved and replayed with the board."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bgfast import Game, IllegalMoveError, InvalidSaveError
from bgfast.chouette import BOX, TEAM, Chouette, IllegalChouetteActionError
from bgfast.persist import checksum

NAMES = ["Ann", "Bob", "Cy", "Di"]
ROLLS = {"Ann": 6, "Bob": 5, "Cy": 3, "Di": 1}  # box Ann, captain Bob, then Cy, Di


def _chouette(form: Any = "team-cube", **options: Any) -> Chouette:
    c = Chouette(NAMES, form, rolls=ROLLS, **options)
    c.start_game()
    return c


def _play_to_the_end(c: Chouette, rng: random.Random, doubles: bool = False) -> Any:
    """Play the board with random legal moves (and, if asked, doubles taken) to its end."""
    while True:
        board = c.game
        assert board is not None
        if board.phase in ("opening", "roll"):
            if doubles and board.phase == "roll" and rng.random() < 0.1:
                side = "box" if board.turn == BOX else "team"
                if side == "team" and c.members_who_may_double():
                    if c.form == "team-cube":
                        c.team_double(c.active_members, "take")
                    else:
                        c.member_double(c.members_who_may_double()[0], "take")
                    continue
                if side == "box" and c.members_box_may_double():
                    c.box_double({m: "take" for m in c.members_box_may_double()})
                    continue
            c.roll((rng.randint(1, 6), rng.randint(1, 6)))
            continue
        record = c.play(rng.choice(board.legal_moves()))
        if record is not None:
            return record


@pytest.mark.parametrize("form", ["team-cube", "per-member-cubes"])
def test_a_game_played_on_the_board_settles_itself_r15_r25_r28(form: str) -> None:
    c = _chouette(form)
    record = _play_to_the_end(c, random.Random(4), doubles=True)
    assert not c.in_game and c.ledger == (record,)
    winner = record.winner
    assert (c.box == "Ann") == (winner == "box")  # R25: the box keeps the box if it wins
    assert record.kind in ("single", "gammon", "backgammon")
    assert sum(c.balances.values()) == 0
    for member in record.members:
        assert (
            abs(member.points)
            == member.cube * {"single": 1, "gammon": 2, "backgammon": 3}[record.kind]
        )
    kinds = [e["type"] for e in c.history]
    assert {"roll", "move", "commit", "settle"} <= set(kinds) and "end" not in kinds
    assert Chouette.from_json(c.to_json()) == c


def test_the_board_is_a_game_the_box_plays_against_the_team() -> None:
    c = _chouette()
    assert c.roll((2, 5)) == (2, 5)  # R3: the box's die, the team's die: the team opens
    board = c.game
    assert isinstance(board, Game) and board.turn == TEAM and board.dice == (5, 2)
    assert "cube 1 centred (not in play)" in str(board)  # the cubes are the chouette's
    board.play(board.legal_moves()[0])  # a copy: the chouette's board is untouched
    assert c.game is not None and c.game.phase == "move"
    c.move("13/8 13/11")
    assert c.game.staged_move == "13/11 13/8"  # the core's notation
    c.undo()
    assert c.play("13/8 13/11") is None
    assert c.game.turn == BOX and c.history[-1] == {"type": "commit"}
    assert c.history[-2] == {"type": "move", "move": "13/11 13/8"}


def test_r18_doubles_follow_the_board() -> None:
    c = _chouette()
    c.roll((5, 2))  # the box opens
    before = c.to_json()
    with pytest.raises(IllegalChouetteActionError, match="R18"):
        c.box_double({m: "take" for m in c.active_members})  # the box has rolled
    with pytest.raises(IllegalChouetteActionError, match="R18"):
        c.team_double(c.active_members, "take")
    assert c.to_json() == before
    c.play("13/8 13/11")
    assert c.members_box_may_double() == ()  # the team is on roll
    assert c.members_who_may_double() == c.active_members
    with pytest.raises(IllegalChouetteActionError, match="R18: the box doubles only on its own"):
        c.box_double({m: "take" for m in c.active_members})
    c.team_double(c.active_members, "take")
    assert c.cube().value == 2 and c.cube().owner == "box"


def test_a_game_on_the_board_cannot_be_ended_by_hand() -> None:
    c = _chouette()
    c.roll((6, 1))
    with pytest.raises(IllegalChouetteActionError, match="R15"):
        c.end_game("box", "gammon")
    # A game recorded from a real board (nothing rolled here) still can.
    d = _chouette()
    d.team_double(d.active_members, "take")
    assert d.end_game("box", "gammon").payments == {"Ann": 12, "Bob": -4, "Cy": -4, "Di": -4}


def test_everyone_passing_ends_a_board_game_too() -> None:
    c = _chouette("per-member-cubes")
    c.roll((6, 1))
    c.play("13/7 8/7")  # the box opened; the team is on roll
    for m in list(c.active_members):
        c.member_double(m, "take")
    c.roll((3, 1))
    c.play("8/5 6/5")
    record = c.box_double({m: "pass" for m in c.members_box_may_double()})
    assert record is not None and record.winner == "box" and not c.in_game


def test_board_events_are_checked_on_load() -> None:
    c = _chouette()
    c.roll((6, 1))
    c.play("13/7 8/7")
    doc = json.loads(c.to_json())
    doc["history"][3]["move"] = "13/7 8/1"  # not the 6-1 that was rolled
    doc.pop("checksum")
    doc["checksum"] = "sha256:" + checksum(doc)
    with pytest.raises(InvalidSaveError, match="board event"):
        Chouette.from_json(json.dumps(doc))
    history = list(c.history)
    history[2] = {"type": "roll", "dice": [7, 1]}
    with pytest.raises(IllegalChouetteActionError, match="board event"):
        Chouette.from_history(c.players, c.form, history)
    c.roll((3, 1))
    before = c.to_json()
    with pytest.raises(IllegalMoveError, match="R4"):
        c.play("24/18")  # a refused move changes nothing
    assert c.to_json() == before and Chouette.from_json(before) == c


@pytest.mark.parametrize("seed", range(4))
def test_random_chouettes_on_the_board_keep_the_ledger(seed: int) -> None:
    rng = random.Random(seed)
    c = Chouette(NAMES, rng.choice(["team-cube", "per-member-cubes"]), rng=seed, jacoby=True)
    for _ in range(3):
        c.start_game()
        _play_to_the_end(c, rng, doubles=True)
        assert sum(c.balances.values()) == 0 and c._invariant_violations() == []
    assert Chouette.from_json(c.to_json()) == c
