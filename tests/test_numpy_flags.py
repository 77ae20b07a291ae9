"""Numpy booleans are flags everywhere and integers nowhere.

Every on/off option of :class:`~bgfast.Rules`, :class:`~bgfast.Match`,
:class:`~bgfast.Game`, :class:`~bgfast.cube.Cube`, :meth:`~bgfast.cubeful.Stakes.check` and
:class:`~bgfast.Chouette` goes through ``vocab.check_flag``: ``np.True_``/``np.False_`` are
taken and kept as Python bools (they are saved as JSON), while ``1``, ``0`` and ``"yes"``
are refused with the error class each took before. Every integer argument (dice, match
lengths, scores, games, seeds) refuses ``np.True_``, whichever numpy is installed: numpy
1.x gave ``np.bool_`` an ``__index__``, so ``vocab.as_int`` refuses it by name.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import vocab
from bgfast.cube import Cube
from bgfast.cubeful import Stakes
from bgfast.errors import BgfastError, IllegalChouetteActionError, MatchOptionError

PLAYERS = ["ann", "bob", "cy"]
NUMPY_FLAGS = (np.True_, np.False_)
NOT_FLAGS: tuple[object, ...] = (1, 0, "yes")


def _rules(name: str, value: object) -> Any:
    extra = {"beavers": True} if name == "raccoons" else {}
    return getattr(bgfast.Rules(**{name: value, **extra}), name)


def _match(name: str, value: object) -> Any:
    match = bgfast.Match(5, seed=1, **{name: value})
    saved = match.to_dict()
    if name == "crawford_rule":
        return match.crawford_rule
    assert json.loads(json.dumps(saved))[name] is bool(value)
    return match.holland if name == "holland" else match._table


def _game(name: str, value: object) -> Any:
    score = (4, 2) if name == "crawford" else (0, 0)
    game = bgfast.Game(match_length=5, score=score, seed=1, **{name: value})
    json.dumps(game.to_dict())  # a numpy bool would not be JSON
    return getattr(game, name)


def _cube(name: str, value: object) -> Any:
    extra = {"beavers": True} if name == "raccoons" else {}
    cube = Cube(**{name: value, **extra})
    json.dumps(cube.to_dict())
    return getattr(cube, name)


def _stakes(name: str, value: object) -> Any:
    match = {"match_length": 5, "score": (4, 2)} if name in ("crawford", "crawford_rule") else {}
    return getattr(Stakes.check(**{name: value, **match}), name)


def _chouette(name: str, value: object) -> Any:
    chouette = bgfast.Chouette(PLAYERS, rng=1, **{name: value})
    json.dumps(chouette.to_dict())
    if name in ("jacoby", "backgammon_counts_double"):
        assert getattr(chouette.rules, name) is bool(value)
    saved = "backgammon_as_double" if name == "backgammon_counts_double" else name
    return chouette.options[saved]


FLAGS: list[tuple[str, Callable[[str, object], Any], str, type[Exception]]] = [
    *[
        ("Rules", _rules, name, MatchOptionError)
        for name in ("backgammon_counts_double", "jacoby", "beavers", "raccoons")
    ],
    *[("Match", _match, name, MatchOptionError) for name in ("holland", "table", "crawford_rule")],
    *[("Game", _game, name, MatchOptionError) for name in ("crawford", "holland", "table")],
    *[("Cube", _cube, name, MatchOptionError) for name in ("enabled", "beavers", "raccoons")],
    *[
        ("Stakes.check", _stakes, name, MatchOptionError)
        for name in ("jacoby", "beavers", "backgammon_counts_double", "crawford_rule", "crawford")
    ],
    *[
        ("Chouette", _chouette, name, IllegalChouetteActionError)
        for name in ("jacoby", "gammons", "backgammon_counts_double")
    ],
]
FLAG_IDS = [f"{owner}-{name}" for owner, _, name, _ in FLAGS]


@pytest.mark.parametrize(("owner", "make", "name", "error"), FLAGS, ids=FLAG_IDS)
@pytest.mark.parametrize("flag", NUMPY_FLAGS, ids=repr)
def test_a_numpy_bool_is_a_flag_kept_as_a_python_bool(
    owner: str,
    make: Callable[[str, object], Any],
    name: str,
    error: type[Exception],
    flag: np.bool_,
) -> None:
    flag_kept = make(name, flag)
    assert type(flag_kept) is bool
    assert flag_kept is bool(flag)


@pytest.mark.parametrize(("owner", "make", "name", "error"), FLAGS, ids=FLAG_IDS)
@pytest.mark.parametrize("value", NOT_FLAGS, ids=repr)
def test_a_number_or_a_word_is_no_flag(
    owner: str,
    make: Callable[[str, object], Any],
    name: str,
    error: type[Exception],
    value: object,
) -> None:
    with pytest.raises(error, match=name):
        make(name, value)


def test_a_chouettes_older_option_name_takes_a_numpy_bool_too() -> None:
    chouette = bgfast.Chouette(PLAYERS, rng=1, backgammon_as_double=np.True_)
    assert chouette.options["backgammon_as_double"] is True
    assert chouette.rules.backgammon_counts_double is True
    with pytest.raises(IllegalChouetteActionError, match="must be a bool"):
        bgfast.Chouette(PLAYERS, rng=1, backgammon_as_double=1)


def test_rules_from_a_dict_take_numpy_bools_and_refuse_numbers() -> None:
    rules = bgfast.Rules.from_dict({"jacoby": np.True_, "beavers": np.False_})
    assert rules.jacoby is True and rules.beavers is False
    assert json.loads(json.dumps(rules.to_dict()))["jacoby"] is True
    with pytest.raises(MatchOptionError, match="rule option jacoby"):
        bgfast.Rules.from_dict({"jacoby": 1})


def test_numpy_and_python_flags_make_the_same_saves() -> None:
    assert bgfast.Rules(jacoby=np.True_) == bgfast.Rules(jacoby=True)
    assert Cube(beavers=np.True_, raccoons=np.True_) == Cube(beavers=True, raccoons=True)
    numpy_match = bgfast.Match(5, seed=2, holland=np.True_, table=np.True_)
    assert numpy_match.to_dict() == bgfast.Match(5, seed=2, holland=True, table=True).to_dict()
    numpy_game = bgfast.Game(match_length=5, score=(4, 2), crawford=np.True_, seed=3)
    assert (
        numpy_game.to_json()
        == bgfast.Game(match_length=5, score=(4, 2), crawford=True, seed=3).to_json()
    )


# ---------------------------------------------------------------------------- integers

INTEGER_CALLS: list[tuple[str, Callable[[object], object], type[Exception]]] = [
    ("Match length", lambda v: bgfast.Match(v), MatchOptionError),  # type: ignore[arg-type]
    ("Game match_length", lambda v: bgfast.Game(match_length=v), MatchOptionError),  # type: ignore[arg-type]
    ("Game score", lambda v: bgfast.Game(match_length=5, score=(v, 0)), MatchOptionError),  # type: ignore[arg-type]
    ("Game seed", lambda v: bgfast.Game(seed=v), MatchOptionError),  # type: ignore[arg-type]
    ("Match seed", lambda v: bgfast.Match(5, seed=v), MatchOptionError),  # type: ignore[arg-type]
    ("Rules auto_doubles", lambda v: bgfast.Rules(auto_doubles=v), MatchOptionError),  # type: ignore[arg-type]
    ("Rules max_cube", lambda v: bgfast.Rules(max_cube=v), MatchOptionError),  # type: ignore[arg-type]
    ("Cube value", lambda v: Cube(value=v), MatchOptionError),  # type: ignore[arg-type]
    ("Stakes match_length", lambda v: Stakes.check(match_length=v), MatchOptionError),
    ("Chouette rng", lambda v: bgfast.Chouette(PLAYERS, rng=v), IllegalChouetteActionError),
    ("Game.roll die", lambda v: bgfast.Game(seed=1).roll(v, 2), BgfastError),  # type: ignore[arg-type]
    ("Game.roll pair", lambda v: bgfast.Game(seed=1).roll((2, v)), BgfastError),  # type: ignore[arg-type]
    ("duel games", lambda v: bgfast.duel("pubeval", "random", games=v, seed=1), TypeError),  # type: ignore[arg-type]
    ("duel seed", lambda v: bgfast.duel("pubeval", "random", games=2, seed=v), TypeError),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(
    ("what", "call", "error"), INTEGER_CALLS, ids=[c[0] for c in INTEGER_CALLS]
)
def test_a_numpy_bool_is_no_integer(
    what: str, call: Callable[[object], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(np.True_)


def test_the_integer_gate_refuses_numpy_bools_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under numpy 1.x ``operator.index(np.True_)`` is 1: the gate must not rely on numpy
    refusing it. Played here with an ``index`` that takes numpy bools as numpy 1.x did."""

    def numpy1_index(value: object) -> int:
        if isinstance(value, np.bool_):
            return int(value)
        return int(value.__index__())  # type: ignore[attr-defined]

    monkeypatch.setattr(vocab, "operator", types.SimpleNamespace(index=numpy1_index))
    assert vocab.as_int(np.int64(3)) == 3
    for flag in (np.True_, np.False_, True):
        assert vocab.as_int(flag) is None
        assert vocab.as_int_or_same(flag) is flag
    with pytest.raises(MatchOptionError):
        vocab.check_match_length(np.True_, money=False)
    with pytest.raises(MatchOptionError):
        vocab.check_seed(np.True_)
    with pytest.raises(MatchOptionError):
        vocab.check_score((np.True_, 0), 5)
    with pytest.raises(BgfastError):
        vocab.check_player(np.True_)


def test_a_duel_of_numpy_games_counts_in_python_ints() -> None:
    """``games`` is the checked int: ``games // 2`` of a ``np.uint64`` was a float64 under
    numpy 1.x ("deals must be an integer")."""
    totals: list[object] = []
    result = bgfast.duel(
        "pubeval",
        "random",
        games=np.uint64(4),
        seed=3,
        threads=1,
        progress=lambda done, total: totals.append(total),
    )
    assert result.games == 4 and type(result.games) is int
    assert totals and all(type(total) is int and total == 4 for total in totals)
