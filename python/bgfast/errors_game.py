"""The game layer's exceptions, kept under their first address.

They live in :mod:`bgfast.errors` with every other exception bgfast raises; this module
re-exports them so that ``from bgfast.errors_game import InvalidSaveError`` keeps working.
"""

from __future__ import annotations

from bgfast.errors import (
    GameStateError,
    InvalidIdError,
    InvalidSaveError,
    InvalidStateError,
    MatchOptionError,
    shown,
)

__all__ = [
    "GameStateError",
    "InvalidIdError",
    "InvalidSaveError",
    "InvalidStateError",
    "MatchOptionError",
    "shown",
]
