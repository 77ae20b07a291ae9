"""The bgfast command, one subcommand a job.

bgfast rollout ID rolls out a position (the main job); bgfast moves ID DICE lists the legal
moves of a position with their resulting Position IDs (with --policy wildbg, ranked by the
net with their probabilities and equities, like GNU Backgammon's hint); bgfast bearoff build
builds the bear-off databases ahead of time.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bgfast import bearoff
from bgfast._core import BgfastError, Net, Position
from bgfast.policies import parse_policy


def _dice(text: str) -> tuple[int, int]:
    """Parses ``31`` or ``3-1`` or ``3,1`` into two dice."""
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2:
        raise argparse.ArgumentTypeError(f"dice must be two digits like 31, got {text!r}")
    return int(digits[0]), int(digits[1])


def _cmd_moves(args: argparse.Namespace) -> int:
    position = Position.from_id(args.position)
    if args.policy is not None:
        return _print_ranked(position, args.dice, args.policy)
    moves = position.moves(*args.dice)
    width = max((len(str(m)) for m in moves), default=0)
    for move in moves:
        text = str(move) or "(no legal move: the turn passes)"
        print(f"{text:<{width}}  {move.result.id}")
    return 0


def _print_ranked(position: Position, dice: tuple[int, int], policy: str) -> int:
    """The plays ranked by a net, best first, like GNU Backgammon's ``hint``: cubeless
    equity, its difference to the best, and the probabilities after the play for the side
    that moves."""
    net = parse_policy(policy)
    if isinstance(net, str):
        if net != "wildbg":
            raise BgfastError(
                f"--policy {net} has no probabilities to rank plays by: use wildbg or a .bgnet"
                " net file"
            )
        net = Net.wildbg()
    ranked = net.rank(position, dice)
    width = max(len(str(m) or "pass") for m, _, _ in ranked)
    best = ranked[0][2]
    print(
        f"{'':>4} {'play':<{width}}  {'equity':>7} {'diff':>7}   win    wg   wbg |"
        f"  lose    lg   lbg  result"
    )
    for k, (move, p, equity) in enumerate(ranked, 1):
        win, wg, wbg, lg, lbg = (float(x) for x in p)
        diff = f"{equity - best:+7.3f}" if k > 1 else ""
        print(
            f"{k:>3}. {str(move) or 'pass':<{width}}  {equity:+7.3f} {diff:>7}  "
            f"{win:.3f} {wg:.3f} {wbg:.3f} | {1 - win:.3f} {lg:.3f} {lbg:.3f}  {move.result.id}"
        )
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
            f"net evaluation: {isa['net']}{forced}",
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
    moves.add_argument(
        "--policy",
        default=None,
        help="rank the plays by a net (wildbg, or a .bgnet file) with probabilities and equity",
    )
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
