"""Long native work driven from Python: chunks sized so that Ctrl-C and progress reports
stay responsive, and the small statistics helpers rollouts and duels share."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["Z95", "Progress", "finite", "run_in_chunks"]

#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054

#: A progress callback: ``progress(done, total)``.
Progress = Callable[[int, int], None]


def finite(x: float) -> float | None:
    """``x``, or ``None`` for NaN and infinities (JSON has neither)."""
    return x if math.isfinite(x) else None


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
