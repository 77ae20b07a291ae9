"""bgfast.Match: R20 (match to N points), R21 (Crawford and post-Crawford), Holland rule,
persistence, and a replay of a real 3-point match that GNU Backgammon wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bgfast import met
from bgfast.errors_game import GameStateError, InvalidSaveError, MatchOptionError
from bgfast.game import Game
from bgfast.match import Match
from bgfast.persist import checksum
from bgfast.scoring import Rules

MAT = Path(__file__).parent / "data" / "formats" / "example_3pt.mat"


def finish_by_drop(game: Game, winner: int) -> None:
    """End ``game`` quickly: the loser resigns a single game (``winner`` scores the cube)."""
    while game.phase == "opening":
        game.roll()
    game.resign("single", player=1 - winner)
    game.accept()


def test_r20_match_to_n_points_and_winner() -> None:
    match = Match(3, seed=1)
    assert (match.score, match.winner, match.game) == ((0, 0), None, None)
    finish_by_drop(match.new_game(), 0)
    assert match.score == (1, 0) and match.away(0) == 2
    with pytest.raises(MatchOptionError, match="R20"):
        Match(-1)
    assert Match(0).is_money  # length 0: a session of money games (match files hold them)
    finish_by_drop(match.new_game(), 0)
    assert match.score == (2, 0)
    assert match.crawford
    finish_by_drop(match.new_game(), 0)
    assert (match.score, match.winner, match.is_over) == ((3, 0), 0, True)
    with pytest.raises(GameStateError, match="R20"):
        match.new_game()


def test_r20_a_game_may_pass_n() -> None:
    match = Match(3, seed=1)
    game = match.new_game()
    while game.phase == "opening":
        game.roll()
    turn = game.turn
    assert turn is not None
    game.resign("backgammon", player=1 - turn)
    game.accept()
    assert match.score[turn] == 3 and match.winner == turn


def test_new_game_needs_the_current_one_over() -> None:
    match = Match(5, seed=1)
    match.new_game()
    with pytest.raises(GameStateError, match="not over"):
        match.new_game()


def test_r21_crawford_game_has_no_cube_then_post_crawford() -> None:
    match = Match(5, seed=2)
    finish_by_drop(match.new_game(), 1)
    finish_by_drop(match.new_game(), 1)
    finish_by_drop(match.new_game(), 1)
    assert match.score == (0, 3) and not match.crawford
    finish_by_drop(match.new_game(), 1)  # player 1 reaches 4 = N-1
    assert match.crawford and not match.post_crawford
    game = match.new_game()
    assert game.crawford and not game.cube.enabled and match.crawford
    while game.phase == "opening":
        game.roll()
    game.play(game.legal_moves()[0])
    assert not game.may_double()
    with pytest.raises(GameStateError, match="R21"):
        game.double()
    game.resign("single")
    game.accept()
    if match.winner is None:  # player 0 won the Crawford game: post-Crawford
        assert match.post_crawford and not match.crawford
        game = match.new_game()
        assert not game.crawford and game.post_crawford and game.cube.enabled


def test_r21_only_one_crawford_game() -> None:
    match = Match(5, seed=3)
    for winner in (0, 0, 0, 0):  # 4-0: player 0 at N-1
        finish_by_drop(match.new_game(), winner)
    assert match.crawford
    crawford_game = match.new_game()
    finish_by_drop(crawford_game, 1)  # 4-1
    for winner in (1, 1):  # 4-3: no second Crawford game
        assert not match.crawford and match.post_crawford
        finish_by_drop(match.new_game(), winner)
    assert match.score == (4, 3)
    assert not match.crawford and match.post_crawford
    assert sum(g.crawford for g in match.games) == 1


def test_holland_rule_in_post_crawford_games() -> None:
    match = Match(3, holland=True, seed=4)
    finish_by_drop(match.new_game(), 0)
    finish_by_drop(match.new_game(), 0)  # 2-0: Crawford
    finish_by_drop(match.new_game(), 1)  # 2-1: post-Crawford from now
    game = match.new_game()
    assert game.post_crawford and game.holland
    while game.phase == "opening":
        game.roll()
    rolls = 0
    while rolls < 4:
        if game.phase == "roll":
            if game.turn == 1:  # the trailer
                assert game.may_double() == (min(game.state.turns_played) >= 2)
            game.roll()
        else:
            game.play(game.legal_moves()[0])
            rolls += 1
    if game.phase == "roll" and game.turn == 1:
        assert game.may_double()


def test_money_options_refused_in_a_match() -> None:
    with pytest.raises(MatchOptionError, match="R23"):
        Match(7, rules=Rules(jacoby=True))
    with pytest.raises(MatchOptionError, match="R22"):
        Match(7, rules=Rules(auto_doubles=1))
    game = Match(7, seed=1).new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    with pytest.raises(MatchOptionError):
        game.beaver()


def test_match_json_round_trip_and_tampering() -> None:
    match = Match(5, seed=5)
    finish_by_drop(match.new_game(), 0)
    game = match.new_game()
    game.roll()
    text = match.to_json()
    again = Match.from_json(text)
    assert again == match and again.to_json() == text
    assert again.score == (1, 0)
    # a game's result edited, checksum recomputed: the replay catches it
    data = json.loads(text)
    data.pop("checksum")
    data["score"] = [2, 0]
    data["checksum"] = checksum(data)
    with pytest.raises(InvalidSaveError):
        Match.from_json(json.dumps(data))
    # the same score as JSON of another type (true == 1 in Python, not in the file)
    data = json.loads(text)
    data.pop("checksum")
    data["score"] = [True, 0]
    data["checksum"] = checksum(data)
    with pytest.raises(InvalidSaveError, match="score"):
        Match.from_json(json.dumps(data))
    # a game moved out of order (its setup no longer matches the score)
    data = json.loads(text)
    data.pop("checksum")
    data["games"] = data["games"][::-1]
    data["checksum"] = checksum(data)
    with pytest.raises(InvalidSaveError):
        Match.from_json(json.dumps(data))


def test_match_save_and_load(tmp_path: Path) -> None:
    match = Match(3, seed=6)
    finish_by_drop(match.new_game(), 1)
    match.save(tmp_path / "m.json")
    assert Match.load(tmp_path / "m.json") == match


def test_match_equity_uses_the_met() -> None:
    met = pytest.importorskip("bgfast.met")
    match = Match(5, seed=7)
    assert match.equity(0) == pytest.approx(0.5)
    finish_by_drop(match.new_game(), 0)
    assert match.equity(0) == pytest.approx(met.equity(4, 5))
    assert match.equity(0) + match.equity(1) == pytest.approx(1.0)
    for winner in (0, 0, 0):  # 4-0: the Crawford game comes next
        finish_by_drop(match.new_game(), winner)
    assert match.crawford and match.equity(1) == pytest.approx(met.equity(5, 1))
    finish_by_drop(match.new_game(), 1)  # 4-1: post-Crawford (R21)
    assert match.post_crawford
    assert match.equity(1) == pytest.approx(met.equity(4, 1, post_crawford=True))
    assert match.equity(1) != pytest.approx(met.equity(4, 1))


def test_match_equity_when_over() -> None:
    match = Match(1, seed=8)
    finish_by_drop(match.new_game(), 1)
    assert (match.equity(1), match.equity(0)) == (1.0, 0.0)


# ------------------------------------------------------------------ a real match file


def _replay_mat(path: Path) -> Match:
    lines = path.read_text(encoding="utf-8").splitlines()
    length = int(next(line for line in lines if "point match" in line).split()[0])
    match = Match(length, seed=0, table=False)
    game: Game | None = None
    for line in lines:
        if line.strip().startswith("Game "):
            game = match.new_game()
            continue
        if game is None:
            continue
        cells: list[tuple[int, str]] = []
        if re.match(r"^\s*\d+\)", line):
            cells = [(0, line[5:33].strip()), (1, line[33:].strip())]
        elif "Wins" in line:
            cells = [(0 if len(line) - len(line.lstrip()) < 30 else 1, line.strip())]
        for player, cell in cells:
            if not cell:
                continue
            roll = re.match(r"^(\d)(\d):\s*(.*)$", cell)
            if roll:
                d1, d2, moves = int(roll[1]), int(roll[2]), roll[3]
                if game.phase == "opening":
                    hi, lo = max(d1, d2), min(d1, d2)
                    game.roll((hi, lo) if player == 0 else (lo, hi))
                else:
                    assert game.turn == player, line
                    game.roll((d1, d2))
                if moves:
                    game.play(moves)  # match-file notation: 25 = bar, 0 = off
                else:
                    assert game.phase != "move", f"{line}: a legal play was skipped"
            elif cell.startswith("Doubles"):
                assert game.turn == player
                game.double()
                assert game.offered_cube == int(cell.split("=>")[1])
            elif cell == "Takes":
                game.take()
            elif cell == "Drops":
                game.drop()
            elif cell.startswith("Wins"):
                points = int(cell.split()[1])
                if game.result is None:  # the .mat shows a resignation only as its result
                    kind = ("single", "gammon", "backgammon")[points // game.cube.value - 1]
                    game.resign(kind, player=1 - player)  # type: ignore[arg-type]
                    game.accept()
                assert game.result is not None, line
                assert (game.result.winner, game.result.points) == (player, points)
            else:
                raise AssertionError(f"unknown .mat cell {cell!r}")
    return match


def test_replay_gnubg_3_point_match() -> None:
    """example_3pt.mat (written by GNU Backgammon): every roll, move and cube action is
    replayed through the API; the second game is the Crawford game (R21) and player 1
    ("root") wins the match 3-0 (R20)."""
    match = _replay_mat(MAT)
    games = match.games
    assert len(games) == 2
    assert [g.crawford for g in games] == [False, True]
    assert [(g.result.winner, g.result.points) for g in games if g.result] == [(1, 2), (1, 1)]
    assert [g.result.reason for g in games if g.result] == ["bear-off", "resign"]
    assert (match.score, match.winner) == ((0, 3), 1)
    assert Match.from_json(match.to_json()) == match


# ------------------------------------------------------------------ the scripted tour


def test_tour_five_point_match_through_crawford() -> None:
    """A 5-point match played by the API to the end, through the Crawford game: player 0
    always doubles when allowed, player 1 takes until the cube reaches 4, then passes."""
    match = Match(5, seed=2026)
    seen_crawford = seen_post = False
    while not match.is_over:
        game = match.new_game()
        seen_crawford |= game.crawford
        seen_post |= game.post_crawford
        while not game.is_over:
            if game.phase == "opening":
                game.roll()
            elif game.phase == "roll":
                if game.turn == 0 and game.may_double():
                    game.double()
                else:
                    game.roll()
            elif game.phase == "doubled":
                if game.offered_cube is not None and game.offered_cube <= 4:
                    game.take()
                else:
                    game.drop()
            else:
                game.play(game.legal_moves()[-1])
        if game.crawford:
            assert game.cube.value == 1
    assert match.winner is not None and match.score[match.winner] >= 5
    assert seen_crawford
    assert match.games[-1].result is not None
    assert Match.from_json(match.to_json()) == match
    # scores only grow, game by game
    running = [0, 0]
    for g in match.games:
        assert g.score == tuple(running)
        assert g.result is not None
        running[g.result.winner] += g.result.points
    del seen_post


def test_r21_without_the_crawford_rule_the_match_and_its_game_agree_on_post_crawford() -> None:
    # Every game at a 1-away score is played as a post-Crawford one: the match said it
    # was not, and valued the score from the Crawford game's entry of the table.
    m = Match(5, crawford_rule=False, seed=1)
    g = m.new_game()
    g.roll(3, 1)
    g.resign("backgammon", 1)
    g.accept()  # 3-0
    g = m.new_game()
    g.roll(3, 1)
    g.resign("single", 1)
    g.accept()  # 4-0: no Crawford game follows
    g = m.new_game()
    assert (m.crawford, m.post_crawford) == (False, True) == (g.crawford, g.post_crawford)
    assert m.equity(0) == pytest.approx(met.equity(1, 5, post_crawford=True))
    assert m.equity(0) != pytest.approx(met.equity(1, 5))
