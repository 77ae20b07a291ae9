"""``bgfast serve http``: a JSON API over HTTP for engines and web pages.

Built on FastAPI (Starlette underneath) and served by uvicorn: the OpenAPI schema is
generated from the typed endpoints themselves (``/openapi.json``, browsable at ``/docs``),
so it cannot drift from what the server does; endpoints declared ``def`` run on a thread
pool, off the event loop, and the native work they call releases the GIL while it runs.
Both are in the ``serve`` extra (``pip install 'bgfast[serve]'``).

Endpoints (a position is a GNU Backgammon Position ID, a GNUbg ID ``PositionID:MatchID``,
an XGID or a FIBS ``board:`` line; dice as ``31``, ``3-1`` or ``3,1``, or the dice the ID
holds). A ``+`` of a Position ID or Match ID sent unencoded in a query string arrives as a
space; such an ID is read with its spaces as ``+`` (their alphabet has no space), and one
that still does not read says to encode ``+`` as ``%2B``:

- ``GET /moves?position=ID&dice=31``: every distinct legal result, as ``Position.moves``
  lists them: ``{"moves": [{"move": "8/5 6/5", "result": "ID"}, ...]}``.
- ``GET /evaluate?position=ID[&net=NAME]``: the net's five probabilities and cubeless
  equity for the side to move (``wildbg`` by default; ``--net NAME=PATH`` adds nets), and
  the cube decision for the stakes the ID gives (money, centred cube for a Position ID):
  ``cube`` holds the side to move's values (the doubler's with a double waiting; per unit
  of the cube in money, match-winning chances in a match), the ``action`` and the doubled
  side's ``answer``; it is null when the ID holds dice, a resignation, beaver or raccoon is
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

Bad input is a 4xx JSON error ``{"error": {"type", "message", "parameter"}}`` naming what
is wrong (400 for a value bgfast refuses, 422 for a missing or mistyped parameter, 404 and
405 for a wrong path or method); any other failure is a 500 of the same shape, and the
server goes on answering. A request that HTTP itself cannot parse is refused by uvicorn
before the app, with its plain-text 400. Sizes are bounded: a body over :data:`MAX_BODY`
bytes is a 413 and a request line and headers over :data:`MAX_HEAD` a 431, neither read
whole; a request line and headers, or a piece of a body, not sent within
:data:`REQUEST_TIMEOUT` seconds are a 408 (JSON errors of the same shape). Ctrl-C or
SIGTERM stops the server with status 0, after the requests under way (cancelled after
:data:`STOP_GRACE` seconds).
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
from fastapi import Body, FastAPI, Query, Request
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
from bgfast._version import __version__
from bgfast.errors import InvalidIdError, shown
from bgfast.hint import hint
from bgfast.policies import SHIPPED_NETS
from bgfast.state import GameState, roll_to_play
from bgfast.vocab import ROLL_TEXT, roll_from_text

__all__ = [
    "MAX_BODY",
    "MAX_HEAD",
    "REQUEST_TIMEOUT",
    "STOP_GRACE",
    "create_app",
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

#: Seconds a client has to send a request's line and headers, and then each piece of its
#: body (a client that connects and says nothing, or sends half a request, held a connection
#: and its file descriptor forever).
REQUEST_TIMEOUT = 10

#: Seconds a stopping server waits for the requests under way (a client that sent half a
#: body would otherwise hold it forever) before it cancels them.
STOP_GRACE = 5


def _error_body(kind: str, message: str, parameter: str | None = None) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message, "parameter": parameter}}


class _BodyLimit:
    """ASGI middleware: reads a request's body up to :data:`MAX_BODY` bytes and answers a
    413 JSON error past it (a declared ``Content-Length`` is checked before reading)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or ())
        if scope["type"] != "http" or (
            b"content-length" not in headers and b"transfer-encoding" not in headers
        ):
            # No body (every GET): nothing to bound or time, and no cost on the hot path.
            await self.app(scope, receive, send)
            return
        declared = headers.get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > MAX_BODY:
            await _refuse(send, 413, "PayloadTooLarge", _TOO_LARGE)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), REQUEST_TIMEOUT)
            except asyncio.TimeoutError:
                late = f"the request body did not arrive within {REQUEST_TIMEOUT} seconds"
                await _refuse(send, 408, "RequestTimeout", late)
                return
            except asyncio.CancelledError:
                # The server stops (STOP_GRACE over) while the client still sends its body:
                # an answer, not a traceback in the server's log.
                await _refuse(send, 503, "ServiceUnavailable", "the server is stopping")
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
    a FIBS board's names); ``BgfastError`` naming what is wrong.

    With ``query`` (the text came from a URL's query string, where ``+`` decodes as a
    space), a Position ID or GNUbg ID that does not read with its spaces ignored is read
    with every space as the ``+`` it was sent as. That is unambiguous: their alphabet has
    no space and each part has a fixed length, so at most one of the two reads. XGIDs and
    FIBS boards have no ``+`` to lose."""
    try:
        return _read_position(text)
    except BgfastError as e:
        if not (query and " " in text and _may_hold_plus(text)):
            raise
        for sent in _with_plus(text):
            with contextlib.suppress(BgfastError):
                return _read_position(sent)
        raise type(e)(f"{e} ({PLUS_HINT})") from None


def _with_plus(text: str) -> list[str]:
    """``text`` with its spaces read as ``+``, each space at either end or next to the
    ``:`` taken as a lost ``+`` (an ID may start or end in one) or as a stray space."""
    ends = dict.fromkeys((text, text.lstrip(" "), text.rstrip(" "), text.strip(" ")))
    sides = [side for end in ends for side in (end, re.sub(" *: *", ":", end))]
    return [side.replace(" ", "+") for side in dict.fromkeys(sides)]


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
    if found is None:
        return Read("position_id", Position.from_id("".join(raw.split())), None, None)
    compact = "".join(raw.split())
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
    try:
        return read_position(text, query=query)
    except BgfastError as e:
        raise ApiError(str(e), "position", kind=type(e).__name__) from None


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


def _not_over(read: Read) -> None:
    if read.position.outcome is not None:
        raise ApiError(
            "the game is over: one side has borne off all 15 checkers (R15)",
            "position",
            kind="GameOverError",
        )


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
    """The cube decision of the side to move at 0 ply (Janowski's model): money values
    per unit of the cube (a double/pass is 1.0), match values as match-winning chances
    (no EMG here, unlike ``bgfast eval --json``)."""

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
    )


def create_app(nets: dict[str, Net] | None = None, *, threads: int | None = None) -> FastAPI:
    """The API, offering the shipped nets (``wildbg``, ``wildbg-large``) and ``nets`` by
    name (names of their own: a shipped net's name is a ``BgfastError``); ``threads``
    worker threads run the endpoints (default: anyio's 40)."""
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
        _not_over(read)
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
            cube=_cube_answer(read, p, life) if read.position.outcome is None else None,
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
        _not_over(read)
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
        _not_over(read)
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
        """The server's version and the nets ``net=`` may name."""
        return Health(status="ok", version=__version__, nets=sorted(offered))

    app.add_middleware(_BodyLimit)
    app.state.nets = sorted(offered)
    return app


def _raw_refusal(status: bytes, kind: str, message: str) -> bytes:
    """A whole HTTP answer with a JSON error, for the protocol to write before any app."""
    payload = json.dumps(_error_body(kind, message)).encode()
    return (
        b"HTTP/1.1 %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n%s" % (status, len(payload), payload)
    )


def _http_protocol() -> Any:
    """uvicorn's httptools protocol refusing a request whose line and headers pass
    :data:`MAX_HEAD` bytes (431) or take :data:`REQUEST_TIMEOUT` seconds to arrive (408);
    ``"auto"`` when httptools is not installed (uvicorn's h11 protocol, used then, has a
    size limit of its own)."""
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
        f"the request line and headers did not arrive within {REQUEST_TIMEOUT} seconds",
    )

    class LimitedHeadProtocol(HttpToolsProtocol):
        # Counted on the bytes received, before httptools sees them (it gathers a header's
        # name and value before any callback does), from the start of a request to the
        # blank line ending its headers; a body in the same read is not counted.
        head_bytes = 0
        head_tail = b""  # the last bytes of the head so far: its end may span two reads
        reading_head = True
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.time_head()

        def time_head(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
            self.head_timer = self.loop.call_later(REQUEST_TIMEOUT, self.head_too_slow)

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
) -> int:
    """``bgfast serve http``: loads the nets, prints the address (one line, for scripts)
    and serves until Ctrl-C or SIGTERM (then ends with status 0)."""
    import uvicorn

    loaded = {name: Net.load(path) for name, path in (nets or {}).items()}
    app = create_app(loaded, threads=threads)

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
    shown_host = f"[{host}]" if family == socket.AF_INET6 else host  # a URL's IPv6 address
    print(
        f"bgfast serve http: listening on http://{shown_host}:{bound}"
        f" (OpenAPI schema /openapi.json, pages /docs; nets {', '.join(app.state.nets)})",
        flush=True,
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=_http_protocol(),
        timeout_graceful_shutdown=STOP_GRACE,
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
