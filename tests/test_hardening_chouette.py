"""A fourth adversarial pass over chouettes, match analysis, the cube model and the match
equity tables (2026-12-03): each regression test failed before its fix.

The earlier passes' contract checks (a refused call changes nothing, saves round-trip; see
``tests/test_game_stateful.py``) are not repeated; these are the silent wrong answers and
crashes they missed. ``ChouetteAccounts`` plays random chouettes, on the board and recorded
from a real board, against an independent model of seats, cubes and money (R24-R28);
``BGFAST_FUZZ_EXAMPLES=1500`` runs a deeper search.
"""

from __future__ import annotations

import dataclasses
import os
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import bgfast
from bgfast import Chouette, Game, Net, Position, cubeful
from bgfast.errors import IllegalChouetteActionError, MetError
from bgfast.met import MatchEquityTable

# ---------------------------------------------------------------------------- analysis


def _value_after(result: Position, stakes: cubeful.Stakes, net: Net) -> float:
    """A result's value to the player who moved, the slow way: the opponent's cube
    decision by ``bgfast.cubeful`` on the net's chances, turned round (money play)."""
    owner = {"centred": "centred", "mover": "opponent", "opponent": "mover"}[stakes.cube_owner]
    theirs = cubeful.Stakes.check(cube=(stakes.cube_value, owner))
    return -cubeful.decide_for(net.evaluate(result), theirs, cubeful.DEFAULT_CUBE_LIFE).value


def _best(position: Position, dice: tuple[int, int], stakes: cubeful.Stakes, net: Net) -> float:
    return max(_value_after(m.result, stakes, net) for m in position.moves(dice))


@pytest.mark.parametrize("dice", [(5, 2), (2, 5)])
def test_opening_luck_from_a_position_that_is_not_the_start_sees_the_other_side(
    dice: tuple[int, int],
) -> None:
    # A game begun from an uneven position (player 0 far ahead in a race) at its opening
    # roll: the 15 rolls the other player could have won are its plays from its own side.
    # They were scored from the winner's side, so the luck was -0.34 instead of -0.04.
    start = Position.from_id("4PPgAyDgc/ABMA")
    game = Game.from_state(dataclasses.replace(Game().state, position=start), seed=1)
    game.roll(dice)
    game.play(game.legal_moves()[0])
    net = Net.wildbg()
    analysis = bgfast.analyse(game, net, threads=1)
    (roll,) = analysis.rolls
    money = cubeful.Stakes.check()
    mine = Game.from_state(dataclasses.replace(Game().state, position=start), seed=1)
    mine.roll(dice)
    seen = mine.state.position  # the winner's side
    rolls = [(hi, lo) for hi in range(2, 7) for lo in range(1, hi)]
    total = sum(_best(seen, r, money, net) for r in rolls)
    total += sum(-_best(seen.flipped(), r, money, net) for r in rolls)
    expected = _best(seen, dice, money, net) - total / 30
    assert roll.luck == pytest.approx(expected, abs=1e-5)


def _doubled_game() -> Game:
    game = Game(seed=3)
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.double()
    return game


@pytest.mark.parametrize("answer", ["take", "drop"])
def test_a_game_begun_with_a_double_offered_is_analysed(answer: str) -> None:
    # From a state (or an ID) with the double already offered there is no Double event:
    # the answer's analysis failed on a bare AssertionError.
    whole = _doubled_game()
    getattr(whole, answer)()
    part = Game.from_state(_doubled_game().state, seed=2)
    getattr(part, answer)()
    (ours,) = [d for d in bgfast.analyse(part, threads=1).decisions if d.kind == "take"]
    (full,) = [d for d in bgfast.analyse(whole, threads=1).decisions if d.kind == "take"]
    assert (ours.played, ours.best, ours.player) == (full.played, full.best, full.player)
    assert ours.loss == pytest.approx(full.loss, abs=1e-6)
    assert ours.state == full.state  # the doubler's, before the double


def test_a_game_begun_with_the_dice_rolled_rates_its_first_play() -> None:
    # From a state with the dice rolled there is no Roll event for the first play: it was
    # silently left out of the analysis (no decision, no luck, the next play numbered 1).
    whole = Game(seed=3)
    whole.roll((3, 1))
    whole.play("8/5 6/5")
    whole.roll((6, 5))
    part = Game.from_state(whole.state, seed=2)
    for game in (whole, part):
        game.play("24/13")
        game.roll((2, 1))
        game.play("24/22 6/5")
    ours = [d for d in bgfast.analyse(part, threads=1).decisions if d.kind == "move"]
    full = [d for d in bgfast.analyse(whole, threads=1).decisions if d.kind == "move"][1:]
    assert [(d.move, d.player, d.played, d.best) for d in ours] == [
        (d.move, d.player, d.played, d.best) for d in full
    ]
    for a, b in zip(ours, full):
        assert a.loss == pytest.approx(b.loss, abs=1e-6)
    luck = bgfast.analyse(part, threads=1).rolls
    assert [(r.move, r.player, r.dice) for r in luck] == [(1, 1, (6, 5)), (2, 0, (2, 1))]


# ---------------------------------------------------------------------------- chouettes


def _chouette(form: str = "team-cube") -> Chouette:
    c = Chouette(["Ann", "Bob", "Cy"], form, rolls={"Ann": 6, "Bob": 4, "Cy": 2})  # type: ignore[arg-type]
    c.start_game()
    return c


def test_a_game_doubled_before_any_roll_is_not_played_on_the_board_r18() -> None:
    # No double comes before the opening roll (R18): doubles before any roll mean the game
    # is played on a real board. Rolling the board here afterwards made a board game whose
    # cube had been turned (and redoubled by the box) before anybody was on roll.
    c = _chouette()
    c.team_double(["Bob", "Cy"], "take")
    before = c.to_json()
    with pytest.raises(IllegalChouetteActionError, match="R18"):
        c.roll((3, 1))
    assert c.to_json() == before
    assert c.end_game("box", "single").payments == {"Ann": 4, "Bob": -2, "Cy": -2}
    # A history that does it is refused on replay.
    d = _chouette("per-member-cubes")
    d.member_double("Cy", "take")
    history = [*d.history, {"type": "roll", "dice": [3, 1]}]
    with pytest.raises(IllegalChouetteActionError, match="R18"):
        Chouette.from_history(d.players, d.form, history)
    # Doubles on the board's turns are unaffected.
    e = _chouette()
    e.roll((3, 1))
    e.play("8/5 6/5")
    e.team_double(["Bob", "Cy"], "take")
    e.roll((6, 5))


@pytest.mark.parametrize(
    "action",
    [
        lambda c: c.team_double(["Bob", "Cy"], np.array(["take"])),
        lambda c: c.box_double({"Bob": "take", "Cy": np.array(["pass"])}),
        lambda c: c.end_game(np.array(["team"]), "single"),
        lambda c: c.end_game("team", np.array(["gammon"])),
        lambda c: c.team_double([np.array(["Bob"]), "Cy"], "take"),
        lambda c: c.cube(np.array(["Bob"])),
    ],
)
def test_a_word_must_be_a_str_not_an_array_equal_to_it(action: object) -> None:
    # A numpy array of one word compares equal to it, so `answer in ("take", "pass")` took
    # it: the chouette recorded the array and could no longer be saved (TypeError).
    c = _chouette()
    before = c.to_json()
    with pytest.raises(IllegalChouetteActionError):
        action(c)  # type: ignore[operator]
    assert c.to_json() == before
    with pytest.raises(IllegalChouetteActionError, match="unknown form"):
        Chouette(["Ann", "Bob", "Cy"], np.array(["team-cube"]), rng=1)  # type: ignore[arg-type]


def test_a_player_name_a_save_cannot_hold_is_refused(tmp_path: Any) -> None:
    # A lone surrogate is a str but no UTF-8: the chouette was seated and then could not
    # be saved (UnicodeEncodeError from save()).
    with pytest.raises(IllegalChouetteActionError, match="UTF-8"):
        Chouette(["Ann\ud800", "Bob", "Cy"], rng=1)
    c = Chouette(["Zoë", "Bob", "Cy"], rng=1)  # any other text is kept as written
    c.save(tmp_path / "c.json")
    assert Chouette.load(tmp_path / "c.json") == c


# ---------------------------------------------------------------------------- match equity


@pytest.mark.parametrize(
    ("max_away", "pre", "post", "match"),
    [
        # Rewards being further behind: take points came out of 0..1 or a MetError later.
        (3, ((0.5, 0.3, 0.2), (0.7, 0.5, 0.4), (0.8, 0.6, 0.5)), (0.5, 0.4, 0.3), "increases"),
        (2, ((0.5, 0.7), (0.3, 0.5)), (0.5, 0.6), "post-Crawford mwc increases"),
        # The two sides' chances at a score must add up to 1.
        (2, ((0.5, 0.9), (0.3, 0.5)), (0.5, 0.4), "add up"),
        (2, ((0.5, 0.7), (0.3, 0.5)), (0.4, 0.3), "not 0.5"),
        # Shapes that lookups ran past (IndexError) and values that are no chances.
        (5, ((0.5,),), (0.5,), "5 tuples of 5"),
        (2, ((0.5, 0.7), (0.3, 0.5)), [0.5, 0.4], "post must be"),
        (1, ((1.7,),), (0.5,), "not a probability"),
        (1, ((0.5,),), (float("nan"),), "not a probability"),
        (1, ((True,),), (0.5,), "not a probability"),
        (True, ((0.5,),), (0.5,), "max_away"),
    ],
)
def test_a_hand_made_match_equity_table_is_checked(
    max_away: object, pre: object, post: object, match: str
) -> None:
    with pytest.raises(MetError, match=match):
        MatchEquityTable("mine", "mine", "", max_away, pre, post)  # type: ignore[arg-type]


def test_a_sound_hand_made_table_gives_take_points_in_0_1() -> None:
    table = MatchEquityTable("mine", "mine", "", 2, ((0.5, 0.7), (0.3, 0.5)), (0.5, 0.45))
    for doubler in (1, 2):
        for taker in (1, 2):
            for cube in (1, 2, 4):
                assert 0.0 <= table.take_point(doubler, taker, cube) <= 1.0
    for name in bgfast.met.table_names():  # the shipped tables pass the checks
        assert bgfast.met.load(name).max_away >= 15


# ---------------------------------------------------------------------------- a model


class _Model:
    """An independent account of a chouette (R24-R28 and the module's conventions): who
    sits where, each member's cube, and what everybody has won."""

    def __init__(self, c: Chouette) -> None:
        self.form = c.form
        self.options = c.options
        self.box = c.box
        self.queue = list(c.queue)
        self.balances = {p: 0 for p in c.players}
        self.game: dict[str, Any] | None = None

    def start(self) -> None:
        self.game = {
            "team": list(self.queue),
            "active": list(self.queue),
            "captain": self.queue[0],
            "cubes": {m: [1, "center"] for m in self.queue},
            "last_by_box_pass": False,
            "board": False,
            "payments": [],
        }

    def cube(self, m: str) -> list[Any]:
        assert self.game is not None
        cubes: dict[str, list[Any]] = self.game["cubes"]
        if self.form == "team-cube":
            return cubes[self.game["team"][0]]  # one cube for all
        return cubes[m]

    def pay(self, member: str, points: int) -> None:
        # The ledger takes a game's payments when it ends.
        assert self.game is not None
        self.game["payments"].append((member, points))

    def leave(self, member: str, box_passed: bool) -> None:
        g = self.game
        assert g is not None
        value = self.cube(member)[0]
        self.pay(member, value if box_passed else -value)
        g["active"].remove(member)
        g["last_by_box_pass"] = box_passed

    def after_leaving(self) -> bool:
        g = self.game
        assert g is not None
        if g["captain"] not in g["active"] and g["active"]:
            g["captain"] = g["active"][0]
        if g["active"]:
            return False
        self.rotate("team" if g["last_by_box_pass"] else "box")
        return True

    def multiplier(self, kind: str, turned: bool) -> int:
        o = self.options
        if not o["gammons"] or (o["jacoby"] and not turned):
            return 1
        return {"single": 1, "gammon": 2, "backgammon": 2 if o["backgammon_as_double"] else 3}[kind]

    def settle(self, winner: str, kind: str) -> None:
        g = self.game
        assert g is not None
        for m in g["active"]:
            value, owner = self.cube(m)
            points = value * self.multiplier(kind, owner != "center")
            self.pay(m, points if winner == "team" else -points)
        self.rotate(winner)

    def rotate(self, winner: str) -> None:
        g = self.game
        assert g is not None
        for member, points in g["payments"]:
            self.balances[member] += points
            self.balances[self.box] -= points
        seated = g["team"][0]
        if winner == "box":
            self.queue = [m for m in g["team"] if m != seated] + [seated]
        else:
            old = self.box
            self.box = g["captain"]
            self.queue = [m for m in g["team"] if m != g["captain"]] + [old]
        self.game = None


def _double(cube: list[Any], taker: str) -> None:
    cube[0] *= 2
    cube[1] = taker


class ChouetteAccounts(RuleBasedStateMachine):
    """Random chouettes, board games and games recorded from a real board alike, checked
    against :class:`_Model` after every action (seats, cubes, balances)."""

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(0)

    @initialize(
        form=st.sampled_from(["team-cube", "per-member-cubes"]),
        players=st.integers(3, 5),
        jacoby=st.booleans(),
        gammons=st.booleans(),
        bg_double=st.booleans(),
        seed=st.integers(0, 2**16),
    )
    def seat(
        self, form: Any, players: int, jacoby: bool, gammons: bool, bg_double: bool, seed: int
    ) -> None:
        names = ["Ann", "Bob", "Cy", "Di", "Ed"][:players]
        self.c = Chouette(
            names,
            form,
            rng=seed,
            jacoby=jacoby,
            gammons=gammons,
            backgammon_counts_double=bg_double,
        )
        self.model = _Model(self.c)
        self.rng = random.Random(seed)

    # -------------------------------------------------------------- helpers

    def _turn_allows(self, side: str) -> bool:
        g = self.model.game
        assert g is not None
        board = self.c.game
        assert board is not None
        if not g["board"]:
            return True
        return board.phase == "roll" and board.turn == (BOX_PLAYER if side == "box" else 1)

    # -------------------------------------------------------------- actions

    @rule()
    def start(self) -> None:
        if self.model.game is not None:
            with pytest.raises(IllegalChouetteActionError):
                self.c.start_game()
            return
        self.c.start_game()
        self.model.start()

    @rule(answer=st.sampled_from(["take", "take", "pass"]))
    def team_doubles(self, answer: Any) -> None:
        g = self.model.game
        if g is None:
            return
        members = list(g["active"])
        if self.c.form == "team-cube":
            cube = self.model.cube(members[0])
            legal = self._turn_allows("team") and cube[1] != "box" and cube[0] < 32768

            def act() -> object:
                return self.c.team_double(members, answer)

            doubled = members
        else:
            m = self.rng.choice(members)
            cube = self.model.cube(m)
            legal = self._turn_allows("team") and cube[1] != "box" and cube[0] < 32768

            def act() -> object:
                return self.c.member_double(m, answer)

            doubled = [m]
        if not legal:
            before = self.c.to_json()
            with pytest.raises(IllegalChouetteActionError):
                act()
            assert self.c.to_json() == before
            return
        act()
        if not g["board"]:
            g["off_board"] = True
        if answer == "take":
            _double(cube, "box")
            return
        for m in doubled:
            self.model.leave(m, box_passed=True)
        self.model.after_leaving()

    @rule(data=st.data())
    def box_doubles(self, data: st.DataObject) -> None:
        g = self.model.game
        if g is None:
            return
        may = [
            m
            for m in g["active"]
            if self.model.cube(m)[1] != "team" and self.model.cube(m)[0] < 32768
        ]
        if self.c.form == "team-cube":
            chosen = list(g["active"]) if may else []
        else:
            chosen = [m for m in may if data.draw(st.booleans())]
        answers: dict[str, Any] = {
            m: data.draw(st.sampled_from(["take", "take", "pass"])) for m in chosen
        }
        if not chosen or not self._turn_allows("box"):
            before = self.c.to_json()
            with pytest.raises(IllegalChouetteActionError):
                self.c.box_double(answers)  # none, or not on the box's turn
            assert self.c.to_json() == before
            return
        self.c.box_double(answers)
        if not g["board"]:
            g["off_board"] = True
        old = {m: list(self.model.cube(m)) for m in chosen}
        for m in chosen:
            if answers[m] == "pass":
                self.model.leave(m, box_passed=False)
        for m in chosen:
            if answers[m] == "take":
                cube = self.model.cube(m)
                if cube == old[m]:  # the team cube is one: doubled once for every taker
                    _double(cube, "team")
        self.model.after_leaving()

    @rule(
        winner=st.sampled_from(["box", "team"]),
        kind=st.sampled_from(["single", "gammon", "backgammon"]),
    )
    def end_by_hand(self, winner: Any, kind: Any) -> None:
        g = self.model.game
        if g is None:
            return
        if g["board"]:
            with pytest.raises(IllegalChouetteActionError, match="R15"):
                self.c.end_game(winner, kind)
            return
        self.c.end_game(winner, kind)
        self.model.settle(winner, kind)

    @rule(plies=st.integers(1, 200))
    def play_on_the_board(self, plies: int) -> None:
        g = self.model.game
        if g is None:
            return
        if g.get("off_board"):
            with pytest.raises(IllegalChouetteActionError, match="R18"):
                self.c.roll((3, 1))
            return
        for _ in range(plies):
            board = self.c.game
            assert board is not None
            g["board"] = True
            if board.phase in ("opening", "roll"):
                self.c.roll((self.rng.randint(1, 6), self.rng.randint(1, 6)))
                continue
            record = self.c.play(self.rng.choice(board.legal_moves()))
            if record is not None:
                assert board.copy() is not None
                winner = "box" if record.winner == "box" else "team"
                assert record.kind is not None
                self.model.settle(winner, record.kind)
                return

    # -------------------------------------------------------------- the checks

    @invariant()
    def agrees_with_the_model(self) -> None:
        if not hasattr(self, "c"):
            return
        c, m = self.c, self.model
        assert c.balances == m.balances
        assert sum(c.balances.values()) == 0
        assert (c.box, list(c.queue)) == (m.box, m.queue)
        assert c.in_game == (m.game is not None)
        if m.game is not None:
            assert list(c.active_members) == m.game["active"]
            assert c.acting_captain == m.game["captain"]
            for member in m.game["active"]:
                cube = c.cube(member)
                value, owner = m.cube(member)
                assert (cube.value, cube.owner, cube.turned) == (value, owner, owner != "center")
        assert c._invariant_violations() == []

    @invariant()
    def saves_round_trip(self) -> None:
        if hasattr(self, "c"):
            text = self.c.to_json()
            assert Chouette.from_json(text).to_json() == text


BOX_PLAYER = 0

TestChouetteAccounts = ChouetteAccounts.TestCase
TestChouetteAccounts.settings = settings(
    max_examples=int(os.environ.get("BGFAST_FUZZ_EXAMPLES", "30")),
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    report_multiple_bugs=False,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)


# ---------------------------------------------------------------------------- analysis, table mode


def test_an_illegal_play_that_stood_is_rated_r31() -> None:
    # Table mode: an illegal play not called before the next roll stands (R31). It was
    # reported as "(no play)" losing nothing, and left out of the error rate.
    game = Game(seed=3, table=True)
    game.roll((3, 1))
    start = game.state
    game.move("13/7")  # six pips with 3-1
    game.commit()
    assert game.last_move_illegal
    game.roll((6, 5))
    game.play("24/18 18/13")
    net = Net.wildbg()
    analysis = bgfast.analyse(game, net, threads=1)
    first = next(d for d in analysis.decisions if d.kind == "move")
    money = cubeful.Stakes.check()
    illegal = start.position.play_physically("13/7")
    best = _best(start.position, (3, 1), money, net)
    assert first.played == "13/7" and first.best == "8/5 6/5" and first.counted
    assert first.loss == pytest.approx(best - _value_after(illegal, money, net), abs=1e-5)
    assert first.loss > 0.16 and first.mark == "very bad"
    assert analysis.players[0].unforced_moves == 1
    assert analysis.players[0].chequer_error == pytest.approx(first.loss)
    # Called and replayed, the legal play is the one rated.
    again = Game(seed=3, table=True)
    again.roll((3, 1))
    again.move("13/7")
    again.commit()
    again.call()
    again.play("8/5 6/5")
    (play,) = [d for d in bgfast.analyse(again, net, threads=1).decisions if d.kind == "move"]
    assert (play.played, play.loss) == ("8/5 6/5", 0.0)
