"""``bgfast serve gnubg-external``: GNU Backgammon's external-player protocol.

The player's answers to board lines (rolls, doubles, takes, plays, ``Error (...)`` for a
bad line), the server over TCP (one connection after another, several at once, bad lines,
a line that never ends, a client that goes away), and the real program: gnubg plays whole
5-point matches against the server, and the match it exports is replayed against the
server's log (gnubg records an illegal reply as a dance, silently).
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gnubg_external
import pytest
from gnubg_external import board_line, state_to_act

from bgfast import Game, GameState, Net, Position, _fd_limits, cubeful
from bgfast.cubeful import DEFAULT_CUBE_LIFE, Stakes
from bgfast.serve_gnubg import (
    EVICT_IDLE,
    EVICTED,
    MAX_CONNECTIONS,
    TOO_LONG,
    TOO_MANY,
    ExternalPlayer,
    default_max_connections,
    serve,
    state_from_external_board,
    too_many,
)

import gnubg_program

# Boards gnubg 1.07.001 wrote to its external player 0 (set player 0 external): player 0's
# name and score first for a roll or a play, player 1's for a take (test_serve_gnubg_seats.py
# has lines from both seats at unequal scores).
TO_ROLL = (
    "board:gnubg:root:5:0:2:0:-1:0:0:-1:0:5:0:3:0:0:0:-5:6:0:0:0:-3:0:-5:0:0:0:0:1:0:-1"
    ":0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
TO_MOVE = (
    "board:gnubg:root:5:0:2:0:-1:0:0:-1:0:5:0:3:0:0:0:-5:6:0:0:0:-3:0:-5:0:0:0:0:1:0:-1"
    ":2:3:2:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# player 1 (root, on turn, owning the 2-cube) redoubles; player 0 is asked to answer
DOUBLED = (
    "board:root:gnubg:5:0:0:0:0:0:0:-2:0:5:3:3:0:0:1:-3:3:0:-2:0:-2:0:-4:0:0:-2:0:0:0:1"
    ":0:0:0:0:2:1:0:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)


def test_gnubgs_boards_are_read_with_player_0s_score_first_unless_a_double_waits() -> None:
    state = state_from_external_board(TO_ROLL)
    assert (state.turn, state.score, state.match_length, state.phase) == (0, (0, 2), 5, "roll")
    state = state_from_external_board(DOUBLED)
    assert state.phase == "doubled" and state.player_to_act == 0
    assert (state.cube.value, state.cube.owner, state.score) == (2, 1, (0, 0))


@pytest.mark.parametrize("policy", ["wildbg", "pubeval", "race", "random"])
def test_every_kind_of_board_is_answered(policy: str) -> None:
    player = ExternalPlayer(policy)
    assert player.reply(TO_ROLL) in ("roll", "double")
    assert player.reply(DOUBLED + "\0") in ("take", "drop")
    state = state_from_external_board(TO_MOVE)
    reply = player.reply("\0" + TO_MOVE + "\n")
    assert state.dice is not None
    state.position.play(reply, state.dice)  # legal, in gnubg's notation
    if policy == "wildbg":
        assert reply == str(Net.wildbg().best_move(state.position, state.dice))


def test_a_net_file_is_a_policy(tmp_path: Path) -> None:
    path = tmp_path / "mine.bgnet"
    Net.wildbg().save(path)
    player = ExternalPlayer(str(path))
    assert player.net is not None
    assert player.reply(TO_MOVE) == ExternalPlayer("wildbg").reply(TO_MOVE)


def test_cube_decisions_follow_the_cube_model() -> None:
    """A net doubles a position the cubeful model doubles and passes a hopeless one; net-less
    policies never double and take, except a race the doubler leads by over 12%."""
    game = Game(match_length=0, seed=5)
    game.roll((3, 1))
    game.play("8/5 6/5")
    assert ExternalPlayer("wildbg").reply(board_line(game.state)) == "roll"  # the opening
    # the side on roll far ahead in a race: a net doubles, and its opponent drops
    ahead = Position.from_array(  # 90 pips against 105: double, pass
        [[0, 0, 0, 3, 3, 3, 3, 3] + [0] * 17, [0, 0, 0, 0, 3, 3, 3, 3, 3] + [0] * 16]
    )
    race = Game.from_state(game.state.replace(position=ahead))
    wildbg = ExternalPlayer("wildbg")
    assert wildbg.reply(board_line(race.state)) == "double"
    race.double()
    doubled = board_line(race.state)
    assert state_from_external_board(doubled).player_to_act == 1 - race.state.turn
    assert wildbg.reply(doubled) == "drop"
    assert ExternalPlayer("pubeval").reply(board_line(race.state)) == "drop"  # a race lead over 12%
    assert ExternalPlayer("pubeval").reply(board_line(game.state)) == "roll"
    assert ExternalPlayer("pubeval").reply(DOUBLED) == "take"  # contact: always take


def test_a_net_plays_for_the_match_not_for_money() -> None:
    # 14/8*/5 hits for the gammon (0.914 to win, money equity +1.148); 14/5 wins 0.993.
    # Money takes the gammon; at double match point only winning counts.
    position, dice = "bD4HQwBvbgcIAA", (6, 3)
    money = state_to_act(Position.from_id(position), dice)
    assert ExternalPlayer("wildbg").reply(board_line(money)) == "14/8*/5"
    dmp = state_to_act(Position.from_id(position), dice, match_length=7, score=(6, 6))
    assert ExternalPlayer("wildbg").reply(board_line(dmp)) == "14/5"


def test_a_match_past_the_table_is_still_played() -> None:
    # gnubg plays matches to 64 points; the match equity table covers 25 away. A play then
    # has no match values: the net's best cubeless play, not an error (gnubg would stop
    # asking); a cube decision there is refused by name.
    position, dice = "m+0BARGMt2MGAA", (3, 5)
    long = state_to_act(Position.from_id(position), dice, match_length=41, score=(3, 10))
    assert ExternalPlayer("wildbg").reply(board_line(long)) == str(
        Net.wildbg().best_move(Position.from_id(position), dice)
    )
    to_roll = long.replace(phase="roll", dice=None)
    assert "R20" in ExternalPlayer("wildbg").reply(board_line(to_roll))


STAKES: list[dict[str, Any]] = [
    {},
    {"cube": (2, 0)},
    {"cube": (4, 1)},
    {"match_length": 7, "score": (2, 4)},
    {"match_length": 7, "score": (3, 5), "cube": (2, 1)},
    {"match_length": 5, "score": (4, 1), "crawford": True},
    {"match_length": 5, "score": (1, 4), "crawford": False},
]


@pytest.mark.parametrize("stakes", STAKES, ids=[str(s) for s in STAKES])
def test_a_net_plays_what_the_cube_model_values_most(stakes: dict[str, Any]) -> None:
    """Each play is the one of the highest cubeful value for the player once the opponent
    has taken its best cube action, worked out here one result at a time through the
    native model (``cubeful.decide``) from the opponent's side."""
    net, player = Net.wildbg(), ExternalPlayer("wildbg")
    for position, dice in [
        ("4HPwATDgc/ABMA", (4, 2)),
        ("m+0BARGMt2MGAA", (3, 5)),
        ("zJ3BAwSGd4MBGA", (5, 2)),
        ("WLcxBwDj7QAAOQ", (4, 3)),
        ("bD4HQwBvbgcIAA", (6, 3)),
    ]:
        state = state_to_act(Position.from_id(position), dice, **stakes)
        theirs = Stakes.of_state(state).for_opponent()
        values = {}
        for move in state.position.moves(dice):
            decision = cubeful.decide_for(net.evaluate(move.result), theirs, DEFAULT_CUBE_LIFE)
            values[str(move)] = 1 - decision.value if theirs.is_match else -decision.value
        best = max(values.values())
        assert values[player.reply(board_line(state))] == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "hello",
        "board:",
        "board:a:b",
        TO_MOVE.replace(":2:3:2:3:", ":7:3:7:3:"),  # a die of 7
        TO_MOVE.replace("board:gnubg:root:5", "board:gnubg:root:-5"),
        TO_MOVE + ":1",
        TO_MOVE.replace(":-1:0:25:", ":-1:0:0:"),  # home and bar disagree
        "board:" + ":".join(["x"] * 52),
        "\udcff\x00\x01" * 10,
        "board:a:b:" + ":".join(["0"] * 50),
    ],
)
def test_bad_lines_are_errors_not_exceptions(line: str) -> None:
    reply = ExternalPlayer("wildbg").reply(line)
    assert reply.startswith("Error (") and reply.endswith(")") and "\n" not in reply


# ------------------------------------------------------------------------- over TCP


def _exchange(address: tuple[str, int], lines: list[str]) -> list[str]:
    """Sends ``lines`` as gnubg does (newline and NUL) and reads one reply each."""
    with socket.create_connection(address, timeout=30) as sock:
        stream = sock.makefile("rb")
        replies = []
        for line in lines:
            sock.sendall(line.encode("utf-8", "surrogateescape") + b"\n\0")
            replies.append(stream.readline().decode().rstrip("\n"))
        return replies


def test_the_server_answers_connections_one_after_another_and_at_once(tmp_path: Path) -> None:
    log = tmp_path / "exchanges.jsonl"
    lines = [TO_ROLL, "frobnicate", TO_MOVE, DOUBLED, "board:" + "9" * 70000, TO_MOVE]
    want = [ExternalPlayer("wildbg").reply(x) for x in lines]
    want[4] = TOO_LONG
    with gnubg_external.Server("wildbg", log=log) as server:
        address = (server.host, server.port)
        for _ in range(2):  # one after another
            assert _exchange(address, lines) == want
        results: dict[int, list[str]] = {}

        def client(k: int) -> None:
            results[k] = _exchange(address, lines)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert results == {k: want for k in range(6)}
        # a client that goes away mid-line, and one that sends a line without end
        with socket.create_connection(address) as sock:
            sock.sendall(TO_MOVE[:40].encode())
        with socket.create_connection(address) as sock:
            sock.sendall(b"x" * 200_000)
            stream = sock.makefile("rb")
            assert stream.readline().startswith(b"Error (")
        assert _exchange(address, [TO_MOVE]) == [want[2]]
        assert server.alive()
        records = server.records()
    assert len(records) >= 8 * len(lines)
    connections = {r["connection"] for r in records}
    assert len(connections) >= 8
    assert all(set(r) >= {"time", "connection", "peer", "received", "reply", "ms"} for r in records)
    assert json.loads(log.read_text().splitlines()[0])["reply"] == want[0]


# ------------------------------------------------------------------------- the real program


def _by_connection(records: list[dict[str, object]]) -> dict[int, list[dict[str, object]]]:
    grouped: dict[int, list[dict[str, object]]] = defaultdict(list)
    for record in records:
        grouped[int(str(record["connection"]))].append(record)
    return grouped


def _server_player(records: list[dict[str, object]]) -> int:
    """Which gnubg player a connection's boards ask for: the turn field of a board with
    dice is the asked player's (-1: player 0)."""
    for record in records:
        parts = str(record["received"]).split(":")
        if parts[33] != "0":
            return 0 if parts[32] == "-1" else 1
    raise AssertionError("no play was asked")


def test_gnubg_plays_whole_matches_against_the_server() -> None:
    """Two gnubg programs at once play 5-point matches against one wildbg server (as player
    0 and as player 1); another against a pubeval server. Each exported match replays with
    every play legal and each of the server's plays the one it sent."""
    gnubg_program.require()
    with gnubg_external.Server("wildbg") as server:
        outputs: dict[int, tuple[str, str]] = {}

        def play(player: int) -> None:
            outputs[player] = gnubg_external.play_match(
                server.address, length=5, seed=11 + player, player=player
            )

        threads = [threading.Thread(target=play, args=(p,)) for p in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        records = server.records()
        assert server.alive()
    grouped = _by_connection(records)
    assert len(grouped) == 2
    for connection in grouped.values():
        player = _server_player(connection)
        output, mat = outputs[player]
        assert "has won the match" in output, output[-2000:]
        found = gnubg_external.replay(mat, player, connection)
        assert found.games >= 1 and found.server_plays >= 10
    with gnubg_external.Server("pubeval") as server:
        output, mat = gnubg_external.play_match(server.address, length=5, seed=5, player=1)
        found = gnubg_external.replay(mat, 1, server.records())
    assert "has won the match" in output
    assert found.server_plays >= 10


def test_an_unexpected_failure_is_still_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import bgfast.serve_gnubg as serve

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(serve, "choose", broken)
    assert ExternalPlayer("pubeval").reply(TO_MOVE) == "Error (internal error: RuntimeError: boom)"


# ------------------------------------------------------------------------- a full server


def _connect(address: str) -> tuple[socket.socket, Any]:
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=30)
    return sock, sock.makefile("rb")


def _ask(client: tuple[socket.socket, Any], line: str) -> str:
    sock, stream = client
    sock.sendall(line.encode() + b"\n\0")
    return str(stream.readline().decode().rstrip("\n"))


def _closed_with(client: tuple[socket.socket, Any]) -> bytes:
    """What the server sent before closing the connection (it must close it)."""
    _, stream = client
    return bytes(stream.read())


def test_when_full_the_connection_idle_the_longest_makes_room() -> None:
    """gnubg keeps its connection for a whole session: idle clients used to hold every slot
    until they closed, locking gnubg out. Now a newcomer past the limit closes the one idle
    the longest, which is told why (the line gnubg prints when it next asks)."""
    want = ExternalPlayer("pubeval").reply(TO_MOVE)
    with gnubg_external.serving(
        ExternalPlayer("pubeval"), max_connections=2, evict_idle=0
    ) as address:
        a, b = _connect(address), _connect(address)
        assert _ask(a, TO_MOVE) == want
        assert _ask(b, TO_MOVE) == want
        assert _ask(a, TO_MOVE) == want  # b is now idle the longest, though a came first
        c = _connect(address)
        assert _ask(c, TO_MOVE) == want
        assert _closed_with(b) == EVICTED.encode() + b"\n"
        assert _ask(a, TO_MOVE) == want and _ask(c, TO_MOVE) == want  # the others go on
        for sock, _ in (a, b, c):
            sock.close()


def test_a_client_that_never_sent_a_board_makes_room_first() -> None:
    """A silent client goes before a gnubg that played, even one idle for longer: a flood
    of idle connections churns through itself, not through the sessions being played."""
    want = ExternalPlayer("pubeval").reply(TO_ROLL)
    with gnubg_external.serving(
        ExternalPlayer("pubeval"), max_connections=2, evict_idle=0
    ) as address:
        playing = _connect(address)
        assert _ask(playing, TO_ROLL) == want
        silent = _connect(address)
        newcomer = _connect(address)
        assert _ask(newcomer, TO_ROLL) == want
        assert _closed_with(silent) == EVICTED.encode() + b"\n"
        latecomer = _connect(address)  # both left have played: the one idle longest goes
        assert _ask(latecomer, TO_ROLL) == want
        assert _closed_with(playing) == EVICTED.encode() + b"\n"
        assert _ask(newcomer, TO_ROLL) == want
        for sock, _ in (playing, silent, newcomer, latecomer):
            sock.close()


def test_a_connection_idle_briefly_or_being_answered_is_not_closed() -> None:
    """Below ``evict_idle`` seconds of idleness, or while its answer is worked out, a
    connection keeps its slot and the newcomer is answered TOO_MANY and let go."""
    release = threading.Event()

    class Slow(ExternalPlayer):
        def decide(self, state: GameState) -> str:
            release.wait(30)
            return super().decide(state)

    # the server's own limits, not the defaults (it said "at most 256 connections ... idle
    # 60 seconds" whatever it was told)
    full = too_many(1, 1.0).encode() + b"\n"
    assert b"at most 1 connection at once" in full and b"idle 1 second to" in full
    with gnubg_external.serving(Slow("pubeval"), max_connections=1, evict_idle=1.0) as address:
        first = _connect(address)
        first[0].sendall(TO_ROLL.encode() + b"\n\0")  # its answer waits for release
        time.sleep(1.2)  # idle long enough, but being answered
        refused = _connect(address)
        assert _closed_with(refused) == full
        release.set()
        assert first[1].readline() == b"roll\n"
        refused = _connect(address)  # idle now, but for less than a second
        assert _closed_with(refused) == full
        time.sleep(1.2)
        admitted = _connect(address)
        assert _ask(admitted, TO_ROLL) == "roll"
        assert _closed_with(first) == EVICTED.encode() + b"\n"
        for sock, _ in (first, admitted):
            sock.close()


@pytest.mark.parametrize(
    "options", [{"max_connections": 0}, {"max_connections": True}, {"evict_idle": -1.0}]
)
def test_the_limits_are_checked(options: dict[str, Any]) -> None:
    async def start() -> None:
        await serve(ExternalPlayer("pubeval"), port=0, **options)

    with pytest.raises((ValueError, TypeError)):
        asyncio.run(start())


def test_the_refusal_names_the_servers_limits() -> None:
    assert too_many(3, 0.5) == (
        "Error (the server serves at most 3 connections at once, and none has been idle"
        " 0.5 seconds to make room; try again later)"
    )
    assert too_many(MAX_CONNECTIONS, EVICT_IDLE) == TOO_MANY

    async def refused() -> bytes:
        answer = b""
        stop = asyncio.Event()
        ready = asyncio.Event()
        where: list[int] = []

        def listening(host: str, port: int) -> None:
            where.append(port)
            ready.set()

        task = asyncio.create_task(
            serve(
                ExternalPlayer("pubeval"),
                port=0,
                ready=listening,
                stop=stop,
                max_connections=2,
                evict_idle=30,
            )
        )
        await ready.wait()
        held = [await asyncio.open_connection("127.0.0.1", where[0]) for _ in range(2)]
        reader, writer = await asyncio.open_connection("127.0.0.1", where[0])
        answer = await asyncio.wait_for(reader.read(), 10)
        for _, w in [*held, (reader, writer)]:
            w.close()
        stop.set()
        await task
        return answer

    assert asyncio.run(refused()) == too_many(2, 30).encode() + b"\n"


# ------------------------------------------------------------------------- open files


def _limit_open_files(count: int) -> Callable[[], None]:
    """A ``preexec_fn`` lowering the child's limit of open files (``ulimit -n count``)."""

    def lower() -> None:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))

    return lower


def _held(count: int, port: int) -> list[tuple[socket.socket, Any]]:
    return [_connect(f"127.0.0.1:{port}") for _ in range(count)]


@pytest.mark.parametrize(
    ("limit", "open_now", "cap"),
    [
        (None, 8, MAX_CONNECTIONS),  # no limit (Windows, or unlimited)
        (1 << 20, 8, MAX_CONNECTIONS),
        (256, 8, 184),  # macOS's default: 248 free, 64 kept
        (64, 8, 28),  # 56 free, half kept
        (10, 8, 1),  # at least one
        (256, None, 256 - _fd_limits.UNCOUNTED - 64),  # descriptors not countable
    ],
)
def test_the_default_limit_leaves_descriptors_free(
    monkeypatch: pytest.MonkeyPatch, limit: int | None, open_now: int | None, cap: int
) -> None:
    monkeypatch.setattr(_fd_limits, "open_file_limit", lambda: limit)
    monkeypatch.setattr(_fd_limits, "open_descriptors", lambda: open_now)
    assert default_max_connections() == cap


@pytest.mark.skipif(sys.platform == "win32", reason="no open-file limit to lower")
def test_under_a_low_open_file_limit_the_connection_limit_still_holds() -> None:
    """Under ``ulimit -n 256`` (macOS's default) the fixed limit of 256 connections was
    never reached: accept failed first, no newcomer was answered or admitted, and asyncio
    logged thousands of tracebacks. The default limit now leaves room under the open-file
    limit, and the startup line says it was lowered."""
    command = ["-m", "bgfast", "serve", "gnubg-external", "--port", "0", "--policy", "pubeval"]
    server = subprocess.Popen(
        [sys.executable, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limit_open_files(64),
    )
    clients: list[tuple[socket.socket, Any]] = []
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.search(
            r"listening on [\d.]+:(\d+) \(policy pubeval; at most (\d+) connections at once"
            r" under the open-file limit of 64\)",
            first,
        )
        assert found, first
        port, cap = int(found.group(1)), int(found.group(2))
        assert 16 <= cap < 64 - 16
        clients = _held(cap, port)
        assert all(_ask(client, TO_ROLL) == "roll" for client in clients)  # all served
        full = too_many(cap, EVICT_IDLE).encode() + b"\n"
        for _ in range(40):  # past the limit: answered and let go, every one
            with socket.create_connection(("127.0.0.1", port), timeout=30) as extra:
                assert extra.makefile("rb").read() == full
        assert _ask(clients[0], TO_ROLL) == "roll"
    finally:
        for sock, stream in clients:
            stream.close()
            sock.close()
        server.terminate()
        _, errors = server.communicate(timeout=30)
    assert errors == ""


@pytest.mark.skipif(sys.platform == "win32", reason="no open-file limit to lower")
def test_running_out_of_file_descriptors_is_one_line_and_clients_wait() -> None:
    """Past the open-file limit (a limit of connections set above it), asyncio's accept
    fails: it logged a traceback for every attempt, a hundred a second. Now one line says
    so, the clients wait, and one is accepted once others leave."""
    code = (
        "import asyncio\n"
        "from bgfast.serve_gnubg import ExternalPlayer, serve\n"
        "def ready(host, port): print(port, flush=True)\n"
        "asyncio.run(serve(ExternalPlayer('pubeval'), port=0, ready=ready,"
        " max_connections=1000))\n"
    )
    server = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limit_open_files(40),
    )
    clients: list[tuple[socket.socket, Any]] = []
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        clients = _held(36, port)  # the last few wait in the listening queue
        assert _ask(clients[0], TO_ROLL) == "roll"
        for sock, stream in clients[:8]:
            stream.close()  # the socket is closed with its last file
            sock.close()
        assert _ask(clients[-1], TO_ROLL) == "roll"  # accepted once others left
    finally:
        for sock, stream in clients:
            stream.close()
            sock.close()
        server.kill()
        _, errors = server.communicate(timeout=30)
    lines = errors.splitlines()
    assert len(lines) == 1, errors[-2000:]
    assert "cannot accept a client (Too many open files" in lines[0]
    assert "open-file limit 40" in lines[0]
