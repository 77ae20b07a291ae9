"""bgfast's rollouts beside GNU Backgammon's own (the Debian program): the same race
positions and settings give the same equities within their errors and a few hundredths
(the nets differ); the table over contact positions is in BENCHMARKS.md
(``benches/rollout_vs_gnubg.py``)."""

from __future__ import annotations

import math

import pytest

import bgfast

import gnubg_program

#: Races from the wildbg race corpus, close in pips.
RACES = ["yr+TAADO9gMGAA", "260TCADbm8MAAA"]


@pytest.mark.parametrize("position", RACES)
def test_race_rollouts_agree_with_gnubg(position: str) -> None:
    games = 2592
    values, errors = gnubg_program.rollout(position, trials=games, cubeful=True)
    ours = bgfast.rollout(position, games=games, seed=1, cubeful=True)
    assert values.cubeful is not None and errors.cubeful is not None
    assert ours.cubeful_equity is not None
    cubeless = math.hypot(errors.cubeless, ours.stderr["equity"])
    assert abs(ours.equity - values.cubeless) < 3 * cubeless + 0.03
    cubeful = math.hypot(errors.cubeful, ours.stderr["cubeful_equity"])
    # GNU Backgammon uses a cube life of 0.6-0.7 in races, bgfast 0.68 throughout.
    assert abs(ours.cubeful_equity - values.cubeful) < 3 * cubeful + 0.05
    assert ours.win == pytest.approx(
        values.win, abs=3 * math.hypot(errors.win, ours.stderr["win"]) + 0.02
    )
