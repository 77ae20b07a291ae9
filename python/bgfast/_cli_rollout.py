"""The ``bgfast rollout`` command: the statistics table of a rollout, or JSON for scripts."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TextIO

from bgfast import _core
from bgfast._core import BgfastError
from bgfast.policies import parse_policy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declares the command's arguments on ``parser``."""
    parser.add_argument(
        "position",
        nargs="?",
        default="4HPwATDgc/ABMA",
        help="GNU Backgammon Position ID, side to move about to roll (default: the start)",
    )
    parser.add_argument("--games", type=int, default=100_000, help="games to play (100000)")
    parser.add_argument(
        "--policy",
        default="wildbg",
        help="checker play: wildbg (default), pubeval, race, random, or a .bgnet net file",
    )
    parser.add_argument("--seed", type=int, default=None, help="dice seed (random if omitted)")
    parser.add_argument("--threads", type=int, default=None, help="threads (all CPUs)")
    parser.add_argument("--truncate", type=int, default=None, help="stop games after N plies")
    parser.add_argument(
        "--no-stratify", action="store_true", help="do not stratify the first roll over 36"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=int, default=None, help="play shards on a local pool of N processes"
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


def run(args: argparse.Namespace) -> int:
    """Runs the command from parsed arguments; returns the exit status."""
    from bgfast.rollout import rollout

    bar = _Bar(sys.stderr) if sys.stdout.isatty() and sys.stderr.isatty() else None
    with contextlib.ExitStack() as stack:
        executor: Executor | None = None
        if args.workers is not None:
            if not 1 <= args.workers <= _core.MAX_THREADS:
                # Bounded like threads: a pool starts every process on its first task.
                raise BgfastError(
                    f"--workers must be from 1 to {_core.MAX_THREADS}, got {args.workers}"
                )
            # bgfast made this pool, so bgfast shuts it down (cancelling what is left).
            pool = ProcessPoolExecutor(max_workers=args.workers)
            stack.callback(pool.shutdown, wait=True, cancel_futures=True)
            executor = pool
        elif args.dask_scheduler is not None:
            try:  # optional and untyped: Any whether or not it is installed
                distributed: Any = importlib.import_module("distributed")
            except ImportError as error:
                raise BgfastError(
                    "--dask-scheduler needs Dask: pip install 'dask[distributed]'"
                ) from error
            # Only the client is ours: closing it leaves the cluster running.
            try:
                client = stack.enter_context(distributed.Client(args.dask_scheduler))
            except (OSError, ValueError) as error:  # unreachable, timed out, bad address
                raise BgfastError(
                    f"cannot connect to the Dask scheduler at {args.dask_scheduler!r}: {error}"
                ) from error
            executor = client.get_executor()
        try:
            result = rollout(
                args.position,
                games=args.games,
                policy=parse_policy(args.policy),
                seed=args.seed,
                threads=args.threads,
                truncate=args.truncate,
                stratify=not args.no_stratify,
                progress=bar,
                executor=executor,
            )
        finally:
            if bar is not None:
                bar.close()
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.table())
    return 130 if result.partial else 0


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
