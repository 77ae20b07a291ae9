"""The bgfast command, one subcommand a job.

bgfast rollout ID rolls out a position (the main job); bgfast moves ID DICE lists the legal
moves of a position with their resulting Position IDs; bgfast bearoff build builds the
bear-off databases ahead of time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bgfast import bearoff
from bgfast._core import BgfastError, Position


def _dice(text: str) -> tuple[int, int]:
    """Parses ``31`` or ``3-1`` or ``3,1`` into two dice."""
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2:
        raise argparse.ArgumentTypeError(f"dice must be two digits like 31, got {text!r}")
    return int(digits[0]), int(digits[1])


def _cmd_moves(args: argparse.Namespace) -> int:
    position = Position.from_id(args.position)
    moves = position.moves(*args.dice)
    width = max((len(str(m)) for m in moves), default=0)
    for move in moves:
        text = str(move) or "(no legal move: the turn passes)"
        print(f"{text:<{width}}  {move.result.id}")
    return 0


def _version(verbose: bool) -> str:
    """The version line; with ``verbose``, the builds and threads this process uses."""
    from bgfast import _core
    from bgfast.rollout import _version as version

    lines = [f"bgfast {version()}"]
    if verbose:
        isa = _core.isa_report()
        forced = " (BGFAST_ISA=baseline)" if isa["forced_baseline"] else ""
        lines += [
            f"move generator: {isa['generator']}{forced}",
            f"row writer: {isa['row_writer']}{forced}",
            f"threads by default: {_core.default_threads()} (at most {_core.MAX_THREADS})",
        ]
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bgfast", description=__doc__)
    # Both are answered in main() before any subcommand is required.
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--verbose", action="store_true", help="with --version: the builds and threads used"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    moves = commands.add_parser("moves", help="list the legal moves of a position and roll")
    moves.add_argument("position", help="GNU Backgammon Position ID, e.g. 4HPwATDgc/ABMA")
    moves.add_argument("dice", type=_dice, help="the roll, e.g. 31")
    moves.set_defaults(run=_cmd_moves)
    # rollouts
    from bgfast import _cli_rollout

    rollout = commands.add_parser(
        "rollout", help="roll out a position: win, gammon and backgammon chances, equity"
    )
    _cli_rollout.add_arguments(rollout)
    rollout.set_defaults(run=_cli_rollout.run)
    bearoff.add_cli(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--version" in argv and all(a in ("--version", "--verbose") for a in argv):
        print(_version(verbose="--verbose" in argv))
        return 0
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except BgfastError as error:
        print(f"bgfast: {error}", file=sys.stderr)
        return 2
    return status
