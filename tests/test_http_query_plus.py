"""``bgfast serve http``: a Position ID or GNUbg ID with a ``+`` sent unencoded in a query
string (as a curl command line sends it) arrives with a space in its place; it is read
back, and what still does not read says to encode ``+`` as ``%2B``."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from http_server import HttpServer

from bgfast import BgfastError
from bgfast.serve_http import PLUS_HINT, read_position

GNUBG_ID = "4HPwQSDg8+ABMA:MAGgAAAAAAAE"  # one ID in five has a '+'
POSITION_ID = GNUBG_ID.split(":")[0]


@pytest.mark.parametrize(
    "sent",
    [
        POSITION_ID.replace("+", " "),
        GNUBG_ID.replace("+", " "),
        GNUBG_ID.replace("+", " ") + " ",  # a stray space as well
        " " + GNUBG_ID.replace("+", " ").replace(":", " : "),
    ],
)
def test_a_plus_read_as_a_space_from_a_query_string_is_read_back(sent: str) -> None:
    want = read_position(GNUBG_ID if ":" in sent else POSITION_ID)
    got = read_position(sent, query=True)
    assert (got.kind, got.position, got.state) == (want.kind, want.position, want.state)
    with pytest.raises(BgfastError, match="characters"):
        read_position(sent)  # JSON: a space is a space, as before


@pytest.mark.parametrize("sent", ["4HPwQSDg8 ABM", "4HPwQSDg8 ABMA:MAG AAAA"])
def test_an_id_that_still_does_not_read_says_to_encode_the_plus(sent: str) -> None:
    with pytest.raises(BgfastError) as refused:
        read_position(sent, query=True)
    assert str(refused.value).endswith(f"({PLUS_HINT})") and "%2B" in PLUS_HINT
    with pytest.raises(BgfastError) as refused:
        read_position("4HPwQSDg8ABM", query=True)  # no space: no hint
    assert "%2B" not in str(refused.value)


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    running = HttpServer()
    yield running
    running.process.send_signal(signal.SIGTERM)
    running.process.wait(timeout=10)


def test_the_server_reads_an_unencoded_plus_as_curl_sends_it(server: HttpServer) -> None:
    for path in ("/moves", "/best", "/evaluate", "/ids"):
        query = f"position={GNUBG_ID}&dice=31" if path != "/evaluate" else f"position={GNUBG_ID}"
        if path == "/ids":
            query = f"position={POSITION_ID}"
        status, body = server.exchange(f"GET {path}?{query} HTTP/1.1\r\nHost: x".encode())
        assert status == 200, (path, body)
    status, body = server.exchange(
        b"GET /ids?position=" + GNUBG_ID.encode() + b" HTTP/1.1\r\nHost: x"
    )
    assert status == 200 and body["gnubg_id"] == GNUBG_ID
    status, body = server.exchange(b"GET /ids?position=4HPwQSDg8+ABM HTTP/1.1\r\nHost: x")
    assert status == 400 and "%2B" in body["error"]["message"]


def test_an_id_with_its_plus_back_and_still_wrong_says_what_is_wrong_with_it() -> None:
    # 'wLfBA2Dg8+ABCB' has its 14 characters once the '+' is back: its fault is its last
    # character's stray bits, not "14 characters, not 13" of the space-less reading.
    with pytest.raises(BgfastError) as refused:
        read_position("wLfBA2Dg8 ABCB", query=True)
    said = str(refused.value)
    assert "sets bits beyond the key" in said and "not 13" not in said
    assert said.endswith(f"({PLUS_HINT})")
