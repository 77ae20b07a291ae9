"""What the command-line tools share: argument types worded for the command line (the
library's own messages name Python arguments), and the words of their tables."""

from __future__ import annotations

import argparse

from bgfast._core import Move
from bgfast.vocab import ROLL_TEXT, roll_from_text

#: How a table writes the play of a roll with no legal move (the JSON writes ``""``).
NO_PLAY = "(no play)"


def play_words(move: Move) -> str:
    """A play as a table writes it: its notation, or :data:`NO_PLAY` for a pass (R6)."""
    return str(move) or NO_PLAY


def dice(text: str) -> tuple[int, int]:
    """Parses ``31``, ``3-1``, ``3,1`` or ``3 1`` into two dice, in the order given (the
    forms ``bgfast serve http`` takes too)."""
    roll = roll_from_text(text)
    if roll is None:
        raise argparse.ArgumentTypeError(f"dice are {ROLL_TEXT}, not {text!r}")
    return roll
