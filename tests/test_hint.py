"""``bgfast.hint``: the plays of a roll ranked at the stakes.

Each play's value is checked against the native cube model (``cubeful.decide_for``, the
engine's ``cube.rs``, row by row), asked as the opponent on roll after the play; at double
match point only the wins count; a game state gives its dice and stakes; bad input is
refused by name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import Net, Position, codec, cubeful, hint
from bgfast.errors import BgfastError, InvalidDiceError, MatchOptionError

CONTACT = (Path(__file__).parent / "data" / "wildbg_contact.csv").read_text().split()[:12]
ROLLS = [(3, 1), (6, 6), (5, 2), (4, 3)]
STAKES = [
    cubeful.Stakes.check(),
    cubeful.Stakes.check(cube=(2, "mover")),
    cubeful.Stakes.check(cube=(4, "opponent"), jacoby=True, beavers=True),
    cubeful.Stakes.check(match_length=7, score=(3, 4)),
    cubeful.Stakes.check(match_length=7, score=(2, 4), cube=(2, "opponent")),
    cubeful.Stakes.check(match_length=5, score=(4, 2)),  # the Crawford game
    cubeful.Stakes.check(match_length=5, score=(1, 4), crawford=False),  # post-Crawford
    cubeful.Stakes.check(match_length=9, score=(0, 0), cube=(2, "mover")),
]
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:{}:{}:0:{}:10"


@pytest.fixture(scope="module")
def net() -> Net:
    return Net.wildbg()


def _native_value(p: np.ndarray, stakes: cubeful.Stakes) -> float:
    """The mover's value of a result with chances ``p``: the opponent's, on roll, after its
    best cube action by the native model, turned round."""
    theirs = [1.0 - float(p[0]), float(p[3]), float(p[4]), float(p[1]), float(p[2])]
    value = cubeful.decide_for(theirs, stakes.for_opponent(), cubeful.DEFAULT_CUBE_LIFE).value
    return 1.0 - value if stakes.is_match else -value


def _same(a: list[bgfast.RankedPlay], b: list[bgfast.RankedPlay]) -> bool:
    """Whether two rankings are the same plays with the same numbers."""
    key = [(h.move, h.probabilities.tolist(), h.equity, h.cubeful_equity, h.mwc) for h in a]
    return key == [(h.move, h.probabilities.tolist(), h.equity, h.cubeful_equity, h.mwc) for h in b]


@pytest.mark.parametrize("stakes", STAKES, ids=lambda s: s.words())
def test_each_play_is_valued_as_the_native_cube_model_values_it(
    net: Net, stakes: cubeful.Stakes
) -> None:
    for pid in CONTACT:
        position = Position.from_id(pid)
        for dice in ROLLS:
            ranked = hint(net, position, dice, stakes=stakes)
            by_net = net.rank(position, dice)
            assert sorted(str(h.move) for h in ranked) == sorted(str(m) for m, _, _ in by_net)
            values = []
            for h in ranked:
                value = _native_value(h.probabilities, stakes)
                values.append(value)
                if stakes.is_match:
                    assert h.mwc == pytest.approx(value, abs=1e-6)
                    assert h.cubeful_equity == pytest.approx(stakes.emg(value), abs=1e-5)
                else:
                    assert h.mwc is None
                    assert h.cubeful_equity == pytest.approx(value, abs=1e-5)
            # Best first; equal values in the net's cubeless order.
            assert all(a >= b - 1e-6 for a, b in zip(values, values[1:]))
            order = [str(m) for m, _, _ in by_net]
            for a, b in zip(ranked, ranked[1:]):
                if a.cubeful_equity == b.cubeful_equity:
                    assert order.index(str(a.move)) < order.index(str(b.move))
            for h in ranked:  # the net's own numbers, untouched
                found = next(e for m, p, e in by_net if m == h.move)
                assert h.equity == pytest.approx(float(found), abs=1e-7)


def test_at_double_match_point_only_the_wins_count(net: Net) -> None:
    dmp = cubeful.Stakes.check(match_length=7, score=(6, 6))
    for pid in CONTACT:
        ranked = hint(net, Position.from_id(pid), (6, 4), stakes=dmp)
        wins = [float(h.probabilities[0]) for h in ranked]
        assert all(a >= b - 1e-6 for a, b in zip(wins, wins[1:]))
        for h, win in zip(ranked, wins):
            assert h.mwc == pytest.approx(win, abs=1e-6)
            assert h.cubeful_equity == pytest.approx(2 * win - 1, abs=1e-5)


def test_the_score_can_change_the_best_play(net: Net) -> None:
    """Somewhere among these positions, the best play for money is not the best at double
    match point, where gammons count for nothing."""
    dmp = cubeful.Stakes.check(match_length=7, score=(6, 6))
    changed = 0
    for pid in CONTACT:
        for dice in ROLLS:
            position = Position.from_id(pid)
            money = hint(net, position, dice)[0].move
            changed += money != hint(net, position, dice, stakes=dmp)[0].move
    assert changed > 0


def test_a_state_gives_its_dice_and_its_stakes(net: Net) -> None:
    state = codec.state_from_id(START_XGID.format(3, 4, 7))
    assert state is not None and state.phase == "move"
    stakes = cubeful.Stakes.of_state(state)
    assert stakes.score == (3, 4) and stakes.match_length == 7
    assert _same(hint(net, state), hint(net, state.position, (3, 1), stakes=stakes))
    assert _same(hint(net, state, (3, 1)), hint(net, state))
    assert _same(hint(net, state, (1, 3)), hint(net, state))  # the same roll
    # Other dice contradict the roll the game has: refused, as every entry point refuses
    # them; another roll of the same board is ranked from its position at its stakes.
    with pytest.raises(InvalidDiceError, match="has rolled 3-1, not 6-6"):
        hint(net, state, (6, 6))
    # A position alone is played for money with the cube centred at 1.
    assert cubeful.Stakes.of(state.position) == cubeful.Stakes.check()
    assert cubeful.Stakes.of(state) == stakes
    money = hint(net, state.position, (3, 1))
    assert _same(money, hint(net, state.position, (3, 1), stakes=cubeful.Stakes.check()))
    assert str(money[0].move) == "8/5 6/5"


def test_a_forced_play_and_a_pass_are_the_one_play(net: Net) -> None:
    # The side to move on the bar against a closed board: no play with any roll (R6).
    board = np.zeros((2, 25), dtype=np.uint8)
    board[0, 24], board[0, 0] = 1, 14  # the side to move: one checker on the bar
    board[1, 0:6], board[1, 6] = 2, 3  # the opponent: a closed board
    closed = Position.from_array(board)
    ranked = hint(net, closed, (6, 6))
    assert len(ranked) == 1 and str(ranked[0].move) == ""
    forced = hint(net, closed.flipped(), (6, 6))  # one distinct result
    assert len(forced) == 1 and forced[0].move == net.best_move(closed.flipped(), (6, 6))


def test_bad_input_is_refused_by_name(net: Net) -> None:
    start = Position()
    with pytest.raises(TypeError, match=r"net must be a bgfast\.Net"):
        hint("wildbg", start, (3, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="stakes must be"):
        hint(net, start, (3, 1), stakes={"cube": 2})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Position, GameState or Chouette"):
        hint(net, "4HPwATDgc/ABMA", (3, 1))  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="give the roll"):
        hint(net, start)
    with pytest.raises(InvalidDiceError):
        hint(net, start, (0, 7))
    with pytest.raises(BgfastError, match="cube_life"):
        hint(net, start, (3, 1), cube_life=1.5)
    state = codec.state_from_id(START_XGID.format(3, 4, 7))
    assert state is not None
    to_roll = codec.state_from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert to_roll is not None and to_roll.phase == "roll"
    with pytest.raises(BgfastError, match="the state holds no dice yet: give the roll"):
        hint(net, to_roll)
    # The state's roll given apart: its position ranked at its stakes (the XGID's cube limit).
    at_its_stakes = hint(net, to_roll.position, (3, 1), stakes=cubeful.Stakes.of(to_roll))
    assert _same(hint(net, to_roll, (3, 1)), at_its_stakes)
    doubled = codec.state_from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10")
    assert doubled is not None
    with pytest.raises(BgfastError, match="no play to rank: a double waits for its answer"):
        hint(net, doubled, (3, 1))
    far = codec.state_from_id(START_XGID.format(0, 0, 31))  # past the table's 25-away
    assert far is not None
    with pytest.raises(MatchOptionError, match="R20"):
        hint(net, far)


def test_hint_is_public_with_its_result_type() -> None:
    assert {"hint", "RankedPlay"} <= set(bgfast.__all__)
    assert all(isinstance(h, bgfast.RankedPlay) for h in hint(Net.wildbg(), Position(), (3, 1)))


def test_the_module_example_runs() -> None:
    import doctest

    result = doctest.testmod(sys.modules["bgfast.hint"])
    assert result.attempted > 0 and result.failed == 0


# A chouette's board: the box plays against every member's cube (R26).

CHOUETTE_ROLLS = {"Ann": 6, "Bob": 5, "Cy": 3, "Di": 1}  # box Ann, captain Bob, then Cy, Di


def _chouette(form: str = "per-member-cubes", **options: object) -> bgfast.chouette.Chouette:
    """A chouette whose box opened with 5-2 and whose team doubled Bob's cube (the box
    took, so it owns a cube of 2), the team now on roll with 6-4."""
    c = bgfast.chouette.Chouette(
        list(CHOUETTE_ROLLS),
        form,
        rolls=CHOUETTE_ROLLS,
        **options,  # type: ignore[arg-type]
    )
    c.start_game()
    c.roll((5, 2))
    c.play("24/22 13/8")
    if form == "per-member-cubes":
        c.member_double("Bob", "take")
    c.roll((6, 4))
    return c


def _values(ranked: list[bgfast.RankedPlay]) -> dict[str, float]:
    return {str(h.move): h.cubeful_equity for h in ranked}


def test_a_chouette_ranks_over_every_members_cube_r26(net: Net) -> None:
    c = _chouette()
    board = c.game
    assert board is not None
    state = board.state
    # The team is on roll: Bob's cube of 2 is the box's, Cy's and Di's are centred at 1.
    bob = hint(net, state, stakes=cubeful.Stakes.check(cube=(2, "opponent")))
    centred = hint(net, state, stakes=cubeful.Stakes.check())
    assert _same(hint(net, c, member="Bob"), bob)
    assert _same(hint(net, c, member="Cy"), centred)
    # Over all three cubes, a cube of 2 counting twice: four points at stake.
    total = _values(hint(net, c))
    for move, value in total.items():
        expected = (2 * _values(bob)[move] + 2 * _values(centred)[move]) / 4
        assert value == pytest.approx(expected, abs=1e-12)
    assert list(total) == sorted(total, key=lambda m: -total[m])


def test_a_team_cube_is_one_cube_and_the_chouette_rules_count(net: Net) -> None:
    c = _chouette("team-cube", jacoby=True)
    board = c.game
    assert board is not None
    jacoby = cubeful.Stakes.check(jacoby=True)
    at_the_team_cube = hint(net, board.state, stakes=jacoby)
    assert _same(hint(net, c), at_the_team_cube)
    assert _same(hint(net, c, member="Di"), at_the_team_cube)
    # Without gammons each result is worth its winning chances alone.
    plain = hint(net, _chouette(gammons=False), member="Cy")
    for h in plain:
        p = h.probabilities.astype(np.float64)
        p[1:] = 0.0
        assert h.cubeful_equity == pytest.approx(_native_value(p, cubeful.Stakes.check()), abs=1e-6)


def test_a_chouette_without_a_play_or_with_bad_arguments_is_refused(net: Net) -> None:
    c = bgfast.chouette.Chouette(list(CHOUETTE_ROLLS), rolls=CHOUETTE_ROLLS)
    with pytest.raises(BgfastError, match="no game in progress"):
        hint(net, c, (3, 1))
    c.start_game()
    with pytest.raises(BgfastError, match="R3"):
        hint(net, c, (3, 1))
    c = _chouette()
    with pytest.raises(BgfastError, match="name a member, not stakes"):
        hint(net, c, stakes=cubeful.Stakes.check())
    with pytest.raises(bgfast.chouette.IllegalChouetteActionError, match="Ann"):
        hint(net, c, member="Ann")  # the box is no member of the team
    with pytest.raises(TypeError, match="member"):
        hint(net, c, member=3)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="rank a Chouette"):
        hint(net, Position(), (3, 1), member="Bob")
    # Other dice than the board's roll are refused, as for a state.
    board = c.game
    assert board is not None and board.state.dice is not None
    a, b = board.state.dice
    other = (2, 1) if sorted((a, b)) != [1, 2] else (6, 6)
    with pytest.raises(InvalidDiceError, match=f"has rolled {a}-{b}, not"):
        hint(net, c, other, member="Bob")


def _holland_game(holland: bool) -> bgfast.Game:
    """Six turns of random plays in a post-Crawford game of a 5-point match, the leader
    (player 0) 1-away against 3-away."""
    game = bgfast.Game(match_length=5, score=(4, 2), crawford=False, holland=holland, seed=3)
    rng = np.random.default_rng(5)
    for _ in range(6):
        game.roll()
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])
    return game


def test_the_holland_rule_keeps_the_trailers_cube_waiting(net: Net) -> None:
    """Under the Holland rule the trailer may double only after both sides rolled twice:
    a result after which it may not is valued without its cube action (its cube still
    live later), by hint and by the analysis alike; from then on, and for the trailer's
    own plays, as without the rule."""
    holland = bgfast.analyse(_holland_game(True), net=net)
    plain = bgfast.analyse(_holland_game(False), net=net)
    assert holland is not None and plain is not None
    pairs = zip(
        [d for d in holland.decisions if d.kind == "move"],
        [d for d in plain.decisions if d.kind == "move"],
    )
    waited = 0
    for with_rule, without in pairs:
        state = with_rule.state
        ranked = hint(net, state)
        stakes = cubeful.Stakes.of(state)
        after = (state.turns_played[0] + 1, state.turns_played[1])
        trailer_waits = state.turn == 0 and min(after) < 2
        for h in ranked:
            p = h.probabilities
            theirs = [1.0 - float(p[0]), float(p[3]), float(p[4]), float(p[1]), float(p[2])]
            d = cubeful.decide_for(theirs, stakes.for_opponent(), cubeful.DEFAULT_CUBE_LIFE)
            mwc = 1.0 - (d.no_double if trailer_waits else d.value)
            assert h.mwc == pytest.approx(mwc, abs=1e-6)
        # The analysis rates the play made by the same values.
        played = next(h for h in ranked if str(h.move) == with_rule.played)
        assert with_rule.loss == pytest.approx(
            ranked[0].cubeful_equity - played.cubeful_equity, abs=1e-5
        )
        if trailer_waits:
            waited += 1
            assert with_rule.loss != pytest.approx(without.loss, abs=1e-4)
        else:
            assert with_rule.loss == without.loss
    assert waited == 2  # the leader's first two plays


def test_the_holland_rule_is_a_match_rule_ranked_for_money_it_has_no_say(net: Net) -> None:
    # The leader opens: the trailer would wait after its play.
    holland = bgfast.Game(match_length=5, score=(4, 2), crawford=False, holland=True, seed=3)
    plain = bgfast.Game(match_length=5, score=(4, 2), crawford=False, seed=3)
    for game in (holland, plain):
        game.roll()
    assert holland.state.turn == 0 and holland.state.dice == plain.state.dice
    assert not _same(hint(net, holland.state), hint(net, plain.state))
    money = cubeful.Stakes.check()
    assert _same(hint(net, holland.state, stakes=money), hint(net, plain.state, stakes=money))


def _bearoff_position() -> Position:
    board = np.zeros((2, 25), dtype=np.uint8)
    board[0, :6] = [2, 1, 0, 1, 1, 1]  # the side to move: 6 checkers home
    board[1, :6] = [1, 1, 1, 1, 1, 1]
    return Position.from_array(board)


def test_bearoffs_in_the_database_are_valued_exactly(net: Net) -> None:
    """Where both sides are in the two-sided database's range, a play's result is valued
    by its exact winning chance (no gammon is possible), as GNU Backgammon's hint reads its
    database; the shipped race net is off by 0.03 on average there."""
    ranked = hint(net, _bearoff_position(), (6, 5))
    netted = {str(m): p for m, p, _ in net.rank(_bearoff_position(), (6, 5))}
    differs = 0
    for h in ranked:
        after = h.move.result.to_array()
        exact = 1.0 - bgfast.bearoff.win_probability((after[0, :6], after[1, :6]))
        assert h.probabilities.tolist() == pytest.approx([exact, 0, 0, 0, 0], abs=1e-7)
        assert h.equity == pytest.approx(2 * exact - 1, abs=1e-7)
        differs += abs(float(netted[str(h.move)][0]) - exact) > 1e-3
    assert differs  # the net alone would have valued them otherwise


def test_the_analysis_values_bearoffs_exactly_too(net: Net) -> None:
    opening = bgfast.Game(seed=1)
    opening.roll()
    opening.play(opening.legal_moves()[0])
    money = opening.gnubg_id().split(":")[1]  # money, the cube centred, player 1 to roll
    game = bgfast.Game.from_gnubg_id(f"{_bearoff_position().id}:{money}", seed=2)
    for _ in range(4):
        game.roll()
        game.play(game.legal_moves()[-1])
    analysis = bgfast.analyse(game, net=net)
    assert analysis is not None
    moves = [d for d in analysis.decisions if d.kind == "move"]
    assert moves
    for d in moves:
        ranked = hint(net, d.state)
        played = next(h for h in ranked if str(h.move) == d.played)
        gap = ranked[0].cubeful_equity - played.cubeful_equity
        assert d.loss == pytest.approx(gap, abs=1e-5)
