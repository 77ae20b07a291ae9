"""The command line as a new user meets it: match files read by their text whatever their
name, options refused in the command's words (not the library's names or native limits),
help texts that state choices and defaults, the score said whose is whose, hints for the
notation and IDs of other programs, and ``convert`` saying what it wrote."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import START_ID, _lines

from bgfast import Match, codec
from bgfast._cli_match import _is_sgf
from bgfast.cli import _parser, main
from bgfast.met import DEFAULT_TABLE, table_names

DATA = Path(__file__).parent / "data" / "formats"
EXAMPLE = DATA / "example_3pt.mat"
EXAMPLE_SGF = DATA / "example_3pt.sgf"
#: A 7-point match, player 1 (the side to move) at 3, player 0 at 2: an XGID lists
#: player 0's score first.
XGID_3_2 = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:2:3:0:7:10"
#: The start before the opening roll: nobody is on roll (R3).
BEFORE_OPENING = "4HPwATDgc/ABMA:MAAAAAAAAAAE"


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The message of a command refused with status 2, by bgfast or by the argument
    parser, checked free of Python's internals."""
    try:
        status = main(list(argv))
    except SystemExit as stop:
        status = stop.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert status == 2 and out == "", (argv, out, err)
    assert "Traceback" not in err and "None" not in err
    return err


def _option(command: str, flag: str) -> argparse.Action:
    """The action of ``flag`` on ``bgfast COMMAND``."""
    parser = _parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices[command]
    return next(a for a in sub._actions if flag in a.option_strings)


# ---------------------------------------------------------------- 1. match file formats


def test_a_match_file_is_read_by_its_text_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # .mat text named .sgf said "line 1: a node outside any game tree", SGF text named
    # .mat "unknown line '(;FF[4]...' before the 'N point match' line".
    wrong_sgf, wrong_mat = tmp_path / "wrong.sgf", tmp_path / "wrong.mat"
    shutil.copy(EXAMPLE, wrong_sgf)
    shutil.copy(EXAMPLE_SGF, wrong_mat)
    expected = _lines(capsys, "analyse", str(EXAMPLE), "--worst", "3", "--threads", "1")
    for misnamed in (wrong_sgf, wrong_mat):
        assert _lines(capsys, "analyse", str(misnamed), "--worst", "3", "--threads", "1") == (
            expected
        )
        target = tmp_path / f"from-{misnamed.suffix[1:]}.sgf"
        assert _lines(capsys, "convert", str(misnamed), str(target))
        assert Match.from_sgf(target) == Match.from_mat(EXAMPLE)


def test_the_sgf_test_is_the_first_two_signs() -> None:
    assert _is_sgf(b"(;FF[4]")
    assert _is_sgf(b"\xef\xbb\xbf \n ( \r\n ;GM[6]")  # a byte order mark, white space
    assert not _is_sgf(b"(my club's match)\n 5 point match")  # ( without ; is .mat text
    assert not _is_sgf(b" 5 point match\n")
    assert not _is_sgf(b"")


# ------------------------------------------------------------------------- 2. --top


def test_top_says_it_ranks_among_the_listed_plays(capsys: pytest.CaptureFixture[str]) -> None:
    help_text = _option("rollout", "--top").help or ""
    assert "--move" in help_text and "among" in help_text
    # And it does: the best one of the two plays listed, not of all the roll's plays.
    argv = ["rollout", "--moves", "31", "--move", "24/23 24/21", "--move", "13/10 24/23"]
    out = _lines(capsys, *argv, "--top", "1", "--games", "2", "--seed", "1", "--threads", "1")
    plays = [line for line in out if line.lstrip()[:2] == "1 "]
    assert len(plays) == 1 and ("24/23" in plays[0])


# ------------------------------------------------------------------- 4. whose score


@pytest.mark.parametrize("command", [["eval"], ["moves", "--policy", "wildbg"]])
def test_a_match_score_is_said_whose_is_whose(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # "7-point match at 3-2" left the reader of an XGID (player 0's score first) to guess.
    xgid = XGID_3_2 if command[0] == "eval" else XGID_3_2.replace(":00:", ":31:")
    head = _lines(capsys, command[0], xgid, *command[1:])[0]
    assert "the side to move has 3, the opponent 2" in head
    assert main(["eval", XGID_3_2, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stakes"]["score"] == [3, 2]
    assert "the side to move has" not in _lines(capsys, "eval", START_ID)[0]  # money


# ---------------------------------------------------------- 5. stakes a rollout drops


@pytest.mark.parametrize(
    "flags",
    [["--cube-value", "4", "--cube-owner", "mover"], ["--cube-owner", "opponent"]],
)
def test_a_cube_in_a_cubeless_money_rollout_is_refused(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # It said "cubeless, money, cube 4 the mover's" and rolled out as if cube 1.
    err = _refused(capsys, "rollout", *flags, "--games", "2")
    assert "--cube-owner" in err and "cubeless" in err and "add --cubeful" in err
    for more in (["--cubeful"], ["--match", "7"]):  # cubeful, or a match's points
        out = _lines(capsys, "rollout", *flags, *more, "--games", "2", "--threads", "1")
        assert "cube 4 the mover's" in out[1] or "the opponent's" in out[1]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--score", "3,4"], "--score"),
        (["--crawford"], "--crawford"),
        (["--post-crawford", "--match", "0"], "--post-crawford"),
    ],
)
def test_a_match_setting_in_money_play_says_add_match(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, "rollout", *flags, "--games", "2")
    assert named in err and "add --match N" in err
    assert "money game has no match score" not in err and "match_length" not in err


# ---------------------------------------------------------- 6. the --moves table's unit


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([], "ranked by equity (cubeless, money"),
        (["--cubeful"], "ranked by cubeful equity (cubeful, money"),
        (["--match", "5"], "ranked by MWC (cubeless, 5-point match"),
    ],
)
def test_the_moves_table_says_which_value_ranks_the_plays(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rollout", "--moves", "31", "--top", "2", "--games", "2", "--threads", "1"]
    assert said in _lines(capsys, *argv, *flags)[1]


# ---------------------------------------------------------------------- 7. help texts


def test_help_texts_state_choices_and_defaults() -> None:
    assert "Crawford game" in (_option("rollout", "--crawford").help or "")
    assert "after the Crawford game" in (_option("rollout", "--post-crawford").help or "")
    met = _option("rollout", "--met").help or ""
    assert all(name in met for name in table_names()) and f"default: {DEFAULT_TABLE}" in met
    assert "default: 100000" in (_option("rollout", "--games").help or "")
    assert "default: off" in (_option("rollout", "--truncate").help or "")
    assert "default: 10" in (_option("analyse", "--worst").help or "")
    assert _option("analyse", "--worst").default == 10


# ---------------------------------------------------------- 8. argparse's internal names


@pytest.mark.parametrize(
    ("argv", "commands", "internal"),
    [
        (["bearoff"], "build", "bearoff_command"),
        (["serve"], "gnubg-external, http", "server"),
        (["--verbose"], "moves, eval, rollout, analyse", "command"),
    ],
)
def test_a_missing_command_is_named_by_its_choices(
    argv: list[str], commands: str, internal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, *argv)
    assert f"give a command: {commands}" in err
    assert f"required: {internal}" not in err
    assert ("--verbose goes with --version" in err) == (argv == ["--verbose"])


def test_analyze_is_analyse(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(EXAMPLE), "--worst", "2", "--threads", "1"]
    assert _lines(capsys, "analyze", *argv) == _lines(capsys, "analyse", *argv)


# ---------------------------------------------------------------- 9. internal limits


@pytest.mark.parametrize(
    ("flags", "said", "internal"),
    [
        (["--games", "-5"], "--games must be a positive number of games", "18446744073709551615"),
        (["--moves", "31", "--top", "0"], "--top must be a positive number", "2147483648"),
        (["--truncate", "-1"], "--truncate must be a number of plies", "4294967295"),
        (["--threads", "0"], "--threads must be from 1 to", "threads must be from 1 to 256, got"),
    ],
)
def test_counts_out_of_range_are_refused_in_the_commands_words(
    flags: list[str], said: str, internal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, "rollout", *flags)
    assert said in err and internal not in err


# ---------------------------------------------------------- 10. notation and ID labels


def test_a_play_written_with_dashes_gets_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, "rollout", "--moves", "31", "--move", "8-5 6-5", "--games", "2")
    assert "invalid move text" in err and "write points with '/', as 8/5 6/5" in err
    # A play that is wrong otherwise gets no such hint.
    err = _refused(capsys, "rollout", "--moves", "31", "--move", "8/4 6/5", "--games", "2")
    assert "write points with" not in err


def test_gnubg_s_labels_are_read(capsys: pytest.CaptureFixture[str]) -> None:
    # GNU Backgammon prints "Position ID: ..." and "Match ID   : ..."; "GNUbg ID: ..."
    # was read, "Position ID: ..." refused.
    gnubg_id = "4HPwATDgc/ABMA:cAkAAAAAAAAA"
    assert codec.unlabelled_id("Position ID: 4HPwATDgc/ABMA") == START_ID
    labelled = "Position ID: 4HPwATDgc/ABMA\nMatch ID   : cAkAAAAAAAAA"
    assert codec.unlabelled_id(labelled) == gnubg_id
    assert codec.state_from_id(labelled) == codec.state_from_id(gnubg_id)
    bare = _lines(capsys, "moves", START_ID, "31")
    assert _lines(capsys, "moves", f"Position ID: {START_ID}", "31") == bare
    assert _lines(capsys, "moves", f"position id:{START_ID}", "31") == bare
    assert _lines(capsys, "eval", labelled) == _lines(capsys, "eval", f"GNUbg ID: {gnubg_id}")
    argv = ["--games", "2", "--seed", "1", "--threads", "1", "--json"]
    labelled_rollout = json.loads(
        "\n".join(_lines(capsys, "rollout", f"Position ID: {START_ID}", *argv))
    )
    assert labelled_rollout["position"] == START_ID


@pytest.mark.parametrize("command", [["rollout"], ["eval"], ["moves"]])
def test_an_id_before_the_opening_roll_points_to_the_bare_position_id(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused(capsys, *command, BEFORE_OPENING)
    assert "before the opening roll (R3)" in err and f"bare Position ID ({START_ID})" in err


# ------------------------------------------------------- 11. the bear-off cache's warning


def test_an_unwritable_cache_is_one_line_of_bgfast_s_own(tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "bgfast", "bearoff", "build", "--cache-dir", str(a_file)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    # Refused before anything is built, as a bad flag is: one line, the system's reason.
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines == [f"bgfast: --cache-dir {a_file}: Not a directory"], done.stderr
    assert "RuntimeWarning" not in done.stderr and "_load_or_build" not in done.stderr


# ----------------------------------------------------------------------- 12. convert


def test_convert_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sgf = tmp_path / "m.sgf"
    (line,) = _lines(capsys, "convert", str(EXAMPLE), str(sgf))
    assert str(sgf) in line and "SGF" in line and "2 games" in line
    (line,) = _lines(capsys, "convert", str(sgf), str(tmp_path / "m.txt"))
    assert "m.txt" in line and ".mat" in line and "2 games" in line


# ------------------------------------------------- options that would go unused, refused


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["rollout", START_ID, "--games", "2", "--met", "woolsey"], "add --match N"),
        (["rollout", START_ID, "--games", "2", "--cube-life", "0.3"], "add --cubeful"),
        (["moves", START_ID, "31", "--cube-life", "0.5"], "--cube-life goes with --policy"),
    ],
)
def test_an_option_the_command_would_not_use_is_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    # Each was taken and silently unused: a money rollout has no match equity table, a
    # cubeless one no cube model, a plain list of moves no cube decisions.
    assert said in _refused(capsys, *argv)


def test_the_options_run_where_they_are_used(capsys: pytest.CaptureFixture[str]) -> None:
    seeded = ["--games", "2", "--seed", "1", "--json"]
    match = _lines(capsys, "rollout", START_ID, "--match", "5", "--met", "woolsey", *seeded)
    assert json.loads("\n".join(match))["settings"]["met"] == "woolsey"
    cube = _lines(capsys, "rollout", START_ID, "--cubeful", "--cube-life", "0.3", *seeded)
    assert json.loads("\n".join(cube))["settings"]["cube_life"] == 0.3
    ranked = _lines(capsys, "moves", START_ID, "31", "--policy", "wildbg", "--cube-life", "0.5")
    assert "8/5 6/5" in "\n".join(ranked)


def test_a_convert_target_of_no_known_kind_names_every_kind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    said = _refused(capsys, "convert", str(EXAMPLE), str(tmp_path / "out.xyz"))
    assert ".mat (or .txt)" in said and ".sgf" in said


def test_one_costliest_decision_is_said_in_the_singular(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _lines(capsys, "analyse", str(EXAMPLE), "--worst", "1", "--threads", "1")
    assert "The costliest decision:" in out


def test_a_bgfast_isa_value_the_native_code_ignores_is_said(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BGFAST_ISA", "bogus")
    out = _lines(capsys, "--version", "--verbose")
    assert "BGFAST_ISA='bogus' ignored: its one value is 'baseline'" in out
    for unset in ("", " "):  # empty: as if unset, as the native code reads it
        monkeypatch.setenv("BGFAST_ISA", unset)
        assert not any("BGFAST_ISA" in line for line in _lines(capsys, "--version", "--verbose"))
    monkeypatch.delenv("BGFAST_ISA")
    assert not any("BGFAST_ISA" in line for line in _lines(capsys, "--version", "--verbose"))


def test_a_cube_rollout_says_how_sure_its_action_is(capsys: pytest.CaptureFixture[str]) -> None:
    # The action rested on a difference within its error with no word of it: the table
    # gives each margin the action rests on (double or not, take or pass), its error and
    # their ratio, and calls it close below 2.
    out = _lines(capsys, "rollout", START_ID, "--cube", "--games", "72", "--seed", "1")
    for start in ("double or not: ", "take or pass: double/take - double/pass: "):
        line = next(x for x in out if x.startswith(start))
        gain, rest = line.split(": ")[2].split(", stderr ")
        error = float(rest.split(" ")[0].rstrip(","))
        ratio = abs(float(gain)) / error
        assert f"{ratio:.1f} standard errors" in line
        assert ("close, more games would tell" in line) == (ratio < 2)
