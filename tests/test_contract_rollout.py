"""Contract tests of ``bgfast.encode``, ``bgfast.pubeval.score``, ``bgfast.rollout``,
``bgfast.VecEnv`` (with ``segment_argmax``) and ``bgfast.rollout.run_shard``.

Counts are taken exactly or refused; a bad argument (scheme, out=, games, seed, truncate,
threads, batch, evaluator results, choices, scores) is a ``BgfastError`` (``TypeError`` for a
wrong Python type); a rejected call changes no state. Calls that may hang or abort (thread
counts in the billions, huge batches) are in test_contract_isolated.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from contract_support import (
    CONTRACT,
    LIVE,
    OTHER_DTYPES,
    SPECIAL,
    assert_reports_given,
    check,
    count_arrays,
    given_numbers,
    layouts,
    positions,
    rejects,
    rejects_argument,
    representable,
    valid_counts,
)
from hypothesis import example, given
from hypothesis import strategies as st

import bgfast
from bgfast import (
    BgfastError,
    IllegalMoveError,
    InvalidPositionError,
    Position,
    RolloutResult,
    VecEnv,
    pubeval,
)
from bgfast.features import SCHEMES
from bgfast.rollout import run_shard
from bgfast.vecenv import segment_argmax

START = Position()
OPP = START.to_array()[1].tolist()
WRAP = [[0, 2**31 - 255, 2**31 - 255, 525] + [0] * 21, OPP]
WIDE = [[0] * 5 + [2**32 + 5] + [0] * 19, OPP]  # read as 5 by a 32-bit cast: the start
PANIC = [[2**31 - 1, 1] + [0] * 23, [0] * 24 + [1]]


def _reference_encode(exact: list[Any], scheme: str, single: bool) -> np.ndarray:
    rows = np.array(exact, dtype=np.uint8).reshape(-1, 2, 25)
    out = bgfast.encode(rows, scheme)
    return out[0] if single else out


# encode, pubeval.score


def _check_encoders(array: Any, exact: list[Any], single: bool) -> None:
    rows = [exact] if single else exact
    first_bad = next((k for k, r in enumerate(rows) if not valid_counts(r)), None)
    before = np.array(array, copy=True)
    for name, call in [
        ("tesauro198", lambda: bgfast.encode(array, "tesauro198")),
        ("pubeval-features", lambda: bgfast.encode(array, "pubeval")),
        ("pubeval.score", lambda: pubeval.score(array)),
    ]:
        outcome = check(call)
        assert np.array_equal(np.asarray(array), before), "the caller's array changed"
        if outcome.ok:
            assert first_bad is None, f"{name}: row {first_bad} {rows[first_bad]} accepted"
            if name == "pubeval.score":
                ref = pubeval.score(np.array(rows, dtype=np.uint8).reshape(-1, 2, 25))
                got = np.atleast_1d(np.asarray(outcome.value, dtype=np.float32))
                assert np.array_equal(got, ref), f"{name}: answered for other positions"
            else:
                scheme = "tesauro198" if name == "tesauro198" else "pubeval"
                ref = _reference_encode(exact, scheme, single)
                assert np.array_equal(outcome.value, ref), f"{name}: other positions"
            continue
        error = outcome.error
        assert first_bad is not None, f"{name}: legal positions refused: {error!r}"
        assert isinstance(error, InvalidPositionError), f"{name}: {error!r}"
        assert "must have shape" not in str(error), str(error)
        assert_reports_given(error, given_numbers(rows[first_bad]) | {first_bad})


@CONTRACT
@given(count_arrays())
def test_encoders_many_positions(case: tuple[np.ndarray, list[Any]]) -> None:
    array, exact = case
    _check_encoders(array, exact, single=False)


@CONTRACT
@given(count_arrays(rows=0))
def test_encoders_one_position(case: tuple[np.ndarray, list[Any]]) -> None:
    array, exact = case
    _check_encoders(array, exact, single=True)


@pytest.mark.parametrize(
    ("rows", "dtype"),
    [
        (r, d)
        for r in (WRAP, WIDE, PANIC)
        for d in (np.int64, np.int32, np.uint64, object)
        if representable(r, d)
    ],
)
def test_encoders_counts_that_overflow(rows: list[Any], dtype: Any) -> None:
    array = np.array(rows, dtype=dtype)
    _check_encoders(array, rows, single=True)
    _check_encoders(array[None], [rows], single=False)


@CONTRACT
@given(positions, st.sampled_from(OTHER_DTYPES), st.integers(0, 3))
def test_encoders_other_dtypes(pos: Position, dtype: Any, how: int) -> None:
    array = layouts(pos.to_array()[None].astype(dtype), how)
    for call in (lambda: bgfast.encode(array), lambda: pubeval.score(array)):
        outcome = check(call)
        if outcome.ok:
            continue  # taken: the values are the counts (bool: 0 or 1)
        error = outcome.error
        assert isinstance(error, InvalidPositionError), repr(error)
        text = str(error).lower()
        assert "dtype" in text or "integer" in text, str(error)


@pytest.mark.parametrize(
    "value",
    [
        [START, 5],
        (START, "x"),
        [START, START.to_array()],
        [5, START],
        [START, None],
        "abc",
        None,
        5,
        {"a": 1},
        START.moves(3, 1),
        np.zeros((3, 7), np.uint8),
        np.zeros((2, 2, 2, 25), np.uint8),
        [[1, 2], [3]],
    ],
)
def test_encoders_not_positions(value: Any) -> None:
    for call in (lambda: bgfast.encode(value), lambda: pubeval.score(value)):
        error = rejects(call, (InvalidPositionError, TypeError))
        if isinstance(value, np.ndarray):
            assert str(value.shape) in str(error), f"misreports the shape {value.shape}: {error}"


def test_encoders_of_an_empty_list() -> None:
    """No positions: an empty result (as batch.ids([])), or an error that names the
    problem, not a dtype the caller never gave."""
    for call, shape in [
        (lambda: bgfast.encode([]), (0, 198)),
        (lambda: bgfast.encode([], "pubeval"), (0, 122)),
        (lambda: pubeval.score([]), (0,)),
    ]:
        outcome = check(call)
        if outcome.ok:
            assert np.shape(outcome.value) == shape
        else:
            assert "float64" not in str(outcome.error), str(outcome.error)


@CONTRACT
@given(st.one_of(st.text(max_size=12), st.sampled_from([None, 5, b"pubeval", "Pubeval"])))
def test_encode_any_scheme(scheme: Any) -> None:
    outcome = check(lambda: bgfast.encode(START, scheme))
    if scheme in ("tesauro198", "pubeval"):
        assert outcome.ok and outcome.value.shape == (SCHEMES[scheme],)
        return
    assert not outcome.ok
    if isinstance(scheme, str):
        rejects_argument(lambda: bgfast.encode(START, scheme), "scheme")


def _outs() -> list[tuple[str, Any]]:
    readonly = np.zeros((3, 198), np.float32)
    readonly.flags.writeable = False
    return [
        ("C", np.zeros((3, 198), np.float32)),
        ("Fortran", np.asfortranarray(np.zeros((3, 198), np.float32))),
        ("transposed", np.zeros((198, 3), np.float32).T),
        ("strided", np.zeros((3, 396), np.float32)[:, ::2]),
        ("reversed", np.zeros((3, 198), np.float32)[::-1]),
        ("narrow", np.zeros((3, 197), np.float32)),
        ("tall", np.zeros((4, 198), np.float32)),
        ("float64", np.zeros((3, 198), np.float64)),
        ("float16", np.zeros((3, 198), np.float16)),
        ("int", np.zeros((3, 198), np.int32)),
        ("3-d", np.zeros((3, 198, 1), np.float32)),
        ("1-d", np.zeros(3 * 198, np.float32)),
        ("read-only", readonly),
        ("list", [[0.0] * 198] * 3),
        ("int scalar", 5),
        ("str", "out"),
    ]


@pytest.mark.parametrize(("kind", "out"), _outs(), ids=[k for k, _ in _outs()])
def test_encode_out(kind: str, out: Any) -> None:
    """``out=``: written exactly as the returned features would be, or refused (a plain
    BgfastError naming ``out``; TypeError for what is not an array) with ``out``
    unchanged."""
    rows = np.stack([p.to_array() for p in LIVE[:3]])
    expected = bgfast.encode(rows)
    before = np.array(out, copy=True) if isinstance(out, np.ndarray) else None
    outcome = check(lambda: bgfast.encode(rows, out=out))
    if outcome.ok:
        assert outcome.value is out
        assert np.array_equal(np.asarray(out), expected), f"{kind} out= holds other features"
        return
    error = outcome.error
    if before is not None:
        assert np.array_equal(out, before), "a rejected call wrote into out"
    if isinstance(out, np.ndarray):
        assert not isinstance(error, InvalidPositionError), f"out= is not a position: {error!r}"
        assert "out" in str(error).lower(), f"the message does not name out=: {error!r}"
    else:
        assert isinstance(error, (TypeError, BgfastError)), repr(error)


def test_encode_out_left_alone_when_a_position_is_bad() -> None:
    rows = np.stack([START.to_array()] * 2).astype(np.int64)
    rows[1, 0, 0] = 99
    out = np.full((2, 198), 7, np.float32)
    rejects(lambda: bgfast.encode(rows, out=out), InvalidPositionError)
    assert (out == 7).all()


def test_encode_out_for_one_position() -> None:
    out = np.zeros(198, np.float32)
    assert bgfast.encode(START, out=out) is out
    assert np.array_equal(out, bgfast.encode(START))
    for bad in (np.zeros(197, np.float32), np.zeros((2, 198), np.float32)):
        error = rejects(lambda bad=bad: bgfast.encode(START, out=bad), BgfastError, "out")
        assert not isinstance(error, InvalidPositionError), repr(error)


# rollout

games_values = st.one_of(
    st.integers(-3, 3), st.sampled_from([True, 2.0, None, "2", np.int64(2), -(2**70)])
)
seed_values = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 2**64 - 1, 2**64, -1, 1.5, "1", None, np.uint64(5)]),
)
truncate_values = st.one_of(
    st.none(),
    st.integers(-3, 40),
    st.sampled_from([2**31, 2**32 - 1, 2**32, 2**63, 2**64, 2**70, 1.5, "3", np.int64(3)]),
)
small_threads = st.sampled_from([None, 1, 2, 0, -1, -(2**63), -(2**70), 1.5, "2"])


def _kind(value: Any, good: Any) -> str:
    """``good``, ``bad`` or ``either`` (a numpy integer: may be taken as an int or not)."""
    if isinstance(value, (np.integer, np.bool_)):
        return "either" if good(int(value)) else "bad"
    if isinstance(value, bool) or not isinstance(value, int):
        return "bad"
    return "good" if good(value) else "bad"


@CONTRACT
@given(games_values, seed_values, truncate_values, small_threads)
@example(2, 1, 2**32, None)
@example(2, 1, 0, None)
@example(2, 1, None, -(2**64))
@example(2, -1, None, None)
def test_rollout_arguments(games: Any, seed: Any, truncate: Any, threads: Any) -> None:
    def call() -> RolloutResult:
        return bgfast.rollout(
            START, games=games, seed=seed, truncate=truncate, threads=threads, policy="wildbg"
        )

    kinds = {
        "games": _kind(games, lambda v: v >= 1),
        "seed": _kind(seed, lambda v: 0 <= v < 2**64),
        "threads": "good" if threads is None else _kind(threads, lambda v: v >= 1),
        "truncate": "good" if truncate is None else _kind(truncate, lambda v: 0 <= v < 2**32),
    }
    outcome = check(call)
    if outcome.ok:
        assert "bad" not in kinds.values(), f"accepted: {kinds}"
        assert outcome.value.games == games
        assert outcome.value.seed == seed
        return
    error = outcome.error
    named = [n for n, k in kinds.items() if k != "good"]
    assert named, f"legal arguments refused: {error!r}"
    if isinstance(error, BgfastError):
        assert not isinstance(error, (InvalidPositionError, IllegalMoveError)), repr(error)
        assert any(n in str(error) for n in named), f"{named} not named: {error}"


anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 40),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.sampled_from([2**70, -(2**70), np.int64(3), (1, 2), [2, "mover"], (1,), b"x"]),
)
cubes = st.one_of(
    st.tuples(
        st.sampled_from([1, 2, 3, 4, 64, 2**15, 2**16, 0, -2]),
        st.sampled_from(["centred", "centered", "mover", "opponent", "middle", "", None]),
    ),
    anything,
)
scores = st.one_of(st.tuples(st.integers(-2, 9), st.integers(-2, 9)), anything)


@CONTRACT
@given(
    cube=cubes,
    match_length=st.one_of(st.integers(-1, 9), anything),
    score=scores,
    crawford=st.one_of(st.none(), st.booleans(), anything),
    jacoby=st.one_of(st.booleans(), anything),
    cube_life=st.one_of(st.floats(-1, 2), st.sampled_from(["gnubg", "x", None])),
    bearoff=st.sampled_from(["exact", None, "approx", 1]),
    cubeful=st.one_of(st.booleans(), anything),
)
def test_rollout_stakes_arguments(**kwargs: Any) -> None:
    """Any stakes: a rollout, or a BgfastError (TypeError) naming a bad one; a match value
    is a probability."""
    outcome = check(lambda: bgfast.rollout(START, games=2, seed=1, truncate=3, **kwargs))
    if outcome.ok:
        r = outcome.value
        if r.mwc is not None:
            assert 0.0 <= r.mwc <= 1.0
        assert math.isfinite(r.equity)
    elif isinstance(outcome.error, BgfastError):
        assert not isinstance(outcome.error, (InvalidPositionError, IllegalMoveError))


@CONTRACT
@given(
    probabilities=st.one_of(
        st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=0, max_size=7),
        anything,
    ),
    cube=cubes,
    match_length=st.one_of(st.integers(0, 9), anything),
    score=scores,
)
def test_cube_decisions_of_anything(**kwargs: Any) -> None:
    """``bgfast.cubeful.decide`` of anything: a decision with finite values, or an error."""
    outcome = check(lambda: bgfast.cubeful.decide(**kwargs))
    if outcome.ok:
        d = outcome.value
        assert all(math.isfinite(v) for v in (d.no_double, d.double_take, d.double_pass))
        assert d.action in {
            f"{a}{v}{b}"
            for v in ("double", "redouble")
            for a, b in (
                ("no ", ""),
                ("", ", take"),
                ("", ", pass"),
                ("too good to ", ""),
                ("too good to ", ", take"),
                ("", ", beaver"),
            )
        }


@CONTRACT
@given(
    dice=st.one_of(st.tuples(st.integers(0, 7), st.integers(0, 7)), anything),
    moves=st.one_of(
        st.none(),
        st.lists(st.sampled_from(["8/5 6/5", "24/21", "13/10 13/9", "x", ""]), max_size=3),
    ),
    top=st.one_of(st.none(), st.integers(-1, 5), anything),
)
def test_candidate_rollouts_of_anything(**kwargs: Any) -> None:
    """Any roll, plays and ``top``: ranked plays, or an error naming what is wrong."""
    outcome = check(lambda: bgfast.rollout_moves(START, games=2, seed=1, truncate=2, **kwargs))
    if outcome.ok:
        ranked = outcome.value
        assert ranked and ranked[0].diff == 0.0
        assert all(m.diff <= 0.0 for m in ranked)


@CONTRACT
@given(st.one_of(st.text(max_size=12), st.sampled_from([None, 5, ["pubeval"], b"race"])))
def test_rollout_any_policy_name(policy: Any) -> None:
    outcome = check(lambda: bgfast.rollout(START, games=1, seed=1, policy=policy))
    if policy in ("random", "pubeval", "race"):
        assert outcome.ok
    else:
        assert not outcome.ok
        rejects_argument(lambda: bgfast.rollout(START, games=1, seed=1, policy=policy), "policy")


def _zeros(features: np.ndarray) -> np.ndarray:
    return np.zeros(len(features))


@pytest.mark.parametrize("batch", [0, -1, -(2**63), -(2**70)])
def test_rollout_batch_below_one(batch: int) -> None:
    rejects_argument(
        lambda: bgfast.rollout(START, games=2, seed=1, policy=_zeros, batch=batch), "batch"
    )


@pytest.mark.parametrize("batch", [1, 7, 2**31, 2**63, 2**64, 2**70])
def test_rollout_large_batch(batch: int) -> None:
    outcome = check(lambda: bgfast.rollout(START, games=2, seed=1, policy=_zeros, batch=batch))
    if not outcome.ok:
        assert not isinstance(outcome.error, InvalidPositionError), repr(outcome.error)


@pytest.mark.parametrize("scheme", ["nope", "", "TESAURO198", None, 5])
def test_rollout_evaluator_scheme(scheme: Any) -> None:
    rejects(
        lambda: bgfast.rollout(START, games=1, seed=1, policy=_zeros, scheme=scheme),
        (BgfastError, TypeError),
    )


EVALUATORS = {
    "nan": lambda f: np.full(len(f), np.nan),
    "inf": lambda f: np.full(len(f), np.inf),
    "-inf": lambda f: np.full(len(f), -np.inf),
    "mixed nan": lambda f: np.where(np.arange(len(f)) % 2 == 0, np.nan, 1.0),
    "huge": lambda f: np.full(len(f), 1e300),
    "int": lambda f: np.arange(len(f)),
    "bool": lambda f: np.ones(len(f), bool),
    "column": lambda f: np.zeros((len(f), 1)),
    "list": lambda f: [0.0] * len(f),
    "uint64 max": lambda f: np.full(len(f), 2**64 - 1, np.uint64),
    "big ints": lambda f: [2**100] * len(f),
    "one short": lambda f: np.zeros(len(f) - 1),
    "one long": lambda f: np.zeros(len(f) + 1),
    "two columns": lambda f: np.zeros((len(f), 2)),
    "scalar": lambda f: 0.0,
    "None": lambda f: None,
    "strings": lambda f: ["a"] * len(f),
    "objects": lambda f: [object()] * len(f),
    "dict": lambda f: {},
    "generator": lambda f: (0.0 for _ in range(len(f))),
    "bytes": lambda f: b"x" * len(f),
    "mutates its input": lambda f: (f.fill(np.nan), np.zeros(len(f)))[1],
}


@pytest.mark.parametrize("name", sorted(EVALUATORS))
def test_rollout_evaluator_results(name: str) -> None:
    """Whatever an evaluator returns: a rollout, or a BgfastError saying the scores are
    wrong (never numpy's own ValueError)."""
    evaluator = EVALUATORS[name]
    outcome = check(lambda: bgfast.rollout(START, games=3, seed=1, policy=evaluator, batch=2))
    if outcome.ok:
        assert outcome.value.games == 3
        return
    error = outcome.error
    text = str(error).lower()
    assert "score" in text or "evaluator" in text, f"{name}: does not name the scores: {error!r}"
    assert isinstance(error, (BgfastError, TypeError)), f"{name}: {error!r}"


def test_rollout_evaluator_errors_propagate() -> None:
    def broken(features: np.ndarray) -> np.ndarray:
        raise ZeroDivisionError("the evaluator's own error")

    with pytest.raises(ZeroDivisionError, match="the evaluator's own error"):
        bgfast.rollout(START, games=2, seed=1, policy=broken)


@CONTRACT
@given(count_arrays(rows=0))
def test_rollout_position_arrays(case: tuple[np.ndarray, list[Any]]) -> None:
    array, exact = case
    outcome = check(lambda: bgfast.rollout(array, games=1, seed=1, policy="random"))
    if outcome.ok:
        assert valid_counts(exact), f"{exact} accepted"
        expected = Position.from_array(np.array(exact, dtype=np.uint8)).id
        assert outcome.value.position == expected, "rolled out another position"
    else:
        assert isinstance(outcome.error, InvalidPositionError), repr(outcome.error)
        assert not valid_counts(exact)


@pytest.mark.parametrize("rows", [WRAP, WIDE, PANIC])
def test_rollout_counts_that_overflow(rows: list[Any]) -> None:
    for array in (rows, np.array(rows, dtype=np.int64), np.array(rows, dtype=object)):
        rejects(lambda array=array: bgfast.rollout(array, games=1, seed=1), InvalidPositionError)


@CONTRACT
@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=16))
@example("\ud800")
def test_rollout_position_ids(text: str) -> None:
    outcome = check(lambda: bgfast.rollout(text, games=1, seed=1, policy="random"))
    if outcome.ok:
        assert outcome.value.position == text
    else:
        assert isinstance(outcome.error, InvalidPositionError), repr(outcome.error)


@pytest.mark.parametrize("value", [5, 1.5, b"4HPwATDgc/ABMA", [START], START.to_array()[None]])
def test_rollout_position_of_other_types(value: Any) -> None:
    rejects(lambda: bgfast.rollout(value, games=1, seed=1), (InvalidPositionError, TypeError))


# run_shard: the spec a worker receives


def _spec(**changes: Any) -> dict[str, Any]:
    from bgfast._rollout_settings import check_settings
    from bgfast.cubeful import Stakes
    from bgfast.rollout import _version

    settings = check_settings(
        policy="random",
        evaluator=None,
        seed=1,
        truncate=None,
        bearoff=None,
        variance_reduction=False,
        quasi_random=True,
        cubeful=False,
        cube_life=0.68,
        stakes=Stakes.check(),
    )
    spec = dict(
        version=_version(),
        settings=settings,
        branches=[(START.id, "position")],
        first_game=0,
        games=2,
        policy="random",
        threads=1,
    )
    spec.update(changes)
    return spec


SPEC_CHANGES = [
    {"branches": [("bad", "position")]},
    {"branches": [(5, "position")]},
    {"branches": [(START.id, "nope")]},
    {"branches": []},
    {"branches": 5},
    {"settings": None},
    {"settings": "settings"},
    {"first_game": -1},
    {"first_game": 2**64},
    {"first_game": 2**64 - 2},
    {"games": -1},
    {"games": 2**64},
    {"games": "2"},
    {"policy": "nope"},
    {"policy": None},
    {"threads": 2**64},
    {"threads": -1},
    {"version": None},
]


@pytest.mark.parametrize("change", SPEC_CHANGES, ids=[str(c) for c in SPEC_CHANGES])
def test_run_shard_spec_values(change: dict[str, Any]) -> None:
    outcome = check(lambda: run_shard(_spec(**change)))
    if not outcome.ok and isinstance(outcome.error, BgfastError):
        key = next(iter(change))
        if key not in ("branches", "version"):
            assert not isinstance(outcome.error, InvalidPositionError), repr(outcome.error)


@pytest.mark.parametrize("missing", sorted(_spec()))
def test_run_shard_missing_fields(missing: str) -> None:
    spec = _spec()
    del spec[missing]
    rejects(lambda: run_shard(spec), BgfastError, missing)


@pytest.mark.parametrize("spec", [None, 5, "spec", [], {}])
def test_run_shard_not_a_spec(spec: Any) -> None:
    rejects(lambda: run_shard(spec), (BgfastError, TypeError))


# VecEnv


@CONTRACT
@given(
    st.one_of(st.integers(-3, 4), st.sampled_from([True, 2.5, "3", None, np.int64(2)])),
    st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([-1, 2**64, 2**64 - 1, 1.5, None])),
    st.one_of(st.sampled_from(["tesauro198", "pubeval", "nope", "", None, 5])),
)
@example(4, -1, "tesauro198")
@example(4, 2**64, "tesauro198")
def test_vecenv_constructor(n: Any, seed: Any, scheme: Any) -> None:
    outcome = check(lambda: VecEnv(n, seed=seed, scheme=scheme))
    if outcome.ok:
        env = outcome.value
        assert env.positions.shape == (int(n), 2, 25)
        assert env.candidates()[0].shape[1] == SCHEMES[scheme]
        return
    error = outcome.error
    if isinstance(error, BgfastError):
        assert not isinstance(error, InvalidPositionError), repr(error)


@pytest.mark.parametrize("n", [2**63, 2**64, 2**70])
def test_vecenv_too_many_games(n: int) -> None:
    rejects_argument(lambda: VecEnv(n))


def _state(env: VecEnv) -> list[np.ndarray]:
    features, offsets = env.candidates()
    return [env.positions.copy(), env.dice.copy(), env.players.copy(), offsets, features]


def _unchanged(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


choice_values = st.one_of(
    st.integers(-2, 30),
    st.sampled_from([2**31, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**64)]),
    st.sampled_from([0.0, 1.0, 0.5, 1.9, -0.5, math.nan, math.inf, -math.inf]),
    st.sampled_from(["a", "1", None, True, False]),
)


@CONTRACT
@given(st.integers(1, 3), st.integers(0, 2**64 - 1), st.lists(choice_values, max_size=4))
@example(3, 1, [0.7, 0, 0])
@example(3, 1, [1.9, 0, 0])
@example(3, 1, [2**63, 0, 0])
@example(3, 1, [math.nan, 0, 0])
@example(3, 1, ["a", 0, 0])
def test_vecenv_step_any_choices(n: int, seed: int, choices: list[Any]) -> None:
    env, reference = VecEnv(n, seed=seed), VecEnv(n, seed=seed)
    _, offsets = env.candidates()
    counts = np.diff(offsets)
    before = _state(env)
    outcome = check(lambda: env.step(choices))
    # A bool is no index here (an array of bools is a mask to numpy): refusing it is right.
    integral = all(
        isinstance(c, (int, float))
        and not isinstance(c, bool)
        and math.isfinite(c)
        and float(c).is_integer()
        for c in choices
    )
    legal = integral and len(choices) == n and all(0 <= c < k for c, k in zip(choices, counts))
    if outcome.ok:
        assert legal, f"choices {choices} accepted for {counts.tolist()} candidates"
        reference.step(np.array([int(c) for c in choices], dtype=np.int64))
        assert np.array_equal(env.positions, reference.positions)
        return
    assert _unchanged(before, _state(env)), "a rejected step changed the games"
    assert not (legal and all(isinstance(c, int) for c in choices)), repr(outcome.error)
    error = outcome.error
    ints = all(isinstance(c, int) and not isinstance(c, bool) for c in choices)
    # With choices of the wrong type too, saying so is as right as naming the length.
    if isinstance(error, BgfastError) and len(choices) != n and ints:
        assert not isinstance(error, (InvalidPositionError, IllegalMoveError)), (
            f"a wrong number of choices is not a position or a move: {error!r}"
        )
        text = str(error).lower()
        assert str(n) in text and any(w in text for w in ("choice", "game", "ind")), str(error)
    env.step(np.zeros(n, dtype=np.int64))  # still usable
    reference.step(np.zeros(n, dtype=np.int64))
    assert np.array_equal(env.positions, reference.positions)


def _best(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The documented choice: the highest score, the first of equals (no NaN: refused)."""
    out = []
    for i in range(len(offsets) - 1):
        seg = scores[offsets[i] : offsets[i + 1]]
        out.append(max(range(len(seg)), key=lambda j: (seg[j], -j)))
    return np.array(out, dtype=np.int64)


score_values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from([math.nan, math.inf, -math.inf, 0.0, 1e300, -1e300]),
)


@CONTRACT
@given(st.integers(1, 3), st.integers(0, 1000), st.data())
def test_vecenv_step_scores(n: int, seed: int, data: st.DataObject) -> None:
    env, reference = VecEnv(n, seed=seed), VecEnv(n, seed=seed)
    features, offsets = env.candidates()
    m = len(features)
    length = data.draw(st.sampled_from([m, m, m, m - 1, m + 1, 0, 1]))
    scores = data.draw(st.lists(score_values, min_size=length, max_size=length))
    before = _state(env)
    outcome = check(lambda: env.step_scores(scores))
    nan = any(math.isnan(s) for s in scores)
    if outcome.ok:
        assert length == m, f"{length} scores accepted for {m} candidates"
        assert not nan, "a NaN score was played as if it had an order"
        reference.step(_best(np.array(scores, dtype=np.float64), offsets))
        assert np.array_equal(env.positions, reference.positions), "not the best candidate"
        return
    assert length != m or nan, f"refused: {outcome.error!r}"
    assert _unchanged(before, _state(env)), "a rejected step changed the games"
    error = outcome.error
    assert isinstance(error, BgfastError), repr(error)
    assert not isinstance(error, InvalidPositionError), f"scores are not positions: {error!r}"
    text = str(error).lower()
    named_length = str(m) in text and ("score" in text or "candidate" in text)
    assert named_length or (nan and "nan" in text), str(error)


@pytest.mark.parametrize("scores", [["a"], None, 0.0, [object()], "abc", {}])
def test_vecenv_step_scores_of_other_types(scores: Any) -> None:
    env = VecEnv(2, seed=1)
    before = _state(env)
    error = rejects(lambda: env.step_scores(scores), (BgfastError, TypeError))
    assert _unchanged(before, _state(env))
    assert not isinstance(error, InvalidPositionError), repr(error)


# segment_argmax


@CONTRACT
@given(
    st.lists(score_values, max_size=6),
    st.lists(st.one_of(st.integers(-2, 8), st.sampled_from([2**63, 1.5])), max_size=5),
)
@example([1.0, 2.0, 3.0], [0, 2])
@example([1.0, 2.0, 3.0], [0, 2**63])
@example([1.0, 2.0, 3.0], [3, 0])
def test_segment_argmax_any_offsets(scores: list[float], offsets: list[Any]) -> None:
    outcome = check(lambda: segment_argmax(scores, np.array(offsets)))
    ints = all(isinstance(o, int) for o in offsets)
    good = (
        ints
        and len(offsets) >= 1
        and offsets[0] == 0
        and offsets[-1] == len(scores)
        and all(a <= b for a, b in zip(offsets, offsets[1:]))
    )
    if outcome.ok:
        assert good, f"offsets {offsets} accepted for {len(scores)} scores"
        assert outcome.value.shape == (len(offsets) - 1,)
    else:
        assert not good, f"refused: {outcome.error!r}"


@CONTRACT
@given(st.lists(st.lists(score_values, max_size=4), min_size=1, max_size=4))
def test_segment_argmax_picks_the_documented_best(groups: list[list[float]]) -> None:
    scores = np.array([s for g in groups for s in g], dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum([len(g) for g in groups])]).astype(np.int64)
    if np.isnan(scores).any():
        rejects(lambda: segment_argmax(scores, offsets), BgfastError, "NaN")
        return
    got = segment_argmax(scores, offsets)
    for i, g in enumerate(groups):
        if g:
            assert got[i] == _best(np.array(g), np.array([0, len(g)]))[0]
        else:
            assert got[i] == 0


def test_special_values_are_used() -> None:
    assert 2**31 - 255 in SPECIAL


@pytest.mark.parametrize(
    ("attribute", "value"),
    [("scheme", "nope"), ("scheme", "pubeval"), ("n", 2**70), ("n", 0), ("seed", -1)],
)
def test_vecenv_attributes_set_after_construction(attribute: str, value: Any) -> None:
    """``n``, ``seed`` and ``scheme`` are checked by the constructor; set afterwards they
    must be refused (read-only) or checked on use, and ``width`` must keep matching."""
    env = VecEnv(2, seed=1)
    try:
        setattr(env, attribute, value)
    except AttributeError:
        return  # read-only: fine
    for call in (env.observe, env.candidates, env.reset):
        outcome = check(call)
        if outcome.ok:
            features = outcome.value[0] if isinstance(outcome.value, tuple) else outcome.value
            assert features.shape[1] == env.width, f"width {env.width}, features {features.shape}"
        else:
            assert not isinstance(outcome.error, InvalidPositionError), repr(outcome.error)
