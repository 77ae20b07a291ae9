"""FIBS ``board:`` lines in every layout the FIBS specification allows: colour -1 or 1,
direction -1 or 1, home 0 or 25, and pending doubles (R17-R19), read by
:func:`bgfast.codec.state_from_fibs_board` (``Game.from_fibs_board``).

Boards as FIBS-speaking servers write them (``data/formats/fibs_server_boards.tsv``) are
read to the positions GNU Backgammon's own FIBS reader finds in them; every board gnubg
writes is read the same in the three other layouts (the same checkers seen by a player of
the other colour or direction).
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from bgfast import Game, GameState, Position
from bgfast.codec import FibsBoard, fibs_board_of, state_from_fibs_board
from bgfast.errors import GameStateError, InvalidIdError

FORMATS = Path(__file__).parent / "data" / "formats"


def _rows(name: str) -> list[dict[str, str]]:
    with open(FORMATS / name, encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


SERVER_ROWS = _rows("fibs_server_boards.tsv")
GNUBG_ROWS = _rows("fibs_boards.tsv")


def relayout(line: str, colour: int, direction: int) -> str:
    """``line`` (any layout) written for a player of ``colour`` moving in ``direction``:
    the same game, the board fields moved and their signs changed. Written from the FIBS
    specification independently of the reader under test."""
    f = line.split(":")
    old_colour, old_direction = int(f[41]), int(f[42])
    cells = [int(x) for x in f[6:32]]
    if direction != old_direction:
        cells = cells[::-1]  # field i becomes 25 - i (the bars swap ends with home and bar)
    if colour != old_colour:
        cells = [-x for x in cells]
    turn = int(f[32])
    if colour != old_colour:
        turn = -turn  # the turn field is a colour
    home, bar = (0, 25) if direction == -1 else (25, 0)
    out = [*f[:6], *(str(x) for x in cells), str(turn), *f[33:41]]
    out += [str(colour), str(direction), str(home), str(bar), *f[45:]]
    return ":".join(out)


@pytest.mark.parametrize("row", SERVER_ROWS, ids=lambda r: r["description"][:40])
def test_boards_as_fibs_writes_them(row: dict[str, str]) -> None:
    state = state_from_fibs_board(row["fibs_board"])
    assert state.phase == row["phase"]
    assert state.turn == int(row["turn"])
    if row["gnubg_position_id"] != "-":
        # gnubg's reader gives the position of the side on turn, as bgfast's does
        assert state.position.id == row["gnubg_position_id"]
        on_turn, other = row["gnubg_score"].split("/")[0].split("-")
        assert (state.score[state.turn], state.score[1 - state.turn]) == (
            int(on_turn),
            int(other),
        )
    assert "-".join(map(str, state.score)) == row["score"]
    assert state.crawford == bool(int(row["crawford"]))
    if row["dice"]:
        assert state.dice == (int(row["dice"][0]), int(row["dice"][1]))
    else:
        assert state.dice is None
    if row["pips"] != "-":
        assert "-".join(map(str, state.pips())) == row["pips"]
    # read in any other layout, the line is the same game
    for colour in (-1, 1):
        for direction in (-1, 1):
            again = state_from_fibs_board(relayout(row["fibs_board"], colour, direction))
            assert again == state
    # written in gnubg's layout (higher die first), it reads back the same
    assert state_from_fibs_board(fibs_board_of(state)) == _higher_first(state)


def _higher_first(state: GameState) -> GameState:
    if state.dice is None:
        return state
    return state.replace(dice=(max(state.dice), min(state.dice)))


def test_every_gnubg_board_in_every_layout() -> None:
    for row in GNUBG_ROWS:
        if Position.from_id(row["gnubg_id_after"].split(":")[0]).outcome is not None:
            continue  # a won position is no game to read (R15)
        state = state_from_fibs_board(row["fibs_board"])
        for colour in (-1, 1):
            for direction in (-1, 1):
                line = relayout(row["fibs_board"], colour, direction)
                assert state_from_fibs_board(line) == state, (row["description"], line)


def test_unlimited_match_is_money_play() -> None:
    line = (
        "board:You:GibbonTestD:9999:3:5:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0"
        ":2:0:1:4:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
    )
    state = state_from_fibs_board(line)
    assert (state.match_length, state.score, state.dice) == (0, (0, 0), (4, 1))


def _pending(line: str) -> Game:
    return Game.from_fibs_board(line)


def test_a_pending_double_from_gnubg_external_player() -> None:
    """gnubg 1.07.001 asking its external player 0 to answer player 1's redouble: the
    doubler is the side on turn (R18), the cube shows 2, the offer 4, player 0 answers."""
    row = next(r for r in SERVER_ROWS if r["phase"] == "doubled")
    state = state_from_fibs_board(row["fibs_board"])
    assert state.offer is not None
    assert (state.offer.doubler, state.offer.value, state.cube.value, state.cube.owner) == (
        1,
        4,
        2,
        1,
    )
    assert state.player_to_act == 0
    game = Game.from_state(state)
    game.take()  # R19: the taker owns the cube at 4
    assert (game.cube.value, game.cube.owner) == (4, 0)
    assert state_from_fibs_board(fibs_board_of(state)) == state


def test_a_pending_double_as_fibs_shows_it() -> None:
    """FIBS shows the doubled player "was doubled" 1 (gnubg: the doubler's sign), and the
    doubler a board on which neither side may double while the answer waits: each reads as
    the same offer by the side on turn (R18)."""
    game = Game(match_length=5, seed=3)
    game.roll((1, 3))  # player 1 wins the opening roll and plays 31
    game.play("8/5 6/5")
    game.double()  # player 0, on roll, doubles; player 1 ("you") answers
    line = game.fibs_board()
    f = line.split(":")
    assert f[40] == "-1"  # gnubg writes the doubler's sign
    fibs = relayout(":".join([*f[:40], "1", *f[41:]]), -1, 1)
    g = fibs.split(":")
    g[38], g[39], g[40] = "0", "0", "0"  # neither may double: the cube is turned, waiting
    waiting = ":".join(g)
    want = game.state.replace(turns_played=(0, 0))  # a board does not count turns
    for text in (line, fibs, waiting):
        assert state_from_fibs_board(text) == want, text
    game.take()
    assert (game.cube.value, game.cube.owner) == (2, 1)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        ({41: "0"}, "colour"),
        ({42: "0"}, "direction"),
        ({43: "25", 44: "0"}, "home"),
        ({32: "0"}, "over"),
        ({6: "2"}, "bar"),  # the opponent's bar with your sign
        ({35: "5", 36: "5"}, "not on turn"),  # the other side's dice neither 0 nor a copy
        ({51: "1"}, "1-away"),  # post-Crawford with nobody 1-away
        ({40: "1", 33: "3", 34: "1", 35: "3", 36: "1"}, "dice"),  # a double after the roll
    ],
)
def test_contradictions_are_refused(edit: dict[int, str], match: str) -> None:
    game = Game(match_length=7, seed=1)
    game.roll((6, 1))
    game.play("8/2 6/5")
    f = game.fibs_board().split(":")
    for i, v in edit.items():
        f[i] = v
    with pytest.raises(InvalidIdError, match=match):
        state_from_fibs_board(":".join(f))


def test_fields_are_named() -> None:
    b = FibsBoard.parse(SERVER_ROWS[1]["fibs_board"])
    assert (b.you, b.opponent, b.colour, b.direction, b.home, b.bar) == (
        "mpgnu",
        "buster",
        -1,
        1,
        25,
        0,
    )
    assert b.dice == ((3, 6), (0, 0))


CRAWFORD_BOARD = (
    "board:You:Opp:5:4:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0"
    ":1:1:1:{was_doubled}:1:-1:0:25:0:0:0:0:0:0:0:0"
)


@pytest.mark.parametrize("was_doubled", ["1", "-1"])
def test_a_double_in_the_crawford_game_is_refused_not_dropped(was_doubled: str) -> None:
    # The Crawford branch ran before the pending-double one: the board read as a roll with
    # the double gone. The XGID of the same state is refused (R21); so is the board.
    assert state_from_fibs_board(CRAWFORD_BOARD.format(was_doubled="0")).crawford
    with pytest.raises(InvalidIdError, match=r"Crawford game.*R21"):
        state_from_fibs_board(CRAWFORD_BOARD.format(was_doubled=was_doubled))


# ---------------------------------------------------- states a board cannot hold (R3, R15)


def test_fibs_board_refuses_the_state_before_the_opening_roll_r3() -> None:
    game = Game(seed=1)
    assert game.phase == "opening"
    with pytest.raises(GameStateError, match="cannot describe the state before the opening"):
        game.fibs_board()
    with pytest.raises(GameStateError, match="before the opening roll"):
        fibs_board_of(game.state)
    # the same refusal as the XGID writer's
    with pytest.raises(GameStateError, match="before the opening roll"):
        game.xgid()
    # once the opening roll is made the board is written and reads back as that state
    game.roll(3, 1)
    back = Game.from_fibs_board(game.fibs_board())
    assert (back.phase, back.turn, back.dice) == ("move", game.turn, (3, 1))
    assert back.position == game.position


def test_fibs_board_refuses_a_game_over_by_resignation_r15() -> None:
    game = Game(seed=1)
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.resign("gammon")
    game.accept()
    assert game.is_over
    with pytest.raises(GameStateError, match="this game is over"):
        game.fibs_board()
    with pytest.raises(GameStateError, match="reading the board back"):
        fibs_board_of(game.state, "bob", "alice")


def test_fibs_board_refuses_a_game_over_by_bear_off_r15() -> None:
    pick = random.Random(3)
    game = Game(seed=3)
    while not game.is_over:
        if game.phase in ("opening", "roll"):
            game.roll()
        else:
            game.play(pick.choice(game.legal_moves()))
    assert game.result is not None and game.result.reason == "bear-off"
    with pytest.raises(GameStateError, match="this game is over"):
        game.fibs_board()
