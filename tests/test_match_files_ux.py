"""What a user meets reading match files: a mistyped path is named as missing, a file cut
short says so (refused, or read as a match whose last game is in play and reported so),
and ``bgfast analyse`` lists the worst decisions by the players' names, only when asked,
with the JSON's rates in the units its help states."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bgfast import InvalidSaveError, Match
from bgfast.cli import main

DATA = Path(__file__).parent / "data" / "formats"
EXAMPLE = DATA / "example_3pt.mat"
EXAMPLE_SGF = DATA / "example_3pt.sgf"
TEXT = EXAMPLE.read_text()


# ---------------------------------------------------------------- a path given as a str


@pytest.mark.parametrize("read", [Match.from_mat, Match.from_sgf])
@pytest.mark.parametrize(
    "name", ["club.mat", "club.sgf", "games/club", "club", "(2019) final.mat", "(club).sgf"]
)
def test_a_missing_path_is_file_not_found_as_with_a_path_object(
    read: object, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as as_str:
        read(name)  # type: ignore[operator]
    with pytest.raises(FileNotFoundError) as as_path:
        read(Path(name))  # type: ignore[operator]
    assert as_str.value.filename == name == as_path.value.filename
    assert name in str(as_str.value)


def test_a_str_naming_a_file_reads_it_and_text_stays_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = Match.from_mat(EXAMPLE)
    assert Match.from_mat(str(EXAMPLE)) == whole == Match.from_sgf(str(EXAMPLE_SGF))
    assert Match.from_mat(TEXT) == whole
    # An SGF file written on one line is text, not a path.
    one_line = EXAMPLE_SGF.read_text().replace("\n", "")
    assert "\n" not in one_line and Match.from_sgf(one_line) == whole
    # One line that starts as a match file does is its text: a header, a comment.
    assert Match.from_mat(" 3 point match").length == 3
    with pytest.raises(InvalidSaveError, match="no ' N point match' line"):
        Match.from_mat("; a comment")
    # An existing file whose name starts as a match file's text is still read as a file.
    monkeypatch.chdir(tmp_path)
    Path("(club).sgf").write_text(EXAMPLE_SGF.read_text())
    assert Match.from_sgf("(club).sgf") == whole


ONE_LINE_SGF = EXAMPLE_SGF.read_text().replace("\n", "")


@pytest.mark.parametrize("read", [Match.from_mat, Match.from_sgf])
@pytest.mark.parametrize(
    "text",
    [
        "\u00ef\u00bb\u00bf" + ONE_LINE_SGF,  # a UTF-8 BOM decoded as latin-1
        ONE_LINE_SGF[1:],  # the '(' lost: still an SGF node, ';FF['
        "x" * 300,  # longer than any file's name
        "x/" * 100 + "x" * 300,
    ],
)
def test_damaged_one_line_text_is_an_invalid_save_not_a_path(read: object, text: str) -> None:
    # Each was read as a path: OSError "File name too long", or FileNotFoundError.
    with pytest.raises(InvalidSaveError):
        read(text)  # type: ignore[operator]


def test_a_form_feed_before_a_one_line_match_file_is_text() -> None:
    assert Match.from_sgf("\f" + ONE_LINE_SGF) == Match.from_mat(EXAMPLE)
    with pytest.raises(InvalidSaveError, match="line 1"):
        Match.from_mat("\f" + ONE_LINE_SGF)  # an SGF file, but text all the same


# ---------------------------------------------------------------- files cut short


def test_a_mat_file_ending_in_a_bare_move_number_is_refused() -> None:
    cut = TEXT.index(" 11)") + len(" 11)")
    for tail in ("", " ", "\n", "  \n\n"):
        with pytest.raises(InvalidSaveError, match=r"line 17: game 1 ends in move 11 with no "):
            Match.from_mat(TEXT[:cut] + tail)


def test_a_mat_file_cut_at_a_line_break_reads_with_its_last_game_in_play() -> None:
    cut = TEXT.index(" 10)")
    m = Match.from_mat(TEXT[:cut])
    assert len(m.games) == 1 and m.game is not None and not m.game.is_over
    assert repr(m) == "<Match to 3: 0-0, 1 games, game 1 in play>"
    assert repr(Match.from_mat(TEXT)) == "<Match to 3: 0-3, 2 games>"


def test_analyse_says_the_last_game_is_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.mat"
    cut.write_text(TEXT[: TEXT.index(" 10)")])
    assert main(["analyse", str(cut), "--threads", "1"]) == 0
    out, err = capsys.readouterr()
    note = "Game 1 has no result: the file stops after move 9 (a match in progress, or a file"
    assert note in out and err == ""
    # JSON stays what scripts read; the note goes to stderr.
    assert main(["analyse", str(cut), "--threads", "1", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["length"] == 3 and note in err
    # A whole match gets no note; one that stops between games says the score.
    assert main(["analyse", str(EXAMPLE), "--threads", "1"]) == 0
    out, err = capsys.readouterr()
    assert "no result" not in out and "not over" not in out
    one_game = tmp_path / "one.mat"
    one_game.write_text(TEXT[: TEXT.index(" Game 2")])
    assert main(["analyse", str(one_game), "--threads", "1", "--worst", "0"]) == 0
    assert "The match is not over: 0-2 in a 3-point match." in capsys.readouterr().out


# ---------------------------------------------------------------- the report


def _analyse(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["analyse", str(EXAMPLE), "--threads", "1", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_worst_0_lists_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    out = _analyse(capsys, "--worst", "0")
    assert "costliest" not in out and "No decision" not in out
    assert out.splitlines()[-1].startswith("Overall rating")


def test_the_worst_decisions_name_the_players(capsys: pytest.CaptureFixture[str]) -> None:
    out = _analyse(capsys, "--worst", "5")
    worst = out.splitlines()[out.splitlines().index("The 5 costliest decisions:") + 1 :]
    assert len(worst) == 5
    assert all(re.match(r"  game \d, move \d+, (gnubg|root): ", line) for line in worst)
    assert "player " not in "\n".join(worst)
    assert "game 1, move 6, gnubg: take; best pass: -0.793 EMG (-7.89% MWC) [very bad]" in out


def test_the_table_and_the_json_give_one_error_rate(capsys: pytest.CaptureFixture[str]) -> None:
    """The table prints the rate as GNU Backgammon does (negative, percent of MWC); the
    JSON gives it positive in thousandths of MWC: the same number."""
    table = _analyse(capsys)
    row = next(line for line in table.splitlines() if line.startswith("Error rate mEMG (MWC)"))
    shown = [(float(emg), float(pct)) for emg, pct in re.findall(r"(-[\d.]+) \((-[\d.]+)%\)", row)]
    players = json.loads(_analyse(capsys, "--json"))["players"]
    assert len(shown) == 2 == len(players)
    for (emg, pct), p in zip(shown, players):
        assert p["error_rate"] > 0 and p["error_rate_mwc"] > 0
        assert emg == pytest.approx(-p["error_rate"], abs=0.05)
        assert pct == pytest.approx(-p["error_rate_mwc"] / 10, abs=0.0005)
