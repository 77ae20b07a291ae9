"""A fifth adversarial pass over the cube model and the gnubg external player, as changed on
2026-12-03 (matches without the Crawford rule, ``Stakes.for_opponent``,
the value of a play for the side that made it, the external player's plays by the cubeful value
at the board's stakes): each regression test failed before its fix; the others pin what
the pass tried and found sound (odd but readable boards, the model cache under many
threads, the batched model against ``cubeful.decide_for`` without the Crawford rule).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import threading
from typing import Any

import numpy as np
import pytest
from gnubg_external import board_line, state_to_act
from hypothesis import given, settings
from hypothesis import strategies as st

from bgfast import BgfastError, Game, Position, _core, cubeful
from bgfast.cubeful import DEFAULT_CUBE_LIFE, Stakes
from bgfast.errors import MatchOptionError
from bgfast.serve_gnubg import ExternalPlayer, state_from_external_board

CHANCES = [0.6, 0.2, 0.01, 0.1, 0.01]

# ---------------------------------------------------------------------------- the stakes

NONSENSE: list[tuple[dict[str, Any], str]] = [
    ({"cube_value": 3}, "power of two"),
    ({"cube_value": 0}, "power of two"),
    ({"cube_value": 1 << 16, "cube_owner": "mover"}, "above 32768"),
    ({"cube_value": 2.0, "cube_owner": "mover"}, "power of two"),
    ({"cube_owner": "nobody"}, "owner"),
    ({"jacoby": "yes"}, "jacoby"),
    ({"match_length": -5}, "match_length"),
    ({"score": (3, 1)}, "no match score"),
    ({"crawford": True}, "crawford needs match_length"),
    ({"crawford_rule": False}, "match setting"),
    ({"met": "nosuch"}, "unknown match equity table"),
    ({"match_length": 5, "score": (7, 0)}, "already won"),
    ({"match_length": 5, "score": (-3, 0)}, "non-negative"),
    ({"match_length": 100}, "points away"),
    ({"match_length": 5, "crawford": "x"}, "crawford must be True or False"),
    ({"match_length": 5, "crawford_rule": "x"}, "crawford_rule must be True or False"),
    ({"match_length": 5, "crawford": True}, "exactly one side 1-away"),
    ({"match_length": 5, "score": (4, 0), "crawford": True, "crawford_rule": False}, "no Crawford"),
    ({"match_length": 5, "cube_value": 2}, "centred cube is at 1"),
    ({"match_length": 5, "jacoby": True}, "money-play option"),
]


def _money(**changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "cube_value": 1,
        "cube_owner": "centred",
        "jacoby": False,
        "beavers": False,
        "match_length": 0,
        "score": (0, 0),
        "crawford": False,
        "met": "kazaross-xg2",
    }
    return {**fields, **changes}


@pytest.mark.parametrize(("changes", "named"), NONSENSE, ids=[str(c) for c, _ in NONSENSE])
def test_stakes_built_by_hand_are_checked_as_check_checks_them(
    changes: dict[str, Any], named: str
) -> None:
    """The dataclass's constructor took anything: a cube of 3, an owner "nobody" or a score
    past the match gave cube values and match-winning chances without meaning (the batched
    model answered them all, ``emg`` divided by zero, ``for_opponent`` raised KeyError)."""
    with pytest.raises(BgfastError, match=named):
        Stakes(**_money(**changes))
    good = Stakes.check(cube=(2, "mover"), match_length=7, score=(2, 4))
    with pytest.raises(MatchOptionError):  # dataclasses.replace builds one by hand too
        dataclasses.replace(good, cube_value=5)


def test_stakes_built_by_hand_are_spelled_as_check_spells_them() -> None:
    by_hand = Stakes(
        1, "centered", False, np.bool_(False), 5, [1, 0], np.bool_(False), "KAZAROSS-XG2"
    )
    assert by_hand == Stakes.check(match_length=5, score=(1, 0))
    assert hash(by_hand) == hash(Stakes.check(match_length=5, score=(1, 0)))
    assert type(by_hand.beavers) is bool and by_hand.score == (1, 0)


@pytest.mark.parametrize(
    "arguments",
    [
        {"crawford": np.array([True, False])},
        {"crawford": ""},
        {"crawford": 0},
        {"match_length": 5, "score": (4, 2), "crawford_rule": False, "crawford": 0},
        {"match_length": 5, "score": (4, 2), "crawford_rule": False, "crawford": ""},
        {
            "match_length": 5,
            "score": (4, 2),
            "crawford_rule": False,
            "crawford": np.array([True, False]),
        },
    ],
    ids=repr,
)
def test_crawford_is_a_flag_wherever_it_is_given(arguments: dict[str, Any]) -> None:
    """In money play and in a match without the Crawford rule, ``crawford`` was read by its
    truth: 0 and "" passed, an array raised numpy's ValueError."""
    with pytest.raises(MatchOptionError, match="crawford must be True or False"):
        cubeful.decide(CHANCES, **arguments)


@pytest.mark.parametrize("flag", [1, 0, "no", "False", None, 1.0, np.array([False])], ids=repr)
def test_crawford_rule_is_a_flag(flag: object) -> None:
    with pytest.raises(MatchOptionError, match="crawford_rule must be True or False"):
        cubeful.decide(CHANCES, match_length=5, score=(4, 2), crawford_rule=flag)  # type: ignore[arg-type]


def test_numpy_flags_are_flags() -> None:
    for rule in (True, False):
        plain = cubeful.decide(
            CHANCES, match_length=5, score=(4, 2), crawford=False, crawford_rule=rule
        )
        numpy = cubeful.decide(
            CHANCES,
            match_length=5,
            score=(4, 2),
            crawford_rule=np.bool_(rule),  # type: ignore[arg-type]
            crawford=np.bool_(False),  # type: ignore[arg-type]
        )
        assert plain == numpy


@pytest.mark.parametrize("state", ["4HPwATDgc/ABMA", None, Game(seed=1)], ids=repr)
def test_the_stakes_of_a_state_need_a_state(state: object) -> None:
    """An ID or a Game was an AttributeError."""
    with pytest.raises(TypeError, match="state must be a bgfast GameState"):
        Stakes.of_state(state)  # type: ignore[arg-type]


def test_a_crawford_state_has_no_stakes_without_the_crawford_rule() -> None:
    game = Game(match_length=5, score=(4, 1), crawford=True, seed=1)
    game.roll()
    assert game.state.crawford
    assert Stakes.of_state(game.state).crawford
    with pytest.raises(MatchOptionError, match="no Crawford game"):
        Stakes.of_state(game.state, crawford_rule=False)


@st.composite
def _stakes(draw: st.DrawFn) -> Stakes:
    if draw(st.booleans()):
        owner = draw(st.sampled_from(["centred", "mover", "opponent"]))
        value = draw(st.sampled_from([1, 2, 64, 32768]))
        return Stakes.check(
            cube=(value, owner), jacoby=draw(st.booleans()), beavers=draw(st.booleans())
        )
    met = draw(st.sampled_from(["kazaross-xg2", "woolsey", "rockwell-kazaross"]))
    length = draw(st.integers(1, 15 if met == "woolsey" else 25))
    score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
    crawford_rule = draw(st.booleans())
    crawford = draw(st.sampled_from([None, False]))  # None at 1-away: the Crawford game
    one_away = [length - s for s in score].count(1) == 1
    is_crawford = crawford is None and crawford_rule and one_away
    owner = "centred" if is_crawford else draw(st.sampled_from(["centred", "mover", "opponent"]))
    value = 1 if owner == "centred" else draw(st.sampled_from([2, 4, 32768]))
    return Stakes.check(
        cube=(value, owner),
        match_length=length,
        score=score,
        crawford=crawford,
        crawford_rule=crawford_rule,
        met=met,
    )


@st.composite
def _chances(draw: st.DrawFn) -> np.ndarray:
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        win = draw(st.floats(0.0, 1.0))
        wg = win * draw(st.floats(0.0, 1.0))
        lg = (1.0 - win) * draw(st.floats(0.0, 1.0))
        rows.append([win, wg, wg * draw(st.floats(0.0, 1.0)), lg, lg * draw(st.floats(0.0, 1.0))])
    rows += [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 1, 1]]
    return np.array(rows, dtype=np.float32).astype(np.float64)


@settings(max_examples=200, deadline=None)
@given(_stakes(), _chances(), st.sampled_from([0.0, 0.68, 1.0]))
def test_the_other_sides_value_is_the_opponents_decision_turned_round(
    stakes: Stakes, p: np.ndarray, life: float
) -> None:
    """``for_opponent`` is its own inverse and the stakes ``check`` gives for the swapped
    score and owner; ``value_for_the_side_that_moved`` is ``decide_for`` at the opponent's
    stakes, turned round, row by row (with and without the Crawford rule)."""
    theirs = stakes.for_opponent()
    assert theirs.for_opponent() == stakes
    owner = {"centred": "centred", "mover": "opponent", "opponent": "mover"}
    assert theirs == Stakes.check(
        cube=(stakes.cube_value, owner[stakes.cube_owner]),
        jacoby=stakes.jacoby,
        beavers=stakes.beavers,
        match_length=stakes.match_length,
        score=stakes.score[::-1],
        crawford=stakes.crawford if stakes.is_match else None,
        met=stakes.met,
        crawford_rule=stakes.crawford_rule,
    )
    mine = cubeful.value_for_the_side_that_moved(p, theirs, life)
    for k, row in enumerate(p):
        value = cubeful.decide_for(row, theirs, life).value
        assert mine[k] == pytest.approx(1.0 - value if stakes.is_match else -value, abs=1e-6)


@pytest.mark.parametrize("length", [1, 2, 3, 5])
def test_the_batched_model_is_cubefuls_at_every_score_without_the_crawford_rule(
    length: int,
) -> None:
    """Every score of short matches (where the 1-away rewrite of the table matters most),
    every cube the score allows: ``cubeful.cube_values`` against ``cubeful.decide_for``."""
    rng = np.random.default_rng(length)
    rows = []
    for _ in range(12):
        win, a, b, c, d = rng.random(5)
        rows.append([win, win * a, win * a * b, (1 - win) * c, (1 - win) * c * d])
    p = np.array(rows, dtype=np.float32).astype(np.float64)
    for score in itertools.product(range(length), repeat=2):
        for value, owner in [(1, "centred"), (2, "mover"), (2, "opponent"), (8, "opponent")]:
            stakes = Stakes.check(
                cube=(value, owner), match_length=length, score=score, crawford_rule=False
            )
            assert not stakes.crawford
            values = cubeful.cube_values(p, stakes, DEFAULT_CUBE_LIFE)[:, 3]
            for k, row in enumerate(p):
                decision = cubeful.decide_for(row, stakes, DEFAULT_CUBE_LIFE)
                assert values[k] == pytest.approx(decision.value, abs=1e-6)


# ---------------------------------------------------------------------------- the player


def _assert_legal_or_clean(player: ExternalPlayer, line: str) -> str:
    """The reply to ``line``: a clean ``Error (...)``, or an answer legal for its board."""
    reply = player.reply(line)
    assert "internal error" not in reply, reply
    if reply.startswith("Error ("):
        return reply
    state = state_from_external_board(line)
    if state.phase == "move":
        assert state.dice is not None
        state.position.play(reply, state.dice)  # raises for an illegal play
    elif state.phase == "roll":
        assert reply in ("roll", "double")
        assert reply == "roll" or state.why_not_double() is None
    else:
        assert reply in ("take", "drop")
    return reply


OPENING = Position.from_id("4HPwATDgc/ABMA")
ONE_LEFT = Position.from_array(
    [[1] + [0] * 24, [0] * 5 + [2, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 5] + [0] * 7]
)
CLOSED_OUT = Position.from_array([[0] * 24 + [2], [2, 2, 2, 2, 2, 2] + [0] * 6 + [3] + [0] * 12])

ODD: list[tuple[Position, dict[str, Any]]] = [
    (OPENING, {"cube": (32768, 0)}),  # money, the cube at its limit, the player's
    (OPENING, {"cube": (32768, 1)}),
    (OPENING, {"match_length": 25}),  # the longest the table covers
    (OPENING, {"match_length": 32767, "score": (32766, 32750)}),  # 1-away and 17-away
    (OPENING, {"match_length": 32767, "score": (32750, 32766), "crawford": True}),
    (OPENING, {"match_length": 7, "score": (6, 0), "cube": (2, 1)}),  # post-Crawford
    (OPENING, {"match_length": 7, "score": (0, 6), "cube": (4, 0)}),
    (OPENING, {"match_length": 7, "score": (6, 6), "cube": (2, 0)}),  # a dead cube
    (OPENING, {"match_length": 1}),
    (ONE_LEFT, {}),
    (ONE_LEFT, {"match_length": 7, "score": (6, 0), "crawford": True}),
    (ONE_LEFT, {"cube": (32768, 1)}),
    (CLOSED_OUT, {"match_length": 3, "score": (2, 2)}),
    (CLOSED_OUT, {"cube": (32768, 0)}),
]


@pytest.mark.parametrize(("position", "stakes"), ODD, ids=[str(s) for _, s in ODD])
@pytest.mark.parametrize("policy", ["wildbg", "pubeval"])
def test_odd_stakes_get_legal_answers(
    position: Position, stakes: dict[str, Any], policy: str
) -> None:
    player = ExternalPlayer(policy)
    for dice in [None, (6, 5), (1, 1), (2, 1), (6, 6)]:
        reply = _assert_legal_or_clean(player, board_line(state_to_act(position, dice, **stakes)))
        assert not reply.startswith("Error ("), reply
    if position is CLOSED_OUT:
        assert player.reply(board_line(state_to_act(position, (6, 6), **stakes))) == ""


TO_ROLL = (
    "board:gnubg:root:5:0:2:0:-1:0:0:-1:0:5:0:3:0:0:0:-5:6:0:0:0:-3:0:-5:0:0:0:0:1:0:-1"
    ":0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)


def _edited(line: str, **fields: object) -> str:
    """``line`` with its fields ``f<N>`` (N counted from ``board`` as 0) replaced."""
    parts = line.split(":")
    for name, value in fields.items():
        parts[int(name[1:])] = str(value)
    return ":".join(parts)


@pytest.mark.parametrize(
    "fields",
    [
        {"f3": 31},  # a match past the table: 31-away
        {"f3": 32767, "f4": 0, "f5": 32750},
        {"f3": 9999, "f4": 500, "f5": 100, "f37": 64, "f38": 1, "f39": 0},  # unlimited
        {"f3": 5, "f4": 4, "f5": 0, "f37": 2, "f38": 1, "f39": 0},  # a cube in the Crawford game
        {"f3": 5, "f4": 4, "f5": 0, "f38": 0, "f39": 1},  # Crawford, "owned" by either side
        {"f3": 5, "f4": 4, "f5": 0, "f38": 1, "f39": 0},
        {"f3": 5, "f4": 2, "f5": 0, "f51": 1},  # post-Crawford with nobody 1-away
        {"f3": 5, "f4": 4, "f5": 4, "f51": 1},
        {"f3": 5, "f4": 4, "f5": 0, "f50": 3},  # FIBS's no-Crawford flag
        {"f3": 7, "f4": 3, "f5": 5, "f37": 2, "f38": 1, "f39": 1, "f40": -1},
        {"f3": 0, "f37": 32768, "f38": 0, "f39": 1, "f40": -1},  # a double past the limit
        {"f3": 0, "f37": 16384, "f38": 0, "f39": 1, "f40": -1},
        {"f3": 0, "f37": 32768, "f38": 1, "f39": 0},
    ],
    ids=repr,
)
@pytest.mark.parametrize("policy", ["wildbg", "pubeval"])
def test_odd_boards_are_answered_or_refused_cleanly(fields: dict[str, object], policy: str) -> None:
    player = ExternalPlayer(policy)
    for dice in ("0:0:0:0", "6:5:6:5", "1:1:1:1"):
        parts = _edited(TO_ROLL, **fields).split(":")
        parts[33:37] = dice.split(":")
        _assert_legal_or_clean(player, ":".join(parts))


@pytest.mark.parametrize(
    "arguments",
    [
        {"jacoby": "no"},
        {"jacoby": np.array([True, False])},
        {"seed": -5},
        {"seed": 2**70},
        {"seed": 1.5},
        {"seed": True},
    ],
    ids=repr,
)
def test_the_players_options_are_checked(arguments: dict[str, Any]) -> None:
    """``jacoby`` was read by its truth ("no" turned the Jacoby rule on, an array raised
    numpy's ValueError); a seed out of 0..2**64 - 1 made every play of the random policy
    an "internal error" answer."""
    with pytest.raises((BgfastError, TypeError)):
        ExternalPlayer("random", **arguments)


def test_the_random_policys_seeds_go_round_after_the_last() -> None:
    """From the highest seed, the second play's seed was 2**64: an "internal error"."""
    line = board_line(state_to_act(OPENING, (6, 5)))
    player = ExternalPlayer("random", seed=2**64 - 1)
    replies = [_assert_legal_or_clean(player, line) for _ in range(4)]
    assert not any(r.startswith("Error (") for r in replies)
    assert replies[1:] == [ExternalPlayer("random", seed=k).reply(line) for k in range(3)]


@pytest.mark.parametrize("line", [b"board:", None, 5], ids=repr)
def test_a_line_that_is_not_a_str_is_a_type_error(line: object) -> None:
    with pytest.raises(TypeError, match="a line is a str"):
        ExternalPlayer("pubeval").reply(line)  # type: ignore[arg-type]


def _boards_of_many_stakes() -> list[str]:
    lines = []
    position, dice = Position.from_id("bD4HQwBvbgcIAA"), (6, 3)
    for length in (3, 5, 7, 9, 11, 25):
        for mine, theirs in [(0, 0), (length - 1, 0), (0, length - 1), (1, 2)]:
            one_away = [length - s == 1 for s in (mine, theirs)].count(True) == 1
            for cube in [(1, None), (2, 0), (2, 1), (4, 1)]:
                # a centred cube at 1-away: the Crawford game; a turned one: post-Crawford
                crawford = one_away and cube == (1, None)
                lines.append(
                    board_line(
                        state_to_act(
                            position,
                            dice,
                            cube=cube,
                            match_length=length,
                            score=(mine, theirs),
                            crawford=crawford,
                        )
                    )
                )
    for value in (1, 2, 4, 8, 16, 32768):
        for owner in (None, 0, 1) if value > 1 else (None,):
            lines.append(board_line(state_to_act(position, dice, cube=(value, owner))))
    return lines


def test_the_model_cache_is_safe_and_bounded_under_many_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many threads asking one player for plays at distinct stakes get the answers one
    thread gets, while the cube models' cache (kept small here) drops models under them
    again and again."""
    lines = _boards_of_many_stakes()
    assert len(lines) > 60
    want = [ExternalPlayer("wildbg").reply(line) for line in lines]
    assert not any(w.startswith("Error (") for w in want)

    def model(stakes: Stakes, life: float) -> _core.CubeModel:
        return _core.CubeModel(stakes.cube(), stakes.native(), life)

    small = functools.lru_cache(maxsize=5)(model)
    monkeypatch.setattr(cubeful, "_model", small)
    player = ExternalPlayer("wildbg")
    got: dict[int, list[str]] = {}
    failures: list[BaseException] = []
    start = threading.Barrier(16)

    def client(k: int) -> None:
        try:
            start.wait()
            order = list(range(len(lines)))[k:] + list(range(len(lines)))[:k]
            answers = {i: player.reply(lines[i]) for i in order}
            got[k] = [answers[i] for i in range(len(lines))]
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures
    assert got == {k: want for k in range(16)}
    assert small.cache_info().currsize <= 5 and small.cache_info().misses > 5
    monkeypatch.undo()
    assert cubeful._model.cache_info().maxsize == cubeful.STAKES_KEPT
