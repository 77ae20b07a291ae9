"""The bgfast command line: `moves` reads Position IDs, GNUbg IDs and XGIDs and writes JSON,
output into a closed pipe ends quietly, `--version`, and the bear-off build's progress bar
(only on a terminal, never going backwards)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import bgfast
from bgfast import Game, Position
from bgfast.bearoff import _Progress
from bgfast.cli import main, read_position

START_ID = "4HPwATDgc/ABMA"


def _lines(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(list(argv)) == 0
    return capsys.readouterr().out.splitlines()


def _xgid_and_gnubg_id() -> tuple[str, str, Game]:
    game = Game(seed=3)
    game.roll((6, 1))
    game.play("13/7 8/7")
    game.roll((4, 2))  # player 1 to play 4-2
    return game.xgid(), game.gnubg_id(), game


def test_moves_reads_every_kind_of_id(capsys: pytest.CaptureFixture[str]) -> None:
    xgid, gnubg_id, game = _xgid_and_gnubg_id()
    expected = _lines(capsys, "moves", game.position.id, "42")
    assert len(expected) == len(game.position.moves(4, 2))
    pos_id, match_id = gnubg_id.split(":")
    for text in (
        gnubg_id,
        f"GNUbgID: {pos_id}:{match_id}",
        f" {pos_id} : {match_id} ",  # stray spaces, as pasted
        xgid,
        xgid[len("XGID=") :],
        f"  {xgid}\n",
    ):
        assert _lines(capsys, "moves", text) == expected, text  # the dice come from the ID
        assert _lines(capsys, "moves", text, "4-2") == expected
    assert _lines(capsys, "moves", f" {game.position.id}  ", "42") == expected


def test_read_position_sees_the_side_on_roll() -> None:
    xgid, gnubg_id, game = _xgid_and_gnubg_id()
    assert read_position(xgid) == read_position(gnubg_id) == (game.position, (4, 2))
    assert read_position(START_ID) == (Position(), None)


def test_moves_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", START_ID, "31", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["position"] == START_ID and data["dice"] == [3, 1]
    moves = Position().moves(3, 1)
    assert [(m["move"], m["result"]) for m in data["moves"]] == [
        (str(m), m.result.id) for m in moves
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["moves", START_ID], "give the dice"),
        (["moves", "4HPwATDgc/ABMA:nonsense"], "GNUbg ID"),
        (["moves", "XGID=garbage"], "XGID"),
        (["moves", START_ID + ":cAkAAAAAAAAA:x"], "XGID"),
    ],
)
def test_moves_refuses_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "None" not in err and "Traceback" not in err


def test_bad_dice_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    for dice in ("71", "3", "3x1", "0-1"):
        for argv in (["moves", START_ID, dice], ["rollout", "--moves", dice]):
            with pytest.raises(SystemExit):
                main(argv)
            err = capsys.readouterr().err
            # Worded for the command line, not as Python's "(3, 1)".
            assert f"dice are two dice 1-6 such as 31, 3-1 or 3,1, not {dice!r}" in err
            assert "None" not in err and "(3, 1)" not in err


@pytest.mark.parametrize("flags", [["--cube"], ["--cubeful"], ["--truncate", "5"], ["--vr"]])
def test_what_needs_a_net_names_the_flag_to_add(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rollout", "--policy", "pubeval", "--games", "4", *flags]) == 2
    err = capsys.readouterr().err
    assert f"{flags[0]} needs a net" in err and "add --evaluator wildbg" in err
    assert "evaluator=" not in err  # the library's Python wording


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    """`bgfast moves ... | head` raised BrokenPipeError with a traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bgfast", "moves", START_ID, "11", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_broken_pipe_in_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    class Gone(io.TextIOWrapper):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    sink = open(tmp_path / "out", "wb")  # noqa: SIM115 - closed below
    saved = os.dup(1)
    try:
        monkeypatch.setattr(sys, "stdout", Gone(sink))
        assert main(["moves", START_ID, "31"]) == 1
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        sink.close()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert bgfast.__version__ == version("bgfast")
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"bgfast {bgfast.__version__}"
    out = subprocess.run(
        [sys.executable, "-m", "bgfast", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"bgfast {bgfast.__version__}"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_build_progress_never_goes_backwards() -> None:
    """The workers report out of order; the bar jumped back and forth."""
    screen = _Terminal()
    progress = _Progress(screen)
    for done in (3, 1, 7, 5, 10):
        progress("one-sided", done, 10)
    shown = [int(part.split("%")[0].split()[-1]) for part in screen.getvalue().split("\r")[1:]]
    assert shown == [30, 70, 100] and screen.getvalue().endswith("\n")
    assert progress.tables == {"one-sided"}


def test_the_build_progress_draws_only_on_a_terminal() -> None:
    log = io.StringIO()
    progress = _Progress(log)
    progress("two-sided", 5, 10)
    progress("two-sided", 10, 10)
    assert log.getvalue() == "" and progress.tables == {"two-sided"}


def test_a_fibs_board_line_reads_as_the_http_server_reads_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:2:3:0:7:10"
    state = bgfast.codec.state_from_xgid(xgid)
    line = bgfast.codec.fibs_board_of(state, "ann", "bob")
    assert main(["moves", line, "--json"]) == 0
    from_fibs = json.loads(capsys.readouterr().out)
    assert main(["moves", xgid, "--json"]) == 0
    assert from_fibs == json.loads(capsys.readouterr().out)
    assert from_fibs["dice"] == [6, 4]
    assert main(["eval", line, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stakes"]["score"] == [2, 3]


def test_a_roll_with_no_play_is_written_alike_in_every_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    closed = "27YdAAD/PwAAQA"  # on the bar against a closed board: no play (R6)
    for argv in (
        ["moves", closed, "66"],
        ["moves", closed, "66", "--policy", "wildbg"],
        ["rollout", closed, "--moves", "66", "--games", "4"],
    ):
        assert main(argv) == 0
        assert "(no play)" in capsys.readouterr().out, argv
    assert main(["moves", closed, "66", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["moves"][0]["move"] == ""


def test_eval_values_a_bearoff_cube_decision_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # `bgfast eval` used the cube life model in two-sided bear-offs: "no double" where GNU
    # Backgammon's exact values say double, take (+0.378 / +0.756).
    assert main(["eval", "QgAAaAAAAAAAAA", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cube = out["cube"]
    assert cube["action"] == "double, take"
    assert cube["no_double"] == pytest.approx(0.37804, abs=2e-4)
    # The chances beside them are the database's too, not the net's.
    win = bgfast.bearoff.win_probability(bgfast.Position.from_id("QgAAaAAAAAAAAA"))
    assert out["win"] == pytest.approx(win, abs=1e-6) and out["win_gammon"] == 0.0
    assert out["equity"] == pytest.approx(2 * win - 1, abs=1e-6)


def test_cube_life_is_chosen_on_every_command_that_takes_cube_decisions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A race at 4-2 in a 7-point match, the cube centred: GNU Backgammon's cube life says
    # double, 0.68 says no double (with gnubg's own chances; here the shipped net's).
    race = bgfast.GameState.start(position=Position.from_id("egoAAKcMAAAAAA"), match_length=7)
    state = race.replace(score=(4, 2), turn=0, phase="roll")
    state_id = bgfast.codec.gnubg_id_of(state)
    net = bgfast.Net.wildbg()
    board = state.position.to_array()[None]
    chances = bgfast.bearoff.exact_chances(board, net.evaluate(board))[0]
    stakes = bgfast.cubeful.Stakes.of(state)
    lives: dict[str, bgfast.cubeful.CubeLife] = {"gnubg": "gnubg", "0.3": 0.3}
    for life in lives:
        assert main(["eval", state_id, "--cube-life", life, "--json"]) == 0
        got = json.loads(capsys.readouterr().out)["cube"]
        want = bgfast.cubeful.decide_for(chances, stakes, lives[life], position=state.position)
        assert got["no_double"] == pytest.approx(want.no_double, abs=1e-9)
        assert got["double_take"] == pytest.approx(want.double_take, abs=1e-9)
    opening = bgfast.codec.gnubg_id_of(state.replace(position=Position()))
    argv = ["moves", opening, "31", "--policy", "wildbg", "--json"]
    for life in lives:
        assert main([*argv, "--cube-life", life]) == 0
        plays = json.loads(capsys.readouterr().out)["moves"]
        ranked = bgfast.hint(net, state.replace(position=Position()), (3, 1), cube_life=lives[life])
        assert [p["cubeful_equity"] for p in plays] == [h.cubeful_equity for h in ranked]
    for argv in (["eval", state_id], ["moves", state_id, "31"], ["analyse", "x.mat"]):
        with pytest.raises(SystemExit) as refused:
            main([*argv, "--cube-life", "1.5"])
        assert refused.value.code == 2
        assert "expected a number from 0 to 1 or gnubg, not '1.5'" in capsys.readouterr().err
