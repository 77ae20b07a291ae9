"""Rollouts: many cubeless games played out from one position, with their statistics.

``bgfast.rollout(position, games=..., policy=..., seed=...)`` plays games from the
position (its side to move about to roll) to the end with the same policy for both sides
and reports, for the side to move, the chances of winning, of winning and losing gammons
and backgammons, the cubeless equity (points per game, R16), each with its standard error
and 95% interval.

Reproducibility: game ``k`` takes every die from ``(seed, k)`` alone, and results are added
as integer counts in game order. The same seed gives the same numbers on 1 or 64 threads,
and on any ``concurrent.futures`` executor (``executor=``), which plays fixed shards of the
game range.

Variance reduction: with ``stratify=True`` (the default) game ``k``'s first roll is the
ordered roll ``k mod 36``, so each of the 36 rolls gets exactly its share of every 36 games.
The standard errors are the plain (iid) ones and so slightly conservative.

Policies: ``"wildbg"`` (wildbg's nets, evaluated natively: ``bgfast.Net.wildbg()``), any
``bgfast.Net``, ``"pubeval"`` (Tesauro's benchmark evaluator), ``"race"`` (pubeval, but
bear-offs after contact played perfectly from the one-sided bear-off database: the fewest
expected rolls), ``"random"`` (uniform over the distinct legal results), or your own
evaluator: a callable that takes one float32 array with the features of every candidate
result of a whole batch of games (``scheme=``; see ``bgfast.features`` for whose view each
scheme gives) and returns one score per row, higher better for the player choosing. It is
called once per ply for the whole batch (``batch=`` games at once).
"""

from __future__ import annotations

import math
import pickle
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._core import BgfastError, Position
from bgfast.features import SCHEMES
from bgfast.policies import Policy, is_native, policy_name

__all__ = [
    "SHARD_GAMES",
    "Evaluator",
    "RolloutResult",
    "ShardError",
    "cli_rollout",
    "rollout",
    "run_shard",
]

#: A bring-your-own evaluator: features ``(M, width)`` float32 -> scores ``(M,)``.
Evaluator = Callable[[npt.NDArray[np.float32]], npt.ArrayLike]

#: Games per shard when a rollout runs on an executor: the number of shards depends on
#: the game count only, never on the executor. 10,000 random games take about 0.13 s on
#: one core, pubeval games about twice that: long enough that a Dask task's own cost (a
#: few milliseconds of scheduler and worker time, which share the cores on a small
#: machine) stays small; 2,000-game shards made a 2-worker Dask cluster 1.46x one process
#: instead of 1.81x (BENCHMARKS.md).
SHARD_GAMES = 10_000

_STATS = ("win", "win_gammon", "win_backgammon", "lose", "lose_gammon", "lose_backgammon")
#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054


class ShardError(BgfastError):
    """A shard of a rollout on an executor failed for good.

    Raised when the executor gives up on a shard (a ``BrokenProcessPool``, a Dask
    ``KilledWorker``, a worker refusing another bgfast version, ...) after the retries. The
    message names the shard index, its games and the cause (also in ``__cause__``); the
    other shards are cancelled and no total is returned.
    """


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bgfast")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


@dataclass(frozen=True)
class RolloutResult:
    """What a rollout found, for the side to move at its position.

    ``win`` counts every win, ``win_gammon`` gammons and backgammons, ``win_backgammon``
    backgammons (GNU Backgammon's convention), likewise for losses. ``equity`` is the mean
    cubeless points per game (single 1, gammon 2, backgammon 3; truncated games 0).
    ``stderr`` and ``ci95`` map each of those names and ``"equity"`` to its standard error
    and 95% interval. ``partial`` is true when the run was interrupted (Ctrl-C) and counts
    only the games that finished.
    """

    position: str
    policy: str
    seed: int
    counts: tuple[int, int, int, int, int, int, int]
    seconds: float
    threads: int
    partial: bool
    stratified: bool
    games: int = field(init=False)
    win: float = field(init=False)
    win_gammon: float = field(init=False)
    win_backgammon: float = field(init=False)
    lose: float = field(init=False)
    lose_gammon: float = field(init=False)
    lose_backgammon: float = field(init=False)
    truncated: int = field(init=False)
    equity: float = field(init=False)
    stderr: dict[str, float] = field(init=False)
    ci95: dict[str, tuple[float, float]] = field(init=False)
    games_per_second: float = field(init=False)

    def __post_init__(self) -> None:
        ws, wg, wb, ls, lg, lb, tr = self.counts
        n = sum(self.counts)
        hits = {
            "win": ws + wg + wb,
            "win_gammon": wg + wb,
            "win_backgammon": wb,
            "lose": ls + lg + lb,
            "lose_gammon": lg + lb,
            "lose_backgammon": lb,
        }
        points = ws - ls + 2 * (wg - lg) + 3 * (wb - lb)
        squares = (ws + ls) + 4 * (wg + lg) + 9 * (wb + lb)
        values: dict[str, float] = {}
        stderr: dict[str, float] = {}
        for name, h in hits.items():
            p = h / n if n else math.nan
            values[name] = p
            stderr[name] = math.sqrt(p * (1 - p) / (n - 1)) if n > 1 else math.nan
        mean = points / n if n else math.nan
        values["equity"] = mean
        if n > 1:
            var = max(squares - n * mean * mean, 0.0) / (n - 1)
            stderr["equity"] = math.sqrt(var / n)
        else:
            stderr["equity"] = math.nan
        set_ = object.__setattr__
        set_(self, "games", n)
        for name in _STATS:
            set_(self, name, values[name])
        set_(self, "truncated", tr)
        set_(self, "equity", mean)
        set_(self, "stderr", stderr)
        set_(
            self,
            "ci95",
            {k: (values[k] - Z95 * stderr[k], values[k] + Z95 * stderr[k]) for k in values},
        )
        set_(self, "games_per_second", n / self.seconds if self.seconds > 0 else math.inf)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: every statistic, its stderr and interval, and the run.

        Values that do not exist (a standard error from fewer than two games) are ``None``.
        """
        stats = {
            name: {
                "value": finite(getattr(self, name)),
                "stderr": finite(self.stderr[name]),
                "ci95": [finite(x) for x in self.ci95[name]],
            }
            for name in (*_STATS, "equity")
        }
        return {
            "position": self.position,
            "policy": self.policy,
            "seed": self.seed,
            "games": self.games,
            "truncated": self.truncated,
            "stratified": self.stratified,
            "partial": self.partial,
            "threads": self.threads,
            "seconds": self.seconds,
            "games_per_second": finite(self.games_per_second),
            "counts": dict(
                zip(
                    (
                        "win_single",
                        "win_gammon",
                        "win_backgammon",
                        "lose_single",
                        "lose_gammon",
                        "lose_backgammon",
                        "truncated",
                    ),
                    self.counts,
                )
            ),
            "statistics": stats,
        }

    def table(self) -> str:
        """The statistics as a text table."""
        lines = [
            f"position {self.position}  policy {self.policy}  seed {self.seed}"
            + ("  (first roll stratified)" if self.stratified else ""),
            f"{'':16}{'value':>9}{'stderr':>9}   95% interval",
        ]
        for name in (*_STATS, "equity"):
            lo, hi = self.ci95[name]
            lines.append(
                f"{name.replace('_', ' '):16}{getattr(self, name):9.4f}{self.stderr[name]:9.4f}"
                f"   [{lo:.4f}, {hi:.4f}]"
            )
        tail = (
            f"games {self.games}"
            + (f" ({self.truncated} truncated)" if self.truncated else "")
            + f", {self.games_per_second:,.0f} games/s on {self.threads} thread(s),"
            f" {self.seconds:.2f} s" + ("  PARTIAL (interrupted)" if self.partial else "")
        )
        lines.append(tail)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


PositionArg = Union[Position, str, npt.ArrayLike, None]
Progress = Callable[[int, int], None]


def _position(position: PositionArg) -> Position:
    if position is None:
        return Position()
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_id(position)
    return Position.from_array(position)


def _add(a: Sequence[int], b: Sequence[int]) -> tuple[int, int, int, int, int, int, int]:
    return (
        a[0] + b[0],
        a[1] + b[1],
        a[2] + b[2],
        a[3] + b[3],
        a[4] + b[4],
        a[5] + b[5],
        a[6] + b[6],
    )


_ZERO = (0, 0, 0, 0, 0, 0, 0)


#: What a shard spec holds besides its ``version`` (see :func:`run_shard`).
_SHARD_FIELDS = (
    "position",
    "first_game",
    "games",
    "policy",
    "seed",
    "truncate",
    "stratify",
    "threads",
)


def run_shard(spec: dict[str, Any]) -> tuple[int, ...]:
    """Plays one shard of a rollout on a worker and returns its tally.

    ``spec`` is plain data (picklable anywhere): ``version`` (a worker refuses a spec from
    another bgfast version), ``position`` (Position ID), ``first_game``, ``games``,
    ``policy``, ``seed``, ``truncate``, ``stratify``, ``threads``.
    """
    if not isinstance(spec, dict):
        raise BgfastError(f"a shard spec is a dict, not a {type(spec).__name__}")
    if spec.get("version") != _version():
        raise BgfastError(
            f"shard made by bgfast {spec.get('version')!r} cannot run on bgfast {_version()!r}: "
            "install the same version on every worker"
        )
    missing = sorted(set(_SHARD_FIELDS) - set(spec))
    if missing:
        raise BgfastError(f"the shard spec lacks {', '.join(missing)}")
    if not isinstance(spec["position"], str):
        raise BgfastError(f"the shard's position must be a Position ID, not {spec['position']!r}")
    if not is_native(spec["policy"]) or not isinstance(spec["stratify"], bool):
        raise BgfastError("the shard's policy must be a native policy and stratify a bool")
    return tuple(
        _core.rollout_tally(
            Position.from_id(spec["position"]),
            spec["first_game"],
            spec["games"],
            spec["policy"],
            spec["seed"],
            spec["threads"],
            spec["truncate"],
            spec["stratify"],
        )
    )


def run_in_chunks(
    total: int,
    first: int,
    smallest: int,
    play: Callable[[int, int], None],
    progress: Progress | None,
) -> bool:
    """Calls ``play(done, size)`` over ``0 .. total`` in chunks sized for about 0.2 s each
    (starting at ``first``, never below ``smallest``), so that Ctrl-C and ``progress(done,
    total)`` stay responsive while the calls' own cost stays nil. Returns whether Ctrl-C
    stopped it (the chunks played before are kept by ``play``)."""
    done = 0
    chunk = first
    try:
        while done < total:
            size = min(chunk, total - done)
            t0 = time.perf_counter()
            play(done, size)
            done += size
            if progress is not None:
                progress(done, total)
            elapsed = time.perf_counter() - t0
            if elapsed < 0.1:
                chunk = min(chunk * 2, 1 << 20)
            elif elapsed > 0.4:
                chunk = max(chunk // 2, smallest)
    except KeyboardInterrupt:
        return True
    return False


def finite(x: float) -> float | None:
    """``x``, or ``None`` for NaN and infinities (JSON has neither)."""
    return x if math.isfinite(x) else None


def _run_native(
    pos: Position,
    games: int,
    policy: Policy,
    seed: int,
    threads: int,
    truncate: int | None,
    stratify: bool,
    progress: Progress | None,
) -> tuple[tuple[int, int, int, int, int, int, int], bool]:
    tally = _ZERO

    def play(done: int, size: int) -> None:
        nonlocal tally
        part = _core.rollout_tally(pos, done, size, policy, seed, threads, truncate, stratify)
        tally = _add(tally, part)

    partial = run_in_chunks(games, max(256, 64 * threads), 64, play, progress)
    return tally, partial


def _run_evaluator(
    pos: Position,
    games: int,
    evaluator: Evaluator,
    scheme: str,
    batch: int,
    seed: int,
    truncate: int | None,
    stratify: bool,
    progress: Progress | None,
) -> tuple[tuple[int, int, int, int, int, int, int], bool]:
    b = _core.GameBatch.rollout(pos, 0, games, seed, truncate, stratify, batch)
    partial = False
    try:
        reported = 0
        while not b.finished:
            features, _offsets = b.candidates(scheme)
            b.step_scores(_scores(evaluator(features), features.shape[0]))
            if progress is not None:
                finished = sum(b.tally())
                if finished != reported:
                    reported = finished
                    progress(finished, games)
    except KeyboardInterrupt:
        partial = True
    t = b.tally()
    return (t[0], t[1], t[2], t[3], t[4], t[5], t[6]), partial


def _scores(returned: object, candidates: int) -> npt.NDArray[np.float64]:
    """An evaluator's scores as a flat float64 array of one score per candidate (compared
    as given: float64 keeps every distinction a net makes), or a ``BgfastError`` saying
    what is wrong with them (NaN scores are refused, naming their rows, by the native
    step)."""
    try:
        array = np.asarray(returned)
    except (TypeError, ValueError) as error:  # ragged, or not array-like
        raise BgfastError(f"the evaluator returned no array of scores: {error}") from None
    if array.dtype.kind not in "iuf":
        raise BgfastError(
            f"the evaluator returned an array of dtype {array.dtype}: scores must be numbers"
        )
    scores = np.ascontiguousarray(array, dtype=np.float64).reshape(-1)
    if scores.shape[0] != candidates:
        raise BgfastError(
            f"the evaluator returned {scores.shape[0]} scores for {candidates} candidates"
        )
    return scores


def _shard_specs(
    pos: Position,
    games: int,
    policy: Policy,
    seed: int,
    truncate: int | None,
    stratify: bool,
) -> list[dict[str, Any]]:
    """The plain-data specs of a rollout's shards: their number depends on ``games`` only."""
    shards = math.ceil(games / SHARD_GAMES)
    return [
        {
            "version": _version(),
            "position": pos.id,
            "first_game": k * SHARD_GAMES,
            "games": min(SHARD_GAMES, games - k * SHARD_GAMES),
            "policy": policy,
            "seed": seed,
            "truncate": truncate,
            "stratify": stratify,
            "threads": 1,
        }
        for k in range(shards)
    ]


def _check_sendable(spec: dict[str, Any]) -> None:
    """Raises ``BgfastError`` naming every field of ``spec`` that pickle cannot send."""
    bad = []
    for key, value in spec.items():
        try:
            pickle.dumps(value)
        except Exception as error:  # pickle raises several types (PicklingError, TypeError...)
            bad.append(f"{key}={value!r} ({type(error).__name__}: {error})")
    if bad:
        raise BgfastError(
            "cannot send the rollout to an executor, pickle refuses: " + "; ".join(bad)
        )


#: Times a failed shard is submitted again before ``ShardError`` (its dice are the same).
SHARD_RETRIES = 2


def _run_executor(
    executor: Executor,
    pos: Position,
    games: int,
    policy: Policy,
    seed: int,
    truncate: int | None,
    stratify: bool,
    progress: Progress | None,
) -> tuple[tuple[int, int, int, int, int, int, int], bool]:
    from concurrent.futures import FIRST_COMPLETED, wait

    specs = _shard_specs(pos, games, policy, seed, truncate, stratify)
    _check_sendable(specs[0])  # every shard differs only in ints: one check covers all
    shards = len(specs)
    results: list[tuple[int, ...] | None] = [None] * shards
    futures: dict[Future[tuple[int, ...]], int] = {}
    retries = [0] * shards

    def failed(k: int, cause: BaseException) -> ShardError:
        first = specs[k]["first_game"]
        return ShardError(
            f"shard {k} of {shards} (games {first}..{first + specs[k]['games'] - 1}) failed"
            f" after {retries[k] + 1} attempt(s): {type(cause).__name__}: {cause}"
        )

    def submit(k: int) -> None:
        try:
            futures[executor.submit(run_shard, specs[k])] = k
        except Exception as error:  # a broken or shut-down executor takes no more work
            raise failed(k, error) from error

    try:
        for k in range(shards):
            submit(k)
        while futures:
            finished, _ = wait(list(futures), return_when=FIRST_COMPLETED)
            for f in sorted(finished, key=futures.__getitem__):
                k = futures.pop(f)
                try:
                    results[k] = f.result()
                except BgfastError as error:  # refused by the worker: the same every time
                    raise failed(k, error) from error
                except Exception as error:
                    # A lost worker: the shard's dice depend on (seed, game) alone, so playing
                    # it again anywhere gives the identical tally.
                    if retries[k] >= SHARD_RETRIES:
                        raise failed(k, error) from error
                    retries[k] += 1
                    submit(k)
            if progress is not None:
                done = sum(s["games"] for s, r in zip(specs, results) if r is not None)
                progress(done, games)
    except BaseException as error:
        for f in futures:
            f.cancel()
        if isinstance(error, KeyboardInterrupt):
            # Partial: the finished prefix of shards only, so it is still a game-order prefix.
            tally = _ZERO
            for r in results:
                if r is None:
                    break
                tally = _add(tally, r)
            return tally, True
        raise
    tally = _ZERO
    for r in results:  # shard order
        assert r is not None
        tally = _add(tally, r)
    return tally, False


def rollout(
    position: PositionArg = None,
    *,
    games: int = 10_000,
    policy: Policy | Evaluator = "wildbg",
    seed: int | None = None,
    threads: int | None = None,
    truncate: int | None = None,
    stratify: bool = True,
    scheme: str = "tesauro198",
    batch: int = 1024,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> RolloutResult:
    """Rolls out ``position`` (a ``Position``, a Position ID or a ``(2, 25)`` array; the
    standard start by default) and returns a ``RolloutResult``.

    ``games`` games, the same ``policy`` for both sides (``"wildbg"``, a ``bgfast.Net``,
    ``"pubeval"``, ``"race"``, ``"random"`` or an evaluator callable, see the module docs).
    ``seed`` fixes the dice (a random seed is drawn and reported when ``None``). ``threads``
    defaults to every CPU.
    ``truncate`` stops games after that many plies (counted in ``truncated``, 0 points).
    ``progress(done, total)`` is called as games finish. ``executor`` (any
    ``concurrent.futures.Executor``, never shut down here) plays fixed shards of the games
    elsewhere, with the same result as a local run; a shard the executor gives up on raises
    ``ShardError``. Ctrl-C stops the run and returns what finished with ``partial=True``.
    """
    pos = _position(position)
    # Checked up front, with the native bounds, also for the executor path.
    _core.check_int("games", games, 1, 2**64 - 1)
    if truncate is not None:
        _core.check_int("truncate", truncate, 1, 2**32 - 1)
    if seed is None:
        seed = secrets.randbits(63)
    _core.check_int("seed", seed, 0, 2**64 - 1)
    threads = _core.check_threads(threads)
    _core.check_int("batch", batch, 1, _core.GameBatch.MAX_GAMES)
    start = time.perf_counter()
    if callable(policy):
        if scheme not in SCHEMES:
            raise BgfastError(f"unknown feature scheme {scheme!r}: use one of {sorted(SCHEMES)}")
        if executor is not None:
            raise BgfastError(
                "an evaluator callable runs in this process and is not sent to an executor:"
                " executor= needs a native policy ('wildbg', a bgfast.Net, 'pubeval', 'race',"
                " 'random')"
            )
        name = getattr(policy, "__name__", type(policy).__name__)
        counts, partial = _run_evaluator(
            pos, games, policy, scheme, batch, seed, truncate, stratify, progress
        )
        threads_used = 1
    elif is_native(policy):
        name = policy_name(policy)
        if executor is not None:
            counts, partial = _run_executor(
                executor, pos, games, policy, seed, truncate, stratify, progress
            )
        else:
            counts, partial = _run_native(
                pos, games, policy, seed, threads, truncate, stratify, progress
            )
        threads_used = threads
    else:
        raise BgfastError(
            f"unknown policy {policy!r}: use 'wildbg', a bgfast.Net, 'pubeval', 'race',"
            " 'random' or a callable"
        )
    return RolloutResult(
        position=pos.id,
        policy=name,
        seed=seed,
        counts=counts,
        seconds=time.perf_counter() - start,
        threads=threads_used,
        partial=partial,
        stratified=stratify,
    )


def cli_rollout(argv: Sequence[str]) -> int:
    """``bgfast rollout ID [--games N] [--policy P] [--seed S] [--threads T] [--json]
    [--workers N | --dask-scheduler ADDRESS]``.

    Prints the statistics table (or JSON with ``--json``), with a progress bar when stdout
    is a terminal. Returns the exit status (130 after Ctrl-C, with the partial table).
    """
    from bgfast._cli_rollout import main

    return main(argv)
