"""Interchange IDs: GNU Backgammon's Match ID and ``PositionID:MatchID``, and XGIDs.

Two layers: field codecs that read and write every field exactly
(:func:`decode_match_id`/:func:`encode_match_id`, :func:`parse_xgid`/:func:`format_xgid`),
and the conversions between those fields and a :class:`~bgfast.Game`.

Conventions (GNU Backgammon's): players are 0 and 1. A Match ID's ``dice_owner`` (gnubg's
``fMove``) is the player on roll, and its ``turn`` (``fTurn``) the player who must act (the
taker while a double waits). The Position ID is seen from ``dice_owner``. In an XGID the
bottom side (upper-case letters, turn ``1``, cube position ``1``) is player 1 and the top side
(lower-case, ``-1``) is player 0.

Match ID layout (72 bits, least significant bit of byte 0 first, base64): cube log2 (4 bits),
cube owner (2: 0, 1, or 3 = centred), dice owner (1), Crawford (1), game state (3: 0 none,
1 playing, 2 over, 3 resigned, 4 dropped), turn (1), doubled (1), resignation offered (2),
die 1 (3), die 2 (3), match length (15), score 0 (15), score 1 (15), and bit 66 which newer
gnubg sets when the Jacoby rule is *not* in use (always in match play). Bits 67-71 are 0.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from bgfast._core import BgfastError, Position
from bgfast.cube import check_player
from bgfast.errors_game import GameStateError, InvalidIdError, shown
from bgfast.scoring import KINDS, Rules

if TYPE_CHECKING:
    from bgfast.game import Game

__all__ = [
    "CubeAction",
    "MatchIdFields",
    "XgidFields",
    "decode_match_id",
    "encode_match_id",
    "format_xgid",
    "game_fibs_board",
    "game_from_fibs_board",
    "game_from_gnubg_id",
    "game_from_xgid",
    "game_match_id",
    "game_position_for_id",
    "game_xgid",
    "parse_xgid",
    "split_gnubg_id",
]

# (name, first bit, width) of the Match ID fields, in bit order.
_LAYOUT = (
    ("cube_log", 0, 4),
    ("cube_owner", 4, 2),
    ("dice_owner", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("jacoby_off", 66, 1),
)
_B64 = re.compile(r"^[A-Za-z0-9+/]{12}$")


@dataclass(frozen=True)
class MatchIdFields:
    """Every field of a GNU Backgammon Match ID.

    Attributes:
        cube_value: the cube value (a power of two up to 32768).
        cube_owner: ``None`` when centred, else the owning player.
        dice_owner: the player on roll (gnubg's ``fMove``).
        crawford: whether this is the Crawford game (R21).
        game_state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube.
        turn: the player who must act (gnubg's ``fTurn``).
        doubled: whether a double waits for an answer.
        resigned: resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon.
        dice: the dice rolled, higher first (gnubg stores them so), or ``(0, 0)``.
        match_length: points to win (R20); 0 for money play.
        score: ``(player 0, player 1)``.
        jacoby: whether the Jacoby rule is in use, i.e. bit 66 is clear (always clear in
            IDs from gnubg versions before the bit existed).
    """

    cube_value: int = 1
    cube_owner: int | None = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False


def _bad(what: str) -> InvalidIdError:
    return InvalidIdError(f"invalid Match ID: {what}")


def encode_match_id(fields: MatchIdFields) -> str:
    """The 12-character Match ID of ``fields`` (dice are written higher first, as gnubg does)."""
    f = fields
    cv = f.cube_value
    if isinstance(cv, bool) or not isinstance(cv, int) or cv < 1 or cv > 1 << 15 or cv & (cv - 1):
        raise _bad(f"cube value {shown(cv)} is not a power of two up to 32768")
    players = (f.dice_owner, f.turn) + (() if f.cube_owner is None else (f.cube_owner,))
    try:
        for player in players:
            check_player(player)
    except GameStateError:
        raise _bad("players are 0 or 1") from None
    if f.game_state not in range(5) or f.resigned not in range(4):
        raise _bad(f"game state {shown(f.game_state)} / resigned {shown(f.resigned)} out of range")
    d1, d2 = f.dice
    if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
        raise _bad(f"dice {shown(f.dice)}")
    if max(d2, d1) and d2 > d1:
        d1, d2 = d2, d1
    for name, v in (("match length", f.match_length), ("score", f.score[0]), ("score", f.score[1])):
        if not 0 <= v < 1 << 15:
            raise _bad(f"{name} {shown(v)} does not fit in 15 bits")
    values = {
        "cube_log": cv.bit_length() - 1,
        "cube_owner": 3 if f.cube_owner is None else f.cube_owner,
        "dice_owner": f.dice_owner,
        "crawford": int(f.crawford),
        "game_state": f.game_state,
        "turn": f.turn,
        "doubled": int(f.doubled),
        "resigned": f.resigned,
        "die1": d1,
        "die2": d2,
        "match_length": f.match_length,
        "score0": f.score[0],
        "score1": f.score[1],
        "jacoby_off": int(not f.jacoby),
    }
    bits = 0
    for name, start, _width in _LAYOUT:
        bits |= values[name] << start
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match_id(match_id: str) -> MatchIdFields:
    """The fields of a 12-character Match ID; raises :class:`InvalidIdError` if malformed.

    The dice are returned higher first, as gnubg writes them, so that
    ``decode_match_id(encode_match_id(f)) == f`` for every decoded ``f``."""
    if not isinstance(match_id, str) or not _B64.match(match_id):
        raise _bad(f"{shown(match_id)} is not 12 base64 characters")
    try:
        raw = base64.b64decode(match_id, validate=True)
    except (binascii.Error, ValueError) as e:  # pragma: no cover - the regex guards this
        raise _bad(str(e)) from e
    bits = int.from_bytes(raw, "little")
    if bits >> 67:
        raise _bad(f"{match_id}: unused bits 67-71 are set")
    v = {name: (bits >> start) & ((1 << width) - 1) for name, start, width in _LAYOUT}
    problems = []
    if v["cube_owner"] == 2:
        problems.append("cube owner field is 2 (only 0, 1 and 3 = centred exist)")
    if v["game_state"] > 4:
        problems.append(f"game state {v['game_state']} (0..4)")
    if v["die1"] > 6 or v["die2"] > 6 or (v["die1"] == 0) != (v["die2"] == 0):
        problems.append(f"dice {v['die1']}{v['die2']}")
    if problems:
        raise _bad(f"{match_id}: " + "; ".join(problems))
    return MatchIdFields(
        cube_value=1 << v["cube_log"],
        cube_owner=None if v["cube_owner"] == 3 else v["cube_owner"],
        dice_owner=v["dice_owner"],
        crawford=bool(v["crawford"]),
        game_state=v["game_state"],
        turn=v["turn"],
        doubled=bool(v["doubled"]),
        resigned=v["resigned"],
        # gnubg writes the higher die first; an ID written the other way names the same roll
        dice=(max(v["die1"], v["die2"]), min(v["die1"], v["die2"])),
        match_length=v["match_length"],
        score=(v["score0"], v["score1"]),
        jacoby=not v["jacoby_off"],
    )


def split_gnubg_id(gnubg_id: str) -> tuple[str, str]:
    """Split ``PositionID:MatchID`` (the ``GNUbgID`` prefix is allowed) into its parts."""
    if not isinstance(gnubg_id, str):
        raise InvalidIdError(f"a GNUbg ID is text, not {type(gnubg_id).__name__}")
    s = gnubg_id.strip()
    if s.lower().startswith("gnubgid"):
        s = s[7:].lstrip(" =:")
    parts = s.split(":")
    if len(parts) != 2 or len(parts[0]) != 14 or len(parts[1]) != 12:
        raise InvalidIdError(f"{shown(gnubg_id)} is not PositionID:MatchID (14 + 12 characters)")
    return parts[0], parts[1]


# ---------------------------------------------------------------------------- XGID

CubeAction = Literal["", "D", "B", "R"]
"""An XGID's pending cube action: none, doubled, beavered, raccooned."""


@dataclass(frozen=True)
class XgidFields:
    """Every field of an XGID, with players numbered as in GNU Backgammon.

    Attributes:
        board: ``(player 0's row, player 1's row)``, each 25 counts: the player's own points
            1..24 then its bar. Player 1 is XG's bottom side (upper-case letters).
        cube_value: the cube value (2 ** the XGID's cube field).
        cube_owner: ``None`` when centred, else the owning player.
        turn: the player on roll.
        dice: the dice in the order written, or ``None`` (``00``, ``D``, ``B``, ``R``).
        cube_action: ``""``, or ``D``/``B``/``R`` when a double, beaver or raccoon waits.
        score: ``(player 0, player 1)``.
        rules: the XGID's rules field: in match play 1 marks the Crawford game; in money
            play 1 means Jacoby and 2 beavers (added together).
        match_length: points to win; 0 for money play.
        max_cube: log2 of the highest cube value (XG writes 10).
    """

    board: tuple[tuple[int, ...], tuple[int, ...]]
    cube_value: int = 1
    cube_owner: int | None = None
    turn: int = 1
    dice: tuple[int, int] | None = None
    cube_action: CubeAction = ""
    score: tuple[int, int] = (0, 0)
    rules: int = 0
    match_length: int = 0
    max_cube: int = 10


def _xg_bad(xgid: object, what: str) -> InvalidIdError:
    return InvalidIdError(f"invalid XGID {shown(xgid)}: {what}")


def _count(ch: str) -> tuple[int, int]:
    """(+1 for upper-case player 1 / -1 for lower-case player 0, count) of a point char."""
    if ch == "-":
        return 0, 0
    if "A" <= ch <= "O":
        return 1, ord(ch) - ord("A") + 1
    if "a" <= ch <= "o":
        return -1, ord(ch) - ord("a") + 1
    raise ValueError(ch)


def parse_xgid(xgid: str) -> XgidFields:
    """The fields of an XGID (``XGID=`` prefix optional); raises :class:`InvalidIdError`."""
    if not isinstance(xgid, str):
        raise _xg_bad(xgid, "not text")
    s = xgid.strip()
    if s.upper().startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    if len(parts) != 10:
        raise _xg_bad(xgid, f"{len(parts)} fields, expected 10")
    pos = parts[0]
    if len(pos) != 26:
        raise _xg_bad(xgid, f"the position has {len(pos)} characters, expected 26")
    rows = [[0] * 25, [0] * 25]
    for i, ch in enumerate(pos):
        try:
            side, n = _count(ch)
        except ValueError:
            raise _xg_bad(xgid, f"character {ch!r} at {i} (use -, A-O, a-o)") from None
        if n == 0:
            continue
        if (i == 0 and side == 1) or (i == 25 and side == -1):
            raise _xg_bad(xgid, f"character {ch!r} on the other side's bar")
        if side == 1:
            rows[1][24 if i == 25 else i - 1] = n
        else:
            rows[0][24 if i == 0 else 24 - i] = n
    for p in (0, 1):
        if sum(rows[p]) > 15:
            raise _xg_bad(xgid, f"player {p} has {sum(rows[p])} checkers (15 at most, R1)")
    try:
        nums = [int(parts[i]) for i in (1, 2, 3, 5, 6, 7, 8, 9)]
    except ValueError:
        raise _xg_bad(xgid, "a numeric field is not a number") from None
    if any(str(n) != parts[i] for n, i in zip(nums, (1, 2, 3, 5, 6, 7, 8, 9))):
        raise _xg_bad(xgid, "a numeric field is not written plainly")
    cube_log, cube_pos, turn, s_bottom, s_top, rules, match_length, max_cube = nums
    if not 0 <= cube_log <= 15 or not 0 <= max_cube <= 15:
        raise _xg_bad(xgid, "cube fields out of range 0..15")
    if cube_pos not in (-1, 0, 1) or turn not in (-1, 1):
        raise _xg_bad(xgid, "cube position is -1, 0 or 1 and turn -1 or 1")
    if min(s_bottom, s_top, match_length, rules) < 0 or rules > 3:
        raise _xg_bad(xgid, "negative score, match length or rules field out of 0..3")
    d = parts[4]
    dice: tuple[int, int] | None = None
    action: CubeAction = ""
    if d in ("D", "B", "R"):
        action = d  # type: ignore[assignment]
    elif re.fullmatch(r"[1-6][1-6]", d):
        dice = (int(d[0]), int(d[1]))
    elif d != "00":
        raise _xg_bad(xgid, f"dice field {d!r} (00, D, B, R or two dice 1-6)")
    return XgidFields(
        board=(tuple(rows[0]), tuple(rows[1])),
        cube_value=1 << cube_log,
        cube_owner=None if cube_pos == 0 else (1 if cube_pos == 1 else 0),
        turn=1 if turn == 1 else 0,
        dice=dice,
        cube_action=action,
        score=(s_top, s_bottom),
        rules=rules,
        match_length=match_length,
        max_cube=max_cube,
    )


def format_xgid(fields: XgidFields) -> str:
    """The XGID text (with the ``XGID=`` prefix) of ``fields``."""
    f = fields
    chars = ["-"] * 26
    for p in (0, 1):
        row = f.board[p]
        if len(row) != 25 or not all(0 <= n <= 15 for n in row) or sum(row) > 15:
            raise _xg_bad(None, f"player {p}'s row must be 25 counts, 15 checkers at most")
    for i in range(26):
        up = f.board[1][24] if i == 25 else (f.board[1][i - 1] if 1 <= i <= 24 else 0)
        low = f.board[0][24] if i == 0 else (f.board[0][24 - i] if 1 <= i <= 24 else 0)
        if up and low:
            raise _xg_bad(None, f"both players on point {i}")
        if up:
            chars[i] = chr(ord("A") + up - 1)
        elif low:
            chars[i] = chr(ord("a") + low - 1)
    cv = f.cube_value
    if cv < 1 or cv & (cv - 1) or cv > 1 << 15:
        raise _xg_bad(None, f"cube value {shown(cv)}")
    cube_pos = 0 if f.cube_owner is None else (1 if f.cube_owner == 1 else -1)
    dice: str
    if f.cube_action:
        dice = f.cube_action
    elif f.dice is None:
        dice = "00"
    else:
        dice = f"{f.dice[0]}{f.dice[1]}"
    return "XGID=" + ":".join(
        str(x)
        for x in (
            "".join(chars),
            cv.bit_length() - 1,
            cube_pos,
            1 if f.turn == 1 else -1,
            dice,
            f.score[1],
            f.score[0],
            f.rules,
            f.match_length,
            f.max_cube,
        )
    )


# ---------------------------------------------------------------------------- Game <-> IDs

_GAME_STATE_OVER = {"bear-off": 2, "resign": 3, "drop": 4}


def game_position_for_id(game: Game) -> Position:
    """The position seen from the player on roll (gnubg's ``fMove``; player 0 before the
    opening roll)."""
    return game.position


def game_match_id(game: Game) -> str:
    """The Match ID of ``game``'s current state."""
    return encode_match_id(_match_fields(game))


def _match_fields(game: Game) -> MatchIdFields:
    phase = game.phase
    turn = game.turn if game.turn is not None else 0
    offered = game.offered_cube
    cube_value = game.cube.value if offered is None else offered // 2
    act = game.player_to_act
    resign = game.resignation
    dice = game.dice if game.dice is not None else (0, 0)
    if phase == "opening":
        state = 0
    elif phase == "over":
        assert game.result is not None
        state = _GAME_STATE_OVER[game.result.reason]
    else:
        state = 1
    return MatchIdFields(
        cube_value=cube_value,
        cube_owner=game.cube.owner,
        dice_owner=turn,
        crawford=game.crawford,
        game_state=state,
        turn=turn if act is None else act,
        # also under a resignation (the turn bit is then the resignation's answerer)
        doubled=offered is not None,
        resigned=0 if resign is None else KINDS.index(resign[1]) + 1,
        dice=dice,
        match_length=game.match_length,
        score=game.score,
        jacoby=game.match_length == 0 and game.rules.jacoby,
    )


def _setup(
    *,
    rules: Rules,
    match_length: int,
    score: tuple[int, int],
    crawford: bool,
    table: bool,
    seed: int | None,
    phase: str,
    turn: int | None,
    position: Position,
    dice: tuple[int, int] | None,
    cube_value: int,
    cube_owner: int | None,
    offer: list[Any] | None,
    resign: list[Any] | None,
) -> Game:
    from bgfast.game import Game

    try:
        blank = Game(
            rules=rules,
            match_length=match_length,
            score=score,
            crawford=crawford,
            table=table,
            seed=seed,
        )
    except BgfastError as e:
        raise InvalidIdError(f"the ID's match settings are invalid: {e}") from e
    setup = blank._snapshot()
    cube = dict(setup["cube"])
    cube["value"], cube["owner"] = cube_value, cube_owner
    setup.update(
        phase=phase,
        turn=turn,
        position=position.id,
        dice=None if dice is None else list(dice),
        cube=cube,
        offer=offer,
        resign=resign,
    )
    try:
        return Game._from_setup(setup)
    except BgfastError as e:
        raise InvalidIdError(f"the ID does not describe a playable game state: {e}") from e


def game_from_gnubg_id(
    gnubg_id: str, *, table: bool = False, seed: int | None = None, rules: Rules | None = None
) -> Game:
    """A :class:`~bgfast.Game` in the state of ``PositionID:MatchID``.

    A pending double whose ``turn`` is the doubler is a beaver (gnubg turns the cube and
    hands the decision back). A raccoon cannot be told from a double in a Match ID; XGIDs
    keep it (``R``). With a resignation offered while a double waits, ``turn`` names who
    answers the resignation, so the offer reads as a double (a beaver or raccoon under a
    resignation is written as the double of the cube it turned).
    """
    pos_id, mid = split_gnubg_id(gnubg_id)
    f = decode_match_id(mid)
    try:
        position = Position.from_id(pos_id)
    except BgfastError as e:
        raise InvalidIdError(f"invalid Position ID {pos_id!r}: {e}") from e
    rules = Rules() if rules is None else rules
    if f.match_length == 0:
        rules = replace(rules, jacoby=f.jacoby)
    if f.game_state not in (0, 1):
        raise InvalidIdError(
            f"{gnubg_id}: game state {f.game_state} (over) cannot be resumed as a Game"
        )
    has_dice = f.dice != (0, 0)
    if f.game_state == 0:
        if f.doubled or f.resigned or has_dice:
            raise InvalidIdError(f"{gnubg_id}: no double, resignation or dice before a game")
        phase, turn = "opening", None
        if f.dice_owner == 1:
            position = position.flipped()
    else:
        turn = f.dice_owner
        phase = "move" if has_dice else "roll"
        if f.doubled:
            if has_dice:
                raise InvalidIdError(f"{gnubg_id}: a double comes before the roll (R18)")
            phase = "doubled"
    cube_value = f.cube_value
    offer = None
    if phase == "doubled":
        if f.resigned or f.turn != f.dice_owner:
            # a double, answered by the other player (R19); under a resignation the turn
            # bit names who answers the resignation, so the offer reads as a double
            offer = [turn, cube_value * 2, 0]
        else:
            # a beaver, answered by the doubler: gnubg has already turned the cube once
            if cube_value < 2:
                raise InvalidIdError(f"{gnubg_id}: a beaver needs a cube of 2 or more")
            offer = [turn, cube_value * 2, 1]
            cube_value //= 2
    resign = None
    if f.resigned:
        resign = [1 - f.turn, KINDS[f.resigned - 1], phase]
        phase = "resign"
    elif phase in ("roll", "move") and f.turn != f.dice_owner:
        raise InvalidIdError(
            f"{gnubg_id}: the player to act differs from the player on roll "
            "with no double or resignation pending"
        )
    return _setup(
        rules=rules,
        match_length=f.match_length,
        score=f.score,
        crawford=f.crawford,
        table=table,
        seed=seed,
        phase=phase,
        turn=turn,
        position=position,
        dice=f.dice if has_dice else None,
        cube_value=cube_value,
        cube_owner=f.cube_owner,
        offer=offer,
        resign=resign,
    )


def game_xgid(game: Game) -> str:
    """The XGID of ``game``'s current state (a pending resignation is not part of it).

    XGIDs hold the cube value and owner, and a pending double, beaver or raccoon in the dice
    field (``D``, ``B``, ``R``) with the cube before the offer; :func:`game_from_xgid` reads
    each back as the same offer. Rules an XGID has no field for (raccoons, automatic doubles,
    backgammons counting double, Holland) are not written. A state no XGID describes (before
    the opening roll, a finished game) raises :class:`GameStateError`.
    """
    if game.turn is None:
        raise GameStateError("an XGID cannot describe the state before the opening roll")
    if game.is_over:
        raise GameStateError(
            "an XGID describes a game in progress; this game is over "
            "(reading the XGID back would give a game still to play)"
        )
    board = game.board()
    offered = game.offered_cube
    kind = game.offer_kind
    action: CubeAction = (
        "" if kind is None else ("D" if kind == "double" else "B" if kind == "beaver" else "R")
    )
    rules = game.rules
    # match play: the Crawford flag; money: 1 Jacoby + 2 beavers
    flags = int(game.crawford) if game.match_length else int(rules.jacoby) + 2 * int(rules.beavers)
    return format_xgid(
        XgidFields(
            board=(tuple(int(x) for x in board[0]), tuple(int(x) for x in board[1])),
            cube_value=game.cube.value
            if offered is None
            else offered // (2 ** (1 + ["double", "beaver", "raccoon"].index(kind or "double"))),
            cube_owner=game.cube.owner,
            turn=game.turn,
            dice=game.dice,
            cube_action=action,
            score=game.score,
            rules=flags,
            match_length=game.match_length,
            max_cube=game.cube.max_value.bit_length() - 1,
        )
    )


def game_from_xgid(xgid: str, *, table: bool = False, seed: int | None = None) -> Game:
    """A :class:`~bgfast.Game` in the state of an XGID.

    A pending beaver or raccoon (``B``, ``R``) needs the beaver flag; a raccoon also turns
    raccoons on (an XGID has no flag for them). A max-cube field of 15 is the default
    cube limit (``Rules.max_cube`` ``None``)."""
    import numpy as np

    f = parse_xgid(xgid)
    money = f.match_length == 0
    # 2**15 is the cube limit: the default Rules (max_cube None) write it
    max_cube = None if f.max_cube == 15 else 1 << f.max_cube
    if not money and f.rules > 1:
        raise InvalidIdError(f"{xgid}: in match play the rules field is 0 or 1 (Crawford)")
    if f.cube_action in ("B", "R"):
        animal = "beaver" if f.cube_action == "B" else "raccoon"
        if not money:
            raise InvalidIdError(f"{xgid}: a {animal} is a money option, not used in match play")
        if not f.rules & 2:
            raise InvalidIdError(
                f"{xgid}: a pending {animal} needs beavers allowed (2 in the rules field)"
            )
    rules = (
        Rules(
            jacoby=bool(f.rules & 1),
            beavers=bool(f.rules & 2),
            # XGIDs have no raccoon flag; a pending raccoon shows they are allowed
            raccoons=f.cube_action == "R",
            max_cube=max_cube,
        )
        if money
        else Rules(max_cube=max_cube)
    )
    rows = [f.board[f.turn], f.board[1 - f.turn]]
    try:
        position = Position.from_array(np.array(rows, dtype=np.uint8))
    except BgfastError as e:
        raise InvalidIdError(f"{xgid}: invalid position: {e}") from e
    phase = "move" if f.dice else "roll"
    offer = None
    if f.cube_action:
        level = "DBR".index(f.cube_action)
        phase = "doubled"
        offer = [f.turn, f.cube_value * 2 ** (level + 1), level]
    return _setup(
        rules=rules,
        match_length=f.match_length,
        score=f.score,
        crawford=not money and bool(f.rules & 1),
        table=table,
        seed=seed,
        phase=phase,
        turn=f.turn,
        position=position,
        dice=f.dice,
        cube_value=f.cube_value,
        cube_owner=f.cube_owner,
        offer=offer,
        resign=None,
    )


# ---------------------------------------------------------------------------- FIBS boards

_FIBS_FIELDS = 53


def _fibs_ranges() -> tuple[tuple[str, int, int], ...]:
    """(name, lowest, highest) of the 50 numeric fields after the two names."""
    points = [("board point 0 (opponent's bar)", -15, 0)]
    points += [(f"board point {p}", -15, 15) for p in range(1, 25)]
    points += [("board point 25 (your bar)", 0, 15)]
    return (
        ("match length", 0, 32767),
        ("your score", 0, 32767),
        ("opponent's score", 0, 32767),
        *points,
        ("turn", -1, 1),
        ("your die 1", 0, 6),
        ("your die 2", 0, 6),
        ("opponent's die 1", 0, 6),
        ("opponent's die 2", 0, 6),
        ("cube", 1, 1 << 15),
        ("you may double", 0, 1),
        ("opponent may double", 0, 1),
        ("was doubled", -1, 1),
        ("colour", -1, 1),
        ("direction", -1, 1),
        ("home", 0, 25),
        ("bar", 0, 25),
        ("your borne-off checkers", 0, 15),
        ("opponent's borne-off checkers", 0, 15),
        ("your checkers on the bar", 0, 15),
        ("opponent's checkers on the bar", 0, 15),
        ("can move", 0, 4),
        ("forced move", 0, 1),
        ("post-Crawford", 0, 1),
        ("not Crawford", 0, 1),
    )


_FIBS_RANGES = _fibs_ranges()
assert len(_FIBS_RANGES) == _FIBS_FIELDS - 3


def game_fibs_board(game: Game, you: str = "You", opponent: str = "Opponent") -> str:
    """The FIBS ``board:`` line of ``game`` as GNU Backgammon writes it (``set output
    rawboard on``): seen by player 1 (``you``), whose checkers are positive and move from
    24 to 1 (colour 1, direction -1, home 0, bar 25); player 0 is ``opponent``.

    Like gnubg: dice are written higher first and repeated for both sides; "may double" is
    the cube ownership only; the on-bar, can-move and forced-move fields are 0 (the bar
    counts are in board fields 25 and 0); the was-doubled field is signed (+1 player 1,
    -1 player 0 doubled); the last two fields are post-Crawford and not-Crawford.
    """
    for name in (you, opponent):
        if not name or ":" in name or any(c.isspace() for c in name):
            raise InvalidIdError(f"a FIBS name is non-empty without ':' or spaces: {shown(name)}")
    board = game.board()
    cells = [0] * 26
    for p in range(1, 25):
        cells[p] = int(board[1][p - 1]) - int(board[0][24 - p])
    cells[25] = int(board[1][24])
    cells[0] = -int(board[0][24])
    dice = sorted(game.dice, reverse=True) if game.dice else [0, 0]
    owner = game.cube.owner
    turn = game.turn if game.turn is not None else 0
    offered = game.offered_cube
    was_doubled = 0 if offered is None else (1 if turn == 1 else -1)
    cube = (
        game.cube.value
        if offered is None
        else offered
        // (2 ** (1 + ["double", "beaver", "raccoon"].index(game.offer_kind or "double")))
    )
    fields: list[object] = [
        "board",
        you,
        opponent,
        game.match_length,
        game.score[1],
        game.score[0],
        *cells,
        1 if turn == 1 else -1,
        dice[0],
        dice[1],
        dice[0],
        dice[1],
        cube,
        int(owner in (None, 1)),
        int(owner in (None, 0)),
        was_doubled,
        1,
        -1,
        0,
        25,
        15 - int(board[1].sum()),
        15 - int(board[0].sum()),
        0,
        0,
        0,
        0,
        int(game.post_crawford),
        int(not game.crawford),
    ]
    assert len(fields) == _FIBS_FIELDS
    return ":".join(str(f) for f in fields)


def game_from_fibs_board(line: str, *, seed: int | None = None) -> Game:
    """A :class:`~bgfast.Game` from a FIBS ``board:`` line in the layout
    :func:`game_fibs_board` writes (player 1 is "you"). The Jacoby rule and a pending double
    are not part of it.

    Every field is checked: a number out of its range, or one that disagrees with the board
    (borne-off and on-bar counts, the repeated dice, the post-Crawford flag), raises
    :class:`InvalidIdError` naming the field. The can-move and forced-move fields are
    derived data and only range-checked."""
    import numpy as np

    parts = line.strip().split(":") if isinstance(line, str) else []
    if len(parts) != _FIBS_FIELDS or parts[0] != "board":
        raise InvalidIdError(f"not a FIBS board line of {_FIBS_FIELDS} fields: {shown(line)}")
    n: list[int] = []
    for (name, lo, hi), text in zip(_FIBS_RANGES, parts[3:]):
        # plain ASCII digits only: int() would also take '+5', ' 5', '1_0' or other scripts
        if not re.fullmatch(r"-?[0-9]{1,6}", text):
            raise InvalidIdError(f"FIBS board field {name!r} is not a number: {text!r}")
        value = int(text)
        if not lo <= value <= hi:
            raise InvalidIdError(f"FIBS board field {name!r} is {value}, not in {lo}..{hi}")
        n.append(value)
    match_length, score1, score0 = n[0], n[1], n[2]
    cells = n[3:29]
    turn, d1, d2, _, _, cube, you_may, opp_may, was_doubled = n[29:38]  # n[32:34]: below
    colour, direction, home, bar = n[38:42]
    post_crawford, not_crawford = n[48], n[49]
    if (colour, direction, home, bar) != (1, -1, 0, 25):
        raise InvalidIdError("only gnubg's layout (colour 1, direction -1, home 0, bar 25) is read")
    if was_doubled:
        raise InvalidIdError("a FIBS board with a pending double is not read")
    if turn not in (1, -1):
        raise InvalidIdError(f"FIBS board field 'turn' is {turn}: 1 (you) or -1 (opponent)")
    if (d1 == 0) != (d2 == 0):
        raise InvalidIdError(f"FIBS board dice {d1} and {d2}: both rolled (1..6) or both 0")
    if (n[32], n[33]) != (d1, d2):
        raise InvalidIdError(
            f"FIBS board: the opponent's dice {n[32]} {n[33]} differ from yours {d1} {d2} "
            "(gnubg's layout repeats the dice)"
        )
    rows = [[0] * 25, [0] * 25]
    for p in range(1, 25):
        if cells[p] > 0:
            rows[1][p - 1] = cells[p]
        elif cells[p] < 0:
            rows[0][24 - p] = -cells[p]
    rows[1][24], rows[0][24] = cells[25], -cells[0]
    for name, row, off, on_bar in (
        ("your", rows[1], n[42], n[44]),
        ("opponent's", rows[0], n[43], n[45]),
    ):
        if off != 15 - sum(row):
            raise InvalidIdError(
                f"FIBS board: {name} borne-off count {off} disagrees with the "
                f"{sum(row)} checkers on the board"
            )
        if on_bar not in (0, row[24]):  # gnubg writes 0 there, FIBS the bar count
            raise InvalidIdError(
                f"FIBS board: {name} on-bar count {on_bar} disagrees with the bar's {row[24]}"
            )
    owner = {(1, 1): None, (1, 0): 1, (0, 1): 0}.get((you_may, opp_may), -1)
    if owner == -1:
        raise InvalidIdError("neither side may double: the cube owner is unknown")
    if cube < 1 or cube & (cube - 1):
        raise InvalidIdError(f"cube value {cube} is not a power of two (R17)")
    player = 1 if turn == 1 else 0
    try:
        position = Position.from_array(np.array([rows[player], rows[1 - player]], dtype=np.uint8))
    except BgfastError as e:
        raise InvalidIdError(f"invalid FIBS board position: {e}") from e
    dice = None if (d1, d2) == (0, 0) else (d1, d2)
    game = _setup(
        rules=Rules(),
        match_length=match_length,
        score=(score0, score1),
        crawford=not not_crawford,
        table=False,
        seed=seed,
        phase="move" if dice else "roll",
        turn=player,
        position=position,
        dice=dice,
        cube_value=cube,
        cube_owner=owner,
        offer=None,
        resign=None,
    )
    if bool(post_crawford) != game.post_crawford:
        raise InvalidIdError("the post-Crawford flag disagrees with the score (R21)")
    return game
