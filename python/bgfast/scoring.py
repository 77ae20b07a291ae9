"""Scoring options: what a won game is worth (R16), and the money-play options (R22, R23).

:class:`Rules` is an immutable record of the options a game or match is played with. The
money-play options (Jacoby, automatic doubles, beavers, raccoons) are refused in match play
with a :class:`~bgfast.MatchOptionError`, as the rules say ("not used in matches").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from bgfast.errors import MatchOptionError, shown
from bgfast.vocab import (
    CUBE_LIMIT,
    KINDS,
    RULE_OPTIONS,
    Kind,
    as_int,
    check_flag,
    check_kind,
    cube_value_problem,
)

__all__ = [
    "CUBE_LIMIT",
    "HOLLAND_RULE",
    "KINDS",
    "Kind",
    "MatchGame",
    "Rules",
    "crawford_allowed",
    "holland_wait_plies",
    "holland_waits",
    "holland_waits_after_play",
    "is_post_crawford",
]


def crawford_allowed(match_length: int, score: tuple[int, int]) -> bool:
    """Whether a game at ``score`` may be the Crawford game (R21): exactly one player is one
    point away. When both are (a 1-point match, or N-1 all), there is no Crawford game, as
    GNU Backgammon has it."""
    return match_length > 0 and [s == match_length - 1 for s in score].count(True) == 1


def is_post_crawford(match_length: int, score: tuple[int, int], crawford: bool) -> bool:
    """Whether a game at ``score`` is post-Crawford (R21): the one definition that
    :class:`~bgfast.Game` and :class:`~bgfast.Match` share, GNU Backgammon's.

    Post-Crawford means the Crawford game has been played and the cube is back: a match of
    more than one point, a player one point away, and not the Crawford game itself. A
    1-point match is neither Crawford nor post-Crawford (nobody reached 1-away by winning a
    game; gnubg: ``fPostCrawford = nMatchTo > 1``).
    """
    return match_length > 1 and not crawford and max(score) == match_length - 1


#: Why the Holland rule forbids a double.
HOLLAND_RULE = "Holland rule: the trailer may double only after both sides rolled twice"


class MatchGame(Protocol):
    """What :func:`holland_waits` reads of a game: a ``GameState``'s match context."""

    @property
    def holland(self) -> bool: ...
    @property
    def match_length(self) -> int: ...
    @property
    def score(self) -> tuple[int, int]: ...
    @property
    def crawford(self) -> bool: ...
    @property
    def turns_played(self) -> tuple[int, int]: ...


def holland_waits(game: MatchGame, player: int, turns_played: tuple[int, int]) -> bool:
    """Whether the Holland rule keeps ``player`` from doubling in ``game`` once the players
    have completed ``turns_played`` turns each: in a post-Crawford game played under it,
    the trailer may double only after both sides rolled twice."""
    return (
        game.holland
        and is_post_crawford(game.match_length, game.score, game.crawford)
        and game.score[player] < game.score[1 - player]
        and min(turns_played) < 2
    )


def holland_waits_after_play(game: MatchGame, player: int) -> bool:
    """Whether the Holland rule will keep the opponent of ``player`` from doubling at its
    next turn, once ``player`` has completed the turn it is in."""
    played = list(game.turns_played)
    played[player] += 1
    return holland_waits(game, 1 - player, (played[0], played[1]))


def holland_wait_plies(game: MatchGame, player: int) -> int:
    """The plies from ``player``'s turn, not yet played, before the trailer's first turn at
    which the Holland rule lets it double: 0 when the rule holds no cube back. Ply 0 is
    ``player``'s turn, ply 1 the opponent's, and so on, as a rollout counts them."""
    played = list(game.turns_played)
    held = [side for side in (0, 1) if holland_waits(game, side, (played[0], played[1]))]
    if not held:
        return 0
    (trailer,) = held
    ply, mover = 0, player
    # Turns only add up: within five plies both sides have rolled twice.
    while mover != trailer or holland_waits(game, trailer, (played[0], played[1])):
        played[mover] += 1
        mover = 1 - mover
        ply += 1
    return ply


@dataclass(frozen=True)
class Rules:
    """The scoring and cube options of a game or a match.

    Attributes:
        backgammon_counts_double: R16 option: a backgammon scores twice the cube, like a
            gammon, instead of three times.
        jacoby: R23 (money only): while the cube is centred (never turned), gammons and
            backgammons count as singles.
        auto_doubles: R22 (money only): the most automatic doubles per game (a tied opening
            roll doubles the centred cube); 0 turns them off.
        beavers: money only: a player who is doubled may take and at once redouble, keeping
            the cube ("beaver").
        raccoons: money only (needs ``beavers``): the doubler may answer a beaver by doubling
            once more, the cube staying with the beaver's side.
        max_cube: the highest value the cube may reach (a power of two; 1 means no cube), or
            ``None`` for no limit below 32768 (the largest value a Match ID can hold).
    """

    backgammon_counts_double: bool = False
    jacoby: bool = False
    auto_doubles: int = 0
    beavers: bool = False
    raccoons: bool = False
    max_cube: int | None = None

    def __post_init__(self) -> None:
        problems: list[str] = []
        for name in ("backgammon_counts_double", "jacoby", "beavers", "raccoons"):
            try:  # numpy booleans are kept as the bools they stand for: rules are saved
                object.__setattr__(self, name, check_flag(name, getattr(self, name)))
            except MatchOptionError as e:
                problems.append(str(e))
        autos = as_int(self.auto_doubles)
        if autos is None:
            problems.append("auto_doubles must be an int")
        elif autos < 0 or autos > 14:
            problems.append(f"auto_doubles must be 0..14, not {shown(self.auto_doubles)}")
        if self.raccoons and not self.beavers:
            problems.append("raccoons need beavers")
        if self.max_cube is not None and cube_value_problem(self.max_cube):
            problems.append(
                f"max_cube must be a power of two from 1 (cubeless) to {CUBE_LIMIT}, "
                f"not {shown(self.max_cube)} (R17)"
            )
        if problems:
            raise MatchOptionError("invalid rules: " + "; ".join(problems))
        # Numpy integers are kept as the ints they stand for: rules are saved.
        object.__setattr__(self, "auto_doubles", autos)
        if self.max_cube is not None:
            object.__setattr__(self, "max_cube", as_int(self.max_cube))

    @property
    def money_options(self) -> tuple[str, ...]:
        """Names of the money-only options that are switched on (empty: fit for a match)."""
        names: list[str] = []
        if self.jacoby:
            names.append("jacoby (R23)")
        if self.auto_doubles:
            names.append("auto_doubles (R22)")
        if self.beavers:
            names.append("beavers")
        if self.raccoons:
            names.append("raccoons")
        return tuple(names)

    def check_match_play(self, match_length: int) -> None:
        """Raise :class:`MatchOptionError` if these rules cannot be used at this match length.

        ``match_length`` 0 means money play, where every option is allowed.
        """
        if match_length and self.money_options:
            raise MatchOptionError(
                f"{', '.join(self.money_options)}: money-play options are not used in match "
                f"play (R22, R23); a {match_length}-point match was asked for"
            )

    @property
    def cube_limit(self) -> int:
        """The highest cube value allowed (``max_cube``, or 32768 when unlimited)."""
        return self.max_cube if self.max_cube is not None else CUBE_LIMIT

    def multiplier(self, kind: Kind, cube_centred: bool) -> int:
        """How many times the cube value a win of this kind scores (R16, R23).

        ``cube_centred`` is whether the cube was never turned in this game, which matters
        only under the Jacoby rule.
        """
        check_kind(kind)
        if self.jacoby and cube_centred:
            return 1
        if kind == "gammon":
            return 2
        if kind == "backgammon":
            return 2 if self.backgammon_counts_double else 3
        return 1

    def points(self, kind: Kind, cube_value: int, cube_centred: bool) -> int:
        """Points scored by a win of ``kind`` with the cube at ``cube_value`` (R16)."""
        return cube_value * self.multiplier(kind, cube_centred)

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain JSON-ready dict (see :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rebuild rules from :meth:`to_dict` output; unknown keys are an error."""
        if not isinstance(data, dict):
            raise MatchOptionError(f"rules must be a dict, not {type(data).__name__}")
        unknown = set(data) - set(RULE_OPTIONS)
        if unknown:
            raise MatchOptionError(f"unknown rule options: {sorted(unknown)}")
        for key in ("backgammon_counts_double", "jacoby", "beavers", "raccoons"):
            if key in data:
                check_flag(f"rule option {key}", data[key])
        return cls(**data)
