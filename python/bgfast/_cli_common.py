"""What the command-line tools share: argument types worded for the command line (the
library's own messages name Python arguments), and the words of their tables."""

from __future__ import annotations

import argparse

from bgfast._core import BgfastError, Move
from bgfast.cubeful import (
    DEFAULT_CUBE_LIFE,
    GNUBG_CUBE_LIFE,
    CubeLife,
    Stakes,
    cube_life_from_text,
)
from bgfast.state import GameState
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


def cube_life(text: str) -> CubeLife:
    """``--cube-life``: a number from 0 to 1, or ``gnubg`` (GNU Backgammon's index, by
    position)."""
    try:
        return cube_life_from_text(text)
    except BgfastError:
        raise argparse.ArgumentTypeError(
            f"expected a number from 0 to 1 or {GNUBG_CUBE_LIFE}, not {text!r}"
        ) from None


def add_cube_life(
    parser: argparse.ArgumentParser, default: CubeLife | None = DEFAULT_CUBE_LIFE
) -> None:
    """Declares ``--cube-life`` on a command that takes cube decisions; ``default=None``
    for one that takes them only with another option, to tell when it was given."""
    parser.add_argument(
        "--cube-life",
        type=cube_life,
        default=default,
        help=f"cube life index of the cubeful model, from 0 to 1 (default {DEFAULT_CUBE_LIFE}),"
        f" or {GNUBG_CUBE_LIFE}: GNU Backgammon's index, by position (as its eval and hint)",
    )


def before_the_opening_roll(text: str, state: GameState) -> str:
    """Why an ID of a game before its opening roll (``state``) is refused, and the way on:
    the bare Position ID, whose side to move is about to roll."""
    return (
        f"{text.strip()}: nobody is on roll before the opening roll (R3): pass the bare"
        f" Position ID ({state.position.id}) for the position with the side to move about"
        " to roll"
    )


def whose_score(stakes: Stakes) -> str:
    """In a match, a note saying whose score is whose (``Stakes.words`` says ``at 3-2``,
    the side to move's first, where an XGID lists player 0's first), to end a line
    with; ``""`` in money play."""
    if not stakes.is_match:
        return ""
    mine, theirs = stakes.score
    return f" (at {mine}-{theirs}: the side to move has {mine}, the opponent {theirs})"
