"""Cube values in two-sided bear-offs: exact, as GNU Backgammon's.

In the two-sided bear-off database's range (at most 6 checkers a side, all home) GNU
Backgammon values positions from the database, not with Janowski's cube life: in money play
its exact cubeful equities, in a match the cube model at a cube life derived from those
equities, at most 0.6 (eval.c: ``CFMONEY`` and ``rTSCubeX``). bgfast's cube decisions
(``cubeful.decide(position=...)``, ``cube_values(boards=...)``), ``hint``, ``analyse`` and
the external player do the same. The gnubg numbers quoted were printed by gnubg 1.07 at
0 ply (``eval`` and ``hint`` of the GNUbg ID given); gnubg's database keeps its equities
to about 1e-4, bgfast's in double precision.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from gnubg_external import board_line

import bgfast
from bgfast import Game, Position, analyse, batch, bearoff, cubeful
from bgfast.cubeful import Stakes
from bgfast.serve_gnubg import ExternalPlayer

# Money, cube centred: gnubg "Double, take", no double +0.37804, double/take +0.75608;
# Janowski's model at cube life 0.68 says no double (0.549 against 0.545).
DOUBLE_TAKE = "QgAAaAAAAAAAAA"
# One checker on the 2-point against four: a certain win, gnubg "Double, pass" (no double
# and double/pass both +1.000).
CERTAIN_WIN = "HgAAQAAAAAAAAA"

_TABLE = {"centred": "centred", "mover": "owned", "opponent": "unavailable"}


def _random_bearoffs(count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        board = np.zeros((2, 25), dtype=np.uint8)
        for side in (0, 1):
            for _ in range(rng.randint(1, 6)):
                board[side, rng.randint(0, 5)] += 1
        positions.append(Position.from_array(board))
    return positions


def _win(position: Position) -> list[float]:
    return [bearoff.win_probability(position), 0.0, 0.0, 0.0, 0.0]


def test_a_money_double_is_the_databases_not_janowskis() -> None:
    position = Position.from_id(DOUBLE_TAKE)
    exact = cubeful.decide(_win(position), position=position)
    assert exact.action == "double, take" and exact.answer == "take"
    assert exact.no_double == pytest.approx(0.37804, abs=2e-4)
    assert exact.double_take == pytest.approx(0.75608, abs=2e-4)
    assert exact.double_pass == 1.0
    janowski = cubeful.decide(_win(position))  # without the position: the cube model
    assert janowski.action == "no double"
    # The same redoubling with the cube owned (gnubg: "Redouble, take", the same values).
    owned = cubeful.decide(_win(position), cube=(2, "mover"), position=position)
    assert owned.action == "redouble, take"
    assert (owned.no_double, owned.double_take) == (exact.no_double, exact.double_take)


def test_money_values_are_the_databases_for_every_cube() -> None:
    """No double is the table's equity without a double now; the value after the cube
    action is the table's with it; double/take twice the taker's-cube equity, normalised to
    the cube now; the Jacoby rule changes nothing (no gammon is possible)."""
    for position in _random_bearoffs(300, seed=1):
        for owner, value in (("centred", 1), ("mover", 2), ("opponent", 2)):
            d = cubeful.decide(_win(position), cube=(value, owner), position=position)
            table = _TABLE[owner]
            assert d.no_double == bearoff.cubeful_equity(position, table, may_double=False)
            assert d.value == pytest.approx(bearoff.cubeful_equity(position, table), abs=1e-12)
            taken = bearoff.cubeful_equity(position, "unavailable", may_double=False)
            assert d.double_take == 2.0 * taken and d.double_pass == 1.0
            assert d.may_double == (owner != "opponent")
            jacoby = cubeful.decide(
                _win(position), cube=(value, owner), jacoby=True, position=position
            )
            assert jacoby == d


def test_a_cube_limit_counts_the_doubles_it_leaves() -> None:
    """R17: with the cube at 16 of a limit of 64, two doubles are left."""
    for position in _random_bearoffs(40, seed=2):
        d = cubeful.decide(_win(position), cube=(16, "centred"), max_cube=64, position=position)
        assert d.no_double == bearoff.cubeful_equity(
            position, "centred", may_double=False, doubles_left=2
        )
        assert d.double_take == 2.0 * bearoff.cubeful_equity(
            position, "unavailable", may_double=False, doubles_left=1
        )
        assert d.value == pytest.approx(
            bearoff.cubeful_equity(position, "centred", doubles_left=2), abs=1e-12
        )
        dead = cubeful.decide(_win(position), cube=(64, "centred"), max_cube=64, position=position)
        cubeless = 2.0 * bearoff.win_probability(position) - 1.0
        assert dead.no_double == pytest.approx(cubeless) and not dead.may_double


def test_a_certain_win_is_double_pass() -> None:
    """gnubg: no double and double/pass both +1.000, "Double, pass" (a tie doubles)."""
    certain = Position.from_id(CERTAIN_WIN)
    assert bearoff.win_probability(certain) == 1.0
    d = cubeful.decide(_win(certain), position=certain)
    assert (d.no_double, d.double_pass, d.action, d.value) == (1.0, 1.0, "double, pass", 1.0)


def test_cube_values_with_boards_are_exact_only_in_the_databases_range() -> None:
    positions = [*_random_bearoffs(20, seed=3), Position()]  # the start: no bear-off
    boards = batch.to_array(positions)
    chances = bgfast.Net.wildbg().evaluate(boards)
    stakes = Stakes.check()
    model = cubeful.cube_values(chances, stakes)
    values = cubeful.cube_values(chances, stakes, boards=boards)
    np.testing.assert_array_equal(values[-1], model[-1])
    for k, position in enumerate(positions[:-1]):
        d = cubeful.decide(chances[k], position=position)
        np.testing.assert_allclose(values[k], [d.no_double, d.double_take, d.double_pass, d.value])
    with pytest.raises(bgfast.BgfastError, match="boards"):
        cubeful.cube_values(chances, stakes, boards=boards[:-1])  # one board short


# gnubg's 0-ply cube values in EMG (no double, double/take, double/pass) and its action.
MATCH = [
    (DOUBLE_TAKE, 7, (2, 3), (1, "centred"), (0.37804, 0.64196, 1.0), "double, take"),
    (DOUBLE_TAKE, 9, (2, 3), (2, "mover"), (0.37804, 0.79487, 1.0), "redouble, take"),
    ("oQEA4CoAAAAAAA", 5, (3, 1), (1, "centred"), (0.82202, 1.79287, 1.0), "double, pass"),
    ("rQAAQHAAAAAAAA", 7, (5, 4), (1, "centred"), (0.01988, -0.40523, 1.0), "no double"),
]


@pytest.mark.parametrize("position_id, length, score, cube, emg, action", MATCH)
def test_match_values_take_gnubgs_cube_life_from_the_database(
    position_id: str,
    length: int,
    score: tuple[int, int],
    cube: tuple[int, str],
    emg: tuple[float, float, float],
    action: str,
) -> None:
    """gnubg's cube life in match bear-offs: where the exact money equity lies between the
    dead and the fully live cube's, from 0 to 0.6, for each cube position."""
    position = Position.from_id(position_id)
    d = cubeful.decide(
        _win(position), cube=cube, match_length=length, score=score, position=position
    )
    assert d.emg is not None
    got = (d.emg["no_double"], d.emg["double_take"], d.emg["double_pass"])
    assert got == pytest.approx(emg, abs=5e-4)  # gnubg's match table differs a little
    assert d.action == action


def test_the_match_cube_life_is_at_most_gnubgs() -> None:
    """Between a dead cube (0) and gnubg's 0.6 whatever the position, so the values lie
    between the cube model's at those lives."""
    stakes = Stakes.check(match_length=7, score=(2, 3))
    positions = _random_bearoffs(200, seed=4)
    boards = batch.to_array(positions)
    chances = np.zeros((len(positions), 5))
    chances[:, 0] = [bearoff.win_probability(p) for p in positions]
    exact = cubeful.cube_values(chances, stakes, boards=boards)
    low = cubeful.cube_values(chances, stakes, 0.0)
    high = cubeful.cube_values(chances, stakes, cubeful.BEAROFF_MATCH_CUBE_LIFE)
    for column in (0, 1):
        lo = np.minimum(low[:, column], high[:, column]) - 1e-12
        hi = np.maximum(low[:, column], high[:, column]) + 1e-12
        assert np.all((lo <= exact[:, column]) & (exact[:, column] <= hi))


def test_hint_values_bearoff_results_exactly() -> None:
    """gnubg's hint: 6/5 3/off -0.23439, 3/off 2/1 -0.38199 in money (Janowski's model
    put 3/off 2/1 first); at 7-point 2-3, -0.24043 and -0.53359 (EMG)."""
    net = bgfast.Net.wildbg()
    position = Position.from_id("0QAAwEYAAAAAAA")
    money = bgfast.hint(net, position, (3, 1))
    assert [str(h.move) for h in money[:2]] == ["6/5 3/off", "3/off 2/1"]
    assert [h.cubeful_equity for h in money[:2]] == pytest.approx([-0.23439, -0.38199], abs=2e-4)
    for h in money:
        theirs = bearoff.cubeful_equity(h.move.result, "centred")
        assert h.cubeful_equity == pytest.approx(-theirs, abs=1e-6)
    match = bgfast.hint(net, position, (3, 1), stakes=Stakes.check(match_length=7, score=(2, 3)))
    assert [str(h.move) for h in match[:2]] == ["6/5 3/off", "3/off 2/1"]
    assert [h.cubeful_equity for h in match[:2]] == pytest.approx([-0.24043, -0.53359], abs=5e-4)


def _bearoff_game(position_id: str) -> Game:
    """A money game whose side on roll (player 0) is at ``position_id``, cube centred."""
    game = Game(match_length=0, seed=5)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.roll((4, 2))
    game.play("8/4 6/4")
    return Game.from_state(game.state.replace(position=Position.from_id(position_id)))


def test_analyse_rates_a_bearoff_cube_decision_exactly() -> None:
    game = _bearoff_game(DOUBLE_TAKE)
    roller = game.state.turn
    game.roll((2, 1))  # no double: gnubg's "Double, take" loses 0.37804
    cube = [d for d in analyse(game, threads=1).decisions if d.kind == "double"]
    assert [(d.player, d.played, d.best) for d in cube] == [(roller, "no double", "double, take")]
    assert cube[0].loss == pytest.approx(0.75608 - 0.37804, abs=2e-4)


def test_analyse_rates_bearoff_plays_exactly() -> None:
    """The play's loss is the exact values' difference (gnubg: 3/off 2/1 loses 0.14760)."""
    game = _bearoff_game("0QAAwEYAAAAAAA")
    game.roll((3, 1))
    game.play("3/off 2/1")
    plays = [d for d in analyse(game, threads=1).decisions if d.kind == "move"]
    assert plays[-1].best == "6/5 3/off"
    assert plays[-1].loss == pytest.approx(0.14760, abs=2e-4)
    # Rated by another net than the luck's (another path): the same exact values.
    other = analyse(game, bgfast.Net.wildbg_large(), threads=1).decisions
    rated = [d for d in other if d.kind == "move"][-1]
    assert (rated.best, rated.loss) == (plays[-1].best, pytest.approx(plays[-1].loss))


def test_the_external_player_doubles_a_bearoff_gnubg_doubles() -> None:
    game = _bearoff_game(DOUBLE_TAKE)
    player = ExternalPlayer("wildbg")
    assert player.reply(board_line(game.state)) == "double"
    game.double()
    assert player.reply(board_line(game.state)) == "take"
    certain = _bearoff_game(CERTAIN_WIN)
    assert player.reply(board_line(certain.state)) == "double"
    certain.double()
    assert player.reply(board_line(certain.state)) == "drop"


def test_boards_that_are_no_positions_are_refused_whatever_the_cube_life() -> None:
    # Only cube_life="gnubg" checked the boards; exact_bearoff_values took any array.
    chances = [[0.5, 0.0, 0.0, 0.0, 0.0]]
    too_many = np.zeros((1, 2, 25), dtype=np.uint8)
    too_many[0, 0, :3] = 15
    too_many[0, 1, 0] = 1
    for life in (cubeful.DEFAULT_CUBE_LIFE, "gnubg"):
        with pytest.raises(bgfast.InvalidPositionError, match="R1"):
            cubeful.cube_values(chances, Stakes.check(), life, boards=too_many)
        with pytest.raises(bgfast.InvalidPositionError, match="R15"):
            cubeful.cube_values(chances, Stakes.check(), life, boards=0 * too_many)
    with pytest.raises(bgfast.BgfastError, match=r"\(N, 2, 25\)"):
        cubeful.exact_bearoff_values(np.zeros((2, 25), dtype=np.uint8), Stakes.check())
    with pytest.raises(bgfast.InvalidPositionError, match="R1"):
        cubeful.exact_bearoff_values(too_many, Stakes.check())


def test_hint_orders_plays_of_equal_value_by_cubeless_equity_as_gnubg() -> None:
    # Three plays all exactly -1.000 cubeful; gnubg 1.07's hint lists them by cubeless
    # value: 6/off 5/4, 6/off 3/2, 6/5 6/off. bgfast kept the net's order among them.
    ranked = bgfast.hint(bgfast.Net.wildbg(), Position.from_id("TQAAgDQAAAAAAA"), (6, 1))
    assert [h.cubeful_equity for h in ranked] == pytest.approx([-1.0] * 3)
    assert [str(h.move) for h in ranked] == ["6/off 5/4", "6/off 3/2", "6/5 6/off"]
