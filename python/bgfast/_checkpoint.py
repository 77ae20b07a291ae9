"""Rollout checkpoints: a rollout's finished games kept in a file while it runs, so that a
run stopped by Ctrl-C, an error, a killed process or a lost machine goes on where it
stopped, and a finished one can be extended with more games (``checkpoint=`` of
:func:`bgfast.rollout`, :func:`~bgfast.rollout_moves` and :func:`~bgfast.rollout_cube`).

A checkpoint holds the rollout's exact sums (:class:`~bgfast._rollout_results.RawSums`)
over its first ``games`` games (a run always finishes a prefix of the games: the chunks
and the executor's shards are summed in order), the wall-clock seconds they took, and what
rollout they belong to: its kind, positions, settings and stakes (the seed included), its
policy and evaluator (a net by the SHA-256 of its file bytes) and the bgfast version that
played them (another version may play a game differently). Game ``k``'s dice depend on
``(seed, k)`` alone and the sums are exact, so a run resumed from game ``n`` gives the same
bits as one that never stopped, on any thread count or executor.

The file is a checked JSON record (:mod:`bgfast.persist`: a damaged or edited one is an
:class:`~bgfast.InvalidSaveError`, as is one whose sums no games could give), written
atomically at most :data:`SAVE_EVERY_SECONDS` apart while games finish (on an executor, as
the finished prefix of shards grows) and once more when the run returns or fails; a save
the system refuses is a ``RuntimeWarning`` and the run goes on. One run at a time may use
a file.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from bgfast._core import BgfastError, Net
from bgfast._rollout_results import RawSums
from bgfast._rollout_settings import RolloutSettings
from bgfast.errors import InvalidSaveError, shown
from bgfast.persist import atomic_write_text, damaged, dumps, loads, read_file
from bgfast.policies import SHIPPED_NETS, policy_name

__all__ = ["SAVE_EVERY_SECONDS", "Checkpoint", "identity", "saved_games", "saved_seed"]

FORMAT = "bgfast-rollout-checkpoint"
VERSION = 1

#: The most wall-clock seconds a checkpoint may say its games took (a thousand years).
MAX_SECONDS = 3.2e10

SAVE_EVERY_SECONDS = 10.0
"""The longest a running rollout goes without writing its checkpoint (while games finish:
a chunk of games takes about 0.2 s, a shard on an executor longer)."""


def _who(policy: object) -> str:
    """A policy or evaluator as a checkpoint tells it apart: a name (a shipped net's, however
    it was passed), or another net's digest."""
    if isinstance(policy, Net):
        name = policy_name(policy)
        if name in SHIPPED_NETS:
            return name
        return "net sha256:" + hashlib.sha256(policy.to_bytes()).hexdigest()
    if isinstance(policy, str):
        return policy
    # A callable's identity cannot be checked when the run resumes.
    raise BgfastError(
        "checkpoint= needs a native policy ('wildbg', 'wildbg-large', a bgfast.Net,"
        " 'pubeval', 'race', 'random'): a resumed run could not check that an evaluator"
        f" callable ({shown(policy)}) is the one that played the saved games"
    )


def identity(
    kind: str,
    settings: RolloutSettings,
    branches: list[tuple[str, str]],
    policy: object,
    version: str,
) -> dict[str, Any]:
    """What a checkpoint's games belong to, as JSON data: the rollout's ``kind``
    (``"rollout"``, ``"rollout_moves"``, ``"rollout_cube"``), its ``branches`` (Position
    IDs and kinds), settings, policy, evaluator and the bgfast ``version``."""
    record = {
        "kind": kind,
        "bgfast": version,
        "branches": [list(b) for b in branches],
        "policy": _who(policy),
        "evaluator": None if settings.evaluator is None else _who(settings.evaluator),
        "settings": settings.describe(),
    }
    plain: dict[str, Any] = json.loads(json.dumps(record))  # tuples as lists, as read back
    return plain


def _read(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The checked record at ``path``, or ``None`` if there is no file."""
    try:
        text = read_file(path, "rollout checkpoint")
    except FileNotFoundError:
        return None
    name = os.fsdecode(path)
    try:
        data = loads(text, FORMAT, expected_version=VERSION)
    except InvalidSaveError as error:
        if _is_checkpoint(text):
            raise InvalidSaveError(
                f"rollout checkpoint {name} is damaged ({error}): delete it to start the"
                " rollout again"
            ) from None
        # Another file (a game's save, notes): never tell anyone to delete it.
        raise InvalidSaveError(
            f"{name} is not a rollout checkpoint ({error}): give the path of one, or of a"
            " file that does not exist yet"
        ) from None
    return data


def _saved_count(path: str | os.PathLike[str], *keys: str) -> int | None:
    """The count at ``keys`` in the checkpoint at ``path``, or ``None`` without a file."""
    data = _read(path)
    if data is None:
        return None
    with damaged(f"rollout checkpoint {os.fsdecode(path)}"):
        for key in keys:
            data = data[key]
        if type(data) is not int or data < 0:
            raise ValueError(f"its {keys[-1]} is {shown(data)}")
        return data


def _is_checkpoint(text: bytes) -> bool:
    """Whether ``text`` reads as JSON naming the checkpoints' format (damaged or not)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def saved_seed(path: str | os.PathLike[str]) -> int | None:
    """The seed of the checkpoint at ``path`` (a run given no seed resumes with it), or
    ``None`` if there is no file yet."""
    return _saved_count(path, "rollout", "settings", "seed")


def saved_games(path: str | os.PathLike[str]) -> int | None:
    """How many games the checkpoint at ``path`` holds, or ``None`` if there is no file."""
    return _saved_count(path, "sums", "games")


def _check_writable(path: str) -> None:
    """Refuses, before any game is played, a new checkpoint's path that could not be
    written (an ``OSError``, as :func:`~bgfast.persist.atomic_write_text` would raise it
    at the first save)."""
    if not path or path.endswith(("/", os.sep)):
        raise IsADirectoryError(errno.EISDIR, "not a file's path", path)
    directory = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, "no such directory", path)
    if not os.access(directory, os.W_OK):
        raise PermissionError(errno.EACCES, "cannot write a checkpoint there", path)


def _said(value: object) -> str:
    return "none" if value is None else shown(value)


def _reordered(there: object, here: object) -> bool:
    """Whether two lists of branches hold the same ones in another order."""
    if not isinstance(there, list) or not isinstance(here, list):
        return False
    return sorted(map(str, there)) == sorted(map(str, here))


def _differences(saved: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    """What differs between two identities, in words (settings one by one; a setting the
    identity names at its top, such as the evaluator, once)."""
    said = []
    for key in sorted(set(saved) | set(wanted)):
        if key == "settings":
            continue
        there, here = saved.get(key), wanted.get(key)
        if there == here:
            continue
        if key == "branches" and _reordered(there, here):
            assert isinstance(there, list)
            lines = ", ".join(str(b[0]) if isinstance(b, list) and b else str(b) for b in there)
            said.append(f"the same lines in another order (the file's order: {lines})")
            continue
        said.append(f"{key} {_said(there)} there, {_said(here)} here")
    a, b = saved.get("settings") or {}, wanted.get("settings") or {}
    keys = sorted((set(a) | set(b)) - set(saved) - set(wanted))
    differing = [key for key in keys if a.get(key) != b.get(key)]
    if differing != ["stakes"]:  # the stakes in words repeat the keys that differ
        differing = [key for key in differing if key != "stakes"]
    said += [f"{key} {_said(a.get(key))} there, {_said(b.get(key))} here" for key in differing]
    return said


@dataclass
class Checkpoint:
    """A rollout's checkpoint file and the sums it holds (see the module's docs).
    :meth:`resume` opens one; the run reports its sums to :meth:`keep` as games finish
    and calls :meth:`save` when it returns or fails."""

    path: str
    identity: dict[str, Any]
    sums: RawSums
    earlier_seconds: float
    started: float = field(default_factory=time.perf_counter)
    saved_at: float = field(default_factory=time.monotonic)

    @classmethod
    def resume(
        cls, path: str | os.PathLike[str], identity: dict[str, Any], games: int
    ) -> Checkpoint:
        """The checkpoint at ``path`` for the rollout ``identity`` of ``games`` games: its
        saved games, or none if there is no file yet. ``BgfastError`` if the file belongs
        to another rollout (naming what differs) or holds more games than ``games``;
        ``InvalidSaveError`` if it is damaged."""
        name = os.fsdecode(path)
        branches = len(identity["branches"])
        data = _read(path)
        _check_writable(name)  # a run that could not save is refused before it plays
        if data is None:
            return cls(name, identity, RawSums.zero(branches), 0.0)
        with damaged(f"rollout checkpoint {name}"):
            saved = data["rollout"]
            if not isinstance(saved, dict):
                raise ValueError("its rollout is not an object")
            sums = RawSums.from_plain(data["sums"], len(saved["branches"]))
            seconds = data["seconds"]
            if type(seconds) not in (int, float) or not 0 <= seconds <= MAX_SECONDS:
                raise ValueError(f"its seconds are {shown(seconds)}")
        differences = _differences(saved, identity)
        if differences:
            raise BgfastError(
                f"rollout checkpoint {name} holds the games of another rollout ("
                + "; ".join(differences)
                + "): give this rollout's arguments, or another file to start a new one"
            )
        if sums.games > games:
            raise BgfastError(
                f"rollout checkpoint {name} holds {sums.games} games, more than the {games}"
                f" asked for: ask for at least {sums.games} (saved games cannot be taken back)"
            )
        return cls(name, identity, sums, float(seconds))

    def seconds(self) -> float:
        """The wall-clock seconds of the saved games and of this run so far."""
        return self.earlier_seconds + time.perf_counter() - self.started

    def keep(self, sums: RawSums) -> None:
        """Records ``sums`` (every game played so far, the saved ones included) and
        writes the file if it was last written :data:`SAVE_EVERY_SECONDS` ago."""
        self.sums = sums
        if time.monotonic() - self.saved_at >= SAVE_EVERY_SECONDS:
            self.save()

    def save(self) -> None:
        """Writes the file now, atomically. A write the system refuses (a full disk, a
        directory made read-only since the run began) is a ``RuntimeWarning``, not an
        error: the run goes on, or returns its result, and the next save tries again."""
        try:
            self._write()
        except OSError as error:
            self.saved_at = time.monotonic()  # try again at the next interval, not at once
            warnings.warn(
                f"could not write the rollout checkpoint {self.path}: {error.strerror or error}"
                f" ({self.sums.games} games played; the run goes on, and the next save tries"
                " again)",
                RuntimeWarning,
                stacklevel=2,
            )

    def _write(self) -> None:
        record = {
            "format": FORMAT,
            "version": VERSION,
            "rollout": self.identity,
            "seconds": self.seconds(),
            "sums": self.sums.to_plain(),
        }
        atomic_write_text(self.path, dumps(record))
        self.saved_at = time.monotonic()
