"""The match-file commands: ``bgfast analyse FILE [--json]`` and ``bgfast convert A B``
(``bgfast._cli_match``): the summary and the worst decisions, JSON for scripts, a progress
bar only on a terminal, a closed pipe ending quietly, damaged files named."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bgfast import Match
from bgfast._cli_match import _Bar
from bgfast.cli import main

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "formats" / "example_3pt.mat"
EXAMPLE_SGF = DATA / "formats" / "example_3pt.sgf"


def test_analyse_prints_the_players_and_the_worst_decisions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["analyse", str(EXAMPLE), "--worst", "3", "--threads", "1"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["Player", "gnubg", "root"]
    assert any(line.startswith("Error rate mEMG (MWC)") for line in lines)
    assert any(line.startswith("Overall rating") for line in lines)
    worst = lines[lines.index("The 3 costliest decisions:") + 1 :]
    assert len(worst) == 3 and all(line.lstrip().startswith("game ") for line in worst)
    assert err == ""  # no progress bar off a terminal


def test_analyse_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(EXAMPLE_SGF), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["players"]] == ["gnubg", "root"]
    assert data["length"] == 3 and data["net"] == "wildbg"
    assert {d["kind"] for d in data["decisions"]} >= {"move", "take"}


def test_analyse_with_the_large_net(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", str(EXAMPLE), "--json", "--net", "wildbg-large"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["net"], data["luck_net"]) == ("wildbg-large", "wildbg")
    assert main(["analyse", str(EXAMPLE), "--luck-net", "pubeval"]) == 2
    assert "--luck-net must be wildbg, wildbg-large or a .bgnet" in capsys.readouterr().err


def test_convert_between_the_formats(tmp_path: Path) -> None:
    sgf = tmp_path / "m.sgf"
    mat = tmp_path / "m.mat"
    assert main(["convert", str(EXAMPLE), str(sgf)]) == 0
    assert main(["convert", str(sgf), str(mat)]) == 0
    expected = Match.from_mat(EXAMPLE)
    assert Match.from_sgf(sgf) == expected == Match.from_mat(mat)
    # A file named neither way is read by its first character.
    odd = tmp_path / "m.match"
    odd.write_bytes(sgf.read_bytes())
    assert main(["convert", str(odd), str(tmp_path / "again.mat")]) == 0


def test_bad_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.mat"
    broken.write_text(EXAMPLE.read_text().replace("24/20 13/8", "24/19 13/8"))
    assert main(["analyse", str(broken)]) == 2
    assert "game 1, move 3 (line 9)" in capsys.readouterr().err
    assert main(["analyse", str(tmp_path / "missing.mat")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["convert", str(EXAMPLE), str(tmp_path / "out.doc")]) == 2
    assert ".mat (or .txt) or an .sgf" in capsys.readouterr().err


def test_output_into_a_closed_pipe_ends_quietly() -> None:
    """`bgfast analyse ... | head` ends without a traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bgfast", "analyse", str(EXAMPLE), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_the_progress_bar_counts_games() -> None:
    stream = io.StringIO()
    bar = _Bar(stream)
    bar(1, 4)
    bar(4, 4)
    bar.close()
    drawn = stream.getvalue()
    assert "game 1/4" in drawn and "game 4/4" in drawn and "#" * 30 in drawn
