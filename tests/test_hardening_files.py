"""Hardening of the file layer: match files (``.mat``, SGF), saved records and the analysis
of a match; regression tests for defects found by review.

The contract: a bad input raises a ``bgfast.BgfastError`` subclass (or ``TypeError`` for a
wrong type) naming what is wrong; a reader takes time linear in its input and reads only
regular files of a bounded size.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import (
    BgfastError,
    Chouette,
    ChouetteFileError,
    InvalidSaveError,
    Match,
    MatchInfo,
    MatchOptionError,
    persist,
    sgf,
)
from bgfast.cli import main
from bgfast.persist import atomic_write_text

DATA = Path(__file__).parent / "data"
EXAMPLE_MAT = DATA / "formats" / "example_3pt.mat"
EXAMPLE_SGF = DATA / "formats" / "example_3pt.sgf"
DEV_ZERO = Path("/dev/zero")
needs_dev_zero = pytest.mark.skipif(not DEV_ZERO.exists(), reason="no /dev/zero here")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


# ---------------------------------------------------------------------------- SGF in linear time


def test_sgf_reader_is_linear_in_the_tokens_it_names_the_line_of() -> None:
    # Each node's line was counted from the start of the text: 10,000 nodes spread over
    # 5 MB took some ten seconds. Their long property names are read past in C, so only
    # the line counting could make this slow. (The nodes are a variation off the main
    # line, which the reader skips, so the file is valid.)
    text = "(;FF[4]GM[6]MI[length:3]\n(;W[21mkkj])\n(" + (";" + "Z" * 500 + "[]\n") * 10_000 + "))"
    transcript = sgf.parse(text)
    (entry,) = transcript.games[0].entries
    assert entry.where == "node 2, line 2"


def test_sgf_line_numbers_are_unchanged() -> None:
    text = "(;FF[4]GM[6]MI[length:3]\n\n;W[21mkkj]\n" + ";\n" * 50 + ";W[21mkkj]\n)"
    entries = sgf.parse(text).games[0].entries
    assert [e.where for e in entries] == ["node 2, line 3", "node 53, line 54"]
    broken = "(;FF[4]GM[6]MI[length:3]\n" + ";\n" * 20 + "?)"
    with pytest.raises(InvalidSaveError, match=r"^line 22: unknown token '\?\)'"):
        sgf.parse(broken)
    with pytest.raises(InvalidSaveError, match="line 3: the file ends inside a game tree"):
        sgf.parse("(;FF[4]GM[6]\n;\n;")


def test_many_sgf_games_are_read_in_linear_time() -> None:
    # 15,000 one-node games: the old reader counted the lines of up to 400 kB 45,000 times
    # (some three seconds); the whole file is read before the replay finds game 1 unended.
    with pytest.raises(InvalidSaveError, match="game 1 has no result, yet game 2 follows"):
        Match.from_sgf("(;FF[4]GM[6]MI[length:3])\n" * 15_000)


# ---------------------------------------------------------------------------- only regular files


@needs_dev_zero
@pytest.mark.parametrize("reader", [Match.from_mat, Match.from_sgf, Match.load])
def test_a_device_is_refused_unread(reader: object) -> None:
    with pytest.raises(InvalidSaveError, match="/dev/zero: not a regular file"):
        reader(DEV_ZERO)  # type: ignore[operator]


@needs_dev_zero
def test_a_device_is_no_saved_chouette() -> None:
    with pytest.raises(ChouetteFileError, match="/dev/zero: not a regular file"):
        Chouette.load(DEV_ZERO)


def test_a_directory_is_no_match_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidSaveError, match="not a regular file"):
        Match.from_mat(tmp_path)
    with pytest.raises(InvalidSaveError, match="not a regular file"):
        Match.load(str(tmp_path))


@needs_fifo
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "match.sgf"
    os.mkfifo(fifo)
    with pytest.raises(InvalidSaveError, match="not a regular file"):
        Match.from_sgf(fifo)
    with pytest.raises(InvalidSaveError, match="not a regular file"):
        Match.load(fifo)
    with pytest.raises(InvalidSaveError):  # not an existing file: the text of one
        Match.from_mat(str(fifo))


def test_a_file_longer_than_a_match_file_can_be_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.mat"
    path.write_bytes(EXAMPLE_MAT.read_bytes())
    assert Match.from_mat(path).score == Match.from_mat(EXAMPLE_MAT.read_text()).score
    monkeypatch.setattr(persist, "MAX_FILE_BYTES", 100)
    with pytest.raises(InvalidSaveError, match="bytes, more than the 100"):
        Match.from_mat(path)
    with pytest.raises(InvalidSaveError, match="bytes, more than the 100"):
        Match.from_mat(str(path))


def test_a_missing_file_is_still_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Match.from_mat(tmp_path / "missing.mat")


@needs_dev_zero
@pytest.mark.parametrize("command", [["analyse", "/dev/zero"], ["convert", "/dev/zero", "x.sgf"]])
def test_the_command_line_refuses_a_device(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 2
    assert "/dev/zero: not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["analyse", ""], ["convert", "", "x.sgf"]])
def test_the_command_line_names_an_empty_path(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 2  # pathlib read "" as ".", "not a regular file"
    assert "the match file's path is empty" in capsys.readouterr().err


@needs_fifo
def test_the_command_line_refuses_a_fifo_without_blocking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "match"  # no extension: the format would be told by the text
    os.mkfifo(fifo)
    assert main(["analyse", str(fifo)]) == 2
    assert f"{fifo}: not a regular file" in capsys.readouterr().err


# ---------------------------------------------------------------------------- Analysis.worst


@pytest.fixture(scope="module")
def analysis() -> bgfast.Analysis:
    return bgfast.analyse(Match.from_mat(EXAMPLE_MAT), threads=1)


def test_worst_takes_a_count_from_zero(analysis: bgfast.Analysis) -> None:
    costly = analysis.worst(len(analysis.decisions))
    assert len(costly) > 5
    assert analysis.worst(0) == []
    assert analysis.worst(3) == costly[:3]
    assert analysis.worst(np.int64(3)) == costly[:3]  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="0 or more, not -5"):
        analysis.worst(-5)


@pytest.mark.parametrize("n", [1.5, True, "3", None])
def test_worst_refuses_anything_but_an_int(analysis: bgfast.Analysis, n: object) -> None:
    with pytest.raises(TypeError, match=f"n must be an int, not {type(n).__name__}"):
        analysis.worst(n)  # type: ignore[arg-type]


def test_the_command_line_refuses_a_negative_worst(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["analyse", str(EXAMPLE_MAT), "--worst", "-1"])
    assert exit_info.value.code == 2
    assert "--worst: expected a number 0 or more, not -1" in capsys.readouterr().err


# ---------------------------------------------------------------------------- damaged records


def test_a_record_without_a_field_names_the_missing_field() -> None:
    data = Match(3).to_dict()
    del data["table"]
    with pytest.raises(InvalidSaveError, match=r"^damaged match record: missing field 'table'$"):
        Match.from_dict(data)


def test_a_chouette_without_options_names_the_missing_field() -> None:
    data = Chouette(["A", "B", "C"], rolls={"A": 6, "B": 4, "C": 2}).to_dict()
    del data["options"]
    with pytest.raises(ChouetteFileError, match=r"missing field 'options'"):
        Chouette.from_dict(data)


# ---------------------------------------------------------------------------- .mat names


@pytest.mark.parametrize("players", [(" a ", "b"), ("a", "b "), ("\u00a0a", "b")])
def test_a_mat_file_cannot_hold_a_name_with_spaces_around_it(players: tuple[str, str]) -> None:
    match = Match.from_mat(EXAMPLE_MAT)
    match.info = MatchInfo(players=players)
    with pytest.raises(MatchOptionError, match="spaces around a name"):
        match.to_mat()
    assert Match.from_sgf(match.to_sgf()).info.players == players


def test_a_mat_file_keeps_a_name_with_inner_spaces() -> None:
    match = Match.from_mat(EXAMPLE_MAT)
    match.info = MatchInfo(players=("Ann Lee", "Bo  Ray"))
    assert Match.from_mat(match.to_mat()).info.players == ("Ann Lee", "Bo  Ray")


# ------------------------------------------------------------------ permissions of saves


def test_a_saved_file_gets_the_permissions_the_umask_gives(tmp_path: Path) -> None:
    # Saves went through tempfile.mkstemp, whose private 0600 file os.replace kept: other
    # users could not read a converted match whatever the umask said.
    old = os.umask(0o022)
    try:
        path = tmp_path / "new.txt"
        atomic_write_text(path, "x")
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("old")
    path.chmod(0o600)
    atomic_write_text(path, "new")
    assert (path.read_text(), stat.S_IMODE(path.stat().st_mode)) == ("new", 0o600)
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]  # no temporary file left


def test_a_save_over_what_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    # Saves replaced whatever the path named: a FIFO became a file, and as root a save to
    # /dev/null replaced the device with a file.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    game = bgfast.Game(seed=1)
    for target in (fifo, tmp_path):
        with pytest.raises(OSError, match="not a regular file"):
            game.save(target)
        with pytest.raises(OSError, match="not a regular file"):
            bgfast.Match(3).to_mat(target)
    for path in (f"{tmp_path}/new/", ""):  # a directory's path, none
        with pytest.raises(IsADirectoryError, match="not a file's path"):
            game.save(path)
    with pytest.raises(FileNotFoundError) as missing:
        game.save(tmp_path / "no" / "such.json")
    assert missing.value.filename == str(tmp_path / "no" / "such.json")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]  # nothing else written


def test_a_save_through_a_symbolic_link_replaces_the_file_it_names(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    bgfast.Game(seed=1).save(link)
    assert link.is_symlink() and bgfast.Game.load(target).to_json() == bgfast.Game(seed=1).to_json()
