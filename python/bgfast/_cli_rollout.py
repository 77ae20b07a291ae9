"""The ``bgfast rollout`` command: a position, its candidate plays (``--moves``) or its cube
decision (``--cube``) rolled out, as a table saying whose numbers these are, or JSON."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import re
import signal
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, TextIO

from bgfast import _core
from bgfast._checkpoint import saved_games
from bgfast._cli_common import add_cube_life, before_the_opening_roll, play_words
from bgfast._cli_common import dice as dice_arg
from bgfast._core import BgfastError
from bgfast._rollout_results import MoveRollout
from bgfast._running import Progress
from bgfast.codec import state_from_id, unlabelled_id
from bgfast.cubeful import DEFAULT_CUBE_LIFE, OWNERS, Stakes
from bgfast.met import DEFAULT_TABLE, table_names
from bgfast.policies import net_of, parse_net, parse_policy
from bgfast.rollout import rollout, rollout_cube, rollout_moves

if TYPE_CHECKING:
    from bgfast.state import GameState

__all__ = ["add_arguments", "main", "run"]


def _pair(text: str) -> tuple[int, int]:
    """``--score``: ``"3,4"`` or ``"3-4"`` (as bgfast prints a score) -> ``(3, 4)``, spaces
    around the numbers allowed."""
    found = re.fullmatch(r"\s*(\d+)\s*[,-]\s*(\d+)\s*", text)
    if found is None:
        raise argparse.ArgumentTypeError(
            f"expected two numbers of points like 3,4 or 3-4, not {text!r}"
        )
    return int(found[1]), int(found[2])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declares the command's arguments on ``parser``."""
    parser.add_argument(
        "position",
        nargs="?",
        default="4HPwATDgc/ABMA",
        help="Position ID (side to move about to roll; default: the start), or a GNUbg ID,"
        " XGID or FIBS board: line, whose cube, match score and rules are used; an ID with"
        " the dice rolled goes with --moves of that roll only, and an ID with a double or"
        " resignation waiting for an answer is refused",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--moves", type=dice_arg, metavar="DICE", help="roll out the candidate plays of DICE (31)"
    )
    what.add_argument("--cube", action="store_true", help="roll out the cube decision")
    parser.add_argument(
        "--top",
        type=int,
        default=None,
        metavar="N",
        help="with --moves: roll out only the best N plays by the evaluator's 0-ply equity"
        " (default: all); with --move, the best N among the --move plays",
    )
    parser.add_argument(
        "--move",
        action="append",
        default=None,
        metavar="PLAY",
        help="with --moves: a play to roll out, points written with '/' as in 8/5 6/5"
        " (repeatable; default: every legal play)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        metavar="N",
        help="games to play (default: 100000; 1296 for --moves and --cube, per play)",
    )
    parser.add_argument(
        "--policy",
        default="wildbg",
        metavar="POLICY",
        help="checker play: wildbg (default), wildbg-large, pubeval, race, random, or a .bgnet"
        " net file",
    )
    parser.add_argument(
        "--evaluator",
        default=None,
        metavar="NET",
        help="the net for truncation, variance reduction and the cube (default: the policy)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, metavar="N", help="dice seed (random if omitted)"
    )
    parser.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="keep the finished games in FILE as the rollout runs; run the same command"
        " again to go on where it stopped (Ctrl-C, a crash), or with more --games to extend"
        " it (the seed is FILE's when --seed is not given)",
    )
    parser.add_argument(
        "--threads", type=int, default=None, metavar="N", help="threads (default: one per CPU)"
    )
    parser.add_argument(
        "--truncate",
        type=int,
        default=None,
        metavar="N",
        help="score games by the evaluator after N plies (default: off, games played out)",
    )
    parser.add_argument("--vr", action="store_true", help="lookahead variance reduction")
    parser.add_argument(
        "--no-quasi",
        "--no-stratify",
        dest="no_quasi",
        action="store_true",
        help="random first rolls (not rotated over all 1,296 pairs)",
    )
    parser.add_argument(
        "--bearoff",
        choices=("exact", "none"),
        default="exact",
        help="end games in the two-sided bear-off database exactly (default) or play on",
    )
    parser.add_argument("--cubeful", action="store_true", help="both sides use the cube")
    parser.add_argument(
        "--cube-value",
        type=int,
        default=None,
        metavar="N",
        help="the cube's value now (default: 1); money play: with --cubeful or --cube",
    )
    parser.add_argument(
        "--cube-owner",
        choices=OWNERS,
        default=None,
        help="who owns the cube now (default: centred); money play: with --cubeful or --cube",
    )
    add_cube_life(parser, default=None)
    parser.add_argument(
        "--jacoby",
        action="store_const",
        const=True,
        default=None,
        help="money: the Jacoby rule (R23: gammons count single while the cube is centred)",
    )
    parser.add_argument(
        "--beavers",
        action="store_const",
        const=True,
        default=None,
        help="money, with --cubeful or --cube: beavers (the taker of a double may redouble"
        " at once, keeping the cube)",
    )
    parser.add_argument("--match", type=int, default=None, metavar="N", help="an N-point match")
    parser.add_argument(
        "--score",
        type=_pair,
        default=None,
        metavar="A,B",
        help="with --match: points won, the side to move's then the opponent's, as 3,4 or"
        " 3-4 (default 0,0)",
    )
    crawford = parser.add_mutually_exclusive_group()
    crawford.add_argument(
        "--crawford",
        dest="crawford",
        action="store_const",
        const=True,
        help="with --match, a side 1 point away: this is the Crawford game (R21: no"
        " doubling in it; the default at such a score)",
    )
    crawford.add_argument(
        "--post-crawford",
        dest="crawford",
        action="store_const",
        const=False,
        help="with --match, a side 1 point away: a game after the Crawford game (doubling"
        " allowed again)",
    )
    parser.add_argument(
        "--no-crawford-rule",
        dest="crawford_rule",
        action="store_false",
        help="a match played without the Crawford rule (R21: no Crawford game)",
    )
    parser.add_argument(
        "--met",
        default=None,
        metavar="TABLE",
        help=f"with --match: the match equity table, {', '.join(table_names())}"
        f" (default: {DEFAULT_TABLE})",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="play shards on a local pool of N processes",
    )
    where.add_argument(
        "--dask-scheduler",
        default=None,
        metavar="ADDRESS",
        help="play shards on an existing Dask cluster (e.g. tcp://scheduler.example.org:8786)",
    )


class _Bar:
    """A one-line progress bar on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  {rate:,.0f}/s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 79 + "\r")
        self.stream.flush()


#: Seconds to wait for a Dask scheduler before giving up.
DASK_TIMEOUT = 10


def _ignore_ctrl_c() -> None:
    """A worker's start: Ctrl-C at the terminal reaches every process of the group, and it is
    this process that answers it (with the finished shards), not each worker mid-shard."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stops the workers of a pool bgfast made without waiting for the shards they still
    play: after Ctrl-C the result holds the finished prefix of shards only, and a shard of
    a strong net, or with variance reduction, plays for minutes. After a whole run the
    workers are idle, and stopping them costs nothing."""
    # No public way to stop workers before Python 3.14 (terminate_workers); `_processes`
    # has held them since 3.2.
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join()


def _executor(args: argparse.Namespace, stack: contextlib.ExitStack) -> Executor | None:
    if args.workers is not None:
        if not 1 <= args.workers <= _core.MAX_THREADS:
            # Bounded like threads: a pool starts every process on its first task.
            raise BgfastError(
                f"--workers must be from 1 to {_core.MAX_THREADS}, got {args.workers}"
            )
        # bgfast made this pool, so bgfast stops it (cancelling what is left).
        pool = ProcessPoolExecutor(max_workers=args.workers, initializer=_ignore_ctrl_c)
        stack.callback(_stop_pool, pool)
        return pool
    if args.dask_scheduler is not None:
        try:  # optional and untyped: Any whether or not it is installed
            distributed: Any = importlib.import_module("distributed")
        except ImportError as error:
            raise BgfastError(
                "--dask-scheduler needs Dask: pip install 'dask[distributed]'"
            ) from error
        # Only the client is ours: closing it leaves the cluster running.
        try:
            client = stack.enter_context(
                distributed.Client(args.dask_scheduler, timeout=DASK_TIMEOUT)
            )
        except (OSError, ValueError, TimeoutError) as error:  # unreachable, bad address
            raise BgfastError(
                f"cannot connect to the Dask scheduler at {args.dask_scheduler!r} within"
                f" {DASK_TIMEOUT} s: {error}"
            ) from error
        executor: Executor = client.get_executor()
        return executor
    return None


#: The flags that set the stakes, and their defaults.
_STAKE_FLAGS = {
    "cube_value": 1,
    "cube_owner": "centred",
    "jacoby": False,
    "beavers": False,
    "match": 0,
    "score": (0, 0),
}


def _check_phase(args: argparse.Namespace, state: GameState) -> None:
    """Refuses a GNUbg ID or XGID whose state the rollout asked for would drop: an answer
    that waits (a pending double or resignation: the rollout cannot start from it), and
    rolled dice unless ``--moves`` rolls out the plays of that very roll."""
    name = args.position.strip()
    if state.phase == "doubled":
        raise BgfastError(
            f"{name}: a double waits for an answer (R19) and a rollout starts from a position"
            " on roll: give the ID before the double and roll out the doubler's decision with"
            " --cube (its double/take and double/pass values settle the take)"
        )
    if state.phase == "resign":
        raise BgfastError(
            f"{name}: a resignation waits for an answer and a rollout starts from a position"
            " on roll: give the ID before the resignation"
        )
    if state.dice is None:
        return
    roll = f"{state.dice[0]}{state.dice[1]}"
    if args.cube:
        raise BgfastError(
            f"{name}: {state.dice[0]}-{state.dice[1]} is rolled, and the cube is turned before"
            f" the roll (R18): give the ID before the roll for --cube, or roll out the plays"
            f" of the roll with --moves {roll}"
        )
    if args.moves is None:
        raise BgfastError(
            f"{name}: {state.dice[0]}-{state.dice[1]} is rolled: roll out its plays with"
            f" --moves {roll}, or give the ID before the roll to roll out the position"
        )
    if sorted(args.moves) != sorted(state.dice):
        raise BgfastError(
            f"{name} holds the roll {roll} already: drop --moves"
            f" {args.moves[0]}{args.moves[1]} or make it --moves {roll}"
        )


def _check_no_crawford_rule(match_length: object, why_money: str) -> None:
    """Refuses ``--no-crawford-rule`` for money play, saying why this is money play (the
    API's own message names its ``match_length`` argument, which this command has not)."""
    if match_length == 0:
        raise BgfastError(f"--no-crawford-rule: crawford_rule is a match setting, and {why_money}")


def _subject_and_stakes(
    args: argparse.Namespace,
) -> tuple[_core.Position | GameState, dict[str, Any]]:
    """What to roll out and the stake arguments that go with it: a GNUbg ID or XGID gives
    the game state, which brings its own stakes (cube, match score, Crawford, rules) that
    the stake flags may not contradict; a Position ID gives the position, and the flags its
    stakes."""
    state = state_from_id(args.position)
    given = {k: getattr(args, k) for k in _STAKE_FLAGS if getattr(args, k) is not None}
    if state is not None:
        name = args.position.strip()
        if given or args.crawford is not None:
            named = sorted(f"--{k.replace('_', '-')}" for k in given)
            if args.crawford is not None:
                named.append("--crawford" if args.crawford else "--post-crawford")
            raise BgfastError(
                f"{name!r} holds the cube and the score already: drop {', '.join(named)}"
            )
        if state.turn is None:
            raise BgfastError(before_the_opening_roll(args.position, state))
        _check_phase(args, state)
        if not args.crawford_rule:
            _check_no_crawford_rule(state.match_length, f"{name} is a money game")
            if state.crawford:
                raise BgfastError(
                    f"{name} is the Crawford game (R21), which a match played without the"
                    " Crawford rule (--no-crawford-rule) has not"
                )
        if args.met is not None and not state.match_length:
            raise BgfastError(f"--met is for match play, and {name} is a money game")
        return state, {"met": args.met or DEFAULT_TABLE, "crawford_rule": args.crawford_rule}
    _check_stake_flags(args, given)
    flags: dict[str, Any] = {**_STAKE_FLAGS, **given}
    if not args.crawford_rule:
        _check_no_crawford_rule(flags["match"], "this is money play (no --match N)")
    stakes = Stakes.check(
        cube=(flags["cube_value"], flags["cube_owner"]),
        jacoby=flags["jacoby"],
        beavers=flags["beavers"],
        match_length=flags["match"],
        score=flags["score"],
        crawford=args.crawford,
        met=args.met or DEFAULT_TABLE,
        crawford_rule=args.crawford_rule,
    )
    if args.crawford is False and 1 not in stakes.away:
        # The API's crawford=False says "not the Crawford game", true at any score; the
        # flag says a game after it, which needs a side 1-away (as --crawford does).
        mine, theirs = stakes.score
        raise BgfastError(
            f"--post-crawford: R21: a game after the Crawford game needs a side 1 point"
            f" away, not the score {mine}-{theirs} of a {stakes.match_length}-point match"
        )
    return _position_of(args.position), stakes.arguments()


def _position_of(text: str) -> _core.Position:
    """The position of a Position ID; a roll given in its place (``bgfast rollout 31``)
    is refused with the flag that rolls out the plays of a roll."""
    try:
        return _core.Position.from_id(unlabelled_id(text))
    except BgfastError as error:
        try:
            dice_arg(text)
        except argparse.ArgumentTypeError:
            raise error from None
        raise BgfastError(
            f"{text.strip()!r} is a roll, not a position; to roll out the plays of a roll:"
            f" --moves {text.strip()} (from a position other than the start: bgfast rollout"
            f" ID --moves {text.strip()})"
        ) from None


def _check_stake_flags(args: argparse.Namespace, given: dict[str, Any]) -> None:
    """Refuses, naming the option to add, a stake flag that the rollout asked for would
    drop: the cube's value and owner in a cubeless money rollout (money equity is per unit
    of the cube; in a match the cube's value counts in the points won, cubeless too), a
    match's score or Crawford flag in money play, beavers and the Jacoby rule in a
    cubeless money rollout (nobody doubles in it, and its equity counts gammons), the
    money-play options in a match."""
    cubeless_money = not (args.cubeful or args.cube or given.get("match"))
    cube = [f"--{k.replace('_', '-')}" for k in ("cube_value", "cube_owner") if k in given]
    if cube and cubeless_money:
        raise BgfastError(
            f"{' and '.join(cube)} {'sets' if len(cube) == 1 else 'set'} the cube of a"
            " cubeful rollout, and a cubeless money rollout has no use for it (its equity is"
            " per unit of the cube): add --cubeful (or roll out the cube decision with"
            " --cube)"
        )
    if "beavers" in given and cubeless_money:
        raise BgfastError(
            "--beavers lets the taker of a double redouble at once in a cubeful rollout, and"
            " a cubeless money rollout has no use for it (nobody doubles in it): add"
            " --cubeful (or roll out the cube decision with --cube)"
        )
    if "jacoby" in given and cubeless_money:
        raise BgfastError(
            "--jacoby counts gammons single while the cube is in the middle, in a cubeful"
            " rollout; a cubeless money rollout has no use for it (its equity counts"
            " gammons, as cubeless equity does): add --cubeful (or roll out the cube"
            " decision with --cube)"
        )
    money = [f"--{k}" for k in ("jacoby", "beavers") if k in given]
    if money and given.get("match"):
        what = "is a money-play option" if len(money) == 1 else "are money-play options"
        raise BgfastError(
            f"{' and '.join(money)} {what}, and this is a {given['match']}-point match:"
            f" drop {'it' if len(money) == 1 else 'them'}"
        )
    match = ["--score"] if "score" in given else []
    if args.met is not None:
        match.append("--met")
    if args.crawford is not None:
        match.append("--crawford" if args.crawford else "--post-crawford")
    if match and not given.get("match"):
        raise BgfastError(
            f"{' and '.join(match)} {'is' if len(match) == 1 else 'are'} for match play,"
            " and this is money play: add --match N (an N-point match)"
        )


#: The library's limits (``rollout``'s ``games``, ``seed`` and ``truncate``,
#: ``rollout_moves``'s ``top``), said here in the flags' words.
_MOST_GAMES = 2**64 - 1
_MOST_SEED = 2**64 - 1
_MOST_TOP = 2**31
_MOST_PLIES = 2**32 - 1


def _check_counts(args: argparse.Namespace) -> None:
    """Refuses the counts out of range, in the command's words (the library's name the
    native limits)."""
    if args.games is not None and args.games < 1:
        raise BgfastError(f"--games must be a positive number of games, not {args.games}")
    if args.games is not None and args.games > _MOST_GAMES:
        raise BgfastError(f"--games must be at most {_MOST_GAMES}, not {args.games}")
    if args.seed is not None and not 0 <= args.seed <= _MOST_SEED:
        raise BgfastError(f"--seed must be from 0 to {_MOST_SEED}, not {args.seed}")
    if args.top is not None and args.top < 1:
        raise BgfastError(
            f"--top must be a positive number of plays (the best N to roll out), not {args.top}"
        )
    if args.top is not None and args.top > _MOST_TOP:
        raise BgfastError(f"--top must be at most {_MOST_TOP}, not {args.top}")
    if args.truncate is not None and args.truncate < 0:
        raise BgfastError(f"--truncate must be a number of plies, 0 or more, not {args.truncate}")
    if args.truncate is not None and args.truncate > _MOST_PLIES:
        raise BgfastError(f"--truncate must be at most {_MOST_PLIES} plies, not {args.truncate}")
    if args.threads is not None and not 1 <= args.threads <= _core.MAX_THREADS:
        raise BgfastError(f"--threads must be from 1 to {_core.MAX_THREADS}, not {args.threads}")
    pools = {"--workers": args.workers, "--dask-scheduler": args.dask_scheduler}
    for flag, whose in (("--workers", "the pool's"), ("--dask-scheduler", "the Dask cluster's")):
        if args.threads is not None and pools[flag] is not None:
            raise BgfastError(
                f"--threads and {flag}: {whose} workers play the shards, one thread each;"
                f" give --threads for a run in this process, or {flag}"
            )


def _check_needs_no_net(args: argparse.Namespace) -> None:
    """Refuses, naming its flag, what needs a net when the policy is none and no
    ``--evaluator`` is given (the library's message names its Python arguments)."""
    needs = (
        (args.cube, "--cube"),
        (args.cubeful, "--cubeful"),
        (args.truncate is not None, "--truncate"),
        (args.vr, "--vr"),
    )
    for wanted, flag in needs:
        if wanted:
            raise BgfastError(
                f"{flag} needs a net to evaluate positions, and --policy {args.policy}"
                " gives no probabilities: add --evaluator wildbg"
            )


def _evaluator_arg(text: str | None) -> _core.Net | None:
    """``--evaluator``: ``wildbg``, ``wildbg-large`` or the path of a ``.bgnet`` file."""
    return None if text is None else parse_net(text, "--evaluator")


def _moves_table(results: list[MoveRollout], dice: tuple[int, int]) -> str:
    first = results[0].result
    # Which value ranks the plays, said as the plain rollout's header says how it played:
    # cubeless equity, cubeful equity (money) or match-winning chances, at which stakes.
    unit = {"mwc": "MWC", "cubeful_equity": "cubeful equity"}.get(first.value_name, "equity")
    settings = first.settings
    how = "cubeful" if settings["cubeful"] else "cubeless"
    lines = [
        f"position {results[0].move.origin.id}  roll {dice[0]}{dice[1]}  policy {first.policy}"
        f"  seed {first.seed}",
        f"candidate plays ranked by {unit} ({how}, {settings['stakes']}), for the side that"
        " plays; differences paired (same dice)",
        f"{'#':>3}  {'play':24}{unit:>14}{'stderr':>9}{'diff':>9}{'stderr':>9}",
    ]
    for i, m in enumerate(results, 1):
        r = m.result
        lines.append(
            f"{i:3}  {play_words(m.move):24}{r.value:14.4f}{r.stderr[r.value_name]:9.4f}"
            f"{m.diff:9.4f}{m.diff_stderr:9.4f}"
        )
    lines.append(
        f"games {first.games} per play, {first.seconds:.2f} s"
        + ("  PARTIAL (interrupted)" if first.partial else "")
    )
    return "\n".join(lines)


def _with_notation_hint(message: str, plays: Sequence[str] | None) -> str:
    """``message`` with a hint when a ``--move`` play is written with ``-`` between its
    points (``8-5 6-5``), as some programs write them: bgfast writes ``8/5 6/5``."""
    dashed = [p for p in plays or () if "-" in p]
    if "invalid move text" not in message or not dashed:
        return message
    return f"{message}: write points with '/', as {dashed[0].replace('-', '/')}"


def run(args: argparse.Namespace) -> int:
    """Runs the command from parsed arguments; returns the exit status."""
    bar = _Bar(sys.stderr) if sys.stdout.isatty() and sys.stderr.isatty() else None
    if (args.top is not None or args.move) and args.moves is None:
        raise BgfastError("--top and --move go with --moves DICE")
    _check_counts(args)
    if args.cube_life is not None and not (args.cubeful or args.cube):
        raise BgfastError(
            "--cube-life sets the cube model of a cubeful rollout, and this one is cubeless:"
            " add --cubeful (or roll out the cube decision with --cube)"
        )
    subject, stakes = _subject_and_stakes(args)
    policy = parse_policy(args.policy)
    evaluator = _evaluator_arg(args.evaluator)
    if evaluator is None and net_of(policy) is None:
        _check_needs_no_net(args)
    common: dict[str, Any] = dict(
        policy=policy,
        evaluator=evaluator,
        seed=args.seed,
        checkpoint=args.checkpoint,
        threads=args.threads,
        truncate=args.truncate,
        bearoff=None if args.bearoff == "none" else "exact",
        variance_reduction=args.vr,
        quasi_random=not args.no_quasi,
        cube_life=DEFAULT_CUBE_LIFE if args.cube_life is None else args.cube_life,
        progress=bar,
        **stakes,
    )
    with contextlib.ExitStack() as stack:
        common["executor"] = _executor(args, stack)
        try:
            if args.checkpoint is not None:
                common["progress"] = _announcing(args.checkpoint, common["progress"])
            partial, text, data = _roll_out(args, subject, common)
        except OSError as error:
            if args.checkpoint is None or error.filename != args.checkpoint:
                raise
            # A path the system refuses is a bad --checkpoint, said as a bad flag is.
            raise BgfastError(f"--checkpoint {args.checkpoint}: {error.strerror}") from error
        finally:
            if bar is not None:
                bar.close()
    print(json.dumps(data, indent=2) if args.json else text)
    return 130 if partial else 0


def _announcing(path: str, progress: Progress | None) -> Progress:
    """``progress``, first telling stderr when the run goes on from the games its
    checkpoint holds (so that a command run again says it did not start over): at the
    first report of progress, once the rollout has taken the file."""
    saved = saved_games(path)
    told = False

    def report(done: int, total: int) -> None:
        nonlocal told
        if saved and not told:
            print(f"bgfast: {path} holds {saved:,} games: going on from there", file=sys.stderr)
        told = True
        if progress is not None:
            progress(done, total)

    return report


def _roll_out(
    args: argparse.Namespace, subject: Any, common: dict[str, Any]
) -> tuple[bool, str, Any]:
    """Runs the rollout the arguments ask for: whether Ctrl-C stopped it, its table and
    its JSON data."""
    if args.moves is not None:
        games = 1296 if args.games is None else args.games
        try:
            plays = rollout_moves(
                subject,
                args.moves,
                args.move,
                args.top,
                games=games,
                cubeful=args.cubeful,
                **common,
            )
        except BgfastError as error:
            raise BgfastError(_with_notation_hint(str(error), args.move)) from error
        return (
            plays[0].result.partial,
            _moves_table(plays, args.moves),
            [m.to_dict() for m in plays],
        )
    if args.cube:
        games = 1296 if args.games is None else args.games
        decision = rollout_cube(subject, games=games, **common)
        return decision.results[0].partial, decision.table(), decision.to_dict()
    games = 100_000 if args.games is None else args.games
    found = rollout(subject, games=games, cubeful=args.cubeful, **common)
    return found.partial, found.table(), found.to_dict()


def main(argv: Sequence[str] | None = None) -> int:
    """Parses ``argv`` and runs; bad input prints the error and returns 2."""
    parser = argparse.ArgumentParser(prog="bgfast rollout", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BgfastError as error:
        print(f"bgfast: {error}", file=sys.stderr)
        return 2
