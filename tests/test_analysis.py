"""Match analysis (``bgfast.analyse``): every play and cube decision rated at 0 ply, as
GNU Backgammon's ``analyse match`` rates them.

The pipeline is checked against slower, independent computations: the batched cube model
(``bgfast.cubeful.cube_values``) against ``bgfast.cubeful.decide`` row by row on random
chances and stakes; the quick replay (``bgfast._moments``) against the referee's; a play's loss and
a roll's luck against the net and ``bgfast.cubeful.decide`` candidate by candidate; the
summaries against the decisions they add up. ``tests/test_analysis_gnubg.py`` compares
with GNU Backgammon's own analysis.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bgfast
from bgfast import Game, Match, Net, Position, analyse, cubeful, replay
from bgfast._moments import Moment, moments
from bgfast.analysis import luck_rating, mark_of, rating

DATA = Path(__file__).parent / "data"
EXAMPLE = (DATA / "formats" / "example_3pt.mat").read_text(encoding="utf-8")
SEVEN = (DATA / "matches" / "noisy_7pt_seed1.mat").read_text(encoding="utf-8")
MONEY = (DATA / "matches" / "money_jacoby_beavers_seed5.mat").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def seven() -> tuple[Match, bgfast.Analysis]:
    m = Match.from_mat(SEVEN)
    return m, analyse(m, threads=1)


# ---------------------------------------------------------------------------- the cube model


def _stakes(draw: st.DrawFn) -> cubeful.Stakes:
    if draw(st.booleans()):
        owner = draw(st.sampled_from(["centred", "mover", "opponent"]))
        value = draw(st.sampled_from([1, 2, 4, 8, 16, 32768]))
        return cubeful.Stakes.check(
            cube=(value, owner),
            jacoby=draw(st.booleans()),
            beavers=draw(st.booleans()),
            max_cube=_limit(draw, value),
            backgammon_counts_double=draw(st.booleans()),
        )
    length = draw(st.integers(1, 15))
    score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
    one_away = [length - s == 1 for s in score].count(True)
    crawford_rule = draw(st.booleans())
    crawford = crawford_rule and one_away == 1 and draw(st.booleans())
    owner = "centred" if crawford else draw(st.sampled_from(["centred", "mover", "opponent"]))
    value = 1 if owner == "centred" else draw(st.sampled_from([2, 4, 8, 16]))
    return cubeful.Stakes.check(
        cube=(value, owner),
        match_length=length,
        score=score,
        crawford=crawford,
        crawford_rule=crawford_rule,
        max_cube=_limit(draw, value),
        backgammon_counts_double=draw(st.booleans()),
    )


def _limit(draw: st.DrawFn, value: int) -> int | None:
    """A game's cube limit for a cube of ``value``: none, the value itself (a dead cube),
    or one or two doubles above it."""
    return draw(st.sampled_from([None, value, min(2 * value, 32768), min(4 * value, 32768)]))


@st.composite
def _cases(draw: st.DrawFn) -> tuple[cubeful.Stakes, float, np.ndarray]:
    stakes = _stakes(draw)
    life = draw(st.sampled_from([0.0, 0.3, 0.68, 1.0]))
    rows = []
    for _ in range(draw(st.integers(1, 12))):
        win = draw(st.floats(0.0, 1.0))
        wg = win * draw(st.floats(0.0, 1.0))
        lg = (1.0 - win) * draw(st.floats(0.0, 1.0))
        rows.append([win, wg, wg * draw(st.floats(0.0, 1.0)), lg, lg * draw(st.floats(0.0, 1.0))])
    rows += [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 1, 1]]
    # The native model reads float32 chances: compare on the same numbers.
    return stakes, life, np.array(rows, dtype=np.float32).astype(np.float64)


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_the_batched_cube_model_is_bgfast_cubefuls(
    case: tuple[cubeful.Stakes, float, np.ndarray],
) -> None:
    stakes, life, p = case
    values = cubeful.cube_values(p, stakes, life)
    assert values.shape == (len(p), 4) and values.dtype == np.float64
    for k, row in enumerate(p):
        decision = cubeful.decide_for(row, stakes, life)
        assert tuple(values[k, :3]) == (
            decision.no_double,
            decision.double_take,
            decision.double_pass,
        )
        # The value after the best cube action: the native model's own rule of who may
        # double against bgfast.cubeful's (why_no_double).
        assert values[k, 3] == decision.value


# ---------------------------------------------------------------------------- the quick replay


def _same_walks(game: Game) -> None:
    fast = moments(game)
    slow = list(replay.walk(game))
    assert len(fast) == len(slow)
    for f, s in zip(fast, slow):
        assert type(f.event) is type(s.event)
        assert f.after.phase == s.after.phase and f.after.position == s.after.position
        if isinstance(f.after, Moment) and f.after.phase not in ("over", "resign"):
            assert f.after.state() == s.after
        assert (f.move is None) == (s.move is None) and (f.move is None or f.move == s.move)


@pytest.mark.parametrize("text", [EXAMPLE, SEVEN, MONEY])
def test_the_quick_replay_is_the_referees(text: str) -> None:
    for game in Match.from_mat(text).games:
        _same_walks(game)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_the_quick_replay_follows_any_game(seed: int, table: bool) -> None:
    """Random games with every kind of event: cube offers answered every way (money rules
    with beavers and raccoons, automatic doubles), resignations accepted and rejected, in
    table mode illegal plays called back (R31)."""
    rng = np.random.default_rng(seed)
    rules = bgfast.Rules(beavers=True, raccoons=True, auto_doubles=1, jacoby=bool(seed % 2))
    game = Game(rules=rules, table=table, seed=seed % 1000)
    for _ in range(300):
        if game.is_over:
            break
        phase = game.phase
        r = rng.random()
        if phase in ("opening", "roll"):
            if phase == "roll" and game.may_double() and r < 0.1:
                game.double()
            elif phase == "roll" and r < 0.13:
                game.resign("single")
            else:
                game.roll()
        elif phase == "doubled":
            kind = game.offer_kind
            options = [game.take, game.drop]
            if kind == "double":
                options.append(game.beaver)
            elif kind == "beaver":
                options.append(game.raccoon)
            options[int(rng.integers(len(options)))]()
        elif phase == "resign":
            (game.accept if r < 0.5 else game.reject)()
        elif phase == "move":
            moves = game.legal_moves()
            if table and r < 0.1 and not moves[0].is_pass:
                try:
                    game.play(str(moves[0]).split(" ")[0])  # one die left unplayed: illegal
                except bgfast.BgfastError:
                    game.play(moves[0])
                else:
                    if game.last_move_illegal and not game.is_over:
                        game.call()
                        game.play(moves[int(rng.integers(len(moves)))])
            else:
                game.play(moves[int(rng.integers(len(moves)))])
    _same_walks(game)


# ---------------------------------------------------------------------------- the numbers


def _opponent_value(result: Position, stakes: cubeful.Stakes, net: Net) -> float:
    """A result's value to the player who moved, the slow way: the opponent's decision by
    bgfast.cubeful on the net's chances, turned round."""
    owner = {"centred": "centred", "mover": "opponent", "opponent": "mover"}[stakes.cube_owner]
    if stakes.is_match:
        theirs = cubeful.Stakes.check(
            cube=(stakes.cube_value, owner),
            match_length=stakes.match_length,
            score=(stakes.score[1], stakes.score[0]),
            crawford=stakes.crawford,
        )
    else:
        theirs = cubeful.Stakes.check(
            cube=(stakes.cube_value, owner), jacoby=stakes.jacoby, beavers=stakes.beavers
        )
    d = cubeful.decide_for(net.evaluate(result), theirs, cubeful.DEFAULT_CUBE_LIFE)
    return 1.0 - d.value if stakes.is_match else -d.value


def _stakes_of(d: bgfast.Decision) -> cubeful.Stakes:
    state = d.state
    cube = state.cube
    owner = "centred" if cube.owner is None else ("mover" if cube.owner == d.player else "opponent")
    if state.match_length:
        return cubeful.Stakes.check(
            cube=(cube.value, owner),
            match_length=state.match_length,
            score=(state.score[d.player], state.score[1 - d.player]),
            crawford=state.crawford,
        )
    return cubeful.Stakes.check(
        cube=(cube.value, owner), jacoby=state.rules.jacoby, beavers=state.rules.beavers
    )


@pytest.mark.parametrize("text", [SEVEN, MONEY])
def test_a_plays_loss_is_the_nets_candidate_by_candidate(text: str) -> None:
    net = Net.wildbg()
    a = analyse(Match.from_mat(text), net, threads=1)
    plays = [d for d in a.decisions if d.kind == "move" and d.counted][::9]
    assert len(plays) > 5
    for d in plays:
        stakes = _stakes_of(d)
        position, dice = d.state.position, d.dice
        assert dice is not None and d.state.dice == dice
        values = {str(m): _opponent_value(m.result, stakes, net) for m in position.moves(dice)}
        scale = stakes.emg_scale() if stakes.is_match else 1.0
        best = max(values, key=values.__getitem__)
        assert d.loss == pytest.approx((values[best] - values[d.played]) * scale, abs=1e-5)
        assert values[d.best] == pytest.approx(values[best], abs=1e-9)
        if stakes.is_match:
            assert d.loss_mwc == pytest.approx(values[best] - values[d.played], abs=1e-6)


def test_a_rolls_luck_is_its_value_less_the_average_rolls(
    seven: tuple[Match, bgfast.Analysis],
) -> None:
    _, a = seven
    net = Net.wildbg()
    moves = {(d.game, d.move, d.player): d for d in a.decisions if d.kind == "move"}
    checked = 0
    for r in a.rolls[5::40]:
        d = moves[(r.game, r.move, r.player)]
        if d.state.phase != "move" or r.move == 1:
            continue
        stakes = _stakes_of(d)
        scale = stakes.emg_scale() if stakes.is_match else 1.0
        values = []
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                best = max(
                    _opponent_value(mv.result, stakes, net) for mv in d.state.position.moves(d1, d2)
                )
                values.append(((d1, d2), best))
        mean = sum(v for _, v in values) / 36
        rolled = dict(values)[r.dice]
        assert r.luck == pytest.approx((rolled - mean) * scale, abs=1e-5)
        checked += 1
    assert checked >= 3


def test_the_summaries_add_up_the_decisions(seven: tuple[Match, bgfast.Analysis]) -> None:
    m, a = seven
    for p in a.players:
        mine = [d for d in a.decisions if d.player == p.player]
        plays = [d for d in mine if d.kind == "move"]
        cubes = [d for d in mine if d.kind != "move"]
        assert p.moves == len(plays) == len([r for r in a.rolls if r.player == p.player])
        assert p.unforced_moves == sum(d.counted for d in plays)
        assert p.chequer_error == pytest.approx(sum(d.loss for d in plays if d.counted))
        assert p.cube_decisions == len(cubes)
        assert p.close_cube_decisions == sum(d.counted for d in cubes)
        assert p.cube_error == pytest.approx(sum(d.loss for d in cubes))
        assert p.error_rate == pytest.approx(1000 * p.error / p.unforced_decisions)
        assert p.luck == pytest.approx(sum(r.luck for r in a.rolls if r.player == p.player))
        for mark in ("doubtful", "bad", "very bad"):
            assert p.chequer_marks[mark] == sum(d.mark == mark for d in plays)
        assert p.rating == rating(p.error_rate)
    for d in a.decisions:
        assert d.loss >= 0.0 and d.mark == mark_of(d.loss)
        assert d.loss_mwc is not None and d.loss_mwc >= 0.0
        if d.played == d.best or (d.kind == "move" and not d.counted):
            assert d.loss == pytest.approx(0.0, abs=1e-12)
    # The decisions follow the match, game by game, move by move.
    order = [(d.game, d.move) for d in a.decisions]
    assert order == sorted(order)
    assert {d.game for d in a.decisions} == set(range(1, len(m.games) + 1))


def test_the_records_read_as_gnubgs(seven: tuple[Match, bgfast.Analysis]) -> None:
    _, a = seven
    first = next(d for d in a.decisions if d.kind == "move")
    assert (first.game, first.move) == (1, 1)
    assert first.position == first.state.position.id + ":" + bgfast.codec.match_id_of(first.state)
    cube = next(d for d in a.decisions if d.kind == "take")
    assert cube.played in ("take", "pass", "beaver") and cube.dice is None
    data = json.loads(a.to_json())
    assert data["players"][0]["error_rate"] == pytest.approx(a.players[0].error_rate)
    assert len(data["decisions"]) == len(a.decisions)
    assert "Error rate mEMG (MWC)" in a.summary()
    assert a.worst(3) == sorted(a.decisions, key=lambda d: -d.loss)[:3]


def test_threads_change_nothing(seven: tuple[Match, bgfast.Analysis]) -> None:
    m, a = seven
    assert analyse(m, threads=2).to_dict() == a.to_dict()


@pytest.mark.parametrize("text", [SEVEN, MONEY])
def test_the_luck_net_measures_luck_and_the_net_rates_decisions(text: str) -> None:
    """A strong net rates the decisions and a fast one measures the luck: each part is what
    that net alone gives (the plays made are scored apart from the 21 rolls' plays)."""
    m = Match.from_mat(text)
    large, small = Net.wildbg_large(), Net.wildbg()
    mixed = analyse(m, large, threads=1)  # the luck net defaults to wildbg's small one
    assert (mixed.net, mixed.luck_net) == ("wildbg-large", "wildbg")
    judged = analyse(m, large, threads=1, luck_net=large)
    lucky = analyse(m, small, threads=1)
    assert [r.luck for r in mixed.rolls] == [r.luck for r in lucky.rolls]
    assert len(mixed.decisions) == len(judged.decisions)
    for d, e in zip(mixed.decisions, judged.decisions):
        assert (d.played, d.best, d.counted) == (e.played, e.best, e.counted)
        assert d.loss == pytest.approx(e.loss, abs=1e-5)
    assert [r.luck for r in judged.rolls] != [r.luck for r in lucky.rolls]
    with pytest.raises(TypeError, match="luck_net must be a bgfast Net"):
        analyse(m, luck_net="wildbg")  # type: ignore[arg-type]


def _no_crawford_match() -> Match:
    """A 5-point match without the Crawford rule at 3-2 (2-away against 3-away), its fourth
    game played by the net until player 0 doubles; player 1 takes, then resigns."""
    net = Net.wildbg()

    def advance(g: Game) -> None:
        if g.state.phase != "move":
            g.roll()
        if g.state.phase == "move":
            assert g.state.dice is not None
            g.play(net.best_move(g.state.position, g.state.dice))

    m = Match(5, crawford_rule=False, seed=8)
    for loser, kind in ((1, "gammon"), (0, "gammon"), (1, "single")):
        g = m.new_game()
        while g.state.turn != loser or g.state.phase != "roll":
            advance(g)
        g.resign(kind)
        g.accept()
    g = m.new_game()
    for _ in range(9):
        advance(g)
    g.double()
    g.take()
    advance(g)
    g.resign("single")
    g.accept()
    assert m.score == (5, 2)
    return m


def test_a_match_without_the_crawford_rule_is_rated_without_it() -> None:
    # From 2-away against 3-away, winning a point leads to a 1-away score that a match
    # without the Crawford rule plays as post-Crawford (the trailer doubles at once).
    net = Net.wildbg()
    a = analyse(_no_crawford_match(), net, threads=1)
    doubles = [d for d in a.decisions if d.kind == "double" and d.game == 4]
    assert [d.played for d in doubles].count("double") == 1
    differ = 0
    for d in doubles:
        state = d.state
        p = net.evaluate(state.position)
        score = (state.score[d.player], state.score[1 - d.player])
        loss = {}
        for rule in (False, True):
            c = cubeful.decide(p, match_length=5, score=score, crawford_rule=rule)
            value = c.no_double if d.played == "no double" else min(c.double_take, c.double_pass)
            loss[rule] = max(0.0, c.value - value)
        assert d.loss_mwc == pytest.approx(loss[False], abs=1e-5)
        differ += abs(loss[False] - loss[True]) > 1e-3
    assert differ >= 1


def test_a_money_session_and_a_single_game() -> None:
    m = Match.from_mat(MONEY)
    a = analyse(m, threads=1)
    assert a.length == 0 and a.met is None
    assert all(d.loss_mwc is None for d in a.decisions)
    assert any(d.played == "beaver" for d in a.decisions)
    one = analyse(m.games[0], threads=1)
    assert [d.to_dict() for d in one.decisions] == [d.to_dict() for d in a.decisions if d.game == 1]
    with pytest.raises(TypeError):
        analyse("a match")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        analyse(m, net="wildbg")  # type: ignore[arg-type]
    with pytest.raises(bgfast.BgfastError):
        analyse(m, threads=0)


def test_progress_is_reported_by_game() -> None:
    m = Match.from_mat(EXAMPLE)
    seen: list[tuple[int, int]] = []
    analyse(m, threads=1, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]


def test_ratings_are_gnubgs() -> None:
    # analysis.c: arThrsRating (per decision: 0.002, 0.005, 0.008, 0.012, 0.018, 0.026, 0.035)
    assert [rating(r) for r in (1.9, 2.0, 4.9, 7.9, 11.9, 17.9, 25.9, 34.9, 35.0)] == [
        "Supernatural", "World class", "World class", "Expert", "Advanced", "Intermediate",
        "Casual player", "Beginner", "Awful!",
    ]  # fmt: skip
    # gnubg.c: arSkillLevel (0.04, 0.08, 0.16); a loss past a level earns its mark.
    assert [mark_of(x) for x in (0.04, 0.041, 0.08, 0.081, 0.16, 0.161)] == [
        None, "doubtful", "doubtful", "bad", "bad", "very bad",
    ]  # fmt: skip
    # getLuckRating: the per-roll luck marks (0.3, 0.6) over ten rolls.
    assert [luck_rating(x) for x in (-61, -31, 0, 31, 61)] == [
        "Go to bed", "Bad dice, man!", "None", "Good dice, man!", "Go to Las Vegas",
    ]  # fmt: skip


# ---------------------------------------------------------------------------- Net.score_rolls


def test_score_rolls_is_evaluate_of_all_rolls() -> None:
    """The native entry point the analysis scores plays with: the numbers of
    ``evaluate(batch.all_rolls(...))``, found from each roll's origin, on contact, race and
    bar positions, on any thread count."""
    ids = (DATA / "wildbg_contact.csv").read_text().split()[1:400:40]
    ids += (DATA / "wildbg_race.csv").read_text().split()[1:400:40]
    positions = bgfast.batch.from_ids([*ids, Position().id, "4PPgASDgc/ABMA"])
    net = Net.wildbg()
    offsets, results, _ = bgfast.batch.all_rolls(positions, threads=1)
    expected = net.evaluate(results, threads=1)
    got_offsets, got = net.score_rolls(positions, threads=1)
    assert np.array_equal(got_offsets, offsets) and got.dtype == np.float32
    assert np.abs(got - expected).max() < 2e-6
    again_offsets, again = net.score_rolls(positions, threads=2)
    assert np.array_equal(again_offsets, offsets) and np.array_equal(again, got)
    empty_offsets, empty = net.score_rolls(np.zeros((0, 2, 25), dtype=np.uint8))
    assert empty_offsets.tolist() == [0] and empty.shape == (0, 5)


def test_score_rolls_refuses_what_evaluate_refuses() -> None:
    net = Net.wildbg()
    bad = bgfast.batch.from_ids(["4HPwATDgc/ABMA", "4HPwATDgc/ABMA"])
    bad[1, 0, 5] = 20  # 30 checkers
    with pytest.raises(bgfast.InvalidPositionError, match="1"):
        net.score_rolls(bad)
    over = np.zeros((1, 2, 25), dtype=np.uint8)
    over[0, 1, 0] = 15  # the side to move has borne off all 15: the game is over (R15)
    with pytest.raises(bgfast.GameOverError):
        net.score_rolls(over)
    with pytest.raises(bgfast.BgfastError):
        net.score_rolls(bad[:1], threads=0)
