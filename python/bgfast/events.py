"""The events of a game: what happened, one small frozen dataclass per kind.

A :class:`~bgfast.Game` changes only through events: each action (``game.roll()``,
``game.double()``, ...) is checked, applied and recorded as one of these, and replaying
the recorded events from the game's first state rebuilds it exactly
(:meth:`~bgfast.Game.from_history`, saved games). :attr:`bgfast.Game.events` hands them
out; :attr:`bgfast.Game.history` and saved files hold their JSON form (:func:`to_dict`,
:func:`from_dict`), ``{"type": "roll", "dice": [3, 1]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from bgfast.errors import InvalidSaveError, shown
from bgfast.vocab import Kind

__all__ = [
    "Accept",
    "Beaver",
    "Call",
    "Close",
    "Commit",
    "Double",
    "Drop",
    "Event",
    "Move",
    "Raccoon",
    "Reject",
    "Resign",
    "Roll",
    "Take",
    "Undo",
    "from_dict",
    "to_dict",
]


@dataclass(frozen=True)
class Roll:
    """Dice rolled (R3 at the opening: player 0's die, player 1's die). ``random`` marks
    dice drawn from the game's seeded stream, which a replay checks against the stream.
    ``dice`` is ``None`` only in an action not yet applied (roll from the stream)."""

    type: ClassVar[str] = "roll"
    dice: tuple[int, int] | None = None
    random: bool = False


@dataclass(frozen=True)
class Double:
    """The player on roll doubles, before rolling (R17, R18)."""

    type: ClassVar[str] = "double"


@dataclass(frozen=True)
class Take:
    """The pending double, beaver or raccoon is taken (R19)."""

    type: ClassVar[str] = "take"


@dataclass(frozen=True)
class Drop:
    """The pending double, beaver or raccoon is passed: the game ends (R19)."""

    type: ClassVar[str] = "drop"


@dataclass(frozen=True)
class Beaver:
    """The doubled player takes and redoubles at once, keeping the cube (money option)."""

    type: ClassVar[str] = "beaver"


@dataclass(frozen=True)
class Raccoon:
    """The doubler answers a beaver by doubling once more (money option)."""

    type: ClassVar[str] = "raccoon"


@dataclass(frozen=True)
class Move:
    """A move made for the rolled dice (staged until committed, R29), as text: in the
    core's notation when legal, as written when recorded illegal in table mode (R31)."""

    type: ClassVar[str] = "move"
    move: str


@dataclass(frozen=True)
class Undo:
    """The staged move is taken back (R29)."""

    type: ClassVar[str] = "undo"


@dataclass(frozen=True)
class Commit:
    """The staged move is committed: the dice are picked up (R29)."""

    type: ClassVar[str] = "commit"


@dataclass(frozen=True)
class Call:
    """The last move is called illegal and taken back, before the next roll (R31)."""

    type: ClassVar[str] = "call"


@dataclass(frozen=True)
class Close:
    """A finished game is closed: the next game has started, its last move stands (R31)."""

    type: ClassVar[str] = "close"


@dataclass(frozen=True)
class Resign:
    """An offer to resign a single game, a gammon or a backgammon; ``player`` ``None``
    means the player to act."""

    type: ClassVar[str] = "resign"
    kind: Kind
    player: int | None = None


@dataclass(frozen=True)
class Accept:
    """The pending resignation is accepted: the game ends (R16)."""

    type: ClassVar[str] = "accept"


@dataclass(frozen=True)
class Reject:
    """The pending resignation is rejected: play goes on where it stood."""

    type: ClassVar[str] = "reject"


Event = Union[
    Roll,
    Double,
    Take,
    Drop,
    Beaver,
    Raccoon,
    Move,
    Undo,
    Commit,
    Call,
    Close,
    Resign,
    Accept,
    Reject,
]
"""Any event of a game."""

_CLASSES: dict[str, type[Any]] = {
    cls.type: cls
    for cls in (
        Roll, Double, Take, Drop, Beaver, Raccoon, Move, Undo, Commit, Call, Close, Resign,
        Accept, Reject,
    )
}  # fmt: skip


def to_dict(event: Event) -> dict[str, Any]:
    """The JSON form of ``event``: ``{"type": ..., ...}`` with its fields, leaving out a
    roll's ``random`` when false and a resignation's ``player`` when not given."""
    data: dict[str, Any] = {"type": event.type}
    if isinstance(event, Roll):
        if event.dice is not None:
            data["dice"] = list(event.dice)
        if event.random:
            data["random"] = True
    elif isinstance(event, Move):
        data["move"] = event.move
    elif isinstance(event, Resign):
        data["kind"] = event.kind
        if event.player is not None:
            data["player"] = event.player
    return data


def from_dict(data: object) -> Event:
    """The event of a JSON form written by :func:`to_dict`. Anything else (an unknown type,
    a missing or unknown key) raises :class:`~bgfast.InvalidSaveError`; the values are
    checked when the event is applied."""
    if not isinstance(data, dict):
        raise InvalidSaveError(f"an event is an object, not {shown(data)}")
    kind = data.get("type")
    cls = None
    if isinstance(kind, str):
        cls = _CLASSES.get(kind)
    if cls is None or not isinstance(kind, str):
        raise InvalidSaveError(f"unknown event {shown(data)}")
    fields = {k: v for k, v in data.items() if k != "type"}
    allowed = {"roll": {"dice", "random"}, "move": {"move"}, "resign": {"kind", "player"}}
    unknown = set(fields) - allowed.get(kind, set())
    if unknown:
        raise InvalidSaveError(f"event {shown(data)} has unknown fields {sorted(unknown)}")
    if cls is Move and "move" not in fields:
        raise InvalidSaveError(f"a move event needs its move text: {shown(data)}")
    if cls is Resign and "kind" not in fields:
        raise InvalidSaveError(f"a resign event needs its kind: {shown(data)}")
    if cls is Roll and "random" in fields and fields["random"] is not True:
        raise InvalidSaveError(f"a roll's 'random' is true when present: {shown(data)}")
    if cls is Roll and isinstance(fields.get("dice"), list):
        fields["dice"] = tuple(fields["dice"])  # the value's own form; checked when applied
    event: Event = cls(**fields)
    return event
