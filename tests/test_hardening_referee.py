"""Hardening of the game layer as a referee and of its match files (a third adversarial
pass): regression tests for the defects it found, each failing without its fix.

The contract: a resignation scores what the cube at stake gives (R16, R19, R23), as GNU
Backgammon scores it; what bgfast writes into a ``.mat`` or SGF file reads back as the same
match, or is refused when written; what GNU Backgammon writes is read as it means it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast import Game, InvalidIdError, InvalidSaveError, Match, MatchInfo, MatchOptionError, Rules
from bgfast.state import GameResult

DATA = Path(__file__).parent / "data"
EXAMPLE_MAT = (DATA / "formats" / "example_3pt.mat").read_text(encoding="utf-8")


def _results(match: Match) -> list[GameResult | None]:
    return [g.result for g in match.games]


def _after_opening(rules: Rules) -> Game:
    game = Game(rules=rules, seed=1)
    game.roll((3, 1))
    game.play("8/5 6/5")
    return game


# ------------------------------------------------------------------ resigning on an offer


def _resigner(game: Game, who: str) -> int:
    """The player answering the offer (``"responder"``) or the one who made it."""
    responder = game.player_to_act
    assert responder is not None
    return responder if who == "responder" else 1 - responder


@pytest.mark.parametrize(
    ("offers", "resigner", "kind", "points", "cube"),
    [
        # A double waits: the cube before it (1, centred) is at stake.
        (("double",), "responder", "single", 1, (1, None)),
        (("double",), "doubler", "gammon", 2, (1, None)),
        # A beaver took the cube at 2 before redoubling: 2 is at stake, as its pass scores.
        (("double", "beaver"), "responder", "single", 2, (2, 0)),
        (("double", "beaver"), "doubler", "backgammon", 6, (2, 0)),
        # A raccoon took the beaver's 4.
        (("double", "beaver", "raccoon"), "responder", "single", 4, (4, 1)),
        (("double", "beaver", "raccoon"), "doubler", "gammon", 8, (4, 1)),
    ],
)
def test_r19_a_resignation_on_an_offer_scores_the_cube_the_offer_doubles(
    offers: tuple[str, ...], resigner: str, kind: str, points: int, cube: tuple[int, int | None]
) -> None:
    # Player 1 doubles (on roll after 3-1); the beaver is player 0's, the raccoon player 1's.
    game = _after_opening(Rules(beavers=True, raccoons=True))
    for offer in offers:
        getattr(game, offer)()
    game.resign(kind, player=_resigner(game, resigner))  # type: ignore[arg-type]
    game.accept()
    assert game.result is not None
    assert (game.result.kind, game.result.points) == (kind, points)
    assert (game.cube.value, game.cube.owner) == cube
    assert Game.from_json(game.to_json()).to_json() == game.to_json()


def test_r19_resigning_after_a_beaver_never_costs_less_than_passing_it() -> None:
    passed = _after_opening(Rules(beavers=True))
    passed.double()
    passed.beaver()
    passed.drop()
    resigned = _after_opening(Rules(beavers=True))
    resigned.double()
    resigned.beaver()
    resigned.resign("single")
    resigned.accept()
    assert passed.result is not None and resigned.result is not None
    assert resigned.result.points == passed.result.points == 2


def test_r23_a_beaver_turns_the_cube_so_the_jacoby_rule_no_longer_holds() -> None:
    game = _after_opening(Rules(jacoby=True, beavers=True))
    game.double()
    game.beaver()
    game.resign("gammon", player=1)  # the doubler gives up a gammon on the beaver's cube 2
    game.accept()
    assert game.result is not None and game.result.points == 4


def test_r23_the_jacoby_rule_still_holds_while_a_first_double_waits() -> None:
    game = _after_opening(Rules(jacoby=True))
    game.double()
    game.resign("gammon")
    game.accept()
    assert game.result is not None and game.result.points == 1


# What GNU Backgammon 1.07 wrote (two human players, `export match mat`, `save match`):
# game 1, a gammon resigned instead of answering a double; game 2, a single resigned instead
# of answering a beaver ("root wins a gammon and 2 points", "gnubg wins a single game and 2
# points"); game 3 (from a session with ``set beavers 2``, renumbered), a gammon resigned
# instead of answering a raccoon ("root wins a gammon and 8 points"). Its .mat writes the
# kind times the cube on offer, its SGF the points scored.
GNUBG_RESIGNED_ON_OFFERS_MAT = """\
; [EventDate "2026.12.03"]

 0 point match

 Game 1
 gnubg : 0                      root : 0
  1) 41: 13/9 24/23               Doubles => 2
                                  Wins 4 points

 Game 2
 gnubg : 0                      root : 2
  1) 41: 13/9 24/23               Doubles => 2
  2)  Beavers => 4
      Wins 4 points

 Game 3
 gnubg : 2                      root : 2
  1) 41: 13/9 24/23               Doubles => 2
  2)  Beavers => 4                Beavers => 8
                                  Wins 16 points

 Game 4
 gnubg : 2                      root : 10
"""

GNUBG_RESIGNED_ON_OFFERS_SGF = """\
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:0][ws:0][bs:0]PW[gnubg]\
PB[root]RE[B+2R]
;W[41mixw]
;B[double])
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:1][ws:0][bs:2]PW[gnubg]\
PB[root]RE[W+2R]
;W[41mixw]
;B[double]
;W[double])
"""


def test_gnubg_mat_of_resignations_on_offers_reads_as_gnubg_scored_them() -> None:
    match = Match.from_mat(GNUBG_RESIGNED_ON_OFFERS_MAT)
    assert [(r.winner, r.kind, r.points) for r in _results(match) if r is not None] == [
        (1, "gammon", 2),
        (0, "single", 2),
        (1, "gammon", 8),  # the raccoon took the cube at 4
    ]
    assert match.score == (2, 10)


def test_gnubg_sgf_of_resignations_on_offers_reads_as_gnubg_scored_them() -> None:
    match = Match.from_sgf(GNUBG_RESIGNED_ON_OFFERS_SGF)
    assert [(r.winner, r.kind, r.points) for r in _results(match) if r is not None] == [
        (1, "gammon", 2),
        (0, "single", 2),
    ]


@pytest.mark.parametrize(
    "offers", [("double",), ("double", "beaver"), ("double", "beaver", "raccoon")]
)
@pytest.mark.parametrize("resigner", ["responder", "doubler"])
@pytest.mark.parametrize("kind", ["single", "gammon", "backgammon"])
def test_a_resignation_on_an_offer_survives_both_formats(
    offers: tuple[str, ...], resigner: str, kind: str
) -> None:
    match = Match(0, seed=3, rules=Rules(beavers=True, raccoons=True))
    game = match.new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    for offer in offers:
        getattr(game, offer)()
    game.resign(kind, player=_resigner(game, resigner))  # type: ignore[arg-type]
    game.accept()
    for back in (Match.from_mat(match.to_mat()), Match.from_sgf(match.to_sgf())):
        assert _results(back) == _results(match)
        assert back.score == match.score


# ------------------------------------------------------------------ .mat names and comments


def test_a_mat_file_with_a_long_name_reads_back() -> None:
    match = Match.from_mat(EXAMPLE_MAT)
    match.info = match.info.replace(players=("Alexander the Great of Macedonia", "Bo"))
    back = Match.from_mat(match.to_mat())
    assert back.info.players == match.info.players
    assert _results(back) == _results(match)


def test_gnubg_score_lines_of_long_names_are_read() -> None:
    # GNU Backgammon pads "name : points" to 31 characters and writes the second name right
    # after, with no space between once the first is longer (its `export match mat`).
    text = EXAMPLE_MAT.replace(
        " gnubg : 0                      root : 0", " Alexander the Great of Macedoni : 0Bo : 0"
    ).replace(
        " gnubg : 0                      root : 2", " Alexander the Great of Macedoni : 0Bo : 2"
    )
    match = Match.from_mat(text)
    assert match.info.players == ("Alexander the Great of Macedoni", "Bo")
    assert match.score == (0, 3)


@pytest.mark.parametrize(
    "line",
    [
        '[Crawford "Off"]',  # read back, it would change the match's rules
        '[Variation "Nackgammon"]',  # read back, it would refuse the file
        '[Event "Club night"]',  # read back, it would move into the event
        '  [EventDate "2026.12.03"]',
        '[Unrated "On"]',  # read back, it would be dropped as a tag bgfast ignores
    ],
)
def test_a_mat_file_cannot_hold_a_comment_line_that_reads_as_a_tag(line: str) -> None:
    match = Match.from_mat(EXAMPLE_MAT)
    match.info = match.info.replace(comment=f"first\n{line}")
    with pytest.raises(MatchOptionError, match="reads as a tag"):
        match.to_mat()
    assert Match.from_sgf(match.to_sgf()).info == match.info  # SGF holds it


@pytest.mark.parametrize(
    "comment",
    [
        "  indented\n\tno: a tab is a control character",
        "  indented\n\n    more\ntrailing  ",
        '[Foo "an unknown tag stays a comment"]',
        "[not a tag]",
    ],
)
def test_mat_comments_read_back_as_written(comment: str) -> None:
    try:
        info = MatchInfo(comment=comment)
    except MatchOptionError:
        return  # a control character: refused where the information is made
    match = Match.from_mat(EXAMPLE_MAT)
    match.info = match.info.replace(comment=info.comment)
    assert Match.from_mat(match.to_mat()).info == match.info


# GNU Backgammon 1.07 (``set jacoby on``, human players, manual dice): game 1, a gammon
# resigned on a taken cube of 2; game 2, a gammon resigned with the cube never turned, which
# it scores 2 points though the Jacoby rule (R23) makes every game a single then.
GNUBG_JACOBY_SGF = """\
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:0][ws:0][bs:0]PW[gnubg]\
PB[root]DT[2026-12-03]RU[Jacoby]RE[B+4R]
;W[31hefe]
;B[double]
;W[take]
;B[42qusu])
(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:0][game:1][ws:0][bs:4]PW[gnubg]\
PB[root]RU[Jacoby]RE[W+2R]
;W[31hefe])
"""


def test_r23_an_sgf_resignation_scoring_other_points_than_the_rules_is_refused() -> None:
    # It was read as 1 point, the file's 2 dropped without a word (the last game has no
    # score line after it to disagree).
    with pytest.raises(
        InvalidSaveError,
        match=r"game 2 .*says 2 points; a resigned gammon "
        r"scores 1 here \(the Jacoby rule, R23",
    ):
        Match.from_sgf(GNUBG_JACOBY_SGF)
    first = Match.from_sgf(GNUBG_JACOBY_SGF[: GNUBG_JACOBY_SGF.rindex("(;FF")])
    assert _results(first)[0] == GameResult(1, "gammon", 4, "resign")


def test_an_sgf_resignation_under_the_jacoby_rule_written_by_bgfast_reads_back() -> None:
    match = Match(0, seed=3, rules=Rules(jacoby=True))
    game = match.new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.resign("gammon")
    game.accept()
    back = Match.from_sgf(match.to_sgf())
    assert back.score == match.score == (1, 0)


# ------------------------------------------------------------------ .mat results


def test_r20_a_mat_game_said_to_win_the_match_must_win_it() -> None:
    text = EXAMPLE_MAT.replace("Wins 2 points", "Wins 2 points and the match")
    with pytest.raises(
        InvalidSaveError,
        match=r"game 1 .*says the game wins the match; the "
        r"score is 0-2 in a 3-point match \(R20\)",
    ):
        Match.from_mat(text)
    money = EXAMPLE_MAT.replace(" 3 point match", " 0 point match").replace(
        "Wins 1 point", "Wins 1 point and the match"
    )
    with pytest.raises(InvalidSaveError, match=r"game 2 .*says the game wins the match"):
        Match.from_mat(money)


def test_a_mat_game_that_wins_the_match_may_say_so() -> None:
    text = EXAMPLE_MAT.replace("Wins 1 point", "Wins 1 point and the match")
    assert Match.from_mat(text).winner == 1


# ------------------------------------------------------------------ beavers in .mat files


def _beaver_taken() -> tuple[Match, Game]:
    match = Match(0, seed=3, rules=Rules(beavers=True))
    game = match.new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    game.beaver()
    game.take()
    return match, game


def test_a_beaver_taken_then_a_resignation_survives_a_mat_file() -> None:
    # The take of a beaver was left out ("the doubler's next roll says it"): before a
    # resignation, the file read back as a resignation answering the beaver, 2 points for 4.
    match, game = _beaver_taken()
    game.resign("single")
    game.accept()
    text = match.to_mat()
    assert "Takes" in text
    back = Match.from_mat(text)
    assert _results(back) == _results(match) == [GameResult(0, "single", 4, "resign")]


def test_a_match_stopped_after_a_beaver_is_taken_survives_a_mat_file() -> None:
    match, game = _beaver_taken()
    back = Match.from_mat(match.to_mat()).games[-1]
    assert (back.phase, back.cube.value, back.cube.owner) == ("roll", 4, 0)
    assert [type(e) for e in back.events] == [type(e) for e in game.events]


def test_a_beaver_taken_then_rolled_is_still_written_the_gnubg_way() -> None:
    match, game = _beaver_taken()
    game.roll((6, 5))
    game.play("24/13")
    text = match.to_mat()
    assert "Takes" not in text
    assert Match.from_mat(text).games[-1].cube.value == 4


# ------------------------------------------------------------------ tied opening rolls


def test_r3_a_tied_opening_roll_rolled_again_is_no_obstacle_to_a_match_file() -> None:
    # One game in six starts with a tie when bgfast rolls; every match holding one was
    # refused by both writers ("a tied opening roll (an automatic double, R22)"), though
    # without automatic doubles the tie changes nothing and is rolled again (R3).
    match = Match(5, seed=1)
    game = match.new_game()
    game.roll((3, 3))
    game.roll((2, 2))
    game.roll((3, 1))
    game.play("8/5 6/5")
    for back in (Match.from_mat(match.to_mat()), Match.from_sgf(match.to_sgf())):
        assert back.games[0].state == game.state


def test_r22_an_automatic_double_is_still_refused_by_the_writers() -> None:
    match = Match(0, seed=1, rules=Rules(auto_doubles=1))
    game = match.new_game()
    game.roll((3, 3))
    game.roll((3, 1))
    for write in (match.to_mat, match.to_sgf):
        with pytest.raises(MatchOptionError, match="automatic double"):
            write()


# ------------------------------------------------------------------ random sessions


def _random_match(seed: int) -> Match:
    """A short match or money session played with random legal actions: rolls and plays,
    doubles, beavers, raccoons, takes and passes, resignations offered, accepted and
    rejected, by either player."""
    rng = random.Random(seed)
    length = rng.choice([0, 0, 1, 3, 5])
    if length:
        rules = Rules(max_cube=rng.choice([None, 2, 8]))
    else:
        rules = Rules(
            beavers=True,
            raccoons=rng.random() < 0.7,
            jacoby=rng.random() < 0.5,
            max_cube=rng.choice([None, 4, 64]),
        )
    crawford_rule = rng.random() < 0.8 if length else True
    match = Match(length, seed=seed, rules=rules, crawford_rule=crawford_rule)
    kinds = ["single", "gammon", "backgammon"]
    for _ in range(rng.randint(1, 3)):
        if match.winner is not None:
            break
        game = match.new_game()
        for _ in range(300):
            if game.is_over:
                break
            phase = game.phase
            if phase == "roll" and game.may_double() and rng.random() < 0.1:
                game.double()
            elif phase == "roll" and rng.random() < 0.01:
                game.resign(rng.choice(kinds))  # type: ignore[arg-type]
            elif phase in ("opening", "roll"):
                game.roll()
            elif phase == "move":
                game.play(rng.choice(game.legal_moves()))
            elif phase == "doubled":
                x = rng.random()
                offer = game.offer_kind
                room = (game.offered_cube or 0) * 2 <= game.cube.max_value
                if x < 0.15:
                    game.resign(rng.choice(kinds), player=rng.choice([0, 1]))  # type: ignore[arg-type]
                elif x < 0.35 and offer == "double" and rules.beavers and room:
                    game.beaver()
                elif x < 0.5 and offer == "beaver" and rules.raccoons and room:
                    game.raccoon()
                else:
                    (game.take if rng.random() < 0.7 else game.drop)()
            else:  # a resignation waits
                (game.accept if rng.random() < 0.7 else game.reject)()
        if not game.is_over:
            break
    return match


def _scored(match: Match) -> list[object]:
    # SGF holds the points won: a gammon resigned for one point under the Jacoby rule reads
    # back as a single (a documented limit), so the kind is left out.
    return [(r.winner, r.points, r.reason) if r else None for r in _results(match)]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_random_matches_read_back_from_both_formats(seed: int) -> None:
    match = _random_match(seed)
    for write, read in ((Match.to_mat, Match.from_mat), (Match.to_sgf, Match.from_sgf)):
        back = read(write(match))
        assert _scored(back) == _scored(match)
        assert back.score == match.score
        assert back.rules == match.rules
        last, again = match.games[-1], back.games[-1]
        if not last.is_over and last.phase != "resign":  # files hold no pending resignation
            assert (again.phase, again.cube.value, again.cube.owner, again.offered_cube) == (
                last.phase,
                last.cube.value,
                last.cube.owner,
                last.offered_cube,
            )


# ------------------------------------------------------------------ rules a format holds


@pytest.mark.parametrize("rules", [Rules(beavers=True, raccoons=True), Rules(max_cube=4)])
def test_the_money_rules_survive_both_formats_before_any_offer(rules: Rules) -> None:
    # A .mat file showed the raccoon rule only by a raccoon played, and SGF kept no cube
    # limit but 1: read back, the rules of a session without offers changed silently.
    match = Match(0, seed=2, rules=rules)
    game = match.new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    for back in (Match.from_mat(match.to_mat()), Match.from_sgf(match.to_sgf())):
        assert back.rules == rules


def test_an_sgf_cube_limit_that_is_no_cube_value_is_refused() -> None:
    match = Match(3, seed=2, rules=Rules(max_cube=8))
    match.new_game().roll((3, 1))
    text = match.to_sgf()
    assert "CubeLimit=8" in text
    with pytest.raises(InvalidSaveError, match="no cube value"):
        Match.from_sgf(text.replace("CubeLimit=8", "CubeLimit=6"))


@pytest.mark.parametrize("length", ["1000000", "9" * 5000])
def test_a_fibs_board_number_out_of_range_is_named_as_such(length: str) -> None:
    # A number of more than six digits was "not a number".
    start = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    line = f"board:You:Opponent:{length}:0:0:{start}:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0"
    with pytest.raises(InvalidIdError, match=r"'match length' is '\d+.*, not in 0\.\.32767"):
        Game.from_fibs_board(line)
