"""Differential test: bgfast's legal moves against GNU Backgammon's own generator.

For every (position, roll) pair, the SET of resulting positions must be identical to what
``gnubg_nn.moves`` lists (RULES.md "A move is its result"; R4-R14). Positions come from the
wildbg corpora in ``tests/data`` and from random legal play from the start with a fixed seed.
The move text of every legal move is also checked against GNU Backgammon's formatter
(``gnubg.move_tuple_to_string``).

How ``gnubg_nn.moves(board, d1, d2)`` is used (learned by experiment, see
``test_gnubg_encoding``): ``board`` is ``[not_on_roll, on_roll]``, each 25 counts in that
side's own numbering with index 24 the bar. It returns position keys; decoding a key gives
the board after the move in the same orientation, ``[not_on_roll, on_roll after moving]``,
which is bgfast's ``result.to_array()`` row for row (the result has the opponent to move). An
empty tuple means the roll cannot be played.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from bgfast import Position

gnubg_nn = pytest.importorskip("gnubg_nn")
gnubg = pytest.importorskip("gnubg")

DATA = Path(__file__).parent / "data"
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
assert len(ROLLS) == 21

Board = tuple[tuple[int, ...], tuple[int, ...]]


def corpus(name: str) -> list[Position]:
    lines = (DATA / name).read_text().split()
    return [Position.from_id(line) for line in lines]


def random_play(seed: int, count: int) -> list[Position]:
    """``count`` positions reached by uniformly random legal moves from the start."""
    rng = random.Random(seed)
    out: list[Position] = []
    pos = Position()
    while len(out) < count:
        if pos.outcome is not None:
            pos = Position()
        out.append(pos)
        moves = pos.moves(rng.randint(1, 6), rng.randint(1, 6))
        pos = rng.choice(moves).result
    return out


def board_of(pos: Position) -> list[list[int]]:
    """GNU Backgammon's board for the side to move: ``[not_on_roll, on_roll]``."""
    mover, opponent = pos.to_array().tolist()
    return [opponent, mover]


def as_board(rows: Sequence[Sequence[int]]) -> Board:
    return (tuple(rows[0]), tuple(rows[1]))


def bgfast_results(pos: Position, d1: int, d2: int) -> set[str]:
    """Each result's Position ID seen from the side that moved (GNU Backgammon's view)."""
    return {m.result.flipped().id for m in pos.moves(d1, d2)}


HEX = str.maketrans("ABCDEFGHIJKLMNOP", "0123456789abcdef")


def key_to_id(key: str) -> str:
    """A gnubg position key (20 letters A-P, one per nibble) as its Position ID: the ID is
    the base64 of the same 10 bytes."""
    return base64.b64encode(bytes.fromhex(key.translate(HEX))).decode()[:14]


def gnubg_results(pos: Position, d1: int, d2: int) -> set[str]:
    keys = gnubg_nn.moves(board_of(pos), d1, d2)
    if not keys:
        # No legal play (R10): the one result is the unchanged board.
        return {pos.id}
    return {key_to_id(k) for k in keys}


def compare(positions: list[Position]) -> tuple[int, int]:
    """Asserts identical result sets for every roll; returns the (position, roll) pairs
    checked and the total number of results."""
    pairs = results = 0
    for pos in positions:
        if pos.outcome is not None:
            continue
        for d1, d2 in ROLLS:
            ours = bgfast_results(pos, d1, d2)
            theirs = gnubg_results(pos, d1, d2)
            assert ours == theirs, (
                f"{pos.id} {d1}-{d2}: only bgfast {sorted(ours - theirs)[:3]}, "
                f"only gnubg {sorted(theirs - ours)[:3]}"
            )
            pairs += 1
            results += len(ours)
    return pairs, results


def test_gnubg_encoding() -> None:
    """The board orientation and key decoding the comparison relies on."""
    start = Position()
    board = board_of(start)
    assert gnubg_nn.position_id(board) == start.id
    # 6-5 from the start: 24/13 is one of gnubg's results, in [not_on_roll, on_roll] form.
    after = [list(row) for row in board]
    after[1][23] -= 1
    after[1][12] += 1
    keys = gnubg_nn.moves(board, 6, 5)
    assert as_board(after) in {as_board(gnubg_nn.board_from_position_key(k)) for k in keys}
    # A key is the Position ID's 10 bytes, one letter a nibble.
    for k in keys:
        assert key_to_id(k) == gnubg_nn.position_id(
            [list(r) for r in gnubg_nn.board_from_position_key(k)]
        )
    assert key_to_id(gnubg_nn.key_of_board(board)) == start.id
    # An asymmetric position: the orientation must match bgfast's result row for row.
    pos = Position.from_id("m/oZAIDb7UQAAA")
    assert gnubg_nn.position_id(board_of(pos)) == pos.id
    theirs = {
        as_board(gnubg_nn.board_from_position_key(k)) for k in gnubg_nn.moves(board_of(pos), 6, 5)
    }
    assert theirs == {as_board(m.result.to_array().tolist()) for m in pos.moves(6, 5)}
    for move in pos.moves(6, 5):
        assert move.result.flipped().id == gnubg_nn.position_id(move.result.to_array().tolist())


def test_no_play_is_an_empty_tuple() -> None:
    # The mover on the bar against a closed board: 6-5 cannot enter (R12, R10).
    array = [[0] * 25, [0] * 25]
    array[0][24] = 1
    array[0][5] = 14
    for p in range(6):
        array[1][p] = 2
    array[1][23] = 3
    pos = Position.from_array(array)
    assert gnubg_nn.moves(board_of(pos), 6, 5) == ()
    (move,) = pos.moves(6, 5)
    assert move.is_pass
    assert move.result == pos.flipped()


def test_contact_corpus_and_random_play() -> None:
    # The totals of tests/data/NOTICE.md: 218,356 results for doubles, 185,957 otherwise.
    assert compare(corpus("wildbg_contact.csv")) == (21_000, 218_356 + 185_957)
    pairs, _ = compare(random_play(seed=20261129, count=500))
    assert pairs == 500 * 21


@pytest.mark.slow
def test_everything_slow() -> None:
    positions = (
        corpus("wildbg_contact.csv") + corpus("wildbg_race.csv") + random_play(seed=1, count=20_000)
    )
    pairs, _ = compare(positions)
    assert pairs >= 400_000


def gnubg_text(pos: Position, steps: list[tuple[int, int, bool]]) -> str:
    """GNU Backgammon's notation for a move of ``pos`` (its FormatMove)."""
    flat: list[int] = []
    for frm, to, _ in steps:
        flat += [frm, to]
    return str(gnubg.move_tuple_to_string(tuple(flat), tuple(map(tuple, board_of(pos)))))


@pytest.mark.parametrize("seed", [7])
def test_move_text_matches_gnubg(seed: int) -> None:
    positions = [Position(), *corpus("wildbg_contact.csv")[:150], *random_play(seed, 150)]
    checked = 0
    for pos in positions:
        if pos.outcome is not None:
            continue
        for d1, d2 in ROLLS:
            for move in pos.moves(d1, d2):
                if move.is_pass:
                    assert str(move) == ""
                    continue
                assert str(move) == gnubg_text(pos, move.steps), (pos.id, d1, d2, move.steps)
                checked += 1
    assert checked > 10_000
