"""``bgfast.analyse`` beside GNU Backgammon's own 0-ply analysis (``analyse match``, ``show
statistics match``) of the matches in ``tests/data/matches``, which the program played
against itself with one player's evaluations blurred by noise.

The two programs judge with different nets (wildbg's and GNU Backgammon's), so their
numbers differ; what must hold: both count the same plays, both rate the noisy player
worse than the clean one, and the error rates are of the same size. GNU Backgammon finds no
error at all in its own clean player's plays (it made them with the net that judges them);
wildbg's net disagrees with some of them, which is the floor of bgfast's rates. Measured
over twelve matches (BENCHMARKS.md), with the default net (``Net.wildbg()``) bgfast's rate
for the noisy player is 1.7 to 2.8 times GNU Backgammon's, about 2 in the median (the bound
below is 3); judged by wildbg's larger nets (``Net.wildbg_large()``) it is 1.2 to 1.5 times
(the bound is 2, the issue's).
"""

from __future__ import annotations

import gnubg_matches
import pytest
from test_matfiles import fixture

from bgfast import Match, Net, analyse

#: Match file -> the noisy player (tests/gnubg_matches.py FIXTURES).
NOISY = {"noisy_7pt_seed1": 0, "noisy_7pt_seed2": 1, "noisy_5pt_seed11": 0}


#: The judging net -> the largest ratio of bgfast's error rate to GNU Backgammon's allowed.
BOUNDS = {"wildbg": 3.0, "wildbg-large": 2.0}


@pytest.mark.parametrize("net", sorted(BOUNDS))
@pytest.mark.parametrize("name", sorted(NOISY))
def test_bgfast_and_gnubg_rate_the_noisy_player_worse(name: str, net: str) -> None:
    text = fixture(name, "mat")
    theirs, _ = gnubg_matches.analyse(text)
    judge = Net.wildbg_large() if net == "wildbg-large" else Net.wildbg()
    ours = analyse(Match.from_mat(text), judge, threads=1).players
    noisy, clean = NOISY[name], 1 - NOISY[name]
    for p in (0, 1):
        assert ours[p].unforced_moves == theirs[p].unforced_moves  # the same plays counted
        assert ours[p].name == theirs[p].name
    assert theirs[noisy].error_rate > theirs[clean].error_rate
    assert ours[noisy].error_rate > ours[clean].error_rate
    assert ours[noisy].chequer_rate > ours[clean].chequer_rate
    ratio = ours[noisy].error_rate / theirs[noisy].error_rate
    bound = BOUNDS[net]
    assert 1 / bound < ratio < bound, (ours[noisy].error_rate, theirs[noisy].error_rate)
