"""How many connections a server may hold under the process's limit of open files.

Each connection holds a file descriptor. A server that lets connections take the last of
them accepts no one any more: asyncio's ``accept`` fails (``EMFILE``) before the server's
own code runs, so it can neither answer the newcomer nor make room for it. The cap is
therefore the limit (``ulimit -n``) less the descriptors open already less a margin for the
clients accepted only to be refused or to take an idle connection's place.
"""

from __future__ import annotations

import os

try:  # imported now: importing it once the descriptors are used up would fail
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

__all__ = [
    "MARGIN",
    "UNCOUNTED",
    "connection_cap",
    "free_descriptors",
    "open_descriptors",
    "open_file_limit",
]

#: Descriptors kept free of connections, beyond those open when the cap is worked out (half
#: of those left, when that is fewer): for the files the server opens later and the
#: clients accepted past the cap, answered and let go or admitted in an idle one's place
#: while it closes (asyncio accepts up to 100 clients at once before any is answered).
MARGIN = 64

#: Descriptors assumed open already where they cannot be counted (no ``/proc/self/fd`` or
#: ``/dev/fd``): the standard streams, the event loop's, the listening socket, a log, with
#: room to spare.
UNCOUNTED = 48


def open_file_limit() -> int | None:
    """The process's limit of open files (the soft ``RLIMIT_NOFILE``), or ``None`` when
    there is none or it cannot be read (Windows)."""
    if resource is None:  # pragma: no cover - Windows
        return None
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    return int(soft)


def open_descriptors() -> int | None:
    """How many file descriptors the process has open (``/proc/self/fd`` on Linux,
    ``/dev/fd`` on macOS and the BSDs), or ``None`` when they cannot be counted."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            # less the descriptor listing the folder holds while it reads it
            return max(0, len(os.listdir(folder)) - 1)
        except OSError:
            continue
    return None


def free_descriptors() -> int | None:
    """The file descriptors the process may still open: its limit less those open now
    (:func:`open_descriptors`, or :data:`UNCOUNTED` when they cannot be counted); ``None``
    without a limit."""
    limit = open_file_limit()
    if limit is None:
        return None
    in_use = open_descriptors()
    return limit - (UNCOUNTED if in_use is None else in_use)


def connection_cap(ceiling: int, margin: int = MARGIN) -> int:
    """``ceiling``, or fewer when the open-file limit leaves less room: the descriptors
    left free (:func:`free_descriptors`) less ``margin`` of them or half, whichever is
    fewer; at least 1. Under ``ulimit -n 256`` with 8 files open: 184; under ``ulimit -n
    64``: 28."""
    free = free_descriptors()
    if free is None:
        return ceiling
    return max(1, min(ceiling, free - min(margin, free // 2)))
