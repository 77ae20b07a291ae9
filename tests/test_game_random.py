"""Random play through the whole Game API: never an invalid state, scores only grow, JSON
round-trips; and 1,000 games between two random players, played to the end."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bgfast
from bgfast.game import Game
from bgfast.match import Match
from bgfast.scoring import Rules

RULE_SETS = [
    Rules(),
    Rules(jacoby=True, beavers=True, raccoons=True, auto_doubles=1),
    Rules(backgammon_counts_double=True, max_cube=8),
]


def random_action(game: Game, rng: random.Random) -> None:
    """One valid action chosen at random, as a player (or both at the opening) would."""
    phase = game.phase
    if phase == "opening":
        game.roll()
    elif phase == "roll":
        r = rng.random()
        if r < 0.01:
            game.resign(rng.choice(["single", "gammon", "backgammon"]))
        elif r < 0.15 and game.may_double():
            game.double()
        else:
            game.roll()
    elif phase == "doubled":
        options: list[Callable[[], None]] = [game.take, game.take, game.drop]
        if game.rules.beavers and game.offer_kind == "double":
            options.append(game.beaver)
        if game.rules.raccoons and game.offer_kind == "beaver":
            options.append(game.raccoon)
        offered = game.offered_cube or 0
        if offered * 2 > game.cube.max_value:
            options = [game.take, game.drop]
        rng.choice(options)()
    elif phase == "move":
        moves = game.legal_moves()
        if rng.random() < 0.05:  # R29: try one move, take it back, play another
            game.move(rng.choice(moves))
            game.undo()
        game.play(rng.choice(moves))
    elif phase == "resign":
        game.accept() if rng.random() < 0.5 else game.reject()


def check_invariants(game: Game) -> None:
    board = game.board()
    assert board.shape == (2, 25)
    for p in (0, 1):
        assert board[p].sum() <= 15
    for i in range(24):  # a point holds one colour (R6)
        assert not (board[0, i] and board[1, 23 - i])
    assert (game.result is None) == (game.phase != "over")
    if game.phase == "move":
        assert game.dice is not None and game.legal_moves()
    else:
        assert game.dice is None or game.phase == "resign"
    if game.phase == "doubled":
        assert game.offered_cube is not None and game.offered_cube <= game.cube.max_value
    if game.phase in ("roll", "move", "doubled", "resign"):
        assert game.turn in (0, 1) and game.player_to_act in (0, 1)
    if game.result is not None:
        assert game.result.points >= 1
    assert game.cube.value <= game.cube.max_value
    game.match_id()


def test_thousand_random_games_to_the_end() -> None:
    """Two random players, 1,000 games through the API, each to a result (R15, R16, R19)."""
    rng = random.Random(20261129)
    ends = {"bear-off": 0, "drop": 0, "resign": 0}
    for n in range(1000):
        game = Game(rules=RULE_SETS[n % 3], seed=n)
        steps = 0
        while not game.is_over:
            random_action(game, rng)
            steps += 1
            assert steps < 5000, "a game that never ends"
        assert game.result is not None and game.result.points >= 1
        ends[game.result.reason] += 1
    assert all(ends.values()), ends


ACTIONS = [
    "roll",
    "double",
    "take",
    "drop",
    "beaver",
    "raccoon",
    "move",
    "undo",
    "commit",
    "call",
    "resign",
    "accept",
    "reject",
    "play",
]
WEIGHTED = [*ACTIONS, "roll", "roll", "play", "play", "play", "take"]  # so games progress


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(RULE_SETS),
    table=st.booleans(),
    choices=st.lists(st.tuples(st.sampled_from(WEIGHTED), st.integers(0, 10**6)), max_size=150),
)
def test_any_action_sequence_keeps_a_valid_state(
    seed: int, rules: Rules, table: bool, choices: list[tuple[str, int]]
) -> None:
    """Any sequence of calls, valid or not: refused calls raise a BgfastError and change
    nothing; accepted ones keep every invariant; the result reloads from JSON exactly."""
    game = Game(rules=rules, seed=seed, table=table)
    for action, k in choices:
        before = json.dumps(game.to_dict(), sort_keys=True)
        try:
            if action in ("move", "play"):
                moves = game.legal_moves() if game.phase == "move" else []
                text = str(moves[k % len(moves)]) if moves and k % 7 else f"24/{k % 24}"
                getattr(game, action)(text)
            elif action == "resign":
                game.resign(["single", "gammon", "backgammon"][k % 3])  # type: ignore[arg-type]
            else:
                getattr(game, action)()
        except bgfast.BgfastError:
            assert json.dumps(game.to_dict(), sort_keys=True) == before
        check_invariants(game)
    assert Game.from_json(game.to_json()) == game


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), length=st.sampled_from([1, 3, 5, 7]))
def test_match_scores_only_grow(seed: int, length: int) -> None:
    rng = random.Random(seed)
    match = Match(length, seed=seed)
    last = (0, 0)
    while not match.is_over:
        game = match.new_game()
        assert game.score == last
        while not game.is_over:
            random_action(game, rng)
        score = match.score
        assert score[0] >= last[0] and score[1] >= last[1] and sum(score) > sum(last)
        last = score
    assert Match.from_json(match.to_json()) == match


def test_ids_round_trip_in_every_state_of_random_games() -> None:
    """Every state met in random play (money and match) is written to a GNUbg ID and an XGID
    and read back to the same IDs."""
    rng = random.Random(7)
    checked = 0
    for n in range(24):
        game = Match(7, seed=n).new_game() if n % 2 else Game(rules=RULE_SETS[n % 3], seed=n)
        while not game.is_over:
            random_action(game, rng)
            if game.is_over or game.staged_move is not None:
                continue
            if game.offer_kind == "raccoon":  # a Match ID cannot tell it from a double
                assert game.xgid().split(":")[4] == "R"
                continue
            gid = game.gnubg_id()
            rules = (
                Rules(
                    jacoby=game.rules.jacoby,
                    beavers=game.rules.beavers,
                    raccoons=game.rules.raccoons,
                    max_cube=game.rules.max_cube,
                )
                if not game.match_length
                else None
            )
            assert Game.from_gnubg_id(gid, rules=rules).gnubg_id() == gid
            if game.phase != "resign" and game.turn is not None:
                xgid = game.xgid()
                assert Game.from_xgid(xgid).xgid() == xgid
            checked += 1
    assert checked > 400
