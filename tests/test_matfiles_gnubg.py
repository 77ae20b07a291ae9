"""Match files through GNU Backgammon's own program (``tests/gnubg_matches.py``): what
bgfast writes, the program reads and writes back with the same plays, and what the program
writes, bgfast reads.

Runs in the default suite: CI installs the program (``.ci/run``); without it these tests
fail saying how to get it.
"""

from __future__ import annotations

import gnubg_matches
import pytest
from test_matfiles import DATA, EXAMPLE_MAT, FIXTURES, fixture, plays

import bgfast
from bgfast import Match

MATCHES = [*FIXTURES, "example"]


def _match(name: str) -> Match:
    return Match.from_mat(EXAMPLE_MAT if name == "example" else fixture(name, "mat"))


@pytest.mark.parametrize("name", MATCHES)
def test_gnubg_reads_the_mat_bgfast_writes_with_the_same_plays(name: str) -> None:
    m = _match(name)
    made = gnubg_matches.convert(m.to_mat(), "mat")  # import mat; export match mat; save match
    assert plays(Match.from_mat(made.mat)) == plays(m)
    # What GNU Backgammon saves as SGF after reading bgfast's .mat: the plays of the .mat.
    from_sgf = Match.from_sgf(made.sgf)
    assert plays(from_sgf) == plays(m)
    if m.length:
        assert from_sgf.info.players == m.info.players


@pytest.mark.parametrize("name", MATCHES)
def test_gnubg_reads_the_sgf_bgfast_writes_with_the_same_plays(name: str) -> None:
    m = _match(name)
    made = gnubg_matches.convert(m.to_sgf(), "sgf")  # load match; export; save
    assert plays(Match.from_mat(made.mat)) == plays(m)
    back = Match.from_sgf(made.sgf)
    assert plays(back) == plays(m) and back.info.players == m.info.players


def test_gnubg_keeps_what_bgfast_writes_of_a_match() -> None:
    # Names with spaces, the event, the date, a resignation after a double and a pass.
    m = Match(
        5,
        seed=1,
        info=bgfast.MatchInfo(
            players=("Ann Lee", "Bob"), event="Club night", round="2", place="Oslo"
        ),
    )
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.roll(6, 4)
    g.play("24/14")
    g.resign("single", player=1)  # the cube at 2: player 0 wins 2
    g.accept()
    g = m.new_game()
    g.roll(5, 6)
    g.play("24/13")
    g.double()
    g.drop()
    made = gnubg_matches.convert(m.to_sgf(), "sgf")
    back = Match.from_sgf(made.sgf)
    assert plays(back) == plays(m)
    assert (back.info.players, back.info.event, back.info.round, back.info.place) == (
        ("Ann Lee", "Bob"),
        "Club night",
        "2",
        "Oslo",
    )
    mat_back = Match.from_mat(gnubg_matches.convert(m.to_mat(), "mat").mat)
    assert plays(mat_back) == plays(m)
    assert mat_back.info.event == "Club night" and mat_back.info.players == ("Ann Lee", "Bob")


def test_a_match_gnubg_plays_now_reads_the_same_from_both_files() -> None:
    made = gnubg_matches.play_match(3, seed=42, noise=(0.05, 0.0))
    mat = Match.from_mat(made.mat)
    assert mat == Match.from_sgf(made.sgf)
    assert mat.is_over


def test_the_kept_matches_are_what_gnubg_makes() -> None:
    # The files of tests/data/matches are reproducible from their recipe (same program,
    # same seeds): a changed recipe or program shows here.
    name = "noisy_5pt_seed11"
    made = gnubg_matches.play_match(**gnubg_matches.FIXTURES[name])  # type: ignore[arg-type]
    assert plays(Match.from_mat(made.mat)) == plays(Match.from_mat(fixture(name, "mat")))
    assert (DATA / "matches" / f"{name}.sgf").exists()


def test_resignations_are_written_as_gnubg_writes_them() -> None:
    # A money session under the Jacoby rule: a resignation on a turned cube, then a gammon
    # resigned on a centred cube, which scores 1 (R23). GNU Backgammon writes the points
    # scored for both, and its import mat scores a last game by what is written.
    m = Match(0, rules=bgfast.Rules(jacoby=True), seed=1)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.roll(6, 4)
    g.play("24/14")
    g.resign("single", player=1)  # the cube at 2: player 0 wins 2
    g.accept()
    g = m.new_game()
    g.roll(6, 5)
    g.play("24/13")
    g.resign("gammon", player=1)
    g.accept()
    assert m.score == (3, 0)

    def wins(text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if "Wins" in line]

    assert wins(m.to_mat()) == ["Wins 2 points", "Wins 1 point"]
    assert wins(gnubg_matches.convert(m.to_sgf(), "sgf").mat) == wins(m.to_mat())
    back = Match.from_sgf(gnubg_matches.convert(m.to_mat(), "mat").sgf)
    assert back.score == m.score
