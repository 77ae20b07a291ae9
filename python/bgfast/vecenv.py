"""``VecEnv``: many self-play games at once for training scripts, everything numpy.

Each step, every game's side to move plays one of its candidate results; a training
script scores all candidates of all games with one call of its network and passes the
choices back. No per-game Python loop runs inside::

    env = bgfast.VecEnv(512, seed=1)
    env.reset()
    while training:
        features, offsets = env.candidates()        # (M, 198), (n + 1,)
        scores = net(features)                       # one call for all games
        choice = segment_argmax(scores, offsets)     # (n,) index within each game
        rewards, done = env.step(choice)

Games start from the standard start with an opening roll (never a double, R3) and start
again automatically when they end. Game ``k`` (counted over the environment's life, in
game order) takes its dice from ``(seed, k)`` only, so a run is reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._core import BgfastError, IllegalMoveError
from bgfast.errors_game import shown
from bgfast.features import SCHEMES

__all__ = ["MAX_GAMES", "VecEnv", "segment_argmax"]

MAX_GAMES = 1 << 22
"""The most games a ``VecEnv`` holds (the native batch's limit)."""

_MAX_SEED = (1 << 64) - 1  # the native seed is a u64


def _integer(name: str, value: object, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi``: Python and numpy integers, never bools or floats."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise BgfastError(f"{name} must be an integer from {lo} to {hi}, not {shown(value)}")
    if not lo <= int(value) <= hi:
        raise BgfastError(f"{name} must be from {lo} to {hi}, not {shown(int(value))}")
    return int(value)


def _array(name: str, values: npt.ArrayLike) -> npt.NDArray[Any]:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as e:  # ragged or otherwise not an array
        raise BgfastError(f"{name} must be a flat array of numbers: {e}") from None


def _choices(choice: npt.ArrayLike, n: int) -> npt.NDArray[np.integer[Any]]:
    """Integer choice indices for ``n`` games, in their own integer dtype; a float (even
    1.0), bool or non-number is refused rather than truncated to some other index. The
    native step checks the length, then each value as given (a value beyond int64 is no
    candidate of any game: ``IllegalMoveError``)."""
    if isinstance(choice, (list, tuple)) and all(
        isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in choice
    ):
        # numpy would turn [0, 2**63] into floats: Python ints are checked here, as the
        # native step checks arrays.
        if len(choice) != n:
            raise BgfastError(f"expected {n} choices (one per game), got {len(choice)}")
        info = np.iinfo(np.int64)
        for game, c in enumerate(choice):
            if not info.min <= int(c) <= info.max:
                raise IllegalMoveError(
                    f"game {game}: choice {int(c)} is not one of its candidate results "
                    "(R8: a move is one of the legal results)"
                )
        return np.array([int(c) for c in choice], dtype=np.int64)
    a = _array("choice", choice)
    if a.size == 0:
        a = a.astype(np.int64)  # np.asarray([]) is float64: no values, no truncation
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise BgfastError(
            f"choice must hold integer indices (any integer dtype), not {a.dtype} values"
        )
    return a.reshape(-1)


def _scores(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Real-number scores as float64; NaN (which has no order) and non-numbers are refused."""
    a = _array("scores", scores)
    if a.dtype == np.bool_ or not (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    ):
        raise BgfastError(f"scores must be real numbers, not {a.dtype} values")
    flat = a.reshape(-1).astype(np.float64)
    if np.isnan(flat).any():
        raise BgfastError(f"score {int(np.argmax(np.isnan(flat)))} is NaN: scores must be ordered")
    return flat


def segment_argmax(scores: npt.ArrayLike, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Per game the index (within its candidates) of the highest score, the first of equals.

    ``offsets`` as returned by ``VecEnv.candidates``; games without candidates get 0.
    """
    s = _scores(scores)
    offsets = _array("offsets", offsets).reshape(-1)
    if (
        offsets.dtype == np.bool_
        or not np.issubdtype(offsets.dtype, np.integer)
        or len(offsets) == 0
        or offsets[0] != 0
        or offsets[-1] != len(s)
        or (np.diff(offsets) < 0).any()
    ):
        raise BgfastError(
            f"offsets must rise from 0 to the {len(s)} scores, as VecEnv.candidates returns them"
        )
    offsets = offsets.astype(np.int64)
    n = len(offsets) - 1
    counts = np.diff(offsets)
    game = np.repeat(np.arange(n), counts)
    # Sort by (game, -score, index): the first row of each game is its best candidate.
    order = np.lexsort((np.arange(len(s)), -s, game))
    firsts = order[offsets[:-1][counts > 0]]
    choice = np.zeros(n, dtype=np.int64)
    choice[counts > 0] = firsts - offsets[:-1][counts > 0]
    return choice


class VecEnv:
    """``n`` backgammon games advanced together (self-play, cubeless, money scoring).

    Rewards are for the player who was on roll first in each game (``players == 0``):
    +1, +2, +3 for a single, gammon or backgammon won (R16), negative when lost, 0 while the
    game goes on.
    """

    def __init__(self, n: int, seed: int = 0, scheme: str = "tesauro198") -> None:
        """Creates ``n`` games (1 to :data:`MAX_GAMES`); ``seed`` is 0 to 2**64 - 1 and
        ``scheme`` names the feature encoding (one of ``bgfast.features.SCHEMES``)."""
        if not isinstance(scheme, str) or scheme not in SCHEMES:
            raise BgfastError(
                f"unknown feature scheme {shown(scheme)}: use one of {sorted(SCHEMES)}"
            )
        # read-only below: reset() starts the native batch again from them
        self._n = _integer("n (the number of games)", n, 1, MAX_GAMES)
        self._seed = _integer("seed", seed, 0, _MAX_SEED)
        self._scheme = scheme
        self._batch = _core.GameBatch.env(self._n, self._seed)
        self.final_positions: npt.NDArray[np.uint8] = np.zeros((self._n, 2, 25), dtype=np.uint8)

    @property
    def n(self) -> int:
        """The number of games."""
        return self._n

    @property
    def seed(self) -> int:
        """The seed of every game's dice."""
        return self._seed

    @property
    def scheme(self) -> str:
        """The feature encoding of ``observe`` and ``candidates``."""
        return self._scheme

    @property
    def width(self) -> int:
        """Features per position of :attr:`scheme`."""
        return SCHEMES[self._scheme]

    def reset(self) -> npt.NDArray[np.float32]:
        """Starts all games afresh (game numbers from 0 again); returns ``observe()``."""
        self._batch = _core.GameBatch.env(self.n, self.seed)
        self.final_positions = np.zeros((self.n, 2, 25), dtype=np.uint8)
        return self.observe()

    def observe(self) -> npt.NDArray[np.float32]:
        """Features ``(n, width)`` of every game's position, its side to move on roll."""
        return self._batch.observe(self.scheme)

    def candidates(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """``(features (M, width), offsets (n + 1,))``: game ``i``'s candidate results are
        rows ``offsets[i]:offsets[i + 1]``, each seen by the player choosing (row 0 the
        chooser, the opponent on roll next). Every game has at least one (a roll with no
        play has one candidate, the pass, R10)."""
        return self._batch.candidates(self.scheme)

    def candidate_positions(self) -> npt.NDArray[np.uint8]:
        """The candidate results as ``(M, 2, 25)`` counts, the opponent on roll (row 0)."""
        return self._batch.candidate_positions()

    def step(self, choice: npt.ArrayLike) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Plays candidate ``choice[i]`` in game ``i``; returns ``(rewards, done)``.

        Games that ended are started again; their last positions are in
        ``final_positions`` (row 0 the loser, on roll; zeros for games that did not end).
        ``choice`` holds integers (any integer dtype); floats, bools and other values raise
        ``BgfastError``, and an index outside a game's candidates ``IllegalMoveError``; a
        refused step changes nothing.
        """
        choices = _choices(choice, self._n)
        rewards, done = self._batch.step(choices)
        self.final_positions = self._batch.final_positions()
        return rewards, done

    def step_scores(
        self, scores: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Plays each game's highest-scored candidate (first of equals); as ``step``.

        Scores are real numbers, compared as given (as float64); NaN is refused.
        """
        rewards, done = self._batch.step_scores(_scores(scores))
        self.final_positions = self._batch.final_positions()
        return rewards, done

    @property
    def positions(self) -> npt.NDArray[np.uint8]:
        """Every game's position ``(n, 2, 25)``, row 0 on roll."""
        return self._batch.positions()

    @property
    def dice(self) -> npt.NDArray[np.uint8]:
        """Every game's roll to play ``(n, 2)``, higher die first."""
        return self._batch.dice()

    @property
    def players(self) -> npt.NDArray[np.uint8]:
        """Who is on roll ``(n,)``: 0 for the player who rolled first in that game, else 1."""
        return self._batch.players()
