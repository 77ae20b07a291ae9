"""Hardening of the Python game layer: regression tests for defects found by review and by
the stateful / decoder fuzz tests (tests/test_game_stateful.py, tests/test_decoders_fuzz.py).

The contract: a bad input raises a ``bgfast.BgfastError`` subclass (or ``TypeError`` for a
wrong type) naming what is wrong, and a rejected call changes no state.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bgfast import Game, Match
from bgfast.errors_game import GameStateError
from bgfast.persist import checksum

# ------------------------------------------------------------------ helpers


def _finish(game: Game, *, illegal_bear_off: bool) -> None:
    """Play ``game`` to its end with the first legal move each turn; with
    ``illegal_bear_off`` the winner's last move bears off three checkers with a
    non-double, which table mode records although R8 forbids it."""
    while not game.is_over:
        if game.phase in ("opening", "roll"):
            game.roll()
            continue
        assert game.phase == "move" and game.dice is not None and game.turn is not None
        row = game.board()[game.turn]
        points = [p + 1 for p in range(24) for _ in range(int(row[p]))]
        if (
            illegal_bear_off
            and row[24] == 0
            and 0 < len(points) <= 3
            and game.dice[0] != game.dice[1]
            and game.table
        ):
            game.play(" ".join(f"{p}/off" for p in points))
        else:
            game.play(game.legal_moves()[0])


def _match_with_an_illegal_win() -> tuple[Match, Game]:
    """A table-mode 7-point match whose first game was won by an illegal bear-off."""
    for seed in range(50):
        match = Match(7, table=True, seed=seed)
        game = match.new_game()
        _finish(game, illegal_bear_off=True)
        if game.last_move_illegal:
            return match, game
    raise AssertionError("no seed gave an illegal bear-off")


def _reseal(doc: dict[str, Any], prefix: str = "") -> str:
    """``doc`` as saved text with its checksum recomputed (an edit that a checksum cannot
    catch: the loaders must find it by replaying)."""
    doc.pop("checksum", None)
    return json.dumps({**doc, "checksum": prefix + checksum(doc)})


# ------------------------------------------------------------------ item 1: R31 and the next game


def test_r31_call_refused_once_the_next_game_of_the_match_exists() -> None:
    match, first = _match_with_an_illegal_win()
    score = match.score
    match.new_game()
    before = match.to_json()
    with pytest.raises(GameStateError, match="R31"):
        first.call()
    assert match.to_json() == before
    assert match.score == score and first.is_over
    assert Match.from_json(match.to_json()) == match


def test_r31_call_allowed_before_the_next_game_then_match_goes_on() -> None:
    match, first = _match_with_an_illegal_win()
    first.call()
    assert match.score == (0, 0) and not first.is_over
    assert Match.from_json(match.to_json()) == match
    with pytest.raises(GameStateError, match="not over"):
        match.new_game()


def test_r31_match_loads_an_old_save_without_the_close_event() -> None:
    """Matches saved before a new game closed the previous one load, closed."""
    match, first = _match_with_an_illegal_win()
    old_record = first.to_dict()  # as saved before games were closed
    match.new_game()
    doc = json.loads(match.to_json())
    assert doc["games"][0]["events"][-1] == {"type": "close"}
    doc["games"][0] = old_record
    loaded = Match.from_json(_reseal(doc))
    assert loaded.games[0].closed and loaded.score == match.score
    with pytest.raises(GameStateError, match="R31"):
        loaded.games[0].call()


def test_close_is_refused_unless_the_game_is_over() -> None:
    game = Game(seed=1)
    before = game.to_json()
    with pytest.raises(GameStateError):
        game.close()
    assert game.to_json() == before
