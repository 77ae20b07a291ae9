"""The command line as a newcomer reviewed it: a wrong argument refused by the subcommand
that got it (its usage line) with the flag it takes instead, scores written as bgfast
prints them, help that wraps at spaces and says its defaults, the next step after an
evaluation of rolled dice, beavers refused where nobody doubles, and the rollout settings
table naming each setting's flag."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

import pytest
from test_cli import START_ID, _lines
from test_cli_polish import _refused

from bgfast._cli_rollout import _pair
from bgfast.cli import _parser, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = Path(__file__).parent / "data" / "formats" / "example_3pt.mat"
#: A 7-point match, player 1 to play 3-1 (the side to move at 3, the opponent at 2).
XGID_ROLLED = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:2:3:0:7:10"
#: The same position before the roll.
XGID_ON_ROLL = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:2:3:0:7:10"


def _subparser(*names: str) -> argparse.ArgumentParser:
    """The parser of ``bgfast NAME...`` (``"serve", "gnubg-external"``)."""
    parser: argparse.ArgumentParser = _parser()
    for name in names:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def _flags(*names: str) -> set[str]:
    return {flag for a in _subparser(*names)._actions for flag in a.option_strings}


# ------------------------------------------------- 1. a wrong argument to a subcommand


@pytest.mark.parametrize(
    ("argv", "prog", "hint"),
    [
        (["eval", START_ID, "--policy", "wildbg"], "bgfast eval", "eval takes --net NET"),
        (["eval", "--policy=wildbg", START_ID], "bgfast eval", "eval takes --net NET"),
        (
            ["moves", START_ID, "31", "--net", "wildbg"],
            "bgfast moves",
            "moves takes --policy NET",
        ),
        (
            ["rollout", START_ID, "31"],
            "bgfast rollout",
            "to roll out the plays of a roll: --moves 31",
        ),
        (
            ["rollout", START_ID, "3-1"],
            "bgfast rollout",
            "to roll out the plays of a roll: --moves 3-1",
        ),
        (
            ["rollout", "--net", "wildbg"],
            "bgfast rollout",
            "rollout takes --policy POLICY for the checker play and --evaluator NET",
        ),
        (
            ["analyze", str(EXAMPLE), "--policy", "wildbg"],
            "bgfast analyse",
            "analyse takes --net NET",
        ),
        (
            ["serve", "gnubg-external", "--net", "wildbg"],
            "bgfast serve gnubg-external",
            "serve gnubg-external takes --policy POLICY",
        ),
    ],
)
def test_a_mixed_up_flag_is_refused_by_its_subcommand_with_the_flag_it_takes(
    argv: list[str], prog: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was the top-level parser's "bgfast: error: unrecognized arguments: --policy
    # wildbg" under "usage: bgfast [-h] [--version] ...", naming no subcommand's flags.
    err = _refused(capsys, *argv)
    assert err.startswith(f"usage: {prog} [-h]"), err
    assert f"{prog}: error: unrecognized arguments:" in err
    assert hint in err
    assert "usage: bgfast [-h] [--version]" not in err


def test_an_unknown_flag_gets_its_subcommands_usage_and_no_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _refused(capsys, "moves", START_ID, "31", "--bogus")
    assert err.startswith("usage: bgfast moves [-h]")
    assert err.rstrip().endswith("bgfast moves: error: unrecognized arguments: --bogus")
    # The dice of a rollout get their hint; other stray words get none.
    err = _refused(capsys, "rollout", START_ID, "wildbg")
    assert err.rstrip().endswith("bgfast rollout: error: unrecognized arguments: wildbg")


def test_the_mix_ups_have_no_aliases() -> None:
    # One way to say each thing: the hint names the flag, no command takes the other's.
    assert "--net" in _flags("eval") and "--policy" not in _flags("eval")
    assert "--net" in _flags("analyse") and "--policy" not in _flags("analyse")
    assert "--policy" in _flags("moves") and "--net" not in _flags("moves")
    assert "--policy" in _flags("rollout") and "--net" not in _flags("rollout")
    external = _flags("serve", "gnubg-external")
    assert "--policy" in external and "--net" not in external


def test_a_roll_given_for_the_position_of_a_rollout_points_to_moves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "bgfast rollout 31" said "invalid Position ID: a Position ID has 14 characters, not 2".
    err = _refused(capsys, "rollout", "31", "--games", "2")
    assert "'31' is a roll, not a position" in err and "--moves 31" in err
    err = _refused(capsys, "rollout", "xx", "--games", "2")
    assert "invalid Position ID" in err and "--moves" not in err


# ------------------------------------------------------------------------ 2. scores


@pytest.mark.parametrize("text", ["3,4", "3-4", " 3 , 4 ", "3 - 4"])
def test_a_score_is_read_with_a_comma_or_a_dash(text: str) -> None:
    assert _pair(text) == (3, 4)


@pytest.mark.parametrize("text", ["3:4", "3", "3,4,5", "a-b", "3--4", ""])
def test_a_malformed_score_names_both_forms(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="like 3,4 or 3-4"):
        _pair(text)


def test_rollout_takes_the_score_as_bgfast_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    # bgfast prints "7-point match at 3-4"; --score 3-4 said "expected two numbers like 3,4".
    argv = ["rollout", "--match", "7", "--games", "2", "--seed", "1", "--threads", "1"]
    dashed = json.loads("\n".join(_lines(capsys, *argv, "--score", "3-4", "--json")))
    commaed = json.loads("\n".join(_lines(capsys, *argv, "--score", "3,4", "--json")))
    assert dashed["settings"]["score"] == commaed["settings"]["score"] == [3, 4]
    assert dashed["statistics"] == commaed["statistics"]
    err = _refused(capsys, *argv, "--score", "3:4")
    assert "usage: bgfast rollout" in err and "3,4 or 3-4" in err and "'3:4'" in err


# -------------------------------------------------------------------------- 3. help


def _all_parsers() -> list[argparse.ArgumentParser]:
    """Every parser of the command line, subcommands' and theirs included."""
    found: list[argparse.ArgumentParser] = []
    todo: list[argparse.ArgumentParser] = [_parser()]
    while todo:
        parser = todo.pop()
        found.append(parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [p for p in action.choices.values() if p not in found + todo]
    return found


@pytest.mark.parametrize("columns", ["40", "52", "67", "80", "101"])
def test_help_wraps_at_spaces_never_inside_a_name(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The description wrapped "bgfast serve gnubg-" / "external" at 80 columns.
    monkeypatch.setenv("COLUMNS", columns)
    parsers = _all_parsers()
    assert len(parsers) >= 10  # bgfast, its commands, serve's and bearoff's
    for parser in parsers:
        for line in parser.format_help().splitlines():
            assert not re.search(r"[A-Za-z0-9]-$", line), (parser.prog, line)


def test_the_top_level_description_does_not_repeat_the_command_list() -> None:
    parser = _parser()
    description = parser.description or ""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in commands.choices:
        assert not re.search(rf"\b{re.escape(name)}\b", description), name
    assert "bgfast COMMAND -h" in description and "--version" in description
    assert "usage: bgfast [-h] [--version] [--verbose] COMMAND ..." in parser.format_help()


def test_a_missing_command_is_still_named_by_its_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _refused(capsys)
    assert "give a command: moves, eval, rollout, analyse, convert, bearoff, serve" in err
    assert "COMMAND" in err.splitlines()[0]  # the usage line


def test_eval_help_explains_its_output_in_the_description() -> None:
    evaluate = _subparser("eval")
    position = next(a for a in evaluate._actions if a.dest == "position")
    assert "EMG" not in (position.help or "") and "Position ID" in (position.help or "")
    text = " ".join(evaluate.format_help().split())
    assert "in a match the table prints each as EMG and MWC" in (evaluate.description or "")
    assert "top-level no_double, double_take and double_pass are the side's MWC" in text


def test_serve_gnubg_external_help_states_its_port_and_log() -> None:
    external = _subparser("serve", "gnubg-external")
    port = next(a for a in external._actions if "--port" in a.option_strings)
    assert port.default == 0 and "default 0: a free port" in (port.help or "")
    assert "the line printed on starting names" in (port.help or "")
    log = next(a for a in external._actions if "--log" in a.option_strings)
    assert log.metavar == "FILE" and "[--log FILE]" in external.format_usage()


# ------------------------------------------------------------ 4. eval of rolled dice


def test_eval_of_rolled_dice_says_how_to_rank_the_plays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _lines(capsys, "eval", XGID_ROLLED)
    assert "the chances of the side to move, before it rolls" in out[0]
    assert out[-2] == "no cube decision: the dice are rolled"
    prefix = "to rank this roll's plays: "
    assert out[-1] == f"{prefix}bgfast moves {XGID_ROLLED} --policy wildbg"
    # The command it names runs, and ranks the plays of that roll at the ID's stakes.
    argv = shlex.split(out[-1].removeprefix(prefix))
    assert argv[0] == "bgfast"
    ranked = _lines(capsys, *argv[1:])
    assert ranked[0].startswith("7-point match at 3-2") and ranked[2].startswith("  1. ")
    # Before the roll there is a cube decision, and no such line.
    assert not any(
        "to rank this roll's plays" in line for line in _lines(capsys, "eval", XGID_ON_ROLL)
    )


# ---------------------------------------------------------- 5. beavers and Jacoby


@pytest.mark.parametrize("more", [[], ["--cube-value", "2", "--cube-owner", "mover"]])
def test_beavers_in_a_cubeless_money_rollout_are_refused(
    more: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # --beavers was taken and did nothing, where --cube-value was refused as useless.
    err = _refused(capsys, "rollout", "--beavers", *more, "--games", "2")
    assert "cubeless money rollout has no use for it" in err and "add --cubeful" in err
    assert ("--beavers" in err) != bool(more)  # the cube's flags are named first
    for cubeful in (["--cubeful"], ["--cube"]):
        assert main(["rollout", "--beavers", *cubeful, "--games", "2", "--threads", "1"]) == 0
        capsys.readouterr()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--jacoby"], "--jacoby is a money-play option, and this is a 5-point match: drop it"),
        (["--beavers"], "--beavers is a money-play option"),
        (["--jacoby", "--beavers"], "--jacoby and --beavers are money-play options"),
    ],
)
def test_money_options_in_a_match_are_refused_in_the_commands_words(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said the library's "jacoby is a money-play option, not used in matches".
    err = _refused(capsys, "rollout", "--match", "5", *flags, "--cubeful", "--games", "2")
    assert said in err and "not used in matches" not in err


def test_jacoby_is_refused_in_a_cubeless_money_rollout_as_beavers_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A cubeless rollout leaves the cube out, and the Jacoby rule with it (R23 is about the
    # cube): its equity counts gammons and its plays are chosen by that equity.
    err = _refused(capsys, "rollout", "--jacoby", "--games", "2")
    assert "--jacoby counts gammons single" in err and "add --cubeful" in err
    # With the cube in play it is taken.
    assert _lines(capsys, "rollout", "--jacoby", "--cubeful", "--games", "2", "--json")


# ------------------------------------------------------ 6. the settings table's flags


def test_the_rollout_settings_table_names_real_flags() -> None:
    text = (ROOT / "docs" / "rollouts.md").read_text(encoding="utf-8")
    table = text[text.index("## Settings") : text.index("A GNUbg ID or an XGID carries")]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    header = next(line for line in table.splitlines() if line.startswith("| bgfast |"))
    assert [c.strip() for c in header.strip("|").split("|")][:3] == [
        "bgfast",
        "`bgfast rollout`",
        "GNU Backgammon",
    ]
    rollout = _flags("rollout")
    named = set()
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4, row
        named |= set(re.findall(r"--[a-z][a-z-]*", cells[1]))
    assert named <= rollout, named - rollout
    wanted = {"--truncate", "--vr", "--no-quasi", "--bearoff", "--cube-value", "--cube-owner"}
    wanted |= {"--met", "--evaluator", "--checkpoint", "--score", "--match", "--cube-life"}
    assert wanted <= named, wanted - named
