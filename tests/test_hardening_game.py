"""Hardening of the Python game layer: regression tests for defects found by review and by
the stateful / decoder fuzz tests (tests/test_game_stateful.py, tests/test_decoders_fuzz.py).

The contract: a bad input raises a ``bgfast.BgfastError`` subclass (or ``TypeError`` for a
wrong type) naming what is wrong, and a rejected call changes no state.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import BgfastError, Chouette, Game, Match, VecEnv
from bgfast.errors_game import GameStateError, InvalidIdError, InvalidSaveError, MatchOptionError
from bgfast.persist import checksum
from bgfast.scoring import Rules

# ------------------------------------------------------------------ helpers


def _finish(game: Game, *, illegal_bear_off: bool) -> None:
    """Play ``game`` to its end with the first legal move each turn; with
    ``illegal_bear_off`` the winner's last move bears off three checkers with a
    non-double, which table mode records although R8 forbids it."""
    while not game.is_over:
        if game.phase in ("opening", "roll"):
            game.roll()
            continue
        assert game.phase == "move" and game.dice is not None and game.turn is not None
        row = game.board()[game.turn]
        points = [p + 1 for p in range(24) for _ in range(int(row[p]))]
        if (
            illegal_bear_off
            and row[24] == 0
            and 0 < len(points) <= 3
            and game.dice[0] != game.dice[1]
            and game.table
        ):
            game.play(" ".join(f"{p}/off" for p in points))
        else:
            game.play(game.legal_moves()[0])


def _match_with_an_illegal_win() -> tuple[Match, Game]:
    """A table-mode 7-point match whose first game was won by an illegal bear-off."""
    for seed in range(50):
        match = Match(7, table=True, seed=seed)
        game = match.new_game()
        _finish(game, illegal_bear_off=True)
        if game.last_move_illegal:
            return match, game
    raise AssertionError("no seed gave an illegal bear-off")


def _reseal(doc: dict[str, Any], prefix: str = "") -> str:
    """``doc`` as saved text with its checksum recomputed (an edit that a checksum cannot
    catch: the loaders must find it by replaying)."""
    doc.pop("checksum", None)
    return json.dumps({**doc, "checksum": prefix + checksum(doc)})


# ------------------------------------------------------------------ item 1: R31 and the next game


def test_r31_call_refused_once_the_next_game_of_the_match_exists() -> None:
    match, first = _match_with_an_illegal_win()
    score = match.score
    match.new_game()
    before = match.to_json()
    with pytest.raises(GameStateError, match="R31"):
        first.call()
    assert match.to_json() == before
    assert match.score == score and first.is_over
    assert Match.from_json(match.to_json()) == match


def test_r31_call_allowed_before_the_next_game_then_match_goes_on() -> None:
    match, first = _match_with_an_illegal_win()
    first.call()
    assert match.score == (0, 0) and not first.is_over
    assert Match.from_json(match.to_json()) == match
    with pytest.raises(GameStateError, match="not over"):
        match.new_game()


def test_r31_match_loads_an_old_save_without_the_close_event() -> None:
    """Matches saved before a new game closed the previous one load, closed."""
    match, first = _match_with_an_illegal_win()
    old_record = first.to_dict()  # as saved before games were closed
    match.new_game()
    doc = json.loads(match.to_json())
    assert doc["games"][0]["events"][-1] == {"type": "close"}
    doc["games"][0] = old_record
    loaded = Match.from_json(_reseal(doc))
    assert loaded.games[0].closed and loaded.score == match.score
    with pytest.raises(GameStateError, match="R31"):
        loaded.games[0].call()


def test_close_is_refused_unless_the_game_is_over() -> None:
    game = Game(seed=1)
    before = game.to_json()
    with pytest.raises(GameStateError):
        game.close()
    assert game.to_json() == before


# ------------------------------------------------------------------ item 2: Crawford, Holland


def test_r21_one_point_match_is_neither_crawford_nor_post_crawford() -> None:
    match = Match(1, seed=1)
    assert (match.crawford, match.post_crawford) == (False, False)
    game = match.new_game()
    assert (game.crawford, game.post_crawford) == (False, False)
    assert (match.crawford, match.post_crawford) == (False, False)
    assert not Game(match_length=1).post_crawford


@pytest.mark.parametrize("length", [1, 2, 3, 5, 7])
def test_r21_game_and_match_agree_on_crawford_and_post_crawford(length: int) -> None:
    for seed in range(6):
        match = Match(length, seed=seed)
        while not match.is_over:
            game = match.new_game()
            assert (game.crawford, game.post_crawford) == (match.crawford, match.post_crawford)
            _finish(game, illegal_bear_off=False)


@pytest.mark.parametrize(("length", "score"), [(1, (0, 0)), (3, (2, 2)), (5, (4, 4))])
def test_r21_no_crawford_game_when_both_players_are_one_away(
    length: int, score: tuple[int, int]
) -> None:
    with pytest.raises(MatchOptionError, match="R21"):
        Game(match_length=length, score=score, crawford=True)
    assert Game(match_length=length, score=score).post_crawford == (length > 1)


def test_holland_one_point_match_player_0_may_double_at_0_0() -> None:
    game = Game(match_length=1, holland=True, seed=1)
    game.roll((1, 6))  # player 1 opens
    game.play(game.legal_moves()[0])
    assert game.turn == 0 and game.why_not_double() is None


def test_holland_tied_post_crawford_score_has_no_trailer() -> None:
    # 3-point match at 2-2: post-Crawford, nobody trails, so Holland restricts nobody
    game = Game(match_length=3, score=(2, 2), holland=True, seed=1)
    assert game.post_crawford
    game.roll((1, 6))
    game.play(game.legal_moves()[0])
    assert game.turn == 0 and game.why_not_double() is None
    # at 2-1 the trailer (player 1) waits for two rolls each
    trailing = Game(match_length=3, score=(2, 1), holland=True, seed=1)
    trailing.roll((6, 1))
    trailing.play(trailing.legal_moves()[0])
    assert trailing.turn == 1 and "Holland" in (trailing.why_not_double() or "")


# ------------------------------------------------------------------ item 3: VecEnv arguments


@pytest.mark.parametrize(
    "choice",
    [[0.7, 0.7], [0.0, 0.0], np.array([0.0, 1.0]), [True, False], np.array([True, True]),
     ["0", "0"], [None, None], [0, 1 + 0j]],
)  # fmt: skip
def test_vecenv_step_requires_integers(choice: Any) -> None:
    env = VecEnv(2, seed=1)
    env.reset()
    positions = env.positions.copy()
    with pytest.raises(BgfastError, match="integer"):
        env.step(choice)
    assert (env.positions == positions).all()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint64])
def test_vecenv_step_accepts_any_integer_dtype(dtype: Any) -> None:
    a, b = VecEnv(2, seed=1), VecEnv(2, seed=1)
    a.reset()
    b.reset()
    ra, da = a.step(np.array([1, 2], dtype=dtype))
    rb, db = b.step([1, 2])
    assert (a.positions == b.positions).all() and (ra == rb).all() and (da == db).all()


def test_vecenv_step_refuses_a_choice_beyond_int64() -> None:
    env = VecEnv(2, seed=1)
    env.reset()
    with pytest.raises(bgfast.IllegalMoveError, match="18446744073709551615"):
        env.step(np.array([2**64 - 1, 0], dtype=np.uint64))
    # As Python ints too, of any size, named as given (numpy would make floats of them).
    with pytest.raises(bgfast.IllegalMoveError, match=str(2**70)):
        env.step([2**70, 0])
    with pytest.raises(BgfastError, match="expected 2 choices"):
        env.step([0, 2**63, 0])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n": 0}, "n"),
        ({"n": 2**22 + 1}, "n"),
        ({"n": -3}, "n"),
        ({"n": 4.0}, "n"),
        ({"n": True}, "n"),
        ({"n": "4"}, "n"),
        ({"n": 4, "seed": -1}, "seed"),
        ({"n": 4, "seed": 2**64}, "seed"),
        ({"n": 4, "seed": 1.5}, "seed"),
        ({"n": 4, "seed": False}, "seed"),
        ({"n": 4, "scheme": "nope"}, "scheme"),
        ({"n": 4, "scheme": 3}, "scheme"),
        ({"n": 4, "scheme": ["tesauro198"]}, "scheme"),
    ],
)
def test_vecenv_checks_n_seed_and_scheme(kwargs: dict[str, Any], name: str) -> None:
    # A value out of range is a BgfastError, one of another type a TypeError; both name it.
    with pytest.raises((BgfastError, TypeError), match=name):
        VecEnv(**kwargs)


def test_vecenv_accepts_the_ends_of_the_ranges() -> None:
    VecEnv(1, seed=0)
    VecEnv(1, seed=2**64 - 1)
    VecEnv(1, seed=np.uint64(2**64 - 1))  # numpy integers are integers


def test_vecenv_step_scores_refuses_nan_and_non_numbers() -> None:
    env = VecEnv(2, seed=1)
    env.reset()
    _, offsets = env.candidates()
    m = int(offsets[-1])
    positions = env.positions.copy()
    for bad in ([float("nan")] * m, ["x"] * m, [True] * m):
        with pytest.raises(BgfastError, match="score"):
            env.step_scores(bad)
    assert (env.positions == positions).all()


def test_vecenv_settings_are_read_only() -> None:
    """env.seed = -1 then reset() reached the native batch with an unchecked seed."""
    env = VecEnv(2, seed=1)
    for name, value in (("n", 3), ("seed", -1), ("scheme", "nope"), ("width", 5)):
        with pytest.raises(AttributeError):
            setattr(env, name, value)
    assert (env.n, env.seed, env.scheme, env.width) == (2, 1, "tesauro198", 198)
    env.reset()


@pytest.mark.parametrize("call_candidates", [True, False])
def test_vecenv_step_scores_compares_float64_scores_exactly(call_candidates: bool) -> None:
    """step_scores cast float64 scores to float32, so 1.0 and 1.0 + 1e-9 tied and the
    first candidate was played instead of the highest-scored one."""
    env, same = VecEnv(3, seed=1), VecEnv(3, seed=1)
    env.reset()
    same.reset()
    _, offsets = env.candidates() if call_candidates else same.candidates()
    scores = np.ones(int(offsets[-1]))
    scores[offsets[:-1] + 1] += 1e-9  # the second candidate of each game is the best
    env.step_scores(scores)
    same.step(np.ones(3, dtype=np.int64))
    assert (env.positions == same.positions).all()
    with pytest.raises(BgfastError):
        env.step_scores(scores[:-1])


def test_segment_argmax_checks_its_inputs() -> None:
    from bgfast.vecenv import segment_argmax

    assert segment_argmax([1, 3, 2, 5], np.array([0, 3, 4])).tolist() == [1, 0]
    for scores, offsets in (
        ([1.0, float("nan")], [0, 2]),
        ([1.0, 2.0], [0, 3]),
        ([1.0, 2.0], [1, 2]),
        ([1.0, 2.0], [0, 2, 1, 2]),
        ([1.0, 2.0], [0.0, 2.0]),
        ([1.0, 2.0], []),
        (["a", "b"], [0, 2]),
    ):
        with pytest.raises(BgfastError):
            segment_argmax(scores, np.array(offsets))


# ------------------------------------------------------------------ item 4: FIBS board fields


def _fibs_line() -> str:
    game = Game(match_length=7, seed=1)
    game.roll((6, 1))
    game.play("8/2 6/5")
    game.roll((3, 1))
    return game.fibs_board()


@pytest.mark.parametrize("index", range(3, 53))
@pytest.mark.parametrize(
    "value",
    ["0", "1", "3", "256", "-256", "99999999999999999999", "-1", "70000", "+1", " 1", "1_0",
     "\u0661"],
)  # fmt: skip
def test_fibs_board_every_field_is_range_checked(index: int, value: str) -> None:
    """An edited field is refused with InvalidIdError, or, if the edit is a valid line, the
    game read writes the same line back (nothing in it was ignored)."""
    parts = _fibs_line().split(":")
    parts[index] = value
    line = ":".join(parts)
    try:
        game = Game.from_fibs_board(line)
    except InvalidIdError:
        return
    written = game.fibs_board().split(":")
    if index in (41, 42, 43, 44):
        # another layout FIBS allows (colour, direction, home, bar): the same board seen
        # another way, written back in gnubg's layout, which reads back to the same state
        assert Game.from_fibs_board(game.fibs_board()).state == game.state
        return
    if index in (49, 50, 52):
        # can-move and forced-move (derived; gnubg writes 0) and the last field (FIBS's
        # redoubles, gnubg's not-Crawford flag, written from the state)
        parts[index] = written[index]
    assert written == parts


def test_fibs_board_error_names_the_field() -> None:
    parts = _fibs_line().split(":")
    parts[10] = "300"  # a board point
    with pytest.raises(InvalidIdError, match="point"):
        Game.from_fibs_board(":".join(parts))
    parts = _fibs_line().split(":")
    parts[37] = "300"  # the cube
    with pytest.raises(InvalidIdError, match="cube"):
        Game.from_fibs_board(":".join(parts))
    parts = _fibs_line().split(":")
    parts[3] = "99999"
    with pytest.raises(InvalidIdError, match="match length"):
        Game.from_fibs_board(":".join(parts))


# ------------------------------------------------------------------ item 5: damaged saves


@pytest.mark.parametrize("cls", [Game, Match, Chouette])
@pytest.mark.parametrize(
    "text",
    ["[" * 100000, "{" * 100000, '{"a":' * 100000, "[" * 900 + "]" * 900, "NaN", "1e999"],
)
def test_damaged_text_is_an_invalid_save(cls: Any, text: str) -> None:
    with pytest.raises(InvalidSaveError):
        cls.from_json(text)


@pytest.mark.parametrize("cls", [Game, Match, Chouette])
def test_a_save_of_the_wrong_type_is_a_type_error(cls: Any) -> None:
    with pytest.raises(TypeError):
        cls.from_json(12)


def _game_doc() -> dict[str, Any]:
    game = Game(seed=3, rules=Rules(beavers=True))
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.take()
    return json.loads(game.to_json())  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(setup=[1, 2]),
        lambda d: d.update(events={"a": 1}),
        lambda d: d["setup"].update(rules=[1]),
        lambda d: d["setup"].update(cube=[1]),
        lambda d: d["setup"].update(cube={"value": "1"}),
        lambda d: d["setup"].update(score={"a": 1}),
        lambda d: d["setup"].update(score=[10**4000, 0]),
        lambda d: d["setup"].update(seed="7"),
        lambda d: d["setup"].update(seed=[7]),
        lambda d: d["setup"].update(draws=float("nan")),
        lambda d: d["setup"].update(position=7),
        lambda d: d["setup"].update(position=None),
        lambda d: d["setup"].update(offer=[0, 2]),
        lambda d: d["setup"].update(phase="doubled", turn=0, offer=7),
        lambda d: d["setup"].update(phase="resign", turn=0, resign=5),
        lambda d: d["setup"].update(phase="resign", turn=0, resign=[0]),
        lambda d: d["setup"].update(phase=["roll"]),
        lambda d: d["setup"].update(turns="ab"),
        lambda d: d["setup"].update(autos=True),
        lambda d: d["setup"].pop("dice"),
        lambda d: d["events"].append([1]),
        lambda d: d["events"].append({"type": ["roll"]}),
        lambda d: d["events"].append({"type": {"a": 1}}),
        lambda d: d["events"].append({"type": "roll", "dice": {"a": 1}}),
        lambda d: d["events"].append({"type": "roll", "dice": [3, 1], "random": [1]}),
        lambda d: d["events"].append({"type": "move", "move": ["8/5"]}),
        lambda d: d["events"].append({"type": "resign", "kind": ["single"]}),
        lambda d: d["events"].append({"type": "resign", "kind": "single", "player": [0]}),
        lambda d: d.update(state=[1]),
        lambda d: d.update(version=[1]),
        lambda d: d.update(format=["bgfast-game"]),
        lambda d: d.update(extra=1),
        lambda d: d["setup"].update(extra=1),
        lambda d: d["setup"].update(table=0),
        lambda d: d["setup"].update(crawford=[]),
        lambda d: d["setup"].update(score=[0, 0.0]),
    ],
)
def test_damaged_game_record_is_an_invalid_save(edit: Any) -> None:
    doc = _game_doc()
    edit(doc)
    with pytest.raises(InvalidSaveError):
        Game.from_json(_reseal(doc))
    with pytest.raises(InvalidSaveError):
        Game.from_dict(json.loads(_reseal(doc)))


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(games={"a": 1}),
        lambda d: d.update(games=[[1]]),
        lambda d: d.update(length="7"),
        lambda d: d.update(length=10**4000),
        lambda d: d.update(rules=None),
        lambda d: d.update(seed=None),
        lambda d: d.update(holland="yes"),
        lambda d: d.update(table=[]),
        lambda d: d.pop("games"),
        lambda d: d["games"].append(None),
        lambda d: d.update(extra=1),
        lambda d: d.update(holland=0),
        lambda d: d["games"][0].update(extra=1),
    ],
)
def test_damaged_match_record_is_an_invalid_save(edit: Any) -> None:
    match = Match(5, seed=2)
    _finish(match.new_game(), illegal_bear_off=False)
    match.new_game()
    doc = json.loads(match.to_json())
    edit(doc)
    with pytest.raises(InvalidSaveError):
        Match.from_json(_reseal(doc))


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(players="ABC"),
        lambda d: d.update(players=[1, 2, 3]),
        lambda d: d.update(players=[["A"], ["B"], ["C"]]),
        lambda d: d.update(options=[1]),
        lambda d: d.update(options={"jacoby": 1}),
        lambda d: d.update(history={"a": 1}),
        lambda d: d.update(history=[[1]]),
        lambda d: d["history"][0].update(rolls=[1, 2, 3]),
        lambda d: d["history"][0].update(rolls={"A": [[6]], "B": [4], "C": [2]}),
        lambda d: d["history"].append({"type": "box_double", "answers": [1]}),
        lambda d: d["history"].append({"type": "team_double", "agreeing": 5, "answer": "take"}),
        lambda d: d["history"].append({"type": "end", "winner": ["box"], "kind": 1, "cubes": 1}),
        lambda d: d["history"].append({"type": ["start"]}),
        lambda d: d.update(form=["team-cube"]),
    ],
)
def test_damaged_chouette_record_is_an_invalid_save(edit: Any) -> None:
    c = Chouette(["A", "B", "C"], rolls={"A": 6, "B": 4, "C": 2})
    c.start_game()
    doc = json.loads(c.to_json())
    edit(doc)
    with pytest.raises(InvalidSaveError):
        Chouette.from_json(_reseal(doc, "sha256:"))


@pytest.mark.parametrize("flag", ["crawford", "holland", "table"])
def test_game_and_match_flags_are_bools(flag: str) -> None:
    with pytest.raises(MatchOptionError, match=flag):
        Game(match_length=3, score=(2, 0), **{flag: 1})  # type: ignore[arg-type]
    if flag != "crawford":
        with pytest.raises(MatchOptionError, match=flag):
            Match(3, **{flag: "yes"})  # type: ignore[arg-type]


def test_chouette_file_error_is_an_invalid_save_error() -> None:
    from bgfast.chouette import ChouetteFileError

    assert issubclass(ChouetteFileError, InvalidSaveError)


# ------------------------------------------------------------------ item 6: XGID beaver/raccoon


def _raccoon_game() -> Game:
    game = Game(seed=1, rules=Rules(beavers=True, raccoons=True))
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.beaver()
    game.raccoon()
    return game


def test_xgid_of_a_pending_raccoon_reads_back() -> None:
    game = _raccoon_game()
    xgid = game.xgid()
    assert xgid.split(":")[4] == "R"
    back = Game.from_xgid(xgid)
    assert (back.offer_kind, back.offered_cube, back.cube.value, back.player_to_act) == (
        game.offer_kind,
        game.offered_cube,
        game.cube.value,
        game.player_to_act,
    )
    assert back.rules.raccoons and back.rules.beavers
    assert back.xgid() == xgid
    back.take()
    assert (back.cube.value, back.cube.owner) == (8, 0)


def test_xgid_beaver_or_raccoon_without_the_beaver_flag_is_refused() -> None:
    xgid = _raccoon_game().xgid().split(":")
    for action in ("B", "R"):
        xgid[4], xgid[7] = action, "1"  # Jacoby only: beavers not allowed
        with pytest.raises(InvalidIdError, match="beaver"):
            Game.from_xgid(":".join(xgid))


def test_xgid_of_a_finished_game_is_refused() -> None:
    game = Game(seed=1)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.drop()
    with pytest.raises(GameStateError, match="over"):
        game.xgid()


def test_xgid_round_trip_keeps_the_default_cube_limit() -> None:
    game = Game(seed=1)
    game.roll((3, 1))
    assert Game.from_xgid(game.xgid()).rules == game.rules


# ------------------------------------------------------------------ item 7: chouette cube limit


def _double(c: Chouette, side: str) -> None:
    if side == "box":
        c.box_double({m: "take" for m in c.active_members})
    elif c.form == "team-cube":
        c.team_double(c.active_members, "take")
    else:
        for m in c.active_members:
            c.member_double(m, "take")


@pytest.mark.parametrize("form", ["team-cube", "per-member-cubes"])
@pytest.mark.parametrize("first", ["box", "team"])
def test_chouette_cube_stops_at_the_game_cube_limit(form: str, first: str) -> None:
    c = Chouette(["A", "B", "C"], form, rolls={"A": 6, "B": 4, "C": 2})  # type: ignore[arg-type]
    c.start_game()
    other = "team" if first == "box" else "box"
    for i in range(15):
        _double(c, first if i % 2 == 0 else other)
    assert {c.cube(m).value for m in c.active_members} == {32768}
    assert c.members_box_may_double() == c.members_who_may_double() == ()
    before = c.to_json()
    with pytest.raises(GameStateError, match="32768"):
        _double(c, other)
    assert c.to_json() == before
    assert Chouette.from_json(before) == c


# ------------------------------------------------------------------ item 8: fuzzing, review


@pytest.mark.parametrize("player", [0.0, 1.0, np.float64(1.0), True, "0", None, 2])
def test_a_player_is_the_int_0_or_1(player: Any) -> None:
    """``0.0 in (0, 1)`` is true in Python: a float passed the player checks and reached an
    ``assert`` inside Game (found by the stateful Game machine)."""
    from bgfast.cube import Cube

    game = Game(seed=1)
    game.roll((3, 1))
    before = game.to_json()
    if player is not None:
        with pytest.raises(GameStateError, match="0 or 1"):
            game.resign("single", player)
    assert game.to_json() == before
    match = Match(3, seed=1)
    with pytest.raises(GameStateError, match="0 or 1"):
        match.away(player)
    with pytest.raises(GameStateError, match="0 or 1"):
        match.equity(player)
    if player is not None:
        with pytest.raises(bgfast.MatchOptionError, match="owner"):
            Cube(value=2, owner=player)
        with pytest.raises(GameStateError, match="0 or 1"):
            Cube().why_not_double(player)
    assert game.resign("single", np.int64(1)) is None  # numpy integers are integers


@pytest.mark.parametrize("flag", ["enabled", "beavers", "raccoons"])
def test_cube_flags_are_bools(flag: str) -> None:
    from bgfast.cube import Cube

    with pytest.raises(bgfast.MatchOptionError, match=flag):
        Cube(**{flag: 1})  # type: ignore[arg-type]


def test_match_id_dice_written_lower_first_decode_higher_first() -> None:
    """A Match ID with the lower die first decoded as written, so decoding what encoding
    wrote gave other fields (found by the Match ID decoder fuzz test)."""
    from bgfast.ids import decode_match_id, encode_match_id

    fields = decode_match_id("00A10000000A")
    assert fields.dice == (5, 2)
    assert decode_match_id(encode_match_id(fields)) == fields


@pytest.mark.parametrize("seed", [2**64, -(2**64), 10**5000], ids=["2**64", "-2**64", "10**5000"])
def test_seeds_are_at_most_64_bits(seed: int) -> None:
    """A seed of 4,300 digits or more made roll() and to_json() raise ValueError (Python's
    int-to-text limit) instead of being refused."""
    with pytest.raises(MatchOptionError, match="seed"):
        Game(seed=seed)
    with pytest.raises(MatchOptionError, match="seed"):
        Match(3, seed=seed)
    Game(seed=2**64 - 1).roll()
    Game(seed=-(2**64) + 1).roll()


def test_errors_that_echo_a_huge_int_are_still_errors() -> None:
    """An int of more than 4,300 digits has no text form: every message that echoed such
    an argument raised ValueError instead of the refusal it meant."""
    from bgfast import met
    from bgfast.cube import Cube
    from bgfast.ids import MatchIdFields, encode_match_id

    huge = 10**5000
    chouette = Chouette(["A", "B", "C"], rolls={"A": 6, "B": 4, "C": 2})
    chouette.start_game()
    calls = [
        lambda: Game(seed=huge),
        lambda: Game(match_length=huge),
        lambda: Game(match_length=7, score=(huge, 0)),
        lambda: Game(seed=1).roll((huge, 1)),
        lambda: Match(huge),
        lambda: Match(3).away(huge),
        lambda: Rules(auto_doubles=huge),
        lambda: Rules(max_cube=huge),
        lambda: Cube(value=huge),
        lambda: Cube(owner=huge),
        lambda: VecEnv(huge),
        lambda: VecEnv(1, seed=huge),
        lambda: met.equity(huge, 1),
        lambda: met.take_point(2, 2, huge),
        lambda: encode_match_id(MatchIdFields(cube_value=huge)),
        lambda: Chouette(["A", "B", huge]),
        lambda: Chouette(["A", "B", "C"], rolls={"A": huge, "B": 1, "C": 2}),
        lambda: Chouette(["A", "B", "C"], form=huge),  # type: ignore[arg-type]
        lambda: chouette.end_game(huge),  # type: ignore[arg-type]
        lambda: chouette.end_game("box", "single", {"B": huge, "C": 1}),
        lambda: chouette.box_double({huge: "take"}),  # type: ignore[dict-item]
        lambda: chouette.team_double(["B", "C"], huge),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(BgfastError, match="bits"):
            call()


@pytest.mark.parametrize("flag", ["jacoby", "beavers", "raccoons", "backgammon_counts_double"])
def test_rules_flags_are_bools(flag: str) -> None:
    with pytest.raises(MatchOptionError, match=flag):
        Rules(**{flag: 1})  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", [Game, Match, Chouette])
def test_a_saved_file_that_is_not_utf8_is_an_invalid_save(cls: Any, tmp_path: Any) -> None:
    """Game.load and Match.load read text, so bytes that are not UTF-8 raised
    UnicodeDecodeError; they now read bytes, as Chouette.load does."""
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidSaveError):
        cls.load(path)
    game = Game(seed=1)
    game.save(tmp_path / "game.json")
    assert Game.load(tmp_path / "game.json") == game


def test_roll_off_checks_its_arguments() -> None:
    """roll_off(players, rng=5) raised AttributeError; a string rolled for its letters."""
    from bgfast.chouette import IllegalChouetteActionError, roll_off

    with pytest.raises(TypeError, match="rng"):
        roll_off(["A", "B", "C"], rng=5)  # type: ignore[arg-type]
    for players in ("ABC", ["A", "A", "B"], [["A"], "B", "C"], 5):
        with pytest.raises(IllegalChouetteActionError):
            roll_off(players)  # type: ignore[arg-type]
    rolls = roll_off(["A", "B", "C"], random.Random(1))
    assert Chouette(["A", "B", "C"], rolls=rolls).players == ("A", "B", "C")


@pytest.mark.parametrize("resigner", ["doubler", "taker"])
def test_match_id_of_a_resignation_while_a_double_waits(resigner: str) -> None:
    """The Match ID of a resignation offered while a double waited dropped the doubled
    flag, so it read back without the double (found by the GNUbg ID decoder fuzz test)."""
    game = Game(seed=1)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()  # player 1 doubles
    game.resign("gammon", 1 if resigner == "doubler" else 0)
    back = Game.from_gnubg_id(game.gnubg_id())
    assert back.gnubg_id() == game.gnubg_id()
    assert (back.phase, back.offer_kind, back.offered_cube, back.cube.value) == (
        "resign",
        "double",
        2,
        1,
    )
    assert back.resignation == game.resignation
    back.reject()
    assert (back.phase, back.player_to_act) == ("doubled", 0)
