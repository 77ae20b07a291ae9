"""Shared pieces of the contract tests (``tests/test_contract_*.py``).

The contract of every public non-game entry point: no input makes bgfast panic, abort, hang
or answer for another position than the one given; every bad input raises a
``bgfast.BgfastError`` subclass (or ``TypeError`` for a wrong Python type) whose message
names what is wrong; a rejected call changes no state.

``check`` runs a call and accepts only its return value, a ``BgfastError`` or a ``TypeError``.
The position oracle (``valid_counts``) is written here from RULES.md, exactly, on Python
ints: whatever bgfast accepts as counts must be exactly these counts.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import bgfast
from bgfast import (
    BearoffFileError,
    BearoffRangeError,
    BgfastError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    Position,
)

#: The Hypothesis profile of every contract test: small, so the whole set stays fast.
CONTRACT = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)

#: Subclasses that say the *data* is wrong (a position, dice, a move, a table's range or
#: file). A bad argument that is none of these (a thread count, a scheme or policy name, an
#: output array, a length) must be a plain ``BgfastError`` (or another subclass).
DATA_ERRORS = (
    InvalidPositionError,
    InvalidMoveError,
    IllegalMoveError,
    InvalidDiceError,
    BearoffRangeError,
    BearoffFileError,
)


@dataclass
class Outcome:
    """What a call did: returned ``value`` or raised ``error``."""

    value: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def describe(error: BaseException) -> str:
    return f"{type(error).__module__}.{type(error).__qualname__}: {error}"


def check(call: Callable[[], Any], *, type_error: bool = True) -> Outcome:
    """Runs ``call``; fails unless it returns, raises a ``BgfastError`` with a message, or
    (``type_error``) raises a ``TypeError`` with a message. Never lets anything else by:
    ``PanicException``, ``OverflowError``, a bare ``ValueError``, ``IndexError``, ...
    """
    try:
        return Outcome(value=call())
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # PanicException derives from BaseException
        allowed: tuple[type[BaseException], ...] = (
            (BgfastError, TypeError) if type_error else (BgfastError,)
        )
        assert isinstance(error, allowed), f"contract broken: {describe(error)}"
        assert str(error).strip(), f"an error without a message: {describe(error)}"
        return Outcome(error=error)


def rejects(
    call: Callable[[], Any],
    cls: type[BaseException] | tuple[type[BaseException], ...] = BgfastError,
    *words: str,
) -> BaseException:
    """``call`` must raise ``cls`` (after ``check``) whose message contains one of ``words``
    (case-insensitive) if any are given. Returns the error."""
    outcome = check(call)
    assert not outcome.ok, f"accepted, returned {outcome.value!r}"
    error = outcome.error
    assert error is not None
    assert isinstance(error, cls), f"expected {cls}, got {describe(error)}"
    if words:
        text = str(error).lower()
        assert any(w.lower() in text for w in words), (
            f"the message does not name the problem ({words}): {describe(error)}"
        )
    return error


def rejects_argument(call: Callable[[], Any], *words: str) -> BaseException:
    """A bad argument that is not game data: a ``BgfastError`` that is none of the data
    subclasses (``InvalidPositionError`` for a thread count is the wrong class)."""
    error = rejects(call, BgfastError, *words)
    assert not isinstance(error, DATA_ERRORS), (
        f"a bad argument reported as a data error: {describe(error)}"
    )
    return error


def representable(values: Any, dtype: Any) -> bool:
    """Whether a numpy array of ``dtype`` holds ``values`` exactly (cases that cannot be
    built are left out of the parameters rather than skipped)."""
    try:
        return bool(np.array(values, dtype=dtype).astype(object).tolist() == values)
    except (OverflowError, ValueError, TypeError):
        return False


def numbers_in(message: str) -> list[int]:
    return [int(m) for m in re.findall(r"-?\d+", message)]


def assert_reports_given(error: BaseException, given: set[int]) -> None:
    """Every large or negative number in the message must be one the caller gave (or a
    total of them): a count clipped to 2**31-1 or wrapped to -1 is reported wrongly."""
    for n in numbers_in(str(error)):
        if 0 <= n < 256:
            continue
        assert n in given, f"the message reports {n}, which was not given: {describe(error)}"


# Positions


def valid_counts(rows: Sequence[Sequence[int]]) -> bool:
    """Whether two rows of 25 exact ints make a legal position (R1, R6, R15): counts
    0..15, at most 15 a side, no point held by both sides, not both sides borne off."""
    mover, opponent = (list(map(int, r)) for r in rows)
    if len(mover) != 25 or len(opponent) != 25:
        return False
    if any(c < 0 for c in mover + opponent):
        return False
    if sum(mover) > 15 or sum(opponent) > 15:
        return False
    if any(mover[p - 1] > 0 and opponent[24 - p] > 0 for p in range(1, 25)):
        return False
    return sum(mover) + sum(opponent) > 0


def finished(rows: Sequence[Sequence[int]]) -> bool:
    """Whether one side of a valid position has borne off all 15 (R15)."""
    return sum(map(int, rows[0])) == 0 or sum(map(int, rows[1])) == 0


def given_numbers(array: Any) -> set[int]:
    """The values in ``array`` and each side's total (the message may report totals)."""
    values = np.asarray(array, dtype=object).reshape(-1, 25)
    out = {int(v) for v in values.reshape(-1)}
    for row in values:
        total = sum(int(v) for v in row if int(v) > 0)
        out.add(total)
        # A total may be reported saturated at a 64-bit limit it really exceeds.
        out.update(limit for limit in (2**63 - 1, 2**64 - 1) if total > limit)
    return out


def _random_walk_pool(seed: int = 20_240_601, games: int = 40) -> list[Position]:
    rng = random.Random(seed)
    pool: list[Position] = []
    for _ in range(games):
        pos = Position()
        for _ in range(400):
            pool.append(pos)
            if pos.outcome is not None:
                break
            moves = pos.moves(rng.randint(1, 6), rng.randint(1, 6))
            pos = moves[rng.randrange(len(moves))].result
    rng.shuffle(pool)
    return pool


#: Positions of random play: openings, contact, the bar, bear-offs, finished games.
POOL: list[Position] = _random_walk_pool()
LIVE: list[Position] = [p for p in POOL if p.outcome is None][:400]
ENDED: list[Position] = [p for p in POOL if p.outcome is not None][:40]
HOME: list[Position] = [p for p in POOL if not p.to_array()[:, 6:].any()][:200]

positions = st.sampled_from(POOL[:600])
live_positions = st.sampled_from(LIVE)

#: Values that have broken counts before: int32 and uint32 edges, sums that overflow.
SPECIAL = [
    0,
    1,
    2,
    5,
    15,
    16,
    255,
    256,
    525,
    -1,
    -255,
    2**31 - 255,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**32 + 5,
    2**40,
    2**63 - 1,
    -(2**31),
    -(2**63),
    2**64 - 1,
    2**70,
]

INT_DTYPES = [
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.dtype(">i4"),
    np.dtype(">u8"),
]
OTHER_DTYPES = [
    np.bool_,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.object_,
    np.str_,
]


def dtype_range(dtype: Any) -> tuple[int, int]:
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


@st.composite
def count_values(draw: st.DrawFn, lo: int, hi: int) -> int:
    """A value for a count: mostly small, sometimes one of ``SPECIAL`` (within lo..hi)."""
    specials = [v for v in SPECIAL if lo <= v <= hi]
    return draw(
        st.one_of(
            st.integers(max(lo, 0), min(hi, 6)),
            st.sampled_from(specials),
            st.integers(lo, hi),
        )
    )


@st.composite
def mutated_rows(
    draw: st.DrawFn, lo: int = -(2**80), hi: int = 2**80, rows: int = 1
) -> list[list[list[int]]]:
    """``rows`` positions of the pool as exact ints, a few counts replaced (often by a
    value that breaks a naive check), within ``lo..hi``."""
    out = []
    for _ in range(rows):
        base = draw(positions).to_array().astype(int).tolist()
        for _ in range(draw(st.integers(0, 3))):
            r, c = draw(st.integers(0, 1)), draw(st.integers(0, 24))
            base[r][c] = draw(count_values(lo, hi))
        if draw(st.integers(0, 9)) == 0:  # counts that wrap to a small sum in 32 bits
            r = draw(st.integers(0, 1))
            base[r] = [0] * 25
            base[r][1] = base[r][2] = 2**31 - 255
            base[r][3] = 525
        out.append(base)
    for row in out:
        for side in row:
            for i, v in enumerate(side):
                side[i] = min(max(v, lo), hi)
    return out


def layouts(array: np.ndarray, how: int) -> np.ndarray:
    """``array`` as C order (0), Fortran order (1), a strided view (2) or reversed (3)."""
    if how == 1:
        return np.asfortranarray(array)
    if how == 2:
        big = np.zeros(tuple(2 * s for s in array.shape), dtype=array.dtype)
        view = big[tuple(slice(None, None, 2) for _ in array.shape)]
        view[...] = array
        return view
    if how == 3:
        flipped = np.ascontiguousarray(array[..., ::-1])
        return flipped[..., ::-1]
    return np.ascontiguousarray(array)


@st.composite
def count_arrays(draw: st.DrawFn, rows: int | None = None) -> tuple[np.ndarray, list[Any]]:
    """``(array, exact)``: an integer array of counts of any integer dtype and layout, and
    the exact values it holds (``(N, 2, 25)``, or ``(2, 25)`` if ``rows`` is 0)."""
    dtype = draw(st.sampled_from(INT_DTYPES))
    lo, hi = dtype_range(dtype)
    n = draw(st.integers(0, 4)) if rows is None else rows
    exact = draw(mutated_rows(lo, hi, rows=max(n, 1)))[: max(n, 1)]
    if rows == 0:
        exact_out: list[Any] = exact[0]
        array = np.array(exact[0], dtype=object).astype(dtype)
    else:
        exact = exact[:n]
        exact_out = exact
        array = np.array(exact, dtype=object).reshape(n, 2, 25).astype(dtype)
    return layouts(array, draw(st.integers(0, 3))), exact_out


#: Thread counts: the valid ones kept to pools the suite already uses (each size keeps
#: its pool for good), the invalid ones of every kind.
threads_values = st.one_of(
    st.sampled_from([None, 1, 2]),
    st.integers(-(2**70), 0),
    st.integers(257, 2**70),
    st.sampled_from([2**31, 2**32, 2**63 - 1, 2**63, 2**64, 2**64 - 1, -(2**63), -(2**63) - 1]),
    st.sampled_from([1.5, 2.0, "2", b"2", [2], float("nan")]),
)


def threads_ok(threads: Any) -> bool:
    return threads is None or (isinstance(threads, int) and 1 <= threads <= 256)


# Subprocesses, for calls that may abort, run out of memory or hang.

#: Address-space limit of a probe: an allocation of tens of GiB fails at once instead of
#: swapping the machine, and a runaway thread count stops at a few thousand threads.
PROBE_MEMORY = 6 << 30

_LIMITS = (
    "import resource\n"
    f"resource.setrlimit(resource.RLIMIT_AS, ({PROBE_MEMORY}, {PROBE_MEMORY}))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
)

#: Runs ``python -m bgfast ARGS`` under the limits (``sys.argv[1:]`` are the arguments).
CLI_LAUNCHER = (
    _LIMITS + "import runpy, sys\nsys.argv[0] = 'bgfast'\nrunpy.run_module('bgfast', "
    "run_name='__main__', alter_sys=True)\n"
)

_CHILD = (
    _LIMITS
    + r"""
import json, sys
def _emit(d):
    sys.stdout.write("\n@@RESULT@@" + json.dumps(d) + "\n")
    sys.stdout.flush()
try:
    import numpy as np
    import bgfast
    from bgfast import Position, batch, bearoff, pubeval
    _ns = dict(np=np, bgfast=bgfast, Position=Position, batch=batch, bearoff=bearoff,
               pubeval=pubeval)
    exec(compile(sys.argv[1], "<probe>", "exec"), _ns)
    _value = _ns["probe"]()
    _emit({"status": "ok", "value": repr(_value)[:500]})
except BaseException as e:
    _emit({"status": "raised", "type": type(e).__qualname__, "module": type(e).__module__,
           "mro": [c.__qualname__ for c in type(e).__mro__], "message": str(e)[:2000]})
"""
)


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env["RUST_BACKTRACE"] = "0"
    env.update(extra)
    return env


@dataclass
class ProbeResult:
    """How a subprocess ended: ``ok``, ``raised``, ``crashed`` (a signal or no result) or
    ``timeout``; with the exception's class names and message when it raised."""

    status: str
    detail: str
    mro: tuple[str, ...] = ()
    message: str = ""
    seconds: float = 0.0


class Probe:
    """A subprocess running ``code`` (which defines ``probe()``) or a command line."""

    def __init__(self, argv: list[Any], timeout: float, env: dict[str, str]) -> None:
        self.timeout = timeout
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # killed as a group at the timeout
        )

    def finish(self) -> tuple[int | None, bytes, bytes, float]:
        left = max(0.1, self.timeout - (time.monotonic() - self.started))
        try:
            out, err = self.proc.communicate(timeout=left)
            return self.proc.returncode, out, err, time.monotonic() - self.started
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            out, err = self.proc.communicate()
            return None, out, err, time.monotonic() - self.started


def start_code(code: str, timeout: float, env: dict[str, str]) -> Probe:
    return Probe([sys.executable, "-c", _CHILD, code], timeout, env)


def code_result(probe: Probe) -> ProbeResult:
    rc, out, err, seconds = probe.finish()
    tail = err.decode(errors="replace").strip().splitlines()[-3:]
    if rc is None:
        return ProbeResult("timeout", f"still running after {probe.timeout} s", seconds=seconds)
    text = out.decode(errors="replace")
    if "@@RESULT@@" not in text:
        why = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
        return ProbeResult("crashed", f"{why}: {' | '.join(tail)}", seconds=seconds)
    data = json.loads(text.rsplit("@@RESULT@@", 1)[1].strip().splitlines()[0])
    if data["status"] == "ok":
        return ProbeResult("ok", data["value"], seconds=seconds)
    return ProbeResult(
        "raised",
        f"{data['module']}.{data['type']}: {data['message']}",
        mro=tuple(data["mro"]),
        message=data["message"],
        seconds=seconds,
    )


def run_code(code: str, timeout: float = 30.0) -> ProbeResult:
    return code_result(start_code(code, timeout, child_env()))


def assert_probe(
    result: ProbeResult,
    *,
    returns: bool = True,
    error: str = "BgfastError",
    not_error: Sequence[str] = (),
    may_run_on: bool = False,
) -> None:
    """The probe returned (if ``returns``) or raised ``error`` (a class name in the MRO),
    none of ``not_error``. ``may_run_on``: still running at the timeout is acceptable (a
    legitimately endless computation); a crash never is."""
    if result.status == "timeout" and may_run_on:
        return
    assert result.status in ("ok", "raised"), f"{result.status}: {result.detail}"
    if result.status == "ok":
        assert returns, f"accepted, returned {result.detail}"
        return
    assert error in result.mro, f"expected {error}, got {result.detail}"
    assert result.message.strip(), f"no message: {result.detail}"
    for name in not_error:
        assert name not in result.mro, f"wrong class ({name}): {result.detail}"


__all__ = [
    "CLI_LAUNCHER",
    "CONTRACT",
    "DATA_ERRORS",
    "ENDED",
    "HOME",
    "INT_DTYPES",
    "LIVE",
    "OTHER_DTYPES",
    "POOL",
    "SPECIAL",
    "Outcome",
    "ProbeResult",
    "assert_probe",
    "assert_reports_given",
    "bgfast",
    "check",
    "child_env",
    "code_result",
    "count_arrays",
    "count_values",
    "describe",
    "dtype_range",
    "finished",
    "given_numbers",
    "layouts",
    "live_positions",
    "mutated_rows",
    "positions",
    "rejects",
    "rejects_argument",
    "run_code",
    "start_code",
    "threads_ok",
    "threads_values",
    "valid_counts",
]
