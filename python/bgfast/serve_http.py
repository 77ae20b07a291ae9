"""``bgfast serve http``: a JSON API over HTTP for engines and web pages.

Built on FastAPI (Starlette underneath) and served by uvicorn: the OpenAPI schema is
generated from the typed endpoints themselves (``/openapi.json``, browsable at ``/docs``),
so it cannot drift from what the server does; endpoints declared ``def`` run on a thread
pool, off the event loop, and the native work they call releases the GIL while it runs.
Both are in the ``serve`` extra (``pip install 'bgfast[serve]'``).

Endpoints (a position is a GNU Backgammon Position ID, a GNUbg ID ``PositionID:MatchID``,
an XGID or a FIBS ``board:`` line, read as the command line reads them: GNU Backgammon's
``Position ID:`` and ``Match ID:`` labels allowed, :func:`bgfast.codec.unlabelled_id`;
dice as ``31``, ``3-1`` or ``3,1``, or the dice the ID holds). A ``+`` of a Position ID or
Match ID sent unencoded in a query string arrives as a space; such an ID is read with its
spaces (but a label's) as ``+`` (their alphabet has no space), and one that still does not
read says to encode ``+`` as ``%2B``:

- ``GET /moves?position=ID&dice=31``: every distinct legal result, as ``Position.moves``
  lists them: ``{"moves": [{"move": "8/5 6/5", "result": "ID"}, ...]}``.
- ``GET /evaluate?position=ID[&net=NAME]``: the net's five probabilities and cubeless
  equity for the side to move (``wildbg`` by default; ``--net NAME=PATH`` adds nets), and
  the cube decision for the stakes the ID gives (money, centred cube for a Position ID):
  ``cube`` holds the side to move's values (the doubler's with a double waiting; per unit
  of the cube in money, match-winning chances in a match; ``emg`` and ``mwc`` hold them in
  each unit in a match, null in money), the ``action`` and the doubled side's ``answer``;
  it is null when the ID holds dice, a resignation, beaver or raccoon is
  waiting, or the score is past the match equity table.
- ``GET /best?position=ID&dice=31[&net=NAME][&top=N]``: the plays ranked by the net at the
  stakes the ID gives, best first, like GNU Backgammon's ``hint`` (``bgfast.hint``): each
  one's ``cubeful_equity`` for the side that moves (per unit of the cube, EMG in a match),
  ``diff`` to the best, ``mwc`` (null in money), cubeless ``equity`` and ``probabilities``;
  the ``stakes`` used. A score past the match equity table is a 400 here, while
  ``/evaluate`` answers it with ``"cube": null``.
- ``POST /play`` ``{"position": ID, "dice": "31", "move": "8/5 6/5"}``: whether the play is
  legal, the play it denotes and its result, or the rule it breaks (``"rule": "R9"``).
- ``GET /ids?position=ID``: the position in every notation (Position ID, GNUbg ID, XGID,
  FIBS board).
- ``GET /health`` (and ``HEAD /health``): the server's version and the nets it offers.

A finished game (one side has borne off all 15 checkers, R15) is refused alike by every
endpoint: a 400 ``GameOverError`` saying who has won what, whatever notation gave it.

Bad input is a 4xx JSON error ``{"error": {"type", "message", "parameter"}}`` naming what
is wrong (400 for a value bgfast refuses, 422 for a missing or mistyped parameter, 404 and
405 for a wrong path or method); any other failure is a 500 of the same shape, and the
server goes on answering. A query parameter given twice is a 400 naming it (not the last
one silently). A position over :data:`MAX_ID` characters is a 400 before it is read (no
ID or board line is that long). ``POST /play`` reads its body as JSON, with the header
``Content-Type: application/json`` or without a ``Content-Type``; a body sent as another
type (``curl -d`` sends a form's) is a 422 saying so. A request that HTTP itself cannot
parse is refused by uvicorn before the app, with its plain-text 400.

Sizes and times are bounded: a body over :data:`MAX_BODY` bytes is a 413 and a request
line and headers over :data:`MAX_HEAD` a 431, neither read whole; a request line and
headers not sent within :data:`REQUEST_TIMEOUT` seconds of the connection (or of the
previous answer), or a whole body not sent within as many seconds of its headers, are a
408 (JSON errors of the same shape; ``--request-timeout`` changes the time). At most
``--max-connections`` connections are served at once (:func:`default_max_connections`:
:data:`MAX_CONNECTIONS`, fewer when the process may open fewer files, which the line the
server starts with then says); a client past them is answered a 503 JSON error as it
connects and let go (such clients, gone within a second, are not counted). Ctrl-C or
SIGTERM stops the server with status 0, after the requests under way (cancelled after
:data:`STOP_GRACE` seconds: a request not answered by then is a 503).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import anyio.to_thread
import numpy as np
from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, WithJsonSchema
from starlette.exceptions import HTTPException as StarletteHTTPException

from bgfast import bearoff, codec, cubeful
from bgfast._core import (
    BgfastError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    Net,
    Position,
    check_dice,
    check_threads,
)
from bgfast._fd_limits import free_descriptors, open_file_limit
from bgfast._version import __version__
from bgfast.errors import InvalidIdError, shown
from bgfast.hint import hint
from bgfast.policies import SHIPPED_NETS, load_net_file
from bgfast.state import GameState, roll_to_play
from bgfast.vocab import ROLL_TEXT, roll_from_text

__all__ = [
    "MAX_BODY",
    "MAX_CONNECTIONS",
    "MAX_HEAD",
    "MAX_ID",
    "REQUEST_TIMEOUT",
    "STOP_GRACE",
    "create_app",
    "default_max_connections",
    "read_position",
    "run",
]

OUTCOMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


class ApiError(Exception):
    """A request bgfast refuses: HTTP ``status``, naming ``parameter``."""

    def __init__(self, message: str, parameter: str | None, status: int = 400, kind: str = ""):
        super().__init__(message)
        self.message = message
        self.parameter = parameter
        self.status = status
        self.kind = kind or "BadRequest"


#: The largest request body read (a ``POST /play`` body is about 100 bytes); a longer one
#: is refused with a 413 unread, instead of being held in memory whole.
MAX_BODY = 1 << 16

#: The most bytes of request line and headers read for one request (uvicorn's httptools
#: parser keeps every header it is sent, without a limit of its own).
MAX_HEAD = 1 << 16

#: Seconds a client has to send a request's line and headers, and then its whole body (a
#: client that connects and says nothing, or sends half a request, held a connection and
#: its file descriptor forever; one that sent a byte of body every few seconds, too, while
#: the time was counted for each piece). ``--request-timeout`` changes it.
REQUEST_TIMEOUT = 10

#: The most connections served at once by default (``--max-connections`` changes it); a
#: client past them is answered a 503 as it connects and let go. Each connection holds a
#: file descriptor: 300 slow clients under a limit of 200 files left no descriptor to
#: accept anyone with, and other clients' connections were reset.
MAX_CONNECTIONS = 1000

#: File descriptors :func:`default_max_connections` keeps free besides those open and the
#: refused clients': the event loop's own, the accept of a client to refuse, a net's or a
#: module's file opened for a moment, the logs.
FD_MARGIN = 16

#: The fewest connections :func:`default_max_connections` gives, however low the limit of
#: open files: a server that serves one client at a time is no server.
MIN_CONNECTIONS = 8

#: The most connections turned away (past ``max_connections``) that are read until the
#: client closes, at once (fewer when the process may open few files: see
#: :func:`_lingering_slots`); past them a client is turned away and closed at once.
LINGERING = 32

#: The most characters of a position read (the longest GNUbg ID or XGID has about 60, a
#: FIBS board line about 200 with its player names): a longer one is a 400 before any work
#: on it (60,000 spaces, the '+' of an unencoded query, once held the server for seconds).
MAX_ID = 1000

#: Seconds a stopping server waits for the requests under way (a client that sent half a
#: body would otherwise hold it forever) before it cancels them.
STOP_GRACE = 5


def _error_body(kind: str, message: str, parameter: str | None = None) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message, "parameter": parameter}}


class _BodyLimit:
    """ASGI middleware: reads a request's body up to :data:`MAX_BODY` bytes and answers a
    413 JSON error past it (a declared ``Content-Length`` is checked before reading), or a
    408 when the whole body has not arrived ``timeout`` seconds after its headers. A body
    sent without a ``Content-Type`` is JSON (the only body the API reads)."""

    def __init__(self, app: Any, timeout: float = REQUEST_TIMEOUT) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Any) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.serve(scope, receive, tracked)
        except asyncio.CancelledError:
            # The server stops (STOP_GRACE over) with the request under way: an answer if
            # none has begun, and no traceback in the server's log either way.
            if not started:
                await _refuse(send, 503, "ServiceUnavailable", "the server is stopping")

    async def serve(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or ())
        if b"content-length" not in headers and b"transfer-encoding" not in headers:
            # No body (every GET): nothing to bound or time.
            await self.app(scope, receive, send)
            return
        declared = headers.get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > MAX_BODY:
            await _refuse(send, 413, "PayloadTooLarge", _TOO_LARGE)
            return
        chunks: list[bytes] = []
        size = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout  # for the whole body, not each piece of it
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0))
            except asyncio.TimeoutError:
                late = f"the request body did not arrive within {_seconds(self.timeout)}"
                await _refuse(send, 408, "RequestTimeout", late)
                return
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > MAX_BODY:
                await _refuse(send, 413, "PayloadTooLarge", _TOO_LARGE)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        if b"content-type" not in headers:
            # FastAPI reads a body without a Content-Type as JSON in some versions and as
            # bytes in others (then "Input should be a valid dictionary"): JSON here.
            json_type = (b"content-type", b"application/json")
            scope = {**scope, "headers": [*scope["headers"], json_type]}
        await self.app(scope, replay, send)


_TOO_LARGE = f"the request body is longer than {MAX_BODY} bytes"


async def _refuse(send: Any, status: int, kind: str, message: str) -> None:
    """Answers a JSON error and closes the connection (what the client still sends is not
    read)."""
    payload = json.dumps(_error_body(kind, message)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


# ------------------------------------------------------------------------- reading input


class Read:
    """A position as given: its notation, the position (side to move), the dice it holds,
    and the game state when the notation holds one (not a bare Position ID)."""

    def __init__(
        self,
        kind: str,
        position: Position,
        dice: tuple[int, int] | None,
        state: GameState | None,
    ) -> None:
        self.kind = kind
        self.position = position
        self.dice = dice
        self.state = state


#: Why an ID from a query string may hold spaces: a ``+`` sent unencoded decodes as one.
PLUS_HINT = "a '+' sent unencoded in a query string arrives as a space: encode it as %2B"


def read_position(text: str, *, query: bool = False) -> Read:
    """Reads a Position ID, a GNUbg ID, an XGID or a FIBS board line (spaces ignored but in
    a FIBS board's names; GNU Backgammon's ``Position ID:`` and ``Match ID:`` labels
    allowed, as :func:`bgfast.codec.unlabelled_id` reads them); ``BgfastError`` naming what
    is wrong.

    With ``query`` (the text came from a URL's query string, where ``+`` decodes as a
    space), a Position ID or GNUbg ID that does not read with its spaces ignored is read
    with every space (but those of its labels) as the ``+`` it was sent as. That is
    unambiguous: their alphabet has no space and each part has a fixed length, so at most
    one of the two reads. XGIDs and FIBS boards have no ``+`` to lose.

    Text over :data:`MAX_ID` characters is refused before any of this."""
    if isinstance(text, str) and len(text) > MAX_ID:
        raise InvalidIdError(
            f"the position is {len(text)} characters long: no Position ID, GNUbg ID, XGID or"
            f" FIBS board line has more than {MAX_ID}"
        )
    try:
        return _read_position(text)
    except BgfastError as e:
        bare = _label_free(text)
        if not (query and " " in bare and _may_hold_plus(bare)):
            raise  # no space a '+' may have become: the hint would not help
        wrong: list[BgfastError] = []
        for sent in _with_plus(bare):
            try:
                return _read_position(sent)
            except BgfastError as plus_error:
                wrong.append(plus_error)
        # Both readings fail: say what is wrong with the one that has its '+' back, the
        # likelier fault once a '+' was lost (a character past the key, say), and why.
        raise type(e)(f"{wrong[0]} ({PLUS_HINT})") from None


def _spaced(label: str) -> str:
    """A pattern of ``label`` (lower case, without spaces) with spaces anywhere in it, as
    :func:`bgfast.codec.unlabelled_id` ignores them."""
    return r"\s*".join(re.escape(c) for c in label)


#: GNU Backgammon's labels around a Position ID and a Match ID, the one space each is
#: printed with: ``Position ID: 4HPwATDgc/ABMA Match ID: cAkAAAAAAAAA``.
_LABELLED = re.compile(
    rf"\s*{_spaced('positionid:')} ?(.*?)(?: ?{_spaced('matchid:')} ?(.*))?",
    re.IGNORECASE | re.DOTALL,
)


def _label_free(text: str) -> str:
    """``text`` without GNU Backgammon's ``Position ID:`` and ``Match ID:`` labels and the
    spaces they are printed with (a GNUbg ID ``PositionID:MatchID`` when both are there),
    its other spaces kept: the ones a ``+`` sent unencoded may have become."""
    found = _LABELLED.fullmatch(text)
    if found is None:
        return text
    position, match = found.groups()
    return position if match is None else f"{position}:{match}"


def _with_plus(text: str) -> list[str]:
    """``text`` with its spaces read as ``+``, each space at either end or next to the
    ``:`` taken as a lost ``+`` (an ID may start or end in one) or as a stray space."""
    ends = dict.fromkeys((text, text.lstrip(" "), text.rstrip(" "), text.strip(" ")))
    sides = [side for end in ends for side in (end, _tight_colons(end))]
    return [side.replace(" ", "+") for side in dict.fromkeys(sides)]


def _tight_colons(text: str) -> str:
    """``text`` without the spaces around each ``:``, in linear time (the regular
    expression ``" *: *"`` this replaces took time quadratic in a run of spaces: 6 s, the
    GIL held, for 60,000)."""
    if ":" not in text:
        return text
    first, *inner, last = text.split(":")
    return ":".join([first.rstrip(" "), *(part.strip(" ") for part in inner), last.lstrip(" ")])


def _may_hold_plus(text: str) -> bool:
    """Whether ``text`` is meant as a Position ID or GNUbg ID, whose alphabet has ``+``."""
    compact = "".join(text.split())
    return not (
        text.strip().startswith("board:")
        or compact.upper().startswith("XGID=")
        or compact.count(":") >= 9
    )


def _read_position(text: str) -> Read:
    raw = text.strip()
    if not raw:
        raise InvalidIdError("the position is empty")
    found = codec.state_from_id(raw)
    # the one reading of an ID's text, the command line's: spaces and labels removed
    compact = codec.unlabelled_id(raw)
    if found is None:
        if not compact:
            raise InvalidIdError(f"{raw!r} holds no Position ID after its label")
        return Read("position_id", Position.from_id(compact), None, None)
    if raw.startswith("board:"):
        kind = "fibs_board"
    elif compact.upper().startswith("XGID=") or compact.count(":") >= 9:
        kind = "xgid"
    else:
        kind = "gnubg_id"
    if found.turn is None:
        raise InvalidIdError(f"{raw}: nobody is on roll before the opening roll (R3)")
    return Read(kind, found.position, found.dice, found)


def _position(text: str, *, query: bool = True) -> Read:
    """The position of a request, of a game not over: ``ApiError`` naming ``position``, a
    ``GameOverError`` for a finished game whatever the notation (a GNUbg ID, XGID or FIBS
    board of one holds no game state the codec reads)."""
    try:
        read = read_position(text, query=query)
    except BgfastError as e:
        finished = _finished(text, query=query)
        if finished is not None:
            raise _game_over(finished) from None
        raise ApiError(str(e), "position", kind=type(e).__name__) from None
    if read.position.outcome is not None:
        raise _game_over(read.position)
    return read


_WON = {"single": "the game", "gammon": "a gammon", "backgammon": "a backgammon"}


def _game_over(position: Position) -> ApiError:
    """The refusal of a finished game, in the same words from every endpoint."""
    outcome = position.outcome
    assert outcome is not None
    who = "the side to move has" if outcome.winner == "mover" else "the opponent has"
    return ApiError(
        f"the game is over: {who} borne off all 15 checkers and won {_WON[outcome.kind]} (R15)",
        "position",
        kind="GameOverError",
    )


def _finished(text: str, *, query: bool) -> Position | None:
    """The finished position ``text`` describes when it did not read as a game, else
    ``None``: its checkers, read alone."""
    if not isinstance(text, str) or len(text) > MAX_ID:
        return None
    sent = [text]
    bare = _label_free(text)
    if query and " " in bare and _may_hold_plus(bare):
        sent += _with_plus(bare)
    for candidate in sent:
        with contextlib.suppress(BgfastError, ValueError, IndexError):
            position = _checkers_of(candidate)
            if position is not None and position.outcome is not None:
                return position
    return None


def _checkers_of(text: str) -> Position | None:
    """The position part of a GNUbg ID, XGID or FIBS board line, seen from the side on
    turn, without the rest of the game state; ``None`` for a bare Position ID."""
    raw = text.strip()
    compact = codec.unlabelled_id(raw)
    if raw.startswith("board:"):
        board = codec.FibsBoard.parse(raw)
        opponents, yours = board.rows()
        rows = [yours, opponents] if board.turn == board.colour else [opponents, yours]
    elif compact.upper().startswith("XGID=") or compact.count(":") >= 9:
        fields = codec.parse_xgid(compact)
        rows = [list(fields.board[fields.turn]), list(fields.board[1 - fields.turn])]
    elif ":" in compact:
        return Position.from_id(codec.split_gnubg_id(compact)[0])
    else:
        return None
    return Position.from_array(np.array(rows, dtype=np.uint8))


def _dice(given: str | tuple[object, object] | None, read: Read) -> tuple[int, int]:
    """The roll of a request: ``given`` as text (``31``, ``3-1``, ``3,1``) or a JSON pair,
    else the dice the position holds; given dice must be the roll it holds, if any."""
    if given is None or (isinstance(given, str) and not given.strip()):
        if read.dice is None:
            raise ApiError(
                "give the dice (such as dice=31): the position does not hold a roll", "dice"
            )
        return read.dice
    if isinstance(given, tuple):
        try:
            roll = check_dice(given)
        except InvalidDiceError:
            raise ApiError(
                f"dice are two dice 1-6 such as [3, 1] or '31', not {shown(list(given))}",
                "dice",
                kind="InvalidDiceError",
            ) from None
    else:
        read_roll = roll_from_text(given)
        if read_roll is None:
            raise ApiError(f"dice are {ROLL_TEXT}, not {given!r}", "dice", kind="InvalidDiceError")
        roll = read_roll
    try:
        roll_to_play(roll, read.dice, "the position")
    except InvalidDiceError as e:
        raise ApiError(str(e), "dice", kind="InvalidDiceError") from None
    return roll


# ------------------------------------------------------------------------- the schema


class ErrorDetail(BaseModel):
    """What is wrong with a request."""

    type: str = Field(examples=["InvalidIdError"])
    message: str = Field(examples=["invalid Position ID 'xyz': ..."])
    parameter: str | None = Field(default=None, examples=["position"])


class ErrorBody(BaseModel):
    """The body of every 4xx and 5xx answer."""

    error: ErrorDetail


class MoveEntry(BaseModel):
    """One legal play and the position it reaches (the opponent to move)."""

    move: str = Field(examples=["8/5 6/5"], description="gnubg's notation; '' for a pass")
    result: str = Field(examples=["4HPwATDgc/ABMA"], description="Position ID of the result")


class MovesAnswer(BaseModel):
    """Every distinct legal result of a position and roll (R8-R14), one play each."""

    position: str
    dice: tuple[int, int]
    moves: list[MoveEntry]


class CubeAnswer(BaseModel):
    """The cube decision of the side to move at 0 ply (Janowski's model): the main values
    per unit of the cube in money (a double/pass is 1.0), match-winning chances in a
    match; ``emg`` and ``mwc`` hold the three values in each unit in a match (null in
    money), as ``bgfast.CubeDecision`` and ``bgfast eval --json`` do."""

    action: str = Field(examples=["no double"])
    may_double: bool
    why_not: str | None
    no_double: float
    double_take: float
    double_pass: float
    answer: str = Field(
        description="the doubled side's answer to a double now: take, pass or beaver (what a"
        " pending double needs)",
        examples=["take"],
    )
    emg: dict[str, float] | None = Field(
        default=None,
        description="in a match, no_double, double_take and double_pass as equivalent money"
        " points at the cube now (a double/pass is 1.0); null in money",
        examples=[{"no_double": 0.412, "double_take": 0.385, "double_pass": 1.0}],
    )
    mwc: dict[str, float] | None = Field(
        default=None,
        description="in a match, no_double, double_take and double_pass as match-winning"
        " chances (the main values); null in money",
        examples=[{"no_double": 0.62, "double_take": 0.61, "double_pass": 0.75}],
    )


class EvaluateAnswer(BaseModel):
    """A net's cubeless view of the side to move, before it rolls."""

    position: str
    net: str
    probabilities: list[float] = Field(
        description="win, win gammon, win backgammon, lose gammon, lose backgammon"
    )
    equity: float = Field(description="cubeless: 2 win - 1 + wg + wbg - lg - lbg")
    cube: CubeAnswer | None = Field(
        description="for the stakes the ID gives; null with dice, a resignation, beaver or"
        " raccoon waiting, or a score past the match equity table"
    )


class RankedMove(BaseModel):
    """A play with the value of its result for the side that moves: cubeful at the stakes
    the ID gives, the cubeless equity and the chances after it."""

    move: str
    cubeful_equity: float = Field(
        description="at the stakes, per unit of the cube now (EMG in a match)"
    )
    diff: float = Field(description="cubeful_equity minus the best play's")
    mwc: float | None = Field(description="match-winning chances after the play; null in money")
    equity: float = Field(description="cubeless money equity")
    probabilities: list[float]
    result: str


class BestAnswer(BaseModel):
    """The plays ranked by a net at the stakes, best first (like GNU Backgammon's hint)."""

    position: str
    dice: tuple[int, int]
    net: str
    stakes: dict[str, Any] = Field(
        description="the cube and score the plays are valued at (money, centred cube for a"
        " Position ID), seen from the side to move: cube [value, owner], the owner 'centred',"
        " 'mover' or 'opponent'; score as points won, the side to move's first; max_cube and"
        " backgammon_counts_double only when the game has them"
    )
    moves: list[RankedMove]


# A die of a JSON pair, taken as sent and checked by ``check_dice`` (not coerced by
# pydantic, which would read ``true`` or ``"3"`` or ``3.0`` as an int); an integer 1-6 in
# the schema.
JsonDie = Annotated[Any, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 6})]


class PlayRequest(BaseModel):
    """A play to check."""

    position: str = Field(examples=["4HPwATDgc/ABMA"])
    dice: str | tuple[JsonDie, JsonDie] | None = Field(default=None, examples=["31", [3, 1]])
    move: str = Field(examples=["8/5 6/5"])


class PlayAnswer(BaseModel):
    """Whether a play is legal: the legal play it denotes and its result, or the rule of
    RULES.md it breaks."""

    legal: bool
    move: str | None = Field(description="the play in bgfast's notation, when legal")
    result: str | None = Field(description="Position ID of the result, when legal")
    rule: str | None = Field(description="the rule broken, such as R9, when illegal")
    message: str | None = Field(description="why the play is illegal")


class IdsAnswer(BaseModel):
    """A position in every notation. A bare Position ID is taken as a money game with the
    cube centred and the side to move on roll (``assumed``)."""

    kind: Literal["position_id", "gnubg_id", "xgid", "fibs_board"]
    position_id: str
    gnubg_id: str
    xgid: str | None
    fibs_board: str
    dice: tuple[int, int] | None
    assumed: bool


class Health(BaseModel):
    """The server's version and the nets it offers."""

    status: str
    version: str
    nets: list[str]


PositionParam = Annotated[
    str,
    Query(
        description="Position ID, GNUbg ID (PositionID:MatchID), XGID or FIBS board line",
        examples=["4HPwATDgc/ABMA"],
    ),
]
DiceParam = Annotated[
    "str | None",
    Query(description="the roll: 31, 3-1 or 3,1 (default: the dice the ID holds)", examples=["31"]),
]
NetParam = Annotated[str, Query(description="a net this server offers (GET /health lists them)")]
TopParam = Annotated["int | None", Query(ge=1, description="only the best N plays")]
CubeLifeParam = Annotated[
    str,
    Query(
        description="the cube model's cube life: a number from 0 to 1, or gnubg (GNU"
        " Backgammon's index by position, as its eval and hint)",
        examples=["0.68", "gnubg"],
    ),
]

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "A value bgfast refuses, named"},
    422: {"model": ErrorBody, "description": "A missing or mistyped parameter"},
}


# ------------------------------------------------------------------------- the app


def _is_json_type(content_type: str) -> bool:
    """Whether a ``Content-Type`` is one FastAPI reads as JSON (``application/json`` or
    ``application/*+json``, parameters aside)."""
    kind = content_type.split(";")[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


async def _once_each(request: Request) -> None:
    """Refuses a query parameter given more than once: only the last would be read."""
    seen: set[str] = set()
    for name, _ in request.query_params.multi_items():
        if name in seen:
            values = request.query_params.getlist(name)
            raise ApiError(
                f"the parameter {name} is given {len(values)} times"
                f" ({', '.join(shown(v, 40) for v in values[:4])}): give it once",
                name,
            )
        seen.add(name)


def _seconds(seconds: float) -> str:
    """``1 second``, ``2.5 seconds``."""
    return f"{seconds:g} second{'' if seconds == 1 else 's'}"


def _check_timeout(seconds: object) -> float:
    """A request timeout: a number of seconds above 0 (``BgfastError`` otherwise)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"a request timeout is a number of seconds, not {shown(seconds)}")
    if not 0 < seconds < float("inf"):
        raise BgfastError(f"the request timeout is a number of seconds above 0, not {seconds}")
    return float(seconds)


def _check_connections(count: object) -> int:
    """A connection limit: an int of 1 or more (``BgfastError`` otherwise)."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(f"a connection limit is an int, not {shown(count)}")
    if count < 1:
        raise BgfastError(f"the connection limit is 1 or more, not {count}")
    return count


def _max_connections(free: int | None) -> int:
    """The default connection limit when the process may open ``free`` more descriptors
    (``None``: no limit): :data:`MAX_CONNECTIONS`, or fewer when ``free`` less
    :data:`FD_MARGIN` cannot hold them and :data:`LINGERING` clients turned away (or a
    quarter of what is left for those, when that is fewer); at least
    :data:`MIN_CONNECTIONS`."""
    if free is None:
        return MAX_CONNECTIONS
    spare = max(0, free - FD_MARGIN)
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, spare - min(LINGERING, spare // 4)))


def _lingering_slots(free: int | None, max_connections: int) -> int:
    """How many clients turned away may be read until they close, at once: the
    descriptors ``free`` leaves past :data:`FD_MARGIN` and ``max_connections``, at most
    :data:`LINGERING`."""
    if free is None:
        return LINGERING
    return max(0, min(LINGERING, free - FD_MARGIN - max_connections))


def default_max_connections() -> int:
    """:data:`MAX_CONNECTIONS`, or fewer when the process may open fewer files: the
    descriptors it may still open (:func:`bgfast._fd_limits.free_descriptors`) less
    :data:`FD_MARGIN` and those of clients being turned away (up to :data:`LINGERING`); at
    least :data:`MIN_CONNECTIONS`."""
    return _max_connections(free_descriptors())


def _stakes(read: Read) -> cubeful.Stakes:
    """The stakes of the side to move the text gives: money with the cube centred at 1 for a
    Position ID; ``MatchOptionError`` for a score past the match equity table (R20)."""
    return cubeful.Stakes.of(read.position if read.state is None else read.state)


def _cube_life(text: str) -> cubeful.CubeLife:
    """The ``cube_life`` parameter: a number from 0 to 1, or ``gnubg``."""
    try:
        return cubeful.cube_life_from_text(text)
    except BgfastError:
        raise ApiError(
            f"cube_life is a number from 0 to 1 or {cubeful.GNUBG_CUBE_LIFE}, not {text!r}",
            "cube_life",
        ) from None


def _cube_answer(
    read: Read, probabilities: np.ndarray[Any, Any], cube_life: cubeful.CubeLife
) -> CubeAnswer | None:
    subject = read.position if read.state is None else read.state
    if read.dice is not None or cubeful.why_no_cube_action(subject) is not None:
        return None  # dice given or held, a game over, an answer waiting
    try:
        decision = cubeful.decide_for(
            probabilities, _stakes(read), cube_life, position=read.position
        )
    except BgfastError:
        return None  # stakes the model does not cover (a match longer than the table)
    return CubeAnswer(
        action=decision.action,
        may_double=decision.may_double,
        why_not=decision.why_not,
        no_double=decision.no_double,
        double_take=decision.double_take,
        double_pass=decision.double_pass,
        answer=decision.answer,
        emg=decision.emg,
        mwc=decision.mwc,
    )


def create_app(
    nets: dict[str, Net] | None = None,
    *,
    threads: int | None = None,
    request_timeout: float = REQUEST_TIMEOUT,
) -> FastAPI:
    """The API, offering the shipped nets (``wildbg``, ``wildbg-large``) and ``nets`` by
    name (names of their own: a shipped net's name is a ``BgfastError``); ``threads``
    worker threads run the endpoints (default: anyio's 40); a request body not all sent
    within ``request_timeout`` seconds of its headers is a 408."""
    request_timeout = _check_timeout(request_timeout)
    taken = sorted(set(nets or {}) & set(SHIPPED_NETS))
    if taken:
        # A net of the caller's answering as "wildbg" would mislead every client.
        raise BgfastError(f"the net name {taken[0]!r} is a shipped net's: choose another name")
    shipped = {name: make() for name, make in SHIPPED_NETS.items()}
    offered: dict[str, Net] = {**shipped, **(nets or {})}
    if threads is not None:
        check_threads(threads)  # as every thread count: 1..MAX_THREADS

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if threads is not None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = threads
        yield

    app = FastAPI(
        lifespan=lifespan,
        dependencies=[Depends(_once_each)],
        title="bgfast",
        version=__version__,
        description=(
            "Backgammon rules and evaluation: legal moves, net evaluations, ranked plays,"
            " play checks and ID conversion. Positions are seen from the side to move."
        ),
    )

    def net_named(name: str) -> Net:
        if name not in offered:
            raise ApiError(
                f"unknown net {name!r}: this server offers {', '.join(sorted(offered))}", "net"
            )
        return offered[name]

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, error: ApiError) -> JSONResponse:
        detail = ErrorDetail(type=error.kind, message=error.message, parameter=error.parameter)
        return JSONResponse({"error": detail.model_dump()}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = error.errors()
        first = problems[0] if problems else {}
        if first.get("type") == "json_invalid":
            # its location is ("body", offset): the offset is no parameter
            where = first.get("loc", ("body", 0))[-1]
            why = (first.get("ctx") or {}).get("error", "invalid")
            message = f"the body is not JSON: {why} at character {where}"
            return JSONResponse(_error_body("ValidationError", message), status_code=422)
        # The parameter is the top-level name: pydantic's deeper locations name the members
        # of a type union ("dice.str", "dice.tuple[any, any]"), which no client sends.
        location = [x for x in first.get("loc", ()) if x not in ("query", "body")]
        parameter = str(location[0]) if location else None
        sent_as = request.headers.get("content-type", "")
        if tuple(first.get("loc", ())) == ("body",) and not _is_json_type(sent_as):
            # The body was not read as JSON at all: "body: Input should be a valid
            # dictionary" would not say why.
            message = (
                f"the body is read as JSON: send it with the header Content-Type:"
                f" application/json (or none), not {shown(sent_as)}"
            )
            return JSONResponse(_error_body("ValidationError", message), status_code=422)
        message = "; ".join(
            f"{'.'.join(str(x) for x in p.get('loc', ()) if x not in ('query', 'body')) or 'body'}"
            f": {p.get('msg', 'invalid')}"
            for p in problems
        )
        return JSONResponse(_error_body("ValidationError", message, parameter), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(error.status_code, "HTTPError")
        message = f"{error.detail}: {request.method} {request.url.path}"
        body = {"error": {"type": kind, "message": message, "parameter": None}}
        return JSONResponse(body, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        body = {"error": {"type": type(error).__name__, "message": str(error), "parameter": None}}
        return JSONResponse(body, status_code=500)

    @app.get("/moves", response_model=MovesAnswer, responses=_ERRORS, tags=["rules"])
    def moves(
        position: PositionParam,
        dice: DiceParam = None,
    ) -> JSONResponse:
        """Every distinct legal result of the position and roll, one play each (a pass is
        one result: the unchanged position, the opponent to move)."""
        read = _position(position)
        roll = _dice(dice, read)
        listed = read.position.moves(roll)
        # built to the schema here and sent as it is (no second validation of our own answer)
        return JSONResponse(
            {
                "position": read.position.id,
                "dice": roll,
                "moves": [{"move": str(m), "result": m.result.id} for m in listed],
            }
        )

    @app.get("/evaluate", response_model=EvaluateAnswer, responses=_ERRORS, tags=["nets"])
    def evaluate(
        position: PositionParam,
        net: NetParam = "wildbg",
        cube_life: CubeLifeParam = str(cubeful.DEFAULT_CUBE_LIFE),
    ) -> EvaluateAnswer:
        """The net's five probabilities and cubeless equity for the side to move, before
        it rolls (exact in the two-sided bear-off database's range, as GNU Backgammon's
        evaluation), and the cube decision for the stakes the ID gives."""
        read = _position(position)
        life = _cube_life(cube_life)
        evaluator = net_named(net)
        board = read.position.to_array()[None]
        p = bearoff.exact_chances(board, evaluator.evaluate(board))[0]
        equity = 2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4]
        return EvaluateAnswer(
            position=read.position.id,
            net=net,
            probabilities=[float(x) for x in p],
            equity=float(equity),
            cube=_cube_answer(read, p, life),
        )

    @app.get("/best", response_model=BestAnswer, responses=_ERRORS, tags=["nets"])
    def best(
        position: PositionParam,
        dice: DiceParam = None,
        net: NetParam = "wildbg",
        top: TopParam = None,
        cube_life: CubeLifeParam = str(cubeful.DEFAULT_CUBE_LIFE),
    ) -> JSONResponse:
        """The legal plays ranked by the net at the stakes the ID gives, best first, like
        GNU Backgammon's hint (``bgfast.hint``): the cubeful equity of each result for the
        side that moves, its match-winning chances in a match, the cubeless equity and the
        chances. A match score past the match equity table is a 400 (R20)."""
        read = _position(position)
        roll = _dice(dice, read)
        life = _cube_life(cube_life)
        try:
            stakes = _stakes(read)
            subject = read.position if read.state is None else read.state
            ranked = hint(net_named(net), subject, roll, stakes=stakes, cube_life=life)
        except BgfastError as e:
            raise ApiError(str(e), "position", kind=type(e).__name__) from None
        if top is not None:
            ranked = ranked[:top]
        first = ranked[0].cubeful_equity
        return JSONResponse(
            {
                "position": read.position.id,
                "dice": roll,
                "net": net,
                "stakes": stakes.describe(),
                "moves": [
                    {
                        "move": str(h.move),
                        "cubeful_equity": h.cubeful_equity,
                        "diff": h.cubeful_equity - first,
                        "mwc": h.mwc,
                        "equity": h.equity,
                        "probabilities": [float(x) for x in h.probabilities],
                        "result": h.move.result.id,
                    }
                    for h in ranked
                ],
            }
        )

    @app.post("/play", response_model=PlayAnswer, responses=_ERRORS, tags=["rules"])
    def play(request: Annotated[PlayRequest, Body()]) -> PlayAnswer:
        """Checks a play: the legal play it denotes and its result, or the rule it breaks
        (``legal: false`` with the rule id of RULES.md). Move text that is no notation at
        all is a 400."""
        read = _position(request.position, query=False)  # JSON: a space is a space
        roll = _dice(request.dice, read)
        try:
            move = read.position.parse_move(request.move, roll)
        except InvalidMoveError as e:
            raise ApiError(str(e), "move", kind="InvalidMoveError") from None
        except IllegalMoveError as e:
            rule = getattr(e, "rule", None)
            return PlayAnswer(legal=False, move=None, result=None, rule=rule, message=str(e))
        return PlayAnswer(
            legal=True, move=str(move), result=move.result.id, rule=None, message=None
        )

    @app.get("/ids", response_model=IdsAnswer, responses=_ERRORS, tags=["rules"])
    def ids(position: PositionParam) -> IdsAnswer:
        """The position in every notation bgfast writes: Position ID, GNUbg ID, XGID (none
        for a state no XGID describes) and FIBS board (gnubg's layout)."""
        read = _position(position)
        state = read.state
        assumed = state is None
        if state is None:
            try:
                state = GameState.start().replace(phase="roll", turn=1, position=read.position)
            except BgfastError as e:
                raise ApiError(str(e), "position", kind=type(e).__name__) from None
        try:
            xgid: str | None = codec.xgid_of(state)
        except BgfastError:
            xgid = None
        return IdsAnswer(
            kind=read.kind,  # type: ignore[arg-type]
            position_id=read.position.id,
            gnubg_id=codec.gnubg_id_of(state),
            xgid=xgid,
            fibs_board=codec.fibs_board_of(state),
            dice=read.dice,
            assumed=assumed,
        )

    @app.get("/health", response_model=Health, tags=["server"])
    def health() -> Health:
        """The server's version and the nets ``net=`` may name (``HEAD``: its headers)."""
        return Health(status="ok", version=__version__, nets=sorted(offered))

    # HEAD as monitors ask it (uvicorn sends the headers alone); outside the schema, where
    # a second operation of the same function would be a duplicate operation id
    app.head("/health", include_in_schema=False)(health)

    app.add_middleware(_BodyLimit, timeout=request_timeout)
    app.state.nets = sorted(offered)
    return app


def _raw_refusal(status: bytes, kind: str, message: str) -> bytes:
    """A whole HTTP answer with a JSON error, for the protocol to write before any app."""
    payload = json.dumps(_error_body(kind, message)).encode()
    return (
        b"HTTP/1.1 %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n%s" % (status, len(payload), payload)
    )


def _http_protocol(
    request_timeout: float = REQUEST_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    lingering_slots: int = LINGERING,
) -> Any:
    """uvicorn's httptools protocol refusing a request whose line and headers pass
    :data:`MAX_HEAD` bytes (431) or take ``request_timeout`` seconds to arrive (408), and
    a connection past ``max_connections`` served at once (503, as it connects: it is let
    go without a request read, and holds its file descriptor a second at most, read until
    the client closes when fewer than ``lingering_slots`` others are, else closed at once;
    it is not counted among those served); ``"auto"`` when httptools is not installed
    (uvicorn's h11 protocol, used then, has a size limit of its own, and
    ``limit_concurrency`` answers 503 in its place)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools comes with the serve extra
        return "auto"

    too_large = _raw_refusal(
        b"431 Request Header Fields Too Large",
        "RequestHeaderFieldsTooLarge",
        f"the request line and headers are longer than {MAX_HEAD} bytes",
    )
    too_slow = _raw_refusal(
        b"408 Request Timeout",
        "RequestTimeout",
        f"the request line and headers did not arrive within {_seconds(request_timeout)}",
    )
    served = [0]  # connections being served (those turned away are not)
    lingering = [0]  # connections turned away and not yet closed
    connections = "connection" if max_connections == 1 else "connections"
    too_many = _raw_refusal(
        b"503 Service Unavailable",
        "ServiceUnavailable",
        f"the server serves at most {max_connections} {connections} at once: try again later",
    )

    class LimitedHeadProtocol(HttpToolsProtocol):
        # Counted on the bytes received, before httptools sees them (it gathers a header's
        # name and value before any callback does), from the start of a request to the
        # blank line ending its headers; a body in the same read is not counted.
        head_bytes = 0
        head_tail = b""  # the last bytes of the head so far: its end may span two reads
        reading_head = True
        head_timer: asyncio.TimerHandle | None = None
        turned_away = False  # a connection past max_connections: answered, never read
        lingers = False  # turned away, and read until the client closes (a second at most)
        counted = False  # among the connections served

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            # Counted apart from uvicorn's set of connections, which holds the clients
            # turned away until they close too: five of them still lingering made a
            # server limited to two, serving none, turn the next client away.
            if served[0] >= max_connections:
                # Answered at once and let go: a slow client past the limit holds no file
                # descriptor for long. The write side is closed and what the client sends
                # is read and dropped until it closes (a second at most), so that its
                # request arriving after the close does not reset the connection before
                # it has read the answer; past lingering_slots such clients at once,
                # closed at once (the file descriptors kept free are for accepting).
                self.turned_away = True
                transport.write(too_many)
                if lingering[0] < lingering_slots and transport.can_write_eof():
                    lingering[0] += 1
                    self.lingers = True
                    transport.write_eof()
                    self.loop.call_later(1.0, transport.close)
                else:
                    transport.close()
                return
            served[0] += 1
            self.counted = True
            self.time_head()

        def time_head(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
            self.head_timer = self.loop.call_later(request_timeout, self.head_too_slow)

        def head_too_slow(self) -> None:
            if not self.reading_head or self.transport.is_closing():
                return
            if self.cycle is not None and not self.cycle.response_complete:
                self.time_head()  # an answer is under way: the next head's time starts later
                return
            self.refuse(too_slow)

        def refuse(self, answer: bytes) -> None:
            if not self.transport.is_closing():
                self.transport.write(answer)
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.turned_away:
                return
            if self.reading_head:
                seen = self.head_tail + data
                end = seen.find(b"\r\n\r\n")
                self.head_bytes += len(data) if end < 0 else end + 4 - len(self.head_tail)
                self.head_tail = seen[-3:]
                if self.head_bytes > MAX_HEAD:
                    self.refuse(too_large)
                    return
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self.reading_head = False
            if self.head_timer is not None:
                self.head_timer.cancel()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self.reading_head, self.head_bytes, self.head_tail = True, 0, b""
            self.time_head()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.lingers:
                self.lingers = False
                lingering[0] -= 1
            if self.counted:
                self.counted = False
                served[0] -= 1
            if self.head_timer is not None:
                self.head_timer.cancel()
            super().connection_lost(exc)

    return LimitedHeadProtocol


def run(
    host: str,
    port: int,
    *,
    nets: dict[str, str] | None = None,
    threads: int | None = None,
    request_timeout: float = REQUEST_TIMEOUT,
    max_connections: int | None = None,
) -> int:
    """``bgfast serve http``: loads the nets, prints the address (one line, for scripts)
    and serves until Ctrl-C or SIGTERM (then ends with status 0). A request's head, then
    its body, each have ``request_timeout`` seconds to arrive; at most ``max_connections``
    (default :func:`default_max_connections`) are served at once."""
    import uvicorn

    request_timeout = _check_timeout(request_timeout)
    if max_connections is not None:
        max_connections = _check_connections(max_connections)
    loaded = {name: load_net_file(path) for name, path in (nets or {}).items()}
    app = create_app(loaded, threads=threads, request_timeout=request_timeout)

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on
    # sockets that say they are TCP; without it every keep-alive answer waits ~40 ms for
    # a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        print(f"bgfast: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 2
    sock.listen(1024)
    bound = sock.getsockname()[1]
    # The descriptors open are counted now, with the nets loaded and the socket listening.
    free = free_descriptors()
    lowered = ""
    if max_connections is None:
        max_connections = _max_connections(free)
        if max_connections < MAX_CONNECTIONS:
            lowered = (
                f"; at most {max_connections} connections at once, for a limit of"
                f" {open_file_limit()} open files"
            )
    lingering_slots = _lingering_slots(free, max_connections)
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host  # a URL's IPv6 address
    print(
        f"bgfast serve http: listening on http://{shown_host}:{bound}"
        f" (OpenAPI schema /openapi.json, pages /docs; nets {', '.join(app.state.nets)}"
        f"{lowered})",
        flush=True,
    )
    protocol = _http_protocol(request_timeout, max_connections, lingering_slots)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=protocol,
        timeout_graceful_shutdown=STOP_GRACE,
        # the connection limit where the protocol above is not used (no httptools)
        limit_concurrency=max_connections if protocol == "auto" else None,
    )
    server = uvicorn.Server(config)

    # uvicorn stops gracefully on SIGINT and SIGTERM, then raises the signal again for the
    # handler it found: Python's own turned Ctrl-C into a KeyboardInterrupt traceback, and
    # SIGTERM's killed the process (status -15). Stopping is what was asked: this handler
    # asks uvicorn to stop (a signal before uvicorn's own handlers are in place) and the
    # run ends with status 0, as bgfast serve gnubg-external does.
    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
