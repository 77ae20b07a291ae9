"""``bgfast.hint``'s play values checked against GNU Backgammon's own 0-ply ``hint``.

For each play of a roll, gnubg prints the side that moved's cubeless chances after the play
and the play's cubeful value at the stakes: the opponent, on roll next, takes its best cube
action by Janowski's model (cube life 0.68 in contact) and the mover gets the rest. Here
bgfast's :func:`bgfast.hint.values_after_play` is given gnubg's OWN printed chances, so
the two networks' differences drop out and what is compared is the composition alone: the
chances turned round to the opponent, its stakes (cube owner and score turned round), its
cube action, the value turned back, and in a match the EMG of the match-winning chances.
``tests/test_hint.py`` checks the same function against bgfast's native cube model.

gnubg's values and bgfast's from the same printed chances agree to the printed digits
(within 5e-6 in equity, 5e-7 in match-winning chances, over some 400 plays a set of
stakes). One gnubg process a set of stakes (``tests/gnubg_program.py``); the test fails,
not skips, without the program.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from bgfast import Position
from bgfast.cubeful import DEFAULT_CUBE_LIFE, Stakes
from bgfast.hint import values_after_play

import gnubg_program

Floats = npt.NDArray[np.floating[Any]]

DATA = Path(__file__).parent / "data"

#: Contact positions of the wildbg corpus, with the side to move on roll.
POSITIONS = [
    line.strip()
    for line in (DATA / "wildbg_contact.csv").read_text().splitlines()[::97]
    if line.strip()
][:8]
ROLLS = [(3, 1), (6, 6), (5, 2), (4, 3)]


def _comparable(pid: str, dice: tuple[int, int]) -> bool:
    """Whether ``dice`` can be played and every play leaves a contact position: gnubg's
    cube life is 0.68 there (contact and crashed alike), bgfast's default; after a play
    that breaks contact gnubg takes a race's cube life from the pip count, which bgfast's
    hint does not. (For a roll that cannot be played, gnubg's hint lists nothing.)"""
    moves = Position.from_id(pid).moves(dice)
    return not moves[0].is_pass and not any(move.result.is_race for move in moves)


#: The positions and rolls compared.
CASES = [(pid, dice) for pid in POSITIONS for dice in ROLLS if _comparable(pid, dice)]

#: gnubg's most digits (``set output digits 6``): chances and money equities to 6 decimals,
#: match-winning chances as a percentage to 5 decimals (7 decimals of the fraction).
DIGITS = 6
HALF_CHANCE = 0.5 * 10.0**-DIGITS
HALF_EQUITY = 0.5 * 10.0**-DIGITS
HALF_MWC = 0.5 * 10.0 ** -(DIGITS + 1)
#: gnubg computes in single precision: some dozens of float32 operations on numbers of
#: order one (each within 6e-8) before it prints.
FLOAT32_SLACK = 2e-6

#: gnubg's cube commands once ``set turn 1`` has made its player 1 the side to move.
CUBE_COMMANDS = {
    (1, "centred"): ["set cube centre"],
    (2, "mover"): ["set cube value 2", "set cube owner 1"],
    (2, "opponent"): ["set cube value 2", "set cube owner 0"],
    (4, "opponent"): ["set cube value 4", "set cube owner 0"],
}


def _money(cube: tuple[int, str], jacoby: bool, beavers: bool = False) -> tuple[Stakes, list[str]]:
    return (
        Stakes.check(cube=cube, jacoby=jacoby, beavers=beavers),
        [
            f"set jacoby {'on' if jacoby else 'off'}",
            f"set beavers {3 if beavers else 0}",
            "new game",
        ],
    )


def _match(
    score: tuple[int, int], cube: tuple[int, str], crawford: bool, length: int = 7
) -> tuple[Stakes, list[str]]:
    """A match at ``score`` (the side to move first); gnubg's ``set score`` takes its
    player 0 (the opponent here) first."""
    mover, opponent = score
    return (
        Stakes.check(match_length=length, score=score, cube=cube, crawford=crawford),
        [
            f"new match {length}",
            f"set score {opponent} {mover}",
            f"set crawford {'on' if crawford else 'off'}",
        ],
    )


STAKES = [
    _money((1, "centred"), jacoby=False),
    _money((1, "centred"), jacoby=True),  # gnubg's default for money
    _money((2, "mover"), jacoby=False),
    _money((2, "opponent"), jacoby=False),
    _money((4, "opponent"), jacoby=True),  # Jacoby matters only with the cube centred
    _money((1, "centred"), jacoby=False, beavers=True),  # a beaver changes no value
    _match((0, 0), (1, "centred"), crawford=False),
    _match((2, 4), (1, "centred"), crawford=False),
    _match((4, 3), (2, "mover"), crawford=False),
    _match((3, 4), (2, "opponent"), crawford=False),
    _match((1, 1), (4, "opponent"), crawford=False),
    _match((2, 6), (1, "centred"), crawford=True),  # the Crawford game, the trailer moving
    _match((6, 2), (1, "centred"), crawford=True),  # the Crawford game, the leader moving
    _match((3, 6), (1, "centred"), crawford=False),  # post-Crawford, the trailer moving
    _match((6, 3), (1, "centred"), crawford=False),  # post-Crawford, the leader moving
    _match((6, 6), (1, "centred"), crawford=False),  # double match point
    _match((0, 3), (2, "opponent"), crawford=False, length=5),
    _match((1, 1), (2, "mover"), crawford=False, length=3),  # 2-away each: a dead cube
]

_NUMBER = r"[+-]?\d+\.\d+"
#: ``    1. Cubeful 0-ply    20/16       Eq.: +0.818660`` or ``MWC:  77.50700%``, then
#: the chances line ``W WG WBG - L LG LBG`` of the side that moved.
_PLAY = re.compile(rf"^\s*\d+\.\s+Cubeful 0-ply\s+(.*?)\s+(Eq\.:|MWC:)\s+({_NUMBER})%?")


@dataclass
class Play:
    """One play gnubg listed: its chances and its printed cubeful values."""

    chances: tuple[float, ...]
    equity: float | None = None
    mwc: float | None = None


def _gnubg_hints(stakes: Stakes, setup: list[str]) -> list[dict[str, Play]]:
    """gnubg's 0-ply hints for each of :data:`CASES` at ``stakes``: the plays by name."""
    cube = CUBE_COMMANDS[(stakes.cube_value, stakes.cube_owner)]
    commands = [*gnubg_program.SETUP, f"set output digits {DIGITS}", *setup]
    for pid, (a, b) in CASES:
        # The turn first: ``set turn`` swaps the board, ``set board`` then sets it for the
        # side on roll, as bgfast reads the position ID.
        commands += ["set turn 1", f"set board {pid}", *cube, f"set dice {a} {b}"]
        commands += ["set output mwc off", "hint 1000"]
        if stakes.is_match:  # the same hint with match-winning chances
            commands += ["set output mwc on", "hint 1000"]
    output = gnubg_program.run(commands, timeout=120)
    blocks = output.split("The dice have been set to")[1:]
    assert len(blocks) == len(CASES), output[-3000:]
    hints = []
    for block in blocks:
        plays: dict[str, Play] = {}
        lines = block.splitlines()
        for line, following in zip(lines, lines[1:]):
            found = _PLAY.match(line)
            if found is None:
                continue
            name, kind, number = found.groups()
            chances = tuple(float(x) for x in following.split() if x != "-")
            assert len(chances) == 6, following
            play = plays.setdefault(name, Play(chances))
            assert play.chances == chances  # the two hints value the same chances
            if kind == "MWC:":
                play.mwc = float(number) / 100.0
            else:
                play.equity = float(number)
        hints.append(plays)
    return hints


def _rounding_spread(value_of: Callable[[Floats], Floats], mine: Floats) -> Floats:
    """How far each value can move when each of the five chances moves by the rounding of
    its printed digits (at most :data:`HALF_CHANCE` either way, within 0 and 1): the
    largest move of each chance alone, added up. The value is continuous and piecewise
    linear or smooth in the chances, so that bounds the move of the printed ones."""
    base = value_of(mine)
    spread = np.zeros(len(mine))
    for k in range(5):
        largest = np.zeros(len(mine))
        for step in (-HALF_CHANCE, HALF_CHANCE):
            moved = mine.copy()
            moved[:, k] = np.clip(moved[:, k] + step, 0.0, 1.0)
            largest = np.maximum(largest, np.abs(value_of(moved) - base))
        spread += largest
    return spread


@pytest.mark.parametrize(("stakes", "setup"), STAKES, ids=[s.words() for s, _ in STAKES])
def test_play_values_agree_with_gnubg_hint(stakes: Stakes, setup: list[str]) -> None:
    assert len(CASES) >= 16
    hints = _gnubg_hints(stakes, setup)
    names: list[str] = []
    rows: list[tuple[float, ...]] = []
    printed: list[Play] = []
    for (pid, dice), plays in zip(CASES, hints):
        # gnubg lists every play of the roll, named as bgfast names them: the same position.
        legal = {str(move) for move in Position.from_id(pid).moves(dice)}
        assert set(plays) == legal, (pid, dice)
        for name, play in plays.items():
            names.append(f"{pid} {dice[0]}{dice[1]} {name}")
            win, wg, wbg, _lose, lg, lbg = play.chances
            rows.append((win, wg, wbg, lg, lbg))
            printed.append(play)
    mine = np.array(rows, dtype=np.float64)

    def mwc_of(p: Floats) -> Floats:
        return values_after_play(p, stakes, DEFAULT_CUBE_LIFE)

    def equity_of(p: Floats) -> Floats:
        # Money values are per unit of the cube, as gnubg prints them; in a match gnubg
        # prints the EMG of the match-winning chances (mwc2eq) at the cube now.
        values = mwc_of(p)
        return np.array([stakes.emg(v) for v in values]) if stakes.is_match else values

    checks = [("equity", equity_of, [p.equity for p in printed], HALF_EQUITY)]
    if stakes.is_match:
        checks.append(("mwc", mwc_of, [p.mwc for p in printed], HALF_MWC))
    for what, value_of, theirs, half_printed in checks:
        assert all(t is not None for t in theirs)
        gnubg = np.array(theirs, dtype=np.float64)
        ours = value_of(mine)
        # Each side of the comparison rounds: gnubg's chances to their digits (the spread
        # they give our value), gnubg's value to its own, gnubg's single precision.
        tolerance = _rounding_spread(value_of, mine) + half_printed + FLOAT32_SLACK
        off = np.abs(ours - gnubg)
        worst = int(np.argmax(off - tolerance))
        assert np.all(off <= tolerance), (
            f"{what} of {names[worst]}: bgfast {ours[worst]:.7f}, gnubg {gnubg[worst]:.7f},"
            f" chances {printed[worst].chances}, tolerance {tolerance[worst]:.2g}"
        )
        # The rounding leaves the comparison sharp: a few millionths for most plays.
        assert np.median(tolerance) < 2e-5
    if stakes.for_opponent().why_no_double() is None:
        # The opponent's cube action is exercised: after some plays it doubles and the
        # mover passes, losing the cube's value (-1 in money points at the cube now).
        assert any(p.equity == -1.0 for p in printed)
