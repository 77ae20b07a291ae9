"""Rollouts: many games played out from a position, for one position, for each candidate
play of a roll, or for a cube decision, with the cube, the match score, truncation, exact
bear-offs and variance reduction.

``bgfast.rollout(position, games=..., policy=..., seed=...)`` plays games from the
position (its side to move about to roll) and reports, for the side to move, the chances
of winning, of winning and losing gammons and backgammons, the cubeless equity (points per
game, R16) and, as asked, the cubeful equity and the match-winning chances, each with its
standard error and 95% interval. ``rollout_moves`` rolls out every candidate play of a
roll (or the ones given) on common dice and ranks them; ``rollout_cube`` rolls out a cube
decision (no double against double, take) on common dice.

**Policies** choose the plays, the same for both sides: ``"wildbg"`` (wildbg's nets,
evaluated natively, the default), any ``bgfast.Net``, ``"pubeval"`` (Tesauro's benchmark
evaluator), ``"race"`` (pubeval, bear-offs played perfectly from the one-sided database),
``"random"``, or your own evaluator: a callable that takes one float32 array with the
features of every waiting candidate (``scheme=``; see ``bgfast.features`` for whose view
each scheme gives) and returns one score per row, higher better for the player choosing,
called once per ply for ``batch=`` games at once. A net plays the result worth most to
the player moving: the lowest cubeless equity for the opponent (wildbg's rule) in a
cubeless money rollout, the cubeful value in a cubeful one, the match-winning chances in
match play.

**The evaluator** (``evaluator=``, the policy by default when it is a net) scores what the
rollout does not play out: games stopped by ``truncate`` (after that many plies; 0 scores
the position itself, exactly ``evaluator.equity(position)`` cubeless), the luck removed by
``variance_reduction`` (before each roll the best play of each of the 21 rolls is scored,
and the difference between the rolled roll's value and their mean is subtracted: unbiased,
and most of the dice's noise goes), and both sides' cube decisions.

**The cube** (``cubeful=True``): both sides double, take and pass by Janowski's model over
the evaluator's cubeless chances with cube life index ``cube_life`` (0.68, GNU Backgammon's
value for contact positions: 0 is a dead cube, 1 a fully efficient one; ``"gnubg"`` for GNU
Backgammon's index by position, lower in races and bear-offs), in money play with
``jacoby`` (R23; a cubeless rollout leaves it out with the cube: its equity counts
gammons) and ``beavers``, in match play (``match_length``, ``score`` as points won
so far, the side to move's score first (not ``Game.score``'s player order: pass the game's
``GameState`` instead, which takes its stakes); ``crawford`` says whether this game is the
Crawford game, by default when exactly one side is 1-away) with take points and cash points
from the match equity table ``met`` (Kazaross-XG2 by default, ``bgfast.met``) and the
Crawford and post-Crawford rules (R21); ``crawford_rule=False`` for a match played without
the Crawford rule (no Crawford game: every game at a 1-away score is played as a
post-Crawford one, :class:`bgfast.cubeful.Stakes`). ``cube=(value, owner)`` is the cube
now, owner ``"centred"``, ``"mover"`` or ``"opponent"``; ``max_cube`` the game's cube limit
(``bgfast.Rules.max_cube``: no double past it; 1 for a game without a cube). Cubeful money
results are per unit of the starting cube; match play reports match-winning chances and
their money equivalent (EMG).

**Exact bear-offs** (``bearoff="exact"``, the default): a game that enters the two-sided
bear-off database's range (at most 6 checkers a side, all home) ends with its exact value
(cubeless chances, or the database's cubeful money equity; cubeful match games play on, as
GNU Backgammon's do).

**Reproducibility**: game ``k`` takes every die from ``(seed, k)`` alone; with
``quasi_random`` (the default) its first two rolls are rotated over all 1,296 pairs. Sums
are exact (fixed point), so the same seed gives the same bits on 1 or 64 threads and on
any ``concurrent.futures`` executor (``executor=``, which plays fixed shards of the game
range). Ctrl-C stops a run and returns what finished, marked ``partial``; a
``checkpoint`` file keeps the finished games as the run goes, and a later call goes on
from them (:mod:`bgfast._checkpoint`).

**A game's state** (``rollout(game.state)``): a ``GameState`` gives the position and its
stakes at once, the Holland rule included (``bgfast.Rules``, :class:`bgfast.GameState`).
"""

from __future__ import annotations

import inspect
import math
import os
import pickle
import secrets
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._checkpoint import Checkpoint, identity, saved_seed
from bgfast._core import (
    BgfastError,
    GameOverError,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    Net,
    Position,
)
from bgfast._rollout_results import VALUE, CubeRollout, MoveRollout, RawSums, RolloutResult
from bgfast._rollout_settings import RolloutSettings, check_settings, name_of
from bgfast._running import Progress, check_progress, float64_scores, run_in_chunks
from bgfast.cubeful import DEFAULT_CUBE_LIFE, Stakes, action_name
from bgfast.errors import ShardError, shown
from bgfast.features import SCHEMES
from bgfast.met import DEFAULT_TABLE
from bgfast.policies import Policy, is_native, net_of
from bgfast.scoring import HOLLAND_RULE, holland_wait_plies
from bgfast.state import GameState, roll_to_play
from bgfast.vocab import Roll

__all__ = [
    "DEFAULT_CUBE_LIFE",
    "SHARD_GAMES",
    "SHARD_RETRIES",
    "CubeRollout",
    "Evaluator",
    "MoveRollout",
    "RolloutResult",
    "ShardError",
    "rollout",
    "rollout_cube",
    "rollout_moves",
    "run_shard",
]

#: A bring-your-own evaluator: features ``(M, width)`` float32 -> scores ``(M,)``.
Evaluator = Callable[[npt.NDArray[np.float32]], npt.ArrayLike]

#: Games per shard when a rollout runs on an executor: the number of shards depends on
#: the game count only, never on the executor. 10,000 random games take about 0.13 s on
#: one core: long enough that a Dask task's own cost (a few milliseconds of scheduler and
#: worker time, which share the cores on a small machine) stays small (BENCHMARKS.md).
SHARD_GAMES = 10_000

#: Times a failed shard is submitted again before ``ShardError`` (its dice are the same).
SHARD_RETRIES = 2

#: The most shards submitted but not yet summed into the finished prefix: enough to keep a
#: large cluster busy, while a huge game count (``games=10**15``) costs no memory or time
#: before its shards run (every shard was made and submitted at once).
SHARDS_IN_FLIGHT = 1024

#: The longest wait for a shard before the Python code runs again: a Ctrl-C that lands
#: just before the wait blocks would otherwise be seen only when the next shard finishes
#: (minutes, for long shards).
_WAKE_SECONDS = 0.5

PositionArg = Union[Position, GameState, str, npt.ArrayLike, None]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bgfast")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def _position(position: Position | str | npt.ArrayLike | None) -> Position:
    if position is None:
        return Position()
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_id(position.strip())
    return Position.from_array(position)


#: The arguments that make the stakes.
_STAKES = (
    "cube",
    "jacoby",
    "beavers",
    "match_length",
    "score",
    "crawford",
    "met",
    "crawford_rule",
    "max_cube",
)

#: The stake arguments a ``GameState`` gives instead (``met`` and ``crawford_rule`` are
#: the match's own settings, which a state does not hold).
_STATE_STAKES = tuple(name for name in _STAKES if name not in ("met", "crawford_rule"))


@dataclass(frozen=True)
class _Subject:
    """What a rollout starts from: its position, and when a ``GameState`` gave it, the
    state's stakes, its rolled dice and the plies the Holland rule holds the cube for."""

    position: Position
    stakes: Stakes | None = None
    dice: tuple[int, int] | None = None
    cube_wait: int = 0


def _subject(
    position: PositionArg, arguments: dict[str, Any], job: Callable[..., object]
) -> _Subject:
    """The subject of ``job`` (:func:`rollout`, :func:`rollout_moves`, :func:`rollout_cube`).
    A ``GameState`` brings its stakes (the cube, the score, Crawford, the game's rules and
    the Holland rule), which the stake arguments may then not contradict, and must stand
    where ``job`` starts: on roll, or with its dice rolled for ``rollout_moves``."""
    if not isinstance(position, GameState):
        if isinstance(getattr(position, "state", None), GameState):
            raise InvalidPositionError(
                f"a {type(position).__name__} is rolled out through its state:"
                f" {job.__name__}(game.state)"
            )
        return _Subject(_position(position))
    state = position
    given = [name for name in _STATE_STAKES if _given(job, name, arguments[name])]
    if given:
        raise BgfastError(
            f"the game state holds the cube and the score already: drop"
            f" {', '.join(name + '=' for name in given)}"
        )
    if state.phase == "over":
        raise GameOverError("R15: the game is over; there is nothing to roll out")
    if state.turn is None:
        raise BgfastError("nobody is on roll before the opening roll (R3): nothing to roll out")
    if state.phase == "doubled":
        raise BgfastError(
            "a double waits for an answer (R19) and a rollout starts from a position on roll:"
            " roll out the doubler's decision with rollout_cube of the state before the double"
        )
    if state.phase == "resign":
        raise BgfastError(
            "a resignation waits for an answer and a rollout starts from a position on roll:"
            " give the state before the resignation"
        )
    if state.dice is not None and job is not rollout_moves:
        d1, d2 = state.dice
        before = " (the cube is turned before the roll, R18)" if job is rollout_cube else ""
        raise BgfastError(
            f"{d1}-{d2} is rolled{before}: roll out its plays with rollout_moves(state), or"
            f" give the state before the roll"
        )
    stakes = Stakes.of_state(state, met=arguments["met"], crawford_rule=arguments["crawford_rule"])
    return _Subject(
        state.position,
        stakes.for_rollouts(),
        state.dice,
        holland_wait_plies(state, state.turn),
    )


def _given(job: Callable[..., object], name: str, value: object) -> bool:
    """Whether ``value`` of argument ``name`` is other than ``job``'s default, however it
    is spelled (``score=[0, 0]`` or a numpy pair is the default ``(0, 0)``)."""
    default = inspect.signature(job).parameters[name].default
    if value is default:
        return False
    if value is None or default is None:
        return True
    try:
        if isinstance(default, tuple):
            items = list(value)  # type: ignore[call-overload]
            return len(items) != len(default) or not all(
                bool(a == b) for a, b in zip(items, default)
            )
        return not bool(value == default)
    except (TypeError, ValueError):  # not a pair, or an array that is no single truth
        return True


# ------------------------------------------------------------------------- running games


#: A rollout's branches as the native plan takes them: ``(position, kind)``.
Branches = list[tuple[Position, str]]


#: Told the sums of every game played so far, as the run goes (a checkpoint keeps them).
Keep = Callable[[RawSums], None]


def _overall(progress: Progress | None, start: int, games: int) -> Progress | None:
    """``progress`` told of games counted from game 0 when a run starts at game ``start``."""
    if progress is None or start == 0:
        return progress
    return lambda done, _: progress(start + done, games)


def _run_native(
    settings: RolloutSettings,
    branches: Branches,
    policy: Policy,
    games: int,
    threads: int,
    progress: Progress | None,
    start: RawSums,
    keep: Keep,
) -> tuple[RawSums, bool]:
    """Plays games ``start.games .. games - 1`` in this process, added to ``start``."""
    plan = settings.plan(branches, policy)
    total = start

    def play(done: int, size: int) -> None:
        nonlocal total
        total = total + RawSums.from_native(plan.run(start.games + done, size, threads))
        keep(total)

    slow = net_of(policy) is not None or settings.variance_reduction
    first = 8 * threads if slow else max(256, 64 * threads)
    left = games - start.games
    partial = run_in_chunks(left, first, threads, play, _overall(progress, start.games, games))
    return total, partial


def _run_evaluator(
    settings: RolloutSettings,
    branches: Branches,
    evaluator: Evaluator,
    scheme: str,
    batch: int,
    games: int,
    progress: Progress | None,
) -> tuple[RawSums, bool]:
    plan = settings.plan(branches, None)
    raw, interrupted = plan.run_with(
        lambda features: _scores(evaluator(features)), scheme, 0, games, batch, progress
    )
    return RawSums.from_native(raw), bool(interrupted)


def _scores(returned: object) -> npt.NDArray[np.float64]:
    """An evaluator's scores as a flat float64 array (compared as given; scores float64
    cannot tell apart are refused, ``float64_scores``), or a ``BgfastError`` saying what is
    wrong with them (a wrong count or NaN scores are refused, naming them, by the native
    step)."""
    try:
        array = np.asarray(returned)
    except (TypeError, ValueError) as error:  # ragged, or not array-like
        raise BgfastError(f"the evaluator returned no array of scores: {error}") from None
    if array.dtype.kind not in "iuf":
        raise BgfastError(
            f"the evaluator returned an array of dtype {array.dtype}: scores must be numbers"
        )
    return float64_scores(array, "the evaluator's scores")


def run_shard(spec: dict[str, Any]) -> RawSums:
    """Plays one shard of a rollout on a worker and returns its exact sums.

    ``spec`` is plain data (picklable anywhere): ``version`` (a worker refuses a spec from
    another bgfast version), ``settings`` (a ``RolloutSettings``), ``branches`` (Position
    IDs and kinds), ``policy``, ``first_game``, ``games``, ``threads``.
    """
    plan = _shard_plan(spec)
    return RawSums.from_native(plan.run(spec["first_game"], spec["games"], spec["threads"]))


def _shard_plan(spec: dict[str, Any]) -> Any:
    """The native plan of a shard ``spec`` (see :func:`run_shard`), checked."""
    if not isinstance(spec, dict):
        raise BgfastError(f"a shard spec is a dict, not a {type(spec).__name__}")
    if spec.get("version") != _version():
        raise BgfastError(
            f"shard made by bgfast {spec.get('version')!r} cannot run on bgfast {_version()!r}: "
            "install the same version on every worker"
        )
    fields = ("settings", "branches", "policy", "first_game", "games", "threads")
    missing = sorted(set(fields) - set(spec))
    if missing:
        raise BgfastError(f"the shard spec lacks {', '.join(missing)}")
    settings = spec["settings"]
    if not isinstance(settings, RolloutSettings) or not is_native(spec["policy"]):
        raise BgfastError("the shard's settings must be RolloutSettings and its policy native")
    branches = [(Position.from_id(pid), kind) for pid, kind in spec["branches"]]
    return settings.plan(branches, spec["policy"])


class _ShardStopped(Exception):
    """A shard in a thread of this process stopped early: the rollout that wanted it has
    returned (Ctrl-C, or another shard's error) and no longer reads its sums."""


def _run_shard_here(spec: dict[str, Any], stop: threading.Event) -> RawSums:
    """:func:`run_shard` for an executor whose workers are threads of this process
    (a ``ThreadPoolExecutor``), which Ctrl-C never reaches: it plays the shard in chunks of
    about 0.2 s and stops between two of them once ``stop`` is set. The sums are the same
    bits (each game's dice come from ``(seed, game)`` alone and the sums are exact)."""
    plan = _shard_plan(spec)
    first, threads = spec["first_game"], spec["threads"]
    total = RawSums.zero(len(spec["branches"]))

    def play(done: int, size: int) -> None:
        nonlocal total
        total = total + RawSums.from_native(plan.run(first + done, size, threads))

    slow = net_of(spec["policy"]) is not None or spec["settings"].variance_reduction
    if run_in_chunks(spec["games"], 8 if slow else 256, 1, play, None, stop):
        raise _ShardStopped(f"shard of games {first}.. stopped: its rollout has returned")
    return total


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


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _said(error: BaseException) -> str:
    """``Type: message``, or the type alone for an exception without a message (a
    ``KeyboardInterrupt``)."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _run_executor(
    executor: Executor,
    settings: RolloutSettings,
    branches: Branches,
    policy: Policy,
    games: int,
    progress: Progress | None,
    start: RawSums,
    keep: Keep,
) -> tuple[RawSums, bool]:
    """Plays games ``start.games .. games - 1`` as fixed shards on ``executor``: ``start``
    plus the sums of the finished prefix of shards, and whether Ctrl-C in this process
    stopped the run. An exception a shard's future holds, a ``KeyboardInterrupt`` included
    (a worker's own Ctrl-C), is that shard's failure, retried on the same dice up to
    ``SHARD_RETRIES`` times, then a ``ShardError``."""
    from concurrent.futures import FIRST_COMPLETED, CancelledError, ThreadPoolExecutor, wait

    base: dict[str, Any] = {
        "version": _version(),
        "settings": settings,
        "branches": [(p.id, kind) for p, kind in branches],
        "policy": policy,
        "threads": 1,
    }
    _check_sendable(base)
    offset = start.games
    shards = math.ceil((games - offset) / SHARD_GAMES)
    # A thread pool's shards run in this process, where Ctrl-C never reaches them: they
    # play in chunks and stop once the run has returned (Ctrl-C or an error).
    stop = threading.Event() if isinstance(executor, ThreadPoolExecutor) else None

    def spec(k: int) -> dict[str, Any]:
        first = offset + k * SHARD_GAMES
        return {**base, "first_game": first, "games": min(SHARD_GAMES, games - first)}

    futures: dict[Future[RawSums], int] = {}
    runs: dict[int, int] = {}  # futures of each shard that came back with an error
    cancels: dict[int, int] = {}  # of those, the ones the executor cancelled unrun
    # Shards finished after one that is still out: summed once the prefix reaches them.
    waiting: dict[int, RawSums] = {}
    prefix = 0  # the shards 0 .. prefix - 1 are summed into `total`
    total = start
    submitted = 0  # the shards 0 .. submitted - 1 have been submitted
    done = offset  # games of every finished shard and the saved ones, for progress

    def named(k: int) -> str:
        first = offset + k * SHARD_GAMES
        return f"shard {k} of {shards} (games {first}..{first + spec(k)['games'] - 1})"

    def failed(k: int, cause: BaseException, why: str) -> ShardError:
        played = runs[k] - cancels.get(k, 0)
        ran = f"ran {_times(played)}" if played else "cancelled by the executor before it ran"
        return ShardError(f"{named(k)} failed: {_said(cause)} ({ran}; {why})")

    def submit(k: int, after: BaseException | None = None) -> None:
        """Submits shard ``k``: again, ``after`` a failed run."""
        try:
            if stop is None:
                future = executor.submit(run_shard, spec(k))
            else:
                future = executor.submit(_run_shard_here, spec(k), stop)
        except Exception as error:  # a broken or shut-down executor takes no more work
            if after is None:
                raise ShardError(
                    f"{named(k)} was not run: the executor refused it: {_said(error)}"
                ) from error
            why = f"the executor refused to take it again: {_said(error)}"
            raise failed(k, after, why) from after
        futures[future] = k

    def result(f: Future[RawSums], k: int) -> RawSums | None:
        """The shard's sums, or ``None`` once it is submitted again."""
        try:
            error = f.exception()  # a KeyboardInterrupt here is this process's Ctrl-C
        except CancelledError as cancelled:  # cancelled by someone else: play it again
            error = cancelled
        if error is None:
            sums = f.result()
            if not isinstance(sums, RawSums):
                raise ShardError(
                    f"{named(k)} came back from the executor as {shown(sums)}"
                    f" ({type(sums).__name__}), not as the shard's sums (a RawSums,"
                    " what run_shard returns)"
                )
            return sums
        runs[k] = runs.get(k, 0) + 1
        if isinstance(error, CancelledError):
            cancels[k] = cancels.get(k, 0) + 1
        if isinstance(error, BgfastError):  # refused by the worker: the same every time
            raise failed(k, error, "a refusal is the same on every run: not retried") from error
        # Anything else, a worker's KeyboardInterrupt included, is a lost run: the shard's
        # dice depend on (seed, game) alone, so playing it again anywhere gives the same
        # sums.
        if runs[k] > SHARD_RETRIES:
            why = f"given up after SHARD_RETRIES ({SHARD_RETRIES}) retries"
            raise failed(k, error, why) from error
        submit(k, after=error)
        return None

    try:
        while prefix < shards:
            while submitted < shards and submitted - prefix < SHARDS_IN_FLIGHT:
                submit(submitted)
                submitted += 1
            finished, _ = wait(list(futures), _WAKE_SECONDS, FIRST_COMPLETED)
            # A future cancelled by its executor (`shutdown(cancel_futures=True)`) is never
            # reported done by `wait`: no worker takes it up to say so. It is a lost run.
            finished |= {f for f in futures if f.cancelled()}
            if not finished:
                continue
            for f in sorted(finished, key=futures.__getitem__):
                k = futures.pop(f)
                sums = result(f, k)
                if sums is not None:
                    waiting[k] = sums
                    done += spec(k)["games"]
            if prefix in waiting:
                while prefix in waiting:
                    total = total + waiting.pop(prefix)
                    prefix += 1
                keep(total)
            if progress is not None:
                progress(done, games)
    except BaseException as error:
        if stop is not None:
            stop.set()
        for f in futures:
            f.cancel()
        if isinstance(error, KeyboardInterrupt):  # raised here: this process's Ctrl-C
            while prefix in waiting:  # finished before the interrupt, not summed yet
                total = total + waiting.pop(prefix)
                prefix += 1
            return total, True
        raise
    return total, False


def _check_scheme(scheme: object) -> None:
    """Refuse ``scheme`` unless it names a feature scheme (``bgfast.features.SCHEMES``),
    whatever the policy (a native one encodes none, but a wrong name is still refused):
    ``BgfastError`` listing the names, ``TypeError`` for a value that is no str."""
    if not isinstance(scheme, str):  # an unhashable one would fail the lookup below
        raise TypeError(f"scheme must be the name of a feature scheme, not {shown(scheme)}")
    if scheme not in SCHEMES:
        raise BgfastError(f"unknown feature scheme {shown(scheme)}: use one of {sorted(SCHEMES)}")


def _play(
    settings: RolloutSettings,
    branches: Branches,
    *,
    games: int,
    policy: Policy | Evaluator,
    threads: int | None,
    executor: Executor | None,
    scheme: str,
    batch: int,
    progress: Progress | None,
    start: RawSums,
    keep: Keep,
) -> tuple[RawSums, bool, int]:
    """Plays games ``start.games .. games - 1`` of every branch however ``policy`` and
    ``executor`` ask, telling ``keep`` the sums as they grow; the sums (``start``'s
    included), whether Ctrl-C stopped the run, and the threads used."""
    if executor is not None and not isinstance(executor, Executor):
        # Checked first: else the first submit fails inside the shard loop, reported as a
        # failed shard, and an object whose submit returns other futures (a Dask Client's)
        # fails in concurrent.futures.wait with an AttributeError.
        raise TypeError(
            f"executor must be a concurrent.futures.Executor (for Dask, client.get_executor()),"
            f" not {type(executor).__name__}"
        )
    if threads is not None:
        _core.check_threads(threads)
        if executor is not None:
            # Each shard plays on one thread of its worker: a thread count would say nothing.
            raise BgfastError(
                f"threads={threads} and an executor: the executor's workers play the shards,"
                " one thread each; give threads= for a run in this process, or executor="
            )
    if is_native(policy):
        if executor is not None:
            sums, partial = _run_executor(
                executor, settings, branches, policy, games, progress, start, keep
            )
            return sums, partial, 1
        used = _core.check_threads(threads)
        sums, partial = _run_native(settings, branches, policy, games, used, progress, start, keep)
        return sums, partial, used
    if callable(policy):
        if executor is not None:
            raise BgfastError(
                "an evaluator callable runs in this process and is not sent to an executor:"
                " executor= needs a native policy ('wildbg', 'wildbg-large', a bgfast.Net,"
                " 'pubeval', 'race', 'random')"
            )
        # A checkpoint refuses an evaluator callable (``_checkpoint``): no saved games here.
        assert start.games == 0
        sums, partial = _run_evaluator(settings, branches, policy, scheme, batch, games, progress)
        return sums, partial, 1
    raise BgfastError(
        f"unknown policy {policy!r}: use 'wildbg', 'wildbg-large', a bgfast.Net, 'pubeval',"
        " 'race', 'random' or a callable"
    )


# ------------------------------------------------------------------------- public API


#: The settings every rollout function takes besides the stakes.
_SETTINGS = ("evaluator", "truncate", "bearoff", "variance_reduction", "quasi_random", "cube_life")


#: The action of a cube rollout stopped before its first game: it decides nothing.
NO_GAMES = "no game played"


def _settings(arguments: dict[str, Any], subject: _Subject, *, cubeful: bool) -> RolloutSettings:
    """Checks the arguments every rollout function shares (its caller's ``locals()``, in
    which ``games`` becomes a Python int); the stakes are the subject's when a game state
    gave them."""
    # As Python ints: a numpy integer (np.uint64) would reach the settings, whose JSON
    # (``to_dict``) then fails, and the progress callback.
    arguments["games"] = _core.check_int("games", arguments["games"], 1, 2**64 - 1)
    check_progress(arguments["progress"])
    _check_scheme(arguments["scheme"])
    _core.check_int("batch", arguments["batch"], 1, _core.GameBatch.MAX_GAMES)
    seed = arguments["seed"]
    if seed is None and arguments["checkpoint"] is not None:
        seed = saved_seed(arguments["checkpoint"])  # a resumed run goes on with its seed
    if seed is None:
        seed = secrets.randbits(63)
    seed = _core.check_int("seed", seed, 0, 2**64 - 1)
    options = {name: arguments[name] for name in _SETTINGS}
    stratify = arguments.get("stratify")
    if stratify is not None:
        warnings.warn(
            "stratify= is now quasi_random= (the first two rolls rotated over all 1,296 pairs)",
            DeprecationWarning,
            stacklevel=3,
        )
        options["quasi_random"] = stratify
    stakes = subject.stakes
    if stakes is None:
        stakes = Stakes.check(**{name: arguments[name] for name in _STAKES})
    return check_settings(
        policy=arguments["policy"],
        seed=seed,
        cubeful=cubeful,
        stakes=stakes,
        cube_wait=subject.cube_wait,
        **options,
    )


def _run(
    kind: Callable[..., object],
    settings: RolloutSettings,
    branches: Branches,
    arguments: dict[str, Any],
) -> _Played:
    """Plays the branches of a rollout by ``kind`` (the public function) as the caller's
    arguments ask (see :func:`_play`), from its checkpoint's saved games if it has one."""
    start = time.perf_counter()
    games, policy, path = arguments["games"], arguments["policy"], arguments["checkpoint"]
    saved: Checkpoint | None = None
    if path is not None:
        named = [(p.id, k) for p, k in branches]
        who = identity(kind.__name__, settings, named, policy, _version())
        saved = Checkpoint.resume(path, who, games)
    first = RawSums.zero(len(branches)) if saved is None else saved.sums
    try:
        sums, partial, threads = _play(
            settings,
            branches,
            games=games,
            policy=policy,
            threads=arguments["threads"],
            executor=arguments["executor"],
            scheme=arguments["scheme"],
            batch=arguments["batch"],
            progress=arguments["progress"],
            start=first,
            keep=(lambda _: None) if saved is None else saved.keep,
        )
    except BaseException:
        if saved is not None and saved.sums is not first:  # the games kept before it failed
            saved.save()
        raise
    if saved is not None:
        saved.save()
    executor = arguments["executor"]
    return _Played(
        sums,
        partial,
        threads,
        name_of(policy),
        None if executor is None else type(executor).__name__,
        time.perf_counter() - start if saved is None else saved.seconds(),
    )


@dataclass(frozen=True)
class _Played:
    """What a run gave: the sums, whether Ctrl-C stopped it, the threads, the policy's
    name, the executor's class name if one played the shards, and the wall-clock seconds
    of its games (with a checkpoint, of every run that played them)."""

    sums: RawSums
    partial: bool
    threads: int
    policy: str
    executor: str | None
    seconds: float


def rollout(
    position: PositionArg = None,
    *,
    games: int = 10_000,
    policy: Policy | Evaluator = "wildbg",
    seed: int | None = None,
    threads: int | None = None,
    executor: Executor | None = None,
    truncate: int | None = None,
    evaluator: Net | str | None = None,
    bearoff: str | None = "exact",
    variance_reduction: bool = False,
    quasi_random: bool = True,
    cubeful: bool = False,
    cube: tuple[int, str] = (1, "centred"),
    jacoby: bool = False,
    beavers: bool = False,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool | None = None,
    cube_life: float | str = DEFAULT_CUBE_LIFE,
    met: str = DEFAULT_TABLE,
    crawford_rule: bool = True,
    max_cube: int | None = None,
    scheme: str = "tesauro198",
    batch: int = 1024,
    progress: Progress | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    stratify: bool | None = None,
) -> RolloutResult:
    """Rolls out ``position`` (a ``Position``, a Position ID or a ``(2, 25)`` array; the
    standard start by default) and returns a ``RolloutResult`` for its side to move.

    A ``GameState`` on roll (``game.state``, or decoded from a GNUbg ID or an XGID) brings
    its own stakes: its cube, match score, Crawford game and rules (the stake arguments
    then stay unset; ``met`` and ``crawford_rule`` are still yours, as a state does not say
    them), and under the Holland rule its turns played, which hold the trailer's cube back
    in the games' first turns as the rule does.

    ``games`` games with ``policy`` for both sides; ``seed`` fixes the dice (drawn and
    reported when ``None``); ``threads`` defaults to every CPU; ``executor`` (any
    ``concurrent.futures.Executor``, never shut down here) plays fixed shards elsewhere,
    one thread each (so ``threads`` is not given with it, and the result's ``threads`` is
    1), with the same result (``ShardError`` when it gives up on one). ``progress(done,
    total)`` is called as games finish; Ctrl-C returns what finished with
    ``partial=True``. ``checkpoint`` (a file's path) keeps the finished games in that file
    as the run goes; the same call again goes on from them (after Ctrl-C, an error or a
    killed process), or extends a finished run to more ``games``, with the same result as
    one uninterrupted run (a call that differs from the file's rollout is refused, naming
    what differs; ``seed=None`` takes the file's seed; docs/rollouts.md). ``score`` is the
    side to move's score first (not ``Game.score``'s player order: pass the game's
    ``GameState`` instead, which takes its stakes).
    ``scheme`` names the feature scheme an evaluator callable is given
    (``bgfast.features.SCHEMES``), checked whatever the policy. The other settings are
    described in the module docs; ``stratify`` is the former name of ``quasi_random``. Bad
    arguments raise a ``BgfastError`` naming the argument and the rule.
    """
    arguments = locals()
    subject = _subject(position, arguments, rollout)
    pos = subject.position
    settings = _settings(arguments, subject, cubeful=cubeful)
    played = _run(rollout, settings, [(pos, "position")], arguments)
    return RolloutResult.from_sums(
        played.sums,
        0,
        position=pos.id,
        player="the side to move",
        policy=played.policy,
        settings=settings,
        seconds=played.seconds,
        threads=played.threads,
        executor=played.executor,
        partial=played.partial,
    )


def _roll(dice: Roll | None, rolled: tuple[int, int] | None) -> tuple[int, int]:
    """The roll whose plays ``rollout_moves`` rolls out: ``dice``, or the dice a game state
    has rolled; both must then be the same roll."""
    roll = roll_to_play(dice, rolled, "the game state")
    # None only for a position (or a state before its roll) without dice: check_dice says
    # what a roll is.
    return _core.check_dice(roll)


def _candidates(
    pos: Position,
    dice: tuple[Any, Any],
    moves: Iterable[Move | str] | None,
    top: int | None,
    ranker: Net | None,
) -> list[Move]:
    """The plays to roll out: ``moves`` (each checked against the legal plays of the roll)
    or every legal play, then the ``top`` best by the ranker's 0-ply equity."""
    if isinstance(moves, (str, bytes, Move)):
        # A str would be read character by character, as plays "8", "/", "5"...
        raise TypeError(
            f"moves must be a list of plays (Move objects or move text), not one"
            f" {type(moves).__name__}: moves=[{moves!r}]"
        )
    legal = pos.moves(*dice)
    by_result = {m.result: m for m in legal}
    if moves is None:
        chosen = list(legal)
    else:
        chosen = []
        for m in moves:
            if isinstance(m, Move):
                if m.origin != pos or m.result not in by_result:
                    raise IllegalMoveError(
                        f"{m} is not a legal play of {tuple(dice)} in this position (R8)"
                    )
                move = by_result[m.result]
            else:
                move = by_result[pos.play(m, dice)]  # raises naming the rule broken
            if move not in chosen:
                chosen.append(move)
        if not chosen:
            raise BgfastError("moves= names no play to roll out")
    if top is not None:
        _core.check_int("top", top, 1, 2**31)
        if ranker is None:
            raise BgfastError(
                "top= ranks the plays by a net's 0-ply equity: pass evaluator= or a net policy"
            )
        order = {r.result: i for i, (r, _, _) in enumerate(ranker.rank(pos, dice))}
        chosen = sorted(chosen, key=lambda m: order[m.result])[:top]
    return chosen


def rollout_moves(
    position: PositionArg,
    dice: Roll | None = None,
    moves: Iterable[Move | str] | None = None,
    top: int | None = None,
    *,
    games: int = 1296,
    policy: Policy | Evaluator = "wildbg",
    seed: int | None = None,
    threads: int | None = None,
    executor: Executor | None = None,
    truncate: int | None = None,
    evaluator: Net | str | None = None,
    bearoff: str | None = "exact",
    variance_reduction: bool = False,
    quasi_random: bool = True,
    cubeful: bool = False,
    cube: tuple[int, str] = (1, "centred"),
    jacoby: bool = False,
    beavers: bool = False,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool | None = None,
    cube_life: float | str = DEFAULT_CUBE_LIFE,
    met: str = DEFAULT_TABLE,
    crawford_rule: bool = True,
    max_cube: int | None = None,
    scheme: str = "tesauro198",
    batch: int = 1024,
    progress: Progress | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
) -> list[MoveRollout]:
    """Rolls out candidate plays of ``dice`` in ``position`` and ranks them, best first.

    ``position`` may be a ``GameState`` (see :func:`rollout`) whose dice are rolled: its
    roll is then the one rolled out (``dice`` may be left out). ``moves`` (``Move``
    objects or move text, each a legal play of the roll) or every legal play; ``top``
    keeps the best ``top`` by the evaluator's 0-ply equity first. Every candidate plays
    game ``k`` on the same dice (common random numbers): ``MoveRollout.diff`` is the
    candidate's value minus the best one's and ``diff_stderr`` its paired standard error,
    which the shared dice make smaller than unpaired, much in short truncated rollouts and
    a little in full-length ones, where two plays' games soon part (BENCHMARKS.md). Values
    are for the player making the play; ``score`` is the side to move's score first (not
    ``Game.score``'s player order: pass the game's ``GameState`` instead, which takes its
    stakes); the other arguments are ``rollout``'s.
    """
    arguments = locals()
    subject = _subject(position, arguments, rollout_moves)
    pos = subject.position
    settings = _settings(arguments, subject, cubeful=cubeful)
    roll = _roll(dice, subject.dice)
    candidates = _candidates(pos, roll, moves, top, settings.evaluator)
    branches: Branches = [(m.result, "after_play") for m in candidates]
    played = _run(rollout_moves, settings, branches, arguments)
    sums = played.sums
    results = [
        RolloutResult.from_sums(
            sums,
            i,
            position=m.result.id,
            player="the side that played",
            policy=played.policy,
            settings=settings,
            seconds=played.seconds,
            threads=played.threads,
            executor=played.executor,
            partial=played.partial,
        )
        for i, m in enumerate(candidates)
    ]
    order = sorted(range(len(candidates)), key=lambda i: -results[i].value)
    best = order[0]
    return [
        MoveRollout(
            move=candidates[i],
            result=results[i],
            diff=results[i].value - results[best].value,
            diff_stderr=0.0 if i == best else sums.difference_stderr(i, best),
        )
        for i in order
    ]


def rollout_cube(
    position: PositionArg = None,
    *,
    games: int = 1296,
    policy: Policy | Evaluator = "wildbg",
    seed: int | None = None,
    threads: int | None = None,
    executor: Executor | None = None,
    truncate: int | None = None,
    evaluator: Net | str | None = None,
    bearoff: str | None = "exact",
    variance_reduction: bool = False,
    quasi_random: bool = True,
    cube: tuple[int, str] = (1, "centred"),
    jacoby: bool = False,
    beavers: bool = False,
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool | None = None,
    cube_life: float | str = DEFAULT_CUBE_LIFE,
    met: str = DEFAULT_TABLE,
    crawford_rule: bool = True,
    max_cube: int | None = None,
    scheme: str = "tesauro198",
    batch: int = 1024,
    progress: Progress | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
) -> CubeRollout:
    """Rolls out the side to move's cube decision in ``position``: not doubling now, and
    doubling with the opponent taking, on the same dice; doubling with a pass is worth the
    cube's value (1.0 per unit of cube in money play). Later cube decisions in both lines
    are the cubeful model's (``rollout``'s module docs). Returns a ``CubeRollout`` with
    the values normalised to the cube now, the action ("no double", "double, take",
    "double, pass", "too good to double", "too good to double, take", "redouble, ...", or
    "no game played" when Ctrl-C came before the first game), and standard errors. The side
    to move must be able to double (R17, R21, and the Holland rule for a ``GameState``, see
    :func:`rollout`): a ``BgfastError`` says why not otherwise. ``score`` is the side to
    move's score first (not ``Game.score``'s player order: pass the game's ``GameState``
    instead, which takes its stakes); the other arguments are ``rollout``'s.
    """
    arguments = locals()
    subject = _subject(position, arguments, rollout_cube)
    pos = subject.position
    settings = _settings(arguments, subject, cubeful=True)
    if pos.outcome is not None:
        raise GameOverError("R15: the game is over; there is no cube decision")
    why = settings.stakes.why_no_double()
    if why is None and subject.cube_wait > 0:
        why = HOLLAND_RULE
    if why is not None:
        raise BgfastError(f"the side to move may not double: {why}")
    branches: Branches = [(pos, "no_double"), (pos, "double_take")]
    played = _run(rollout_cube, settings, branches, arguments)
    sums = played.sums
    nd, dt = (
        RolloutResult.from_sums(
            sums,
            i,
            position=pos.id,
            player="the side to move",
            policy=played.policy,
            settings=settings,
            seconds=played.seconds,
            threads=played.threads,
            executor=played.executor,
            partial=played.partial,
        )
        for i in (0, 1)
    )
    dt = replace(dt, settings=_taken_settings(settings))
    paired = sums.difference_stderr(0, 1)
    stakes = settings.stakes
    if stakes.is_match:
        dp_mwc = stakes.match_value(True)
        mwc = {"no_double": nd.value, "double_take": dt.value, "double_pass": dp_mwc}
        values = (stakes.emg(nd.value), stakes.emg(dt.value), stakes.emg(dp_mwc))
        scale = stakes.emg_scale()
    else:
        mwc, scale = None, 1.0
        values = (nd.value, dt.value, 1.0)
    stderr = {
        "no_double": sums.stderr(0, VALUE) * scale,
        "double_take": sums.stderr(1, VALUE) * scale,
        "double_pass": 0.0,
        "double_take - no_double": paired * scale,
    }
    # A beaver is named only where the game lets the cube turn twice more (R17's limit).
    action = action_name(*values, redouble=stakes.cube_owner == "mover", beavers=stakes.may_beaver)
    if nd.games == 0:  # Ctrl-C before any game: no value, so no action either
        action = NO_GAMES
    return CubeRollout(
        no_double=values[0],
        double_take=values[1],
        double_pass=values[2],
        action=action,
        stderr=stderr,
        mwc=mwc,
        results=(nd, dt),
    )


def _taken_settings(settings: RolloutSettings) -> dict[str, Any]:
    """The settings of a cube rollout's double/take line as plain data: its games were
    played with the cube doubled and the opponent's (``cube`` and ``stakes`` say so), while
    its values are normalised to the cube before the double
    (``values_normalised_to_cube``), as the decision's three values are."""
    stakes = settings.stakes
    taken = replace(stakes, cube_value=2 * stakes.cube_value, cube_owner="opponent")
    described = replace(settings, stakes=taken).describe()
    described["values_normalised_to_cube"] = [stakes.cube_value, stakes.cube_owner]
    return described
