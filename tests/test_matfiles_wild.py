""".mat files as they are found in the wild: edited by hand or by an editor (tabs, leading
spaces stripped), written by GNU Backgammon in ways bgfast itself does not write (a raccoon
as a second ``Beavers``, a match without the Crawford rule and no tag saying so, a game whose
``Wins`` line is missing), in the encodings Windows programs use; and the messages a
damaged one gets. The GNU Backgammon files below were made by GNU Backgammon 1.07
(``/usr/games/gnubg -t -q -r < commands``), as each says; the tests that run the program
(``tests/gnubg_matches.py``) need it, as ``tests/test_matfiles_gnubg.py`` does.
"""

from __future__ import annotations

import re
from pathlib import Path

import gnubg_matches
import pytest
from test_matfiles import plays

from bgfast import GameResult, InvalidSaveError, Match, matfile

EXAMPLE = (Path(__file__).parent / "data" / "formats" / "example_3pt.mat").read_text()
# In the example, game 1 (lines 5-30) ends by root's bear-off (R15); game 2 (lines 32-51)
# by gnubg resigning, the Wins line in root's column.
EXAMPLE_GAME_2 = 32


def _unexpand(text: str) -> str:
    """``text`` as ``unexpand -a`` writes it: each run of two spaces or more that ends on
    a tab stop (every 8 columns) becomes a tab."""
    out = []
    for line in text.split("\n"):
        chunks = [line[k : k + 8] for k in range(0, len(line), 8)]
        converted = []
        for chunk in chunks:
            stripped = chunk.rstrip(" ")
            if len(chunk) == 8 and len(chunk) - len(stripped) >= 2:
                converted.append(stripped + "\t")
            else:
                converted.append(chunk)
        out.append("".join(converted))
    return "\n".join(out)


def _strip(text: str) -> str:
    """``text`` as ``sed 's/^ *//'`` leaves it."""
    return "\n".join(line.lstrip(" ") for line in text.split("\n"))


def _passed_then_played() -> Match:
    """A 5-point match: game 1 passed by player 0 (R19: player 1 wins 1), game 2 under way."""
    m = Match(5, seed=0)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()
    g.drop()
    g = m.new_game()
    g.roll(1, 3)
    g.play("8/5 6/5")
    return m


def _resigned_then_played() -> Match:
    """A 5-point match: game 1 resigned by player 1 (a single on a centred cube, 1 point to
    player 0, R16), game 2 under way."""
    m = Match(5, seed=0)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.resign("single", player=1)
    g.accept()
    g = m.new_game()
    g.roll(1, 3)
    g.play("8/5 6/5")
    return m


def _line_of(text: str, start: str, after: int = 0) -> int:
    """The number of the first line at or after line ``after`` that starts (indentation
    aside) with ``start``."""
    for k, line in enumerate(text.split("\n")[after:], after + 1):
        if line.strip().startswith(start):
            return k
    raise AssertionError(start)


# ------------------------------------------------------------ 1. columns and the winner


def test_a_file_whose_spaces_became_tabs_reads_as_written() -> None:
    # unexpand -a turns the 34 spaces before player 1's "Wins" into 4 tabs and 2 spaces:
    # 6 characters, column 34 once tabs are expanded to 8-column stops.
    tabbed = _unexpand(EXAMPLE)
    assert "\t\t\t\t  Wins 1 point" in tabbed
    original = Match.from_mat(EXAMPLE)
    read = Match.from_mat(tabbed)
    assert read == original
    # Game 2 was resigned by player 0: the column alone says player 1 won it.
    assert read.games[1].result == GameResult(1, "single", 1, "resign")


def test_a_wins_line_without_indentation_is_not_guessed_when_it_decides() -> None:
    stripped = _strip(EXAMPLE)
    line = _line_of(stripped, "Wins 1 point", EXAMPLE_GAME_2)
    # Game 2 ended by a resignation: only the column can say who won, and there is none.
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(stripped)
    message = str(e.value)
    assert f"game 2 (line {line}): 'Wins 1 point' has no indentation" in message
    assert "player 0's 'Wins' by 6 spaces and player 1's under the right column" in message


def test_a_wins_line_without_indentation_is_taken_when_the_bear_off_decides() -> None:
    # Only game 1 stripped: root's bear-off (R15) says root won it, whatever the column.
    game_1, rest = EXAMPLE.split(" Game 2")
    read = Match.from_mat(_strip(game_1) + " Game 2" + rest)
    assert read == Match.from_mat(EXAMPLE)
    assert read.games[0].result == GameResult(1, "single", 2, "bear-off")


def test_a_wins_line_without_indentation_is_taken_when_the_pass_decides() -> None:
    m = _passed_then_played()
    text = m.to_mat()
    # The pass's line holds both columns; a Wins alone on the next line names no column.
    assert re.search(r"Drops +Wins 1 point", text)
    moved = re.sub(r"(Drops) +(Wins 1 point)", r"\1\n\2", text)
    assert "\nWins 1 point" in moved
    assert Match.from_mat(moved) == m


def test_a_wins_line_read_in_the_wrong_column_is_named_by_the_next_score_line() -> None:
    # Game 1 resigned by player 1 (R16: a single on a centred cube, 1 point to player 0);
    # its Wins line moved under the right column reads as player 1's, and game 2's score
    # line does not add up: the message says which Wins line would make it.
    m = _resigned_then_played()
    text = m.to_mat()
    assert "\n      Wins 1 point\n" in text
    moved = text.replace("\n      Wins 1 point\n", "\n" + " " * 34 + "Wins 1 point\n")
    wins = _line_of(moved, "Wins 1 point")
    score = _line_of(moved, "Game 2") + 1
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(moved)
    message = str(e.value)
    assert f"game 2 (line {score}): the score 1-0 does not add up" in message
    assert f"won by player 0: is its 'Wins' line (line {wins}) in the right column?" in message


# ------------------------------------------------------------ 2. GNU Backgammon's raccoon

# GNU Backgammon 1.07's `export match mat` of a money session with a raccoon (`import mat`
# of the session as bgfast writes it, `Raccoons => 8` then `Takes`; trailing spaces
# removed): it writes the raccoon as a second "Beavers => 8" and leaves out its take, as
# after a beaver.
GNUBG_RACCOON = """\
; [EventDate "2026.12.04"]

 0 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             42: 8/4 6/4
  2) 66: 24/18 24/18 13/7 13/7   52: 24/22 13/8
  3) 64: 8/2 6/2                 32: 24/22 8/5
  4) 42: 8/4 6/4                 41: 13/9 6/5
  5) 61: 13/7 8/7                22: 22/20 22/20 13/11 11/9
  6) 33: 18/15 18/15 13/10 13/10 61: 9/3 8/7
  7) 65: 15/10 15/9              41: 20/16* 8/7
  8) 22: 25/23 10/8 7/5* 7/5     61: 25/24 9/3
  9) 63: 23/17 8/5               32: 13/11 11/8*
 10) 32: 25/23 5/2                Doubles => 2
 11)  Beavers => 4                Beavers => 8
 12)                             44: 16/12 13/9 12/8 9/5
 13) 53: 10/7 10/5               44: 8/4 8/4 6/2* 5/1
 14) 64:                         21: 24/22 2/1
 15) 51:                         42: 7/5 7/3
 16) 51:                         41: 5/1 4/3
 17) 51:                         32: 4/1 3/1
 18) 61:                         66: 22/16 16/10 10/4 6/0
 19) 52: 25/23 6/1               21: 6/4 1/0
 20) 53: 7/4 7/2                 55: 5/0 5/0 4/0 4/0
 21) 42: 7/3 5/3                 22: 4/2* 4/2 2/0 2/0
 22) 65: 25/20 20/14             64: 3/0 3/0
 23) 41: 14/10 10/9              31: 3/0 1/0
 24) 54: 9/4 4/0                 54: 1/0 1/0
                                  Wins 8 points
"""


def test_gnubgs_raccoon_reads_as_a_raccoon_taken() -> None:
    m = Match.from_mat(GNUBG_RACCOON)
    assert m.rules.beavers and m.rules.raccoons  # shown by the play, as no tag says
    game = m.games[0]
    kinds = [type(e).__name__ for e in game.events]
    assert kinds[kinds.index("Double") :][:4] == ["Double", "Beaver", "Raccoon", "Take"]
    # Player 1 doubled, player 0 beavered, player 1 raccooned: the cube is at 8 (R17),
    # owned by player 0, who took it; player 0 then resigned a single: 8 points.
    assert (game.cube.value, game.cube.owner) == (8, 0)
    assert game.result == GameResult(1, "single", 8, "resign")
    assert m.score == (0, 8)
    # With the take written, as bgfast writes it, and as a raccoon: the same session.
    with_take = GNUBG_RACCOON.replace(
        " 12)                             44:", " 12)  Takes                      44:"
    )
    assert Match.from_mat(with_take) == m
    assert Match.from_mat(with_take.replace("Beavers => 8", "Raccoons => 8")) == m
    # bgfast keeps writing "Raccoons => 8" and the take, which GNU Backgammon reads.
    written = m.to_mat()
    assert "Raccoons => 8" in written and "Takes" in written
    assert Match.from_mat(written) == m


def test_gnubg_writes_bgfasts_raccoon_as_a_second_beaver_and_bgfast_reads_it_back() -> None:
    m = Match.from_mat(GNUBG_RACCOON)
    made = gnubg_matches.convert(m.to_mat(), "mat")  # GNU Backgammon: import mat; export
    assert "Beavers => 8" in made.mat and "Raccoons" not in made.mat
    assert plays(Match.from_mat(made.mat)) == plays(m)


def test_a_raccoon_left_unanswered_is_refused() -> None:
    # The raccoon's take is implied by the doubler's roll only: the other player's is not.
    text = GNUBG_RACCOON.replace(
        " 12)                             44: 16/12 13/9 12/8 9/5",
        " 12) 44: 16/12 13/9 12/8 9/5",
    )
    with pytest.raises(InvalidSaveError, match=r"move 12 \(line 18\).*raccoon waits"):
        Match.from_mat(text)


# ------------------------------------------------------------ 3. no Crawford rule, no tag

# GNU Backgammon 1.07, `set automatic crawford off`, `new match 3` (`set seed 43`, both
# players gnubg at 0 plies), `export match mat` (trailing spaces removed): no tag says the
# rule is off. At 2-0, root doubles in game 2, which would be the Crawford game (R21).
GNUBG_NO_CRAWFORD = """\
; [EventDate "2026.12.04"]

 3 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             31: 8/5 6/5
  2) 41: 13/9 24/23              11: 6/5 6/5 5/4 5/4
  3) 22: 13/11 11/9 6/4 6/4      52: 24/22 13/8
  4) 61: 13/7 8/7                41: 13/9 24/23
  5) 44: 9/5 9/5 7/3* 7/3        41: 25/24 13/9
  6) 52: 6/1* 24/22              31: 25/24* 8/5
  7) 51: 25/24 23/18             32: 9/7* 7/4
  8) 61: 25/24 22/16*            64:
  9) 42: 24/22 22/18             43:
 10) 22: 4/2* 4/2 3/1* 3/1       31: 25/22
 11) 64: 24/18 13/9              64: 25/21
 12) 63: 13/7 7/4*               63: 25/22
 13)  Doubles => 2                Takes
 14) 64: 16/10 8/4               33: 25/22 13/10 13/10 5/2
 15) 51: 10/5 9/8                21: 4/3 4/2
 16) 62: 18/12 18/16             52: 8/6 8/3
 17) 22: 16/14 12/10 10/8 8/6    31: 6/5 10/7
 18) 43: 8/4 8/5                 53: 7/4 10/5
 19) 41: 14/10 5/4               63: 22/16 16/13
 20) 66: 10/4 6/0 6/0 6/0        66: 22/16 16/10 13/7 10/4
 21) 54: 4/0 5/0                 11: 7/6 4/3 3/2 2/1
 22) 62: 2/0 5/0                 61: 22/16 16/15
 23) 33: 5/2 4/1 4/1 4/1         64: 15/9 9/5
 24) 52: 4/0 2/0
      Wins 2 points

 Game 2
 gnubg : 2                      root : 0
  1)                             64: 24/18 18/14
  2) 62: 13/11* 24/18             Doubles => 2
  3)  Takes                      61: 25/24 13/7*
  4) 52: 25/23 23/18*            63: 25/22 13/7*
  5) 64: 25/21 24/18*            52: 25/20 6/4*
  6) 43: 25/21* 21/18            54: 25/20 8/4
  7) 33: 13/10 13/10 6/3* 6/3    54: 25/20 20/16
  8) 31: 11/8 8/7                53: 24/21 21/16
  9) 55: 18/13 18/13 13/8 7/2    41: 8/4 24/23*
 10) 54: 25/20 20/16             52: 16/14 14/9*
 11) 62: 25/23 23/17*            54: 25/21 13/8*
 12) 52: 25/23 13/8              43: 9/5 8/5
 13) 62: 8/6 23/17               51: 6/5 13/8*
 14) 31: 25/24 6/3               62: 23/21 16/10
 15) 52: 24/22 22/17*            43: 25/21 21/18
 16) 62: 17/15* 13/7*            54: 25/20 25/21
 17) 65: 15/10 13/7              65: 21/16 13/7
 18) 21: 8/7 3/1                 65: 20/14 7/2
 19) 64: 10/6 7/1                61: 14/8 4/3
 20) 62: 3/1 8/2                 42: 8/4 5/3
 21) 63: 8/2 6/3                 64: 21/17* 17/11
 22) 61: 25/24 24/18             63: 16/13 13/7*
 23) 22: 25/23* 6/4* 6/4 6/4     61: 25/19
 24) 44: 10/6* 10/6 7/3 7/3      61:
 25) 42: 6/2 6/4                 65: 25/19 25/20
 26) 61: 23/17 17/16             65: 20/14 14/9*
 27) 65:                         32: 9/7 11/8
 28) 53:                         64: 8/2 6/2
 29) 22:                         53: 20/17 17/12
 30) 42:                         21: 19/18 20/18
 31) 32:                         21: 12/11 11/9
 32) 62:                         51: 18/13 9/8
 33) 55:                         63: 18/12 12/9
 34) 51: 25/24                   22: 9/7 7/5 5/3 3/1*
 35) 65:                         41: 13/9 9/8
 36) 66:                         64: 7/1 8/4
 37) 53:                         53: 8/5 7/2
 38) 44:                         31: 4/1 1/0
 39) 53:                         33: 6/3 6/3 3/0 3/0
 40) 41:                         41: 5/1 1/0
 41) 22:                         65: 5/0 5/0
 42) 31:                         41: 4/3 4/0
 43) 33:                         64: 3/0 3/0
 44) 53: 25/22* 22/17            43:
 45) 61: 17/16 16/10             51: 25/20 20/19
 46) 65: 10/5 5/0                66: 19/13 13/7 7/1 2/0
                                  Wins 2 points

 Game 3
 gnubg : 2                      root : 2
  1)                             21: 13/11 24/23
  2) 41: 13/9 24/23              52: 23/18 18/16*
  3) 42: 25/23 13/9*             42: 25/21 13/11
  4) 55: 23/18 23/18 6/1* 6/1    43: 25/21 6/3
  5) 43: 8/5 9/5                 31: 6/5 8/5
  6) 53: 13/10 10/5              33: 13/10 13/10 13/10 6/3
  7) 42: 5/3 6/2                 51: 11/10 11/6
  8) 41: 13/9 9/8                62: 6/4 10/4
  9) 21: 8/6 3/2                 21: 6/5 8/6
 10) 65: 24/18 13/8              63: 5/2 8/2
 11) 65: 8/3 18/12               51: 10/9 9/4
 12) 61: 12/11 11/5              62: 21/15 4/2
 13) 55: 18/13 18/13 13/8 13/8   65: 15/9 9/4
 14) 43: 8/5 5/1                 21: 2/1 10/8
 15) 65: 8/2 6/1                 31: 8/7 10/7
 16) 63: 8/5 8/2                 65: 7/1 7/2
 17) 51: 1/0 5/0                 43: 6/3 6/2
 18) 62: 6/0 2/0                 42: 21/19* 19/15
 19) 62: 25/19 5/3               63: 15/9 9/6*
 20) 33:                         21: 2/0 6/5
 21) 65: 25/19 19/14             66: 5/0 5/0 5/0 4/0
 22) 53: 14/11 11/6              41: 1/0 4/0
 23) 32: 3/0 2/0                 51: 4/0 1/0
 24) 41: 6/2 1/0                 53: 3/0 3/0
 25) 62: 5/0 2/0                 64: 3/0 2/0
 26) 31: 1/0 3/0                 42: 2/0 2/0
                                  Wins 1 point

"""


def test_gnubgs_match_without_the_crawford_rule_reads_without_it() -> None:
    match = Match.from_mat(GNUBG_NO_CRAWFORD)
    assert not match.crawford_rule
    assert (match.score, match.winner) == ((2, 3), 1)
    second = match.games[1]
    assert not second.crawford and second.cube.value == 2
    # The file says nothing; with the rule stated, the double is refused (R21).
    tagged = '; [Crawford "On"]\n' + GNUBG_NO_CRAWFORD
    with pytest.raises(InvalidSaveError, match=r"game 2, move 2 .*Crawford game, R21"):
        Match.from_mat(tagged)
    assert matfile.parse(GNUBG_NO_CRAWFORD).rules.crawford is None


def test_gnubg_drops_the_crawford_tag_and_bgfast_still_reads_the_match() -> None:
    m = Match.from_mat(GNUBG_NO_CRAWFORD)
    tagged = m.to_mat()
    assert '; [Crawford "Off"]' in tagged
    made = gnubg_matches.convert(tagged, "mat")  # GNU Backgammon: import mat; export
    assert "Crawford" not in made.mat
    back = Match.from_mat(made.mat)
    assert plays(back) == plays(m) and not back.crawford_rule


def test_a_match_without_the_crawford_tag_reads_without_the_rule_when_it_must() -> None:
    m = Match(3, crawford_rule=False, seed=0)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.roll(6, 6)
    g.play("24/18(2) 13/7(2)")
    g.resign("single", player=1)  # the cube at 2: 2-0, one point from the match
    g.accept()
    g = m.new_game()
    assert not g.crawford  # R21's Crawford game, were the rule played
    g.roll(1, 3)
    g.play("8/5 6/5")
    g.double()  # R21 would forbid it
    g.take()
    text = m.to_mat()
    assert '; [Crawford "Off"]' in text
    read = Match.from_mat(text.replace('; [Crawford "Off"]\n', ""))
    assert read == m and not read.crawford_rule


def test_a_damaged_match_without_the_crawford_tag_names_its_damage_not_the_rule() -> None:
    # Read without the rule (R21) from the double in the would-be Crawford game, the file's
    # real fault, a play that does not use the dice (R4), is what the error names.
    m = Match(3, crawford_rule=False, seed=0)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.resign("single", player=1)  # 2-0
    g.accept()
    g = m.new_game()
    g.roll(1, 3)
    g.play("8/5 6/5")
    g.double()
    g.take()
    g.roll(6, 5)
    g.play("24/13")
    damaged = m.to_mat().replace("24/18 18/13", "24/18 18/11")
    untagged = damaged.replace('; [Crawford "Off"]\n', "")
    assert untagged != damaged
    for text in (damaged, untagged):
        with pytest.raises(InvalidSaveError, match=r"game 2, move 3 .*R4") as caught:
            Match.from_mat(text)
        assert "R21" not in str(caught.value)


def test_a_match_that_reads_either_way_keeps_the_crawford_rule() -> None:
    # The example's game 2 is the Crawford game (R21), played without a double: the file
    # cannot tell whether the rule was played, and the default (the rule) stands.
    read = Match.from_mat(EXAMPLE)
    assert read.crawford_rule and read.games[1].crawford
    # So does a match without the rule whose would-be Crawford game saw no double.
    m = Match(3, crawford_rule=False, seed=0)
    g = m.new_game()
    g.roll(3, 1)
    g.play("8/5 6/5")
    g.resign("gammon", player=1)  # 2-0
    g.accept()
    g = m.new_game()
    g.roll(1, 3)
    g.play("8/5 6/5")
    untagged = m.to_mat().replace('; [Crawford "Off"]\n', "")
    read = Match.from_mat(untagged)
    assert read.crawford_rule and read.games[1].crawford
    assert read.score == m.score


# ------------------------------------------------------------ 4. a missing Wins line


def _without_line(text: str, line: int) -> str:
    lines = text.split("\n")
    del lines[line - 1]
    return "\n".join(lines)


def test_a_missing_wins_line_is_read_from_the_bear_off() -> None:
    # Game 1 ends by root's bear-off (R15, a single with the cube at 2: R16): the file
    # need not say it, in the middle of a file as at its end.
    text = _without_line(EXAMPLE, _line_of(EXAMPLE, "Wins 2 points"))
    assert "Wins 2 points" not in text
    read = Match.from_mat(text)
    assert read == Match.from_mat(EXAMPLE)
    assert read.games[0].result == GameResult(1, "single", 2, "bear-off")


def test_a_missing_wins_line_is_read_from_the_pass() -> None:
    m = _passed_then_played()
    text = re.sub(r"(Drops) +Wins 1 point", r"\1", m.to_mat())
    assert "Wins" not in text
    assert Match.from_mat(text) == m


def test_a_missing_wins_line_after_a_resignation_is_refused_naming_the_lines() -> None:
    m = _resigned_then_played()
    written = m.to_mat()
    text = _without_line(written, _line_of(written, "Wins 1 point"))
    first, second = _line_of(text, "Game 1"), _line_of(text, "Game 2")
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(text)
    assert str(e.value) == (
        f"game 1 has no result, yet game 2 follows (line {second}): the file states none "
        f"for game 1 (line {first}), and it did not end by a bear-off or a pass"
    )


# ------------------------------------------------------------ 5. encodings

ACCENTED = EXAMPLE.replace("gnubg", "Bj\u00f6rn")


def test_a_stray_byte_after_a_byte_order_mark_keeps_the_rest_of_the_file() -> None:
    # UTF-8 with a byte-order mark (eXtreme Gammon) and one byte that is not UTF-8 in a
    # comment: the mark is no character of line 1, and the file is read as Windows-1252.
    raw = b"\xef\xbb\xbf; caf\xe9 \x93night\x94\n" + ACCENTED.encode("cp1252")
    m = Match.from_mat(raw)
    assert m.info.comment == "caf\u00e9 \u201cnight\u201d"
    assert m.info.players == ("Bj\u00f6rn", "root")
    assert m == Match.from_mat(
        ACCENTED.replace("; [EventDate", "; caf\u00e9 \u201cnight\u201d\n; [EventDate")
    )


def test_utf8_stays_utf8_and_a_byte_windows_lacks_is_latin1() -> None:
    assert Match.from_mat(b"\xef\xbb\xbf" + ACCENTED.encode()).info.players[0] == "Bj\u00f6rn"
    # 0x81 is no Windows-1252 character: the file is Latin-1, every byte a character.
    raw = b"; \x81 \xe9\n" + ACCENTED.encode("latin-1")
    m = Match.from_mat(raw)
    assert m.info.comment == "\x81 \u00e9"
    assert m.info.players[0] == "Bj\u00f6rn"


def test_an_sgf_file_decodes_the_same_way() -> None:
    sgf_text = Match.from_mat(ACCENTED).to_sgf()
    raw = b"\xef\xbb\xbf" + sgf_text.replace("\u00f6", "\u201c").encode("cp1252")
    assert Match.from_sgf(raw).info.players[0] == "Bj\u201crn"


# ------------------------------------------------------------ 6. messages


def test_a_score_that_does_not_add_up_cites_its_score_line() -> None:
    text = EXAMPLE.replace("root : 2", "root : 1", 1)
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(text)
    assert str(e.value) == (
        f"game 2 (line {EXAMPLE_GAME_2 + 1}): the score 0-1 does not add up: the games "
        "before it make 0-2"
    )


def test_a_game_after_the_end_of_the_match_is_named_in_match_file_words() -> None:
    game_2 = EXAMPLE[EXAMPLE.index(" Game 2") :]
    extra = game_2.replace(" Game 2", " Game 3").replace("gnubg : 0 ", "gnubg : 0 ", 1)
    extra = extra.replace("root : 2", "root : 3", 1)
    text = EXAMPLE + "\n" + extra
    line = _line_of(text, "Game 3")
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(text)
    message = str(e.value)
    assert message == (
        f"game 3 (line {line}) follows the end of the match: game 2 won it 0-3 in a "
        "3-point match (R20), and a file holds no game after that"
    )
    assert "new_game" not in message


@pytest.mark.parametrize("where", ["between games", "in a game", "before game 1"])
def test_a_comment_line_after_the_header_is_refused_as_such(where: str) -> None:
    if where == "between games":
        text = EXAMPLE.replace("\n Game 2", "\n; a note\n Game 2")
    elif where == "in a game":
        text = EXAMPLE.replace("  2) 51:", "; a note\n  2) 51:", 1)
    else:
        text = EXAMPLE.replace("\n Game 1", "\n; a note\n Game 1")
    line = _line_of(text, "; a note")
    with pytest.raises(InvalidSaveError) as e:
        Match.from_mat(text)
    assert str(e.value) == (
        f"line {line}: a comment line can only stand in the header, before the 'N point match' line"
    )


def test_a_wins_line_of_one_point_is_said_in_the_singular() -> None:
    # Game 1 ends by root's bear-off, a single on the cube at 2 (R15, R16): 2 points.
    text = EXAMPLE.replace("Wins 2 points", "Wins 1 point", 1)
    with pytest.raises(InvalidSaveError, match=r"the file says 1 point; a single by bear-off"):
        Match.from_mat(text)
