"""``bgfast serve gnubg-external`` from both of gnubg's seats: the board lines gnubg 1.07
really writes to an external player 0 and an external player 1, read at the true score.

gnubg's writer (``ComputerTurn`` in play.c) lays every line out from player 1's side (its
checkers positive, turn +1 when player 1 is on roll, "may double" player 1's then player
0's, "was doubled" 1 whoever doubled) but writes the name and score of its player
``fTurn ^ fMove`` first: player 0's for a roll, double or play question, player 1's for a
take or drop question, whichever seat the external player has. An earlier reader put the
player on turn's first, and so read every question of an external player 1 (and none of
player 0's) at the reversed score: at 4-2 post-Crawford in a 5-point match the trailer
never doubled.
"""

from __future__ import annotations

import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import gnubg_external
import pytest
from gnubg_external import board_line

from bgfast import Game, GameState
from bgfast.serve_gnubg import ExternalPlayer, state_from_external_board

import gnubg_program


@dataclass(frozen=True)
class Seen:
    """What a real line says: the side on roll (the doubler while a double waits), the
    phase, the side asked, the score (player 0, player 1), the cube (value, owner) and the
    Crawford flag."""

    turn: int
    phase: str
    asked: int
    score: tuple[int, int]
    cube: tuple[int, int | None]
    crawford: bool = False


# Lines gnubg 1.07.001 (Debian's 1.07.001-1+b1) wrote to ``bgfast serve gnubg-external``,
# copied from the server's log. Made with ``gnubg -t -q -r`` and these commands: ``set seed
# S``, ``set player E external localhost:PORT``, the other player human, ``new match 7``,
# ``set score 4 2`` (player 0, named gnubg, 4; player 1, named root, 2: ``show score``
# printed "gnubg 4, root 2"), ``double`` by the human when on roll, then the human made
# gnubg at 0 ply (``set player H gnubg``, ``play``) for the rest of the match.
REAL = {
    # external player 0 (seed 3): player 1 doubles at 4-2, player 0 is asked to take
    "player 0 asked to take": (
        "board:root:gnubg:7:2:4:0:-2:0:0:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:1"
        ":0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=1, phase="doubled", asked=0, score=(4, 2), cube=(1, None)),
    ),
    "player 0 asked to roll or double": (
        "board:gnubg:root:7:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-4:6:0:0:0:-4:0:-5:0:0:0:0:1:0:-1"
        ":0:0:0:0:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=0, phase="roll", asked=0, score=(4, 2), cube=(2, 0)),
    ),
    "player 0 asked to play": (
        "board:gnubg:root:7:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-4:6:0:0:0:-4:0:-5:0:0:0:0:1:0:-1"
        ":2:1:2:1:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=0, phase="move", asked=0, score=(4, 2), cube=(2, 0)),
    ),
    # the same match after player 1 won a gammon on the 2-cube: the Crawford game at 4-6
    "player 0 asked to play in the Crawford game": (
        "board:gnubg:root:7:4:6:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1"
        ":5:4:5:4:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        Seen(turn=0, phase="move", asked=0, score=(4, 6), cube=(1, None), crawford=True),
    ),
    # external player 1 (seed 1): player 0 doubles at 4-2, player 1 is asked to take
    "player 1 asked to take": (
        "board:root:gnubg:7:2:4:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:1:-5:0:1:0:0:0:0:-1"
        ":0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=0, phase="doubled", asked=1, score=(4, 2), cube=(1, None)),
    ),
    "player 1 asked to roll or double": (
        "board:gnubg:root:7:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-3:5:0:0:0:-4:-1:-5:0:1:0:0:0:1:1"
        ":0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=1, phase="roll", asked=1, score=(4, 2), cube=(2, 1)),
    ),
    "player 1 asked to play": (
        "board:gnubg:root:7:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-3:5:0:0:0:-4:-1:-5:0:1:0:0:0:1:1"
        ":1:1:1:1:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        Seen(turn=1, phase="move", asked=1, score=(4, 2), cube=(2, 1)),
    ),
    # external player 1 in a 5-point match from seed 11 (set player 1 external, player 0
    # gnubg at 0 ply, new match 5): after the Crawford game, gnubg (player 0) leads 4-2
    "player 1 asked to roll or double after the Crawford game": (
        "board:gnubg:root:5:4:2:0:-1:0:0:0:0:5:0:3:-1:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1"
        ":0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1",
        Seen(turn=1, phase="roll", asked=1, score=(4, 2), cube=(1, None)),
    ),
}


def _seen(state: GameState) -> Seen:
    assert state.player_to_act is not None
    return Seen(
        turn=int(state.turn or 0),
        phase=state.phase,
        asked=state.player_to_act,
        score=state.score,
        cube=(state.cube.value, state.cube.owner),
        crawford=state.crawford,
    )


@pytest.mark.parametrize(("line", "seen"), REAL.values(), ids=list(REAL))
def test_gnubgs_real_lines_read_at_the_true_score_from_both_seats(line: str, seen: Seen) -> None:
    """R20 (the score of a match), R21 (Crawford), R17/R18 (the cube and the doubler)."""
    assert _seen(state_from_external_board(line)) == seen


@pytest.mark.parametrize(("line", "seen"), REAL.values(), ids=list(REAL))
def test_board_line_writes_what_gnubg_writes(line: str, seen: Seen) -> None:
    """The test helper writes each real line back, field for field."""
    assert board_line(state_from_external_board(line), names=("gnubg", "root")) == line


def test_the_trailer_doubles_after_the_crawford_game() -> None:
    """R21: after the Crawford game the trailer (player 1, 2-4 in a 5-point match) doubles
    at once; read at the reversed score it was the leader and rolled."""
    line, _ = REAL["player 1 asked to roll or double after the Crawford game"]
    assert ExternalPlayer("wildbg").reply(line) == "double"
    # the same position and score with the seats exchanged: player 0 trails 2-4
    state = state_from_external_board(line)
    mirrored = state.replace(score=(state.score[1], state.score[0]), turn=0)
    assert state_from_external_board(board_line(mirrored)).score == (2, 4)
    assert ExternalPlayer("wildbg").reply(board_line(mirrored)) == "double"


def test_board_line_round_trips_every_question_from_both_seats() -> None:
    """A 7-point game at 1-4 (R20) in which each side doubles once and the double is
    taken (R17-R19): every roll, play and take question of both seats, written as gnubg
    writes it, reads back at the same score, turn, phase and cube."""
    game = Game(match_length=7, score=(1, 4), seed=3)
    game.roll()  # the opening roll (R3)
    doubled: set[int] = set()
    asked: set[tuple[str, int]] = set()
    while not game.is_over and len(asked) < 6:
        state = game.state
        assert state.player_to_act is not None
        asked.add((state.phase, state.player_to_act))
        read = state_from_external_board(board_line(state))
        assert _seen(read) == _seen(state), state
        assert read.position == state.position
        assert sorted(read.dice or ()) == sorted(state.dice or ())  # gnubg: either order
        if state.phase == "doubled":
            game.take()
        elif state.phase == "roll":
            if game.may_double() and state.turn not in doubled:
                doubled.add(int(state.turn or 0))
                game.double()
            else:
                game.roll()
        else:
            game.play(game.legal_moves()[0])
    assert asked == {(phase, p) for phase in ("roll", "move", "doubled") for p in (0, 1)}


# ------------------------------------------------------------------------- the real program


class _Recording(ExternalPlayer):
    """The server's player, keeping every state it was asked to decide (the hook)."""

    def __init__(self) -> None:
        super().__init__("wildbg")
        self.asked: list[tuple[GameState, str]] = []
        self._record = threading.Lock()

    def decide(self, state: GameState) -> str:
        reply = super().decide(state)
        with self._record:
            self.asked.append((state, reply))
        return reply


_SCORE = re.compile(
    r"The score \(after (\d+) games?\) is: \S+ (\d+), \S+ (\d+) \(match to (\d+) points?"
    r"(?:, (Crawford game|post-Crawford play))?\)"
)


def _games(output: str) -> list[tuple[tuple[int, int], bool]]:
    """The score (player 0, player 1) and Crawford flag at the start of each game gnubg
    played, from the scores it printed after each game (player 0's first)."""
    games = [((0, 0), False)]
    for match in _SCORE.finditer(output):
        score = (int(match.group(2)), int(match.group(3)))
        games.append((score, match.group(5) == "Crawford game"))
    return games[:-1]  # the score after the last game starts none


#: gnubg's seeds for the server as player 0 and as player 1: matches in which the server is
#: asked to roll or double, to play, and to take or drop at unequal scores.
SEEDS = {0: 20, 1: 12}


def test_gnubg_asks_both_seats_at_the_true_score() -> None:
    """Two gnubg programs at once each play a 3-point match at 0 ply against the server,
    one with the server as player 0, one as player 1. Every question the server decided
    (a hook records the states it read) is at the score gnubg printed for that game (R20)
    and its Crawford flag (R21), asks the server's own seat, and the exported matches
    replay against the server's plays."""
    gnubg_program.require()
    players = {seat: _Recording() for seat in (0, 1)}
    outputs: dict[int, str] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        gnubg_external.serving(players[0]) as a0,
        gnubg_external.serving(players[1]) as a1,
    ):
        addresses = {0: a0, 1: a1}

        def play(seat: int) -> None:
            commands = gnubg_external.match_commands(
                addresses[seat], Path(tmp) / f"m{seat}.mat", length=3, seed=SEEDS[seat], player=seat
            )
            outputs[seat] = gnubg_program.run([*commands, "quit"], timeout=300)

        threads = [threading.Thread(target=play, args=(seat,)) for seat in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        mats = {seat: (Path(tmp) / f"m{seat}.mat").read_text() for seat in (0, 1)}
    for seat, player in players.items():
        output = outputs[seat]
        assert "has won the match" in output, output[-2000:]
        games = _games(output)
        # the states in order, one run of equal scores per game
        runs: list[tuple[tuple[int, int], bool]] = []
        for state, _ in player.asked:
            assert state.player_to_act == seat, state
            key = (state.score, state.crawford)
            if not runs or runs[-1] != key:
                runs.append(key)
        assert runs == games, (seat, runs, games)
        # every kind of question came at an unequal score, where a reversed one shows
        unequal = {s.phase for s, _ in player.asked if s.score[0] != s.score[1]}
        assert unequal == {"roll", "move", "doubled"}, (seat, unequal, "pick other SEEDS")
        records = [{"received": board_line(s), "reply": reply} for s, reply in player.asked]
        found = gnubg_external.replay(mats[seat], seat, records)
        assert found.server_plays >= 5
