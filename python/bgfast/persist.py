"""Saved games, matches and chouettes: checked JSON text and atomic file writes.

A record is a JSON object with a ``format`` name and a ``checksum`` (SHA-256 of the rest,
canonically serialised). :func:`loads` refuses text that is not JSON, not the expected
format, or whose checksum does not match, so an edited or truncated file raises
:class:`~bgfast.InvalidSaveError` instead of loading a wrong state. The loaders then replay
the recorded events and compare the result with the stored state, which catches records
that are consistent JSON but describe an impossible game. Chouette files use the same
records with the digest written ``sha256:<hex>`` (the form they were first saved in),
selected by ``checksum_prefix``.

:class:`Saved` is the one persistence helper: :class:`~bgfast.Game`,
:class:`~bgfast.Match` and :class:`~bgfast.Chouette` get ``to_json``, ``from_json``,
``save`` and ``load`` from it, and give it only their ``to_dict`` and ``from_dict``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import secrets
import stat
from collections.abc import Iterator
from typing import Any, ClassVar, TypeVar

from bgfast.errors import InvalidSaveError, shown

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "Saved",
    "atomic_write_text",
    "checksum",
    "damaged",
    "dumps",
    "loads",
    "read_file",
    "same_json",
]

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a saved record may have (records nest about
six levels; a deeper one is damaged, and would only make the loaders recurse)."""

MAX_FILE_BYTES = 64 << 20
"""The largest file :func:`read_file` reads (64 MiB): a saved record or a match file is
far smaller (an SGF file of a million nodes, the most its reader takes, is about 10 MB)."""

# What malformed data can raise in code that expects a well-formed record: wrong types
# (TypeError, AttributeError), missing keys or items (KeyError, IndexError), bad values and
# every BgfastError (ValueError), numbers too big for the core (OverflowError), nesting too
# deep (RecursionError).
_DAMAGE = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    OverflowError,
    RecursionError,
)


@contextlib.contextmanager
def damaged(what: str, error: type[InvalidSaveError] = InvalidSaveError) -> Iterator[None]:
    """Turn any exception that malformed data raises inside the block into ``error``
    (an :class:`InvalidSaveError`), naming ``what`` was being loaded; an ``error`` raised
    inside passes unchanged. Every loader of saved records runs under it, so a damaged
    record of any kind is an :class:`InvalidSaveError` and nothing else."""
    try:
        yield
    except error:
        raise
    except _DAMAGE as e:
        if type(e) is KeyError and e.args:
            raise error(f"damaged {what}: missing field {shown(e.args[0])}") from e
        raise error(f"damaged {what}: {e}") from e


def _refuse_constant(name: str) -> Any:
    raise InvalidSaveError(f"not a JSON record: {name} is not a JSON number")


def _check_depth(data: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` (iteratively: no recursion) and numbers
    too big for a float (``1e999``: no record holds one)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            raise InvalidSaveError(f"not a JSON record: the number {node} is out of range")
        if isinstance(node, (dict, list)):
            if depth > MAX_DEPTH:
                raise InvalidSaveError(f"the record nests deeper than {MAX_DEPTH} levels")
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def checksum(data: dict[str, Any]) -> str:
    """SHA-256 (hex) of ``data`` serialised canonically (sorted keys, no spaces)."""
    return hashlib.sha256(_canonical(data)).hexdigest()


def same_json(a: Any, b: Any) -> bool:
    """Whether two values are the same JSON: unlike ``==``, ``true``, ``1`` and ``1.0`` differ,
    so a record edited from one to another does not pass for the replayed original."""
    return _canonical(a) == _canonical(b)


def dumps(data: dict[str, Any], *, checksum_prefix: str = "", ensure_ascii: bool = True) -> str:
    """``data`` as indented JSON text with a ``checksum`` field added.

    The field holds ``checksum_prefix`` followed by :func:`checksum` of ``data``. With
    ``ensure_ascii=False`` non-ASCII text is written as UTF-8 rather than ``\\u`` escapes;
    the checksum is the same either way.
    """
    if "checksum" in data:
        raise InvalidSaveError("a record may not carry its own 'checksum' field")
    sealed = {**data, "checksum": checksum_prefix + checksum(data)}
    return json.dumps(sealed, indent=1, sort_keys=True, ensure_ascii=ensure_ascii) + "\n"


def loads(
    text: str | bytes,
    expected_format: str,
    *,
    expected_version: int | None = None,
    checksum_prefix: str = "",
) -> dict[str, Any]:
    """Parse and check text written by :func:`dumps`; returns the data without checksum.

    Raises :class:`InvalidSaveError` for text that is not JSON (``NaN`` and ``Infinity``
    are not), nests deeper than :data:`MAX_DEPTH`, is not an object of
    ``expected_format`` (and, if given, of ``expected_version``), or whose checksum
    (``checksum_prefix`` and the digest, as :func:`dumps` wrote it) does not match its
    content. The version is checked before the checksum, so a record from a newer format
    is reported as such rather than as corrupted. Anything but text is a :class:`TypeError`.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"a saved record is text, not {type(text).__name__}")
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        if isinstance(e, InvalidSaveError):
            raise
        raise InvalidSaveError(f"not a JSON record: {e}") from None
    _check_depth(data)
    if not isinstance(data, dict):
        raise InvalidSaveError("a saved record is a JSON object")
    if data.get("format") != expected_format:
        raise InvalidSaveError(
            f"expected a {expected_format!r} record, found format {data.get('format')!r}"
        )
    if expected_version is not None and data.get("version") != expected_version:
        raise InvalidSaveError(
            f"unsupported {expected_format!r} record version {data.get('version')!r} "
            f"(this bgfast reads {expected_version})"
        )
    stored = data.pop("checksum", None)
    if stored is None:
        raise InvalidSaveError("the record has no checksum")
    if stored != checksum_prefix + checksum(data):
        raise InvalidSaveError("checksum mismatch: the record was changed after it was saved")
    return data


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see either the old file or the new one.

    The text goes to a temporary file in the same directory, is flushed to disk, and then
    replaces ``path`` in one step (:func:`os.replace`). Written as UTF-8 with ``\n`` line
    ends on every platform, so a saved file has the same bytes everywhere. A new file gets
    the permissions the umask gives (as ``open`` would), a replaced one keeps its own.

    A symbolic link is followed: the file it names is replaced, the link stays. A path that
    names something other than a regular file (a directory, a FIFO, a device such as
    ``/dev/null``) is refused with an ``OSError`` before anything is written: replacing it
    would destroy it; so is a path ending in a separator (:class:`IsADirectoryError`) and
    one in a missing directory (:class:`FileNotFoundError` naming the path given).
    """
    given = os.fspath(path)
    if not given or given.endswith(("/", os.sep)):
        # realpath would drop the separator and write a file where a directory was meant.
        raise IsADirectoryError(errno.EISDIR, "not a file's path", given)
    path = os.path.realpath(given)
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise OSError(
                errno.EINVAL, "not a regular file: bgfast writes only over a regular file", path
            )
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, "no such directory", given)
    fd, tmp = _new_temporary(directory)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _new_temporary(directory: str) -> tuple[int, str]:
    """A new file of a random name in ``directory``, opened for writing: made with mode
    0o666 less the umask (``tempfile.mkstemp`` makes it private, and ``os.replace`` would
    keep that)."""
    for _ in range(100):
        tmp = os.path.join(directory, f".bgfast-{secrets.token_hex(8)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def read_file(
    path: str | os.PathLike[str],
    what: str = "file",
    error: type[InvalidSaveError] = InvalidSaveError,
) -> bytes:
    """The bytes of the file at ``path``: a regular file of at most :data:`MAX_FILE_BYTES`.

    Anything else (a device such as ``/dev/zero``, a FIFO, a directory) or a longer file is
    ``error`` (an :class:`InvalidSaveError`) naming ``what`` and the path, raised before
    anything is read: such a path would be read forever, or block. The path is checked
    before it is opened (opening a FIFO blocks), opened non-blocking and checked again on
    the open file, and the read stops after the limit in case the file grows. ``OSError``
    if it cannot be opened or read."""
    name = f"{what} {os.fsdecode(path)}"
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise error(f"cannot read {name}: not a regular file")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    with open(os.open(path, flags), "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise error(f"cannot read {name}: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise error(
                f"cannot read {name}: {info.st_size} bytes, more than the {MAX_FILE_BYTES} "
                "a file may have"
            )
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise error(f"cannot read {name}: it grew past {MAX_FILE_BYTES} bytes as it was read")
    return data


_S = TypeVar("_S", bound="Saved")


class Saved:
    """What a savable class gets from this module: JSON text with a checksum, atomic files.

    A subclass sets :attr:`FORMAT` (and :attr:`VERSION` to have it checked before the
    checksum, :attr:`CHECKSUM_PREFIX` and :attr:`ENSURE_ASCII` for the chouette's file
    form, :attr:`SAVE_ERROR` for its own :class:`InvalidSaveError` subclass), and defines
    ``to_dict`` (a JSON-ready record with ``format``) and ``from_dict`` (which rebuilds the
    object from such a record, checking it, and raises :class:`InvalidSaveError` or
    ``SAVE_ERROR`` for a damaged one).
    """

    FORMAT: ClassVar[str]
    """The record's ``format`` name."""
    VERSION: ClassVar[int | None] = None
    """The record version :meth:`from_json` reads, checked before the checksum (``None``:
    left to ``from_dict``)."""
    CHECKSUM_PREFIX: ClassVar[str] = ""
    """Written before the hex digest (``"sha256:"`` in chouette files)."""
    ENSURE_ASCII: ClassVar[bool] = True
    """Whether non-ASCII text is written as ``\\u`` escapes."""
    SAVE_ERROR: ClassVar[type[InvalidSaveError]] = InvalidSaveError
    """The class of a damaged record's error (a subclass of :class:`InvalidSaveError`)."""
    WHAT: ClassVar[str] = "record"
    """What a record holds, for messages (``"chouette"``)."""

    def to_dict(self) -> dict[str, Any]:
        """The object as a JSON-ready record (a subclass defines it)."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls: type[_S], data: dict[str, Any]) -> _S:
        """The object of a record from :meth:`to_dict` (a subclass defines it)."""
        raise NotImplementedError

    def to_json(self) -> str:
        """The object as JSON text with a checksum (see :func:`dumps`): what :meth:`to_dict`
        holds. A game's, match's or chouette's record holds its dice seed, so anyone holding
        it can predict every roll to come: never show it to a player."""
        return dumps(
            self.to_dict(), checksum_prefix=self.CHECKSUM_PREFIX, ensure_ascii=self.ENSURE_ASCII
        )

    @classmethod
    def from_json(cls: type[_S], text: str | bytes) -> _S:
        """The object saved as :meth:`to_json` text. Text that is malformed, edited (the
        checksum) or inconsistent (the replay) raises :class:`InvalidSaveError`; anything
        but text is a ``TypeError``."""
        try:
            data = loads(
                text,
                cls.FORMAT,
                expected_version=cls.VERSION,
                checksum_prefix=cls.CHECKSUM_PREFIX,
            )
        except InvalidSaveError as e:
            if cls.SAVE_ERROR is InvalidSaveError or isinstance(e, cls.SAVE_ERROR):
                raise
            raise cls.SAVE_ERROR(f"not a saved {cls.WHAT}: {e}") from None
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` atomically (a crash leaves the old file)."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls: type[_S], path: str | os.PathLike[str]) -> _S:
        """Load what :meth:`save` wrote (see :meth:`from_json`). The file is read as bytes:
        text that is not UTF-8 is a damaged save, not a ``UnicodeDecodeError``; a path that
        is not a regular file, or a file too large to be a save, is refused unread
        (:func:`read_file`)."""
        return cls.from_json(read_file(path, f"saved {cls.WHAT}", cls.SAVE_ERROR))
