"""GNU Backgammon's own program (Debian's ``gnubg`` package, ``/usr/games/gnubg``) driven as
an oracle: commands in, text out, ``gnubg -t -q -r < commands``.

CI installs the program (``.ci/run``: ``apt-get install -y gnubg``); a machine without it
fails these tests with a message saying how to get it, rather than skipping them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

PROGRAM = shutil.which("gnubg") or "/usr/games/gnubg"

#: The number a gnubg line prints: a signed decimal, or a percentage.
_NUMBER = r"[+-]?\d+\.\d+%?"


def require() -> str:
    """The program's path; fails the calling test if it is not installed."""
    if not os.access(PROGRAM, os.X_OK):
        import pytest

        pytest.fail(
            "GNU Backgammon's program is needed (apt-get install -y gnubg; .ci/run installs it)"
        )
    return PROGRAM


def run(commands: Sequence[str], *, terminal: bool = False, timeout: float = 600) -> str:
    """Runs ``commands`` in a fresh gnubg (text mode, no profile) and returns what it
    printed. With ``terminal``, gnubg runs under a pseudo-terminal (``script``): it prints
    rollout results only to a terminal."""
    program = require()
    script = "\n".join(commands) + "\n"
    if not terminal:
        done = subprocess.run(
            [program, "-t", "-q", "-r"],
            input=script,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return done.stdout + done.stderr
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as f:
        f.write(script)
        path = f.name
    try:
        done = subprocess.run(
            ["script", "-qec", f"{program} -t -q -r < {path}", "/dev/null"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    finally:
        os.unlink(path)
    return done.stdout.replace("\r", "\n")


SETUP = [
    "set player 0 human",
    "set player 1 human",
    "set evaluation cubedecision evaluation plies 0",
    "set evaluation chequerplay evaluation plies 0",
]


@dataclass(frozen=True)
class Evaluation:
    """What ``eval`` printed for the player on roll: the class of evaluator, the five
    cubeless chances, the cubeless and cubeful values (money points or EMG), and the cube
    analysis when the player may double (``None`` otherwise)."""

    evaluator: str
    probabilities: tuple[float, float, float, float, float]
    cubeless: float
    cubeful: float
    no_double: float | None
    double_pass: float | None
    double_take: float | None
    action: str | None


def _float(text: str) -> float:
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def parse_evaluations(output: str) -> list[Evaluation]:
    """Every ``eval`` of ``output``, in order."""
    found = []
    blocks = output.split("Evaluator: \t")[1:]
    for block in blocks:
        evaluator = block.split()[0]
        static = re.search(rf"static:\s+((?:{_NUMBER}\s+){{6}}{_NUMBER})", block)
        assert static is not None, block
        numbers = [_float(x) for x in static.group(1).split()]
        cube: dict[str, float] = {}
        for name in (
            "No double",
            "Double, pass",
            "Double, take",
            "No redouble",
            "Redouble, pass",
            "Redouble, take",
        ):
            m = re.search(rf"\d\. {name}\s+({_NUMBER})", block)
            if m:
                cube[name.split()[-1] if "," in name else "nd"] = _float(m.group(1))
        action = re.search(r"Proper cube action: (.*)", block)
        found.append(
            Evaluation(
                evaluator=evaluator,
                probabilities=(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]),
                cubeless=numbers[5],
                cubeful=numbers[6],
                no_double=cube.get("nd"),
                double_pass=cube.get("pass"),
                double_take=cube.get("take"),
                action=action.group(1).strip() if action else None,
            )
        )
    return found


@dataclass(frozen=True)
class RolloutLine:
    """One line of a gnubg rollout result: the five chances (gnubg prints the loss chance
    as well), the cubeless value and the cubeful one (for a cubeful rollout), or their
    standard errors."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose: float
    lose_gammon: float
    lose_backgammon: float
    cubeless: float
    cubeful: float | None


def _rollout_line(text: str) -> RolloutLine:
    # "W WG WBG - L LG LBG CL x [CF y]": the dash between the sides is a token of its own.
    values = [_float(t) for t in text.split() if t not in ("-", "CL", "CF")]
    w, wg, wbg, lose, lg, lbg, cubeless = values[:7]
    return RolloutLine(w, wg, wbg, lose, lg, lbg, cubeless, values[7] if len(values) > 7 else None)


def rollout_commands(
    position_id: str,
    *,
    trials: int,
    cubeful: bool,
    variance_reduction: bool = False,
    seed: int = 1,
    threads: int = 1,
    match: tuple[int, int, int] | None = None,
    bearoff: bool = True,
) -> list[str]:
    """The commands of a 0-ply rollout of ``position_id`` (the side on roll about to roll),
    money with the Jacoby rule and beavers off, or ``match = (length, score of the side on
    roll, score of the other)``; exact two-sided bear-offs if ``bearoff`` (the one-sided
    database's truncation off, as bgfast has none)."""
    commands = [
        f"set threads {threads}",
        "set player 0 human",
        "set player 1 human",
        "set jacoby off",
        "set beavers 0",
        f"set rollout trials {trials}",
        f"set rollout cubeful {'on' if cubeful else 'off'}",
        f"set rollout varredn {'on' if variance_reduction else 'off'}",
        "set rollout quasirandom on",
        "set rollout chequerplay plies 0",
        "set rollout cubedecision plies 0",
        f"set rollout bearofftruncation exact {'on' if bearoff else 'off'}",
        "set rollout bearofftruncation onesided off",
        "set rollout truncation enable off",
        f"set rollout seed {seed}",
    ]
    if match is None:
        commands.append("new game")
    else:
        length, mine, theirs = match
        commands += [f"new match {length}", f"set score {theirs} {mine}"]
    return [*commands, "set turn 1", f"set board {position_id}", "rollout"]


def rollout(position_id: str, **settings: object) -> tuple[RolloutLine, RolloutLine]:
    """gnubg's rollout of ``position_id`` (see :func:`rollout_commands`): the values and
    their standard errors, for the side on roll."""
    output = run(rollout_commands(position_id, **settings), terminal=True)  # type: ignore[arg-type]
    final = output.split("Rollout done. Printing final results.")[-1]
    lines = [line for line in final.splitlines() if " CL " in line]
    assert len(lines) >= 2, output[-2000:]
    values = _rollout_line(lines[0])
    errors = _rollout_line(lines[1].strip().lstrip("[").split("]")[0])
    return values, errors
