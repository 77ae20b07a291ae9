"""Every action a :class:`bgfast.Game` refuses names itself and says why in a player's words,
with the rule id where one applies: ``take: no double to answer (the game is at its opening
roll; R19)``, not ``not possible in phase 'opening' (allowed in: doubled)``.

Each phase is reached by play; each action is tried in it, and the refusal must be a
:class:`~bgfast.GameStateError` (the class is part of the API) that starts with the
action's name, cites the expected rule, says nothing of the internal phase names, and
changes nothing. The match and the chouette name their refused actions the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bgfast import Chouette, Game, GameState, GameStateError, Match, Position
from bgfast.errors import IllegalChouetteActionError
from bgfast.scoring import Rules

# ------------------------------------------------------------------ the phases, by play


def _opening() -> Game:
    return Game(seed=1, rules=Rules(beavers=True, raccoons=True))


def _roll() -> Game:
    game = _opening()
    game.roll((3, 1))
    game.play("8/5 6/5")
    return game  # player 1 on roll, before rolling


def _move() -> Game:
    game = _opening()
    game.roll((3, 1))
    return game  # player 0 to play 3-1, nothing staged


def _doubled() -> Game:
    game = _roll()
    game.double()
    return game


def _resign() -> Game:
    game = _roll()
    game.resign("gammon")
    return game


def _over_drop() -> Game:
    game = _doubled()
    game.drop()
    return game


def _over_resign() -> Game:
    game = _resign()
    game.accept()
    return game


def _over_bear_off() -> Game:
    board = np.zeros((2, 25), dtype=np.uint8)
    board[0, 0] = 1  # player 0's last checker, on its 1-point
    board[1, 12] = 15  # player 1's checkers on its 13-point: a gammon
    state = GameState.start(position=Position.from_array(board))
    game = Game.from_state(state, seed=1)
    game.roll((2, 1))  # player 0 opens (2 beats 1) and bears off
    game.play("1/off")
    assert game.is_over and game.result is not None and game.result.reason == "bear-off"
    return game


PHASES: dict[str, Callable[[], Game]] = {
    "opening": _opening,
    "roll": _roll,
    "move": _move,
    "doubled": _doubled,
    "resign": _resign,
    "over by a drop": _over_drop,
    "over by a resignation": _over_resign,
    "over by bearing off": _over_bear_off,
}

ACTIONS: dict[str, Callable[[Game], object]] = {
    "roll": lambda g: g.roll((6, 5)),
    "double": lambda g: g.double(),
    "take": lambda g: g.take(),
    "drop": lambda g: g.drop(),
    "beaver": lambda g: g.beaver(),
    "raccoon": lambda g: g.raccoon(),
    "move": lambda g: g.move("8/5 6/5"),
    "play": lambda g: g.play("8/5 6/5"),
    "undo": lambda g: g.undo(),
    "commit": lambda g: g.commit(),
    "call": lambda g: g.call(),
    "close": lambda g: g.close(),
    "resign": lambda g: g.resign(),
    "accept": lambda g: g.accept(),
    "reject": lambda g: g.reject(),
    "legal_moves": lambda g: g.legal_moves(),
}

# What each phase allows; every other action is refused.
ALLOWED: dict[str, set[str]] = {
    "opening": {"roll"},
    "roll": {"roll", "double", "resign"},
    "move": {"move", "play", "resign", "legal_moves"},
    "doubled": {"take", "drop", "beaver", "resign"},
    "resign": {"accept", "reject"},
    "over by a drop": {"close"},
    "over by a resignation": {"close"},
    "over by bearing off": {"close"},
}

_ANSWERS = {"take", "drop", "beaver", "raccoon"}


def _rule(phase: str, action: str) -> str | None:
    """The rule id a refusal of ``action`` in ``phase`` must cite, or ``None`` (no rule
    forbids it: answering a resignation that is not there, for one)."""
    if action == "call":
        return "R31"  # a call comes before the next roll, and only of an illegal move
    if phase == "over by a drop" and action != "close":
        return "R19"  # a pass ends the game
    if phase == "over by bearing off" and action != "close":
        return "R15"
    if phase in ("over by a resignation", "resign") or action in ("close", "accept", "reject"):
        return None
    if phase == "doubled":
        return "R19"  # answer the double first
    if action in _ANSWERS:
        return "R19"
    if action in ("undo", "commit"):
        return "R29"
    if action == "double":
        return "R18"
    if action == "roll":
        return "R30"  # only in the move phase: the dice are not picked up yet
    if action in ("move", "play", "legal_moves", "resign"):
        return "R3" if phase == "opening" else None
    raise AssertionError(f"no expectation for {action} in {phase}")


REFUSED = [
    (phase, action)
    for phase in PHASES
    for action in ACTIONS
    if action not in ALLOWED[phase] and not (phase == "doubled" and action == "raccoon")
]


@pytest.mark.parametrize(("phase", "action"), REFUSED)
def test_a_refused_action_names_itself_and_the_rule(phase: str, action: str) -> None:
    game = PHASES[phase]()
    before = game.to_json()
    with pytest.raises(GameStateError) as refused:
        ACTIONS[action](game)
    message = str(refused.value)
    assert type(refused.value) is GameStateError
    assert message.startswith(f"{action}: "), message
    rule = _rule(phase, action)
    if rule is not None:
        assert rule in message, message
    # Words a player understands: no internal phase names, no list of allowed phases.
    assert "phase" not in message and "allowed in" not in message, message
    assert game.to_json() == before


@pytest.mark.parametrize("phase", list(PHASES))
def test_every_allowed_action_is_allowed(phase: str) -> None:
    """The table above is the game's: what it allows, the game does."""
    for action in ALLOWED[phase]:
        ACTIONS[action](PHASES[phase]())


def test_the_reported_messages() -> None:
    """The user's report: ``Game(seed=1).take()`` said ``not possible in phase 'opening'
    (allowed in: doubled)``."""
    with pytest.raises(GameStateError) as refused:
        Game(seed=1).take()
    assert str(refused.value) == "take: no double to answer (the game is at its opening roll; R19)"
    game = _move()
    with pytest.raises(GameStateError) as refused:
        game.commit()
    assert str(refused.value) == "commit: no move staged to commit (player 0 is to play 3-1; R29)"
    with pytest.raises(GameStateError, match=r"^undo: .* committed move is final, R29\)$"):
        _roll().undo()
    with pytest.raises(GameStateError, match=r"^roll: too early: player 0 is still to play 3-1"):
        game.roll()
    with pytest.raises(GameStateError) as refused:
        _over_drop().take()
    assert str(refused.value) == (
        "take: the game is over: player 0 passed a double, so player 1 won 1 point (R19)"
    )
    with pytest.raises(GameStateError) as refused:
        _over_bear_off().roll()
    assert str(refused.value) == (
        "roll: the game is over: player 0 bore off all checkers and won a gammon, 2 points (R15)"
    )


def test_a_raccoon_without_a_beaver_names_itself() -> None:
    game = _doubled()
    with pytest.raises(GameStateError, match=r"^raccoon: a raccoon answers a beaver, not a double"):
        game.raccoon()


def test_a_bad_resignation_names_the_action() -> None:
    game = _roll()
    with pytest.raises(GameStateError, match=r"^resign: a player is 0 or 1, not 2"):
        game.resign("single", 2)
    with pytest.raises(GameStateError, match=r"^resign: R16: a kind of win"):
        game.resign("triple")  # type: ignore[arg-type]


def test_from_state_of_a_finished_game_says_how_it_ended() -> None:
    state = _over_drop().state
    with pytest.raises(GameStateError, match=r"^from_state: .*: player 0 passed a double, .*R19"):
        Game.from_state(state)


def test_match_refusals_name_the_action() -> None:
    money = Match(0, seed=1)
    with pytest.raises(GameStateError, match=r"^away: .*R20"):
        money.away(0)
    with pytest.raises(GameStateError, match=r"^equity: .*R20"):
        money.equity(0)
    match = Match(1, seed=1)
    game = match.new_game()
    with pytest.raises(
        GameStateError, match=r"^new_game: the current game \(game 1\) is not over yet: .*R15"
    ):
        match.new_game()
    game.roll((3, 1))
    game.play("8/5 6/5")
    game.resign()  # player 1 resigns a single game: the match's one point
    game.accept()
    with pytest.raises(GameStateError, match=r"^new_game: the match is over: .*R20"):
        match.new_game()


def test_chouette_refusals_name_the_action() -> None:
    c = Chouette(["A", "B", "C"], "team-cube", rolls={"A": 6, "B": 4, "C": 2})
    refusals: dict[str, Callable[[], object]] = {
        "roll": lambda: c.roll((3, 1)),
        "move": lambda: c.move("8/5 6/5"),
        "undo": c.undo,
        "commit": c.commit,
        "end_game": lambda: c.end_game("box"),
        "team_double": lambda: c.team_double(c.active_members, "take"),
        "box_double": lambda: c.box_double({"B": "take"}),
        "cube": c.cube,
    }
    for name, act in refusals.items():
        with pytest.raises(IllegalChouetteActionError, match=rf"^{name}: no game in progress"):
            act()
    c.start_game()
    c.roll((5, 2))  # the box opens and is to play
    with pytest.raises(
        IllegalChouetteActionError,
        match=r"^box_double: R18: .* before rolling; the box is to play 5-2$",
    ):
        c.box_double({m: "take" for m in c.active_members})
    with pytest.raises(GameStateError, match=r"^commit: no move staged to commit .*R29"):
        c.commit()  # the board's own refusal
