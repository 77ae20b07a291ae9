"""``bgfast serve http``: a running server, asked by a real HTTP client (the standard
library's), its answers compared with the Python package's own.

Every endpoint the issue names (``/moves``, ``/evaluate``, ``/best``, ``POST /play``,
``/ids``), the OpenAPI schema, bad input of every kind (a 4xx JSON error naming the
parameter, the server answering right afterwards), 8 clients at once, and a second net
offered with ``--net NAME=PATH``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from http_server import HttpServer

from bgfast import Game, Net, Position, bearoff, codec, cubeful, hint

DATA = Path(__file__).parent / "data"
CONTACT = (DATA / "wildbg_contact.csv").read_text().split()[:40]
ROLLS = [(3, 1), (6, 6), (5, 2), (1, 1), (6, 4)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    path = tmp_path_factory.mktemp("nets") / "mine.bgnet"
    Net.wildbg().save(path)
    running = HttpServer("--net", f"mine={path}")
    yield running
    assert running.process.poll() is None, "the server died"
    running.stop()


def _moves(position: Position, dice: tuple[int, int]) -> list[dict[str, str]]:
    return [{"move": str(m), "result": m.result.id} for m in position.moves(dice)]


def test_moves_are_position_moves(server: HttpServer) -> None:
    for pid in CONTACT[:20]:
        position = Position.from_id(pid)
        for dice in ROLLS:
            status, body = server.get("/moves", position=pid, dice=f"{dice[0]}{dice[1]}")
            assert status == 200
            assert body == {"position": pid, "dice": list(dice), "moves": _moves(position, dice)}


def test_moves_read_gnubg_ids_xgids_and_fibs_boards(server: HttpServer) -> None:
    game = Game(match_length=7, seed=4)
    game.roll((5, 2))
    game.play("13/8 13/11")
    game.roll((6, 4))
    want = _moves(game.position, (6, 4))
    for text in (game.gnubg_id(), game.xgid(), game.fibs_board()):
        status, body = server.get("/moves", position=text)  # the dice the ID holds
        assert (status, body["moves"], body["dice"]) == (200, want, [6, 4]), text
    for dice in ("64", "6-4", "6,4"):
        assert server.get("/moves", position=game.gnubg_id(), dice=dice)[1]["moves"] == want


def test_a_bearoff_cube_decision_is_the_databases(server: HttpServer) -> None:
    # Two-sided bear-offs were valued with the cube life model: "no double" where GNU
    # Backgammon's exact values say double, take (+0.378 / +0.756).
    status, body = server.get("/evaluate", position="QgAAaAAAAAAAAA")
    assert status == 200 and body["cube"]["action"] == "double, take"
    assert body["cube"]["no_double"] == pytest.approx(0.37804, abs=2e-4)
    # The chances beside them are the database's too, not the net's.
    win = bearoff.win_probability(Position.from_id("QgAAaAAAAAAAAA"))
    assert body["probabilities"] == pytest.approx([win, 0, 0, 0, 0], abs=1e-6)
    assert body["equity"] == pytest.approx(2 * win - 1, abs=1e-6)


def test_evaluate_is_the_nets(server: HttpServer) -> None:
    net = Net.wildbg()
    for pid in CONTACT[:10]:
        status, body = server.get("/evaluate", position=pid)
        assert status == 200
        p = net.evaluate(Position.from_id(pid))
        assert np.allclose(body["probabilities"], p, atol=1e-7)
        assert body["equity"] == pytest.approx(float(net.equity(Position.from_id(pid))), abs=1e-6)
        decision = cubeful.decide(p)
        assert body["cube"]["action"] == decision.action
        assert body["cube"]["no_double"] == pytest.approx(decision.no_double)
    assert (
        server.get("/evaluate", position=CONTACT[0], net="mine")[1]["probabilities"]
        == (server.get("/evaluate", position=CONTACT[0])[1]["probabilities"])
    )
    # the stakes of a GNUbg ID: a 7-point match, the cube turned
    game = Game(match_length=7, seed=2)
    game.roll((4, 2))
    game.play("8/4 6/4")
    game.double()
    game.take()
    status, body = server.get("/evaluate", position=game.gnubg_id())
    state = game.state
    assert state.turn is not None
    p = net.evaluate(state.position)
    want = cubeful.decide(
        p,
        cube=(2, "opponent"),
        match_length=7,
        score=(state.score[state.turn], state.score[1 - state.turn]),
    )
    assert body["cube"]["action"] == want.action
    assert body["cube"]["double_take"] == pytest.approx(want.double_take)


def test_evaluate_answers_a_waiting_double_and_not_a_waiting_resignation(
    server: HttpServer,
) -> None:
    """With a double waiting, the cube answer carries the doubled side's answer; with a
    resignation waiting, the decision is the resignation's, not the cube's."""
    doubled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10"
    state = codec.state_from_id(doubled)
    assert state is not None and state.phase == "doubled"
    want = cubeful.decide_for(
        Net.wildbg().evaluate(state.position),
        cubeful.Stakes.of_state(state),
        cubeful.DEFAULT_CUBE_LIFE,
    )
    status, body = server.get("/evaluate", position=doubled)
    assert status == 200 and body["cube"]["answer"] == want.answer == "take"
    # A beaver waiting: its stakes are not the double's, so no cube answer.
    beavered = "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:2:0:10"
    status, body = server.get("/evaluate", position=beavered)
    assert status == 200 and body["cube"] is None
    status, body = server.get("/best", position=doubled, dice="31")
    assert status == 400 and "a double waits for its answer" in body["error"]["message"]
    game = Game(seed=3)
    game.roll((4, 2))
    game.play("8/4 6/4")
    game.resign("single")
    assert game.state.phase == "resign"
    status, body = server.get("/evaluate", position=game.gnubg_id())  # an XGID holds none
    assert status == 200 and body["cube"] is None and len(body["probabilities"]) == 5


def test_best_is_the_nets_ranking_at_the_stakes(server: HttpServer) -> None:
    net = Net.wildbg()
    for pid in CONTACT[:10]:
        ranked = hint(net, Position.from_id(pid), (5, 2))
        status, body = server.get("/best", position=pid, dice="52")
        assert status == 200
        assert body["stakes"] == cubeful.Stakes.check().describe()
        assert [m["move"] for m in body["moves"]] == [str(h.move) for h in ranked]
        assert body["moves"][0]["diff"] == 0.0
        for got, h in zip(body["moves"], ranked):
            assert got["cubeful_equity"] == pytest.approx(h.cubeful_equity, abs=1e-9)
            assert got["diff"] == pytest.approx(h.cubeful_equity - ranked[0].cubeful_equity)
            assert got["equity"] == pytest.approx(h.equity, abs=1e-9)
            assert got["mwc"] is None
            assert np.allclose(got["probabilities"], h.probabilities, atol=1e-7)
    assert len(server.get("/best", position=CONTACT[0], dice="52", top=2)[1]["moves"]) <= 2
    large = hint(Net.wildbg_large(), Position.from_id(CONTACT[0]), (5, 2))
    status, body = server.get("/best", position=CONTACT[0], dice="52", net="wildbg-large")
    assert status == 200 and [m["move"] for m in body["moves"]] == [str(h.move) for h in large]


def test_best_plays_at_the_score_an_id_gives(server: HttpServer) -> None:
    """At double match point the plays go by their wins alone; a score past the match
    equity table is refused, naming R20."""
    dmp = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:6:6:0:7:10"
    state = codec.state_from_id(dmp)
    assert state is not None
    status, body = server.get("/best", position=dmp)
    assert status == 200
    assert body["stakes"] == cubeful.Stakes.of_state(state).describe()
    ranked = hint(Net.wildbg(), state)
    assert [m["move"] for m in body["moves"]] == [str(h.move) for h in ranked]
    for got in body["moves"]:
        win = got["probabilities"][0]
        assert got["mwc"] == pytest.approx(win, abs=1e-6)
        assert got["cubeful_equity"] == pytest.approx(2 * win - 1, abs=1e-5)
    far = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:0:0:0:31:10"
    status, body = server.get("/best", position=far)
    assert status == 400 and body["error"]["parameter"] == "position"
    assert body["error"]["type"] == "MatchOptionError" and "R20" in body["error"]["message"]


def test_play_names_the_rule_broken(server: HttpServer) -> None:
    start = "4HPwATDgc/ABMA"
    status, body = server.post("/play", {"position": start, "dice": "31", "move": "6/5 8/5"})
    assert (status, body["legal"], body["move"]) == (200, True, "8/5 6/5")
    assert body["result"] == Position.from_id(start).play("8/5 6/5", (3, 1)).id
    status, body = server.post("/play", {"position": start, "dice": [3, 1], "move": "6/1"})
    assert (status, body["legal"], body["rule"]) == (200, False, "R4")
    status, body = server.post("/play", {"position": start, "dice": "31", "move": "13/10"})
    assert (status, body["legal"], body["rule"]) == (200, False, "R8")
    status, body = server.post("/play", {"position": start, "dice": "31", "move": "8/5 6/"})
    assert (status, body["error"]["parameter"]) == (400, "move")


@pytest.mark.parametrize(
    "dice",
    [[3, -1], [6, -6], [True, 1], [1, True], [3.0, 1], ["3", 1], [0, 1], [7, 1], [10**30, 1]],
)
def test_play_refuses_impossible_dice_pairs(server: HttpServer, dice: list[object]) -> None:
    # A pair was once joined into text: [3, -1] read as "3-1", [true, 1] as 1-1.
    body = {"position": "4HPwATDgc/ABMA", "dice": dice, "move": "8/5 6/5"}
    status, answer = server.post("/play", body)
    assert status == 400, answer
    assert (answer["error"]["type"], answer["error"]["parameter"]) == ("InvalidDiceError", "dice")


def test_play_takes_a_pair_and_text_alike(server: HttpServer) -> None:
    for dice in ([3, 1], "31", "3-1"):
        body = {"position": "4HPwATDgc/ABMA", "dice": dice, "move": "8/5 6/5"}
        status, answer = server.post("/play", body)
        assert (status, answer["legal"], answer["move"]) == (200, True, "8/5 6/5"), dice


def test_ids_convert_every_notation(server: HttpServer) -> None:
    game = Game(match_length=5, seed=9)
    game.roll((6, 1))
    game.play("13/7 8/7")
    game.roll((3, 3))
    state = game.state
    for text, kind in (
        (game.gnubg_id(), "gnubg_id"),
        (game.xgid(), "xgid"),
        (game.fibs_board(), "fibs_board"),
    ):
        status, body = server.get("/ids", position=text)
        assert (status, body["kind"], body["assumed"]) == (200, kind, False)
        assert body["position_id"] == game.position.id
        assert body["gnubg_id"] == codec.gnubg_id_of(state)
        assert body["xgid"] == codec.xgid_of(state)
        assert codec.state_from_fibs_board(body["fibs_board"]) == codec.state_from_fibs_board(
            game.fibs_board()
        )
    status, body = server.get("/ids", position="4HPwATDgc/ABMA")
    assert (status, body["kind"], body["assumed"]) == (200, "position_id", True)
    assert body["gnubg_id"].startswith("4HPwATDgc/ABMA:")


BAD_GETS: list[tuple[str, dict[str, object], int, str | None]] = [
    ("/moves", {"position": "xyz", "dice": "31"}, 400, "position"),
    ("/moves", {"position": "4HPwATDgc/ABMA", "dice": "71"}, 400, "dice"),
    ("/moves", {"position": "4HPwATDgc/ABMA", "dice": "3"}, 400, "dice"),
    ("/moves", {"position": "4HPwATDgc/ABMA"}, 400, "dice"),
    ("/moves", {"dice": "31"}, 422, "position"),
    ("/moves", {"position": "/////////////w", "dice": "31"}, 400, "position"),
    ("/moves", {"position": "4HPwATDgc/ABMA:xxxxxxxxxxxx", "dice": "31"}, 400, "position"),
    ("/moves", {"position": "XGID=bad", "dice": "31"}, 400, "position"),
    ("/moves", {"position": "board:a:b:1", "dice": "31"}, 400, "position"),
    ("/moves", {"position": "\x00\udcff" * 5, "dice": "31"}, 400, "position"),
    ("/moves", {"position": "A" * 5_000, "dice": "31"}, 400, "position"),
    ("/moves", {"position": "AAAAAAAAAAAAAA", "dice": "31"}, 400, "position"),
    ("/evaluate", {"position": "4HPwATDgc/ABMA", "net": "nope"}, 400, "net"),
    ("/best", {"position": "4HPwATDgc/ABMA", "dice": "31", "top": "0"}, 422, "top"),
    ("/best", {"position": "4HPwATDgc/ABMA", "dice": "31", "top": "x"}, 422, "top"),
    ("/ids", {}, 422, "position"),
    ("/nowhere", {}, 404, None),
]


@pytest.mark.parametrize(("path", "query", "status", "parameter"), BAD_GETS)
def test_bad_input_is_a_4xx_json_error(
    server: HttpServer, path: str, query: dict[str, object], status: int, parameter: str | None
) -> None:
    query = {k: (v.encode("utf-8", "surrogateescape") if isinstance(v, str) else v) for k, v in
             query.items()}  # fmt: skip
    got, body = server.get(path, **query)
    assert got == status, body
    assert set(body) == {"error"} and body["error"]["parameter"] == parameter
    assert body["error"]["message"] and body["error"]["type"]
    # and the server answers right afterwards
    assert server.get("/moves", position="4HPwATDgc/ABMA", dice="31")[0] == 200


def test_a_request_line_too_long_for_http_is_refused(server: HttpServer) -> None:
    """A 100 KB URL is refused before the app (a request line and headers past MAX_HEAD:
    a JSON 431); the server goes on."""
    request = urllib.request.Request(f"{server.url}/moves?position={'A' * 100_000}&dice=31")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 431
    assert json.loads(refused.value.read())["error"]["type"] == "RequestHeaderFieldsTooLarge"
    assert server.get("/moves", position="4HPwATDgc/ABMA", dice="31")[0] == 200


@pytest.mark.parametrize(
    ("body", "raw", "status"),
    [
        (None, b"not json", 422),
        (None, b"[1, 2]", 422),
        ({"position": "4HPwATDgc/ABMA", "dice": "31"}, None, 422),  # no move
        ({"position": "4HPwATDgc/ABMA", "dice": "99", "move": "8/5 6/5"}, None, 400),
        ({"position": "4HPwATDgc/ABMA", "dice": [3, 9], "move": "8/5"}, None, 400),
        ({"position": "4HPwATDgc/ABMA", "dice": [3], "move": "8/5"}, None, 422),
        ({"position": 5, "dice": "31", "move": "8/5 6/5"}, None, 422),
    ],
)
def test_bad_plays_are_4xx(
    server: HttpServer, body: object, raw: bytes | None, status: int
) -> None:
    got, answer = server.post("/play", body, raw)
    assert got == status, answer
    assert set(answer) == {"error"}
    assert server.get("/moves", position="4HPwATDgc/ABMA", dice="31")[0] == 200
    got, _ = server._open(urllib.request.Request(f"{server.url}/moves", method="DELETE"))
    assert got == 405


def test_eight_clients_at_once(server: HttpServer) -> None:
    net = Net.wildbg()
    failures: list[str] = []

    def client(k: int) -> None:
        for i, pid in enumerate(CONTACT[k * 4 : k * 4 + 4]):
            dice = ROLLS[(k + i) % len(ROLLS)]
            position = Position.from_id(pid)
            status, body = server.get("/moves", position=pid, dice=f"{dice[0]}{dice[1]}")
            if status != 200 or body["moves"] != _moves(position, dice):
                failures.append(f"moves {pid} {dice}")
            status, body = server.get("/best", position=pid, dice=f"{dice[0]}{dice[1]}")
            if status != 200 or body["moves"][0]["move"] != str(net.best_move(position, dice)):
                failures.append(f"best {pid} {dice}")
            status, _ = server.get("/moves", position="bad", dice="31")
            if status != 400:
                failures.append("bad input")

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not failures


def test_the_openapi_schema_is_served(server: HttpServer) -> None:
    status, schema = server.get("/openapi.json")
    assert status == 200
    assert schema["info"]["title"] == "bgfast"
    assert {"/moves", "/evaluate", "/best", "/play", "/ids"} <= set(schema["paths"])
    assert "post" in schema["paths"]["/play"]
    assert "400" in schema["paths"]["/moves"]["get"]["responses"]
    with urllib.request.urlopen(f"{server.url}/docs", timeout=30) as page:
        assert page.status == 200 and b"openapi.json" in page.read()
    status, health = server.get("/health")
    assert health["nets"] == ["mine", "wildbg", "wildbg-large"]


def test_keep_alive_answers_do_not_wait_for_delayed_acks(server: HttpServer) -> None:
    """One keep-alive connection, 40 requests in a row: with Nagle's algorithm on the
    server's sockets each answer waited ~40 ms for the client's delayed ACK (1.6 s here);
    they take a few milliseconds."""
    import http.client
    import time

    parsed = urllib.parse.urlparse(server.url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    started = time.perf_counter()
    for _ in range(40):
        connection.request("GET", "/moves?position=4HPwATDgc%2FABMA&dice=31")
        answer = connection.getresponse()
        assert answer.status == 200
        answer.read()
    assert time.perf_counter() - started < 1.2
    connection.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["http", "--threads", "0"], "threads must be from 1 to 256"),
        (["http", "--net", "foo"], "NAME=PATH"),
        (["http", "--net", "foo=/nonexistent/mine.bgnet"], "nonexistent"),
        (["http", "--port", "70000"], "0..65535"),
        (["http", "--request-timeout", "0"], "seconds above 0"),
        (["http", "--request-timeout", "inf"], "seconds above 0"),
        (["http", "--max-connections", "0"], "1 or more"),
        (["http", "--max-connections", "x"], "1 or more"),
        (["gnubg-external", "--policy", "nosuch"], "unknown policy"),
    ],
)
def test_bad_server_options_exit_2_naming_them(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bgfast", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert message in done.stderr


@pytest.mark.parametrize("dice", ["31", [3, 1]])
def test_dice_other_than_the_roll_an_id_holds_are_refused(
    server: HttpServer, dice: str | list[int]
) -> None:
    # The XGID holds 6-4: the roll is the game's, not a default another roll replaces.
    rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:2:3:0:7:10"
    status, answer = server.post("/play", {"position": rolled, "dice": dice, "move": "8/5 6/5"})
    assert status == 400, answer
    assert answer["error"]["parameter"] == "dice"
    assert "has rolled 6-4, not 3-1" in answer["error"]["message"]
    for path in ("/moves", "/best"):
        status, answer = server.get(path, position=rolled, dice="31")
        assert (status, answer["error"]["type"]) == (400, "InvalidDiceError"), answer
    status, answer = server.post("/play", {"position": rolled, "dice": "46", "move": "24/18 13/9"})
    assert (status, answer["legal"]) == (200, True), answer


def test_the_cube_life_is_the_callers(server: HttpServer) -> None:
    race = Position.from_id("egoAAKcMAAAAAA")
    net = Net.wildbg()
    p = bearoff.exact_chances(race.to_array()[None], net.evaluate(race.to_array()[None]))[0]
    lives: dict[str, cubeful.CubeLife] = {"gnubg": "gnubg", "0.3": 0.3, " 0.68 ": 0.68}
    for text, life in lives.items():
        status, body = server.get("/evaluate", position=race.id, cube_life=text)
        assert status == 200, body
        want = cubeful.decide_for(p, cubeful.Stakes.of(race), life, position=race)
        assert body["cube"]["no_double"] == pytest.approx(want.no_double, abs=1e-9)
        assert body["cube"]["double_take"] == pytest.approx(want.double_take, abs=1e-9)
        status, body = server.get("/best", position=race.id, dice="31", cube_life=text)
        assert status == 200, body
        ranked = hint(net, race, (3, 1), cube_life=life)
        assert [m["cubeful_equity"] for m in body["moves"]] == pytest.approx(
            [h.cubeful_equity for h in ranked], abs=1e-9
        )
    for bad in ("1.5", "nan", "gnu", ""):
        for path, extra in (("/evaluate", {}), ("/best", {"dice": "31"})):
            status, body = server.get(path, position=race.id, cube_life=bad, **extra)
            assert (status, body["error"]["parameter"]) == (400, "cube_life"), (path, bad)


def _finished_xgid() -> str:
    """An XGID whose side on roll has a gammon to lose: the opponent has borne off all 15."""
    rows = ((0,) * 25, (15,) + (0,) * 24)  # player 0 borne off; player 1 all on its 1-point
    return codec.format_xgid(codec.XgidFields(board=rows, turn=1))  # type: ignore[arg-type]


FINISHED = [
    # (the text, who has won what, from the side to move's view)
    ("AAAABgAAAAAAAA", "the opponent has borne off all 15 checkers and won the game"),
    ("AAAA/v8AAAAAAA:cAkAAAAAAAAA", "the opponent has borne off all 15 checkers and won a gammon"),
    ("/z8AAAIAAAAAAA", "the side to move has borne off all 15 checkers and won a backgammon"),
]


@pytest.mark.parametrize(("text", "won"), [*FINISHED, (_finished_xgid(), "won a gammon")])
def test_a_finished_game_is_refused_alike_everywhere(
    server: HttpServer, text: str, won: str
) -> None:
    """R15: /ids answered "already won (R15) in phase 'roll'" for a bare Position ID,
    /evaluate a 200, /moves and /best a GameOverError, and a GNUbg ID or XGID of a
    finished game "does not describe a playable game state". One refusal now, in the
    same words from every endpoint, whatever the notation."""
    answers = [
        server.get("/moves", position=text, dice="31"),
        server.get("/best", position=text, dice="31"),
        server.get("/evaluate", position=text),
        server.get("/ids", position=text),
        server.post("/play", {"position": text, "dice": "31", "move": "8/5 6/5"}),
    ]
    messages = set()
    for status, body in answers:
        assert status == 400, body
        assert body["error"]["type"] == "GameOverError" and body["error"]["parameter"] == "position"
        messages.add(body["error"]["message"])
    (message,) = messages
    assert message.startswith("the game is over: ") and message.endswith(" (R15)")
    assert won in message and "phase" not in message


def test_a_query_parameter_given_twice_is_refused_naming_it(server: HttpServer) -> None:
    """?dice=31&dice=64 played 6-4, the last one, without a word."""
    status, body = server.exchange(
        b"GET /moves?position=4HPwATDgc/ABMA&dice=31&dice=64 HTTP/1.1\r\nHost: x"
    )
    assert (status, body["error"]["parameter"]) == (400, "dice"), body
    assert "'31'" in body["error"]["message"] and "'64'" in body["error"]["message"]
    status, body = server.exchange(
        b"GET /ids?position=4HPwATDgc/ABMA&position=4HPwATDgc/ABMA HTTP/1.1\r\nHost: x"
    )
    assert (status, body["error"]["parameter"]) == (400, "position"), body
    status, body = server.exchange(
        b"GET /moves?position=4HPwATDgc/ABMA&dice=31 HTTP/1.1\r\nHost: x"
    )
    assert status == 200 and len(body["moves"]) == 16


def test_head_health_is_answered(server: HttpServer) -> None:
    """HEAD /health was a 405 (monitors ask with HEAD)."""
    import http.client

    parsed = urllib.parse.urlparse(server.url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    connection.request("HEAD", "/health")
    answer = connection.getresponse()
    assert answer.status == 200 and answer.getheader("content-type") == "application/json"
    assert answer.read() == b""
    connection.close()


def test_a_play_is_json_with_or_without_a_content_type(server: HttpServer) -> None:
    """A body without a Content-Type was a 422 "body: Input should be a valid dictionary",
    which did not say why; it is read as JSON. A body of another type (curl -d sends a
    form's) is a 422 naming the header."""
    body = json.dumps({"position": "4HPwATDgc/ABMA", "dice": "31", "move": "8/5 6/5"}).encode()
    head = b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Length: %d" % len(body)
    status, answer = server.exchange(head, body)
    assert (status, answer["legal"], answer["move"]) == (200, True, "8/5 6/5"), answer
    form = head + b"\r\nContent-Type: application/x-www-form-urlencoded"
    status, answer = server.exchange(form, body)
    assert status == 422 and answer["error"]["parameter"] is None
    assert "Content-Type: application/json" in answer["error"]["message"]
    assert "application/x-www-form-urlencoded" in answer["error"]["message"]
    typed = b"POST /play HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nContent-Type: application/json"
    status, answer = server.exchange(typed, b"[1, 2]")
    assert status == 422 and "Content-Type" not in answer["error"]["message"]  # JSON, not a play


def test_a_position_too_long_for_any_id_is_refused_before_it_is_read(server: HttpServer) -> None:
    """60,000 '+' sent unencoded (spaces once decoded) held the server for 6 s, the GIL
    held, in a quadratic regular expression: four such requests kept /health waiting 23 s.
    A position over MAX_ID characters is a 400 naming its length; the server answers."""
    from bgfast.serve_http import MAX_ID

    for sent in (b"+" * 60_000, b"%20" * 20_000, b"4HPwQSDg8+ABMA" + b"+" * 30_000 + b":"):
        status, body = server.exchange(b"GET /ids?position=" + sent + b" HTTP/1.1\r\nHost: x")
        assert (status, body["error"]["parameter"]) == (400, "position"), body
        assert "characters long" in body["error"]["message"]
        assert f"more than {MAX_ID}" in body["error"]["message"]
    assert server.get("/health")[0] == 200


def test_spaces_around_a_colon_are_read_as_before() -> None:
    """The linear replacement of re.sub(" *: *", ":", text) gives what it gave."""
    import random
    import re

    from bgfast.serve_http import _tight_colons

    chooser = random.Random(5)
    for _ in range(5000):
        text = "".join(chooser.choice(" :a") for _ in range(chooser.randint(0, 14)))
        assert _tight_colons(text) == re.sub(" *: *", ":", text), text
    assert _tight_colons(" " * 100_000 + ":" + " " * 100_000) == ":"


START = "4HPwATDgc/ABMA"
START_GNUBG = f"{START}:cAkAAAAAAAAA"
#: GNU Backgammon's labels, as its ``show`` commands print them, and the bare ID each is.
LABELLED = [
    (f"Position ID: {START}", START),
    (f"Position ID: {START} Match ID: cAkAAAAAAAAA", START_GNUBG),
    (f"Position ID: {START}\nMatch ID   : cAkAAAAAAAAA", START_GNUBG),
]


@pytest.mark.parametrize(("labelled", "bare"), LABELLED)
def test_gnubg_s_labels_are_read_as_the_command_line_reads_them(
    server: HttpServer, labelled: str, bare: str
) -> None:
    """``bgfast moves 'Position ID: 4HPwATDgc/ABMA' 31`` is read, and the same text was a
    400 from every endpoint (the server joined the text itself, label and all): the one
    reading of an ID, codec.unlabelled_id, serves both. Sent encoded or with its spaces
    as an unencoded '+' (as curl sends them), it is answered as the bare ID is."""
    assert codec.unlabelled_id(labelled) == bare
    for path, query in [
        ("/moves", {"dice": "31"}),
        ("/best", {"dice": "31"}),
        ("/evaluate", {}),
        ("/ids", {}),
    ]:
        status, body = server.get(path, position=labelled, **query)
        assert (status, body) == server.get(path, position=bare, **query), (path, labelled)
        assert status == 200, body
    unencoded = labelled.replace(" ", "+").replace("\n", "%0A").encode()
    status, body = server.exchange(b"GET /moves?dice=31&position=" + unencoded + b" HTTP/1.1")
    assert (status, body) == server.get("/moves", position=bare, dice="31")
    status, body = server.post("/play", {"position": labelled, "dice": "31", "move": "8/5 6/5"})
    assert (status, body["legal"], body["move"]) == (200, True, "8/5 6/5"), body


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (f"Position ID: {START[:-1]}", "a Position ID has 14 characters, not 13"),
        (f"Position ID: {START} Match ID: cAkAAAAAAAA", "14 + 12 characters"),
        ("Position ID:", "holds no Position ID"),
    ],
)
def test_a_labelled_id_that_does_not_read_is_refused_in_http_terms(
    server: HttpServer, sent: str, said: str
) -> None:
    """The refusal of 'Position ID: 4HPwATDgc/ABM' said "bgfast.Game.from_gnubg_id or
    Game.from_xgid reads it" (the Python package's, not the API's) and to encode '+' as
    %2B, where the only spaces were the label's. It names what is wrong, no Python name,
    and gives the '+' hint only for a space a '+' may have become."""
    unencoded = sent.replace(" ", "+").encode()
    for status, body in (
        server.get("/moves", position=sent, dice="31"),
        server.exchange(b"GET /moves?dice=31&position=" + unencoded + b" HTTP/1.1"),
    ):
        assert (status, body["error"]["parameter"]) == (400, "position"), body
        message = body["error"]["message"]
        assert said in message, message
        for python in ("bgfast.", "Game.", "from_gnubg_id", "from_xgid", "from_id", "%2B"):
            assert python not in message, message
    # A space a '+' may have become, outside the label, still has the hint.
    status, body = server.get("/moves", position=f"Position ID: {START[:-2]} A", dice="31")
    assert status == 400 and "%2B" in body["error"]["message"], body


def test_a_labelled_finished_game_is_refused_as_over(server: HttpServer) -> None:
    """R15: a finished game given with its labels is refused as the bare ID is."""
    for text, won in FINISHED[:2]:
        position, _, match = text.partition(":")
        labelled = f"Position ID: {position}" + (f" Match ID: {match}" if match else "")
        status, body = server.get("/moves", position=labelled, dice="31")
        assert (status, body["error"]["type"]) == (400, "GameOverError"), body
        assert won in body["error"]["message"]
