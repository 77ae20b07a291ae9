"""Regression tests of the fifth hardening pass over the rollout API and ``bgfast rollout``:
matches played without the Crawford rule (``crawford_rule=False``, ``--no-crawford-rule``)
against every Crawford setting, money play, 1-away scores and the cube; executor runs and
JSON with these settings; and argument checks earlier passes missed (numpy seeds, a
non-executor, one play given as ``moves``, a scheme that is no str).

Game counts stay small: these tests check what is accepted, refused and reported, and that
equal settings give equal bits, not how good a rollout is.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import Position
from bgfast.cli import main

# bgfast.rollout is also the name of the function the package exports.
rollout_module = sys.modules["bgfast.rollout"]

CONTACT = "4HPwATDgc/ABMA"
#: A net evaluates the cube; pubeval plays fast.
CUBEFUL: dict[str, Any] = {"policy": "pubeval", "evaluator": "wildbg"}
XGID_BOARD = "XGID=-b----E-C---eE---c-e----B-"


def _statistics(result: bgfast.RolloutResult) -> dict[str, Any]:
    """A result's numbers and settings, without the run's timing."""
    data = result.to_dict()
    for timing in ("seconds", "games_per_second", "threads", "executor"):
        data.pop(timing)
    return data


# ------------------------------------------------- crawford_rule x crawford x the score


SCORES = [
    (0, (0, 0)),  # money
    (1, (0, 0)),  # a 1-point match: both sides 1-away
    (5, (0, 0)),
    (5, (4, 0)),  # the side to move leads, 1-away
    (5, (0, 4)),  # the side to move trails a 1-away leader
    (5, (4, 4)),  # double match point
]


def _expected_crawford(
    length: int, score: tuple[int, int], crawford: bool | None, rule: bool
) -> bool | str:
    """The Crawford setting a rollout reports, or the start of the refusal's message."""
    one_away = [length - s == 1 for s in score].count(True) if length else 0
    if length == 0:
        if crawford:
            return "crawford needs match_length"
        return "crawford_rule is a match setting" if not rule else False
    if not rule:
        return "R21: a match played without the Crawford rule" if crawford else False
    if crawford is None:
        return one_away == 1
    if crawford and one_away != 1:
        return "R21: the Crawford game needs exactly one side 1-away"
    return crawford


@pytest.mark.parametrize("cubeful", [False, True])
@pytest.mark.parametrize("rule", [True, False])
@pytest.mark.parametrize("crawford", [True, False, None])
@pytest.mark.parametrize(("length", "score"), SCORES)
def test_every_crawford_setting_with_and_without_the_rule_r21(
    length: int, score: tuple[int, int], crawford: bool | None, rule: bool, cubeful: bool
) -> None:
    expected = _expected_crawford(length, score, crawford, rule)

    def run() -> bgfast.RolloutResult:
        return bgfast.rollout(
            CONTACT,
            games=6,
            seed=3,
            threads=1,
            cubeful=cubeful,
            match_length=length,
            score=score,
            crawford=crawford,
            crawford_rule=rule,
            **CUBEFUL,
        )

    if isinstance(expected, str):
        with pytest.raises(bgfast.MatchOptionError, match=expected):
            run()
        return
    settings = run().settings
    if length == 0:
        assert "crawford" not in settings and "crawford_rule" not in settings
        return
    assert settings["crawford"] is expected
    # Reported only for a match without the rule, as the results of earlier releases had it.
    assert settings.get("crawford_rule", True) is rule


@pytest.mark.parametrize("crawford", [0, "", [], "no", np.array([False])])
def test_crawford_that_is_no_flag_is_refused_without_the_rule_too(crawford: object) -> None:
    # Without the rule a falsy crawford (0, "", []) was taken as False and any truthy one
    # refused as a Crawford game: the type was never checked. (Fixed in cubeful.Stakes.)
    with pytest.raises(bgfast.MatchOptionError, match="crawford must be True or False"):
        bgfast.rollout(
            games=2,
            policy="random",
            match_length=5,
            score=(4, 0),
            crawford=crawford,
            crawford_rule=False,
        )


@pytest.mark.parametrize("score", [(4, 0), (0, 4), (4, 2)])
def test_a_post_crawford_game_is_the_same_game_without_the_rule(score: tuple[int, int]) -> None:
    # Once a side is 1-away and this is not the Crawford game, every later game is
    # post-Crawford either way: the rule changes nothing, to the bit.
    common: dict[str, Any] = dict(
        games=40, seed=8, threads=1, cubeful=True, match_length=5, score=score, **CUBEFUL
    )
    post = bgfast.rollout(CONTACT, crawford=False, **common)
    free = bgfast.rollout(CONTACT, crawford_rule=False, **common)
    with_rule, without = _statistics(post), _statistics(free)
    assert without["settings"].pop("crawford_rule") is False
    # The words say so too: "post-Crawford" against "no Crawford rule".
    assert with_rule["settings"].pop("stakes") != without["settings"].pop("stakes")
    assert with_rule == without


def test_the_rule_matters_only_where_a_side_can_reach_1_away() -> None:
    common: dict[str, Any] = dict(games=60, seed=2, threads=1, policy="random")
    # 3-away against 2-away in a 5-point match: a single win makes the Crawford game, or
    # without the rule a post-Crawford one, worth less to the leader.
    near = [
        bgfast.rollout(CONTACT, match_length=5, score=(2, 3), crawford_rule=rule, **common)
        for rule in (True, False)
    ]
    assert near[0].mwc != near[1].mwc and near[0].equity == near[1].equity
    # 25-away each, cubeless: no game reaches a 1-away score.
    far = [
        bgfast.rollout(CONTACT, match_length=25, crawford_rule=rule, **common)
        for rule in (True, False)
    ]
    assert far[0].mwc == far[1].mwc


@pytest.mark.parametrize("rule", [True, False])
@pytest.mark.parametrize(("length", "score"), [(5, (2, 3)), (5, (3, 3)), (7, (5, 4)), (3, (0, 1))])
def test_a_cubeless_match_rollout_scores_each_outcome_by_the_table(
    length: int, score: tuple[int, int], rule: bool
) -> None:
    # The match-winning chances are the games' outcomes, each worth the table's chances at
    # the score it leads to: a side reaching 1-away plays the Crawford game (the table's
    # 1-away entries) with the rule, a post-Crawford one without it.
    found = bgfast.rollout(
        CONTACT,
        games=200,
        seed=3,
        threads=1,
        policy="random",
        bearoff=None,  # every game played out: the counts are whole games
        match_length=length,
        score=score,
        crawford_rule=rule,
    )
    table = bgfast.met.load(bgfast.met.DEFAULT_TABLE)
    mine, theirs = length - score[0], length - score[1]

    def chances(me: int, them: int) -> float:
        if me <= 0 or them <= 0:
            return 1.0 if me <= 0 else 0.0
        return table.equity(me, them, post_crawford=not rule and 1 in (me, them))

    outcomes = [chances(mine - k, theirs) for k in (1, 2, 3)]
    outcomes += [chances(mine, theirs - k) for k in (1, 2, 3)]
    expected = sum(n * v for n, v in zip(found.counts, outcomes)) / found.games
    assert found.mwc == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("stakes", "refusal"),
    [
        (dict(match_length=5, score=(0, 4), crawford_rule=False), None),  # the trailer
        (dict(match_length=5, score=(0, 4), crawford=False), None),  # post-Crawford
        (dict(match_length=5, score=(1, 3), crawford_rule=False), None),
        (dict(match_length=5, score=(0, 4)), "R21: the Crawford game"),
        (dict(match_length=5, score=(4, 0), crawford_rule=False), "cube is dead"),
        (dict(match_length=5, score=(4, 4), crawford_rule=False), "cube is dead"),
        (dict(match_length=1, crawford_rule=False), "cube is dead"),
        (dict(match_length=5, score=(3, 0), cube=(2, "mover"), crawford_rule=False), "dead"),
        (dict(match_length=5, score=(0, 3), cube=(2, "opponent"), crawford_rule=False), "R17"),
        (dict(match_length=5, score=(0, 3), cube=(2, "mover"), crawford_rule=False), None),
    ],
)
def test_cube_rollouts_where_the_side_to_move_may_or_may_not_double(
    stakes: dict[str, Any], refusal: str | None
) -> None:
    def run() -> bgfast.CubeRollout:
        return bgfast.rollout_cube(CONTACT, games=12, seed=5, threads=1, **stakes, **CUBEFUL)

    if refusal is not None:
        with pytest.raises(bgfast.BgfastError, match=refusal):
            run()
        return
    found = run()
    assert found.mwc is not None and found.results[0].games == 12
    settings = found.results[0].settings
    assert settings.get("crawford_rule", True) is stakes.get("crawford_rule", True)
    # The double/pass value: the side to move wins the cube's value now.
    cube_value = stakes.get("cube", (1, "centred"))[0]
    rule = stakes.get("crawford_rule", True)
    length, (mine, theirs) = stakes["match_length"], stakes["score"]
    away = (length - mine - cube_value, length - theirs)
    table = bgfast.met.load(bgfast.met.DEFAULT_TABLE)
    post = 1 in away and (not rule or 1 in (length - mine, length - theirs))
    expected = 1.0 if away[0] <= 0 else table.equity(*away, post_crawford=post)
    assert found.mwc["double_pass"] == expected


def test_a_trailer_s_post_crawford_cube_is_the_same_without_the_rule() -> None:
    common: dict[str, Any] = dict(games=30, seed=6, threads=1, match_length=5, score=(1, 4))
    post = bgfast.rollout_cube(CONTACT, crawford=False, **common, **CUBEFUL)
    free = bgfast.rollout_cube(CONTACT, crawford_rule=False, **common, **CUBEFUL)
    assert (post.no_double, post.double_take, post.mwc) == (
        free.no_double,
        free.double_take,
        free.mwc,
    )


# ------------------------------------------------------------------ executors and JSON


def test_an_executor_gives_the_bits_of_a_run_in_process_without_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small shards, so that 100 games make three of them on two workers.
    monkeypatch.setattr(rollout_module, "SHARD_GAMES", 40)
    stakes: dict[str, Any] = dict(match_length=5, score=(2, 3), crawford_rule=False)
    common: dict[str, Any] = dict(games=100, seed=13, **stakes, **CUBEFUL)
    with ProcessPoolExecutor(max_workers=2) as pool:
        remote = bgfast.rollout(CONTACT, cubeful=True, executor=pool, **common)
        there = bgfast.rollout_moves(CONTACT, (3, 1), top=3, executor=pool, **common)
        cube_there = bgfast.rollout_cube(CONTACT, executor=pool, **common)
    local = bgfast.rollout(CONTACT, cubeful=True, threads=2, **common)
    assert _statistics(remote) == _statistics(local)
    assert remote.settings["crawford_rule"] is False
    here = bgfast.rollout_moves(CONTACT, (3, 1), top=3, threads=1, **common)
    assert [(str(m.move), m.diff, m.diff_stderr) for m in there] == [
        (str(m.move), m.diff, m.diff_stderr) for m in here
    ]
    assert [_statistics(m.result) for m in there] == [_statistics(m.result) for m in here]
    cube_here = bgfast.rollout_cube(CONTACT, threads=1, **common)
    assert (cube_there.action, cube_there.mwc, cube_there.stderr) == (
        cube_here.action,
        cube_here.mwc,
        cube_here.stderr,
    )


def _json_round_trip(data: Any) -> Any:
    text = json.dumps(data, allow_nan=False)  # JSON has no NaN nor numpy numbers
    back = json.loads(text)
    assert back == data
    return back


def test_results_without_the_rule_go_through_json_and_say_so() -> None:
    stakes: dict[str, Any] = dict(match_length=7, score=(3, 5), crawford_rule=False)
    common: dict[str, Any] = dict(games=20, seed=4, threads=1, **stakes, **CUBEFUL)
    one = bgfast.rollout(CONTACT, cubeful=True, **common)
    assert _json_round_trip(one.to_dict())["settings"]["crawford_rule"] is False
    assert "no Crawford rule" in one.table()
    assert "no Crawford rule" not in bgfast.rollout(CONTACT, games=2, policy="random").table()
    plays = bgfast.rollout_moves(CONTACT, (6, 5), top=2, **common)
    _json_round_trip([m.to_dict() for m in plays])
    cube = bgfast.rollout_cube(CONTACT, **common)
    assert (
        _json_round_trip(cube.to_dict())["no_double_result"]["settings"]["crawford_rule"] is False
    )


def _interrupt_at_once(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    raise KeyboardInterrupt


def test_a_match_cube_rollout_stopped_before_any_game_gives_valid_json() -> None:
    # Ctrl-C before the first game: the values are NaN, and the match-winning chances were
    # written to JSON as NaN, which JSON has not (json.loads of other languages refuses it).
    found = bgfast.rollout_cube(
        CONTACT,
        games=50,
        seed=1,
        policy=_interrupt_at_once,
        evaluator="wildbg",
        match_length=5,
        score=(0, 4),
        crawford_rule=False,
    )
    assert found.results[0].partial and found.results[0].games == 0
    data = _json_round_trip(found.to_dict())
    assert data["mwc"]["no_double"] is None and data["mwc"]["double_take"] is None
    assert data["mwc"]["double_pass"] == found.mwc["double_pass"]  # type: ignore[index]


@pytest.mark.parametrize("seed", [np.uint64(2**63 + 5), np.int64(7), np.uint8(9)])
def test_a_numpy_seed_and_game_count_are_kept_as_python_ints(seed: Any) -> None:
    # A numpy seed was kept as it was given: the result's to_dict() then failed in
    # json.dumps (uint64 is not JSON serializable); progress was called with numpy counts.
    calls: list[tuple[type, type]] = []
    found = bgfast.rollout(
        games=np.uint64(12),
        seed=seed,
        policy="random",
        threads=1,
        progress=lambda done, total: calls.append((type(done), type(total))),
    )
    assert type(found.settings["seed"]) is int and found.seed == int(seed)
    assert calls and all(kinds == (int, int) for kinds in calls)
    _json_round_trip(found.to_dict())
    same = bgfast.rollout(games=12, seed=int(seed), policy="random", threads=1)
    assert _statistics(found) == _statistics(same)
    moves = bgfast.rollout_moves(None, (3, 1), games=np.int16(4), seed=seed, policy="random")
    _json_round_trip([m.to_dict() for m in moves])
    cube = bgfast.rollout_cube(games=np.int32(4), seed=seed, **CUBEFUL)
    _json_round_trip(cube.to_dict())


# ------------------------------------------------------------------ argument checks


class _NotAnExecutor:
    """Has a submit, as a Dask Client has, but is no concurrent.futures.Executor."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a shard was submitted to an object that is no executor")


@pytest.mark.parametrize("executor", [object(), 5, "pool", _NotAnExecutor()])
@pytest.mark.parametrize("which", ["rollout", "rollout_moves", "rollout_cube"])
def test_an_executor_that_is_no_executor_is_a_type_error(executor: object, which: str) -> None:
    # It was reported as a failed shard (ShardError: AttributeError: no attribute 'submit'),
    # or failed inside concurrent.futures.wait for an object whose submit returns other
    # futures.
    progress: list[int] = []
    args: dict[str, Any] = dict(
        games=4, seed=1, executor=executor, progress=lambda d, t: progress.append(d)
    )
    with pytest.raises(TypeError, match=r"concurrent\.futures\.Executor"):
        if which == "rollout":
            bgfast.rollout(policy="random", **args)
        elif which == "rollout_moves":
            bgfast.rollout_moves(None, (3, 1), policy="random", **args)
        else:
            bgfast.rollout_cube(**args, **CUBEFUL)
    assert progress == []


@pytest.mark.parametrize("scheme", [[], {}, 198, None])
def test_a_scheme_that_is_no_name_is_a_type_error(scheme: object) -> None:
    # A list failed with "unhashable type: 'list'", naming no argument.
    with pytest.raises(TypeError, match="scheme must be the name of a feature scheme"):
        bgfast.rollout(games=2, seed=1, policy=lambda f: f[:, 0], scheme=scheme)


def test_one_play_given_as_moves_is_a_type_error_saying_how_to_give_it() -> None:
    position = Position()
    play = position.moves(3, 1)[0]
    # A str was read character by character ("invalid move text at character 1"); a Move
    # failed with "'bgfast.Move' object is not iterable".
    for one in ("8/5 6/5", play):
        with pytest.raises(TypeError, match=r"moves must be a list of plays.*moves=\["):
            bgfast.rollout_moves(position, (3, 1), one, games=2, seed=1, policy="random")  # type: ignore[arg-type]
    found = bgfast.rollout_moves(position, (3, 1), ["8/5 6/5", play], games=2, policy="random")
    assert {str(m.move) for m in found} == {"8/5 6/5", str(play)}


def test_rollout_moves_takes_the_dice_position_moves_takes() -> None:
    # A numpy pair (a roll drawn with numpy) was refused here though Position.moves takes
    # it: rollout_moves had its own check instead of the one every entry point makes.
    common: dict[str, Any] = dict(games=4, seed=1, policy="random", threads=1)
    as_numpy = bgfast.rollout_moves(CONTACT, np.array([3, 1]), **common)
    as_tuple = bgfast.rollout_moves(CONTACT, (3, 1), **common)
    assert [(str(m.move), m.result.equity) for m in as_numpy] == [
        (str(m.move), m.result.equity) for m in as_tuple
    ]
    for bad in ("31", (3,), (3, 1, 2), (3.0, 1), (True, 1), (7, 1), None):
        with pytest.raises(bgfast.InvalidDiceError, match="a roll is two dice"):
            bgfast.rollout_moves(CONTACT, bad, **common)  # type: ignore[arg-type]


# ------------------------------------------------------------------ bgfast rollout


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["rollout", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "argv",
    [
        [CONTACT],
        [CONTACT, "--match", "0"],
        [f"{XGID_BOARD}:0:0:1:00:0:0:0:0:10"],
        ["4HPwATDgc/ABMA:cAkAAAAAAAAA"],
    ],
)
def test_cli_no_crawford_rule_in_money_play_names_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # The message named the API's match_length, which the command has not.
    status, out, err = _cli(capsys, *argv, "--no-crawford-rule", "--games", "2")
    assert (status, out) == (2, "")
    assert err.startswith("bgfast: --no-crawford-rule: crawford_rule is a match setting")
    assert "match_length" not in err


def test_cli_refuses_a_crawford_game_id_without_the_rule_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    crawford_game = f"{XGID_BOARD}:0:0:1:00:6:3:1:7:10"
    status, out, err = _cli(capsys, crawford_game, "--no-crawford-rule", "--games", "2")
    assert (status, out) == (2, "")
    assert f"{crawford_game} is the Crawford game (R21)" in err and "--no-crawford-rule" in err


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--post-crawford"], "drop --post-crawford"),
        (["--crawford"], "drop --crawford"),
        (["--match", "7", "--post-crawford"], "drop --match, --post-crawford"),
    ],
)
def test_cli_names_every_flag_an_id_contradicts(
    capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    # --post-crawford was named "--crawford", and dropped from the list beside other flags.
    status, _, err = _cli(capsys, f"{XGID_BOARD}:0:0:1:00:3:6:0:7:10", *flags, "--games", "2")
    assert status == 2 and err.rstrip().endswith(named)


def test_cli_cube_without_the_rule_is_the_api_s_on_a_pool_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A post-Crawford trailer, 4-away against 1-away, from an XGID of a match without the
    # rule; the pool plays the same shards as this process.
    xgid = f"{XGID_BOARD}:0:0:1:00:3:6:0:7:10"
    argv = [xgid, "--cube", "--games", "24", "--seed", "2", "--no-crawford-rule", "--json"]
    argv += ["--policy", "pubeval", "--evaluator", "wildbg"]
    status, out, _ = _cli(capsys, *argv, "--threads", "1")
    assert status == 0
    here = json.loads(out)
    status, out, _ = _cli(capsys, *argv, "--workers", "2")
    assert status == 0
    pooled = json.loads(out)
    for data in (here, pooled):
        for branch in ("no_double_result", "double_take_result"):
            for timing in ("seconds", "games_per_second", "threads", "executor"):
                data[branch].pop(timing)
    assert here == pooled
    assert here["no_double_result"]["settings"]["crawford_rule"] is False
    api = bgfast.rollout_cube(
        CONTACT,
        games=24,
        seed=2,
        threads=1,
        match_length=7,
        score=(3, 6),
        crawford_rule=False,
        **CUBEFUL,
    )
    assert here["mwc"] == api.mwc and here["action"] == api.action
