"""The doubling cube (R17-R19): its value, owner, face, and who may double.

:class:`Cube` is the one cube of bgfast, an immutable value: a :class:`~bgfast.Game`
replaces its cube when a double is taken, and each cube of a :class:`~bgfast.Chouette`'s
games is one too (the chouette shows it from the box's side, :class:`bgfast.chouette.Cube`).
Players are ``0`` and ``1`` (as in GNU Backgammon); ``owner`` ``None`` means the cube is in
the middle (the vocabulary is :mod:`bgfast.vocab`'s).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from bgfast.errors import GameStateError, MatchOptionError, shown
from bgfast.vocab import (
    CUBE_LIMIT,
    Player,
    as_int_or_same,
    check_cube_owner,
    check_flag,
    check_player,
    cube_value_problem,
)

__all__ = ["Cube", "Player", "check_player"]

_MAX_VALUE = CUBE_LIMIT
_check_player = check_player


@dataclass(frozen=True)
class Cube:
    """The doubling cube.

    Attributes:
        value: the stake multiplier, a power of two (1 at the start, R17).
        owner: ``None`` while centred (either player may double), else the player who took
            the last double and alone may redouble (R17, R19).
        max_value: the highest value the cube may reach (a power of two; 32768 is the most
            a GNU Backgammon Match ID can hold).
        enabled: ``False`` when no doubling is allowed at all, as in the Crawford game (R21).
        beavers: money option: a doubled player may beaver (take and redouble, keeping it).
        raccoons: money option: a beavered doubler may raccoon (double once more).
    """

    value: int = 1
    owner: int | None = None
    max_value: int = _MAX_VALUE
    enabled: bool = True
    beavers: bool = False
    raccoons: bool = False

    def __post_init__(self) -> None:
        problems: list[str] = [
            p
            for p in (
                cube_value_problem(self.value, "value", limit=1 << 62),
                cube_value_problem(self.max_value, "max_value", limit=1 << 62),
            )
            if p
        ]
        if not problems and self.max_value > _MAX_VALUE:
            problems.append(f"max_value is at most {_MAX_VALUE}, not {self.max_value}")
        if not problems and self.value > max(self.max_value, 1):
            problems.append(f"value {self.value} is above max_value {self.max_value}")
        try:
            check_cube_owner(self.owner)
        except MatchOptionError as e:
            problems.append(str(e))
        for name in ("enabled", "beavers", "raccoons"):
            try:  # numpy booleans are kept as the bools they stand for: a cube is saved
                object.__setattr__(self, name, check_flag(name, getattr(self, name)))
            except MatchOptionError as e:
                problems.append(str(e))
        if self.raccoons and not self.beavers:
            problems.append("raccoons need beavers")
        if problems:
            raise MatchOptionError("invalid cube: " + "; ".join(problems))
        # Numpy integers are kept as the ints they stand for: a uint8 cube of 128 doubled
        # would wrap to 0, and a cube is saved.
        for name in ("value", "max_value", "owner"):
            object.__setattr__(self, name, as_int_or_same(getattr(self, name)))

    @property
    def centred(self) -> bool:
        """Whether the cube is in the middle (not owned; never turned this game)."""
        return self.owner is None

    @property
    def face(self) -> int:
        """The number shown on the cube: 64 while the value is 1 (there is no 1 face, R17)."""
        return 64 if self.value == 1 else self.value

    def why_not_double(self, player: int) -> str | None:
        """Why ``player`` may not double this cube now, or ``None`` if the cube allows it.

        This checks the cube only; the game also requires that it is the player's turn,
        before the roll (R18).
        """
        _check_player(player)
        if not self.enabled:
            return "the cube is not in play in this game (Crawford game, R21)"
        if self.owner is not None and self.owner != player:
            return f"player {self.owner} owns the cube; only the owner may redouble (R17)"
        if self.value * 2 > self.max_value:
            return f"the cube is at its maximum value {self.value}"
        return None

    def may_double(self, player: int) -> bool:
        """Whether the cube lets ``player`` double now (centred or owned by them, R17)."""
        return self.why_not_double(player) is None

    def who_may_double(self) -> tuple[int, ...]:
        """The players the cube allows to double: both, one, or none."""
        return tuple(p for p in (0, 1) if self.may_double(p))

    def taken(self, taker: int, value: int | None = None) -> Cube:
        """The cube after ``taker`` accepts a double (R19): doubled, owned by the taker.

        ``value`` overrides the new value (a beaver or raccoon turns it further).
        """
        _check_player(taker)
        new_value = self.value * 2 if value is None else value
        return replace(self, value=new_value, owner=taker)

    def auto_doubled(self) -> Cube:
        """The cube after an automatic double (R22): value doubled, still centred."""
        if not self.centred:
            raise GameStateError("an automatic double needs a centred cube (R22)")
        return replace(self, value=self.value * 2)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_dict`)."""
        return {
            "value": self.value,
            "owner": self.owner,
            "max_value": self.max_value,
            "enabled": self.enabled,
            "beavers": self.beavers,
            "raccoons": self.raccoons,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cube:
        """Rebuild a cube from :meth:`to_dict` output."""
        if not isinstance(data, dict) or set(data) != set(cls.__dataclass_fields__):
            raise MatchOptionError(f"not a cube record: {shown(data)}")
        return cls(**data)

    def __str__(self) -> str:
        """``cube 2 owned by player 0``, ``cube 1 centred``; ``(not in play)`` in the
        Crawford game and when the limit is 1 (a cubeless game, such as a chouette's board,
        whose cubes are the chouette's). It names the value, as every other printout does,
        not the face (64 on a centred cube: :attr:`face`)."""
        where = "centred" if self.owner is None else f"owned by player {self.owner}"
        in_play = self.enabled and self.max_value > 1
        return f"cube {self.value} {where}" + ("" if in_play else " (not in play)")
