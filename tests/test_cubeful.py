"""The cubeful model (``bgfast.cubeful``): Janowski's money formulas and their match form,
checked against GNU Backgammon's own 0-ply cube analysis, and the rules of the cube."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import cubeful
from bgfast.cubeful import Stakes, action_name, decide

import gnubg_program

DATA = Path(__file__).parent / "data"

#: Contact positions of the wildbg corpus (GNU Backgammon's cube life is 0.68 for contact).
POSITIONS = [
    line.strip()
    for line in (DATA / "wildbg_contact.csv").read_text().splitlines()[::131]
    if line.strip()
][:7]

#: Cube states: gnubg's command and ours (value, owner seen from the side to move, which
#: gnubg calls player 1 once ``set turn 1`` gives it the roll).
CUBES = [
    ("set cube centre", (1, "centred")),
    ("set cube value 2\nset cube owner 1", (2, "mover")),
    ("set cube value 2\nset cube owner 0", (2, "opponent")),
]


def _gnubg(setup: list[str], positions: list[str], cube: str) -> list[gnubg_program.Evaluation]:
    commands = [*gnubg_program.SETUP, *setup]
    for pid in positions:
        # `set turn` swaps the board: it comes first, so that gnubg evaluates `pid` itself.
        commands += ["set turn 1", f"set board {pid}", *cube.split("\n"), "eval"]
    found = gnubg_program.parse_evaluations(gnubg_program.run(commands))
    assert len(found) == len(positions)
    return found


def _check(ours: bgfast.cubeful.CubeDecision, theirs: gnubg_program.Evaluation, emg: bool) -> None:
    """Our values from gnubg's printed chances (three decimals) against gnubg's values."""
    tolerance = 0.006
    values = (
        ours.emg
        if emg
        else {
            "no_double": ours.no_double,
            "double_take": ours.double_take,
            "double_pass": ours.double_pass,
        }
    )
    assert values is not None
    if theirs.no_double is None:
        # No cube analysis: gnubg's cubeful value is the no-double one.
        assert not ours.may_double
        assert values["no_double"] == pytest.approx(theirs.cubeful, abs=tolerance)
        return
    assert ours.may_double
    assert values["no_double"] == pytest.approx(theirs.no_double, abs=tolerance)
    assert values["double_take"] == pytest.approx(theirs.double_take, abs=tolerance)
    assert values["double_pass"] == pytest.approx(theirs.double_pass, abs=tolerance)


@pytest.mark.parametrize(("command", "cube"), CUBES)
@pytest.mark.parametrize("jacoby", [False, True])
def test_money_cube_values_agree_with_gnubg(
    command: str, cube: tuple[int, str], jacoby: bool
) -> None:
    setup = [f"set jacoby {'on' if jacoby else 'off'}", "set beavers 0", "new game"]
    compared = 0
    for theirs in _gnubg(setup, POSITIONS, command):
        if theirs.evaluator in ("Contact", "Crashed"):
            _check(decide(list(theirs.probabilities), cube=cube, jacoby=jacoby), theirs, False)
            compared += 1
    assert compared >= 5


#: Scores of a 7-point match (side to move first) and whether the game is the Crawford
#: game, with each cube state the game can have (none but the centred 1 in the Crawford
#: game, R21).
MATCH_CASES = [
    (score, crawford, command, cube)
    for score, crawford in [
        ((0, 0), False),
        ((4, 3), False),
        ((3, 4), False),
        ((1, 5), False),
        ((5, 1), False),
        ((2, 6), True),
        ((6, 2), True),
        ((3, 6), False),
        ((6, 4), False),
        ((5, 5), False),
    ]
    for command, cube in CUBES
    if not crawford or cube == (1, "centred")
]


@pytest.mark.parametrize(("score", "crawford", "command", "cube"), MATCH_CASES)
def test_match_cube_values_agree_with_gnubg(
    score: tuple[int, int], crawford: bool, command: str, cube: tuple[int, str]
) -> None:
    mover, opponent = score
    setup = [
        "new match 7",
        f"set score {opponent} {mover}",
        f"set crawford {'on' if crawford else 'off'}",
    ]
    compared = 0
    for theirs in _gnubg(setup, POSITIONS, command):
        if theirs.evaluator in ("Contact", "Crashed"):
            ours = decide(
                list(theirs.probabilities),
                cube=cube,
                match_length=7,
                score=score,
                crawford=crawford,
            )
            _check(ours, theirs, emg=True)
            compared += 1
    assert compared >= 5


def test_actions_as_players_say_them() -> None:
    assert decide([0.72, 0.12, 0.0, 0.05, 0.0]).action == "double, take"
    assert decide([0.86, 0.05, 0.0, 0.02, 0.0]).action == "double, pass"
    assert decide([0.55, 0.1, 0.0, 0.1, 0.0]).action == "no double"
    assert decide([0.9, 0.6, 0.05, 0.0, 0.0]).action == "too good to double"
    assert decide([0.72, 0.12, 0.0, 0.05, 0.0], cube=(2, "mover")).action == "redouble, take"
    assert decide([0.7, 0.1, 0.0, 0.05, 0.0], cube=(2, "opponent")).action == "no double"
    assert action_name(0.1, -0.2, 1.0, redouble=False, beavers=True) == "no double"
    assert action_name(0.1, -0.2, 1.0, redouble=False, beavers=True, may_double=True) == "no double"
    assert action_name(-0.3, -0.1, 1.0, redouble=False, beavers=True) == "double, beaver"
    # Playing on beats even the pass, and the opponent would take: GNU Backgammon's "too
    # good to double, take" (a rollout's three values can fall so), no longer "no double".
    assert action_name(1.1, 0.9, 1.0, redouble=False, beavers=False) == "too good to double, take"
    assert action_name(1.1, 0.9, 1.0, redouble=True, beavers=False) == "too good to redouble, take"
    assert action_name(1.1, 1.2, 1.0, redouble=False, beavers=False) == "too good to double"
    assert action_name(0.95, 0.9, 1.0, redouble=False, beavers=False) == "no double"
    assert action_name(1.1, 0.9, 1.0, redouble=False, beavers=False, may_double=False) == (
        "no double"
    )


def test_double_pass_is_the_cube_and_values_mirror() -> None:
    p = [0.62, 0.18, 0.01, 0.09, 0.005]
    d = decide(p)
    assert d.double_pass == 1.0
    q = [1 - p[0], p[3], p[4], p[1], p[2]]
    mirror = decide(q, cube=(1, "centred"), cube_life=0.68)
    assert d.no_double == pytest.approx(-mirror.no_double)
    # A dead cube (cube life 0) is worth the cubeless equity.
    dead = decide(p, cube_life=0.0)
    assert dead.no_double == pytest.approx(2 * 0.62 - 1 + 0.18 + 0.01 - 0.09 - 0.005)


def test_stakes_seen_by_the_opponent() -> None:
    match = Stakes.check(cube=(2, "mover"), match_length=7, score=(2, 5))
    theirs = match.for_opponent()
    assert (theirs.cube_owner, theirs.score, theirs.away) == ("opponent", (5, 2), (2, 5))
    assert theirs == Stakes.check(cube=(2, "opponent"), match_length=7, score=(5, 2))
    assert theirs.for_opponent() == match
    crawford = Stakes.check(match_length=5, score=(4, 1))
    assert crawford.for_opponent().crawford and crawford.for_opponent().score == (1, 4)
    money = Stakes.check(cube=(4, "opponent"), jacoby=True, beavers=True)
    assert money.for_opponent() == Stakes.check(cube=(4, "mover"), jacoby=True, beavers=True)
    # Match values seen from either side add up to 1.
    for mover_wins in (True, False):
        both = match.match_value(mover_wins) + theirs.match_value(not mover_wins)
        assert both == pytest.approx(1.0)


def test_a_match_without_the_crawford_rule_r21() -> None:
    table = bgfast.met.load(bgfast.met.DEFAULT_TABLE)
    # The first game at 1-away: the Crawford game with the rule, else the trailer doubles.
    trailer = Stakes.check(match_length=7, score=(3, 6), crawford_rule=False)
    assert not trailer.crawford and trailer.why_no_double() is None
    assert Stakes.check(match_length=7, score=(3, 6)).why_no_double() is not None
    leader = Stakes.check(match_length=7, score=(6, 3), crawford_rule=False)
    assert "1-away leader: its double could only help the trailer" in str(leader.why_no_double())
    # Reaching 1-away is worth the post-Crawford value, not the Crawford game's.
    before = Stakes.check(match_length=7, score=(5, 4), crawford_rule=False)
    assert before.match_value(True) == table.equity(1, 3, post_crawford=True)
    assert before.for_opponent().match_value(False) == table.equity(3, 1, post_crawford=True)
    ruled = Stakes.check(match_length=7, score=(5, 4))
    assert ruled.match_value(True) == table.equity(1, 3)
    # The native model reads the same values: a double/pass that wins the match or
    # reaches 1-away.
    p = [0.7, 0.2, 0.01, 0.05, 0.0]
    free = decide(p, match_length=7, score=(5, 4), crawford_rule=False)
    assert free.double_pass == pytest.approx(table.equity(1, 3, post_crawford=True))
    assert decide(p, match_length=7, score=(5, 4)).double_pass == pytest.approx(table.equity(1, 3))
    assert before.describe()["crawford_rule"] is False
    assert "crawford_rule" not in ruled.describe()
    with pytest.raises(bgfast.MatchOptionError, match="R21"):
        Stakes.check(match_length=7, score=(6, 3), crawford=True, crawford_rule=False)
    with pytest.raises(bgfast.MatchOptionError, match="match setting"):
        Stakes.check(crawford_rule=False)


def test_match_rules_of_the_cube_r17_r20_r21() -> None:
    with pytest.raises(bgfast.MatchOptionError, match="R21"):
        Stakes.check(match_length=7, score=(6, 3), crawford=True, cube=(2, "mover"))
    crawford = decide([0.7, 0.1, 0.0, 0.05, 0.0], match_length=7, score=(6, 3))
    assert not crawford.may_double and crawford.why_not is not None and "R21" in crawford.why_not
    post = Stakes.check(match_length=7, score=(6, 3), crawford=False)
    assert post.why_no_double() is not None  # the 1-away leader
    trailer = Stakes.check(match_length=7, score=(3, 6), crawford=False)
    assert trailer.why_no_double() is None
    dmp = decide([0.37, 0.2, 0.01, 0.1, 0.02], match_length=7, score=(6, 6))
    assert dmp.no_double == pytest.approx(0.37) and dmp.emg is not None
    with pytest.raises(bgfast.MatchOptionError, match="R17"):
        Stakes.check(match_length=7, cube=(2, "centred"))
    with pytest.raises(bgfast.MatchOptionError, match="R20"):
        Stakes.check(match_length=7, score=(7, 0))
    with pytest.raises(bgfast.BgfastError, match="probabilities"):
        decide([0.5, 0.1, 0.0, 0.1])
    with pytest.raises(bgfast.BgfastError, match="probabilities"):
        decide([0.5, float("nan"), 0.0, 0.1, 0.0])


def test_cube_life_as_numpy_numbers() -> None:
    import numpy as np

    from bgfast.cubeful import check_cube_life

    assert check_cube_life(np.float32(0.5)) == 0.5 and check_cube_life(np.int64(1)) == 1.0
    with pytest.raises(bgfast.BgfastError, match="cube_life"):
        check_cube_life(np.bool_(True))
    # An array of names compared item by item ("ambiguous truth value").
    with pytest.raises(bgfast.BgfastError, match="cube_life"):
        check_cube_life(np.array(["gnubg", "gnubg"]))


# ---------------------------------------------------------------------------- the cube limit

#: A strong position for the side to move: 72% wins, some gammons.
STRONG = [0.72, 0.12, 0.0, 0.05, 0.0]
#: Its cubeless money equity.
STRONG_CUBELESS = 2 * 0.72 - 1 + 0.12 - 0.05


def test_a_cube_at_the_games_limit_is_dead_for_both_sides_R17() -> None:
    at_limit = decide(STRONG, cube=(4, "mover"), max_cube=4)
    assert not at_limit.may_double and at_limit.why_not == "R17: the cube is at its limit, 4"
    assert at_limit.action == "no redouble" and at_limit.value == at_limit.no_double
    assert at_limit.no_double == pytest.approx(STRONG_CUBELESS, abs=1e-6)
    # One double short of the limit the cube is alive: owning it is worth something.
    below = decide(STRONG, cube=(4, "mover"), max_cube=8)
    assert below.may_double and below.no_double > STRONG_CUBELESS + 0.05
    # The opponent's cube at the limit: it may not redouble either.
    theirs = decide(STRONG, cube=(4, "opponent"), max_cube=4)
    assert theirs.no_double == pytest.approx(STRONG_CUBELESS, abs=1e-6)
    # In a match the dead cube's value is the cubeless match-winning chances.
    match = {"match_length": 7, "score": (3, 4), "cube": (2, "opponent")}
    dead = decide(STRONG, **match, max_cube=2)  # type: ignore[arg-type]
    cubeless = decide(STRONG, **match, cube_life=0.0)  # type: ignore[arg-type]
    assert dead.no_double == pytest.approx(cubeless.no_double, abs=1e-9)
    assert decide(STRONG, **match).no_double != pytest.approx(dead.no_double)  # type: ignore[arg-type]


def test_a_cube_below_its_limit_counts_the_doubles_left_R17() -> None:
    # Gammonless money at 77%: one double from the limit, whoever takes owns a dead cube,
    # so the take point is 1/4 and the cash point 3/4 (Janowski's live cube: 1/5 and 4/5).
    chances = [0.77, 0.0, 0.0, 0.0, 0.0]
    dead, x = 2 * 0.77 - 1, cubeful.DEFAULT_CUBE_LIFE
    last = decide(chances, max_cube=2)
    assert last.no_double == pytest.approx((1 - x) * dead + x * 1.0)  # past its cash point
    assert last.action == "double, pass"
    live = decide(chances)
    assert live.no_double == pytest.approx((1 - x) * dead + x * (-1 + 2 * (0.77 - 0.2) / 0.6))
    assert live.action == "double, take"
    # Far below the limit the cube is valued as without one.
    far = decide(chances, max_cube=1 << 14)
    assert far.no_double == pytest.approx(live.no_double, abs=1e-8)
    # In a match, a limit under the score's highest cube level moves the cash points.
    match = {"match_length": 11, "score": (0, 0)}
    assert decide(STRONG, **match, max_cube=4).no_double != pytest.approx(  # type: ignore[arg-type]
        decide(STRONG, **match).no_double  # type: ignore[arg-type]
    )


def test_a_game_without_the_cube_is_valued_cubeless_R17() -> None:
    none = decide(STRONG, max_cube=1)
    assert not none.may_double and none.why_not == "R17: the game is played without the cube"
    assert none.no_double == pytest.approx(STRONG_CUBELESS, abs=1e-6)
    # The Jacoby rule: the cube is never turned, so gammons never count (R23).
    jacoby = decide(STRONG, max_cube=1, jacoby=True)
    assert jacoby.no_double == pytest.approx(2 * 0.72 - 1, abs=1e-6)
    assert Stakes.check(max_cube=1).words() == "money, no cube"
    assert (
        Stakes.check(cube=(2, "mover"), max_cube=8).words()
        == "money, cube 2 the mover's, at most 8"
    )
    assert Stakes.check(max_cube=8).describe()["max_cube"] == 8
    assert "max_cube" not in Stakes.check().describe()


def test_the_cube_limit_is_checked_and_read_from_a_state_R17() -> None:
    with pytest.raises(
        bgfast.BgfastError, match="R17: the cube value 8 is past the game's limit, 4"
    ):
        Stakes.check(cube=(8, "mover"), max_cube=4)
    for bad in (3, 0, 65536, 2.0, True):
        with pytest.raises(bgfast.BgfastError, match="max_cube"):
            Stakes.check(max_cube=bad)
    # An XGID's last field is the limit's power of two: 2 is a cube of at most 4.
    state = bgfast.codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:2:1:1:00:0:0:0:0:2")
    stakes = Stakes.of_state(state)
    assert (stakes.cube_value, stakes.cube_owner, stakes.max_cube) == (4, "mover", 4)
    assert stakes.why_no_double() == "R17: the cube is at its limit, 4"
    assert stakes.for_opponent().max_cube == 4
    unlimited = bgfast.codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert Stakes.of_state(unlimited).max_cube == 1024  # XG's usual limit, 2**10


def test_a_cubeful_rollout_without_the_cube_is_the_cubeless_one_R17() -> None:
    """No game of a rollout without a cube sees a double: each game's cubeful result is its
    cubeless one, on the same dice."""
    r = bgfast.rollout(
        games=300, seed=5, policy="pubeval", evaluator="wildbg", cubeful=True, max_cube=1
    )
    assert r.ends.get("passed", 0) == 0
    assert r.cubeful_equity == pytest.approx(r.equity, abs=1e-12)
    alive = bgfast.rollout(games=300, seed=5, policy="pubeval", evaluator="wildbg", cubeful=True)
    assert alive.cubeful_equity != pytest.approx(alive.equity, abs=1e-3)


# ------------------------------------------------------------ backgammons counted as gammons

#: Chances with backgammons both ways.
BACKGAMMONS = [0.62, 0.30, 0.08, 0.20, 0.06]


def _without_backgammons(p: list[float]) -> list[float]:
    return [p[0], p[1], 0.0, p[3], 0.0]


@pytest.mark.parametrize(
    "stakes",
    [
        {},
        {"cube": (2, "opponent")},
        {"cube": (2, "mover"), "jacoby": True},
        {"match_length": 7, "score": (2, 3)},
        {"match_length": 9, "score": (1, 6), "cube": (2, "mover")},
    ],
    ids=str,
)
def test_a_backgammon_worth_a_gammon_is_valued_as_one_R16(stakes: dict[str, object]) -> None:
    """R16's option: a backgammon scores as a gammon, so the model's values are those of the
    same chances with every backgammon a plain gammon (gnubg's gammon chances include the
    backgammons)."""
    doubled = decide(BACKGAMMONS, backgammon_counts_double=True, **stakes)  # type: ignore[arg-type]
    plain = decide(_without_backgammons(BACKGAMMONS), **stakes)  # type: ignore[arg-type]
    triple = decide(BACKGAMMONS, **stakes)  # type: ignore[arg-type]
    for name in ("no_double", "double_take", "double_pass"):
        assert getattr(doubled, name) == getattr(plain, name)
    assert doubled.no_double != pytest.approx(triple.no_double)


def test_the_dead_cube_counts_a_backgammon_twice_R16() -> None:
    win, wg, _, lg, _ = BACKGAMMONS
    dead = decide(BACKGAMMONS, max_cube=1, backgammon_counts_double=True)
    assert dead.no_double == pytest.approx(2 * win - 1 + wg - lg, abs=1e-6)  # float32
    stakes = Stakes.check(backgammon_counts_double=True)
    assert stakes.words() == "money, cube 1 centred, backgammons count double"
    assert stakes.describe()["backgammon_counts_double"] is True
    assert stakes.for_opponent().backgammon_counts_double
    with pytest.raises(bgfast.BgfastError, match="backgammon_counts_double"):
        stakes.arguments()  # rollouts score a backgammon as three
    with pytest.raises(bgfast.BgfastError, match="backgammon_counts_double must be"):
        Stakes.check(backgammon_counts_double="yes")


def test_a_states_backgammon_rule_reaches_hint_R16() -> None:
    """The side to move bears off its last checker with the opponent's fifteen in its home
    board: a backgammon, worth 2 under R16's option, not 3."""
    import dataclasses

    net = bgfast.Net.wildbg()
    xgid = "XGID=-A----o-------------------:0:0:1:61:0:0:0:0:10"
    state = bgfast.codec.state_from_xgid(xgid)
    assert str(bgfast.hint(net, state)[0].move) in ("1/off", "6/off")
    triple = bgfast.hint(net, state)[0].cubeful_equity
    rules = dataclasses.replace(state.rules, backgammon_counts_double=True)
    doubled = bgfast.hint(net, dataclasses.replace(state, rules=rules))[0].cubeful_equity
    assert (triple, doubled) == (pytest.approx(3.0), pytest.approx(2.0))


def test_the_answer_to_a_double() -> None:
    """The doubled side takes, passes, or with beavers beavers a double that leaves it the
    favourite; not when the beaver would turn the cube past the game's limit (R17)."""
    weak = [0.30, 0.05, 0.0, 0.10, 0.01]  # the doubler is the underdog
    assert decide(weak).answer == "take"
    assert decide(weak, beavers=True).answer == "beaver"
    assert decide(weak, beavers=True).action == "no double"
    assert decide(weak, beavers=True, max_cube=2).answer == "take"
    assert decide([0.90, 0.30, 0.0, 0.02, 0.0]).answer == "pass"
    assert decide(STRONG).answer == "take"


#: Stakes of every kind for the batched model: money with the options, match scores with
#: and without the Crawford rule, a cube one double from its limit.
BATCH_STAKES = [
    Stakes.check(),
    Stakes.check(cube=(2, "opponent"), jacoby=True, beavers=True),
    Stakes.check(match_length=7, score=(3, 4)),
    Stakes.check(match_length=7, score=(5, 2), cube=(2, "mover")),
    Stakes.check(match_length=5, score=(4, 2), crawford=False),
    Stakes.check(match_length=5, score=(4, 2), crawford_rule=False),
    Stakes.check(cube=(2, "mover"), max_cube=4),
    Stakes.check(backgammon_counts_double=True),
]


@pytest.mark.parametrize("stakes", BATCH_STAKES, ids=lambda s: s.words())
def test_cube_values_of_many_positions_are_decides_row_by_row(stakes: Stakes) -> None:
    net = bgfast.Net.wildbg()
    chances = net.evaluate(bgfast.batch.to_array([bgfast.Position.from_id(p) for p in POSITIONS]))
    values = cubeful.cube_values(chances, stakes)
    assert values.shape == (len(POSITIONS), 4) and values.dtype == np.float64
    for row, p in zip(values, chances):
        d = cubeful.decide_for(p, stakes, cubeful.DEFAULT_CUBE_LIFE)
        assert tuple(row) == (d.no_double, d.double_take, d.double_pass, d.value)
    assert cubeful.cube_values(np.zeros((0, 5)), stakes).shape == (0, 4)


@pytest.mark.parametrize(
    ("probabilities", "words"),
    [
        (np.zeros((3, 4)), "rows of five numbers"),
        ([0.5, 0.1, 0.0, 0.1, 0.0], "rows of five numbers"),
        ("chances", "rows of five numbers"),
        ([[0.5, 0.1, 0.0, 0.1, 0.0], [1.5, 0.0, 0.0, 0.0, 0.0]], "not row 1"),
        ([[np.nan, 0.0, 0.0, 0.0, 0.0]], "not row 0"),
        ([[0.5, 0.1, 0.0, 0.1, 0.0], [0.6, 0.7, 0.0, 0.0, 0.0]], "row 1 .* win gammon 0.7"),
        ([[0.9, 0.1, 0.0, 0.2, 0.0]], "row 0 .* lose gammon 0.2 is more than the chance"),
    ],
)
def test_cube_values_refuse_what_are_not_rows_of_chances(probabilities: object, words: str) -> None:
    with pytest.raises(bgfast.BgfastError, match=words):
        cubeful.cube_values(probabilities, Stakes.check())  # type: ignore[arg-type]


def test_cube_values_check_the_stakes_and_the_cube_life() -> None:
    rows = np.array([[0.72, 0.12, 0.0, 0.05, 0.0]])
    with pytest.raises(TypeError, match=r"bgfast\.cubeful\.Stakes"):
        cubeful.cube_values(rows, {"cube": 2})  # type: ignore[arg-type]
    with pytest.raises(bgfast.BgfastError, match="cube_life"):
        cubeful.cube_values(rows, Stakes.check(), cube_life=1.5)


def test_why_the_side_to_move_has_no_cube_action() -> None:
    # One rule for `bgfast eval` and HTTP /evaluate: when there is no cube decision to value.
    assert cubeful.why_no_cube_action(bgfast.Position()) is None
    board = np.zeros((2, 25), dtype=np.uint8)
    board[1, 0] = 15  # the opponent has no checker on the board: the game is over (R15)
    assert cubeful.why_no_cube_action(bgfast.Position.from_array(board)) == "the game is over"
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{}:0:0:0:0:10"
    phases = {"00": None, "D": None, "31": "the dice are rolled"}  # a double is answered
    for dice, why in phases.items():
        state = bgfast.codec.state_from_id(xgid.format(dice))
        assert state is not None
        assert cubeful.why_no_cube_action(state) == why
