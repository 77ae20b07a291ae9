"""The states the tests of rollouts of a ``GameState`` start from: a post-Crawford match
under the Holland rule."""

from __future__ import annotations

from typing import Any

from bgfast import GameState, Position

#: A contact position whose mover is on the bar (from the wildbg contact corpus).
CONTACT = Position.from_id("4PPgAQjg2+ABMA")


def post_crawford(**changes: Any) -> GameState:
    """A 5-point match at 4-2 after the Crawford game, the trailer (player 1) on roll in
    :data:`CONTACT`, under the Holland rule with no turn played yet; ``changes`` replace
    fields."""
    fields: dict[str, Any] = {
        "position": CONTACT,
        "phase": "roll",
        "turn": 1,
        "match_length": 5,
        "score": (4, 2),
        "crawford": False,
        "holland": True,
        "turns_played": (0, 0),
    }
    fields.update(changes)
    return GameState(**fields)
