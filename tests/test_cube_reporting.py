"""How cube decisions are reported: the margins a cube rollout's action rests on, the units
of a 0-ply decision and a rollout side by side, the stakes the double/take line was
played at, the CLI's --post-crawford, redoubles in the analysis, and why the 1-away leader
may not double."""

from __future__ import annotations

import dataclasses
import json

import pytest
from test_cli import _lines

import bgfast
from bgfast import Game, Net, analysis, cubeful
from bgfast.cli import main
from bgfast.cubeful import Stakes

#: A position whose rollout (2,592 games) said "double, pass" with seed 2 and "double,
#: take" with seed 1: its take/pass margin is within two standard errors.
CLOSE_PASS = "wLfBA2Dg8+ABCA"


@pytest.fixture(scope="module")
def money() -> bgfast.CubeRollout:
    return bgfast.rollout_cube(CLOSE_PASS, games=72, seed=1, threads=1)


@pytest.fixture(scope="module")
def match() -> bgfast.CubeRollout:
    return bgfast.rollout_cube(
        bgfast.Position(), games=72, seed=1, threads=1, match_length=7, score=(2, 3)
    )


def _margins(c: bgfast.CubeRollout) -> tuple[str, str]:
    lines = c.table().splitlines()
    double = next(x for x in lines if x.startswith("double or not: "))
    take = next(x for x in lines if x.startswith("take or pass: "))
    return double, take


# ---------------------------------------------------------------- 1. the closing lines


def test_the_reviewers_rollout_says_its_pass_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rollout", CLOSE_PASS, "--cube", "--games", "2592", "--threads", "1"]
    out = _lines(capsys, *argv, "--seed", "2")
    assert "cube decision for the side to move: double, pass" in out
    double = next(x for x in out if x.startswith("double or not: "))
    take = next(x for x in out if x.startswith("take or pass: "))
    # The double is worth the pass, exact: only no double's error counts.
    assert double.startswith("double or not: double/pass - no double: +0.112")
    assert "(paired)" not in double and "close" not in double
    assert take.startswith("take or pass: double/take - double/pass: +0.1476, stderr 0.0768,")
    assert take.endswith("1.9 standard errors: close, more games would tell")
    assert out[-1] == "games 2592"


def test_each_margin_has_its_own_error_and_verdict(money: bgfast.CubeRollout) -> None:
    se = {**money.stderr, "no_double": 0.05, "double_take": 0.08}
    se["double_take - no_double"] = 0.04
    # A pass worth less than the take: the double is the pass, its error no double's.
    passed = dataclasses.replace(
        money, no_double=0.88, double_take=1.15, double_pass=1.0, stderr=se
    )
    double, take = _margins(passed)
    assert double == (
        "double or not: double/pass - no double: +0.1200, stderr 0.0500, 2.4 standard errors"
    )
    assert take == (
        "take or pass: double/take - double/pass: +0.1500, stderr 0.0800,"
        " 1.9 standard errors: close, more games would tell"
    )
    # A take: the double is the take, its error paired; a clear take.
    taken = dataclasses.replace(money, no_double=0.6, double_take=0.66, double_pass=1.0, stderr=se)
    double, take = _margins(taken)
    assert double == (
        "double or not: double/take - no double: +0.0600, stderr 0.0400 (paired),"
        " 1.5 standard errors: close, more games would tell"
    )
    assert take.endswith("-0.3400, stderr 0.0800, 4.2 standard errors")


def test_no_games_gives_margins_without_a_verdict(money: bgfast.CubeRollout) -> None:
    nan = float("nan")
    empty = dataclasses.replace(
        money,
        no_double=nan,
        double_take=nan,
        stderr={k: (0.0 if k == "double_pass" else nan) for k in money.stderr},
    )
    for line in _margins(empty):
        assert "standard errors" not in line and "nan" in line


# ---------------------------------------------------------------- 2. the units


def test_a_decision_and_a_rollout_name_their_units_alike(match: bgfast.CubeRollout) -> None:
    d = cubeful.decide([0.5, 0.15, 0.01, 0.15, 0.01], match_length=7, score=(2, 3))
    assert d.mwc == {
        "no_double": d.no_double,
        "double_take": d.double_take,
        "double_pass": d.double_pass,
    }
    assert match.emg == {
        "no_double": match.no_double,
        "double_take": match.double_take,
        "double_pass": match.double_pass,
    }
    assert d.emg is not None and match.mwc is not None
    # The exact double/pass means the same in each unit on both.
    assert d.mwc["double_pass"] == match.mwc["double_pass"]
    assert d.emg["double_pass"] == pytest.approx(match.emg["double_pass"]) == 1.0
    data = json.loads(json.dumps(match.to_dict()))
    assert data["emg"] == pytest.approx(match.emg) and data["mwc"] == pytest.approx(match.mwc)
    # The docstrings say each convention at once, pointing to the other.
    assert "match-winning chances" in (cubeful.CubeDecision.__doc__ or "").split("\n\n")[0]
    assert "CubeRollout" in (cubeful.CubeDecision.__doc__ or "").split("\n\n")[0]
    assert "EMG" in (bgfast.CubeRollout.__doc__ or "").split("\n\n")[0]
    assert "CubeDecision" in (bgfast.CubeRollout.__doc__ or "").split("\n\n")[0]


def test_money_has_neither_emg_nor_mwc(money: bgfast.CubeRollout) -> None:
    d = cubeful.decide([0.72, 0.12, 0.0, 0.05, 0.0])
    assert d.mwc is None and d.emg is None
    assert money.mwc is None and money.emg is None
    data = money.to_dict()
    assert data["emg"] is None and data["mwc"] is None
    # replace() keeps the derived dicts in step with the values.
    assert dataclasses.replace(d, no_double=0.5).mwc is None


# ---------------------------------------------------------------- 3. the double/take line


def test_the_double_take_line_says_the_cube_it_was_played_with(
    match: bgfast.CubeRollout,
) -> None:
    nd, dt = match.results
    assert nd.settings["cube"] == [1, "centred"]
    assert "values_normalised_to_cube" not in nd.settings
    assert dt.settings["cube"] == [2, "opponent"]
    assert dt.settings["stakes"] == "7-point match at 2-3, cube 2 the opponent's"
    assert dt.settings["values_normalised_to_cube"] == [1, "centred"]
    head = str(dt).splitlines()[1]
    assert head.startswith("cubeful, 7-point match at 2-3, cube 2 the opponent's,")
    assert "values normalised to the cube before the double (1 centred)" in head
    assert match.to_dict()["double_take_result"]["settings"]["cube"] == [2, "opponent"]
    # Its values are still the decision's, normalised to the cube before the double.
    assert dt.emg == match.double_take and dt.mwc == match.mwc["double_take"]  # type: ignore[index]


def test_a_redouble_line_doubles_the_owned_cube() -> None:
    c = bgfast.rollout_cube(CLOSE_PASS, games=4, seed=1, threads=1, cube=(2, "mover"))
    dt = c.results[1]
    assert dt.settings["cube"] == [4, "opponent"]
    assert dt.settings["values_normalised_to_cube"] == [2, "mover"]
    assert "(2 the mover's)" in str(dt)


# ---------------------------------------------------------------- 4. --post-crawford


def test_post_crawford_needs_a_side_1_away(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rollout", "4HPwATDgc/ABMA", "--cube", "--match", "5", "--score"]
    status = main([*argv, "2,2", "--post-crawford"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert "--post-crawford: R21:" in err and "2-2 of a 5-point match" in err
    # The same at a score with a side 1-away runs; the API's crawford=False (not the
    # Crawford game) stays valid at any score.
    out_lines = _lines(capsys, *argv, "2,4", "--post-crawford", "--games", "4", "--threads", "1")
    assert any(x.startswith("cube decision for the side to move: ") for x in out_lines)
    assert not Stakes.check(match_length=5, score=(2, 2), crawford=False).crawford


# ---------------------------------------------------------------- 5. redoubles in the analysis


def _advance(g: Game, net: Net) -> None:
    if g.state.phase != "move":
        g.roll()
    if g.state.phase == "move":
        assert g.state.dice is not None
        g.play(net.best_move(g.state.position, g.state.dice))


@pytest.mark.parametrize("redoubles", [True, False])
def test_the_analysis_names_a_redouble(redoubles: bool) -> None:
    net = Net.wildbg()
    g = Game(match_length=5, seed=3)
    for _ in range(3):
        _advance(g, net)
    g.double()
    g.take()
    _advance(g, net)
    owner = g.state.turn
    assert owner is not None and g.state.cube.owner == owner and g.state.cube.value == 2
    if redoubles:
        g.double()
        g.take()
    _advance(g, net)
    a = bgfast.analyse(g, net, threads=1)
    owned = [d for d in a.decisions if d.kind == "double" and d.cube == 2]
    assert len(owned) == 1
    d = owned[0]
    assert d.player == owner
    assert d.played == ("redouble" if redoubles else "no redouble")
    decided = cubeful.decide(
        net.evaluate(d.state.position),
        cube=(2, "mover"),
        match_length=5,
        score=(0, 0),
        position=d.state.position,
    )
    assert "redouble" in decided.action
    best = "too good" if decided.action.startswith("too good") else decided.action
    assert d.best == best
    # The centred cube's decisions are still doubles.
    assert {x.played for x in a.decisions if x.kind == "double" and x.cube == 1} <= {
        "double",
        "no double",
    }


def test_doubling_names_a_redouble() -> None:
    assert analysis._doubling(False, 0.5, 0.7, 1.0, False, True)[0] == "redouble, take"
    assert analysis._doubling(False, 0.5, 0.3, 1.0, False, True)[0] == "no redouble"
    assert analysis._doubling(False, 0.5, 0.3, 1.0, False)[0] == "no double"


# ---------------------------------------------------------------- 6. the 1-away leader


def test_the_1_away_leader_after_crawford_is_told_why() -> None:
    leader = Stakes.check(match_length=5, score=(4, 2), crawford=False)
    assert leader.why_no_double() == (
        "the cube is dead for the 1-away leader after the Crawford game (R21): its double"
        " could only help the trailer"
    )
    no_rule = Stakes.check(match_length=5, score=(4, 2), crawford_rule=False)
    assert "1-away leader: its double could only help the trailer" in str(no_rule.why_no_double())
    # At 1-away both (double match point) nobody leads: the cube is dead for both.
    dmp = Stakes.check(match_length=5, score=(4, 4), crawford=False)
    assert "already wins the match" in str(dmp.why_no_double())
    # A side 2-away with the cube at 2: the general case.
    owned = Stakes.check(match_length=5, score=(3, 0), cube=(2, "mover"))
    assert "2 away with the cube at 2 already wins the match" in str(owned.why_no_double())
    with pytest.raises(bgfast.BgfastError, match="1-away leader after the Crawford game"):
        bgfast.rollout_cube(games=1, match_length=5, score=(4, 2), crawford=False)
