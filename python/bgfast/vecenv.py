"""``VecEnv``: many self-play games at once for training scripts, everything numpy.

Each step, every game's side to move plays one of its candidate results; a training
script scores all candidates of all games with one call of its network and passes the
choices back. No per-game Python loop runs inside::

    env = bgfast.VecEnv(512, seed=1)
    env.reset()
    while training:
        features, offsets = env.candidates()        # (M, 198), (n + 1,)
        scores = net(features)                       # one call for all games
        choice = bgfast.segment_argmax(scores, offsets)   # (n,) index within each game
        rewards, done = env.step(choice)

Games start from the standard start with an opening roll (never a double, R3) and start
again automatically when they end. Game ``k`` (counted over the environment's life, in
game order) takes its dice from ``(seed, k)`` only, so a run is reproducible. The
``"random"`` policy draws from a stream of its own (:meth:`VecEnv.policy_choices`), never
from the dice.

``rewards`` are always player 0's (the player who was on roll first in that game), not
the mover's; a game's last position is in ``final_positions`` only at rows where ``done``
is True; a game cut off unfinished at 65,536 plies ends with ``done`` True, reward 0 and
``truncated`` True.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import numpy.typing as npt

from bgfast import _core
from bgfast._core import BgfastError
from bgfast._running import float64_scores
from bgfast.errors_game import shown
from bgfast.features import SCHEMES
from bgfast.persist import damaged
from bgfast.policies import Policy, check_policy

__all__ = ["MAX_GAMES", "MAX_PLIES", "VecEnv", "segment_argmax"]

MAX_GAMES: int = _core.GameBatch.MAX_GAMES
"""The most games a ``VecEnv`` holds (the native batch's limit, 2**22)."""

MAX_PLIES: int = 2**16
"""A game not over after this many plies (65,536) is cut off: ``done`` True, reward 0,
``truncated`` True (the native batch's cap; self-play that never bears off reaches it)."""


#: The layout of ``VecEnv.__getstate__``'s data.
_STATE_VERSION = 1

#: The attributes a ``VecEnv`` sets itself (its state holds them by their own names).
_OWN_ATTRIBUTES = frozenset(
    {"_batch", "_n", "_seed", "_scheme", "_draws", "final_positions", "truncated"}
)


def _policy_seed(seed: int, call: int) -> int:
    """The seed of ``policy_choices`` call ``call`` (0 the first since construction or
    ``reset``) of an env seeded ``seed``: numpy's ``SeedSequence([seed, call])`` hashed to
    one 64-bit word. Every pair gets its own well-mixed stream, so envs seeded 1 and 2 do
    not share draws at any call offset (``seed + call`` did)."""
    state = np.random.SeedSequence([seed, call]).generate_state(1, np.uint64)
    return int(state[0])


def _array(name: str, values: npt.ArrayLike) -> npt.NDArray[Any]:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as e:  # ragged or otherwise not an array
        raise BgfastError(f"{name} must be a flat array of numbers: {e}") from None


def _scores(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Real-number scores as flat float64, refused if float64 would merge two different
    ones (``float64_scores``); non-numbers are refused. NaN is refused where scores are
    compared."""
    a = _array("scores", scores)
    if a.dtype == object:
        raise _object_scores(a)
    if a.dtype == np.bool_ or not (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    ):
        raise BgfastError(f"scores must be real numbers, not {a.dtype} values")
    return float64_scores(a, "scores")


def _object_scores(a: npt.NDArray[Any]) -> BgfastError:
    """Why scores numpy holds only as Python objects are refused, naming the first score
    at fault: an integer too large for float64 (or beyond 64 bits, which float64, as the
    scores are compared, does not represent exactly), or a value that is no real number."""
    flat = a.reshape(-1)
    for row, x in enumerate(flat):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
            return BgfastError(
                f"scores must be real numbers, not {shown(x)} (the score at row {row})"
            )
        if not isinstance(x, (int, float, np.number)):  # Fraction, Decimal: real numbers
            return BgfastError(
                f"scores must be an array of integers or floats, and the score at row {row} is"
                f" a {type(x).__name__} ({shown(x)}): convert them with"
                " numpy.asarray(scores, dtype=float)"
            )
    for row, x in enumerate(flat):
        if isinstance(x, int) and not -(2**63) <= x < 2**64:
            try:
                float(x)
            except OverflowError:
                too = "too large for float64, in which the scores are compared"
            else:
                too = (
                    "an integer beyond 64 bits, which float64, in which the scores are "
                    "compared, does not represent exactly"
                )
            return BgfastError(
                f"scores: the score at row {row} ({shown(x)}) is {too}: give scores float64 "
                "represents (scale or rank them)"
            )
    return BgfastError(
        "scores must be an array of integers or floats, not of Python objects (dtype object)"
    )


def segment_argmax(scores: npt.ArrayLike, offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Per game the index (within its candidates) of the highest score, the first of equals
    (``bgfast.segment_argmax``).

    ``offsets`` as returned by ``VecEnv.candidates``; games without candidates get 0.
    """
    s = _scores(scores)
    if np.isnan(s).any():
        raise BgfastError(
            f"the score at row {int(np.argmax(np.isnan(s)))} is NaN: scores must be ordered"
        )
    offsets = _array("offsets", offsets).reshape(-1)
    if (
        offsets.dtype == np.bool_
        or not np.issubdtype(offsets.dtype, np.integer)
        or len(offsets) == 0
        or offsets[0] != 0
        or offsets[-1] != len(s)
        # Compared pairwise, not by np.diff: a difference of unsigned offsets wraps around.
        or (offsets[1:] < offsets[:-1]).any()
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


def _no_choices(given: object, n: int) -> BgfastError:
    """The refusal of ``step``'s ``given``, which is no array of choices at all (``None``,
    text, a single value, a set...): it says what was given."""
    if given is None:
        what = "None"
    elif isinstance(given, (str, bytes, bytearray)):
        what = f"the {type(given).__name__} {shown(given)}, text"
    elif isinstance(given, np.ndarray):
        what = f"a 0-D array ({shown(given)}), a single value"
    elif isinstance(given, (int, float, complex, np.generic)):
        what = f"a single {type(given).__name__} ({shown(given)})"
    else:
        what = f"a {type(given).__name__} ({shown(given)})"
    return BgfastError(
        f"choices must be a 1-D array of candidate indices, one per game ({n}), as a list"
        f" or a numpy array; got {what}, which is no array of choices"
    )


class VecEnv:
    """``n`` backgammon games advanced together (self-play, cubeless, money scoring).

    Rewards are player 0's in each game: the player who was on roll first
    (``players == 0``), whoever moved. +1, +2, +3 for a single, gammon or backgammon won
    (R16), -1, -2, -3 when lost, 0 while the game goes on. The mover's reward is
    ``rewards * np.where(players_before_step == 0, 1, -1)`` (see :attr:`players`).

    A game that ends (``done[i]``) is started again at once, in the same step: the
    positions, dice and players after ``step`` are the new game's. The ended game's last
    position is ``final_positions[i]``; only rows where ``done`` is True hold a position
    (use ``final_positions[done]``), the others are zeros, not positions.

    A game still going after :data:`MAX_PLIES` (65,536) plies is cut off: ``done`` True
    with reward 0, and ``final_positions`` holds the unfinished position (both sides still
    have checkers on the board). A finished game always scores at least 1, so reward 0
    with ``done`` means cut off; :attr:`truncated` marks these games.
    """

    def __init__(self, n: int, seed: int = 0, scheme: str = "tesauro198") -> None:
        """Creates ``n`` games (1 to :data:`MAX_GAMES`); ``seed`` is 0 to 2**64 - 1 and
        ``scheme`` names the feature encoding (one of ``bgfast.features.SCHEMES``)."""
        if not isinstance(scheme, str) or scheme not in SCHEMES:
            raise BgfastError(
                f"unknown feature scheme {shown(scheme)}: use one of {sorted(SCHEMES)}"
            )
        # The native batch checks n and seed; read-only below: reset() starts it again
        # from them.
        self._batch = _core.GameBatch.env(n, seed)
        self._n, self._seed = int(n), int(seed)
        self._scheme = scheme
        self._draws = 0  # policy_choices calls since construction or reset
        self.final_positions: npt.NDArray[np.uint8] = np.zeros((self._n, 2, 25), dtype=np.uint8)
        """``(n, 2, 25)`` uint8, set by every step: at rows where that step's ``done`` is
        True, the ended game's last position, row 0 on roll (the loser of a finished game,
        whose opponent has borne off all 15; for a game cut off at :data:`MAX_PLIES`, see
        :attr:`truncated`, the unfinished position). Other rows are all zeros, which is no
        valid position (an evaluator refuses it): use ``final_positions[done]``."""
        self.truncated: npt.NDArray[np.bool_] = np.zeros(self._n, dtype=np.bool_)
        """``(n,)`` bool, set by every step: True where that step cut a game off unfinished
        at :data:`MAX_PLIES` plies (``done`` True, reward 0), False elsewhere, finished
        games included (they score at least 1)."""

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
        """Starts all games afresh (game numbers from 0 again, and the ``"random"``
        policy's calls from 0 again: a reset env plays exactly as a new one with the same
        arguments); returns ``observe()``."""
        self._batch = _core.GameBatch.env(self.n, self.seed)
        self._draws = 0
        self.final_positions = np.zeros((self.n, 2, 25), dtype=np.uint8)
        self.truncated = np.zeros(self.n, dtype=np.bool_)
        return self.observe()

    def __getstate__(self) -> dict[str, Any]:
        """The environment as plain data, for ``pickle`` and ``copy``: a training run
        saves it with its model and plays on from it exactly (every game's position, roll,
        ply count and dice to come, the game numbers, the ``"random"`` policy's calls and
        the last step's ended games)."""
        own = {"version": _STATE_VERSION, "scheme": self._scheme, "draws": self._draws}
        # A subclass's attributes (or a caller's) travel with it, as pickle keeps them.
        extra = {k: v for k, v in vars(self).items() if k not in _OWN_ATTRIBUTES}
        return {**own, "batch": self._batch.to_bytes(), "extra": extra}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores :meth:`__getstate__`'s data; ``InvalidSaveError`` if it is damaged."""
        with damaged("VecEnv state"):
            if state["version"] != _STATE_VERSION:
                raise ValueError(
                    f"state version {shown(state['version'])}, this bgfast reads {_STATE_VERSION}"
                )
            scheme, draws = state["scheme"], state["draws"]
            if not isinstance(scheme, str) or scheme not in SCHEMES:
                raise ValueError(f"unknown feature scheme {shown(scheme)}")
            _core.check_int("draws", draws, 0, 2**63 - 1)
            batch = _core.GameBatch.from_bytes(state["batch"])
            extra = state.get("extra", {})
            if not isinstance(extra, dict) or not extra.keys().isdisjoint(_OWN_ATTRIBUTES):
                raise ValueError("its extra attributes are no dict of other names")
        vars(self).update(extra)
        # The seed is the batch's own: the one its games' dice come from.
        self._batch, self._n, self._seed = batch, len(batch), batch.seed()
        self._scheme, self._draws = scheme, int(draws)
        self.final_positions = batch.final_positions()
        ended = self.final_positions.any(axis=(1, 2))
        # A finished game's winner (row 1) has borne off every checker; a cut-off one not.
        self.truncated = ended & (self.final_positions[:, 1].sum(axis=1) > 0)

    def observe(self) -> npt.NDArray[np.float32]:
        """Features ``(n, width)`` of every game's position, its side to move on roll."""
        return self._batch.observe(self.scheme)

    def candidates(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """``(features (M, width), offsets (n + 1,))``: game ``i``'s candidate results are
        rows ``offsets[i]:offsets[i + 1]``. Every game has at least one (a roll with no
        play has one candidate, the pass, R10).

        Which side a row is seen from depends on the scheme, as in rollouts
        (:mod:`bgfast.features`): ``"tesauro198"`` and ``"pubeval"`` see each result from
        the player choosing (score it for the chooser); ``"wildbg"``, ``"wildbg-race"``
        and ``"board"``, inputs of position evaluators, see it as it stands, the opponent
        on roll (score it as minus the opponent's value, or :meth:`step_scores` plays the
        opponent's best)."""
        return self._batch.candidates(self.scheme)

    def candidate_positions(self) -> npt.NDArray[np.uint8]:
        """The candidate results as ``(M, 2, 25)`` counts, rows as :meth:`candidates` orders
        them, seen by the player choosing (row 0 the chooser, row 1 the opponent, who is on
        roll next): the view of :meth:`candidates`' ``"tesauro198"`` and ``"pubeval"``
        features. ``env.candidate_positions()[:, ::-1]`` puts the side on roll first, the
        view of its ``"wildbg"``, ``"wildbg-race"`` and ``"board"`` features and of
        position evaluators."""
        on_roll_first = self._batch.candidate_positions()
        return np.ascontiguousarray(on_roll_first[:, ::-1, :])

    def step(self, choice: npt.ArrayLike) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Plays candidate ``choice[i]`` in game ``i``; returns ``(rewards, done)``:
        ``(n,)`` int8 rewards of player 0 (the player on roll first, whoever moved) and
        ``(n,)`` bool.

        Games that ended are started again at once. Their last positions are in
        ``final_positions``, at rows where ``done`` is True only (row 0 on roll: the loser
        of a finished game); the other rows are zeros, not positions, so take
        ``final_positions[done]``. ``done`` with reward 0 means the game was cut off
        unfinished at :data:`MAX_PLIES` plies (``truncated``; its final position is
        unfinished, nobody lost); a finished game scores at least 1.
        ``choice`` holds integers (any integer dtype); floats, bools and other values raise
        ``BgfastError``, and an index outside a game's candidates ``IllegalMoveError``; a
        refused step changes nothing.
        """
        # The native step reads arrays of any integer dtype and sequences of ints exactly.
        if choice is None or isinstance(choice, (str, bytes, bytearray)):
            raise _no_choices(choice, self._n)
        if not isinstance(choice, (np.ndarray, list, tuple)):
            given, choice = choice, _array("choice", choice)
            if choice.ndim == 0:
                raise _no_choices(given, self._n)
        elif isinstance(choice, np.ndarray) and choice.ndim == 0:
            raise _no_choices(choice, self._n)
        return self._ended(*self._batch.step(choice))

    def _ended(
        self,
        rewards: npt.NDArray[np.int8],
        done: npt.NDArray[np.bool_],
        final_positions: npt.NDArray[np.uint8],
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Records a native step's final positions and cut-off games; ``(rewards, done)``."""
        self.final_positions = final_positions
        # Every finished game scores 1, 2 or 3 (R16): reward 0 with done is the ply cap.
        self.truncated = done & (rewards == 0)
        return rewards, done

    def policy_choices(self, policy: Policy) -> npt.NDArray[np.int64]:
        """The candidate a native policy picks in every game, ``(n,)`` int64, as
        ``candidates`` orders them: ``"wildbg"``, a ``bgfast.Net`` (the result worst for the
        opponent), ``"pubeval"``, ``"race"`` or ``"random"``. For an opponent or a teacher
        in a training loop.

        ``"random"`` draws call ``c`` (``c = 0`` for the first call since construction or
        :meth:`reset`) from the seed ``numpy.random.SeedSequence([seed, c])
        .generate_state(1, numpy.uint64)[0]``: reproducible from ``seed``, a stream of its
        own per call (envs with different seeds share none of it, at any call offset),
        started again by ``reset``, and never the games' dice, which these calls leave
        untouched."""
        check_policy(policy)
        choices = self._batch.policy_choices(policy, _policy_seed(self.seed, self._draws))
        self._draws += 1  # only a call that drew counts
        return choices

    def step_policy(self, policy: Policy) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Plays ``policy_choices(policy)`` in every game; as ``step``."""
        return self.step(self.policy_choices(policy))

    def step_scores(
        self, scores: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Plays each game's highest-scored candidate (first of equals); as ``step``.

        Scores are real numbers, compared as given (as float64); NaN is refused.
        """
        return self._ended(*self._batch.step_scores(_scores(scores)))

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
        """Who is on roll ``(n,)`` uint8: 0 for the player who rolled first in that game
        (whose rewards ``step`` returns), else 1.

        Unsigned: ``1 - 2 * players`` wraps to 255, not -1. For the mover's sign write
        ``np.where(players == 0, 1, -1)`` (or ``1 - 2 * players.astype(np.int8)``), read
        before the step (after it, an ended game's slot holds the next game)."""
        return self._batch.players()
