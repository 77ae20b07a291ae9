"""The match-file commands of ``bgfast``: ``analyse`` and ``convert``.

``bgfast analyse FILE`` reads a ``.mat`` or SGF file, rates every play and cube decision at
0 ply (:func:`bgfast.analyse`) and prints each player's summary and the costliest
decisions, players named (``--json``: everything, as JSON), with a progress bar on a
terminal. A match that is not over (its last game in play, as a match in progress or a file
cut short reads) gets a note saying so. The table prints losses negative, in percent of
MWC, as GNU Backgammon's statistics do; the JSON gives them positive: ``error_rate`` is
mEMG lost per unforced decision and ``error_rate_mwc`` thousandths of MWC (``13.35`` where
the table shows ``-1.335%``).

``bgfast convert A B`` reads one format and writes the other (or the same), the input's
format told by its text (an SGF file starts with ``(;``), whatever its name, the output's
by its extension (``.mat`` or ``.txt``; ``.sgf``), and says what it wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from bgfast._cli_common import add_cube_life
from bgfast._core import BgfastError, check_threads
from bgfast.analysis import Analysis, analyse
from bgfast.match import Match
from bgfast.policies import parse_net

__all__ = ["add_commands"]


def _kind(path: str, *, reading: bool) -> str:
    """``"mat"`` or ``"sgf"`` for ``path``: an input's by its text (an SGF file starts with
    ``(`` and, after any white space, ``;``; anything else is read as a ``.mat`` file), so
    that a file named the other way is read all the same; an output's by its extension."""
    ext = os.path.splitext(path)[1].lower()
    if not reading:
        if ext in (".mat", ".txt"):
            return "mat"
        if ext == ".sgf":
            return "sgf"
        raise BgfastError(
            f"{path}: write a .mat (or .txt) or an .sgf file (the extension says which)"
        )
    if not os.path.isfile(path):
        # The reader says why it cannot read it (a FIFO is not opened).
        return "sgf" if ext == ".sgf" else "mat"
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise BgfastError(f"cannot read {path}: {e.strerror}") from None
    return "sgf" if _is_sgf(head) else "mat"


def _is_sgf(head: bytes) -> bool:
    """Whether a file's first bytes are SGF: ``(`` then ``;``, white space (and a UTF-8
    byte order mark) before either allowed."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return text.startswith(b"(") and text[1:].lstrip().startswith(b";")


def read_match(path: str) -> Match:
    """The match of a ``.mat`` or SGF file (``InvalidSaveError`` if damaged, or if the
    path is not a regular file: the readers refuse a device or a FIFO unread)."""
    if not path:
        raise BgfastError("the match file's path is empty")  # pathlib would read it as "."
    kind = _kind(path, reading=True)
    try:
        return Match.from_mat(Path(path)) if kind == "mat" else Match.from_sgf(Path(path))
    except OSError as e:
        raise BgfastError(f"cannot read {path}: {e.strerror}") from None


def _count(text: str) -> int:
    """A number of decisions to list (``--worst``): an int from 0."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number 0 or more, not {text!r}") from None
    if count < 0:
        raise argparse.ArgumentTypeError(f"expected a number 0 or more, not {count}")
    return count


class _Bar:
    """A one-line progress bar on a terminal, by games."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        seconds = time.perf_counter() - self.start
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] game {done}/{total}  {seconds:.1f} s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r" + " " * 79 + "\r")
        self.stream.flush()


def _unfinished(match: Match) -> str | None:
    """A sentence saying the match stops short of its end, or ``None`` when it is over (a
    money session: when its last game is). A file holds a match in progress as GNU
    Backgammon writes one, with its last game in play; a file cut short between two lines
    reads the same way, so the report says so rather than pass for a whole match."""
    game = match.game
    if game is not None and not game.is_over:
        number = len(match.games)
        entries = match.to_transcript().games[-1].entries
        where = f"after move {entries[-1].move}" if entries else "before its first move"
        return (
            f"Game {number} has no result: the file stops {where} (a match in progress, "
            "or a file cut short)."
        )
    if not match.is_money and not match.is_over:
        a, b = match.score
        return f"The match is not over: {a}-{b} in a {match.length}-point match."
    return None


def _report(analysis: Analysis, worst: int, match: Match | None = None) -> str:
    """The text ``bgfast analyse`` prints: the summary, a note when the match stops short
    of its end, and the ``worst`` costliest decisions (nothing about them for 0)."""
    lines = [analysis.summary()]
    note = None if match is None else _unfinished(match)
    if note is not None:
        lines += ["", note]
    names = (analysis.players[0].name, analysis.players[1].name)
    if names[0] == names[1]:  # the summary's columns tell them apart; the list must too
        names = (f"{names[0]} (player 0)", f"{names[1]} (player 1)")
    if worst:
        found = analysis.worst(worst)
        lines.append("")
        if found:
            lines.append(
                "The costliest decision:"
                if len(found) == 1
                else f"The {len(found)} costliest decisions:"
            )
            lines += [f"  {d.words(names[d.player])}" for d in found]
        else:
            lines.append("No decision lost equity.")
    return "\n".join(lines)


def run_analyse(args: argparse.Namespace) -> int:
    """``bgfast analyse``: the summary and the worst decisions, or JSON."""
    match = read_match(args.file)
    threads = check_threads(args.threads)
    net = parse_net(args.net, "--net") if args.net else None
    luck_net = parse_net(args.luck_net, "--luck-net") if args.luck_net else None
    bar = _Bar(sys.stderr) if sys.stdout.isatty() and sys.stderr.isatty() else None
    try:
        result = analyse(
            match, net, threads, cube_life=args.cube_life, luck_net=luck_net, progress=bar
        )
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
        note = _unfinished(match)
        if note is not None:  # JSON holds no such field: say it where a person reads
            print(f"bgfast: note: {note}", file=sys.stderr)
    else:
        print(_report(result, args.worst, match))
    return 0


def run_convert(args: argparse.Namespace) -> int:
    """``bgfast convert A B``: read A, write B in the format its extension names."""
    match = read_match(args.source)
    kind = _kind(args.target, reading=False)
    try:
        if kind == "mat":
            match.to_mat(args.target)
        else:
            match.to_sgf(args.target)
    except OSError as e:
        raise BgfastError(f"cannot write {args.target}: {e.strerror}") from None
    games = len(match.games)
    what = "a .mat file" if kind == "mat" else "an SGF file"
    print(f"wrote {args.target}: {what}, {games} game{'' if games == 1 else 's'}")
    return 0


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """Adds ``analyse`` and ``convert`` to the ``bgfast`` command's subcommands."""
    analyse_cmd = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help="rate every play and cube decision of a .mat or SGF match file (0 ply)",
        description="Rates every play and cube decision of a match at 0 ply with wildbg's "
        "net (GNU Backgammon's error rates, ratings and luck); prints each player's summary "
        "and the costliest decisions.",
    )
    analyse_cmd.add_argument("file", help="a .mat (Jellyfish) or .sgf (GNU Backgammon) file")
    analyse_cmd.add_argument(
        "--json",
        action="store_true",
        help="print everything as JSON (losses and rates positive: error_rate in mEMG and "
        "error_rate_mwc in thousandths of MWC per unforced decision)",
    )
    analyse_cmd.add_argument(
        "--worst",
        type=_count,
        default=10,
        help="how many of the costliest decisions to list (default: 10; 0: none)",
    )
    analyse_cmd.add_argument(
        "--threads", type=int, default=None, help="threads for the net (default: one per CPU)"
    )
    analyse_cmd.add_argument(
        "--net",
        default=None,
        metavar="NET",
        help="the net that rates the decisions: wildbg (default), wildbg-large (closer to GNU"
        " Backgammon's judgement) or a .bgnet net file",
    )
    analyse_cmd.add_argument(
        "--luck-net",
        default=None,
        metavar="NET",
        help="the net that measures the luck of each roll: wildbg (default), wildbg-large or a"
        " .bgnet net file",
    )
    add_cube_life(analyse_cmd)
    analyse_cmd.set_defaults(run=run_analyse)
    convert = commands.add_parser(
        "convert",
        help="convert a match file between .mat and SGF",
        description="Reads a .mat or SGF match file (every play checked) and writes it in "
        "the format the target's extension names.",
    )
    convert.add_argument("source", help="the file to read (.mat or .sgf)")
    convert.add_argument(
        "target", help="the file to write: .sgf for SGF, .mat or .txt for a .mat file"
    )
    convert.set_defaults(run=run_convert)
