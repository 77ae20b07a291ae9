"""GNU Backgammon Match IDs, GNUbg IDs and XGIDs against files made by GNU Backgammon."""

from __future__ import annotations

import base64
import csv
from pathlib import Path

import numpy as np
import pytest

from bgfast import InvalidPositionError, Position, codec
from bgfast.errors_game import InvalidIdError
from bgfast.game import Game
from bgfast.ids import (
    MatchIdFields,
    XgidFields,
    decode_match_id,
    encode_match_id,
    format_xgid,
    parse_xgid,
    split_gnubg_id,
)
from bgfast.scoring import Rules

FORMATS = Path(__file__).parent / "data" / "formats"


def _rows(name: str) -> list[dict[str, str]]:
    with open(FORMATS / name, encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


MATCH_ROWS = _rows("match_ids.tsv")
XGID_ROWS = _rows("xgids.tsv")
POSITION_ROWS = _rows("position_ids.tsv")
FIBS_ROWS = _rows("fibs_boards.tsv")


def test_files_are_complete() -> None:
    assert len(MATCH_ROWS) == 120
    assert len(XGID_ROWS) == 92
    assert len(POSITION_ROWS) == 220


def _fields(row: dict[str, str]) -> MatchIdFields:
    owner = int(row["cube_owner"])
    return MatchIdFields(
        cube_value=int(row["cube"]),
        cube_owner=None if owner == -1 else owner,
        dice_owner=int(row["dice_owner"]),
        crawford=row["crawford"] == "1",
        game_state=int(row["game_state"]),
        turn=int(row["turn"]),
        doubled=row["doubled"] == "1",
        resigned=int(row["resigned"]),
        dice=(int(row["die1_in"]), int(row["die2_in"])),
        match_length=int(row["match_len"]),
        score=(int(row["score0"]), int(row["score1"])),
        jacoby=row["jacoby_bit"] == "0",
    )


def test_match_id_rows_decode_and_encode() -> None:
    for row in MATCH_ROWS:
        _test_match_id_rows_decode_and_encode(row)


def _test_match_id_rows_decode_and_encode(row: dict[str, str]) -> None:
    """Every Match ID gnubg wrote decodes to the file's fields and encodes back exactly."""
    expected = _fields(row)
    decoded = decode_match_id(row["match_id"])
    high_first = tuple(sorted(expected.dice, reverse=True))
    assert decoded == MatchIdFields(**{**expected.__dict__, "dice": high_first})
    assert encode_match_id(decoded) == row["match_id"]
    assert encode_match_id(expected) == row["match_id"]
    # the Jacoby bit is the file's own column; the rest of the row agrees either way
    assert decoded.jacoby == (row["jacoby_in_use"] == "1")


def _with_bits(match_id: str, start: int, width: int, value: int) -> str:
    bits = int.from_bytes(base64.b64decode(match_id), "little")
    bits = bits & ~(((1 << width) - 1) << start) | (value << start)
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


GOOD = "cIkKAAAAAAAA"  # money, centred cube, player 1 to play 5-2


@pytest.mark.parametrize(
    "bad",
    [
        "",
        GOOD[:-1],
        GOOD + "A",
        GOOD[:-2] + "!A",
        _with_bits(GOOD, 4, 2, 2),  # cube owner 2
        _with_bits(GOOD, 8, 3, 5),  # game state 5
        _with_bits(GOOD, 15, 3, 7),  # die 7
        _with_bits(GOOD, 15, 3, 0),  # one die only
        _with_bits(GOOD, 67, 1, 1),  # unused bit
    ],
)
def test_bad_match_ids_are_refused(bad: str) -> None:
    decode_match_id(GOOD)
    with pytest.raises(InvalidIdError):
        decode_match_id(bad)


def test_match_id_encoder_refuses_bad_fields() -> None:
    with pytest.raises(InvalidIdError):
        encode_match_id(MatchIdFields(cube_value=3))
    with pytest.raises(InvalidIdError):
        encode_match_id(MatchIdFields(dice=(7, 1)))
    with pytest.raises(InvalidIdError):
        encode_match_id(MatchIdFields(match_length=1 << 15))


def test_position_id_rows() -> None:
    for row in POSITION_ROWS:
        _test_position_id_rows(row)


def _test_position_id_rows(row: dict[str, str]) -> None:
    """gnubg Position IDs: the core reads and writes them (both sides with every checker
    off is no position, R15, and is refused)."""
    on_roll = [int(x) for x in row["on_roll"].split(",")]
    opponent = [int(x) for x in row["opponent"].split(",")]
    if sum(on_roll) == 0 and sum(opponent) == 0:
        with pytest.raises(InvalidPositionError, match="R15"):
            Position.from_id(row["position_id"])
        return
    pos = Position.from_id(row["position_id"])
    assert pos.to_array().tolist() == [on_roll, opponent]
    assert (
        Position.from_array(np.array([on_roll, opponent], dtype=np.uint8)).id == row["position_id"]
    )


def test_xgid_rows_round_trip() -> None:
    for row in XGID_ROWS:
        _test_xgid_rows_round_trip(row)


def _test_xgid_rows_round_trip(row: dict[str, str]) -> None:
    """Every XGID is read and written back identically (field level)."""
    assert format_xgid(parse_xgid(row["xgid"])) == row["xgid"]


def _position_is_over(xgid: str) -> bool:
    f = parse_xgid(xgid)
    return sum(f.board[0]) == 0 or sum(f.board[1]) == 0


def test_xgid_rows_as_games() -> None:
    for row in XGID_ROWS:
        _test_xgid_rows_as_games(row)


def _test_xgid_rows_as_games(row: dict[str, str]) -> None:
    """XGID -> Game gives the GNUbg ID gnubg itself made from that XGID, and the game
    writes both IDs back (the XGID exactly, the GNUbg ID exactly)."""
    xgid = row["xgid"]
    if _position_is_over(xgid):
        # one side has no checker left: a won position, which no Game can resume (R15)
        with pytest.raises(InvalidIdError, match="R15"):
            Game.from_xgid(xgid)
        return
    game = Game.from_xgid(xgid)
    assert game.gnubg_id() == row["gnubg_id"]
    assert game.xgid() == xgid
    again = Game.from_gnubg_id(row["gnubg_id"])
    assert again.gnubg_id() == row["gnubg_id"]
    # the GNUbg ID keeps all but XG's beaver flag and max cube
    xg = parse_xgid(again.xgid())
    orig = parse_xgid(xgid)
    assert (xg.board, xg.cube_value, xg.cube_owner, xg.turn, xg.score, xg.match_length) == (
        orig.board,
        orig.cube_value,
        orig.cube_owner,
        orig.turn,
        orig.score,
        orig.match_length,
    )
    assert xg.dice == (None if orig.dice is None else tuple(sorted(orig.dice, reverse=True)))


def test_gnubg_ids_from_fibs_file_round_trip() -> None:
    for row in FIBS_ROWS:
        _test_gnubg_ids_from_fibs_file_round_trip(row)


def _test_gnubg_ids_from_fibs_file_round_trip(row: dict[str, str]) -> None:
    """The GNUbg IDs that gnubg normalised (fibs_boards.tsv) are read and written back
    exactly; as Games too, unless one side has no checker left (a won position, R15),
    which is refused rather than loaded as a game in progress."""
    pos_id, match_id = split_gnubg_id(row["gnubg_id_after"])
    assert encode_match_id(decode_match_id(match_id)) == match_id
    assert Position.from_id(pos_id).id == pos_id
    if Position.from_id(pos_id).outcome is not None:
        with pytest.raises(InvalidIdError, match="R15"):
            Game.from_gnubg_id(row["gnubg_id_in"])
        return
    game = Game.from_gnubg_id(row["gnubg_id_in"])
    assert game.gnubg_id() == row["gnubg_id_after"]


def test_match_id_rows_as_games() -> None:
    for row in MATCH_ROWS:
        _test_match_id_rows_as_games(row)


def _test_match_id_rows_as_games(row: dict[str, str]) -> None:
    """Match IDs of playable states load into a Game and are written back exactly (the
    Jacoby bit follows the game: always 1 in match play). Unplayable combinations are
    refused with a clear error instead of loading a wrong state."""
    f = decode_match_id(row["match_id"])
    gid = f"{Position().id}:{row['match_id']}"
    try:
        game = Game.from_gnubg_id(gid)
    except InvalidIdError as e:
        assert f.game_state not in (0, 1) or str(e)
        return
    expect = row["match_id"]
    if f.match_length and f.jacoby:  # old IDs: bit 66 clear in match play
        expect = encode_match_id(MatchIdFields(**{**f.__dict__, "jacoby": False}))
    assert game.match_id() == expect


def test_manual_example_reads_as_documented() -> None:
    """gnubg manual 11.7: 9-point match, score 2-4, player 0 owns a 2-cube, player 1 rolled
    5-2 (the manual's ID has the Jacoby bit clear; gnubg writes it set in match play)."""
    game = Game.from_gnubg_id(f"{Position().id}:QYkqASAAIAAA")
    assert (game.match_length, game.score, game.cube.value, game.cube.owner) == (9, (2, 4), 2, 0)
    assert (game.turn, game.dice, game.phase) == (1, (5, 2), "move")
    assert game.match_id() == "QYkqASAAIAAE"


def test_split_gnubg_id() -> None:
    assert split_gnubg_id("GNUbgID: 4HPwATDgc/ABMA:cIkKAAAAAAAA") == (
        "4HPwATDgc/ABMA",
        "cIkKAAAAAAAA",
    )
    for bad in ["4HPwATDgc/ABMA", "4HPwATDgc/ABM:cIkKAAAAAAAA", "a:b:c"]:
        with pytest.raises(InvalidIdError):
            split_gnubg_id(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0",  # 9 fields
        "XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10",  # 25 characters
        "XGID=-b----E-C---eE---c-e----Bz:0:0:1:52:0:0:3:0:10",  # bad letter
        "XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",  # player 1 on player 0's bar
        "XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:3:0:10",  # cube position 2
        "XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:3:0:10",  # turn 0
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10",  # die 7
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:9:0:10",  # rules 9
        "XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:3:0:10",  # not a number
        "XGID=-b----O-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",  # 25 checkers
    ],
)
def test_bad_xgids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidIdError):
        parse_xgid(bad)


def test_xgid_pending_double_and_beaver() -> None:
    start = "-b----E-C---eE---c-e----B-"
    game = Game.from_xgid(f"XGID={start}:1:1:1:D:0:0:3:0:10")
    assert (game.phase, game.turn, game.player_to_act, game.offered_cube) == ("doubled", 1, 0, 4)
    assert game.xgid() == f"XGID={start}:1:1:1:D:0:0:3:0:10"
    game.beaver()
    assert game.xgid() == f"XGID={start}:1:1:1:B:0:0:3:0:10"
    game.take()
    assert (game.cube.value, game.cube.owner) == (8, 0)
    # the owner's opponent may not double: refused, not loaded wrongly (R17)
    with pytest.raises(InvalidIdError, match="may not double"):
        Game.from_xgid(f"XGID={start}:1:-1:1:D:0:0:3:0:10")


def test_xgid_field_layer_example() -> None:
    f = parse_xgid("XGID=aFDaA--------------a-Acbb-:1:-1:1:42:3:0:0:7:10")
    assert f == XgidFields(
        board=(
            # top: 2 on its 1, 2 on 2, 3 on 3, 1 on 6, 1 on 22, 1 on the bar
            (2, 2, 3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1),
            # bottom: 6 on its 1, 4 on 2, 1 on 4, 1 on 21 (3 borne off)
            (6, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0),
        ),
        cube_value=2,
        cube_owner=0,
        turn=1,
        dice=(4, 2),
        score=(0, 3),
        rules=0,
        match_length=7,
        max_cube=10,
    )


def test_fibs_boards_written_and_read_like_gnubg() -> None:
    """Every FIBS board line gnubg wrote: our Game writes it identically from the GNUbg ID,
    and reads it back to the same GNUbg ID (apart from the Jacoby bit, which a FIBS board
    does not carry)."""
    for row in FIBS_ROWS:
        pos_id, _ = split_gnubg_id(row["gnubg_id_after"])
        if Position.from_id(pos_id).outcome is not None:
            continue  # a won position is no Game (R15; see the test above)
        game = Game.from_gnubg_id(row["gnubg_id_in"])
        assert game.fibs_board("bob", "alice") == row["fibs_board"], row["description"]
        back = Game.from_fibs_board(row["fibs_board"])
        assert back.fibs_board("bob", "alice") == row["fibs_board"]
        want = decode_match_id(split_gnubg_id(row["gnubg_id_after"])[1])
        got = decode_match_id(back.match_id())
        assert got == MatchIdFields(**{**want.__dict__, "jacoby": got.jacoby})
        assert back.position.id == pos_id


def test_fibs_board_refuses_bad_lines() -> None:
    good = FIBS_ROWS[0]["fibs_board"]
    for bad in [
        "",
        good + ":1",
        good.replace("board:", "bored:"),
        good.replace(":1:-1:0:25:", ":1:-1:25:0:"),  # home and bar against the direction
        good.replace(":1:-1:0:25:", ":0:-1:0:25:"),  # no colour
        good.replace(":1:-1:0:25:", ":1:0:0:25:"),  # no direction
    ]:
        with pytest.raises(InvalidIdError):
            Game.from_fibs_board(bad)


def test_gnubg_id_of_a_pending_beaver() -> None:
    """gnubg turns the cube on a beaver and gives the decision back to the doubler; the ID
    reads back as the same beaver when the rules allow beavers, and is refused otherwise."""
    from bgfast.scoring import Rules

    game = Game(rules=Rules(beavers=True), seed=1)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.beaver()
    f = decode_match_id(game.match_id())
    assert (f.cube_value, f.doubled, f.dice_owner, f.turn) == (2, True, 1, 1)
    back = Game.from_gnubg_id(game.gnubg_id(), rules=Rules(beavers=True))
    assert (back.offer_kind, back.offered_cube, back.cube.value, back.player_to_act) == (
        "beaver",
        4,
        1,
        1,
    )
    assert back.gnubg_id() == game.gnubg_id()
    with pytest.raises(InvalidIdError, match="a beaver waits, and the rules given do not allow"):
        Game.from_gnubg_id(game.gnubg_id(), rules=Rules())


def test_a_waiting_beaver_read_without_rules_allows_beavers() -> None:
    # Only a game with beavers has one waiting: left to the default rules, the ID reads as
    # that game (the CLI and the servers give no rules), Jacoby bit and all.
    rules = Rules(beavers=True, jacoby=True)
    g = Game(rules=rules, seed=5)
    g.roll(5, 2)
    g.play(g.legal_moves()[0])
    g.double()
    g.beaver()
    read = Game.from_gnubg_id(g.gnubg_id())
    assert read.offer_kind == "beaver" and read.rules == rules
    assert read.gnubg_id() == g.gnubg_id()
    state = codec.state_from_id(g.gnubg_id())
    assert state is not None and state.rules.beavers


@pytest.mark.parametrize("bad", [None, 5, b"4HPwATDgc/ABMA:cIkqAAAAAAAA", ["XGID="]])
def test_state_from_id_refuses_what_is_not_text_as_its_siblings_do(bad: object) -> None:
    from bgfast.codec import state_from_id

    with pytest.raises(InvalidIdError, match=f"is text, not {type(bad).__name__}"):
        state_from_id(bad)  # type: ignore[arg-type]


def test_what_an_id_cannot_hold_is_written_without_it_as_documented() -> None:
    # The HTTP server's /ids writes every notation of a state read from any of them: an
    # XGID's cube limit (max-cube 12: 4096) and a GNUbg ID's pending resignation.
    from bgfast.codec import fibs_board_of, gnubg_id_of, state_from_id, xgid_of

    game = Game(match_length=7, rules=Rules(max_cube=4096), seed=1)
    game.roll()
    limited = game.state
    assert state_from_id(xgid_of(limited)).cube.max_value == 4096
    for written in (gnubg_id_of(limited), fibs_board_of(limited)):
        back = state_from_id(written)
        assert back is not None and back.cube.max_value == 32768  # the default
    game = Game(match_length=7, seed=1)
    game.roll()
    game.play(game.legal_moves()[0])
    game.resign("single")
    resigned = game.state
    back = state_from_id(gnubg_id_of(resigned))
    assert back is not None and back.resignation == resigned.resignation
    for written in (xgid_of(resigned), fibs_board_of(resigned)):
        back = state_from_id(written)
        assert back is not None and back.resignation is None and back.phase == "roll"


def test_a_bad_xgid_read_as_any_id_is_called_an_xgid() -> None:
    # The Crawford flag with nobody one point away: the reason, and no talk of GNUbg IDs.
    bad = "XGID=-BCBaCB----AA-A-b-cbbbc---:0:0:1:00:5:5:1:7:10"
    with pytest.raises(InvalidIdError, match=r"is no valid XGID: .*Crawford") as refused:
        codec.state_from_id(bad)
    assert "GNUbg ID" not in str(refused.value)
    with pytest.raises(InvalidIdError, match="neither a GNUbg ID"):
        codec.state_from_id("4HPwATDgc/ABMA:cIkKAAAAAAA")


# ------------------------------------------------------- a Game argument of the wrong type


@pytest.mark.parametrize(
    "name", ["game_xgid", "game_match_id", "game_fibs_board", "game_position_for_id"]
)
@pytest.mark.parametrize("bad", [None, "4HPwATDgc/ABMA", 3])
def test_game_functions_refuse_a_non_game_with_type_error(name: str, bad: object) -> None:
    from bgfast import ids

    with pytest.raises(TypeError, match=rf"game must be a bgfast\.Game, not {type(bad).__name__}"):
        getattr(ids, name)(bad)


def test_game_functions_still_take_a_game() -> None:
    from bgfast import ids

    game = Game(seed=1)
    game.roll(3, 1)
    assert ids.game_position_for_id(game) == game.position
    assert ids.game_match_id(game) == codec.match_id_of(game.state)
    assert ids.game_from_xgid(ids.game_xgid(game)).position == game.position
    back = ids.game_from_fibs_board(ids.game_fibs_board(game, "bob", "alice"))
    assert (back.position, back.dice) == (game.position, (3, 1))
