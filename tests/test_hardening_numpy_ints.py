"""Adversarial pass on numpy integers in the Python layer (CHANGELOG: "Numpy integers are
taken wherever the game layer takes an int ... kept as the Python ints they stand for").

Each entry point that takes an int is called with the int and with numpy integers of
several dtypes (signed and unsigned, narrow and wide): the answers must be the same, and
what is kept must be a Python ``int`` (saves go through ``json``). Booleans (Python's and
numpy's), floats and strings are refused: a ``BgfastError`` in the game layer, a
``TypeError`` where the native ``check_int`` is the gate (rollouts, duels, VecEnv, perft),
and a refused call changes nothing. A 0-d integer array stands for its int everywhere,
as the native checks have always taken it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import bearoff, cubeful, met, policies, scoring
from bgfast.cube import Cube
from bgfast.errors import BgfastError
from bgfast.vocab import MAX_MATCH_LENGTH, as_int

DTYPES = (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64)
CHANCES = [0.6, 0.2, 0.01, 0.1, 0.01]
PLAYERS = ["ann", "bob", "cy"]


def numpy_forms(value: int) -> list[Any]:
    """``value`` as every numpy integer dtype of :data:`DTYPES` that can hold it."""
    return [dtype(value) for dtype in DTYPES if np.iinfo(dtype).min <= value <= np.iinfo(dtype).max]


def plain_ints_only(data: object) -> None:
    """Every number in ``data`` (a to_dict/to_json result) is a Python int, float or bool:
    no numpy scalar or array slipped through to be saved."""
    if isinstance(data, dict):
        for key, item in data.items():
            plain_ints_only(key)
            plain_ints_only(item)
    elif isinstance(data, (list, tuple)):
        for item in data:
            plain_ints_only(item)
    else:
        assert data is None or type(data) in (int, float, bool, str), repr(data)


NOT_INTS: list[Any] = [True, False, np.bool_(True), np.bool_(False), 3.0, np.float64(2.0), "3"]


# ---------------------------------------------------------------- as_int itself


@pytest.mark.parametrize("value", [0, 1, -1, 127, 255, 2**63, 2**64 - 1, -(2**63)])
def test_as_int_gives_the_python_int_of_every_dtype_that_holds_the_value(value: int) -> None:
    for form in [value, *numpy_forms(value)]:
        got = as_int(form)
        assert got == value and type(got) is int


@pytest.mark.parametrize("value", [*NOT_INTS, None, np.array([3]), np.array(3.0), 3 + 0j])
def test_as_int_refuses_bools_floats_strings_and_arrays(value: object) -> None:
    assert as_int(value) is None


def test_as_int_takes_a_0d_integer_array_as_the_native_checks_do() -> None:
    assert as_int(np.array(3)) == 3 and type(as_int(np.array(3))) is int
    assert as_int(np.array(True)) is None


# ---------------------------------------------------------------- seeds (|seed| < 2**64)


@pytest.mark.parametrize("seed", [0, 1, 2**31, 2**63 - 1, 2**63, 2**64 - 1, -1, -(2**63)])
def test_r20_game_and_match_seeds_keep_the_int_at_the_64_bit_edges(seed: int) -> None:
    for form in numpy_forms(seed):
        game = bgfast.Game(seed=form)
        assert type(game.seed) is int and game.seed == seed
        twin = bgfast.Game(seed=seed)
        assert game.to_json() == twin.to_json()
        match = bgfast.Match(3, seed=form)
        assert type(match.seed) is int and match.to_json() == bgfast.Match(3, seed=seed).to_json()
        state = bgfast.Game(seed=1).state
        assert bgfast.Game.from_state(state, seed=form).seed == seed


@pytest.mark.parametrize("seed", [np.uint64(2**64 - 1), np.int64(-(2**63))])
def test_edge_seeds_roll_the_same_dice_as_their_ints(seed: Any) -> None:
    game, twin = bgfast.Game(seed=seed), bgfast.Game(seed=int(seed))
    assert [game.roll() for _ in range(1)] == [twin.roll()]
    assert game.to_json() == twin.to_json()
    assert bgfast.Game.from_json(game.to_json()).to_json() == twin.to_json()


def test_a_seed_of_64_bits_or_more_is_refused_whatever_its_form() -> None:
    for seed in (2**64, -(2**64), 2**100):
        with pytest.raises(bgfast.MatchOptionError, match=r"\|seed\| < 2\*\*64"):
            bgfast.Game(seed=seed)


# ---------------------------------------------------------------- lengths, scores, rules


@pytest.mark.parametrize("length", [0, 1, 7, 25, 127, 255, MAX_MATCH_LENGTH])
def test_r20_match_lengths_from_numpy_are_kept_as_ints(length: int) -> None:
    for form in numpy_forms(length):
        match = bgfast.Match(form, seed=5)
        assert type(match.length) is int and match.length == length
        assert match.to_json() == bgfast.Match(length, seed=5).to_json()
        if length <= met.load(met.DEFAULT_TABLE).max_away:  # the stakes need the table
            stakes = cubeful.Stakes.check(match_length=form)
            assert stakes == cubeful.Stakes.check(match_length=length)
            assert type(stakes.match_length) is int


@pytest.mark.parametrize("length", [-1, MAX_MATCH_LENGTH + 1])
def test_r20_a_length_out_of_range_is_refused_alike_from_numpy(length: int) -> None:
    for form in [length, *numpy_forms(length)]:
        with pytest.raises(bgfast.MatchOptionError, match=r"0 \(money\) to 32767 points \(R20\)"):
            bgfast.Match(form, seed=1)


@pytest.mark.parametrize("mine", [0, 1, 6])
def test_r20_scores_from_numpy_are_kept_as_ints(mine: int) -> None:
    plain = bgfast.Game(match_length=7, score=(mine, 0), seed=2)
    for form in numpy_forms(mine):
        game = bgfast.Game(match_length=7, score=(form, np.uint8(0)), seed=2)  # type: ignore[arg-type]
        assert game.score == (mine, 0) and all(type(s) is int for s in game.score)
        assert game.to_json() == plain.to_json()
        stakes = cubeful.Stakes.check(match_length=np.int64(7), score=(form, np.int8(0)))
        assert stakes.score == (mine, 0) and all(type(s) is int for s in stakes.score)


def test_r20_negative_or_finished_scores_are_refused_alike_from_numpy() -> None:
    for bad in (np.int8(-1), np.int64(-1), np.int64(7), np.uint64(7)):
        with pytest.raises(bgfast.MatchOptionError, match="score"):
            bgfast.Game(match_length=7, score=(bad, 0), seed=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(("max_cube", "autos"), [(1, 0), (8, 2), (64, 14), (32768, 1)])
def test_r17_r22_rules_keep_ints_for_numpy_cube_limits_and_auto_doubles(
    max_cube: int, autos: int
) -> None:
    plain = bgfast.Rules(max_cube=max_cube, auto_doubles=autos)
    for cap in numpy_forms(max_cube):
        for auto in numpy_forms(autos):
            rules = bgfast.Rules(max_cube=cap, auto_doubles=auto)
            assert rules == plain
            assert type(rules.max_cube) is int and type(rules.auto_doubles) is int
            plain_ints_only(rules.to_dict())
    assert scoring.crawford_allowed(np.int64(5), (np.int8(4), np.uint8(0))) == (  # type: ignore[arg-type]
        scoring.crawford_allowed(5, (4, 0))
    )


def test_r22_auto_doubles_past_the_limit_are_refused_alike_from_numpy() -> None:
    for bad in (15, np.int8(15), np.uint8(15), np.int64(-1)):
        with pytest.raises(bgfast.MatchOptionError, match=r"auto_doubles must be 0\.\.14"):
            bgfast.Rules(auto_doubles=bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- game states and players


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_game_states_turns_auto_doubles_and_dice_from_numpy_are_saved_as_ints(
    dtype: Any,
) -> None:
    game = bgfast.Game(rules=bgfast.Rules(auto_doubles=1), seed=4)
    game.roll(3, 1)
    state = game.state
    moment = state.replace(
        turns_played=(dtype(1), dtype(0)), auto_doubles=dtype(0), dice=(dtype(3), dtype(1))
    )
    assert moment.to_dict() == state.replace(turns_played=(1, 0)).to_dict()
    plain_ints_only(moment.to_dict())
    json.dumps(moment.to_dict())
    assert moment.turn is not None
    assert state.replace(turn=dtype(moment.turn)).to_dict() == state.to_dict()


@pytest.mark.parametrize("dtype", DTYPES)
def test_r1_players_from_numpy_give_the_same_answers(dtype: Any) -> None:
    match = bgfast.Match(5, seed=3)
    assert [match.away(dtype(p)) for p in (0, 1)] == [match.away(p) for p in (0, 1)]
    assert match.equity(dtype(1)) == match.equity(1)
    game = bgfast.Game(seed=3)
    assert game.svg(bottom=dtype(0)) == game.svg(bottom=0)
    cube = Cube(value=2, owner=1)
    assert [cube.may_double(dtype(p)) for p in (0, 1)] == [False, True]
    assert cube.why_not_double(dtype(0)) == cube.why_not_double(0)
    game.roll(3, 1)
    twin = bgfast.Game(seed=3)
    twin.roll(3, 1)
    game.resign("single", player=dtype(game.turn))
    twin.resign("single", player=game.turn)
    assert game.to_json() == twin.to_json()  # the event records the int


@pytest.mark.parametrize("dtype", DTYPES)
def test_r2_dice_from_numpy_are_rolled_and_saved_as_ints(dtype: Any) -> None:
    for dice in ((dtype(3), dtype(1)), np.array([3, 1], dtype=dtype)):
        game, twin = bgfast.Game(seed=8), bgfast.Game(seed=8)
        assert game.roll(dice) == twin.roll(3, 1)
        assert all(type(d) is int for d in game.dice or ())
        assert game.to_json() == twin.to_json()
    game = bgfast.Game(seed=8)
    game.roll(dtype(6), dtype(5))
    game.play(game.legal_moves()[0])
    game.roll(dtype(6), dtype(6))  # doubles after the opening roll (R3)
    assert game.dice == (6, 6) and all(type(d) is int for d in game.dice)
    plain_ints_only(json.loads(game.to_json()))


# ---------------------------------------------------------------- tables and cube decisions


@pytest.mark.parametrize("dtype", DTYPES)
def test_r20_met_equity_and_take_point_scores_from_numpy(dtype: Any) -> None:
    for mine, theirs in ((1, 1), (3, 5), (1, 7), (25, 25)):
        assert met.equity(dtype(mine), dtype(theirs)) == met.equity(mine, theirs)
    assert met.equity(dtype(1), dtype(5), post_crawford=True) == met.equity(
        1, 5, post_crawford=True
    )
    for doubler, taker in ((2, 4), (3, 3), (1, 2), (5, 2)):
        assert met.take_point(dtype(doubler), dtype(taker)) == met.take_point(doubler, taker)


# An unsigned cube once wrapped in take_point's arithmetic (uint8(2) gave an IndexError).
@pytest.mark.parametrize("dtype", DTYPES)
def test_r17_met_take_point_cube_from_numpy(dtype: Any) -> None:
    for cube in (1, 2, 4):
        assert met.take_point(5, 7, dtype(cube)) == met.take_point(5, 7, cube)


@pytest.mark.parametrize("dtype", DTYPES)
def test_r17_stakes_and_decide_take_numpy_cubes_and_limits(dtype: Any) -> None:
    for value, owner in ((1, "centred"), (2, "mover"), (64, "opponent")):
        given = cubeful.Stakes.check(cube=(dtype(value), owner), max_cube=dtype(64))
        plain = cubeful.Stakes.check(cube=(value, owner), max_cube=64)
        assert given == plain and type(given.cube_value) is int
        assert type(given.max_cube) is int
        assert cubeful.decide(CHANCES, cube=(dtype(value), owner), max_cube=dtype(64)) == (
            cubeful.decide(CHANCES, cube=(value, owner), max_cube=64)
        )
    assert cubeful.decide(CHANCES, match_length=dtype(5), score=(dtype(2), dtype(3))) == (
        cubeful.decide(CHANCES, match_length=5, score=(2, 3))
    )


# ---------------------------------------------------------------- chouettes (R24)


@pytest.mark.parametrize("dtype", DTYPES)
def test_r24_a_chouette_seated_and_rolled_with_numpy_saves_like_one_with_ints(
    dtype: Any,
) -> None:
    # ann and bob tie on 4 and roll again (R24): sequences of numpy dice, and a lone one.
    given = bgfast.Chouette(
        PLAYERS,
        rolls={"ann": [dtype(4), dtype(2)], "bob": (dtype(4), dtype(6)), "cy": dtype(1)},
    )
    plain = bgfast.Chouette(PLAYERS, rolls={"ann": (4, 2), "bob": (4, 6), "cy": 1})
    assert given.players == plain.players
    for chouette in (given, plain):
        chouette.start_game()
    given.roll(dtype(5), dtype(2))
    plain.roll(5, 2)
    assert given.to_json() == plain.to_json()
    plain_ints_only(json.loads(given.to_json()))
    assert bgfast.Chouette.from_json(given.to_json()).to_json() == plain.to_json()


# ---------------------------------------------------------------- refusals change nothing


def _game_on_roll() -> bgfast.Game:
    game = bgfast.Game(match_length=5, score=(1, 2), seed=6)
    game.roll(4, 2)
    game.play(game.legal_moves()[0])
    return game


GAME_CALLS: list[tuple[str, Callable[[bgfast.Game, Any], object]]] = [
    ("roll", lambda g, v: g.roll(v, 1)),
    ("roll pair", lambda g, v: g.roll((3, v))),
    ("resign", lambda g, v: g.resign("single", player=v)),
]


@pytest.mark.parametrize("value", NOT_INTS)
@pytest.mark.parametrize(("name", "call"), GAME_CALLS, ids=[n for n, _ in GAME_CALLS])
def test_bools_floats_and_strings_are_refused_by_a_game_which_is_left_as_it_was(
    name: str, call: Callable[[bgfast.Game, Any], object], value: object
) -> None:
    game = _game_on_roll()
    before = game.to_json()
    with pytest.raises(BgfastError):
        call(game, value)
    assert game.to_json() == before


@pytest.mark.parametrize("value", NOT_INTS)
def test_bools_floats_and_strings_are_refused_as_game_and_match_settings(value: object) -> None:
    with pytest.raises(bgfast.MatchOptionError, match="seed"):
        bgfast.Game(seed=value)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="seed"):
        bgfast.Match(5, seed=value)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="match_length"):
        bgfast.Game(match_length=value, seed=1)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="R20"):
        bgfast.Match(value, seed=1)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="score"):
        bgfast.Game(match_length=5, score=(value, 0), seed=1)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="auto_doubles must be an int"):
        bgfast.Rules(auto_doubles=value)  # type: ignore[arg-type]
    with pytest.raises(bgfast.MatchOptionError, match="max_cube"):
        bgfast.Rules(max_cube=value)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="must be an int"):
        met.equity(value, 3)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="power of two"):
        met.take_point(2, 4, value)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="power of two"):
        cubeful.decide(CHANCES, cube=(value, "mover"))  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="0 or 1"):
        bgfast.Match(5, seed=1).away(value)  # type: ignore[arg-type]
    with pytest.raises(BgfastError, match="0 or 1"):
        bgfast.Game(seed=1).svg(bottom=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [np.int8(-1), np.uint8(7), np.int64(7), np.uint64(2**63)])
def test_numpy_values_out_of_range_are_refused_like_their_ints_and_change_nothing(
    value: Any,
) -> None:
    game = _game_on_roll()
    before = game.to_json()
    calls: list[Callable[[Any], object]] = [
        lambda v: game.roll(v, 1),
        lambda v: game.resign("single", player=v),
    ]
    for call in calls:
        with pytest.raises(BgfastError) as as_int_error:
            call(int(value))
        with pytest.raises(type(as_int_error.value)) as numpy_error:
            call(value)
        assert game.to_json() == before
        # The same message, but for the value shown as given.
        said = str(numpy_error.value).replace(repr(value), str(int(value)))
        assert said == str(as_int_error.value)


@pytest.mark.parametrize("value", [True, np.bool_(True), 3.0, np.float64(3.0), np.int64(9)])
def test_r24_a_chouette_refuses_bad_dice_and_is_left_as_it_was(value: object) -> None:
    chouette = bgfast.Chouette(PLAYERS, rolls={"ann": 6, "bob": 5, "cy": 3})
    chouette.start_game()
    before = chouette.to_json()
    with pytest.raises(BgfastError):
        chouette.roll(value, 1)  # type: ignore[arg-type]
    assert chouette.to_json() == before
    with pytest.raises(bgfast.IllegalChouetteActionError, match="R24"):
        bgfast.Chouette(PLAYERS, rolls={"ann": value, "bob": 5, "cy": 3})  # type: ignore[dict-item]


def test_a_match_refusing_numpy_nonsense_is_left_as_it_was() -> None:
    match = bgfast.Match(np.int64(5), seed=np.uint64(2**63))  # type: ignore[arg-type]
    game = match.new_game()
    game.roll(np.int8(4), np.uint8(2))  # type: ignore[arg-type]
    before = match.to_json()
    for bad in (np.bool_(False), np.float64(1.0), np.int8(-1)):
        with pytest.raises(BgfastError):
            game.roll(bad, 1)  # type: ignore[arg-type]
        with pytest.raises(BgfastError):
            match.away(bad)  # type: ignore[arg-type]
    assert match.to_json() == before


# ---------------------------------------------------------------- saves


def _played_match(number: Callable[[int], Any], seed: int) -> bgfast.Match:
    """A 3-point match with a game on the board, every int given through ``number``."""
    rules = bgfast.Rules(max_cube=number(8))
    match = bgfast.Match(number(3), seed=number(seed), rules=rules)
    game = match.new_game()
    for dice in ((4, 2), (6, 5), (3, 3)):
        game.roll(number(dice[0]), number(dice[1]))
        game.play(game.legal_moves()[0])
    return match


@pytest.mark.parametrize(("dtype", "seed"), [(np.uint64, 2**63 + 5), (np.int64, -(2**63))])
def test_a_match_built_from_numpy_ints_saves_and_loads_as_one_built_from_ints(
    dtype: Any, seed: int
) -> None:
    plain, given = _played_match(int, seed), _played_match(dtype, seed)
    assert given.to_json() == plain.to_json()
    plain_ints_only(json.loads(given.to_json()))
    loaded = bgfast.Match.from_json(given.to_json())
    assert loaded.to_json() == plain.to_json()
    assert loaded.game is not None and plain.game is not None
    assert loaded.game.to_json() == plain.game.to_json()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64])
def test_a_game_built_from_numpy_ints_saves_and_loads_as_one_built_from_ints(
    dtype: Any,
) -> None:
    def build(number: Callable[[int], Any]) -> bgfast.Game:
        rules = bgfast.Rules(max_cube=number(16), auto_doubles=number(1))
        game = bgfast.Game(rules=rules, score=(number(0), number(0)), seed=number(250))
        game.roll(number(5), number(2))
        game.play(game.legal_moves()[0])
        return game

    plain, given = build(int), build(dtype)
    assert given.to_json() == plain.to_json()
    plain_ints_only(json.loads(given.to_json()))
    assert bgfast.Game.from_json(given.to_json()) == plain


def test_r24_a_chouette_from_numpy_saves_and_loads_as_one_from_ints() -> None:
    def build(number: Callable[[int], Any]) -> bgfast.Chouette:
        chouette = bgfast.Chouette(
            PLAYERS, rolls={"ann": number(2), "bob": [number(5)], "cy": (number(3),)}
        )
        chouette.start_game()
        chouette.roll(number(6), number(1))
        chouette.play(chouette.game.legal_moves()[0])  # type: ignore[union-attr]
        chouette.roll(np.array([number(4), number(4)]))
        return chouette

    plain, given = build(int), build(np.uint8)
    assert given.to_json() == plain.to_json()
    plain_ints_only(json.loads(given.to_json()))
    assert bgfast.Chouette.from_json(given.to_json()).to_json() == plain.to_json()


# ---------------------------------------------------------------- the native gates


@pytest.mark.parametrize("dtype", DTYPES)
def test_rollouts_duels_and_envs_take_numpy_counts_and_seeds(dtype: Any) -> None:
    start = bgfast.Position()

    def settled(result: Any) -> dict[str, Any]:
        data = dict(result.to_dict())
        for timing in ("seconds", "games_per_second"):
            data.pop(timing, None)
        return data

    given = bgfast.rollout(start, games=dtype(8), seed=dtype(7), policy="pubeval", threads=dtype(1))
    plain = bgfast.rollout(start, games=8, seed=7, policy="pubeval", threads=1)
    assert settled(given) == settled(plain)
    plain_ints_only(settled(given))
    duel = bgfast.duel("pubeval", "race", games=dtype(4), seed=dtype(3), threads=dtype(1))
    assert duel.counts == bgfast.duel("pubeval", "race", games=4, seed=3, threads=1).counts
    assert type(duel.seed) is int and json.dumps(duel.to_dict())
    assert str(policies.choose("pubeval", start, (dtype(3), dtype(1)), seed=dtype(5))) == str(
        policies.choose("pubeval", start, (3, 1), seed=5)
    )
    assert (
        bgfast.VecEnv(dtype(3), seed=dtype(9)).reset() == bgfast.VecEnv(3, seed=9).reset()
    ).all()
    assert bgfast.perft(start, dtype(1)) == bgfast.perft(start, 1)
    assert bearoff.position(dtype(5)) == bearoff.position(5)
    assert bearoff.best_play([2, 1, 0, 0, 0, 0], dtype(3), dtype(1)) == bearoff.best_play(
        [2, 1, 0, 0, 0, 0], 3, 1
    )


@pytest.mark.parametrize("value", [True, np.bool_(True), 2.0, np.float64(2.0), "2"])
def test_the_native_gates_refuse_bools_floats_and_strings_with_a_type_error(value: object) -> None:
    start = bgfast.Position()
    with pytest.raises(TypeError, match="seed must be an integer"):
        bgfast.rollout(start, games=4, seed=value, policy="pubeval", threads=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="games must be an integer"):
        bgfast.rollout(start, games=value, seed=1, policy="pubeval", threads=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="depth must be an integer"):
        bgfast.perft(start, value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be an integer"):
        bgfast.VecEnv(value, seed=1)  # type: ignore[arg-type]


# ---------------------------------------------------------------- 0-d arrays


ZERO_D_CALLS: list[tuple[str, Callable[[Any], object], object]] = [
    ("Game seed", lambda v: bgfast.Game(seed=v).seed, 3),
    ("Match length", lambda v: bgfast.Match(v, seed=1).length, 3),
    ("Game score", lambda v: bgfast.Game(match_length=5, score=(v, 0), seed=1).score, (3, 0)),
    ("Rules auto_doubles", lambda v: bgfast.Rules(auto_doubles=v).auto_doubles, 3),
    ("met.equity", lambda v: met.equity(v, 5), met.equity(3, 5)),
    ("Match.away", lambda v: bgfast.Match(5, seed=1).away(v - 2), 5),
    ("Game.roll", lambda v: bgfast.Game(seed=1).roll(v, 1), (3, 1)),
    ("Position.moves", lambda v: len(bgfast.Position().moves(v, 1)), 16),
    ("perft", lambda v: bgfast.perft(bgfast.Position(), v - 2), bgfast.perft(bgfast.Position(), 1)),
    (
        "Chouette rolls",
        lambda v: bgfast.Chouette(PLAYERS, rolls={"ann": v, "bob": 1, "cy": 2}).players[0],
        "ann",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "expected"), ZERO_D_CALLS, ids=[n for n, *_ in ZERO_D_CALLS]
)
def test_a_0d_array_stands_for_its_int(
    name: str, call: Callable[[Any], object], expected: object
) -> None:
    got = call(np.array(3))
    assert got == expected
    assert not isinstance(got, np.ndarray)
