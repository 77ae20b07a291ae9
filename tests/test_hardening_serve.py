"""A third adversarial pass over bgfast as a server and as a command: each test failed before
its fix.

``bgfast serve gnubg-external``: a log that cannot be opened or written, clients still
connected when the server is stopped, more clients than the server can hold. ``bgfast serve
http``: bodies and request heads of any size, clients that stall, JSON that does not parse,
type unions in the error's parameter, thread counts, stopping with clients connected or
half a request sent, the address printed for an IPv6 host. The command line: output that
cannot be written, Ctrl-C.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gnubg_external
import pytest
from http_server import HttpServer

from bgfast import BgfastError, cli
from bgfast import serve_gnubg as gnubg
from bgfast.serve_gnubg import ExternalPlayer, too_many

TO_MOVE = (
    "board:gnubg:root:5:0:2:0:-1:0:0:-1:0:5:0:3:0:0:0:-5:6:0:0:0:-3:0:-5:0:0:0:0:1:0:-1"
    ":2:3:2:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
START = "4HPwATDgc/ABMA"
MATCH = Path(__file__).parent / "data" / "matches" / "noisy_5pt_seed11.mat"
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def _bgfast(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bgfast", *args], capture_output=True, text=True, timeout=timeout
    )


def _ask(sock: socket.socket, line: str) -> bytes:
    sock.sendall(line.encode() + b"\n\0")
    return sock.makefile("rb").readline()


def _stops_cleanly(process: subprocess.Popen[str], sig: int, within: float) -> str:
    """Sends ``sig`` and returns the process's stderr once it has ended with status 0 in
    ``within`` seconds."""
    started = time.monotonic()
    process.send_signal(sig)
    try:
        _, err = process.communicate(timeout=within + 10)
    except subprocess.TimeoutExpired:  # pragma: no cover - the defect
        process.kill()
        raise AssertionError(f"the server did not stop on signal {sig}") from None
    assert time.monotonic() - started < within
    assert process.returncode == 0, err
    assert "Traceback" not in err, err
    return err


# ------------------------------------------------------------------------- gnubg-external


@pytest.mark.parametrize("log", ["/nonexistent/dir/exchanges.jsonl", "."])
def test_a_log_that_cannot_be_opened_is_one_line(log: str) -> None:
    done = _bgfast("serve", "gnubg-external", "--policy", "pubeval", "--log", log)
    assert done.returncode == 2
    assert done.stderr.startswith(f"bgfast: cannot open the log {log}: ")
    assert len(done.stderr.splitlines()) == 1


@needs_dev_full
def test_a_log_that_cannot_be_written_does_not_cut_gnubg_off() -> None:
    """A full disk under the log closed the connection after each answer (gnubg lost its
    external player) and made the server's exit a traceback; now it warns once and serves
    on."""
    server = gnubg_external.Server("pubeval", log="/dev/full")
    want = ExternalPlayer("pubeval").reply(TO_MOVE).encode() + b"\n"
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        assert [_ask(sock, TO_MOVE) for _ in range(3)] == [want] * 3
    err = _stops_cleanly(server.process, signal.SIGTERM, within=10)
    assert err.count("cannot write the log /dev/full") == 1, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_server_stops_with_clients_connected(sig: int) -> None:
    """Each client still connected on Ctrl-C or SIGTERM printed a CancelledError traceback
    (Python 3.11; on 3.12 the server waited for them forever); they are let go."""
    server = gnubg_external.Server("pubeval")
    address = (server.host, server.port)
    idle = [socket.create_connection(address, timeout=30) for _ in range(3)]
    half = socket.create_connection(address, timeout=30)
    half.sendall(TO_MOVE[:40].encode())
    deaf = socket.create_connection(address, timeout=30)  # asks, never reads
    deaf.sendall((TO_MOVE + "\n").encode() * 2000)
    talking = socket.create_connection(address, timeout=30)
    assert _ask(talking, TO_MOVE).startswith(b"24/")
    time.sleep(0.3)
    assert _stops_cleanly(server.process, sig, within=gnubg.STOP_GRACE) == ""
    for sock in [*idle, half, deaf, talking]:
        sock.close()


class _InProcess:
    """:func:`bgfast.serve_gnubg.serve` on a thread of its own, stopped on leaving."""

    def __init__(self, player: ExternalPlayer) -> None:
        self.player = player
        self.address: tuple[str, int] | None = None
        self.loop = asyncio.new_event_loop()
        self.listening = threading.Event()
        self.error: BaseException | None = None

    def __enter__(self) -> _InProcess:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.listening.wait(30), self.error
        return self

    def _run(self) -> None:
        async def main() -> None:
            self.stop = asyncio.Event()

            def ready(host: str, port: int) -> None:
                self.address = (host, port)
                self.listening.set()

            await gnubg.serve(self.player, ready=ready, stop=self.stop)

        try:
            self.loop.run_until_complete(main())
        except BaseException as error:  # pragma: no cover - reported by __exit__
            self.error = error
            self.listening.set()

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(timeout=gnubg.STOP_GRACE + 10)
        assert not self.thread.is_alive(), "serve() did not return"
        assert self.error is None, self.error
        self.loop.close()


def test_stopping_closes_the_connections_still_open() -> None:
    """serve() returns when stopped with clients connected, and they see the end."""
    with _InProcess(ExternalPlayer("pubeval")) as served:
        assert served.address is not None
        client = socket.create_connection(served.address, timeout=30)
        assert _ask(client, TO_MOVE).startswith(b"24/")
    assert client.recv(100) == b""  # closed by the server
    client.close()


def test_clients_beyond_the_bound_are_refused_not_left_hanging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every client took a file descriptor: at the process's limit asyncio accepted no one,
    logging a traceback a second. Past MAX_CONNECTIONS (the default limit, or fewer under
    a low open-file limit) a client is answered, naming the limits, and let go."""
    monkeypatch.setattr(gnubg, "MAX_CONNECTIONS", 2)
    with _InProcess(ExternalPlayer("pubeval")) as served:
        assert served.address is not None
        first, second = (socket.create_connection(served.address, timeout=30) for _ in "12")
        assert _ask(first, TO_MOVE).startswith(b"24/")
        assert _ask(second, TO_MOVE).startswith(b"24/")
        with socket.create_connection(served.address, timeout=30) as third:
            stream = third.makefile("rb")
            assert stream.readline() == too_many(2, gnubg.EVICT_IDLE).encode() + b"\n"
            assert stream.read() == b""
        first.close()
        time.sleep(0.2)
        with socket.create_connection(served.address, timeout=30) as fourth:
            assert _ask(fourth, TO_MOVE).startswith(b"24/")
        second.close()


# ------------------------------------------------------------------------- http


class _Http(HttpServer):
    """The server, asked over raw sockets."""

    def play(self, body: bytes, headers: bytes = b"") -> tuple[int, Any]:
        """``POST /play`` with ``body`` as it is, and ``headers``."""
        head = (
            b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n%s" % (len(body), headers)
        )
        return self.exchange(head, body)

    def answers(self) -> bool:
        status, _ = self.exchange(b"GET /moves?position=4HPwATDgc/ABMA&dice=31 HTTP/1.1\r\nHost: x")
        return status == 200


@pytest.fixture(scope="module")
def http() -> Iterator[_Http]:
    server = _Http()
    yield server
    assert server.process.poll() is None, "the server died"
    _stops_cleanly(server.process, signal.SIGTERM, within=10)


PLAY = {"position": START, "dice": "31", "move": "8/5 6/5"}


def test_a_body_too_large_is_refused_unread(http: _Http) -> None:
    """A 400 MB body was held in memory whole before the app refused it; now 413 after at
    most MAX_BODY bytes, declared or chunked."""
    from bgfast.serve_http import MAX_BODY

    padded = json.dumps({**PLAY, "pad": "x" * (MAX_BODY - 200)}).encode()
    assert http.play(padded)[0] == 200  # under the bound, with its headers
    status, body = http.play(json.dumps({**PLAY, "pad": "x" * MAX_BODY}).encode())
    assert status == 413 and body["error"]["type"] == "PayloadTooLarge"
    head = (
        b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 400000000"
    )
    assert http.exchange(head, b" " * (1 << 20))[0] == 413
    chunked = b"".join(b"10000\r\n" + b" " * 0x10000 + b"\r\n" for _ in range(4))
    head = (
        b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked"
    )
    assert http.exchange(head, chunked)[0] == 413
    assert http.answers()


def test_request_heads_are_bounded(http: _Http) -> None:
    """httptools kept every header sent (400 MB of headers: 530 MB of memory); a head past
    MAX_HEAD is a 431 JSON error, headers many or one long."""
    from bgfast.serve_http import MAX_HEAD

    many = b"".join(b"X-Junk-%d: %s\r\n" % (i, b"a" * 100) for i in range(MAX_HEAD // 100))
    status, body = http.exchange(b"GET /health HTTP/1.1\r\nHost: x\r\n" + many)
    assert status == 431 and body["error"]["type"] == "RequestHeaderFieldsTooLarge"
    long = b"X-Long: " + b"a" * (4 * MAX_HEAD)
    assert http.exchange(b"GET /health HTTP/1.1\r\nHost: x\r\n" + long)[0] == 431
    assert (
        http.exchange(b"GET /health?" + b"a" * (2 * MAX_HEAD) + b" HTTP/1.1\r\nHost: x")[0] == 431
    )
    assert http.answers()


#: The limits of the ``quick`` server: small enough for tests that wait for them.
QUICK_TIMEOUT = 1
QUICK_CONNECTIONS = 3


@pytest.fixture(scope="module")
def quick() -> Iterator[_Http]:
    """A server with a 1 s request timeout and 3 connections at most."""
    server = _Http(
        "--request-timeout", str(QUICK_TIMEOUT), "--max-connections", str(QUICK_CONNECTIONS)
    )
    yield server
    assert server.process.poll() is None, "the server died"
    _stops_cleanly(server.process, signal.SIGTERM, within=10)


def test_clients_that_stall_are_let_go(quick: _Http) -> None:
    """A client that connected and said nothing, or sent half a head or half a body, held
    its connection (and a file descriptor) forever; each is a 408 after the request
    timeout (--request-timeout, REQUEST_TIMEOUT by default)."""
    starts = [
        b"",
        b"GET /health HTTP/1.1\r\nHost: x\r\n",
        b'POST /play HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"pos',
    ]
    clients = [socket.create_connection(quick.address, timeout=QUICK_TIMEOUT + 10) for _ in starts]
    started = time.monotonic()
    for client, start in zip(clients, starts):
        client.sendall(start)
    for client in clients:
        with client:
            answer = client.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b'"RequestTimeout"' in answer and b"within 1 second" in answer
    assert time.monotonic() - started < QUICK_TIMEOUT + 5
    assert quick.answers()


def test_a_body_sent_a_byte_at_a_time_is_cut_off_at_its_deadline(quick: _Http) -> None:
    """The timeout was counted for each piece of a body: a byte every 8 s (here every
    0.2 s, under the 1 s timeout) kept a connection open for as long as the client
    liked. The whole body has the timeout: a 408 before it is all sent."""
    body = json.dumps({**PLAY, "pad": " " * 100}).encode()
    head = (
        b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    with socket.create_connection(quick.address, timeout=10) as client:
        client.sendall(head)
        client.settimeout(0.2)
        answer = b""
        sent = 0
        while sent < len(body) and not answer:
            client.sendall(body[sent : sent + 1])
            sent += 1
            with contextlib.suppress(socket.timeout):
                answer = client.recv(1000)
        # The head may come alone: the rest, up to the close, is the JSON body.
        client.settimeout(10)
        answer += client.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"the request body did not arrive within 1 second" in answer
    assert sent < len(body)  # cut off, not waited for: 160 pieces of 0.2 s
    assert quick.answers()


def test_connections_past_the_limit_are_answered_503_and_let_go(quick: _Http) -> None:
    """Connections had no bound: 300 slow clients under a limit of 200 open files left
    no file descriptor to accept others with, whose connections were reset. Past
    --max-connections a client is answered a 503 JSON error as it connects and let go;
    once one of the others has gone, a new client is served."""
    held = [socket.create_connection(quick.address, timeout=10) for _ in range(QUICK_CONNECTIONS)]
    for client in held:  # each answered, so each accepted: the limit is reached
        client.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert client.recv(1000).startswith(b"HTTP/1.1 200 ")
    with socket.create_connection(quick.address, timeout=10) as past:
        past.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = past.makefile("rb").read()  # and then closed by the server
    assert answer.startswith(b"HTTP/1.1 503 "), answer
    error = json.loads(answer.partition(b"\r\n\r\n")[2])["error"]
    assert error["type"] == "ServiceUnavailable"
    assert f"at most {QUICK_CONNECTIONS} connections" in error["message"]
    held[0].close()
    for _ in range(50):  # the server sees the close within moments
        time.sleep(0.05)
        with socket.create_connection(quick.address, timeout=10) as again:
            again.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if again.makefile("rb").read().startswith(b"HTTP/1.1 200 "):
                break
    else:
        raise AssertionError("no client was served after one of the others left")
    for client in held[1:]:
        client.close()


needs_proc_fd = pytest.mark.skipif(
    not os.path.isdir("/proc/self/fd"), reason="counts its descriptors in /proc/self/fd"
)


@needs_proc_fd
def test_the_default_connection_limit_counts_the_descriptors_open() -> None:
    """64 descriptors were taken off the limit of open files whatever was open: under
    ulimit -n 64 a server of one connection ("at most 1 connections"), under 70 of 6 with
    some 50 descriptors free. The limit less the descriptors open now, a margin and the
    refused clients' is the default, never below MIN_CONNECTIONS; MAX_CONNECTIONS without
    a low limit."""
    from bgfast.serve_http import (
        FD_MARGIN,
        LINGERING,
        MAX_CONNECTIONS,
        MIN_CONNECTIONS,
        default_max_connections,
    )

    code = """if True:
        import json, os, resource
        from bgfast.serve_http import default_max_connections as d
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        def at(limit):
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
            # less the descriptor the listing holds while it reads the folder
            return [limit, len(os.listdir("/proc/self/fd")) - 1, d()]
        found = [at(limit) for limit in (64, 70, 20, 200)]
        held = [open(os.devnull) for _ in range(40)]
        found.append(at(200))
        print(json.dumps(found))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    (_, _, at64), (_, _, at70), (_, _, at20), (_, open200, at200), (_, busy200, busier) = (
        json.loads(done.stdout)
    )
    for limit, open_now, cap in json.loads(done.stdout):
        if cap > MIN_CONNECTIONS:  # room for it: the margin and the refused clients kept
            spare = limit - open_now - FD_MARGIN
            assert cap == spare - min(LINGERING, spare // 4), (limit, open_now, cap)
    assert at64 >= 25 and at70 >= at64 + 4, (at64, at70)
    assert at20 == MIN_CONNECTIONS
    assert busy200 >= open200 + 40 and busier <= at200 - 40 + 1
    assert MIN_CONNECTIONS <= default_max_connections() <= MAX_CONNECTIONS


def _health(client: socket.socket) -> bytes:
    """Asks ``GET /health`` on a kept-alive connection: the status line of the whole answer
    read (its head and body may come in two pieces)."""
    client.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer and (chunk := client.recv(1000)):
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    while length and len(body) < int(length.group(1)) and (chunk := client.recv(1000)):
        body += chunk
    return head.partition(b"\r\n")[0]


@needs_proc_fd
def test_a_server_under_a_low_file_limit_serves_what_it_says() -> None:
    """Under ulimit -n 64 the server said nothing of its limit and served one connection.
    Its first line says how many it serves, and it serves that many at once, turning away
    as many again with a 503 (none reset or left waiting for a descriptor), and serves
    again once they have gone."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))

    process = subprocess.Popen(
        [sys.executable, "-m", "bgfast", "serve", "http", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limited,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        said = re.search(
            r"listening on http://([\d.]+):(\d+) .*; at most (\d+) connections at once,"
            r" for a limit of 64 open files\)$",
            first.strip(),
        )
        assert said, first
        address, cap = (said.group(1), int(said.group(2))), int(said.group(3))
        assert cap >= 20, first
        served = [socket.create_connection(address, timeout=5) for _ in range(cap)]
        for client in served:
            assert _health(client) == b"HTTP/1.1 200 OK"
        refused = [socket.create_connection(address, timeout=5) for _ in range(cap)]
        for client in refused:
            with client:
                assert client.makefile("rb").read().startswith(b"HTTP/1.1 503 ")
        for client in served:
            with client:
                assert _health(client) == b"HTTP/1.1 200 OK"
        time.sleep(1.2)  # the refused clients' descriptors closed too
        again = [socket.create_connection(address, timeout=5) for _ in range(cap)]
        for client in again:
            with client:
                assert _health(client) == b"HTTP/1.1 200 OK"
        err = _stops_cleanly(process, signal.SIGTERM, within=10)
        assert err == "", err
    finally:
        if process.poll() is None:  # pragma: no cover - a failure above
            process.kill()
            process.wait()


def test_clients_turned_away_do_not_count_against_the_limit() -> None:
    """A client turned away is read until it closes, a second at most, and was counted
    among the connections all the while: with --max-connections 1, the one client served
    gone and five turned away still lingering, a newcomer was turned away too, nobody
    being served. Only the connections served count; the 503 says "at most 1
    connection" (it said "1 connections")."""
    server = _Http("--max-connections", "1")
    try:
        request = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        served = socket.create_connection(server.address, timeout=5)
        served.sendall(request)
        assert served.recv(1000).startswith(b"HTTP/1.1 200 ")
        turned_away = time.monotonic()
        refused = [socket.create_connection(server.address, timeout=5) for _ in range(5)]
        for client in refused:  # answered, and kept open: the server lingers on them
            answer = client.recv(1000)
            assert answer.startswith(b"HTTP/1.1 503 "), answer
            assert b"the server serves at most 1 connection at once" in answer
        served.close()
        answer = b""
        while time.monotonic() - turned_away < 0.9:  # before the refused are let go
            with socket.create_connection(server.address, timeout=5) as newcomer:
                newcomer.sendall(request)
                answer = newcomer.recv(1000)
            if answer.startswith(b"HTTP/1.1 200 "):
                break
            time.sleep(0.02)  # the server has yet to see the close
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        for client in refused:
            client.close()
    finally:
        assert server.process.poll() is None, "the server died"
        _stops_cleanly(server.process, signal.SIGTERM, within=10)


@pytest.mark.parametrize(
    ("raw", "offset"),
    [
        (b"not json", 0),
        (b'{"position": ', 13),
        (json.dumps(PLAY) + " x", len(json.dumps(PLAY)) + 1),
    ],
)
def test_json_that_does_not_parse_names_no_parameter(
    http: _Http, raw: bytes | str, offset: int
) -> None:
    """The character offset of a JSON error was given as the parameter ("13")."""
    status, body = http.play(raw.encode() if isinstance(raw, str) else raw)
    assert status == 422
    assert body["error"]["parameter"] is None
    assert body["error"]["message"].startswith("the body is not JSON: ")
    assert body["error"]["message"].endswith(f"at character {offset}")


@pytest.mark.parametrize("dice", [31, {"a": 1}, True])
def test_a_mistyped_union_names_the_parameter_sent(http: _Http, dice: object) -> None:
    """A die pair that is neither text nor a pair was named "dice.str", a member of the
    type union that no client sends."""
    status, body = http.play(json.dumps({**PLAY, "dice": dice}).encode())
    assert status == 422 and body["error"]["parameter"] == "dice", body


def test_thread_counts_are_bounded_as_everywhere() -> None:
    from bgfast._core import MAX_THREADS
    from bgfast.serve_http import create_app

    with pytest.raises(BgfastError, match=f"threads must be from 1 to {MAX_THREADS}"):
        create_app(threads=MAX_THREADS + 1)
    with pytest.raises(TypeError):
        create_app(threads=2.5)  # type: ignore[arg-type]
    done = _bgfast("serve", "http", "--port", "0", "--threads", str(10**20))
    assert done.returncode == 2 and "threads must be from 1 to 256" in done.stderr


def test_a_request_cut_off_by_the_stop_is_a_503_not_a_traceback(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A request still running when STOP_GRACE was over was cancelled into a
    CancelledError traceback in the server's log; its client is answered a 503."""
    import uvicorn

    from bgfast import serve_http

    app = serve_http.create_app()
    release = threading.Event()

    @app.get("/stuck")
    def stuck() -> dict[str, int]:
        release.wait(30)
        return {"done": 1}

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app,
        log_level="warning",
        http=serve_http._http_protocol(),
        timeout_graceful_shutdown=0.3,
    )
    server = uvicorn.Server(config)
    running = threading.Thread(target=server.run, kwargs={"sockets": [listener]})
    running.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        with socket.create_connection(listener.getsockname(), timeout=10) as client:
            client.sendall(b"GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.2)
            server.should_exit = True
            answer = client.makefile("rb").read()
        assert answer.startswith(b"HTTP/1.1 503 "), answer
        assert b"the server is stopping" in answer
    finally:
        release.set()
        server.should_exit = True
        running.join(30)
        listener.close()
    logged = capfd.readouterr().err  # uvicorn's log, its own handler on stderr
    assert "timeout graceful shutdown exceeded" in logged  # the stop did cut it off
    assert "Traceback" not in logged and "CancelledError" not in logged


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_http_server_stops_with_status_0(sig: int) -> None:
    """Ctrl-C ended in a KeyboardInterrupt traceback (status -2), SIGTERM in the signal's
    own death (-15), and a client that sent half a body kept SIGTERM waiting forever."""
    from bgfast.serve_http import STOP_GRACE

    server = _Http()
    keep_alive = socket.create_connection(server.address, timeout=30)
    keep_alive.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    assert keep_alive.recv(1000).startswith(b"HTTP/1.1 200")
    stalled = socket.create_connection(server.address, timeout=30)
    stalled.sendall(
        b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"pos'
    )
    time.sleep(0.3)
    _stops_cleanly(server.process, sig, within=STOP_GRACE + 5)
    keep_alive.close()
    stalled.close()


# ------------------------------------------------------------------------- the command line


@needs_dev_full
@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["moves", START, "31"],
        ["moves", START, "31", "--json"],
        ["analyse", str(MATCH), "--json"],
        ["rollout", "--games", "10", "--seed", "1"],
    ],
)
def test_output_that_cannot_be_written_is_one_line(args: list[str]) -> None:
    """A full disk under stdout was a traceback (and a second one at exit)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "bgfast", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr == "bgfast: cannot write the output: No space left on device\n"


def test_ctrl_c_is_one_line_and_status_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_moves", interrupted)
    assert cli.main(["moves", START, "31"]) == 130
    assert capsys.readouterr().err == "bgfast: interrupted\n"


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback")
def test_the_address_printed_for_an_ipv6_host_is_a_url() -> None:
    """``--host ::1`` printed ``http://::1:PORT``, which no client can open."""
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "bgfast", "serve", "http", "--host", "::1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        found = re.search(r"listening on (\S+)", process.stdout.readline())
        assert found and found.group(1).startswith("http://[::1]:")
        with urllib.request.urlopen(found.group(1) + "/health", timeout=30) as answer:
            assert json.loads(answer.read())["status"] == "ok"
    finally:
        _stops_cleanly(process, signal.SIGTERM, within=10)


def test_a_net_may_not_take_a_shipped_nets_name() -> None:
    # --net wildbg=mine.bgnet replaced the shipped net, and answers still said "wildbg".
    from bgfast import Net
    from bgfast.serve_http import create_app

    with pytest.raises(BgfastError, match="'wildbg' is a shipped net's"):
        create_app({"wildbg": Net.wildbg()})


def test_a_net_name_given_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bgfast import Net

    path = tmp_path / "mine.bgnet"
    Net.wildbg().save(path)
    argv = ["serve", "http", "--port", "0", "--net", f"a={path}", "--net", f"a={path}"]
    assert cli.main(argv) == 2
    assert "--net names a twice" in capsys.readouterr().err
