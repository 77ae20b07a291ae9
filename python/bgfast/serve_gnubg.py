"""GNU Backgammon's external-player protocol: bgfast as a player that gnubg asks for every
decision (``bgfast serve gnubg-external``).

The server listens on TCP; gnubg connects with ``set player N external HOST:PORT`` and, for
each decision of player N, writes one FIBS ``board:`` line (ended by a newline and a NUL
byte). The server answers one line: ``roll`` or ``double`` when no dice are on the board,
``take`` or ``drop`` when a double waits, else the play in gnubg's notation (``8/5 6/5``,
``bar/22*``, ``6/off``; an empty line for a roll that cannot be played). A line it cannot
read is answered ``Error (...)`` (gnubg then stops asking) and the connection stays open.
Connections are served at once and one after another; the work of each answer runs on a
thread pool, off the event loop (the native parts release the GIL). Ctrl-C or SIGTERM
closes the connections still open and ends the server with status 0.

How many connections: gnubg opens one connection per external player when told ``set
player N external`` and keeps it for the whole session, silent between its questions for
as long as its other player (a human, a deep gnubg) thinks. So the server never closes a
connection for being idle while there is room: it serves up to :data:`MAX_CONNECTIONS` at
once, fewer when the process may open fewer files (each connection holds a file
descriptor; :func:`default_max_connections`, and the line the server prints on starting
says so). When a client comes past that, the server closes a connection that has been
idle at least :data:`EVICT_IDLE` seconds and is not being answered, to admit it: one that
never sent a board first (a client that connected and went quiet), whatever its idle
time, else the one idle the longest. The closed connection is sent :data:`EVICTED` first:
gnubg prints that line when it next asks, and a new ``set player N external`` connects it
again. Only when no connection may be closed is the newcomer answered :func:`too_many`
(naming the server's limits) and let go. Idle clients therefore cannot lock gnubg out for
longer than :data:`EVICT_IDLE` seconds; a client that keeps sending boards holds its
slot, as a playing gnubg does. Should the process run out of descriptors all the same,
clients wait to be accepted and one line on stderr says so (once a minute at most).

How the server decides (:class:`ExternalPlayer`):

- **Plays, with a net**: the result worth the most to the player once the opponent, on
  roll next, has taken its best cube action: the net's chances of each result through the
  cube model below at the board's stakes (cubeful money equity, or match-winning chances
  in a match, so a play at double match point wins the most games and one at gammon-go
  scores goes for the gammon), as :func:`bgfast.analyse` values plays.
- **Plays, without a net**: the policy's own choice (:func:`bgfast.policies.choose`):
  pubeval, race and random as in rollouts.
- **Cube, with a net** (wildbg or a ``.bgnet`` file): the net's chances of the side on roll
  (before the roll) through Janowski's cubeful model (:func:`bgfast.cubeful.decide`, money
  or match play from the board's match length, score, cube and Crawford flag): double when
  the model says "double" or "redouble" (not when too good), take when the doubler's
  double/take value is below its double/pass value. In the two-sided bear-off database's
  range, plays and cube decisions are valued exactly, as GNU Backgammon values them
  (:func:`bgfast.cubeful.exact_bearoff_values`).
- **Cube, without a net** (pubeval, race, random): never double; take, except in a race
  (contact broken) where the doubler leads by more than 12% of its own pip count: the take
  point of the 8-9-12 rule of thumb for races.

The boards are read by :func:`bgfast.codec.state_from_fibs_board`, with one correction for
gnubg's external-player writer (:func:`state_from_external_board`), verified against the
lines gnubg 1.07.001 (Debian's package) writes to either seat: its board, cube and turn
fields are always laid out from player 1's side, but it writes the name and score of
player 0 first when it asks for a roll, a double or a play, and player 1's first when it
asks for a take or a drop (gnubg's ``ap[fTurn ^ fMove]``), whichever player the server
is; so the two scores are swapped before reading unless a double waits. gnubg 1.04.001
(play.c rev. 1.434, December 2014) wrote the name and score of the player on roll first
(``ap[fMove]``). The one change to the external interface's behaviour in gnubg's ChangeLog
between the two is "Fix problem with erroneous decisions generated when using the
external interface" (2015-06-26, play.c and drawboard.c), first released in 1.05.001; so
the layout read here is most likely that of 1.05.001 and later (only 1.07.001 was run).

With ``log``, each exchange is appended to a file as one JSON line (time, connection,
peer, received, reply, milliseconds); a log that cannot be written any more is given up
with a warning, and the games go on.

Not covered: beavers in money sessions. A board says that a double waits but not who is
asked, and the server reads it as the opponent's double (R18: the doubler is the side on
roll); gnubg asks the doubler again after a beaver. Play matches, or money with beavers
off (gnubg: ``set beavers 0``). Resignations never reach an external player: gnubg answers
them itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import itertools
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any, TextIO

from bgfast import _fd_limits, batch, bearoff, cubeful
from bgfast._core import BgfastError, Move, Net, check_int, check_threads
from bgfast.codec import FibsBoard, state_from_fibs_board
from bgfast.errors import MatchOptionError
from bgfast.hint import hint
from bgfast.policies import (
    NAMES,
    Policy,
    check_policy,
    choose,
    load_net_file,
    net_of,
    policy_name,
)
from bgfast.state import GameState
from bgfast.vocab import check_flag

__all__ = [
    "EVICTED",
    "EVICT_IDLE",
    "MAX_CONNECTIONS",
    "MAX_LINE",
    "RACE_TAKE_LEAD",
    "STOP_GRACE",
    "TOO_LONG",
    "TOO_MANY",
    "ExchangeLog",
    "ExternalPlayer",
    "default_max_connections",
    "serve",
    "state_from_external_board",
    "too_many",
]

#: Net-less policies pass a double in a race when the doubler leads by more than this
#: fraction of its own pip count (the 8-9-12 rule's take point).
RACE_TAKE_LEAD = 0.12

#: The longest line read (a board line is about 150 bytes).
MAX_LINE = 1 << 16

#: The answer to a longer line (given once; the rest of the line is skipped).
TOO_LONG = f"Error (a line longer than {MAX_LINE} bytes)"

#: The most connections served at once by default (gnubg opens one per external player),
#: fewer under a lower limit of open files (:func:`default_max_connections`): each holds a
#: file descriptor, and once they are used up asyncio accepts no one, so that the server
#: can neither answer a newcomer nor make room for it.
MAX_CONNECTIONS = 256

#: Seconds a connection must have been idle (no line received or answered) before it may
#: be closed to admit a client past the server's limit of connections.
EVICT_IDLE = 60.0


def _count(number: float, unit: str) -> str:
    """``1 connection``, ``2 connections``, ``0.5 seconds``."""
    return f"{number:g} {unit}" if number == 1 else f"{number:g} {unit}s"


def too_many(max_connections: int, evict_idle: float) -> str:
    """The answer to a client past ``max_connections`` when no connection may be closed
    for it (all answering, or idle less than ``evict_idle`` seconds); the client is let
    go. The server sends it with its own limits."""
    return (
        f"Error (the server serves at most {_count(max_connections, 'connection')} at once,"
        f" and none has been idle {_count(evict_idle, 'second')} to make room; try again"
        " later)"
    )


#: :func:`too_many` at the default limits, :data:`MAX_CONNECTIONS` and :data:`EVICT_IDLE`
#: (a server with other limits, or whose limit the open files lower, names its own).
TOO_MANY = too_many(MAX_CONNECTIONS, EVICT_IDLE)

#: Sent to the connection closed to admit a new client (the one idle the longest).
EVICTED = (
    "Error (the server was full and closed this connection, idle the longest, to serve a"
    " new client; connect again: set player N external)"
)

#: Seconds a stopping server waits for the answers being worked out.
STOP_GRACE = 5.0

#: How many seeds the random policy's dice stream takes (64 bits).
_SEEDS = 1 << 64

#: The errors of an ``accept`` that lacks resources (asyncio's list): the process's open
#: files used up (``EMFILE``), the system's (``ENFILE``), or memory.
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


#: The clients asyncio accepts in one go, and the length of the kernel's queue of clients
#: waiting to be accepted (asyncio's default for both is 100). Each accepted client holds
#: a descriptor for a few turns of the event loop before the server counts or refuses it:
#: a hundred at once ran past the margin :func:`default_max_connections` keeps free under
#: ``ulimit -n 256``. A flooding client waits longer to connect; gnubg, connecting once
#: per session, does not.
_ACCEPT_BATCH = 16


def default_max_connections() -> int:
    """:data:`MAX_CONNECTIONS`, or fewer when the process may open fewer files: its limit
    of open files (``ulimit -n``; macOS's default is 256) less the descriptors open now,
    less a margin for the clients accepted past the limit to be answered or to take an
    idle connection's place (:func:`bgfast._fd_limits.connection_cap`); at least 1."""
    return _fd_limits.connection_cap(MAX_CONNECTIONS)


def state_from_external_board(line: str) -> GameState:
    """The state of a board line as gnubg writes it to an external player.

    gnubg's writer (1.07.001, ``ComputerTurn`` in play.c) lays the board out the same way for
    every question: player 1's checkers positive, seen from player 1 (colour 1, direction
    -1), the turn field +1 when player 1 is on roll (the doubler while a double waits),
    the "may double" flags player 1's then player 0's, the dice of the roll twice, "was
    doubled" 1 whoever doubled. Only the names and scores move: gnubg writes those of its
    player ``fTurn ^ fMove`` first (the player asked, xor the player on roll), so player
    0's first for a roll, double or play question and player 1's first for a take or drop
    question, whichever player the external one is. :func:`~bgfast.codec.state_from_fibs_board`
    reads the first score as player 1's ("you"), so the two scores are swapped before
    reading unless a double waits. The state's players are gnubg's players 0 and 1. (gnubg
    1.04.001 and older wrote the player on roll's first: see the module's documentation.)"""
    board = FibsBoard.parse(line)
    if not board.was_doubled:
        parts = line.strip().split(":")
        parts[4], parts[5] = parts[5], parts[4]
        line = ":".join(parts)
    return state_from_fibs_board(line)


def _error(message: str) -> str:
    """An ``Error (...)`` answer: one line, at most about 300 characters of message."""
    text = " ".join(message.split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"Error ({text})"


def _owner(state: GameState, side: int) -> str:
    """The cube's owner as the cube model names it, seen from ``side``."""
    owner = state.cube.owner
    if owner is None:
        return "centred"
    return "mover" if owner == side else "opponent"


class ExternalPlayer:
    """The decisions of one policy for gnubg's board lines; :meth:`reply` answers a line.

    ``policy`` is a policy name (``"wildbg"``, ``"pubeval"``, ``"race"``, ``"random"``), a
    :class:`~bgfast.Net` or a net file's path. ``jacoby`` applies the Jacoby rule to money
    games (a board does not say; gnubg's money sessions use it by default). ``seed`` (0 to
    2**64 - 1) starts the random policy's draws, one more for each play. Thread-safe: a
    server's connections share one player.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        jacoby: bool = False,
        cube_life: cubeful.CubeLife = cubeful.DEFAULT_CUBE_LIFE,
        seed: int = 0,
    ) -> None:
        if isinstance(policy, str) and policy not in NAMES:
            policy = load_net_file(policy)
        self.policy: Policy = check_policy(policy)
        self.net: Net | None = net_of(policy)
        self.jacoby = check_flag("jacoby", jacoby)  # bool("no") would be True
        self.cube_life = cubeful.check_cube_life(cube_life)
        self.seed = check_int("seed", seed, 0, _SEEDS - 1)
        self._draws = itertools.count()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The policy's name (``"wildbg"`` for the shipped net)."""
        return policy_name(self.policy)

    def reply(self, line: str) -> str:
        """The answer to one line from gnubg (without the newline); ``Error (...)`` naming
        what is wrong for a line that is not a board the player can answer. Never raises
        for bad input (a line that is not a ``str`` is a ``TypeError``)."""
        if not isinstance(line, str):
            raise TypeError(f"a line is a str, not {type(line).__name__}")
        text = line.replace("\0", "").strip()
        try:
            if not text.startswith("board:"):
                shown = text if len(text) <= 60 else text[:57] + "..."
                raise BgfastError(f"expected a FIBS board line (board:...), not {shown!r}")
            return self.decide(state_from_external_board(text))
        except BgfastError as error:
            return _error(str(error))
        except Exception as error:  # a bug: still an answer, and the server goes on
            return _error(f"internal error: {type(error).__name__}: {error}")

    def decide(self, state: GameState) -> str:
        """The reply to a game state: the player to act is the one gnubg asks."""
        if state.phase == "doubled":
            return "take" if self._takes(state) else "drop"
        if state.phase == "roll":
            return "double" if self._doubles(state) else "roll"
        if state.phase == "move":
            return str(self._play(state))
        raise BgfastError(f"nothing to decide in phase {state.phase!r}")

    def _stakes(self, state: GameState) -> cubeful.Stakes:
        """The stakes of the side on roll (the Jacoby rule as the server was told: a board
        does not say)."""
        assert state.turn is not None
        turn = state.turn
        return cubeful.Stakes.check(
            cube=(state.cube.value, _owner(state, turn)),
            jacoby=self.jacoby and state.match_length == 0,
            match_length=state.match_length,
            score=(state.score[turn], state.score[1 - turn]),
            crawford=state.crawford if state.match_length else None,
        )

    def _play(self, state: GameState) -> Move:
        """The play for the dice on the board: with a net, the one whose result is worth
        the most to the player after the opponent's best cube action, by the cube model at
        the board's stakes (:func:`bgfast.hint`); else the policy's."""
        assert state.dice is not None
        if self.net is None:
            with self._lock:
                # Round the seeds: a long session from a high seed must not run past them.
                seed = (self.seed + next(self._draws)) % _SEEDS
            return choose(self.policy, state.position, state.dice, seed=seed)
        try:
            stakes = self._stakes(state)
        except MatchOptionError:
            # A score past the match equity table (R20; gnubg plays matches to 64 points):
            # no match values, so the net's best cubeless play rather than no play at all.
            return self.net.best_move(state.position, state.dice)
        return hint(self.net, state, stakes=stakes, cube_life=self.cube_life)[0].move

    def _decision(self, state: GameState) -> cubeful.CubeDecision | None:
        """The cube model's decision for the side on roll (the doubler), or ``None``
        without a net."""
        if self.net is None:
            return None
        # Exact in the two-sided bear-off database's range, as hint's plays are.
        board = batch.to_array([state.position])
        probabilities = bearoff.exact_chances(board, self.net.evaluate(board))[0]
        return cubeful.decide_for(
            probabilities, self._stakes(state), self.cube_life, position=state.position
        )

    def _doubles(self, state: GameState) -> bool:
        if state.why_not_double() is not None:
            return False
        decision = self._decision(state)
        if decision is None or not decision.may_double:
            return False
        return decision.action.startswith(("double", "redouble"))

    def _takes(self, state: GameState) -> bool:
        decision = self._decision(state)
        if decision is not None:
            return decision.answer == "take"  # never "beaver": no beavers here (see above)
        position = state.position  # the doubler is on roll
        if not position.is_race:
            return True
        doubler, taker = position.pips
        return taker - doubler <= RACE_TAKE_LEAD * doubler


class ExchangeLog:
    """Appends one JSON line per exchange to a file (``--log``); safe across threads.

    A log that cannot be written any more (a full disk, a removed device) is given up with
    one warning on ``sys.stderr``: the log serves the games, and gnubg still gets its
    answers."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._file: TextIO = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        self._lock = threading.Lock()
        self.failed: OSError | None = None  # why the log was given up

    def write(self, **record: Any) -> None:
        """Writes ``record`` with the time (UTC, ISO 8601) first."""
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        line = json.dumps({"time": now, **record}, ensure_ascii=False)
        with self._lock:
            if self.failed is not None:
                return
            try:
                self._file.write(line + "\n")
            except OSError as error:
                self.failed = error
                print(
                    f"bgfast: cannot write the log {self.path} ({error.strerror or error});"
                    " serving on without it",
                    file=sys.stderr,
                    flush=True,
                )

    def close(self) -> None:
        """Closes the file (what it cannot write any more is lost, as warned)."""
        with self._lock, contextlib.suppress(OSError):
            self._file.close()


class _Connection:
    """One client as the server keeps it: when it was last active, whether an answer is
    being worked out for it, and whether it ever sent a board (the order in which idle
    connections are closed to admit new ones)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.last = time.monotonic()  # the last line received or answer sent
        self.answering = False
        self.boards = 0  # board lines answered

    def evict(self) -> None:
        """Closes the connection to make room, :data:`EVICTED` sent first (dropped, with
        the connection, when the client reads nothing and our sending buffer is full)."""
        transport = self.writer.transport
        with contextlib.suppress(Exception):
            if transport.get_write_buffer_size():
                transport.abort()
                return
            self.writer.write(EVICTED.encode() + b"\n")
            transport.close()  # after sending what is written
            # a client that reads nothing must not keep it open, waiting to be sent
            asyncio.get_running_loop().call_later(STOP_GRACE, transport.abort)


def _to_evict(connections: Iterable[_Connection], min_idle: float) -> _Connection | None:
    """The connection to close for a newcomer: of those not being answered and idle for at
    least ``min_idle`` seconds, one that never sent a board before one that did, the one
    idle the longest first; ``None`` when there is none."""
    now = time.monotonic()
    idle = [c for c in connections if not c.answering and now - c.last >= min_idle]
    return min(idle, key=lambda c: (c.boards > 0, c.last), default=None)


async def _answer(
    player: ExternalPlayer,
    pool: concurrent.futures.Executor,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    connection: int,
    log: ExchangeLog | None,
    state: _Connection,
) -> None:
    """Answers the lines of one connection until gnubg closes it (``state``: where its
    activity is kept)."""
    loop = asyncio.get_running_loop()
    peer = writer.get_extra_info("peername")
    peer_text = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
    buffer = b""
    skipping = False  # the rest of a line too long to read, answered already

    async def too_long(start: bytes) -> None:
        writer.write(TOO_LONG.encode() + b"\n")
        await writer.drain()
        if log is not None:
            shown = start[:60].decode("utf-8", errors="replace") + "..."
            log.write(connection=connection, peer=peer_text, received=shown, reply=TOO_LONG, ms=0)

    try:
        while True:
            chunk = await reader.read(1 << 14)
            if not chunk:
                break
            state.last = time.monotonic()
            buffer += chunk
            while True:
                end = buffer.find(b"\n")
                if end < 0:
                    if len(buffer) > MAX_LINE:
                        start, buffer = buffer[:60], b""
                        if not skipping:
                            skipping = True
                            await too_long(start)
                    break
                raw, buffer = buffer[:end], buffer[end + 1 :]
                if skipping or len(raw) > MAX_LINE:
                    if not skipping:
                        await too_long(raw)
                    skipping = False
                    continue
                text = raw.replace(b"\0", b"").decode("utf-8", errors="replace").strip()
                if not text:
                    continue  # the NUL that ends gnubg's previous write, or a blank line
                if text in ("exit", "quit"):
                    return
                started = time.perf_counter()
                state.answering = True
                try:
                    reply = await loop.run_in_executor(pool, player.reply, text)
                finally:
                    state.answering = False
                state.boards += text.startswith("board:")
                writer.write(reply.encode() + b"\n")
                state.last = time.monotonic()
                await writer.drain()
                if log is not None:
                    log.write(
                        connection=connection,
                        peer=peer_text,
                        received=text,
                        reply=reply,
                        ms=round((time.perf_counter() - started) * 1000, 3),
                    )
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
            await writer.wait_closed()


async def serve(
    player: ExternalPlayer,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    log: ExchangeLog | None = None,
    threads: int | None = None,
    ready: Callable[[str, int], object] | None = None,
    stop: asyncio.Event | None = None,
    max_connections: int | None = None,
    evict_idle: float | None = None,
) -> None:
    """Serves gnubg's connections on ``host:port`` (0: a free port) until ``stop`` is set
    (or forever); ``ready(host, port)`` is called once listening. At most
    ``max_connections`` at once (default :func:`default_max_connections`): a client past
    them is admitted by closing an idle connection (never-played ones first, then the one
    idle the longest) if one has been idle at least ``evict_idle`` seconds (default
    :data:`EVICT_IDLE`), else answered :func:`too_many` with these limits and let go (see
    the module's documentation). When the process runs out of file descriptors all the
    same (other files, a ``max_connections`` past the limit), clients wait to be accepted,
    one line on ``sys.stderr`` says so and asyncio tries again each second. On stopping,
    the connections still open are closed (their answers being worked out are given
    :data:`STOP_GRACE` seconds)."""
    limit = check_int(
        "max_connections",
        default_max_connections() if max_connections is None else max_connections,
        1,
        1 << 20,
    )
    min_idle = EVICT_IDLE if evict_idle is None else evict_idle
    if not isinstance(min_idle, (int, float)) or not 0 <= min_idle < float("inf"):
        raise ValueError(f"evict_idle is a number of seconds >= 0, not {min_idle!r}")
    refusal = too_many(limit, min_idle).encode() + b"\n"
    workers = min(8, (os.cpu_count() or 2) + 2) if threads is None else check_threads(threads)
    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=workers, thread_name_prefix="bgfast-external"
    )
    connections = itertools.count(1)
    open_connections: dict[asyncio.Task[Any], _Connection] = {}
    closing: dict[asyncio.Task[Any], _Connection] = {}  # evicted, their handlers ending
    starved = [False]  # accept has failed for want of descriptors since the last success
    said = [-float("inf")]  # when that was last said (once a minute at most)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # asyncio serves each connection in a task of its own
        starved[0] = False
        if len(open_connections) >= limit:
            victim = _to_evict(open_connections.values(), min_idle)
            if victim is None:
                with contextlib.suppress(Exception):
                    writer.write(refusal)
                    writer.close()  # sends what is written, then closes
                    await writer.wait_closed()
                return
            # no longer counted; its handler ends once its connection is closed
            for other, kept in list(open_connections.items()):
                if kept is victim:
                    closing[other] = open_connections.pop(other)
            victim.evict()
        state = _Connection(writer)
        open_connections[task] = state
        try:
            await _answer(player, pool, reader, writer, next(connections), log, state)
        finally:
            open_connections.pop(task, None)
            closing.pop(task, None)

    loop = asyncio.get_running_loop()
    try:
        server = await asyncio.start_server(
            handle, host, port, limit=MAX_LINE, backlog=_ACCEPT_BATCH
        )
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    listening = {sock.fileno() for sock in server.sockets}
    previous_handler = loop.get_exception_handler()

    def on_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # asyncio logs a traceback for every accept that fails for want of descriptors
        # (thousands in a few seconds of a flood); one line says it here, once until a
        # client is accepted again and once a minute at most. asyncio itself stops
        # accepting for a second after each failure, and the clients wait in the queue.
        error, sock = context.get("exception"), context.get("socket")
        if (
            isinstance(error, OSError)
            and error.errno in _OUT_OF_RESOURCES
            and sock is not None
            and sock.fileno() in listening
        ):
            if not starved[0] and time.monotonic() - said[0] >= 60:
                said[0] = time.monotonic()
                files = _fd_limits.open_file_limit()
                print(
                    f"bgfast serve gnubg-external: cannot accept a client"
                    f" ({error.strerror or error}; {len(open_connections)} connections"
                    f" open{'' if files is None else f', open-file limit {files}'});"
                    " it waits, and accepting is tried again each second",
                    file=sys.stderr,
                    flush=True,
                )
            starved[0] = True
            return
        if previous_handler is not None:
            previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(on_error)
    try:
        bound = server.sockets[0].getsockname()
        if ready is not None:
            ready(str(bound[0]), int(bound[1]))
        if stop is None:
            await server.serve_forever()
        else:
            await stop.wait()
    finally:
        # Let go of the clients still connected (an idle gnubg between games, a client that
        # went quiet): left open, Python 3.12's Server.wait_closed waits for them forever,
        # and the handlers asyncio.run cancels print a traceback each. abort(): a client
        # that reads nothing must not hold the shutdown on its unsent answer.
        server.close()
        tasks = [*open_connections, *closing]
        for kept in [*open_connections.values(), *closing.values()]:
            kept.writer.transport.abort()
        if tasks:
            await asyncio.wait(tasks, timeout=STOP_GRACE)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(server.wait_closed(), STOP_GRACE)
        pool.shutdown(wait=False, cancel_futures=True)
        if loop.get_exception_handler() is on_error:
            loop.set_exception_handler(previous_handler)


def run(
    policy: Policy,
    host: str,
    port: int,
    *,
    log_path: str | None = None,
    jacoby: bool = False,
    threads: int | None = None,
    cube_life: cubeful.CubeLife = cubeful.DEFAULT_CUBE_LIFE,
) -> int:
    """``bgfast serve gnubg-external``: serves until Ctrl-C or SIGTERM; prints the address
    it listens on (one line, for scripts) first."""
    player = ExternalPlayer(policy, jacoby=jacoby, cube_life=cube_life)
    try:
        log = ExchangeLog(log_path) if log_path else None
    except OSError as error:
        print(f"bgfast: cannot open the log {log_path}: {error.strerror or error}", file=sys.stderr)
        return 2

    cap = [MAX_CONNECTIONS]

    def ready(bound_host: str, bound_port: int) -> None:
        lowered = ""
        if cap[0] < MAX_CONNECTIONS:
            lowered = (
                f"; at most {_count(cap[0], 'connection')} at once under the open-file"
                f" limit of {_fd_limits.open_file_limit()}"
            )
        print(
            f"bgfast serve gnubg-external: listening on {bound_host}:{bound_port}"
            f" (policy {player.name}{lowered}); gnubg: set player N external"
            f" {bound_host}:{bound_port}",
            flush=True,
        )

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        cap[0] = default_max_connections()  # with the event loop's descriptors open
        await serve(
            player,
            host,
            port,
            log=log,
            threads=threads,
            ready=ready,
            stop=stop,
            max_connections=cap[0],
        )

    try:
        asyncio.run(main())
    except OSError as error:
        print(f"bgfast: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 2
    finally:
        if log is not None:
            log.close()
    return 0
