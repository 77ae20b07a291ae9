"""Stateful fuzzing of Game, Match and Chouette (hypothesis.stateful).

Each machine drives random sequences of every public action, with legal and illegal
arguments and garbage, and checks the layer's contract after every call:

* a rejected call raises a ``bgfast.BgfastError`` subclass (or ``TypeError`` for an
  argument of the wrong type) and leaves ``to_json()`` unchanged;
* after an accepted call, ``from_json(to_json())`` gives an equal object;
* the interchange IDs of the current state read back as the same state (or are refused
  with a ``BgfastError``).

Runs in the default suite in a few seconds per machine (small ``max_examples``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from bgfast import BgfastError, Chouette, Game, Match, Position
from bgfast.errors_game import GameStateError, InvalidIdError
from bgfast.ids import MatchIdFields, decode_match_id, encode_match_id, split_gnubg_id
from bgfast.scoring import KINDS, Rules

# BGFAST_FUZZ_EXAMPLES=1000 runs a deeper search locally; the default suite runs a few seconds.
SETTINGS = settings(
    max_examples=int(os.environ.get("BGFAST_FUZZ_EXAMPLES", "25")),
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# ------------------------------------------------------------------ argument strategies

GOOD_DICE = st.tuples(st.integers(1, 6), st.integers(1, 6))
BAD_DICE = st.sampled_from(
    [(0, 3), (7, 1), (1,), (1, 2, 3), "12", (True, 2), (1.0, 2), [3, -1], (2**70, 1), ("3", 1)]
)
WRONG_TYPES = st.sampled_from([5, 1.5, None, b"8/5", ["8/5"], {"a": 1}, object()])

_POINT = st.one_of(st.integers(0, 26).map(str), st.sampled_from(["bar", "off", "x", ""]))
_STEP = st.tuples(_POINT, _POINT, st.booleans(), st.sampled_from(["", "(2)", "(4)", "(9)"])).map(
    lambda t: f"{t[0]}/{t[1]}{'*' if t[2] else ''}{t[3]}"
)
MOVE_TEXT = st.one_of(
    st.lists(_STEP, min_size=1, max_size=4).map(" ".join),
    st.text(max_size=12),
    st.sampled_from(["", " ", "8/5 6/5", "24/18/13", "bar/20", "6/off(2)", "25/0", "13/11*"]),
)
KIND_ARGS = st.one_of(st.sampled_from(KINDS), st.sampled_from(["", "double", 1, None, ["single"]]))
PLAYER_ARGS = st.sampled_from([None, None, 0, 1, 2, -1, True, "1", 0.0])


def _money_rules() -> st.SearchStrategy[Rules]:
    return st.builds(
        lambda j, a, b, r, bg, m: Rules(
            jacoby=j,
            auto_doubles=a,
            beavers=b or r,
            raccoons=r,
            backgammon_counts_double=bg,
            max_cube=m,
        ),
        st.booleans(),
        st.integers(0, 2),
        st.booleans(),
        st.booleans(),
        st.booleans(),
        st.sampled_from([None, None, 1, 2, 8, 64, 1 << 15]),
    )


def _endgame_position(draw: Callable[[Any], Any]) -> Position:
    """A small race or bear-off (sometimes a checker back or on the bar): games end fast."""
    array = np.zeros((2, 25), dtype=np.uint8)
    for row in (0, 1):
        for _ in range(draw(st.integers(1, 5))):
            point = draw(st.one_of(st.integers(0, 5), st.integers(0, 5), st.integers(6, 24)))
            array[row, point] += 1
    # no point held by both sides (the same physical point is 23 - p for the other row)
    for p in range(24):
        if array[0, p] and array[1, 23 - p]:
            array[1, 23 - p] = 0
    if array[1].sum() == 0:
        array[1, 24] = 1  # on the bar: it clashes with nothing
    return Position.from_array(array)


@st.composite
def games(draw: Callable[[Any], Any]) -> Game:
    """A new game: money or match, table mode on or off, from the start or an endgame."""
    table = draw(st.booleans())
    seed = draw(st.integers(-(2**64) + 1, 2**64 - 1))
    if draw(st.booleans()):
        rules = draw(_money_rules())
        length, score, crawford, holland = 0, (0, 0), False, False
    else:
        rules = Rules(max_cube=draw(st.sampled_from([None, 1, 4])))
        length = draw(st.integers(1, 9))
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = draw(st.booleans()) and [s == length - 1 for s in score].count(True) == 1
        holland = draw(st.booleans())
    if draw(st.booleans()):
        return Game(
            rules=rules,
            match_length=length,
            score=score,
            crawford=crawford,
            holland=holland,
            table=table,
            seed=seed,
        )
    turn = draw(st.integers(0, 1))
    position = _endgame_position(draw)
    mid = encode_match_id(
        MatchIdFields(
            dice_owner=turn,
            turn=turn,
            crawford=crawford,
            match_length=length,
            score=score,
            jacoby=rules.jacoby and length == 0,
        )
    )
    return Game.from_gnubg_id(f"{position.id}:{mid}", rules=rules, table=table, seed=seed)


# ------------------------------------------------------------------ contract checks


def attempt(snapshot: Callable[[], str], action: Callable[[], object]) -> bool:
    """Run ``action``; if it is refused, check the error class and that nothing changed.
    Returns whether it was accepted. Any other exception fails the test."""
    before = snapshot()
    try:
        action()
    except (BgfastError, TypeError) as e:
        assert str(e), f"{type(e).__name__} without a message"
        after = snapshot()
        assert after == before, f"a refused call ({type(e).__name__}: {e}) changed the state"
        return False
    return True


def _state(game: Game) -> tuple[Any, ...]:
    return (
        game.phase,
        game.turn,
        game.player_to_act,
        None if game.dice is None else tuple(sorted(game.dice)),
        game.position,
        game.score,
        game.match_length,
        game.crawford,
        game.resignation,
        game.offered_cube,
    )


def _cube_state(game: Game) -> tuple[Any, ...]:
    return (game.cube.value, game.cube.owner, game.offer_kind)


def check_game_ids(game: Game) -> None:
    """The interchange IDs of ``game``'s state are written, and read back as that state
    (or refused with a BgfastError: a state the format cannot hold)."""
    gid = game.gnubg_id()
    str(game)
    repr(game)
    game._repr_svg_()
    pos_id, mid = split_gnubg_id(gid)
    assert Position.from_id(pos_id) == game.position
    if game.phase in ("opening", "roll", "move", "doubled", "resign"):
        back = Game.from_gnubg_id(gid, rules=game.rules)
        assert back.gnubg_id() == gid
        assert decode_match_id(back.match_id()) == decode_match_id(mid)
        assert _state(back) == _state(game)
        # a Match ID holds a raccoon, or a beaver under a resignation, as a double
        exact = game.offer_kind != "raccoon" and not (game.offer_kind and game.resignation)
        if exact:
            assert _cube_state(back) == _cube_state(game)
    try:
        xgid = game.xgid()
    except GameStateError:
        assert game.turn is None or game.is_over
    else:
        back = Game.from_xgid(xgid)
        assert back.xgid() == xgid
        if game.resignation is None:  # an XGID has no resignation
            assert _state(back) == _state(game)
        assert (back.position, back.turn, back.dice, back.cube.value, back.cube.owner) == (
            game.position,
            game.turn,
            game.dice,
            game.cube.value,
            game.cube.owner,
        )
        assert (back.offer_kind, back.offered_cube, back.score, back.crawford) == (
            game.offer_kind,
            game.offered_cube,
            game.score,
            game.crawford,
        )
    try:
        line = game.fibs_board("bob", "alice")
    except GameStateError:  # no board before the opening roll or of a finished game
        assert game.turn is None or game.is_over
        return
    try:
        fibs = Game.from_fibs_board(line)
    except InvalidIdError:
        pass
    else:
        assert fibs.fibs_board("bob", "alice") == line
        assert fibs.position == game.position


class GameActions:
    """Every public action of a Game, each run through :func:`attempt`."""

    def target(self) -> Game:
        raise NotImplementedError

    def snapshot(self) -> str:
        raise NotImplementedError

    def accepted(self) -> None:
        raise NotImplementedError

    def do(self, action: Callable[[], object]) -> None:
        if attempt(self.snapshot, action):
            self.accepted()

    @rule(dice=st.one_of(st.none(), GOOD_DICE, GOOD_DICE, BAD_DICE, WRONG_TYPES))
    def roll(self, dice: Any) -> None:
        self.do(lambda: self.target().roll(dice))

    # one rule per action, so that each is as likely as any other rule
    @rule()
    def double(self) -> None:
        self.do(self.target().double)

    @rule()
    def take(self) -> None:
        self.do(self.target().take)

    @rule()
    def drop(self) -> None:
        self.do(self.target().drop)

    @rule()
    def beaver(self) -> None:
        self.do(self.target().beaver)

    @rule()
    def raccoon(self) -> None:
        self.do(self.target().raccoon)

    @rule()
    def undo(self) -> None:
        self.do(self.target().undo)

    @rule()
    def commit(self) -> None:
        self.do(self.target().commit)

    @rule()
    def call(self) -> None:
        self.do(self.target().call)

    @rule()
    def close(self) -> None:
        self.do(self.target().close)

    @rule(animals=st.integers(0, 3), take=st.booleans())
    def cube_exchange(self, animals: int, take: bool) -> None:
        """Double, beaver and raccoon as far as ``animals`` goes, then take or drop."""
        game = self.target()
        for action in [game.double, game.beaver, game.raccoon, game.beaver][: animals + 1]:
            self.do(action)
        self.do(game.take if take else game.drop)

    @rule(accept=st.booleans())
    def answer_resignation(self, accept: bool) -> None:
        game = self.target()
        self.do(game.accept if accept else game.reject)

    @rule(data=st.data(), play=st.booleans(), as_text=st.booleans())
    def legal_move(self, data: st.DataObject, play: bool, as_text: bool) -> None:
        game = self.target()
        if game.phase != "move":
            return
        move = data.draw(st.sampled_from(game.legal_moves()))
        arg = str(move) if as_text else move
        self.do(lambda: (game.play if play else game.move)(arg))

    @rule(text=st.one_of(MOVE_TEXT, WRONG_TYPES), play=st.booleans())
    def any_move(self, text: Any, play: bool) -> None:
        game = self.target()
        self.do(lambda: (game.play if play else game.move)(text))

    @rule(data=st.data())
    def physical_move(self, data: st.DataObject) -> None:
        """A move that is physically possible but usually not legal: a checker moved by a
        distance not rolled, or every checker borne off at once (table mode records it,
        R31; strict mode refuses it)."""
        game = self.target()
        if game.phase != "move" or game.turn is None:
            return
        row = game.board()[game.turn]
        points = [p + 1 for p in range(24) for _ in range(int(row[p]))]
        if row[24]:
            text = f"bar/{data.draw(st.integers(19, 24))}"
        elif points and len(points) <= 4 and data.draw(st.booleans()):
            text = " ".join(f"{p}/off" for p in points)
        elif points:
            start = data.draw(st.sampled_from(points))
            text = f"{start}/{data.draw(st.integers(0, start - 1)) or 'off'}"
        else:
            return
        self.do(lambda: game.play(text))

    @rule(kind=KIND_ARGS, player=PLAYER_ARGS)
    def resign(self, kind: Any, player: Any) -> None:
        self.do(lambda: self.target().resign(kind, player))

    @rule(steps=st.integers(1, 12))
    def advance(self, steps: int) -> None:
        """Play on with the first legal move, to reach the later phases of a game."""
        for _ in range(steps):
            game = self.target()
            if game.phase in ("opening", "roll"):
                self.do(game.roll)
            elif game.phase == "move":
                self.do(lambda g=game: g.play(g.legal_moves()[0]))
            else:
                return

    @rule()
    def inspect(self) -> None:
        game = self.target()
        for name in ("legal_moves", "why_not_double", "may_double", "board", "pips", "history"):
            self.do(lambda n=name: (lambda v: v() if callable(v) else v)(getattr(game, n)))


class GameMachine(GameActions, RuleBasedStateMachine):
    game: Game

    @initialize(game=games())
    def start(self, game: Game) -> None:
        self.game = game
        self.accepted()

    def target(self) -> Game:
        return self.game

    def snapshot(self) -> str:
        return self.game.to_json()

    def accepted(self) -> None:
        text = self.game.to_json()
        back = Game.from_json(text)
        assert back == self.game
        assert back.to_json() == text

    @invariant()
    def ids(self) -> None:
        if hasattr(self, "game"):
            check_game_ids(self.game)


class MatchMachine(GameActions, RuleBasedStateMachine):
    match: Match

    @initialize(
        length=st.integers(1, 5),
        holland=st.booleans(),
        table=st.booleans(),
        seed=st.integers(0, 2**64 - 1),
    )
    def start(self, length: int, holland: bool, table: bool, seed: int) -> None:
        self.match = Match(length, holland=holland, table=table, seed=seed)
        self.match.new_game()

    def target(self) -> Game:
        game = self.match.game
        assert game is not None
        return game

    def snapshot(self) -> str:
        return self.match.to_json()

    def accepted(self) -> None:
        text = self.match.to_json()
        back = Match.from_json(text)
        assert back == self.match
        assert back.to_json() == text

    @rule()
    def new_game(self) -> None:
        self.do(self.match.new_game)

    @rule(data=st.data(), name=st.sampled_from(["call", "close", "roll", "double", "resign"]))
    def act_on_an_earlier_game(self, data: st.DataObject, name: str) -> None:
        game = data.draw(st.sampled_from(self.match.games))
        self.do(getattr(game, name))

    @rule(player=st.sampled_from([0, 1, 2, None, True]), table=st.sampled_from([None, "nope"]))
    def equity(self, player: Any, table: Any) -> None:
        self.do(lambda: self.match.equity(player, table))
        self.do(lambda: self.match.away(player))

    @invariant()
    def agrees_with_its_games(self) -> None:
        if not hasattr(self, "match"):
            return
        m = self.match
        game = m.game
        assert game is not None
        if not game.is_over:
            assert (game.crawford, game.post_crawford) == (m.crawford, m.post_crawford)
            assert game.score == m.score
        assert all(g.closed for g in m.games[:-1])
        assert m.winner is None or max(m.score) >= m.length
        check_game_ids(game)


# ------------------------------------------------------------------ Chouette

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]
ANSWERS = st.sampled_from(["take", "pass", "take", "pass", "drop", None, 1])


class ChouetteMachine(RuleBasedStateMachine):
    chouette: Chouette

    @initialize(
        players=st.integers(3, 5),
        form=st.sampled_from(["team-cube", "per-member-cubes"]),
        jacoby=st.booleans(),
        gammons=st.booleans(),
        bg_double=st.booleans(),
        seed=st.integers(0, 2**32),
    )
    def start(
        self, players: int, form: Any, jacoby: bool, gammons: bool, bg_double: bool, seed: int
    ) -> None:
        self.chouette = Chouette(
            NAMES[:players],
            form,
            rng=seed,
            jacoby=jacoby,
            gammons=gammons,
            backgammon_as_double=bg_double,
        )

    def snapshot(self) -> str:
        return self.chouette.to_json()

    def do(self, action: Callable[[], object]) -> None:
        if attempt(self.snapshot, action):
            text = self.chouette.to_json()
            back = Chouette.from_json(text)
            assert back == self.chouette
            assert back.to_json() == text
            assert self.chouette._invariant_violations() == []

    def _members(self, data: st.DataObject) -> list[Any]:
        c = self.chouette
        pool = [*c.active_members, *c.active_members, c.box, "Zed", 3]
        return data.draw(st.lists(st.sampled_from(pool), max_size=4))

    @rule()
    def start_game(self) -> None:
        self.do(self.chouette.start_game)

    @rule(data=st.data(), everyone=st.booleans(), answer=ANSWERS)
    def team_double(self, data: st.DataObject, everyone: bool, answer: Any) -> None:
        agreeing = list(self.chouette.active_members) if everyone else self._members(data)
        self.do(lambda: self.chouette.team_double(agreeing, answer))

    @rule(data=st.data(), answer=ANSWERS)
    def member_double(self, data: st.DataObject, answer: Any) -> None:
        pool = [*self.chouette.active_members, self.chouette.box, "Zed", None]
        member = data.draw(st.sampled_from(pool))
        self.do(lambda: self.chouette.member_double(member, answer))

    @rule(data=st.data(), doublable=st.booleans())
    def box_double(self, data: st.DataObject, doublable: bool) -> None:
        c = self.chouette
        members = list(c.members_box_may_double()) if doublable else self._members(data)
        answers = {m: data.draw(ANSWERS) for m in members}
        self.do(lambda: c.box_double(answers))

    @rule(
        winner=st.sampled_from(["box", "team", "team", "nobody", None]),
        kind=st.sampled_from([*KINDS, *KINDS, "double", None]),
        cubes=st.sampled_from(["recorded", None, None, "wrong", "garbage"]),
    )
    def end_game(self, winner: Any, kind: Any, cubes: Any) -> None:
        c = self.chouette
        given: Any = None
        if cubes == "recorded" and c.in_game:
            given = {m: c.cube(m).value for m in c.active_members}
        elif cubes == "wrong" and c.in_game:
            given = {m: c.cube(m).value * 2 for m in c.active_members}
        elif cubes == "garbage":
            given = [1, 2]
        self.do(lambda: c.end_game(winner, kind, given))

    @rule(doubles=st.integers(1, 20))
    def many_doubles(self, doubles: int) -> None:
        """Double and take back and forth: the cube reaches its limit (32768)."""
        c = self.chouette
        for _ in range(doubles):
            if not c.in_game:
                return
            box = list(c.members_box_may_double())
            if box:
                self.do(lambda b=box: c.box_double({m: "take" for m in b}))
            elif c.form == "team-cube":
                self.do(lambda: c.team_double(c.active_members, "take"))
            else:
                for m in c.members_who_may_double():
                    self.do(lambda m=m: c.member_double(m, "take"))

    @rule()
    def inspect(self) -> None:
        c = self.chouette
        for member in [None, *c.active_members, c.box, "Zed"]:
            self.do(lambda m=member: c.cube(m))
        repr(c)
        assert sum(c.balances.values()) == 0


TestGameMachine = GameMachine.TestCase
TestGameMachine.settings = SETTINGS
TestMatchMachine = MatchMachine.TestCase
TestMatchMachine.settings = SETTINGS
TestChouetteMachine = ChouetteMachine.TestCase
TestChouetteMachine.settings = SETTINGS
