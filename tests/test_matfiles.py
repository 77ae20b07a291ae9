"""Match files: Jellyfish ``.mat`` and GNU Backgammon's SGF, read and written
(``Match.from_mat``/``to_mat``, ``Match.from_sgf``/``to_sgf``; ``bgfast.matfile``,
``bgfast.sgf``, ``bgfast.replay``).

Every play of a file is replayed through the referee, so the rule book applies: an illegal
play is refused naming its rule (R4, R8, R10, R11...), the Crawford game (R21) and the
cube (R17-R19) are checked against the score. The files in ``tests/data/matches`` and
``tests/data/formats/example_3pt.*`` were written by GNU Backgammon itself
(``tests/data/NOTICE.md``); ``tests/test_matfiles_gnubg.py`` runs the program.
"""

from __future__ import annotations

import datetime
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bgfast
from bgfast import InvalidSaveError, Match, MatchInfo, MatchOptionError, Rules, matfile, sgf

DATA = Path(__file__).parent / "data"
EXAMPLE_MAT = (DATA / "formats" / "example_3pt.mat").read_text(encoding="utf-8")
EXAMPLE_SGF = (DATA / "formats" / "example_3pt.sgf").read_text(encoding="utf-8")
FIXTURES = sorted(p.stem for p in (DATA / "matches").glob("*.mat"))

FUZZ = settings(
    max_examples=int(os.environ.get("BGFAST_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fixture(name: str, ext: str) -> str:
    return (DATA / "matches" / f"{name}.{ext}").read_text(encoding="utf-8")


def plays(match: Match) -> list[tuple[object, ...]]:
    """What a match file holds of each game: its events (rolls, plays, cube actions,
    resignations: who resigned is in the result) and its result."""
    return [
        (
            [("resign", e.kind) if isinstance(e, bgfast.events.Resign) else e for e in g.events],
            g.result,
        )
        for g in match.games
    ]


# ---------------------------------------------------------------------------- reading


def test_the_example_mat_and_sgf_are_one_match() -> None:
    mat = Match.from_mat(EXAMPLE_MAT)
    sgf_match = Match.from_sgf(EXAMPLE_SGF)
    assert mat == sgf_match
    assert (mat.length, mat.score, mat.winner) == (3, (0, 3), 1)
    assert mat.info.players == ("gnubg", "root")
    assert mat.info.date == datetime.date(2026, 11, 29)
    first, second = mat.games
    # Game 1: a double taken (R19) and a bear-off with the cube at 2 (R16).
    assert (first.cube.value, first.cube.owner) == (2, 0)
    assert first.result == bgfast.GameResult(1, "single", 2, "bear-off")
    # Game 2 is the Crawford game (R21); player 0 resigns it.
    assert second.crawford
    assert second.result == bgfast.GameResult(1, "single", 1, "resign")


@pytest.mark.parametrize("name", FIXTURES)
def test_gnubgs_mat_and_sgf_of_a_match_hold_the_same_plays(name: str) -> None:
    mat = Match.from_mat(fixture(name, "mat"))
    sgf_match = Match.from_sgf(fixture(name, "sgf"))
    assert plays(mat) == plays(sgf_match)
    assert mat.info == sgf_match.info
    if mat.length:
        assert mat == sgf_match
    else:
        # A .mat file does not say whether the Jacoby rule (R23) is played; SGF does.
        assert sgf_match.rules == Rules(jacoby=True, beavers=True)


def test_the_fixtures_hold_what_they_are_kept_for() -> None:
    matches = {name: Match.from_mat(fixture(name, "mat")) for name in FIXTURES}
    reasons = {g.result.reason for m in matches.values() for g in m.games if g.result}
    assert reasons == {"bear-off", "drop", "resign"}
    events = {type(e).__name__ for m in matches.values() for g in m.games for e in g.events}
    assert {"Double", "Take", "Drop", "Beaver", "Resign", "Accept"} <= events
    assert any(g.crawford for m in matches.values() for g in m.games)
    assert matches["money_jacoby_beavers_seed5"].is_money


def test_a_path_is_read_as_a_file(tmp_path: Path) -> None:
    path = tmp_path / "m.mat"
    path.write_text(EXAMPLE_MAT, encoding="utf-8")
    expected = Match.from_mat(EXAMPLE_MAT)
    assert Match.from_mat(path) == expected
    assert Match.from_mat(str(path)) == expected
    assert Match.from_mat(EXAMPLE_MAT.encode()) == expected
    with pytest.raises(TypeError):
        Match.from_mat(12)  # type: ignore[arg-type]


def test_mat_details_other_programs_write() -> None:
    # eXtreme Gammon: a byte-order mark, CRLF line ends, its tags; "Cannot Move" for a
    # dance; a consolidated play (24/13 for 24/18 18/13) and a play with (2).
    text = EXAMPLE_MAT.replace("; [EventDate", '; [Site "XG"]\n; [Player 1 "gnubg"]\n; [EventDate')
    text = text.replace("  7) 44:   ", "  7) 44: Cannot Move")
    text = text.replace("65: 24/18 18/13", "65: 24/13", 1)
    text = text.replace("13/9 13/9 13/9 13/9", "13/9(4)")
    m = Match.from_mat(("\ufeff" + text.replace("\n", "\r\n")).encode("utf-8"))
    assert plays(m) == plays(Match.from_mat(EXAMPLE_MAT))
    assert m.info.place == "XG"


# ---------------------------------------------------------------------------- writing


def _played_match() -> Match:
    """A match with everything a file must keep: names and the other information, a
    double, a pass, a Crawford game, resignations of each kind."""
    info = MatchInfo(
        players=("Ann Lee", "Bob"),
        event="Club night",
        round="Final",
        place="Oslo",
        date=datetime.date(2026, 12, 1),
        annotator="Cy",
        comment="First line\nsecond line",
        ratings=("1850", "1700"),
    )
    m = Match(5, seed=3, info=info)
    g = m.new_game()
    g.roll(1, 3)
    g.play("8/5 6/5")
    g.double()
    g.drop()  # R19: player 0 wins 1
    g = m.new_game()
    g.roll(2, 6)
    g.play("24/18 13/11")
    g.roll(4, 4)
    g.resign("gammon")  # player 0 resigns a gammon after rolling: player 1 wins 2
    g.accept()
    g = m.new_game()
    g.roll(5, 2)
    g.play("13/8 13/11")
    g.double()
    g.take()
    g.roll(6, 4)
    g.play("24/14")
    g.resign("backgammon", player=0)  # the cube at 2 (player 0 took it): 6 points
    g.accept()
    return m


def test_a_match_survives_both_formats() -> None:
    m = _played_match()
    assert (m.score, m.winner) == ((1, 8), 1)
    assert [g.result.kind for g in m.games if g.result] == ["single", "gammon", "backgammon"]
    mat = Match.from_mat(m.to_mat())
    assert plays(mat) == plays(m)
    assert mat.info == m.info.replace(ratings=("", ""))  # .mat files hold no ratings
    assert mat == Match.from_mat(mat.to_mat())
    again = Match.from_sgf(m.to_sgf())
    # SGF holds everything: names, event, round, place, date, ratings, the comment.
    assert plays(again) == plays(m) and again.info == m.info
    assert Match.from_sgf(again.to_sgf()) == again
    assert Match.from_mat(again.to_mat()) == mat


@pytest.mark.parametrize("name", [*FIXTURES, "example"])
def test_files_bgfast_writes_read_back_as_the_same_match(name: str) -> None:
    m = Match.from_mat(EXAMPLE_MAT if name == "example" else fixture(name, "mat"))
    assert Match.from_mat(m.to_mat()) == m
    assert Match.from_sgf(m.to_sgf()) == m


def test_money_sessions_keep_their_rules() -> None:
    m = Match(0, rules=Rules(jacoby=True, beavers=True, raccoons=True), seed=1)
    g = m.new_game()
    g.roll(4, 2)
    g.play("8/4 6/4")
    g.double()
    g.beaver()
    g.raccoon()
    g.take()
    g.resign("single", player=0)
    g.accept()  # the raccoon's cube is 8: player 1 wins 8
    g = m.new_game()
    g.roll(6, 5)
    g.play("24/13")
    g.resign("gammon", player=1)  # Jacoby: gammons count single with a centred cube (R23)
    g.accept()
    assert m.score == (1, 8)
    mat = Match.from_mat(m.to_mat())
    assert mat.rules == m.rules and mat.score == m.score
    assert plays(mat)[0] == plays(m)[0]
    # The gammon resigned on a centred cube is written as the point it scores, as GNU
    # Backgammon writes it (its import mat scores the kind times the cube): it reads back
    # as a single game, the score the same.
    assert "Wins 1 point" in m.to_mat().split("Game 2")[1]
    assert mat.games[1].result == bgfast.GameResult(0, "single", 1, "resign")
    assert mat.games[1].history[:-2] == m.games[1].history[:-2]
    assert "Raccoons => 8" in m.to_mat() and "[Jacoby" in m.to_mat()
    sgf_match = Match.from_sgf(m.to_sgf())
    assert sgf_match.rules == m.rules and sgf_match.score == m.score
    assert plays(sgf_match)[0] == plays(m)[0]
    # SGF's result is the points won (as GNU Backgammon writes it): a gammon resigned
    # for one point under the Jacoby rule reads back as a single game.
    assert sgf_match.games[1].result == bgfast.GameResult(0, "single", 1, "resign")
    assert Match.from_sgf(sgf_match.to_sgf()) == sgf_match


def test_settings_a_format_lacks_are_refused_when_written() -> None:
    m = Match(3, info=MatchInfo(players=("a:b", "c")))
    m.new_game()
    with pytest.raises(MatchOptionError, match="':'"):
        m.to_mat()
    assert Match.from_sgf(m.to_sgf()).info.players == ("a:b", "c")
    table = Match(3, table=True, seed=1)
    g = table.new_game()
    g.roll(3, 1)
    g.play("8/4 6/5")  # illegal (R4), recorded in table mode and not called (R31)
    with pytest.raises(MatchOptionError, match="R31"):
        table.to_mat()


def test_a_called_illegal_play_is_written_as_replayed(tmp_path: Path) -> None:
    m = Match(3, table=True, seed=1)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/4 6/5")  # illegal (R4), recorded in table mode
    g.call()  # R31: taken back; the same dice are played again
    g.play("8/5 6/5")
    path = tmp_path / "m.mat"
    m.to_mat(path)
    back = Match.from_mat(path)
    assert [type(e).__name__ for e in back.games[0].events] == ["Roll", "Move", "Commit"]
    assert back.games[0].position == g.position


@pytest.mark.parametrize("stop", range(12))
def test_a_match_in_play_survives(stop: int) -> None:
    # Written at any moment of a game: before the opening roll, with the dice rolled and
    # not played, a double waiting for its answer...
    m = Match(7, seed=2)
    g = m.new_game()
    actions = [
        lambda: g.roll(4, 1),
        lambda: g.play("24/23 13/9"),
        lambda: g.roll(6, 6),
        lambda: g.play("24/18(2) 13/7(2)"),
        g.double,
        g.take,
        lambda: g.roll(3, 2),
        lambda: g.play("13/10 13/11"),
        lambda: g.roll(5, 5),
        lambda: g.play("8/3(2) 6/1(2)"),
        lambda: g.roll(2, 1),
    ]
    for action in actions[:stop]:
        action()
    for text, read in ((m.to_mat(), Match.from_mat), (m.to_sgf(), Match.from_sgf)):
        back = read(text)
        assert plays(back) == plays(m), text
        assert back.game is not None and back.game.state == g.state


def test_crawford_rule_off_survives() -> None:
    m = Match(2, crawford_rule=False, seed=1)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.resign("single", player=1)
    g.accept()
    g = m.new_game()  # 1-0 in a 2-point match: no Crawford game without the rule
    assert not g.crawford
    g.roll(1, 3)
    g.play("8/5 6/5")
    g.double()  # player 0 doubles (R21 would forbid it in a Crawford game)
    g.take()
    for text, read in ((m.to_mat(), Match.from_mat), (m.to_sgf(), Match.from_sgf)):
        assert plays(read(text)) == plays(m) and not read(text).crawford_rule


# ---------------------------------------------------------------------------- damage

BROKEN_MAT = [
    ("  3) 54: 24/20 13/8", "  3) 54: 24/19 13/8", r"game 1, move 3 \(line 9\): player 0: .*R4"),
    ("  9) 62: 25/23 8/2 ", "  9) 62: 25/23 8/", "line 15: '8/' .* no checker step"),
    (" Takes", " Accepts", "line 12: unknown token 'Accepts'"),
    ("root : 2", "root : 1", r"game 2 \(line 33\): the score 0-1 does not add up.*0-2"),
    ("Doubles => 2", "Doubles => 4", "game 1, move 5 .*cube goes to 2, not 4 .*R17"),
    ("Wins 2 points", "Wins 3 points", "game 1 .*3 points; a single by bear-off .* scores 2"),
    ("  5) 66:", "  6) 66:", "line 11: game 1: move 6 follows move 4"),
    (" Game 2", " Game 3", "line 32: game 3 follows game 1"),
    ("  7) 44: ", "  7) 44: 24/20 ", "game 1, move 7 .*44 cannot be played \\(R10\\)"),
    ("  2) 51: 13/8 21/20 ", "  2) 51: ", "game 1, move 2 .*no play is written for 51.*R8"),
    ("13/8 21/20", "13/8* 21/20", "game 1, move 2 .*R11"),
    ("  1) 32: 24/21 13/11", "  1) 33: 24/21 13/11", "game 1, move 1 .*opening roll 33.*R3"),
    ("  6)  Takes", "  6)  Drops", "game 1 .*goes on after|game 1, move 6"),
    (" 3 point match", " 3 point matc", "no ' N point match' line|unknown line"),
]


@pytest.mark.parametrize(("old", "new", "message"), BROKEN_MAT)
def test_a_damaged_mat_file_names_the_game_move_and_problem(
    old: str, new: str, message: str
) -> None:
    assert old in EXAMPLE_MAT
    with pytest.raises(InvalidSaveError, match=message):
        Match.from_mat(EXAMPLE_MAT.replace(old, new, 1))


BROKEN_SGF = [
    (";B[64xzxz])", ";B[64xz", "ends inside"),
    ("PW[gnubg]", "PW[gnubg]ZZ[1]", "game 1 .*unknown property ZZ"),
    (";W[66]", ";AE[a:y]", r"game 1, node 10, line 10: .*edited \(AE\)"),
    ("RE[B+2]", "RE[W+2]", "game 1 .*says player 0 wins; the game was won by player 1"),
    ("[bs:2]", "[bs:1]", "game 2 .*score 0-1 does not add up"),
    (";W[32xumk]", ";W[32xuml]", r"game 1, move 1 \(node 2, line 2\): player 0: .*R4"),
    ("RU[Crawford:CrawfordGame]", "RU[Crawford]", "game 2 .*is not the Crawford game.*R21"),
    ("RE[B+1R]", "RE[B+1]", "game 2 .*says nobody resigned"),
    ("GM[6]", "GM[1]", "not a backgammon game"),
    ("RU[Crawford]", "RU[Crawford:Nackgammon]", "unsupported rule 'Nackgammon'"),
]


@pytest.mark.parametrize(("old", "new", "message"), BROKEN_SGF)
def test_a_damaged_sgf_file_names_the_game_move_and_problem(
    old: str, new: str, message: str
) -> None:
    assert old in EXAMPLE_SGF
    with pytest.raises(InvalidSaveError, match=message):
        Match.from_sgf(EXAMPLE_SGF.replace(old, new, 1))


def test_more_redoubles_than_the_rules_know_are_refused() -> None:
    # GNU Backgammon's "set beavers 3" allows a fourth cube offer in a row (its SGF writes
    # each as a double); bgfast's rules stop at the raccoon.
    text = fixture("money_jacoby_beavers_seed5", "sgf")
    chain = ";B[double]\n;W[double]\n;B[take]"
    assert chain in text
    longer = ";B[double]\n;W[double]\n;B[double]\n;W[double]\n;B[take]"
    with pytest.raises(InvalidSaveError, match="redoubles a raccoon"):
        Match.from_sgf(text.replace(chain, longer, 1))


# ---------------------------------------------------------------------------- fuzzing


def _check(read: object, data: str | bytes) -> Match | None:
    """``read(data)`` either refuses with ``InvalidSaveError`` or returns a match that
    writes and reads back as itself. (A ``str`` of one line that does not start as a match
    file is a path: one naming no file is an ``OSError``.)"""
    try:
        m = read(data)  # type: ignore[operator]
    except InvalidSaveError:
        return None
    except OSError:
        assert isinstance(data, str) and not any(c in data for c in "\n\r\0")
        return None
    assert isinstance(m, Match)
    for write, read_back in ((Match.to_mat, Match.from_mat), (Match.to_sgf, Match.from_sgf)):
        try:
            text = write(m)
        except MatchOptionError:  # what a format cannot hold: no games (SGF), ':' (.mat)
            continue
        assert read_back(text) == m
    return m


@FUZZ
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300)))
@example(b"\xff\xfe 3 point match")
@example("(;GM[6]MI[length:3]")
@example("(" * 5000)
@example(" 3 point match\n Game 1\n a : 0 b : 0\n" + "9" * 5000 + ") 31: 8/5 6/5")
def test_random_bytes_are_refused_cleanly(data: str | bytes) -> None:
    _check(Match.from_mat, data)
    _check(Match.from_sgf, data)


SOURCES = {
    "example.mat": EXAMPLE_MAT,
    "example.sgf": EXAMPLE_SGF,
    **{f"{n}.mat": fixture(n, "mat") for n in FIXTURES},
    **{f"{n}.sgf": fixture(n, "sgf") for n in FIXTURES},
}


def _reader(name: str) -> object:
    return Match.from_mat if name.endswith(".mat") else Match.from_sgf


@FUZZ
@given(st.sampled_from(sorted(SOURCES)), st.data())
def test_a_truncated_file_is_refused_or_a_prefix_of_the_match(
    name: str, data: st.DataObject
) -> None:
    text = SOURCES[name]
    cut = data.draw(st.integers(0, len(text) - 1))
    whole = _reader(name)(text)  # type: ignore[operator]
    part = _check(_reader(name), text[:cut])
    if part is None:
        return
    # What was read is the start of the match: whole games, then the start of one.
    n = len(part.games)
    if n:
        assert [g.events for g in part.games[:-1]] == [g.events for g in whole.games[: n - 1]]
        assert whole.games[n - 1].events[: len(part.games[-1].events)] == part.games[-1].events


@FUZZ
@given(st.sampled_from(sorted(SOURCES)), st.data())
def test_an_edited_file_is_refused_or_read_consistently(name: str, data: st.DataObject) -> None:
    text = SOURCES[name]
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    chars = list(text)
    for _ in range(data.draw(st.integers(1, 4))):
        k = rng.randrange(len(chars))
        action = rng.randrange(3)
        if action == 0:
            chars[k] = rng.choice("0123456789/:*()[];BWyzabx \n")
        elif action == 1:
            del chars[k]
        else:
            chars.insert(k, rng.choice("0123456789/: \n"))
    _check(_reader(name), "".join(chars))


def test_the_syntax_modules_work_without_a_referee() -> None:
    t = matfile.parse(EXAMPLE_MAT)
    assert [len(g.entries) for g in t.games] == [46, 34]
    assert t.games[0].entries[9].kind == "double" and t.games[0].entries[9].move == 5
    assert matfile.parse(matfile.write(t)).games[1].result == t.games[1].result
    s = sgf.parse(EXAMPLE_SGF)
    assert [e.kind for e in s.games[0].entries] == [e.kind for e in t.games[0].entries]
    assert [e.move for e in s.games[0].entries] == [e.move for e in t.games[0].entries]
