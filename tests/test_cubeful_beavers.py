"""Cube actions named as GNU Backgammon names them: beavers (R19) and ties.

A beaver may be passed by the doubler (R19: ``Game.drop`` answers a pending beaver with a
pass), which costs the doubler 2 units of the cube now: a
beaver is worth ``min(-2 DT, 2)`` to the taker and beats a plain take only for
``-2 <= DT < 0``. gnubg (``FindBestCubeDecision``), money with beavers, when
``DP > DT >= ND`` and the taker would beaver: "no double, beaver" if ``2 DT < ND`` (the
double would be beavered), else "double, beaver". A double worth exactly not doubling is
a double there ("double, pass" for a certain win).
"""

from __future__ import annotations

import pytest

from bgfast import analysis, cubeful


def test_a_take_past_twice_the_cube_is_no_beaver() -> None:
    # gnubg, money, beavers on: "No double, take" at double/take -2.13.
    d = cubeful.decide([0.25868, 0.01788, 0.0, 0.42216, 0.01004], beavers=True)
    assert d.double_take < -2.0
    assert (d.action, d.answer) == ("no double", "take")


@pytest.mark.parametrize(
    "double_take, answer",
    [(-0.5, "beaver"), (-2.0, "beaver"), (-2.0001, "take"), (0.0, "take"), (0.3, "take")],
)
def test_the_taker_beavers_only_within_twice_the_cube(double_take: float, answer: str) -> None:
    assert cubeful.answer_name(double_take, 1.0, True) == answer
    assert cubeful.answer_name(double_take, 1.0, False) == "take"  # no beavers
    assert cubeful.answer_name(1.0, 1.0, True) == "pass"  # a take no better than a pass


def test_no_double_beaver_and_double_beaver() -> None:
    name = cubeful.action_name
    # DP > DT >= ND, the taker would beaver: 2 DT = -0.6 < ND = -0.5, so no double.
    assert name(-0.5, -0.3, 1.0, redouble=False, beavers=True) == "no double, beaver"
    assert name(-0.5, -0.3, 1.0, redouble=True, beavers=True) == "no redouble, beaver"
    # 2 DT = -0.6 >= ND = -0.7: doubling is right even though the taker beavers.
    assert name(-0.7, -0.3, 1.0, redouble=False, beavers=True) == "double, beaver"
    # Without beavers both are plain doubles.
    assert name(-0.5, -0.3, 1.0, redouble=False, beavers=False) == "double, take"
    # The decision agrees, and its value is not doubling's.
    assert not cubeful.doubles_now(-0.5, -0.3, 1.0, beaver=True)
    assert cubeful.doubles_now(-0.7, -0.3, 1.0, beaver=True)
    assert cubeful.doubles_now(-0.5, -0.3, 1.0, beaver=False)


def test_a_tie_is_a_double() -> None:
    """gnubg doubles when DT >= ND and DP >= ND: a certain win with no gammon is "Double,
    pass" (gnubg: no double and double/pass both +1.000), not "no double"."""
    assert cubeful.action_name(1.0, 2.0, 1.0, redouble=False, beavers=False) == "double, pass"
    d = cubeful.decide([1.0, 0.0, 0.0, 0.0, 0.0])
    assert (d.no_double, d.double_pass, d.action, d.value) == (1.0, 1.0, "double, pass", 1.0)
    # Gammons to play for: too good.
    assert cubeful.decide([1.0, 0.3, 0.0, 0.0, 0.0]).action == "too good to double"


def test_analysis_charges_a_double_that_would_be_beavered() -> None:
    """The analysis's best action is the named one; a double the taker beavers is worth
    twice the take to the doubler (gnubg's count)."""
    # No double, beaver: not doubling is best; doubling loses ND - 2 DT = 0.1.
    assert analysis._doubling(False, -0.5, -0.3, 1.0, True) == ("no double, beaver", 0.0, True)
    best, loss, _ = analysis._doubling(True, -0.5, -0.3, 1.0, True)
    assert best == "no double, beaver" and loss == pytest.approx(0.1)
    # Double, beaver: doubling is best; not doubling loses 2 DT - ND = 0.1.
    best, loss, _ = analysis._doubling(False, -0.7, -0.3, 1.0, True)
    assert best == "double, beaver" and loss == pytest.approx(0.1)
    assert analysis._doubling(True, -0.7, -0.3, 1.0, True)[1] == 0.0
    # Without beavers the same values are a double, take.
    best, loss, _ = analysis._doubling(False, -0.5, -0.3, 1.0, False)
    assert best == "double, take" and loss == pytest.approx(0.2)
    # Too good and the tie.
    assert analysis._doubling(False, 1.3, 2.6, 1.0, False)[0] == "too good"
    assert analysis._doubling(False, 1.0, 2.0, 1.0, False) == ("double, pass", 0.0, True)
