"""Position.moves returns a compact sequence whose Move objects are made on access."""

from __future__ import annotations

import pytest

from bgfast import Move, Position


def test_sequence_protocol() -> None:
    moves = Position().moves(3, 1)
    assert len(moves) == 16  # the start, 31: 16 distinct results (tests/data/NOTICE.md)
    listed = list(moves)
    assert all(isinstance(m, Move) for m in listed)
    assert [moves[i] for i in range(16)] == listed
    assert moves[-1] == listed[-1] and moves[-16] == listed[0]
    assert moves[2:5] == listed[2:5] and moves[::-1] == listed[::-1]
    assert all(m in moves for m in listed)
    with pytest.raises(IndexError):
        moves[16]
    with pytest.raises(IndexError):
        moves[-17]
    with pytest.raises(TypeError):
        moves["0"]  # type: ignore[call-overload]


def test_items_are_equal_each_time_and_keep_their_behaviour() -> None:
    start = Position()
    moves = start.moves(6, 5)
    first, again = moves[0], moves[0]
    assert first is not again and first == again and hash(first) == hash(again)
    assert first.origin == start and not first.is_pass
    assert len({m.result for m in moves}) == len(moves) == 7
    assert str(Position().moves(6, 5)[0]) == str(first)
    played = {start.play(m, (6, 5)) for m in moves}
    assert played == {m.result for m in moves}


def test_membership_is_by_origin_and_result() -> None:
    start = Position()
    other = start.moves(6, 5)[0].result.flipped()
    assert start.moves(6, 5)[0] not in start.moves(3, 1)
    assert other.moves(3, 1)[0] not in start.moves(3, 1)
    assert "24/13" not in start.moves(6, 5)


def test_iteration_is_independent() -> None:
    moves = Position().moves(2, 2)
    a, b = iter(moves), iter(moves)
    assert next(a) == next(b)
    assert len(list(a)) == len(moves) - 1


def test_equality_like_a_list() -> None:
    """Equal when they hold equal moves in the same order; unhashable, like a list."""
    start = Position()
    assert start.moves(3, 1) == start.moves(3, 1)
    assert start.moves(3, 1) != start.moves(6, 5)
    assert start.moves(3, 1) != start.moves(6, 5)[0].result.moves(3, 1)
    with pytest.raises(TypeError):
        hash(start.moves(3, 1))
