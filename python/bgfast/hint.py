"""The plays of a roll ranked at the stakes, like GNU Backgammon's ``hint``.

A net gives each play's result cubeless chances; which play is best depends on what the
points are worth. At double match point a gammon counts for nothing, at a cube of 4 the
opponent's recube is near, and the ranking by cubeless money equity (``Net.rank``) plays
for gammons and cube leverage that the score does not pay. :func:`hint` values each result
as the opponent, who rolls next, values it after its own best cube action (Rick Janowski's
cubeful model of :mod:`bgfast.cubeful`, with the match equity table in match play), turned
round to the side that moved, and ranks by that value, as :func:`bgfast.analyse` rates the
plays of a match and ``bgfast serve gnubg-external`` chooses its own. A result in the
two-sided bear-off database's range is valued exactly, as GNU Backgammon values it: the
database's cubeful equities in money play, and in a match the cube model at a cube life
found from them (:func:`bgfast.cubeful.exact_bearoff_values`).

>>> import bgfast
>>> state = bgfast.codec.state_from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
>>> [str(h.move) for h in bgfast.hint(bgfast.Net.wildbg(), state)][:1]
['8/5 6/5']
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from bgfast import batch, bearoff
from bgfast._core import Move, Net, Position, check_dice
from bgfast.chouette import BOX, Chouette
from bgfast.cubeful import (
    DEFAULT_CUBE_LIFE,
    GNUBG_CUBE_LIFE,
    CubeLife,
    Stakes,
    check_cube_life,
    value_for_the_side_that_moved,
)
from bgfast.errors import BgfastError, shown
from bgfast.scoring import holland_waits_after_play
from bgfast.state import GameState, roll_to_play
from bgfast.vocab import Roll

__all__ = ["RankedPlay", "hint"]


class RankedPlay(NamedTuple):
    """One play of :func:`hint`, with the value of its result for the side that moved."""

    move: Move
    #: The side that moved's chances after the play: win, win gammon, win backgammon,
    #: lose gammon, lose backgammon (cubeless, as ``Net.evaluate`` gives them).
    probabilities: npt.NDArray[np.float32]
    #: The cubeless money equity of those chances (what ``Net.rank`` ranks by), per unit
    #: of the cube, a backgammon counted 3 whatever the stakes.
    equity: float
    #: The cubeful value at the stakes per unit of the cube now (the same at a cube of 2
    #: or 4): money, or in a match the equivalent in money points (EMG) of ``mwc``. For a
    #: chouette's several cubes, the points the side that moved wins over all of them per
    #: point they carry now. The plays are ranked by it.
    cubeful_equity: float
    #: The side that moved's match-winning chances after the play (``None`` in money play).
    mwc: float | None


def hint(
    net: Net,
    position: Position | GameState | Chouette,
    dice: Roll | None = None,
    *,
    stakes: Stakes | None = None,
    member: str | None = None,
    cube_life: CubeLife = DEFAULT_CUBE_LIFE,
) -> list[RankedPlay]:
    """Every legal play of ``dice`` from ``position``, best first by its cubeful value at
    ``stakes``; among plays of equal value, the net's cubeless order. Each is a
    :class:`RankedPlay` (``bgfast.RankedPlay``): ``move``, the side that moved's
    ``probabilities`` after it, the cubeless money ``equity``, the ``cubeful_equity`` per
    unit of the cube now (EMG in a match) and ``mwc`` (``None`` in money play).

    ``position`` is a :class:`Position` (the side to move on roll) or a :class:`GameState`
    whose player is on roll or to move, from a GNUbg ID or an XGID say: its dice, once
    rolled, are the roll ranked (other dice are an ``InvalidDiceError``: rank another roll
    from ``state.position`` with ``stakes=Stakes.of_state(state)``) and its cube, score and
    rules the default ``stakes`` (:meth:`Stakes.of_state`). For a position, the default stakes are
    money with the cube centred at 1 (no Jacoby rule). ``cube_life`` is the cube life index
    of the model (0 to 1), or ``"gnubg"`` for GNU Backgammon's index of each result, the
    opponent on roll (:data:`bgfast.cubeful.CubeLife`), as gnubg's 0-ply hint. A forced
    play or a pass is the one play returned. Under the Holland rule (a state's
    ``holland``, ranked at match stakes) a trailer who may not double at its next turn is
    valued without that turn's cube action.

    ``position`` may also be a :class:`bgfast.chouette.Chouette` whose board is on roll or
    to move (the box or the team): its stakes are its cubes (R26), each at the chouette's
    rules, and the plays are ranked by the points the side on the board wins over every
    active member's cube, a cube of 4 counting four times a cube of 1 (the box plays
    against all of them, the captain for the whole team); ``member`` ranks at that
    member's cube alone. A chouette played without gammons values its chances with their
    gammons counted as single games (each play's ``probabilities`` and cubeless ``equity``
    stay the net's).

    ``BgfastError`` for a state waiting for something else (an answer to a double or a
    resignation), bad dice or stakes, ``stakes`` with a chouette or ``member`` without
    one; ``IllegalChouetteActionError`` for a member not in the game; ``MatchOptionError``
    for a match score the match equity table does not reach (R20).
    """
    if not isinstance(net, Net):
        raise TypeError(f"net must be a bgfast.Net, not {type(net).__name__}")
    if stakes is not None and not isinstance(stakes, Stakes):
        raise TypeError(f"stakes must be bgfast.cubeful.Stakes, not {type(stakes).__name__}")
    life = check_cube_life(cube_life)
    subject = _what_to_rank(position, dice, stakes, member)
    ranked = net.rank(subject.board, subject.roll)
    # gnubg's cube life index is read from every result's board.
    results = _result_boards(subject.board, ranked, every=life == GNUBG_CUBE_LIFE)
    ranked = _exact_where_known(ranked, results)
    mine = np.array([p for _, p, _ in ranked])
    if not subject.gammons:
        mine[:, 1:] = 0.0
    # The points won over every cube, per point they carry.
    values = np.zeros(len(ranked))
    for points, at in subject.cubes:
        values += points * values_after_play(mine, at, life, subject.they_may_double, results)
    values /= sum(points for points, _ in subject.cubes)
    stakes = subject.cubes[0][1]
    # EMG is linear in match-winning chances (a chouette, money play, has no match).
    equities = stakes.emg(0.0) + stakes.emg_scale() * values if stakes.is_match else values
    # Equal values by cubeless equity (exact where known), as GNU Backgammon's hint orders
    # them, then in the net's order (a stable sort).
    cubeless = np.array([equity for _, _, equity in ranked])
    order = np.lexsort((-cubeless, -values)).tolist()
    cubeful_equities = equities.tolist()
    mwcs = values.tolist() if stakes.is_match else [None] * len(ranked)
    # Each of rank's (move, probabilities, equity) with its two values: RankedPlay's fields.
    return [RankedPlay._make((*ranked[k], cubeful_equities[k], mwcs[k])) for k in order]


#: The columns of the side that moved's chances in the order of its opponent's.
_SWAPPED = np.array([0, 3, 4, 1, 2])


def _result_boards(
    board: Position, ranked: list[tuple[Move, npt.NDArray[np.float32], float]], every: bool
) -> npt.NDArray[np.uint8] | None:
    """The boards of ``Net.rank``'s results (the opponent to move) when some may be in the
    two-sided bear-off database's range (only possible when the opponent, who does not
    move, already has at most 6 checkers, all home) or ``every`` time; else ``None``."""
    if not every and not bearoff._plays_of_may_reach_two_sided_range(board):
        return None
    return batch.to_array([move.result for move, _, _ in ranked])


def _exact_where_known(
    ranked: list[tuple[Move, npt.NDArray[np.float32], float]],
    results: npt.NDArray[np.uint8] | None,
) -> list[tuple[Move, npt.NDArray[np.float32], float]]:
    """``Net.rank``'s plays with the side that moved's chances and cubeless equity made
    exact where the result (of ``results``, see :func:`_result_boards`) is in the
    two-sided database's range: a net's are not exact there, and GNU Backgammon's hint
    reads its database too."""
    if results is None:
        return ranked
    # The results' boards are the core's (batch.to_array of Positions): checked already.
    exact = bearoff._in_range(results)
    if not exact.any():
        return ranked
    # The results' chances are the opponent's, on roll in them; no gammon is possible.
    theirs = bearoff._exact_chances_of(results, np.zeros((len(ranked), 5), np.float32), exact)
    known = list(ranked)
    for k in np.flatnonzero(exact).tolist():
        win = 1.0 - float(theirs[k, 0])
        known[k] = (ranked[k][0], np.array([win, 0, 0, 0, 0], dtype=np.float32), 2 * win - 1)
    return known


def values_after_play(
    mine: npt.NDArray[np.floating[Any]],
    stakes: Stakes,
    cube_life: CubeLife,
    they_may_double: bool = True,
    results: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.floating[Any]]:
    """The cubeful values at ``stakes`` (money per unit of the cube, match-winning chances
    in a match) of results with the side that moved's chances ``mine`` (rows of five, as
    ``Net.rank`` gives them): the opponent, on roll next, values each after its own best
    cube action at its own stakes (none if ``they_may_double`` is false), and the player
    gets the rest. With the ``results``' boards (``(N, 2, 25)``, the opponent to move),
    those in the two-sided bear-off database's range are valued exactly, as GNU
    Backgammon values them (:func:`bgfast.cubeful.exact_bearoff_values`); ``cube_life``
    ``"gnubg"`` needs them."""
    mine = np.asarray(mine, dtype=np.float32)
    # The opponent sees the player's wins as its losses and the player's gammons as its own.
    theirs = mine[:, _SWAPPED]
    theirs[:, 0] = 1.0 - mine[:, 0]
    return value_for_the_side_that_moved(
        theirs, stakes.for_opponent(), cube_life, they_may_double, results
    )


#: What a state not in the roll or move phase waits for.
_WAITING = {
    "opening": "nobody is on roll before the opening roll (R3)",
    "doubled": "a double waits for its answer",
    "resign": "a resignation waits for its answer",
    "over": "the game is over",
}


class _Subject(NamedTuple):
    """What :func:`hint` ranks: the board and roll, and how the results are valued."""

    board: Position
    roll: tuple[int, int]
    #: Each cube ranked at, with the points it carries (one cube but in a chouette).
    cubes: list[tuple[int, Stakes]]
    #: Whether gammons count (a chouette may be played without them).
    gammons: bool = True
    #: Whether the opponent may double at its turn after the play (the Holland rule).
    they_may_double: bool = True


def _what_to_rank(
    position: Position | GameState | Chouette,
    dice: Roll | None,
    stakes: Stakes | None,
    member: str | None,
) -> _Subject:
    """What :func:`hint` ranks, checked."""
    if isinstance(position, Chouette):
        if stakes is not None:
            raise BgfastError("a chouette's stakes are its cubes: name a member, not stakes")
        return _in_chouette(position, dice, member)
    if member is not None:
        raise BgfastError("member names a chouette's member: rank a Chouette to give one")
    if isinstance(position, GameState):
        state = position
        if state.phase not in ("roll", "move"):
            raise BgfastError(f"no play to rank: {_WAITING[state.phase]}")
        given = roll_to_play(dice, state.dice, "the game state")
        if given is None:
            raise BgfastError("the state holds no dice yet: give the roll, e.g. (3, 1)")
        at = Stakes.of(state) if stakes is None else stakes
        # The Holland rule is a match's: ranked for money, the state's rule has no say.
        mover = state.turn
        waits = at.is_match and mover is not None and holland_waits_after_play(state, mover)
        return _Subject(state.position, check_dice(given), [(1, at)], they_may_double=not waits)
    if isinstance(position, Position):
        if dice is None:
            raise BgfastError("a position holds no dice: give the roll, e.g. (3, 1)")
        at = Stakes.of(position) if stakes is None else stakes
        return _Subject(position, check_dice(dice), [(1, at)])
    raise TypeError(
        f"position must be a bgfast Position, GameState or Chouette, not {shown(position)}"
    )


def _in_chouette(chouette: Chouette, dice: Roll | None, member: str | None) -> _Subject:
    """A chouette's board and roll, and each cube :func:`hint` ranks at with the points it
    carries: every active member's (the team cube once), or ``member``'s."""
    game = chouette.game
    if game is None:
        raise BgfastError("no play to rank: the chouette has no game in progress")
    if member is not None and not isinstance(member, str):
        raise TypeError(f"member must be a member's name, not {shown(member)}")
    on_the_board = _what_to_rank(game.state, dice, None, None)
    mover = "box" if game.state.turn == BOX else "team"
    if member is not None:
        members: tuple[str, ...] = (member,)
    elif chouette.form == "team-cube":
        members = chouette.active_members[:1]
    else:
        members = chouette.active_members
    cubes = []
    for name in members:
        cube = chouette.cube(name)
        owner = (
            "centred" if cube.owner == "center" else "mover" if cube.owner == mover else "opponent"
        )
        at = Stakes.check(
            cube=(cube.value, owner),
            jacoby=chouette.rules.jacoby,
            backgammon_counts_double=chouette.rules.backgammon_counts_double,
        )
        cubes.append((cube.value, at))
    gammons = chouette.options["gammons"]
    return _Subject(on_the_board.board, on_the_board.roll, cubes, gammons=gammons)
