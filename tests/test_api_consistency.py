"""The API says the same thing the same way everywhere: a cube decision's ``emg`` and
``mwc`` over HTTP as in Python and ``bgfast eval --json``, the side to move's score first in
the cube model and rollouts (and how to pass a game's instead), the bear-off helpers' board
checks and cube owners, the README's word on wrong types, and feature scheme names.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from http_server import HttpServer

import bgfast
from bgfast import (
    BgfastError,
    Game,
    InvalidPositionError,
    MatchOptionError,
    Net,
    Position,
    bearoff,
    cubeful,
    met,
)
from bgfast.cli import main
from bgfast.features import SCHEMES

ROOT = Path(__file__).resolve().parent.parent
BEAROFF = Position.from_array([[1, 1, 0, 0] + [0] * 21, [0, 2, 0, 0] + [0] * 21])
CHANCES = [0.6, 0.15, 0.01, 0.1, 0.005]


def _player_one_on_roll() -> Game:
    """A 7-point match at 4-1 (player 0 leading) with player 1 on roll."""
    game = Game(match_length=7, score=(4, 1), seed=3)
    game.roll((3, 1))
    game.play("8/5 6/5")
    state = game.state
    assert state.turn == 1 and state.phase == "roll" and game.score == (4, 1)
    return game


# ------------------------------------------------------------------ 1. emg and mwc


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    running = HttpServer()
    yield running
    assert running.process.poll() is None, "the server died"
    running.stop()


def _eval_json(text: str) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["eval", text, "--json"]) == 0
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def test_http_cube_answer_has_emg_and_mwc_in_a_match(server: HttpServer) -> None:
    game = _player_one_on_roll()
    state = game.state
    status, body = server.get("/evaluate", position=game.gnubg_id())
    assert status == 200, body
    want = cubeful.decide_for(
        Net.wildbg().evaluate(state.position),
        cubeful.Stakes.of_state(state),
        cubeful.DEFAULT_CUBE_LIFE,
        position=state.position,
    )
    cube = body["cube"]
    assert want.emg is not None and want.mwc is not None
    assert cube["emg"] == pytest.approx(want.emg)
    assert cube["mwc"] == pytest.approx(want.mwc)
    # The top-level values are the MWC, as before.
    for key in ("no_double", "double_take", "double_pass"):
        assert cube[key] == pytest.approx(want.mwc[key])
    # The same keys, the same numbers, as bgfast eval --json.
    cli = _eval_json(game.gnubg_id())["cube"]
    assert cube["emg"] == pytest.approx(cli["emg"]) and cube["mwc"] == pytest.approx(cli["mwc"])


def test_http_cube_answer_emg_and_mwc_are_null_in_money(server: HttpServer) -> None:
    status, body = server.get("/evaluate", position=Position().id)
    assert status == 200 and body["cube"]["emg"] is None and body["cube"]["mwc"] is None
    assert body["cube"]["double_pass"] == pytest.approx(1.0)


def test_the_openapi_schema_names_emg_and_mwc(server: HttpServer) -> None:
    status, schema = server.get("/openapi.json")
    assert status == 200
    properties = schema["components"]["schemas"]["CubeAnswer"]["properties"]
    assert {"emg", "mwc", "no_double", "double_take", "double_pass"} <= set(properties)


def test_eval_help_says_the_json_holds_mwc_with_emg_and_mwc_beside() -> None:
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(out.getvalue().split())
    assert "EMG and MWC" in text
    assert "top-level no_double, double_take and double_pass are the side's MWC" in text
    assert "emg and mwc beside" in text
    assert "in a match EMG" not in text


# ------------------------------------------------------------------ 2. score order

SCORED = [
    cubeful.decide,
    cubeful.Stakes.check,
    bgfast.rollout,
    bgfast.rollout_moves,
    bgfast.rollout_cube,
]


@pytest.mark.parametrize("function", SCORED, ids=lambda f: f.__qualname__)
def test_score_docstrings_say_side_to_move_first(function: Any) -> None:
    doc = " ".join((function.__doc__ or "").split())
    assert "the side to move's score first (not ``Game.score``'s player order:" in doc
    assert "GameState" in doc


def test_a_game_states_stakes_turn_the_score_for_the_cube_model() -> None:
    state = _player_one_on_roll().state
    stakes = cubeful.Stakes.of_state(state)
    assert stakes.score == (1, 4)
    by_state = cubeful.decide(CHANCES, **stakes.arguments())
    assert by_state == cubeful.decide(CHANCES, match_length=7, score=(1, 4))
    assert cubeful.cube_values([CHANCES], stakes)[0, 0] == pytest.approx(by_state.no_double)
    # Game.score's order is another match score: the pitfall the docstrings warn of.
    wrong = cubeful.decide(CHANCES, match_length=7, score=state.score)
    assert wrong.no_double != pytest.approx(by_state.no_double)


def test_a_rollout_of_a_game_state_takes_the_side_to_moves_score() -> None:
    state = _player_one_on_roll().state
    result = bgfast.rollout(state, games=2, policy="random", seed=1, truncate=2, evaluator="wildbg")
    assert result.settings["score"] == [1, 4]


# ------------------------------------------------------------------ 3. bear-off helpers


def test_plays_may_reach_takes_positions_as_its_siblings() -> None:
    assert bearoff.plays_may_reach_two_sided_range([Position()]).tolist() == [False]
    assert bearoff.plays_may_reach_two_sided_range([BEAROFF, Position()]).tolist() == [
        True,
        False,
    ]
    boards = np.stack([BEAROFF.to_array(), Position().to_array()])
    assert bearoff.plays_may_reach_two_sided_range(boards).tolist() == [True, False]
    assert bearoff.in_two_sided_range([BEAROFF]).tolist() == [True]


@pytest.mark.parametrize(
    "boards",
    [Position(), Position().to_array(), "4HPwATDgc/ABMA", None],
    ids=["Position", "one board", "str", "None"],
)
def test_plays_may_reach_refuses_what_is_no_boards(boards: Any) -> None:
    with pytest.raises(InvalidPositionError, match="boards"):
        bearoff.plays_may_reach_two_sided_range(boards)
    with pytest.raises(InvalidPositionError, match="boards"):
        bearoff.in_two_sided_range(boards)


def test_plays_may_reach_names_the_row_that_is_no_position() -> None:
    too_many = np.array([Position().to_array(), Position().to_array()], dtype=np.int64)
    too_many[1, 0, 5] += 25  # 40 checkers
    negative = np.array([Position().to_array()], dtype=np.int64)
    negative[0, 1, 5] = -1
    for boards in (too_many, negative):
        row = len(boards) - 1
        for check in (bearoff.plays_may_reach_two_sided_range, bearoff.in_two_sided_range):
            with pytest.raises(InvalidPositionError, match=f"row {row}"):
                check(boards)


@pytest.mark.parametrize(
    ("spelling", "table"),
    [
        ("mover", "owned"),
        ("opponent", "unavailable"),
        ("center", "centred"),
        ("centre", "centred"),
        ("centered", "centred"),
    ],
)
def test_bearoff_cubeful_equity_takes_the_apis_owner_names(spelling: str, table: str) -> None:
    pair = ([2, 0, 1, 0, 0, 0], [0, 1, 1, 1, 0, 0])
    for may_double in (True, False):
        got = bearoff.cubeful_equity(pair, spelling, may_double)  # type: ignore[arg-type]
        assert got == bearoff.cubeful_equity(pair, table, may_double)  # type: ignore[arg-type]


def test_bearoff_cubeful_equity_names_every_owner_when_refusing() -> None:
    pair = ([1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0])
    with pytest.raises(BgfastError, match="cube must be") as refused:
        bearoff.cubeful_equity(pair, "nobody")  # type: ignore[arg-type]
    for name in ("centred", "owned", "unavailable", "mover", "opponent", "nobody"):
        assert name in str(refused.value)
    with pytest.raises(TypeError):
        bearoff.cubeful_equity(pair, 5)  # type: ignore[arg-type]


# ------------------------------------------------------------------ 5. the README


def test_the_readme_says_what_a_wrong_type_raises() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "or a `TypeError` for a value of the wrong type;" not in readme
    assert "A setting of the wrong type is its setting's error too" in readme
    calls: list[tuple[Any, type[BaseException], str]] = [
        (lambda: Game(match_length="3"), MatchOptionError, "match_length"),
        (lambda: bgfast.Match("3"), MatchOptionError, "length"),
        (lambda: bgfast.Cube(value="2"), MatchOptionError, "value"),
        (lambda: bgfast.Rules(jacoby=1), MatchOptionError, "jacoby"),
        (lambda: bgfast.rollout(match_length="3", games=1), MatchOptionError, "match_length"),
        (lambda: met.equity("3", 2), bgfast.errors.InvalidScoreError, "away"),
        (lambda: Position.from_id(5), TypeError, "str"),
        (lambda: Position().play(5, (3, 1)), TypeError, "move"),
        (lambda: bgfast.rollout(games="5"), TypeError, "games"),
    ]
    for call, kind, name in calls:
        with pytest.raises(kind, match=re.escape(name)):
            call()


# ------------------------------------------------------------------ 6. scheme names


@pytest.mark.parametrize("policy", ["pubeval", "random", "wildbg"])
def test_an_unknown_scheme_is_refused_with_a_native_policy(policy: str) -> None:
    for run in (
        lambda: bgfast.rollout(games=1, policy=policy, scheme="nope"),
        lambda: bgfast.rollout_moves(Position(), (3, 1), games=1, policy=policy, scheme="nope"),
        lambda: bgfast.rollout_cube(games=1, policy=policy, scheme="nope"),
    ):
        with pytest.raises(BgfastError, match="unknown feature scheme 'nope'") as refused:
            run()
        for name in SCHEMES:
            assert name in str(refused.value)
    with pytest.raises(TypeError, match="scheme"):
        bgfast.rollout(games=1, policy=policy, scheme=5)  # type: ignore[arg-type]


def test_an_unknown_scheme_is_refused_with_an_evaluator_callable() -> None:
    def evaluator(features: Any) -> Any:
        return np.zeros(len(features))

    with pytest.raises(BgfastError, match="unknown feature scheme 'nope'"):
        bgfast.rollout(games=1, policy=evaluator, scheme="nope")


def test_every_scheme_name_still_runs_with_a_native_policy() -> None:
    for name in SCHEMES:
        result = bgfast.rollout(games=2, policy="random", seed=1, scheme=name)
        assert result.games == 2
