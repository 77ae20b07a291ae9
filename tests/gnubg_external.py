"""GNU Backgammon playing against ``bgfast serve gnubg-external``: start the server, let gnubg
play a match against it (``set player N external HOST:PORT``), read the match gnubg
exported (``export match mat``) and replay it against the server's log.

The replay is the check that matters: gnubg records an illegal reply from an external player
as a dance, silently, so a match that finishes proves nothing; every play of the server's
side in the exported match must be legal and reach the result of the play the server sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bgfast import Game, GameState, Position
from bgfast.codec import fibs_board_of
from bgfast.serve_gnubg import ExternalPlayer, serve

import gnubg_program


def board_line(state: GameState, names: tuple[str, str] = ("gnubg", "bgfast")) -> str:
    """The board line gnubg 1.07 writes to its external player about ``state`` (``names``:
    players 0 and 1), as ``ComputerTurn`` in gnubg's play.c writes it: the layout of
    ``fibs_board_of`` (player 1's checkers positive, turn +1 when player 1 is on roll, the
    "may double" flags player 1's then player 0's), with the name and score of gnubg's
    player ``fTurn ^ fMove`` first (the player asked xor the player on roll): player 0's
    for a roll, double or play question, player 1's for a take or drop question; and "was
    doubled" 1 whoever doubled (gnubg passes 0 for its turn argument). Real lines, from
    both seats, are in test_serve_gnubg_seats.py."""
    fields = fibs_board_of(state, names[1], names[0]).split(":")
    if state.offer is None:  # a roll, double or play question: player 0 first
        fields[1], fields[2] = fields[2], fields[1]
        fields[4], fields[5] = fields[5], fields[4]
    else:  # a take or drop question: player 1 first, as fibs_board_of writes
        fields[40] = "1"
    return ":".join(fields)


def state_to_act(
    position: Position,
    dice: tuple[int, int] | None,
    *,
    cube: tuple[int, int | None] = (1, None),
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
) -> GameState:
    """Player 0 on turn in ``position`` with the cube at ``(value, owner)``: to play
    ``dice``, or to roll for ``None``."""
    state = Game(match_length=match_length, score=score, crawford=crawford, seed=1).state
    return state.replace(
        position=position,
        phase="roll" if dice is None else "move",
        turn=0,
        dice=dice,
        cube=dataclasses.replace(state.cube, value=cube[0], owner=cube[1]),
    )


#: A move entry of a .mat file: the dice, then the play (empty for a dance).
_ROLL = re.compile(r"^([1-6])([1-6]):\s*(.*)$")
_ENTRY_START = re.compile(r"(?:(?<=\s)|^)(?:[1-6][1-6]:|Doubles|Takes|Drops|Beavers|Wins|Resigns)")


class Server:
    """``bgfast serve gnubg-external`` in a child process, on a free port of 127.0.0.1."""

    def __init__(self, policy: str = "wildbg", *, log: str | os.PathLike[str] | None = None):
        self.log = Path(log) if log else Path(tempfile.mkstemp(suffix=".jsonl")[1])
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bgfast",
                "serve",
                "gnubg-external",
                "--port",
                "0",
                "--policy",
                policy,
                "--log",
                str(self.log),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        match = re.search(r"listening on ([\d.]+):(\d+)", first)
        if not match:
            self.process.kill()
            raise AssertionError(f"the server did not start: {first!r} {self.process.stderr}")
        self.host, self.port = match.group(1), int(match.group(2))

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def records(self) -> list[dict[str, object]]:
        """The exchanges logged so far."""
        with open(self.log, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.process.kill()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def match_commands(
    address: str, mat: str | os.PathLike[str], *, length: int = 5, seed: int = 1, player: int = 0
) -> list[str]:
    """gnubg's commands: player ``player`` is the server, the other gnubg at 0 ply; a
    ``length``-point match from ``seed``, exported to ``mat``."""
    other = 1 - player
    return [
        "set threads 1",
        f"set seed {seed}",
        f"set player {player} external {address}",
        f"set player {other} gnubg",
        f"set player {other} chequerplay evaluation plies 0",
        f"set player {other} cubedecision evaluation plies 0",
        f"new match {length}",
        f"export match mat {mat}",
    ]


def play_match(
    address: str,
    *,
    length: int = 5,
    seed: int = 1,
    player: int = 0,
    analyse: bool = False,
    timeout: float = 600,
) -> tuple[str, str]:
    """gnubg plays a match against the server at ``address``; returns gnubg's output and
    the exported ``.mat`` text. With ``analyse``, gnubg then analyses the match at 0 ply
    and prints its statistics (``show statistics match``)."""
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp) / "match.mat"
        commands = match_commands(address, mat, length=length, seed=seed, player=player)
        if analyse:
            commands += [
                "set analysis chequerplay evaluation plies 0",
                "set analysis cubedecision evaluation plies 0",
                "analyse match",
                "show statistics match",
            ]
        output = gnubg_program.run([*commands, "quit"], timeout=timeout)
        assert mat.exists(), output[-3000:]
        return output, mat.read_text(encoding="utf-8", errors="replace")


@contextmanager
def serving(player: ExternalPlayer, **options: Any) -> Iterator[str]:
    """:func:`bgfast.serve_gnubg.serve` in this process on a thread of its own, on a free
    port of 127.0.0.1, with ``options``: yields its address (``host:port``)."""
    started = threading.Event()
    where: dict[str, object] = {}

    def run() -> None:
        async def main() -> None:
            stop = asyncio.Event()
            where["loop"], where["stop"] = asyncio.get_running_loop(), stop

            def ready(host: str, port: int) -> None:
                where["address"] = f"{host}:{port}"
                started.set()

            await serve(player, port=0, ready=ready, stop=stop, threads=2, **options)

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(30), "the server did not start"
    try:
        yield str(where["address"])
    finally:
        loop, stop = where["loop"], where["stop"]
        assert isinstance(loop, asyncio.AbstractEventLoop) and isinstance(stop, asyncio.Event)
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)


# ------------------------------------------------------------------------- reading .mat


@dataclass
class Action:
    """One entry of a .mat game: ``player`` rolled ``dice`` and played ``play`` (``""`` a
    dance), or a cube action / the end (``kind``: double, take, drop, beaver, win, resign)."""

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    text: str = ""


@dataclass
class MatGame:
    """The actions of one game, in order."""

    number: int
    actions: list[Action] = field(default_factory=list)


def _entries(body: str) -> Iterator[tuple[int, str]]:
    """``(column start, text)`` of each entry on the line after ``N) ``."""
    starts = [m.start() for m in _ENTRY_START.finditer(body)]
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(body)
        yield start, body[start:end].strip()


def _action(player: int, text: str) -> Action:
    roll = _ROLL.match(text)
    if roll:
        dice = (int(roll.group(1)), int(roll.group(2)))
        return Action(player, "move", dice, roll.group(3).strip(), text)
    word = text.split()[0].lower()
    kinds = {"doubles": "double", "takes": "take", "drops": "drop", "beavers": "beaver"}
    return Action(player, kinds.get(word, word.rstrip("s")), text=text)


def read_mat(text: str) -> list[MatGame]:
    """The games of a .mat file as gnubg exports it: two columns, player 0 left."""
    games: list[MatGame] = []
    right = 0  # where the right column starts
    for line in text.splitlines():
        header = re.match(r"^\s*Game (\d+)", line)
        if header:
            games.append(MatGame(int(header.group(1))))
            continue
        names = re.match(r"^(\s*\S.*?:\s*\d+\s+)\S", line)
        if games and names and not games[-1].actions and ":" in line and ")" not in line:
            right = len(names.group(1))
            continue
        numbered = re.match(r"^(\s*\d+\)\s)(.*)$", line)
        if numbered and games:
            offset = len(numbered.group(1))
            entries = list(_entries(numbered.group(2)))
            for k, (start, entry) in enumerate(entries):
                column = 1 if offset + start >= right - 2 else 0
                player = k if len(entries) == 2 else column
                games[-1].actions.append(_action(player, entry))
            continue
        won = re.match(r"^(\s*)(Wins .*)$", line)
        if won and games:
            player = 1 if len(won.group(1)) >= right - 2 else 0
            games[-1].actions.append(Action(player, "win", text=won.group(2).strip()))
    return games


# ------------------------------------------------------------------------- replaying


@dataclass
class Replayed:
    """What the replay of one match found."""

    games: int = 0
    server_plays: int = 0
    server_cube_actions: int = 0


def replay(mat_text: str, server: int, records: Sequence[dict[str, object]]) -> Replayed:
    """Replays every game of ``mat_text``: every play must be legal (``Position.play``
    raises otherwise, naming the rule), and each of the server's (player ``server``) must
    reach the result of the play the server sent, in the order of its log ``records``
    (the move replies: boards with dice). The server's cube actions must be its replies
    too. Raises ``AssertionError`` naming the game and action otherwise."""
    sent_moves = [r for r in records if _has_dice(str(r["received"]))]
    sent_cube = [r["reply"] for r in records if not _has_dice(str(r["received"]))]
    moves = iter(sent_moves)
    found = Replayed()
    cube_replies = [str(x) for x in sent_cube]
    server_cube = []
    for game in read_mat(mat_text):
        found.games += 1
        board = Position()  # seen from player 0
        for index, action in enumerate(game.actions):
            where = f"game {game.number}, action {index + 1} ({action.text!r})"
            if action.player == server and action.kind in ("double", "take", "drop"):
                server_cube.append(action.kind)
            if action.kind != "move":
                continue
            assert action.dice is not None
            origin = board if action.player == 0 else board.flipped()
            try:
                result = origin.play(action.play, action.dice)
            except Exception as error:
                raise AssertionError(f"{where}: illegal: {error}") from error
            if action.player == server:
                found.server_plays += 1
                record = next(moves, None)
                assert record is not None, f"{where}: the server's log has no such play"
                reply = str(record["reply"])
                seen = _board_position(str(record["received"]))
                assert seen == origin, f"{where}: the server saw {seen.id}, not {origin.id}"
                assert not reply.startswith("Error"), f"{where}: the server answered {reply}"
                sent = origin.play(reply, action.dice)
                assert sent == result, (
                    f"{where}: the match records {action.play!r}, the server sent {reply!r}"
                )
            board = result if action.player == 1 else result.flipped()
    assert next(moves, None) is None, "the server sent plays the match does not record"
    # every double, take and drop of the server's side is one of its replies
    replied = [r for r in cube_replies if r in ("double", "take", "drop")]
    assert server_cube == replied, (server_cube, replied)
    found.server_cube_actions = len(server_cube)
    return found


def _has_dice(line: str) -> bool:
    parts = line.split(":")
    return len(parts) == 53 and parts[33] != "0"


def _board_position(line: str) -> Position:
    from bgfast.serve_gnubg import state_from_external_board

    return state_from_external_board(line).position


# ------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class Statistics:
    """gnubg's ``show statistics match`` for one player: error rates (mEMG per decision,
    as gnubg prints "Error rate mEMG (MWC)") and decisions counted."""

    checker_decisions: int
    checker_rate: float
    cube_decisions: int
    cube_rate: float
    overall_rate: float
    rating: str


def statistics(output: str, player: int) -> Statistics:
    """Player ``player``'s figures from gnubg's ``show statistics match`` (its columns are
    at fixed places: where the player names stand in the ``Player`` line)."""
    lines = output.splitlines()
    table_start = max(k for k, line in enumerate(lines) if line == "Chequerplay statistics")
    header = max(k for k in range(table_start) if lines[k].startswith("Player "))
    names = [m.start() for m in re.finditer(r"\S+", lines[header])][1:3]
    table = lines[header:]

    def cell(label: str, after: str = "") -> str:
        begin = next(k for k, line in enumerate(table) if line.startswith(after)) if after else 0
        for line in table[begin:]:
            if line.startswith(label):
                end = names[1] if player == 0 else len(line)
                return line[names[player] : end].strip()
        raise AssertionError(f"no {label!r} in gnubg's statistics")

    def rate(after: str) -> float:
        return float(cell("Error rate mEMG (MWC)", after).split()[0])

    return Statistics(
        checker_decisions=int(cell("Unforced moves")),
        checker_rate=rate("Chequerplay statistics"),
        cube_decisions=int(cell("Total cube decisions")),
        cube_rate=rate("Cube statistics"),
        overall_rate=rate("Overall statistics"),
        rating=cell("Overall rating"),
    )
