"""Long native work driven from Python: chunks sized so that Ctrl-C and progress reports
stay responsive, the small statistics helpers rollouts and duels share, and the reading of
a Python evaluator's scores (rollouts, ``VecEnv``, ``segment_argmax``)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from bgfast._core import BgfastError

__all__ = ["Z95", "Progress", "check_progress", "finite", "float64_scores", "run_in_chunks"]

#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054

#: A progress callback: ``progress(done, total)``.
Progress = Callable[[int, int], None]


def finite(x: float) -> float | None:
    """``x``, or ``None`` for NaN and infinities (JSON has neither)."""
    return x if math.isfinite(x) else None


def check_progress(progress: object) -> None:
    """Refuses a ``progress`` that cannot be called, before any game is played (else it
    fails only once the first games have finished)."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, not {type(progress).__name__}")


def run_in_chunks(
    total: int,
    first: int,
    smallest: int,
    play: Callable[[int, int], None],
    progress: Progress | None,
    stop: threading.Event | None = None,
) -> bool:
    """Calls ``play(done, size)`` over ``0 .. total`` in chunks sized for about 0.2 s each
    (starting at ``first``, never below ``smallest``), so that Ctrl-C and ``progress(done,
    total)`` stay responsive while the calls' own cost stays nil. Returns whether Ctrl-C
    (or ``stop``, set from another thread: checked before each chunk, for a run in a worker
    thread, which Ctrl-C never reaches) stopped it (the chunks played before are kept by
    ``play``)."""
    done = 0
    chunk = first
    try:
        while done < total:
            if stop is not None and stop.is_set():
                return True
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


#: Float64 holds every integer of at most this magnitude exactly.
_EXACT_INTEGERS = 2**53


def float64_scores(scores: npt.NDArray[np.generic], what: str) -> npt.NDArray[np.float64]:
    """Real-number ``scores`` (an integer or float array of any shape) as flat float64,
    which is how the native code compares them; ``BgfastError`` if two different scores
    would become equal there (integers beyond 2**53, floats wider than 64 bits), since the
    play would then go to the first of them instead of the highest. ``what`` names the
    scores' source in the message."""
    flat = np.ascontiguousarray(scores.reshape(-1))
    as_float64 = flat.astype(np.float64)
    kind, size = flat.dtype.kind, flat.dtype.itemsize
    if (kind in "iu" and size <= 4) or (kind == "f" and size <= 8) or flat.size == 0:
        return as_float64  # every value of these dtypes is a float64 exactly
    if kind in "iu" and flat.min() >= -_EXACT_INTEGERS and flat.max() <= _EXACT_INTEGERS:
        return as_float64
    # Rounding to float64 keeps the order of scores but may merge neighbours: look for a
    # merged pair among the sorted values.
    order = np.argsort(flat, kind="stable")
    ranked, ranked_float64 = flat[order], as_float64[order]
    merged = np.flatnonzero(
        (ranked[1:] != ranked[:-1]) & (ranked_float64[1:] == ranked_float64[:-1])
    )
    if merged.size:
        k = int(merged[0])
        low, high = int(order[k]), int(order[k + 1])
        raise BgfastError(
            f"{what}: the scores at rows {low} and {high} differ"
            f" ({flat[low]!s} and {flat[high]!s}) but are equal as float64, as they are"
            " compared: give scores float64 can tell apart (scale or rank them)"
        )
    return as_float64
