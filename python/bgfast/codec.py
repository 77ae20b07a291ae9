"""Interchange formats of game states: GNU Backgammon's Match ID and ``PositionID:MatchID``,
XGIDs and FIBS ``board:`` lines.

Two layers: field codecs that read and write every field exactly
(:func:`decode_match_id`/:func:`encode_match_id`, :func:`parse_xgid`/:func:`format_xgid`),
and the conversions between those fields and a :class:`~bgfast.GameState`: every decoder
(:func:`state_from_gnubg_id`, :func:`state_from_xgid`, :func:`state_from_fibs_board`)
returns a validated state, every encoder (:func:`match_id_of`, :func:`gnubg_id_of`,
:func:`xgid_of`, :func:`fibs_board_of`) reads one. Nothing here knows about
:class:`~bgfast.Game`, which builds itself from these states (``Game.from_xgid``).

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
from typing import Literal

import numpy as np

from bgfast._core import BgfastError, Position
from bgfast.errors import GameStateError, InvalidIdError, MatchOptionError, shown
from bgfast.scoring import Rules
from bgfast.state import CubeOffer, GameState, Resignation, _start_cube
from bgfast.vocab import KINDS, OFFERS, Phase, check_cube_value, check_flag, check_player

__all__ = [
    "FIBS_UNLIMITED",
    "CubeAction",
    "FibsBoard",
    "MatchIdFields",
    "XgidFields",
    "decode_match_id",
    "encode_match_id",
    "fibs_board_of",
    "format_xgid",
    "gnubg_id_of",
    "match_id_of",
    "parse_xgid",
    "split_gnubg_id",
    "state_from_fibs_board",
    "state_from_gnubg_id",
    "state_from_id",
    "state_from_xgid",
    "unlabelled_id",
    "xgid_of",
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
    cv = check_cube_value(f.cube_value, error=InvalidIdError)
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
    cv = check_cube_value(f.cube_value, error=InvalidIdError)
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


# ---------------------------------------------------------------------------- states <-> IDs

_GAME_STATE_OVER = {"bear-off": 2, "resign": 3, "drop": 4}


def _cube_before_offer(state: GameState) -> int:
    """The cube value an ID writes while an offer waits: the value before the double (a
    beaver or raccoon turned it further)."""
    offer = state.offer
    return state.cube.value if offer is None else offer.value // 2 ** (1 + offer.level)


def match_id_of(state: GameState) -> str:
    """The GNU Backgammon Match ID (12 characters) of ``state``.

    A Match ID has no field for a cube limit (``Rules.max_cube``): a state with one is
    written all the same (the notations of one position must all be writable, as the HTTP
    server's ``/ids`` and analysis labels need) and reads back with the default limit,
    32768. Its other rules but money play's Jacoby are not held either (pass ``rules`` to
    :func:`state_from_gnubg_id`)."""
    return encode_match_id(_match_fields(state))


def gnubg_id_of(state: GameState) -> str:
    """The GNU Backgammon ID ``PositionID:MatchID`` of ``state``: the position seen from
    the player on roll (gnubg's ``fMove``; player 0 before the opening roll). A cube limit
    is not part of it (:func:`match_id_of`): it reads back as the default, 32768."""
    return f"{state.position.id}:{match_id_of(state)}"


def _match_fields(state: GameState) -> MatchIdFields:
    phase = state.phase
    turn = state.turn if state.turn is not None else 0
    offer = state.offer
    # Under a beaver the Match ID shows the cube turned once, the doubler to act (gnubg).
    cube_value = state.cube.value if offer is None else offer.value // 2
    act = state.player_to_act
    resign = state.resignation
    if phase == "opening":
        game_state = 0
    elif phase == "over":
        assert state.result is not None
        game_state = _GAME_STATE_OVER[state.result.reason]
    else:
        game_state = 1
    return MatchIdFields(
        cube_value=cube_value,
        cube_owner=state.cube.owner,
        dice_owner=turn,
        crawford=state.crawford,
        game_state=game_state,
        turn=turn if act is None else act,
        # also under a resignation (the turn bit is then the resignation's answerer)
        doubled=offer is not None,
        resigned=0 if resign is None else KINDS.index(resign.kind) + 1,
        dice=state.dice if state.dice is not None else (0, 0),
        match_length=state.match_length,
        score=state.score,
        jacoby=state.match_length == 0 and state.rules.jacoby,
    )


def _state(
    what: str,
    *,
    rules: Rules,
    match_length: int,
    score: tuple[int, int],
    crawford: bool,
    phase: Phase,
    turn: int | None,
    position: Position,
    dice: tuple[int, int] | None,
    cube_value: int,
    cube_owner: int | None,
    offer: CubeOffer | None,
    resignation: Resignation | None,
) -> GameState:
    """The state an ID describes, or :class:`InvalidIdError` naming ``what`` and why not.

    Built once and checked as ``GameState.start(...).replace(...)`` would check it: the
    match settings first (their refusals are the settings'), then the rest."""
    try:
        if not isinstance(rules, Rules):
            raise MatchOptionError(f"rules must be a bgfast Rules, not {type(rules).__name__}")
        state = _BLANK._evolve(
            rules=rules,
            match_length=match_length,
            score=score,
            crawford=check_flag("crawford", crawford),
        )
        state._check_settings()
    except BgfastError as e:
        raise InvalidIdError(f"{what}: the match settings are invalid: {e}") from e
    try:
        state = state._evolve(
            phase=phase,
            turn=turn,
            position=position,
            dice=dice,
            cube=_start_cube(state.rules, state.crawford, cube_value, cube_owner),
            offer=offer,
            resignation=resignation,
        )
        state._check_state()
    except BgfastError as e:
        raise InvalidIdError(f"{what} does not describe a playable game state: {e}") from e
    return state


# What an ID's state is built on: the fields an ID does not hold are the start's.
_BLANK = GameState()


def state_from_gnubg_id(gnubg_id: str, *, rules: Rules | None = None) -> GameState:
    """The state of a GNU Backgammon ``PositionID:MatchID`` (a game not yet over).

    ``rules`` gives money options the ID cannot hold (its Jacoby bit is applied). A pending
    double whose ``turn`` is the doubler is a beaver (gnubg turns the cube and hands the
    decision back): with ``rules`` left out it reads under the default rules with beavers
    allowed (only a game with beavers has one); ``rules`` without beavers refuse it. A
    raccoon cannot be told from a double in a Match ID; XGIDs keep it (``R``). With a
    resignation offered while a double waits, ``turn`` names who answers the resignation,
    so the offer reads as a double (a beaver or raccoon under a resignation is written as
    the double of the cube it turned).
    """
    pos_id, mid = split_gnubg_id(gnubg_id)
    f = decode_match_id(mid)
    try:
        position = Position.from_id(pos_id)
    except BgfastError as e:
        raise InvalidIdError(f"invalid Position ID {pos_id!r}: {e}") from e
    rules_given = rules is not None
    rules = Rules() if rules is None else rules
    if not isinstance(rules, Rules):
        raise InvalidIdError(f"rules must be a bgfast Rules, not {type(rules).__name__}")
    if f.match_length == 0:
        rules = replace(rules, jacoby=f.jacoby)
    if f.game_state not in (0, 1):
        raise InvalidIdError(
            f"{gnubg_id}: game state {f.game_state} (over) cannot be resumed as a game"
        )
    has_dice = f.dice != (0, 0)
    phase: Phase
    turn: int | None
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
        assert turn is not None
        if f.resigned or f.turn != f.dice_owner:
            # a double, answered by the other player (R19); under a resignation the turn
            # bit names who answers the resignation, so the offer reads as a double
            offer = CubeOffer(turn, cube_value * 2, "double")
        else:
            # a beaver, answered by the doubler: gnubg has already turned the cube once
            if cube_value < 2:
                raise InvalidIdError(f"{gnubg_id}: a beaver needs a cube of 2 or more")
            if f.match_length == 0 and not rules.beavers:
                if rules_given:
                    raise InvalidIdError(
                        f"{gnubg_id}: a beaver waits, and the rules given do not allow beavers"
                    )
                rules = replace(rules, beavers=True)
            offer = CubeOffer(turn, cube_value * 2, "beaver")
            cube_value //= 2
    resignation = None
    if f.resigned:
        resignation = Resignation(1 - f.turn, KINDS[f.resigned - 1], phase)
        phase = "resign"
    elif phase in ("roll", "move") and f.turn != f.dice_owner:
        raise InvalidIdError(
            f"{gnubg_id}: the player to act differs from the player on roll "
            "with no double or resignation pending"
        )
    return _state(
        f"the ID {gnubg_id}",
        rules=rules,
        match_length=f.match_length,
        score=f.score,
        crawford=f.crawford,
        phase=phase,
        turn=turn,
        position=position,
        dice=f.dice if has_dice else None,
        cube_value=cube_value,
        cube_owner=f.cube_owner,
        offer=offer,
        resignation=resignation,
    )


def xgid_of(state: GameState) -> str:
    """The XGID of ``state``. A pending resignation is not part of it: the state is written
    without it and reads back at the decision the resignation interrupted. The cube limit
    is (the max-cube field, 15 for the default 32768).

    XGIDs hold the cube value and owner, and a pending double, beaver or raccoon in the dice
    field (``D``, ``B``, ``R``) with the cube before the offer; :func:`state_from_xgid` reads
    each back as the same offer. Rules an XGID has no field for (raccoons, automatic doubles,
    backgammons counting double, Holland) are not written. A state no XGID describes (before
    the opening roll, a finished game) raises :class:`~bgfast.GameStateError`.
    """
    if state.turn is None:
        raise GameStateError("an XGID cannot describe the state before the opening roll")
    if state.is_over:
        raise GameStateError(
            "an XGID describes a game in progress; this game is over "
            "(reading the XGID back would give a game still to play)"
        )
    board = state.board()
    offer = state.offer
    actions: tuple[CubeAction, ...] = ("D", "B", "R")
    action: CubeAction = "" if offer is None else actions[offer.level]
    rules = state.rules
    # match play: the Crawford flag; money: 1 Jacoby + 2 beavers
    flags = (
        int(state.crawford) if state.match_length else int(rules.jacoby) + 2 * int(rules.beavers)
    )
    return format_xgid(
        XgidFields(
            board=(tuple(int(x) for x in board[0]), tuple(int(x) for x in board[1])),
            cube_value=_cube_before_offer(state),
            cube_owner=state.cube.owner,
            turn=state.turn,
            dice=state.dice,
            cube_action=action,
            score=state.score,
            rules=flags,
            match_length=state.match_length,
            max_cube=state.cube.max_value.bit_length() - 1,
        )
    )


def state_from_xgid(xgid: str) -> GameState:
    """The state of an XGID (position, cube, turn, dice, score, rules).

    A pending beaver or raccoon (``B``, ``R``) needs the beaver flag; a raccoon also turns
    raccoons on (an XGID has no flag for them). A max-cube field of 15 is the default
    cube limit (``Rules.max_cube`` ``None``)."""
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
    phase: Phase = "move" if f.dice else "roll"
    offer = None
    if f.cube_action:
        level = "DBR".index(f.cube_action)
        phase = "doubled"
        offer = CubeOffer(f.turn, f.cube_value * 2 ** (level + 1), OFFERS[level])
    return _state(
        f"the XGID {xgid}",
        rules=rules,
        match_length=f.match_length,
        score=f.score,
        crawford=not money and bool(f.rules & 1),
        phase=phase,
        turn=f.turn,
        position=position,
        dice=f.dice,
        cube_value=f.cube_value,
        cube_owner=f.cube_owner,
        offer=offer,
        resignation=None,
    )


_POSITION_LABEL = "positionid:"
_MATCH_LABEL = "matchid:"


def unlabelled_id(text: str) -> str:
    """``text`` without its spaces and without the labels GNU Backgammon prints before
    its IDs: ``Position ID: 4HPwATDgc/ABMA`` is the bare Position ID ``4HPwATDgc/ABMA``,
    and ``Position ID: 4HPwATDgc/ABMA Match ID: cAkAAAAAAAAA`` the GNUbg ID
    ``4HPwATDgc/ABMA:cAkAAAAAAAAA`` (a ``GNUbgID`` label is left to
    :func:`split_gnubg_id`)."""
    compact = "".join(text.split())
    if compact.lower().startswith(_POSITION_LABEL):
        compact = compact[len(_POSITION_LABEL) :]
        end = len(_MATCH_LABEL) + 14  # a Position ID is 14 characters
        if compact[14:end].lower() == _MATCH_LABEL:
            compact = f"{compact[:14]}:{compact[end:]}"
    return compact


def state_from_id(text: str) -> GameState | None:
    """The game state of a GNUbg ID (``PositionID:MatchID``, a ``GNUbgID`` prefix or GNU
    Backgammon's ``Position ID:`` and ``Match ID:`` labels allowed, :func:`unlabelled_id`),
    an XGID, stray spaces anywhere removed, or a FIBS ``board:`` line
    (:func:`state_from_fibs_board`); ``None`` for text that is none of these by its form
    (no ``:`` and no ``XGID=``), which can only be a bare Position ID, a position without a
    state: ``Position.from_id`` reads it, and refuses what is not one. ``InvalidIdError``
    naming what is wrong otherwise, also for an argument that is not a ``str``."""
    if not isinstance(text, str):
        raise InvalidIdError(f"a GNUbg ID, XGID or FIBS board is text, not {type(text).__name__}")
    if text.strip().startswith("board:"):
        # Its player names may hold spaces: read as written.
        return state_from_fibs_board(text.strip())
    compact = unlabelled_id(text)
    xgid = compact.upper().startswith("XGID=")
    if ":" not in compact and not xgid:
        return None
    if xgid or compact.count(":") >= 9:
        try:
            return state_from_xgid(compact)
        except InvalidIdError as e:
            raise InvalidIdError(f"{text.strip()!r} is no valid XGID: {e}") from None
    try:
        return state_from_gnubg_id(compact)
    except InvalidIdError as e:
        raise InvalidIdError(
            f"{text.strip()!r} is neither a GNUbg ID (PositionID:MatchID) nor an XGID: {e}"
        ) from None


# ---------------------------------------------------------------------------- FIBS boards

_FIBS_FIELDS = 53

#: FIBS's match length of an unlimited match (money play, scores a running tally).
FIBS_UNLIMITED = 9999


def _fibs_ranges() -> tuple[tuple[str, int, int], ...]:
    """(name, lowest, highest) of the 50 numeric fields after the two names."""
    points = [(f"board point {p}", -15, 15) for p in range(26)]
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
        ("forced move (no-Crawford flag)", 0, 32767),
        ("did Crawford (post-Crawford)", 0, 1),
        ("redoubles (gnubg: not Crawford)", 0, 32767),
    )


_FIBS_RANGES = _fibs_ranges()
assert len(_FIBS_RANGES) == _FIBS_FIELDS - 3


@dataclass(frozen=True)
class FibsBoard:
    """A FIBS ``board:`` line as written, every field named and range-checked, before it
    is read as a game (:func:`state_from_fibs_board`).

    "You" are the first name: your checkers have the sign ``colour`` and move in
    ``direction`` (-1: from board field 24 to 1, home 0 and bar 25; +1: from field 1 to 24,
    home 25 and bar 0). ``turn`` is the colour of the side on turn (0: the game is over).
    """

    you: str
    opponent: str
    match_length: int
    scores: tuple[int, int]  # (yours, the opponent's)
    cells: tuple[int, ...]  # the 26 board fields
    turn: int
    dice: tuple[tuple[int, int], tuple[int, int]]  # (yours, the opponent's)
    cube: int
    may_double: tuple[int, int]  # (you, the opponent)
    was_doubled: int
    colour: int
    direction: int
    home: int
    bar: int
    off: tuple[int, int]
    on_bar: tuple[int, int]
    can_move: int
    no_crawford: int
    post_crawford: int
    last: int

    @classmethod
    def parse(cls, line: str) -> FibsBoard:
        """The fields of ``line``; :class:`InvalidIdError` naming the first bad one."""
        parts = line.strip().split(":") if isinstance(line, str) else []
        if len(parts) != _FIBS_FIELDS or parts[0] != "board":
            raise InvalidIdError(f"not a FIBS board line of {_FIBS_FIELDS} fields: {shown(line)}")
        n: list[int] = []
        for (name, lo, hi), text in zip(_FIBS_RANGES, parts[3:]):
            # plain ASCII digits only: int() would also take '+5', ' 5', '1_0' or other scripts
            if not re.fullmatch(r"-?[0-9]+", text):
                raise InvalidIdError(f"FIBS board field {name!r} is not a number: {shown(text)}")
            if len(text.lstrip("-")) > 6:  # no field needs more digits: not read as an int
                raise InvalidIdError(
                    f"FIBS board field {name!r} is {shown(text, 20)}, not in {lo}..{hi}"
                )
            value = int(text)
            if not lo <= value <= hi:
                raise InvalidIdError(f"FIBS board field {name!r} is {value}, not in {lo}..{hi}")
            n.append(value)
        return cls(
            you=parts[1],
            opponent=parts[2],
            match_length=n[0],
            scores=(n[1], n[2]),
            cells=tuple(n[3:29]),
            turn=n[29],
            dice=((n[30], n[31]), (n[32], n[33])),
            cube=n[34],
            may_double=(n[35], n[36]),
            was_doubled=n[37],
            colour=n[38],
            direction=n[39],
            home=n[40],
            bar=n[41],
            off=(n[42], n[43]),
            on_bar=(n[44], n[45]),
            can_move=n[46],
            no_crawford=n[47],
            post_crawford=n[48],
            last=n[49],
        )

    def rows(self) -> tuple[list[int], list[int]]:
        """The checkers as ``(opponent's row, your row)``, each 25 counts on its owner's
        points 1..24 and its bar: player 0 and player 1 of :func:`state_from_fibs_board`."""
        colour, direction = self.colour, self.direction
        you, opp = [0] * 25, [0] * 25
        for i in range(1, 25):
            v = self.cells[i]
            if v * colour > 0:
                you[(i if direction == -1 else 25 - i) - 1] = abs(v)
            elif v:
                opp[(25 - i if direction == -1 else i) - 1] = abs(v)
        for name, row, field, sign in (
            ("your bar", you, self.bar, colour),
            ("the opponent's bar", opp, self.home, -colour),
        ):
            v = self.cells[field]
            if v * sign < 0:
                raise InvalidIdError(
                    f"FIBS board point {field} ({name}) is {v}: its checkers have the sign"
                    f" {sign:+d} (colour {colour})"
                )
            row[24] = abs(v)
        return opp, you


def state_from_fibs_board(line: str) -> GameState:
    """The state of a FIBS ``board:`` line, in any layout the FIBS ``board:``
    specification allows (as FIBS servers write it: colour -1 or 1, direction -1 or 1,
    home 0 or 25) and as GNU Backgammon writes it (:func:`fibs_board_of`). "You" (the first
    name) are player 1, the opponent player 0; the Jacoby rule is not part of a board.

    How the fields are read (FIBS's own rules where its documentation is silent, as GNU
    Backgammon and FIBS clients read them):

    - The dice are those of the side on turn; the other side's are 0 (FIBS) or a copy
      (gnubg). A match length of 9999 is an unlimited match: money play (its scores are a
      running tally and are not kept).
    - A **pending double**: "was doubled" set (FIBS writes 1, gnubg the doubler's sign), or
      both "may double" flags 0 outside the Crawford game (FIBS's board for the doubler
      while the answer waits). The doubler is the side on turn (R18: the player on roll
      doubles), the cube shows the value before the double.
    - **Crawford** (R21): the Crawford game is the game at which exactly one side is 1-away
      and neither the "did Crawford" field (the post-Crawford flag) nor the "forced move"
      field (FIBS's no-Crawford flag, non-zero when the match is played without the rule)
      is set. FIBS sets both "may double" flags in the Crawford game; they are not read
      there, but a "was doubled" field set there (a double in the Crawford game) and a cube
      above 1 are refused. The last field (FIBS: redoubles; gnubg: not Crawford) is
      range-checked only.

    Every field is checked: a number out of its range, or one that disagrees with the board
    (borne-off and on-bar counts, the dice of the side not on turn, the home and bar fields
    with the direction, a post-Crawford flag with nobody 1-away), raises
    :class:`InvalidIdError` naming the field. The can-move field is derived data and only
    range-checked."""
    b = FibsBoard.parse(line)
    if b.colour == 0 or b.direction == 0:
        raise InvalidIdError(
            f"FIBS board: colour {b.colour} and direction {b.direction} are each -1 or 1"
        )
    if (b.home, b.bar) != ((0, 25) if b.direction == -1 else (25, 0)):
        raise InvalidIdError(
            f"FIBS board: home {b.home} and bar {b.bar} disagree with direction {b.direction}"
            " (direction -1: home 0, bar 25; direction 1: home 25, bar 0)"
        )
    if b.turn == 0:
        raise InvalidIdError("FIBS board: turn 0 means the game is over; no game to read")
    opp_row, your_row = b.rows()
    for name, row, off, on_bar in (
        ("your", your_row, b.off[0], b.on_bar[0]),
        ("opponent's", opp_row, b.off[1], b.on_bar[1]),
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
    player = 1 if b.turn == b.colour else 0  # you are player 1
    mine, other = (b.dice[0], b.dice[1]) if player == 1 else (b.dice[1], b.dice[0])
    d1, d2 = mine
    if (d1 == 0) != (d2 == 0):
        raise InvalidIdError(f"FIBS board dice {d1} and {d2}: both rolled (1..6) or both 0")
    if other not in ((0, 0), mine):
        raise InvalidIdError(
            f"FIBS board: the dice of the side not on turn, {other[0]} {other[1]}, are neither"
            f" 0 0 (FIBS) nor a copy of the roll {d1} {d2} (gnubg)"
        )
    money = b.match_length in (0, FIBS_UNLIMITED)
    match_length = 0 if money else b.match_length
    score = (0, 0) if money else (b.scores[1], b.scores[0])
    one_away = [match_length - s == 1 for s in score] if not money else [False, False]
    if b.post_crawford and not any(one_away):
        raise InvalidIdError(
            "FIBS board: the post-Crawford (did Crawford) flag is set but nobody is 1-away (R21)"
        )
    crawford = one_away.count(True) == 1 and not b.post_crawford and not b.no_crawford
    check_cube_value(b.cube, "FIBS board cube value", error=InvalidIdError)
    dice = None if (d1, d2) == (0, 0) else (d1, d2)
    pending = bool(b.was_doubled) or (b.may_double == (0, 0) and not crawford)
    may = {1: b.may_double[0], 0: b.may_double[1]}  # by player
    owner: int | None
    offer = None
    if crawford:
        # Checked before the flags are set aside: a double offered here would be dropped.
        if b.was_doubled:
            raise InvalidIdError(
                f"FIBS board: 'was doubled' is {b.was_doubled} in the Crawford game, where"
                " the cube is not in play: no double may be offered (R21)"
            )
        owner = None  # FIBS writes both flags set in the Crawford game
    elif pending:
        if dice is not None:
            raise InvalidIdError("FIBS board: a double is pending but dice are rolled (R18)")
        taker = 1 - player
        if may[taker] and not may[player]:
            raise InvalidIdError(
                "FIBS board: a double is pending but the side on turn (the doubler, R18) does"
                " not own the cube (R17)"
            )
        if may[player] and may[taker]:
            owner = None
        elif may[player] or b.cube > 1:
            owner = player  # a redouble
        else:
            owner = None
        offer = CubeOffer(player, b.cube * 2, "double")
    else:
        owners: dict[tuple[int, int], int | None] = {(1, 1): None, (1, 0): 1, (0, 1): 0}
        owner = owners[b.may_double]
    position_rows = [your_row, opp_row] if player == 1 else [opp_row, your_row]
    try:
        position = Position.from_array(np.array(position_rows, dtype=np.uint8))
    except BgfastError as e:
        raise InvalidIdError(f"invalid FIBS board position: {e}") from e
    phase: Phase = "doubled" if offer is not None else ("move" if dice else "roll")
    return _state(
        "the FIBS board",
        rules=Rules(),
        match_length=match_length,
        score=score,
        crawford=crawford,
        phase=phase,
        turn=player,
        position=position,
        dice=dice,
        cube_value=b.cube,
        cube_owner=owner,
        offer=offer,
        resignation=None,
    )


def fibs_board_of(state: GameState, you: str = "You", opponent: str = "Opponent") -> str:
    """The FIBS ``board:`` line of ``state`` as GNU Backgammon writes it (``set output
    rawboard on``): seen by player 1 (``you``), whose checkers are positive and move from
    24 to 1 (colour 1, direction -1, home 0, bar 25); player 0 is ``opponent``.

    Like gnubg: dice are written higher first and repeated for both sides; "may double" is
    the cube ownership only; the on-bar, can-move and forced-move fields are 0 (the bar
    counts are in board fields 25 and 0); the was-doubled field is signed (+1 player 1,
    -1 player 0 doubled); the last two fields are post-Crawford and not-Crawford.

    A board has no field for a pending resignation, a beaver or raccoon, a cube limit or a
    rule (Jacoby, beavers). A state with them is written all the same, without them (the
    notations of one position must all be writable, as the HTTP server's ``/ids`` needs):
    read back, a resignation is gone (the decision it interrupted), a beaver or raccoon
    waiting is the double before it, and the cube limit is the default, 32768.

    A board cannot hold the state before the opening roll (its turn field names a side on
    roll, or 0 for a game over; FIBS rolls the opening itself and shows no board before it)
    nor a finished game (turn 0 says nothing of who won or how, and
    :func:`state_from_fibs_board` reads no game from it): both raise
    :class:`~bgfast.GameStateError`, as :func:`xgid_of` does.
    """
    if state.turn is None:
        raise GameStateError("a FIBS board cannot describe the state before the opening roll")
    if state.is_over:
        raise GameStateError(
            "a FIBS board describes a game in progress; this game is over "
            "(reading the board back would give a game still to play)"
        )
    for name in (you, opponent):
        if not name or ":" in name or any(c.isspace() for c in name):
            raise InvalidIdError(f"a FIBS name is non-empty without ':' or spaces: {shown(name)}")
    board = state.board()
    cells = [0] * 26
    for p in range(1, 25):
        cells[p] = int(board[1][p - 1]) - int(board[0][24 - p])
    cells[25] = int(board[1][24])
    cells[0] = -int(board[0][24])
    dice = sorted(state.dice, reverse=True) if state.dice else [0, 0]
    owner = state.cube.owner
    turn = state.turn
    was_doubled = 0 if state.offer is None else (1 if turn == 1 else -1)
    cube = _cube_before_offer(state)
    fields: list[object] = [
        "board",
        you,
        opponent,
        state.match_length,
        state.score[1],
        state.score[0],
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
        int(state.post_crawford),
        int(not state.crawford),
    ]
    assert len(fields) == _FIBS_FIELDS
    return ":".join(str(f) for f in fields)
