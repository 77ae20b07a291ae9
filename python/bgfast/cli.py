"""The bgfast command, one subcommand a job.

bgfast rollout ID rolls out a position (the main job); bgfast moves ID [DICE] lists the legal
moves of a position with their resulting Position IDs (with --policy wildbg, ranked by the
net at the cube and score the ID gives, like GNU Backgammon's hint; --json for scripts);
bgfast eval ID gives a net's chances and the cube decision at the ID's stakes; bgfast
analyse FILE rates every play of a .mat or SGF match file; bgfast convert A B turns one
match file format into the other; bgfast bearoff build builds the bear-off databases ahead
of time; bgfast serve gnubg-external and bgfast serve http serve other programs (GNU
Backgammon's external-player protocol, a JSON API). bgfast --version names the version
(--verbose: the builds this machine runs).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from bgfast import _core, bearoff, codec, cubeful
from bgfast._cli_common import add_cube_life, before_the_opening_roll, play_words, whose_score
from bgfast._cli_common import dice as dice_arg
from bgfast._core import BgfastError, Position
from bgfast._version import __version__
from bgfast.cubeful import Stakes
from bgfast.errors import InvalidIdError, MatchOptionError
from bgfast.hint import hint
from bgfast.policies import net_of, parse_net, parse_policy
from bgfast.state import GameState, roll_to_play


def read_position(text: str) -> tuple[Position, tuple[int, int] | None]:
    """The position (seen from the side to move) and the dice, if it holds any, of a GNU
    Backgammon Position ID (its ``Position ID:`` label allowed), a GNUbg ID
    (``PositionID:MatchID``, ``GNUbgID`` prefix allowed) or an XGID, with stray spaces
    anywhere removed, or of a FIBS ``board:`` line.
    ``BgfastError`` (an ``InvalidIdError`` or ``InvalidPositionError``) naming what is
    wrong otherwise."""
    state = codec.state_from_id(text)
    if state is None:
        return Position.from_id(codec.unlabelled_id(text)), None
    if state.turn is None:
        raise InvalidIdError(before_the_opening_roll(text, state))
    return state.position, state.dice


def _cmd_moves(args: argparse.Namespace) -> int:
    position, held = read_position(args.position)
    dice = roll_to_play(args.dice, held, args.position.strip())
    if dice is None:
        raise BgfastError("give the dice (such as 31): the position does not hold a roll to play")
    if args.policy is not None:
        state = codec.state_from_id(args.position)  # its cube, score and rules, if it says
        subject = position if state is None else state
        life = cubeful.DEFAULT_CUBE_LIFE if args.cube_life is None else args.cube_life
        return _print_ranked(subject, dice, args.policy, args.json, life)
    if args.cube_life is not None:
        raise BgfastError(
            "--cube-life goes with --policy: the cube model values the plays a net ranks"
        )
    moves = position.moves(dice)
    if args.json:
        plays = [{"move": str(m), "result": m.result.id} for m in moves]
        _print_json({"position": position.id, "dice": list(dice), "moves": plays})
        return 0
    width = max((len(str(m)) for m in moves), default=0)
    for move in moves:
        text = play_words(move)
        print(f"{text:<{width}}  {move.result.id}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    """The net's chances for the side to move before it rolls (exact in the two-sided
    bear-off database's range, as GNU Backgammon's), their cubeless equity and
    the cube decision at the ID's stakes, like GNU Backgammon's ``eval``; with a double
    waiting, the doubled side's answer too."""
    position, _ = read_position(args.position)
    state = codec.state_from_id(args.position)
    net = parse_net(args.net, "--net")
    # Exact in the two-sided bear-off database's range, as the cube values beside them.
    board = position.to_array()[None]
    p = bearoff.exact_chances(board, net.evaluate(board))[0]
    equity = float(2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4])
    stakes, no_decision = _cube_question(position, state)
    decision = None
    if stakes is not None and no_decision is None:
        decision = cubeful.decide_for(p, stakes, args.cube_life, position=position)
    names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
    if args.json:
        out: dict[str, Any] = {
            "position": position.id,
            "stakes": None if stakes is None else stakes.describe(),
        }
        out.update({name: float(x) for name, x in zip(names, p)}, equity=equity)
        out["cube"] = None if decision is None else _decision_data(decision)
        out["cube_life"] = None if decision is None else _life_used(args.cube_life, board)
        _print_json(out)
        return 0
    whose = "the chances of the side to move, before it rolls"
    print(whose if stakes is None else f"{stakes.words()}: {whose}{whose_score(stakes)}")
    print("   win    wg   wbg |  lose    lg   lbg  cubeless")
    win, wg, wbg, lg, lbg = (float(x) for x in p)
    print(f" {win:.3f} {wg:.3f} {wbg:.3f} | {1 - win:.3f} {lg:.3f} {lbg:.3f}    {equity:+.3f}")
    if decision is None:
        print(f"no cube decision: {no_decision}")
        if state is not None and state.dice is not None:
            # The dice are rolled: the decision left is the play (R18: the cube comes first).
            print(
                "to rank this roll's plays: bgfast moves"
                f" {shlex.quote(args.position.strip())} --policy {shlex.quote(args.net)}"
            )
        return 0
    life = _life_used(args.cube_life, board)
    named = f"cube life {life:g}" + (", GNU Backgammon's" if args.cube_life == "gnubg" else "")
    print(f"cube: {decision.action}" + (f" ({decision.why_not})" if decision.why_not else ""))
    print(f"  ({named})")
    values = (decision.no_double, decision.double_take, decision.double_pass)
    labels = ("no double", "double, take", "double, pass")
    for label, value, key in zip(labels, values, ("no_double", "double_take", "double_pass")):
        if decision.emg is None:
            print(f"  {label:<13} {value:+.3f}")
        else:
            print(f"  {label:<13} {decision.emg[key]:+.3f} EMG  {value:6.1%} MWC")
    if state is not None and state.phase == "doubled":
        print(f"the double waiting is answered: {decision.answer}")
    return 0


def _life_used(cube_life: cubeful.CubeLife, board: npt.NDArray[np.uint8]) -> float:
    """The cube life index the cube model used for ``board``: the number given, or GNU
    Backgammon's index of the position."""
    if isinstance(cube_life, str):
        return float(_core.gnubg_cube_lives(board)[0])
    return float(cube_life)


def _cube_question(position: Position, state: GameState | None) -> tuple[Stakes | None, str | None]:
    """The stakes of the side to move an ID gives (``None`` past the match equity table),
    and why it has no cube decision to make (``None`` when it has one)."""
    try:
        stakes = Stakes.of(position if state is None else state)
    except MatchOptionError as error:
        # A score past the match equity table (R20): the chances do not depend on the
        # score, only the cube decision does, which the model cannot give (as /evaluate).
        return None, str(error)
    return stakes, cubeful.why_no_cube_action(position if state is None else state)


def _decision_data(decision: cubeful.CubeDecision) -> dict[str, Any]:
    """A cube decision as plain data for JSON."""
    return {
        "action": decision.action,
        "may_double": decision.may_double,
        "why_not": decision.why_not,
        "no_double": decision.no_double,
        "double_take": decision.double_take,
        "double_pass": decision.double_pass,
        "emg": decision.emg,
        "mwc": decision.mwc,
        "answer": decision.answer,
    }


def _print_json(data: dict[str, Any]) -> None:
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")


def _print_ranked(
    subject: Position | GameState,
    dice: tuple[int, int],
    policy: str,
    as_json: bool,
    cube_life: cubeful.CubeLife,
) -> int:
    """The plays ranked by a net at the stakes, best first, like GNU Backgammon's ``hint``
    (:func:`bgfast.hint`): cubeful equity, its difference to the best, match-winning
    chances in a match, cubeless equity and the chances after the play for the side that
    moves."""
    net = net_of(parse_policy(policy))
    if net is None:
        raise BgfastError(
            f"--policy {policy} has no probabilities to rank plays by: use wildbg, wildbg-large"
            " or a .bgnet net file"
        )
    stakes = Stakes.of(subject)
    ranked = hint(net, subject, dice, stakes=stakes, cube_life=cube_life)
    position = subject.position if isinstance(subject, GameState) else subject
    best = ranked[0].cubeful_equity
    if as_json:
        names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
        plays = [
            {
                "move": str(h.move),
                "cubeful_equity": h.cubeful_equity,
                "diff": h.cubeful_equity - best,
                "mwc": h.mwc,
                "equity": h.equity,
                **{name: float(x) for name, x in zip(names, h.probabilities)},
                "result": h.move.result.id,
            }
            for h in ranked
        ]
        out = {"position": position.id, "dice": list(dice), "stakes": stakes.describe()}
        _print_json({**out, "cube_life": cube_life, "moves": plays})
        return 0
    # The columns are as wide as their widest entry: the heading "play" is wider than a
    # play of one die such as "9/6", and a roll of doubles can have over 999 plays. Each
    # heading ends where its numbers end.
    width = max(len("play"), *(len(play_words(h.move)) for h in ranked))
    rank_width = max(3, len(str(len(ranked))))
    mwc = f" {'mwc':>6}" if stakes.is_match else ""
    unit = "EMG, " if stakes.is_match else ""
    life = "GNU Backgammon's by position" if isinstance(cube_life, str) else f"{cube_life:g}"
    print(
        f"{stakes.words()}: cubeful equity ({unit}the side to move's), best first"
        + whose_score(stakes)
        + f"; cube life {life}"
    )
    print(
        f"{'':>{rank_width + 1}} {'play':<{width}}  {'cubeful':>7} {'diff':>7}{mwc}"
        f" {'cubeless':>8}    win    wg   wbg |  lose    lg   lbg  result"
    )
    for k, h in enumerate(ranked, 1):
        win, wg, wbg, lg, lbg = (float(x) for x in h.probabilities)
        diff = f"{h.cubeful_equity - best:+7.3f}" if k > 1 else ""
        chances = "" if h.mwc is None else f" {h.mwc:6.1%}"
        print(
            f"{k:>{rank_width}}. {play_words(h.move):<{width}}  {h.cubeful_equity:+7.3f}"
            f" {diff:>7}"
            f"{chances} {h.equity:+8.3f}  {win:.3f} {wg:.3f} {wbg:.3f} |"
            f" {1 - win:.3f} {lg:.3f} {lbg:.3f}  {h.move.result.id}"
        )
    return 0


def _version(verbose: bool) -> str:
    """The version line; with ``verbose``, the builds and threads this process uses."""
    lines = [f"bgfast {__version__}"]
    if verbose:
        isa = _core.isa_report()
        forced = " (BGFAST_ISA=baseline)" if isa["forced_baseline"] else ""
        lines += [
            f"move generator: {isa['generator']}{forced}",
            f"row writer: {isa['row_writer']}{forced}",
            f"net evaluation: {isa['net']}{forced}",
            f"threads by default: {_core.default_threads()} (at most {_core.MAX_THREADS})",
        ]
        asked = os.environ.get("BGFAST_ISA", "")
        if asked.strip() not in ("", "baseline"):
            # The native code reads only "baseline" and runs the best builds otherwise.
            lines.append(f"BGFAST_ISA={asked!r} ignored: its one value is 'baseline'")
    return "\n".join(lines)


class _Formatter(argparse.HelpFormatter):
    """Help text wrapped at spaces only, so that a name with a hyphen in it
    (``gnubg-external``, ``--cube-life``, ``wildbg-large``) is never split across lines."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(_one_line(text), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            _one_line(text),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


def _one_line(text: str) -> str:
    """``text`` with every run of white space made one space, as argparse wraps help."""
    return re.sub(r"\s+", " ", text).strip()


#: A flag that one command takes and another takes under another name: (the command's
#: usage name, the flag given) -> what the command takes instead. No aliases: each setting
#: has one name on a command, and the hint names it.
_MIXUPS = {
    ("bgfast eval", "--policy"): "eval takes --net NET (wildbg, wildbg-large or a .bgnet"
    " file) for its net, not --policy",
    ("bgfast analyse", "--policy"): "analyse takes --net NET (wildbg, wildbg-large or a"
    " .bgnet file) for the net that rates the decisions, not --policy",
    ("bgfast moves", "--net"): "moves takes --policy NET (wildbg, wildbg-large or a .bgnet"
    " file) to rank the plays by a net, not --net",
    ("bgfast rollout", "--net"): "rollout takes --policy POLICY for the checker play and"
    " --evaluator NET for truncation, variance reduction and the cube, not --net",
    ("bgfast serve gnubg-external", "--net"): "serve gnubg-external takes --policy POLICY"
    " (wildbg, wildbg-large, pubeval, race, random or a .bgnet file), not --net",
}


def _mixup_hint(prog: str, extras: Sequence[str]) -> str | None:
    """The way on for arguments ``bgfast``'s command ``prog`` does not take, when they are
    a common mix-up: another command's flag for the same setting (:data:`_MIXUPS`), or the
    dice of ``rollout ID 31``, which rolls out the plays of a roll with ``--moves 31``."""
    for extra in extras:
        hint = _MIXUPS.get((prog, extra.split("=", 1)[0]))
        if hint is not None:
            return hint
    if prog == "bgfast rollout":
        for extra in extras:
            if not extra.startswith("-"):
                try:
                    dice_arg(extra)
                except argparse.ArgumentTypeError:
                    continue
                return f"to roll out the plays of a roll: --moves {extra}"
    return None


class _Parser(argparse.ArgumentParser):
    """An argument parser that names the subcommands to give when one is missing, not the
    name its value is stored under (``required: bearoff_command``), wraps its help at
    spaces only (:class:`_Formatter`) and refuses what it does not take itself, with its
    own usage line and a hint for the common mix-ups (argparse leaves a subcommand's
    unknown arguments to the top-level parser, whose usage names no subcommand's
    arguments). The subcommands' parsers are of this class too (``add_subparsers`` makes
    its parsers of the parent's class)."""

    #: Whether ``--verbose`` was given without ``--version`` (said when no command is).
    verbose_alone = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parses ``args`` as ``parse_args`` does: what this parser does not take is an
        error of this parser's (a subcommand's parser is called through this method)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            message = f"unrecognized arguments: {' '.join(extras)}"
            hint = _mixup_hint(self.prog, extras)
            self.error(message if hint is None else f"{message}; {hint}")
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        for action in self._actions:
            if not isinstance(action, argparse._SubParsersAction) or action.dest is None:
                continue
            named = {action.dest, action.metavar}
            if any(message.endswith(f"required: {name}") for name in named if name):
                names = ", ".join(a.dest for a in action._choices_actions)
                message = f"give a command: {names} (see {self.prog} -h)"
                if self.verbose_alone:
                    message += "; --verbose goes with --version"
        super().error(message)


#: What ``bgfast -h`` says above the list of commands (which the list then tells apart).
_DESCRIPTION = (
    "Backgammon on the command line, one command a job: rolling out positions, listing and"
    " ranking plays, evaluating positions and cube decisions, analysing and converting"
    " match files, serving other programs. bgfast COMMAND -h gives a command's arguments;"
    " bgfast --version names the version (--verbose: the builds this machine runs)."
)


def _parser() -> _Parser:
    parser = _Parser(prog="bgfast", description=_DESCRIPTION)
    # Both are answered in main() before any subcommand is required.
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--verbose", action="store_true", help="with --version: the builds and threads used"
    )
    commands = parser.add_subparsers(
        dest="command", required=True, title="commands", metavar="COMMAND"
    )
    moves = commands.add_parser("moves", help="list the legal moves of a position and roll")
    moves.add_argument(
        "position",
        help="a GNU Backgammon Position ID (4HPwATDgc/ABMA), GNUbg ID (PositionID:MatchID), "
        "XGID (spaces in it are ignored), or a FIBS board: line",
    )
    moves.add_argument(
        "dice",
        type=dice_arg,
        nargs="?",
        default=None,
        help="the roll, e.g. 31 (an ID that holds dice gives its own roll, and takes no other)",
    )
    moves.add_argument(
        "--policy",
        default=None,
        metavar="NET",
        help="rank the plays by a net (wildbg, wildbg-large, or a .bgnet file) at the cube"
        " and score the ID gives (money, centred cube for a Position ID), like GNU Backgammon's"
        " hint: cubeful is the cubeful equity of the side that moves, per unit of the cube now"
        " (EMG in a match), diff its difference to the best play, mwc its match-winning"
        " chances, cubeless the net's money equity (cubeful_equity, diff, mwc and equity in"
        " the JSON)",
    )
    add_cube_life(moves, default=None)
    moves.add_argument("--json", action="store_true", help="print JSON for scripts")
    moves.set_defaults(run=_cmd_moves)
    evaluate = commands.add_parser(
        "eval",
        help="a net's chances and cube decision for a position, like gnubg's eval",
        description="A net's chances for the side to move, before it rolls, their cubeless"
        " equity and the cube decision, like GNU Backgammon's eval. The cube decision is for"
        " the cube and score the ID gives (money, centred cube for a Position ID); its values"
        " are the side to move's, per unit of the cube now in money (a double/pass is"
        " +1.000); in a match the table prints each as EMG and MWC, and the JSON's"
        " top-level no_double, double_take and double_pass are the side's MWC, with emg"
        " and mwc beside (null in money). With a double waiting, the side to move is the"
        " doubler and the last line the doubled side's answer; with the dice rolled there is"
        " no cube decision (bgfast moves ID --policy wildbg ranks the roll's plays).",
    )
    evaluate.add_argument(
        "position",
        help="a GNU Backgammon Position ID (4HPwATDgc/ABMA), GNUbg ID (PositionID:MatchID),"
        " XGID (spaces in it are ignored), or a FIBS board: line",
    )
    evaluate.add_argument(
        "--net", default="wildbg", help="wildbg (the default), wildbg-large or a .bgnet file"
    )
    add_cube_life(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print JSON for scripts")
    evaluate.set_defaults(run=_cmd_eval)
    # rollouts
    from bgfast import _cli_rollout

    rollout = commands.add_parser(
        "rollout", help="roll out a position: win, gammon and backgammon chances, equity"
    )
    _cli_rollout.add_arguments(rollout)
    rollout.set_defaults(run=_cli_rollout.run)
    # match files
    from bgfast import _cli_match

    _cli_match.add_commands(commands)
    bearoff.add_cli(commands)
    from bgfast import _cli_serve

    _cli_serve.add_cli(commands)
    return parser


def _bare_xgids(argv: list[str]) -> list[str]:
    """``argv`` with a bare XGID (pasted without ``XGID=``; it starts with ``-`` unless
    player 0 has checkers on the bar) given its prefix, so that the argument parser does
    not take it for an option."""
    return ["XGID=" + a if a.startswith("-") and a.count(":") == 9 else a for a in argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status (2 for bad input, with a message)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if "--version" in argv and all(a in ("--version", "--verbose") for a in argv):
            print(_version(verbose="--verbose" in argv))
            sys.stdout.flush()  # a write error is reported here, not at the interpreter's exit
            return 0
        parser = _parser()
        parser.verbose_alone = "--verbose" in argv and "--version" not in argv
        args = parser.parse_args(_bare_xgids(argv))
        try:
            status: int = args.run(args)
        except BgfastError as error:
            print(f"bgfast: {error}", file=sys.stderr)
            return 2
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``bgfast moves ... | head``): end quietly, as Python's
        # documentation advises, without a second error when the interpreter flushes.
        _drop_stdout()
        return 1
    except KeyboardInterrupt:
        # Ctrl-C: stopped as asked, in one line (the status a shell gives SIGINT, 128 + 2).
        print("bgfast: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        # Mostly the output that cannot be written (a full disk, a failing device): the
        # commands turn every file they cannot read into a message of their own. One line,
        # and no second error when the interpreter flushes what stdout still holds.
        why = error.strerror or str(error)
        if error.filename is None:
            print(f"bgfast: cannot write the output: {why}", file=sys.stderr)
        else:
            print(f"bgfast: {error.filename}: {why}", file=sys.stderr)
        _drop_stdout()
        return 1


def _drop_stdout() -> None:
    """Points stdout at the null device, so that nothing is written to it any more."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
