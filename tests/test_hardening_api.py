"""Regression tests of the API hardening: IDs whose dice or pending double a rollout would
drop, cube decisions of chances that do not fit together, and Ctrl-C in a rollout played
by a Python callable (impossible dice over HTTP are in ``test_serve_http.py``).

Everything runs in this process and fast; nothing here measures speed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import Position, cubeful
from bgfast.cli import main

START_ID = "4HPwATDgc/ABMA"
CONTACT = (Path(__file__).parent / "data" / "wildbg_contact.csv").read_text().split()[:200]

# ------------------------------------------------------------------ bgfast rollout IDs

ROLLED = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
DOUBLED = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([ROLLED, "--cube"], "R18"),
        ([ROLLED], "--moves 31"),
        ([ROLLED, "--moves", "64"], "--moves 31"),
        ([DOUBLED], "R19"),
        ([DOUBLED, "--cube"], "R19"),
        ([DOUBLED, "--moves", "31"], "R19"),
    ],
)
def test_rollout_cli_refuses_what_it_would_drop(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    assert main(["rollout", *argv, "--games", "36", "--seed", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert said in captured.err and captured.err.startswith("bgfast: ")


def test_rollout_cli_rolls_out_the_plays_of_the_roll_an_id_holds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for dice in ("31", "13"):
        argv = ["rollout", ROLLED, "--moves", dice, "--games", "2", "--policy", "random"]
        assert main([*argv, "--seed", "1", "--json"]) == 0
        plays = json.loads(capsys.readouterr().out)
        assert plays and all(p["result"]["games"] == 2 for p in plays)


# ------------------------------------------------------------------ decide's chances


@pytest.mark.parametrize(
    ("chances", "said"),
    [
        ("abc", "five numbers"),
        (None, "five numbers"),
        ([[0.5, 0.1], [0.0]], "five numbers"),
        ([True, False, False, False, False], "five numbers"),
        (["0.5", "0", "0", "0", "0"], "five numbers"),
        ([0.5, 0.1, 0.0, 0.1], "five numbers"),
        ([0.5, float("nan"), 0.0, 0.1, 0.0], "from 0 to 1"),
        ([0.5, float("inf"), 0.0, 0.1, 0.0], "from 0 to 1"),
        ([1.5, 0.0, 0.0, 0.0, 0.0], "from 0 to 1"),
        ([0.5, 0.6, 0.0, 0.0, 0.0], "win gammon 0.6 is more than win 0.5"),
        ([0.5, 0.1, 0.2, 0.0, 0.0], "win backgammon 0.2 is more than win gammon 0.1"),
        ([0.5, 0.0, 0.0, 0.6, 0.0], "lose gammon 0.6"),
        ([0.5, 0.0, 0.0, 0.1, 0.2], "lose backgammon 0.2 is more than lose gammon 0.1"),
        ([1, 1, 1, 1, 1], "lose gammon 1"),
    ],
)
def test_decide_refuses_chances_that_are_not_chances(chances: object, said: str) -> None:
    with pytest.raises(bgfast.BgfastError, match="probabilities") as refused:
        cubeful.decide(chances)  # type: ignore[arg-type]
    assert said in str(refused.value)


def test_decide_takes_chances_consistent_up_to_rounding() -> None:
    net = bgfast.Net.wildbg()
    for pid in [START_ID, *CONTACT]:
        assert cubeful.decide(net.evaluate(Position.from_id(pid))).action
    edge = np.array([0.5, 0.5 + 5e-7, 0.5 + 9e-7, 0.5, 0.5 + 5e-7], dtype=np.float32)
    assert cubeful.decide(edge).action
    assert cubeful.decide((0.5, 0.1, 0.0, 0.1, 0.0)).action == "no double"


# ------------------------------------------------------------------ Ctrl-C in a callable


def _interrupted_on_call(n: int) -> Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]:
    """A policy (the first feature, a fixed rule) that raises KeyboardInterrupt, as Ctrl-C
    does, on its ``n``-th call."""
    calls = 0

    def policy(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        nonlocal calls
        calls += 1
        if calls == n:
            raise KeyboardInterrupt
        return features[:, 0].copy()

    return policy


def _stopped(run: Callable[[], Any]) -> Any:
    """``run()``, failing the test (not ending the session) if Ctrl-C escapes it."""
    try:
        return run()
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C in the policy escaped the rollout with every finished game lost")


def _plain(features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return features[:, 0].copy()


def test_ctrl_c_in_a_callable_rollout_keeps_the_finished_games() -> None:
    games = 10**7
    got = _stopped(
        lambda: bgfast.rollout(games=games, seed=1, policy=_interrupted_on_call(400), batch=64)
    )
    assert got.partial and 0 < got.games < games
    # the games kept are whole and played by the policy: a run of that many games agrees
    again = bgfast.rollout(games=got.games, seed=1, policy=_plain, batch=64)
    assert not again.partial
    assert (got.equity, got.win) == (again.equity, again.win)


def test_ctrl_c_in_a_callable_cube_rollout_keeps_the_finished_games() -> None:
    games = 10**7
    policy = _interrupted_on_call(400)
    got = _stopped(
        lambda: bgfast.rollout_cube(
            games=games, seed=1, policy=policy, batch=64, evaluator="wildbg"
        )
    )
    assert all(r.partial and 0 < r.games < games for r in got.results)


def test_ctrl_c_in_a_callable_moves_rollout_keeps_the_finished_games() -> None:
    games = 10**7
    policy = _interrupted_on_call(1500)
    got = _stopped(
        lambda: bgfast.rollout_moves(
            Position(), (3, 1), games=games, seed=1, policy=policy, batch=16
        )
    )
    assert all(m.result.partial and 0 < m.result.games < games for m in got)


@pytest.mark.parametrize(
    "text", ["4HPwATDgc/ABMA:cAkAAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:4:0:7:10"]
)
def test_a_whole_games_id_given_as_a_position_id_says_what_reads_it(text: str) -> None:
    # The error said only "a Position ID has 14 characters, not 27".
    said = r"Game\.from_gnubg_id or Game\.from_xgid"
    with pytest.raises(bgfast.InvalidPositionError, match=said):
        bgfast.Position.from_id(text)


def test_one_die_is_one_die() -> None:
    with pytest.raises(bgfast.InvalidDiceError, match=r"got 1 die \(3\)"):
        bgfast.Position().moves((3,))


def test_the_package_lists_its_api_and_its_modules_only() -> None:
    # dir(bgfast) listed the names its imports bind: Literal, collections, annotations,
    # position_svg. Roll, the type of a roll argument, stands beside the API for typing.
    import types

    public = {n for n in dir(bgfast) if not n.startswith("_")}
    others = {
        n
        for n in public - set(bgfast.__all__)
        if not isinstance(getattr(bgfast, n), types.ModuleType)
    }
    assert others == {"Roll"}
