"""GNU Backgammon's program as a maker and judge of match files: it plays matches between
its own (noisy) players and writes them as ``.mat`` and SGF, converts files, and analyses
matches at 0 ply (``analyse match``, ``show statistics match``).

Built on ``tests/gnubg_program.py`` (which runs the program); these are the match-file
helpers of the match-files issue. ``python tests/gnubg_matches.py OUT_DIR`` regenerates
the matches kept in ``tests/data/matches/`` (see ``tests/data/NOTICE.md``).
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).parent))

from gnubg_program import run

#: Both players GNU Backgammon's own at 0 ply; the "noisy" player adds noise to its
#: evaluations (GNU Backgammon's way of making a weaker player).
_PLAYERS = [
    "set player 0 gnubg",
    "set player 1 gnubg",
    "set player 0 chequerplay evaluation plies 0",
    "set player 1 chequerplay evaluation plies 0",
    "set player 0 cubedecision evaluation plies 0",
    "set player 1 cubedecision evaluation plies 0",
]


@dataclass(frozen=True)
class Made:
    """A match GNU Backgammon played and wrote: its ``.mat`` and SGF files."""

    mat: str
    sgf: str


def play_match(
    length: int,
    seed: int,
    *,
    noise: tuple[float, float] = (0.04, 0.0),
    money_games: int = 0,
    jacoby: bool = False,
    beavers: int = 0,
) -> Made:
    """A match to ``length`` (or, with ``length`` 0, a session of ``money_games`` money
    games) played by GNU Backgammon against itself at 0 ply with the dice of ``seed``, each
    player's chequer play and cube decisions blurred by its ``noise``; the files it wrote
    (``export match mat``, ``save match``). ``beavers`` is GNU Backgammon's count of
    redoubles after a double (1: beavers, 2: raccoons too; bgfast's rules stop there)."""
    with tempfile.TemporaryDirectory() as tmp:
        mat, sgf = Path(tmp, "m.mat"), Path(tmp, "m.sgf")
        commands = list(_PLAYERS)
        for player, n in enumerate(noise):
            if n:
                commands += [
                    f"set player {player} chequerplay evaluation noise {n}",
                    f"set player {player} cubedecision evaluation noise {n}",
                ]
        commands += [
            f"set jacoby {'on' if jacoby else 'off'}",
            f"set beavers {beavers}",
            f"set seed {seed}",
        ]
        if length:
            commands.append(f"new match {length}")
        else:
            commands += ["set automatic game off", "new session"]
            commands += ["new game"] * max(0, money_games - 1)
        # Its players record their hints as analysis; cleared, the SGF is the match alone.
        commands += ["analysis clear match", f"export match mat {mat}", f"save match {sgf}"]
        run(commands, timeout=300)
        return Made(mat.read_text(encoding="utf-8"), sgf.read_text(encoding="utf-8"))


def convert(text: str, source: str) -> Made:
    """The match of ``text`` (``source`` ``"mat"`` or ``"sgf"``) as GNU Backgammon reads it
    (``import mat`` / ``load match``) and writes it again (``export match mat``, ``save
    match``)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, f"in.{source}")
        src.write_text(text, encoding="utf-8")
        mat, sgf = Path(tmp, "out.mat"), Path(tmp, "out.sgf")
        load = f"import mat {src}" if source == "mat" else f"load match {src}"
        out = run([load, f"export match mat {mat}", f"save match {sgf}"])
        if not mat.exists() or not sgf.exists():
            raise AssertionError(f"GNU Backgammon did not read the {source} file:\n{out[-2000:]}")
        return Made(mat.read_text(encoding="utf-8"), sgf.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Statistics:
    """What ``show statistics match`` prints for one player (rates per decision in
    thousandths: mEMG, and thousandths of MWC in matches)."""

    name: str
    unforced_moves: int
    close_cube_decisions: int
    chequer_rate: float
    error_rate: float
    error_rate_mwc: float | None
    rating: str
    luck_rate: float


def _two(output: str, label: str) -> list[str]:
    m = re.search(rf"^{re.escape(label)}\s{{2,}}(.+?)\s*$", output, re.MULTILINE)
    if m is None:
        raise AssertionError(f"no {label!r} in GNU Backgammon's statistics:\n{output[-3000:]}")
    cells = re.split(r"\s{2,}", m.group(1).strip())
    return cells


_PAIR = re.compile(r"([+-]?\d+\.\d+)(?:\s+\(\s*([+-]?\d+\.\d+)%\))?")


def _pairs(line: str) -> list[tuple[float, float | None]]:
    """The figures of a statistics line after its label: each a number and, in matches,
    its MWC in parentheses (as thousandths)."""
    label_end = line.index(")") + 1 if "(" in line[:40] else 0
    found = []
    for m in _PAIR.finditer(line, label_end):
        mwc = None if m.group(2) is None else float(m.group(2)) * 10.0
        found.append((float(m.group(1)), mwc))
    return found


def parse_statistics(output: str) -> tuple[Statistics, Statistics]:
    """Both players' figures from ``show statistics match``'s output (rates as positive
    losses; the luck rate signed)."""
    names = _two(output, "Player")
    unforced = _two(output, "Unforced moves")
    close = _two(output, "Close or actual cube decisions")
    ratings = _two(output, "Overall rating")
    rates = re.findall(r"^Error rate mEMG.*$", output, re.MULTILINE)
    luck = re.search(r"^Luck rate mEMG.*$", output, re.MULTILINE)
    assert luck is not None and len(rates) >= 3, output[-3000:]
    chequer, overall, lucks = _pairs(rates[0]), _pairs(rates[2]), _pairs(luck.group())
    out = []
    for k in (0, 1):
        mwc = overall[k][1]
        out.append(
            Statistics(
                name=names[k],
                unforced_moves=int(unforced[k]),
                close_cube_decisions=int(close[k]),
                chequer_rate=abs(chequer[k][0]),
                error_rate=abs(overall[k][0]),
                error_rate_mwc=None if mwc is None else abs(mwc),
                rating=ratings[k],
                luck_rate=lucks[k][0],
            )
        )
    return out[0], out[1]


def analyse(mat_text: str) -> tuple[tuple[Statistics, Statistics], float]:
    """GNU Backgammon's 0-ply analysis of a ``.mat`` file (one thread): both players'
    statistics, and the seconds ``analyse match`` took (the wall time of the whole run
    minus that of the same run without the analysis, so that start-up cancels)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "in.mat")
        src.write_text(mat_text, encoding="utf-8")
        setup = [
            "set threads 1",
            "set analysis chequerplay evaluation plies 0",
            "set analysis cubedecision evaluation plies 0",
            f"import mat {src}",
        ]
        start = time.perf_counter()
        run(setup)
        base = time.perf_counter() - start
        start = time.perf_counter()
        out = run([*setup, "analyse match", "show statistics match"])
        seconds = time.perf_counter() - start - base
        return parse_statistics(out), max(seconds, 0.0)


def main(out_dir: str) -> None:
    """Regenerate the matches kept in ``tests/data/matches``."""
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    for name, kwargs in FIXTURES.items():
        made = play_match(**kwargs)  # type: ignore[arg-type]
        (target / f"{name}.mat").write_text(made.mat, encoding="utf-8")
        (target / f"{name}.sgf").write_text(made.sgf, encoding="utf-8")
        print(name)


#: The matches of ``tests/data/matches``: name -> the arguments of :func:`play_match`.
FIXTURES: dict[str, dict[str, object]] = {
    "noisy_7pt_seed1": {"length": 7, "seed": 1, "noise": (0.04, 0.0)},
    "noisy_7pt_seed2": {"length": 7, "seed": 2, "noise": (0.0, 0.04)},
    "noisy_5pt_seed11": {"length": 5, "seed": 11, "noise": (0.06, 0.0)},
    "money_jacoby_beavers_seed5": {
        "length": 0,
        "seed": 5,
        "noise": (0.2, 0.0),
        "money_games": 5,
        "jacoby": True,
        "beavers": 1,
    },
}


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent / "data" / "matches"))
