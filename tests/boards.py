"""Helpers shared by the tests: hand-built positions (each side's checkers in its own
numbering, 25 = bar) and the paths into a saved JSON document."""

from __future__ import annotations

from typing import Any

import numpy as np

from bgfast import Position


def position(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """A position from ``{point: count}`` for each side, in that side's own numbering.

    Checkers not placed are borne off.
    """
    array = np.zeros((2, 25), dtype=np.uint8)
    for row, side in enumerate((mover, opponent)):
        for point, count in side.items():
            array[row, point - 1] = count
    return Position.from_array(array)


def results(pos: Position, d1: int, d2: int) -> set[str]:
    """The Position IDs of every legal result of a roll."""
    return {m.result.id for m in pos.moves(d1, d2)}


def texts(pos: Position, d1: int, d2: int) -> set[str]:
    """The notation of every legal move of a roll."""
    return {str(m) for m in pos.moves(d1, d2)}


def mover_after(pos: Position, d1: int, d2: int) -> list[dict[int, int]]:
    """The mover's checkers after each legal move, as ``{point: count}``."""
    out = []
    for move in pos.moves(d1, d2):
        row = move.result.to_array()[1]  # the mover is the opponent of the result
        out.append({p + 1: int(n) for p, n in enumerate(row) if n})
    return out


def json_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) into a JSON document, the empty one first: where a
    test may edit a saved file."""
    found = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            found += json_paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += json_paths(v, (*prefix, i))
    return found
