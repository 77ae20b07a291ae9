"""``Position.moves`` one position at a time, over the contact corpus, all 21 rolls."""

from __future__ import annotations

from typing import Any

from bgfast import Position

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
# Distinct results over the contact corpus, 21 rolls each (tests/data/NOTICE.md).
CONTACT_TOTAL = 218_356 + 185_957


def _all_moves(positions: list[Position]) -> int:
    return sum(len(pos.moves(a, b)) for pos in positions for a, b in ROLLS)


def test_single_call_contact(benchmark: Any, contact: list[Position]) -> None:
    total = benchmark(_all_moves, contact)
    benchmark.extra_info["correct"] = total == CONTACT_TOTAL
    benchmark.extra_info["lists"] = len(contact) * len(ROLLS)
    assert total == CONTACT_TOTAL
