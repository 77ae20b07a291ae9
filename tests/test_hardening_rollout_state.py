"""An adversarial pass over rollouts of a ``GameState``: states in every phase, from games
and matches (the Holland rule after a Crawford game), from GNUbg IDs and XGIDs, money
states with the Jacoby rule, beavers, automatic doubles and cube limits, the dice and plays
of ``rollout_moves``, executors, Python policies and progress, and the invariants of the
Holland wait (the same wait gives the same bits; a play's rollout is the rollout of the
state after it)."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest
from holland_states import CONTACT, post_crawford

import bgfast
from bgfast import Chouette, Game, GameState, Match, Position, Rules, codec
from bgfast.scoring import HOLLAND_RULE, holland_wait_plies

# CONTACT's mover is on the bar: 3-1 has one play.
# The standard start: 6-4 and doubles give several plays.
OPENING = Position()
QUICK: dict[str, Any] = {"games": 72, "seed": 5, "truncate": 2}
CUBEFUL: dict[str, Any] = {"cubeful": True, "games": 200, "seed": 9, "truncate": 6}


def money(rules: Rules | None = None, **changes: Any) -> GameState:
    """A money state on roll in the contact position, built from the rules' own cube."""
    start = GameState.start(rules=rules)
    fields: dict[str, Any] = {"position": CONTACT, "phase": "roll", "turn": 0}
    fields.update(changes)
    return start.replace(**fields)


def post_crawford_game() -> Game:
    """The first post-Crawford game of a 5-point match with the Holland rule at 2-4,
    reached by play: player 0, the trailer, has won the opening roll with 3-1."""
    match = Match(5, holland=True, seed=1)
    for winner in (1, 1, 0):  # gammons: 0-2, 0-4, then the Crawford game: 2-4
        game = match.new_game()
        game.roll((3, 1) if winner == 0 else (1, 3))
        game.play(game.legal_moves()[0])
        game.resign("gammon", player=1 - winner)
        game.accept()
    game = match.new_game()
    assert (game.state.post_crawford, game.state.holland, match.score) == (True, True, (2, 4))
    game.roll(3, 1)
    return game


def mwcs(results: list[bgfast.MoveRollout]) -> list[tuple[str, float | None]]:
    return [(str(r.move), r.result.mwc) for r in results]


# ------------------------------------------------------------------ states in every phase


def finished_game() -> GameState:
    game = Game(seed=2)
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.resign("single")
    game.accept()
    return game.state


def resigning_game() -> GameState:
    game = Game(seed=2)
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.resign("single")
    return game.state


def resigning_with_dice() -> GameState:
    game = Game(seed=2)
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.roll(4, 2)
    game.resign("single")
    assert game.state.dice == (4, 2)
    return game.state


def doubled_game() -> GameState:
    game = Game(seed=2)
    game.roll(3, 1)
    game.play("8/5 6/5")
    game.double()
    return game.state


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (GameState.start, bgfast.BgfastError, "R3"),
        (doubled_game, bgfast.BgfastError, "R19"),
        (resigning_game, bgfast.BgfastError, "resignation waits"),
        (resigning_with_dice, bgfast.BgfastError, "resignation waits"),
        (finished_game, bgfast.GameOverError, "R15"),
    ],
)
@pytest.mark.parametrize("job", ["rollout", "rollout_moves", "rollout_cube"])
def test_a_state_off_roll_is_refused_by_every_rollout(
    make: Callable[[], GameState], error: type[Exception], words: str, job: str
) -> None:
    state = make()
    kept = state.to_dict()
    args: tuple[Any, ...] = (state, (3, 1)) if job == "rollout_moves" else (state,)
    with pytest.raises(error, match=words):
        getattr(bgfast, job)(*args, **QUICK)
    assert issubclass(error, bgfast.BgfastError)
    assert state.to_dict() == kept


def test_a_state_of_numpy_values_rolls_out_as_plain_data() -> None:
    state = post_crawford(
        turn=np.int64(1),
        match_length=np.int64(5),
        score=(np.int64(4), np.int8(2)),
        turns_played=(np.int64(1), np.uint8(0)),
    )
    result = bgfast.rollout(state, cubeful=True, **QUICK)
    assert (
        result.mwc == bgfast.rollout(post_crawford(turns_played=(1, 0)), cubeful=True, **QUICK).mwc
    )
    assert json.loads(json.dumps(result.to_dict()))["settings"]["holland_wait_plies"] == 4
    (play,) = bgfast.rollout_moves(
        state.replace(phase="move", dice=(np.int64(3), np.int64(1))), cubeful=True, **QUICK
    )
    json.dumps(play.result.to_dict())


def test_a_refused_call_leaves_the_game_as_it_was() -> None:
    game = post_crawford_game()
    kept = game.to_dict()
    with pytest.raises(bgfast.BgfastError, match="drop score="):
        bgfast.rollout_moves(game.state, score=(2, 4), **QUICK)
    with pytest.raises(bgfast.BgfastError, match="rollout_moves"):
        bgfast.rollout(game.state, **QUICK)
    with pytest.raises(bgfast.BgfastError, match="has rolled 3-1, not 4-2"):
        bgfast.rollout_moves(game.state, (4, 2), **QUICK)
    assert game.to_dict() == kept
    assert game.phase == "move"


def test_a_staged_play_is_not_the_states_play() -> None:
    # A play staged but not committed leaves the state at the roll: its rollout is the
    # roll's, whatever the staged play.
    game = post_crawford_game()
    before = game.state
    game.move(game.legal_moves()[-1])
    assert game.staged_move is not None
    assert game.state == before
    assert mwcs(bgfast.rollout_moves(game.state, top=2, **QUICK)) == mwcs(
        bgfast.rollout_moves(before, top=2, **QUICK)
    )


# ------------------------------------------------------------------------- the stakes


def test_a_money_state_with_every_cube_option_is_its_spelled_stakes() -> None:
    rules = Rules(jacoby=True, beavers=True, max_cube=8)
    state = money(rules)
    state = state.replace(cube=state.cube.taken(0, 2))  # cube 2 on the mover's side
    spelled: dict[str, Any] = {
        "cube": (2, "mover"),
        "jacoby": True,
        "beavers": True,
        "max_cube": 8,
    }
    given = bgfast.rollout_cube(state, **QUICK)
    by_hand = bgfast.rollout_cube(CONTACT, **spelled, **QUICK)
    assert (given.no_double, given.double_take, given.action) == (
        by_hand.no_double,
        by_hand.double_take,
        by_hand.action,
    )
    assert given.results[0].settings == by_hand.results[0].settings
    # The opponent's side of the same cube: it may not double (R17).
    theirs = state.replace(turn=1)
    with pytest.raises(bgfast.BgfastError, match="R17: the opponent owns the cube"):
        bgfast.rollout_cube(theirs, **QUICK)


def test_a_state_at_its_cube_limit_or_without_a_cube_may_not_double() -> None:
    limited = money(Rules(max_cube=2))
    limited = limited.replace(cube=limited.cube.taken(0, 2))
    with pytest.raises(bgfast.BgfastError, match="R17: the cube is at its limit, 2"):
        bgfast.rollout_cube(limited, **QUICK)
    without = money(Rules(max_cube=1))
    with pytest.raises(bgfast.BgfastError, match="R17: the game is played without the cube"):
        bgfast.rollout_cube(without, **QUICK)
    # Its cubeful rollout is the one without a cube.
    given = bgfast.rollout(without, cubeful=True, **QUICK)
    assert (
        given.cubeful_equity
        == bgfast.rollout(CONTACT, cubeful=True, max_cube=1, **QUICK).cubeful_equity
    )


def test_an_automatic_double_is_the_states_centred_cube() -> None:
    game = Game(rules=Rules(auto_doubles=1), seed=3)
    game.roll(2, 2)  # a tie at the opening doubles the centred cube (R22)
    game.roll(3, 1)
    game.play(game.legal_moves()[0])
    state = game.state
    assert (state.cube.value, state.cube.owner, state.phase) == (2, None, "roll")
    given = bgfast.rollout(state, cubeful=True, **QUICK)
    spelled = bgfast.rollout(state.position, cubeful=True, cube=(2, "centred"), **QUICK)
    assert given.cubeful_equity == spelled.cubeful_equity
    assert given.settings == spelled.settings


def test_the_crawford_game_has_no_cube_and_no_crawford_rule_is_refused() -> None:
    crawford = GameState.start(match_length=5, score=(4, 2), crawford=True).replace(
        phase="roll", turn=1, position=CONTACT
    )
    with pytest.raises(bgfast.BgfastError, match="R21: the Crawford game"):
        bgfast.rollout_cube(crawford, **QUICK)
    # A state in the Crawford game of a match said to have no Crawford rule contradicts it.
    with pytest.raises(bgfast.MatchOptionError, match="no Crawford game"):
        bgfast.rollout(crawford, cubeful=True, crawford_rule=False, **QUICK)
    given = bgfast.rollout(crawford, cubeful=True, **QUICK)
    spelled = bgfast.rollout(
        CONTACT, cubeful=True, match_length=5, score=(2, 4), crawford=True, **QUICK
    )
    assert given.mwc == spelled.mwc


def test_crawford_rule_false_beside_a_post_crawford_state_is_the_matchs_setting() -> None:
    state = post_crawford(holland=False)
    given = bgfast.rollout(state, cubeful=True, crawford_rule=False, **QUICK)
    spelled = bgfast.rollout(
        CONTACT, cubeful=True, match_length=5, score=(2, 4), crawford_rule=False, **QUICK
    )
    assert given.mwc == spelled.mwc
    assert given.settings == spelled.settings


@pytest.mark.parametrize("job", ["rollout", "rollout_cube"])
def test_a_state_decoded_from_an_id_is_the_state(job: str) -> None:
    state = GameState(
        position=CONTACT, phase="roll", turn=1, match_length=7, score=(5, 2), crawford=False
    )
    run = getattr(bgfast, job)
    extra: dict[str, Any] = {"cubeful": True} if job == "rollout" else {}
    expected = run(state, **extra, **QUICK)
    for decoded in (
        codec.state_from_gnubg_id(codec.gnubg_id_of(state)),
        codec.state_from_xgid(codec.xgid_of(state)),
    ):
        got = run(decoded, **extra, **QUICK)
        assert got.mwc == expected.mwc


def test_a_rolled_state_decoded_from_an_id_rolls_out_its_dice() -> None:
    state = GameState(
        position=OPENING,
        phase="move",
        turn=1,
        dice=(6, 4),
        match_length=7,
        score=(5, 2),
        cube=bgfast.Cube(2, 0),
    )
    expected = mwcs(bgfast.rollout_moves(state, top=3, cubeful=True, **QUICK))
    spelled = bgfast.rollout_moves(
        OPENING,
        (6, 4),
        top=3,
        cubeful=True,
        match_length=7,
        score=(2, 5),
        cube=(2, "opponent"),
        **QUICK,
    )
    assert mwcs(spelled) == expected
    for decoded in (
        codec.state_from_gnubg_id(codec.gnubg_id_of(state)),
        codec.state_from_xgid(codec.xgid_of(state)),
    ):
        assert decoded.dice is not None and sorted(decoded.dice) == [4, 6]
        assert mwcs(bgfast.rollout_moves(decoded, top=3, cubeful=True, **QUICK)) == expected


def test_the_board_of_a_chouette_is_a_game_without_a_cube() -> None:
    # A chouette's board is a Game without a cube: its state rolls out cubeless play,
    # whatever the chouette's own scoring (its cubes are the members').
    chouette = Chouette(["Ann", "Bob", "Cy"], rolls={"Ann": 6, "Bob": 4, "Cy": 2})
    chouette.start_game()
    chouette.roll(3, 1)
    board = chouette.game
    assert board is not None
    chouette.play(board.legal_moves()[0])
    board = chouette.game
    assert board is not None
    state = board.state
    with pytest.raises(bgfast.BgfastError, match="without the cube"):
        bgfast.rollout_cube(state, **QUICK)
    given = bgfast.rollout(state, **QUICK)
    assert given.equity == bgfast.rollout(state.position, max_cube=1, **QUICK).equity


# -------------------------------------------------------------- stake arguments beside it


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("cube", (2, "centred")),
        ("jacoby", True),
        ("beavers", True),
        ("match_length", 7),
        ("score", (1, 1)),
        ("crawford", False),
        ("max_cube", 64),
    ],
)
@pytest.mark.parametrize("job", ["rollout", "rollout_moves", "rollout_cube"])
def test_each_stake_argument_beside_a_state_is_refused_by_name(
    name: str, value: object, job: str
) -> None:
    state = post_crawford(holland=False)
    args: tuple[Any, ...] = (state, (3, 1)) if job == "rollout_moves" else (state,)
    with pytest.raises(bgfast.BgfastError, match=f"drop {name}=$"):
        getattr(bgfast, job)(*args, **{name: value}, **QUICK)


def outcome(**arguments: Any) -> str | None:
    """What a rollout of the post-Crawford state says to ``arguments``: ``None`` when it
    runs, else its message."""
    try:
        bgfast.rollout(post_crawford(), games=1, seed=1, truncate=0, **arguments)
    except bgfast.BgfastError as error:
        return str(error)
    return None


@pytest.mark.parametrize(
    ("name", "default", "spelt"),
    [
        ("score", (0, 0), [0, 0]),
        ("score", (0, 0), np.array([0, 0])),
        ("match_length", 0, np.int64(0)),
        ("jacoby", False, np.False_),
        ("cube", (1, "centred"), [1, "centred"]),
    ],
)
def test_a_default_spelt_otherwise_is_judged_as_the_default(
    name: str, default: object, spelt: object
) -> None:
    assert outcome(**{name: spelt}) == outcome(**{name: default})


def test_met_beside_a_state_is_the_matchs_table() -> None:
    state = post_crawford(holland=False)
    with pytest.raises(bgfast.BgfastError, match="no-such-table"):
        bgfast.rollout(state, cubeful=True, met="no-such-table", **QUICK)
    others = [t for t in bgfast.met.table_names() if t != bgfast.met.DEFAULT_TABLE]
    assert others
    for table in others[:1]:
        given = bgfast.rollout(state, cubeful=True, met=table, **QUICK)
        spelled = bgfast.rollout(
            CONTACT,
            cubeful=True,
            match_length=5,
            score=(2, 4),
            crawford=False,
            met=table,
            **QUICK,
        )
        assert given.settings["met"] == table
        assert given.mwc == spelled.mwc


BACKGAMMONS = Position.from_id("/w8AAHD//gAAAA")  # the opponent's 3 checkers on the bar


@pytest.mark.parametrize("job", ["rollout", "rollout_moves"])
def test_a_state_scoring_a_backgammon_as_a_gammon_is_refused_or_scored_so(job: str) -> None:
    state = money(Rules(backgammon_counts_double=True), position=BACKGAMMONS)
    settings: dict[str, Any] = {"games": 200, "seed": 1, "policy": "pubeval"}
    try:
        if job == "rollout":
            result = bgfast.rollout(state, **settings)
        else:
            result = bgfast.rollout_moves(state, (6, 5), **settings)[0].result
    except bgfast.BgfastError as error:
        assert "backgammon" in str(error)
        return
    assert result.win_backgammon > 0  # the option changes what these games score
    # A backgammon scored as a gammon: the equity leaves the backgammon columns out.
    counted = result.win - result.lose + result.win_gammon - result.lose_gammon
    assert result.equity == pytest.approx(counted, abs=1e-9)


def test_a_cube_decision_scoring_a_backgammon_as_a_gammon_is_refused_or_scored_so() -> None:
    settings: dict[str, Any] = {"games": 200, "seed": 1}
    as_three = bgfast.rollout_cube(money(position=BACKGAMMONS), **settings)
    state = money(Rules(backgammon_counts_double=True), position=BACKGAMMONS)
    try:
        as_two = bgfast.rollout_cube(state, **settings)
    except bgfast.BgfastError as error:
        assert "backgammon" in str(error)
        return
    assert as_three.results[0].win_backgammon > 0
    assert (as_two.no_double, as_two.double_take) != (as_three.no_double, as_three.double_take)


# ------------------------------------------------------------- rollout_moves of a state


@pytest.mark.parametrize(
    "dice",
    [None, (6, 4), (4, 6), [4, 6], np.array([6, 4]), (np.int64(4), np.int8(6))],
)
def test_the_dice_beside_a_rolled_state_may_be_its_roll_in_any_spelling(dice: Any) -> None:
    rolled = money(position=OPENING, phase="move", dice=(6, 4))
    expected = mwcs(bgfast.rollout_moves(OPENING, (6, 4), top=3, **QUICK))
    assert mwcs(bgfast.rollout_moves(rolled, dice, top=3, **QUICK)) == expected


def test_doubles_rolled_by_a_state_are_its_candidates() -> None:
    rolled = money(position=OPENING, phase="move", dice=(4, 4))
    got = bgfast.rollout_moves(rolled, top=3, **QUICK)
    assert mwcs(got) == mwcs(bgfast.rollout_moves(rolled, (4, 4), top=3, **QUICK))
    assert {r.move.result for r in got} <= {m.result for m in OPENING.moves(4, 4)}
    with pytest.raises(bgfast.BgfastError, match="has rolled 4-4, not 2-2"):
        bgfast.rollout_moves(rolled, (2, 2), **QUICK)


@pytest.mark.parametrize("dice", [(7, 1), (0, 3), (3,), "31"])
def test_bad_dice_beside_a_state_are_refused_as_dice(dice: Any) -> None:
    with pytest.raises(bgfast.InvalidDiceError):
        bgfast.rollout_moves(money(position=OPENING, phase="move", dice=(3, 1)), dice, **QUICK)
    with pytest.raises(bgfast.InvalidDiceError):
        bgfast.rollout_moves(money(position=OPENING), dice, **QUICK)


def test_a_state_on_roll_takes_the_dice_given() -> None:
    state = money(position=OPENING)
    assert mwcs(bgfast.rollout_moves(state, (3, 1), top=2, **QUICK)) == mwcs(
        bgfast.rollout_moves(OPENING, (3, 1), top=2, **QUICK)
    )
    with pytest.raises(bgfast.InvalidDiceError):
        bgfast.rollout_moves(state, **QUICK)


def test_moves_and_top_with_a_state() -> None:
    rolled = money(position=OPENING, phase="move", dice=(6, 4))
    legal = OPENING.moves(6, 4)
    chosen = bgfast.rollout_moves(rolled, moves=[legal[0], str(legal[1])], **QUICK)
    assert {r.move.result for r in chosen} == {legal[0].result, legal[1].result}
    with pytest.raises(bgfast.IllegalMoveError):
        bgfast.rollout_moves(rolled, moves=[Position().moves(3, 1)[0]], **QUICK)
    with pytest.raises(bgfast.IllegalMoveError):
        bgfast.rollout_moves(rolled, moves=["8/1"], **QUICK)
    with pytest.raises(TypeError, match="a list of plays"):
        bgfast.rollout_moves(rolled, moves=str(legal[0]), **QUICK)
    with pytest.raises(bgfast.BgfastError, match="top= ranks the plays"):
        bgfast.rollout_moves(rolled, top=2, policy="random", games=10, seed=1)
    assert len(bgfast.rollout_moves(rolled, top=2, **QUICK)) == 2


# ---------------------------------------------------- executors, policies and progress


def test_a_process_pool_plays_a_holland_state_as_one_thread_does() -> None:
    state = post_crawford()
    settings: dict[str, Any] = {
        "cubeful": True,
        "games": 10_050,  # two shards
        "seed": 3,
        "truncate": 5,
        "policy": "random",
        "evaluator": "wildbg",
    }
    alone = bgfast.rollout(state, threads=1, **settings)
    seen: list[tuple[int, int]] = []
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = bgfast.rollout(
            state, executor=pool, progress=lambda d, n: seen.append((d, n)), **settings
        )
    assert remote.mwc == alone.mwc
    assert remote.settings == alone.settings
    assert remote.settings["holland_wait_plies"] == 4
    assert seen[-1] == (10_050, 10_050)
    with ThreadPoolExecutor(max_workers=2) as pool:
        moves = bgfast.rollout_moves(
            state.replace(phase="move", dice=(3, 1)), executor=pool, **CUBEFUL
        )
    assert mwcs(moves) == mwcs(
        bgfast.rollout_moves(state.replace(phase="move", dice=(3, 1)), threads=1, **CUBEFUL)
    )


def test_a_thread_pool_plays_a_states_cube_decision_as_one_thread_does() -> None:
    spent = post_crawford(turns_played=(2, 2))
    with ThreadPoolExecutor(max_workers=2) as pool:
        remote = bgfast.rollout_cube(spent, executor=pool, **QUICK)
    alone = bgfast.rollout_cube(spent, threads=1, **QUICK)
    assert (remote.mwc, remote.action) == (alone.mwc, alone.action)


def test_threads_and_an_executor_beside_a_state_are_refused() -> None:
    with (
        ThreadPoolExecutor(max_workers=1) as pool,
        pytest.raises(bgfast.BgfastError, match="threads=2"),
    ):
        bgfast.rollout(post_crawford(), executor=pool, threads=2, **QUICK)


WEIGHTS = np.random.default_rng(0).standard_normal(198).astype(np.float32)


def linear(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """A policy scoring each candidate by its own features alone."""
    return features @ WEIGHTS


def test_a_python_policy_keeps_the_holland_wait() -> None:
    net = bgfast.Net.wildbg()
    settings: dict[str, Any] = {"games": 200, "seed": 3, "truncate": 1, "evaluator": net}
    held = bgfast.rollout(post_crawford(), policy=linear, cubeful=True, **settings)
    free = bgfast.rollout(post_crawford(holland=False), policy=linear, cubeful=True, **settings)
    lines = bgfast.rollout_cube(post_crawford(holland=False), policy=linear, **settings)
    assert lines.action == "double, take"
    assert held.mwc == lines.results[0].mwc
    assert free.mwc == lines.results[1].mwc
    calls: list[tuple[int, int]] = []
    bgfast.rollout(
        post_crawford(),
        policy=linear,
        cubeful=True,
        progress=lambda d, n: calls.append((d, n)),
        **settings,
    )
    assert calls and calls[-1] == (200, 200)


def test_a_python_policy_with_an_executor_and_a_state_is_refused() -> None:
    with (
        ThreadPoolExecutor(max_workers=1) as pool,
        pytest.raises(bgfast.BgfastError, match="native policy"),
    ):
        bgfast.rollout(post_crawford(), policy=linear, evaluator="wildbg", executor=pool, **QUICK)


# ------------------------------------------------------------------- the Holland wait


@pytest.mark.parametrize(
    ("one", "other"),
    [
        # The trailer on roll, the leader has or has not rolled once: 4 plies either way.
        ({"turns_played": (0, 0)}, {"turns_played": (1, 0)}),
        # The trailer has rolled twice and waits for the leader's second turn: 2 plies
        # from its own turn, as when it has rolled once and the leader twice.
        ({"turns_played": (1, 2)}, {"turns_played": (2, 1)}),
        # Spent: the same as no Holland rule at all.
        ({"turns_played": (2, 2)}, {"holland": False}),
        ({"turns_played": (5, 4)}, {"holland": False}),
    ],
)
def test_states_whose_holland_waits_match_give_the_same_bits(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    a, b = post_crawford(**one), post_crawford(**other)
    assert holland_wait_plies(a, 1) == holland_wait_plies(b, 1)
    ra, rb = bgfast.rollout(a, **CUBEFUL), bgfast.rollout(b, **CUBEFUL)
    assert ra.mwc == rb.mwc
    assert ra.settings == rb.settings
    rolled = {"phase": "move", "dice": (3, 1)}
    by_state = mwcs(bgfast.rollout_moves(a.replace(**rolled), **CUBEFUL))
    assert by_state == mwcs(bgfast.rollout_moves(b.replace(**rolled), **CUBEFUL))
    # On roll with the dice given, or with them rolled: the same turn, the same wait.
    assert by_state == mwcs(bgfast.rollout_moves(a, (1, 3), **CUBEFUL))


def test_a_shorter_wait_is_not_the_same_rollout() -> None:
    four = bgfast.rollout(post_crawford(), **CUBEFUL)
    two = bgfast.rollout(post_crawford(turns_played=(2, 1)), **CUBEFUL)
    assert two.settings["holland_wait_plies"] == 2
    assert four.mwc != two.mwc


def test_a_cubeless_rollout_is_the_same_whatever_the_wait() -> None:
    plain: dict[str, Any] = {"games": 200, "seed": 3, "truncate": 6}
    held = bgfast.rollout(post_crawford(), **plain)
    free = bgfast.rollout(post_crawford(holland=False), **plain)
    assert (held.equity, held.mwc) == (free.equity, free.mwc)


def test_the_leader_never_doubles_and_the_trailer_waits_in_rollout_cube() -> None:
    leader = post_crawford(turn=0)
    with pytest.raises(bgfast.BgfastError, match="may not double: the cube is dead"):
        bgfast.rollout_cube(leader, **QUICK)
    for turns in [(0, 0), (1, 0), (1, 1), (2, 1), (1, 2)]:
        with pytest.raises(bgfast.BgfastError, match=HOLLAND_RULE):
            bgfast.rollout_cube(post_crawford(turns_played=turns), **QUICK)
    bgfast.rollout_cube(post_crawford(turns_played=(2, 2)), **QUICK)


def test_every_play_of_a_games_roll_is_the_rollout_of_the_state_after_it() -> None:
    game = post_crawford_game()
    before = game.state
    assert holland_wait_plies(before, 0) == 4  # the trailer, on roll, at its first turn
    results = bgfast.rollout_moves(before, top=3, **CUBEFUL)
    for r in results:
        after = before.replace(
            position=r.move.result, phase="roll", dice=None, turn=1, turns_played=(1, 0)
        )
        alone = bgfast.rollout(after, **CUBEFUL)
        assert r.result.mwc is not None and alone.mwc is not None
        assert r.result.mwc == pytest.approx(1 - alone.mwc, abs=1e-12)
    game.play(results[0].move)
    assert game.state.turns_played == (1, 0)
    played = bgfast.rollout(game.state, **CUBEFUL)
    assert played.settings["holland_wait_plies"] == 3
    assert results[0].result.mwc == pytest.approx(1 - (played.mwc or 0.0), abs=1e-12)


@pytest.mark.parametrize(
    ("turn", "turns"), [(0, (0, 0)), (1, (1, 1)), (0, (2, 1)), (1, (2, 1)), (0, (1, 2))]
)
def test_a_play_at_any_turn_is_the_state_one_ply_later(turn: int, turns: tuple[int, int]) -> None:
    rolled = post_crawford(turn=turn, turns_played=turns, phase="move", dice=(3, 1))
    (m,) = bgfast.rollout_moves(rolled, **CUBEFUL)
    played = list(turns)
    played[turn] += 1
    after = post_crawford(
        position=m.move.result, turn=1 - turn, turns_played=(played[0], played[1])
    )
    # The waits agree on the trailer's turns (the leader, 1-away, never doubles): the
    # candidate's games hold the cube one ply less than the roll's turn.
    trailer = 1
    wait = holland_wait_plies(rolled, turn)
    held = {ply for ply in range(wait) if (turn + ply) % 2 == trailer}
    later = holland_wait_plies(after, 1 - turn)
    assert held - {0} == {ply + 1 for ply in range(later) if (1 - turn + ply) % 2 == trailer}
    alone = bgfast.rollout(after, **CUBEFUL)
    assert m.result.mwc == pytest.approx(1 - (alone.mwc or 0.0), abs=1e-12)


@pytest.mark.parametrize("trailer_first", [True, False])
def test_rollout_cube_holds_the_cube_exactly_where_the_game_does(trailer_first: bool) -> None:
    # A post-Crawford game under the Holland rule, played out: at every turn on roll the
    # rollout refuses the trailer's double for the Holland rule exactly when the game does,
    # and its wait is 0 exactly when the game lets the trailer double.
    game = Game(match_length=5, score=(2, 4), holland=True, seed=7)
    game.roll((3, 1) if trailer_first else (1, 3))
    checked = 0
    while checked < 8 and not game.is_over:
        if game.phase == "move":
            game.play(game.legal_moves()[0])
            continue
        state = game.state
        assert state.turn is not None
        held_by_game = game.why_not_double() == HOLLAND_RULE
        try:
            bgfast.rollout_cube(state, games=2, seed=1, truncate=0)
            held_by_rollout = False
        except bgfast.BgfastError as error:
            held_by_rollout = HOLLAND_RULE in str(error)
        assert held_by_rollout == held_by_game
        if state.turn == 0:  # the trailer
            assert (holland_wait_plies(state, 0) > 0) == held_by_game
        checked += 1
        game.roll()


@pytest.mark.parametrize("job", ["rollout", "rollout_cube"])
def test_a_game_given_for_its_state_is_refused_naming_the_state(job: str) -> None:
    game = post_crawford_game()
    game.play(game.legal_moves()[0])
    with pytest.raises(bgfast.BgfastError, match=r"\.state"):
        getattr(bgfast, job)(game, **QUICK)
