"""An adversarial pass over the batched cube model (``bgfast.cubeful.cube_values``, the
native ``_core.CubeModel``), ``cubeful.decide``'s checks, the shared cached stakes and the
cube limit counted by the engine's model (R17).

Defects found: chances a net rounded past 1 (wildbg_large's win is 1.0000001 at a sure
win) were refused, although the checks take a net's rounding elsewhere, so ``decide`` of
the net's own output failed and, now that the analysis values every roll's cube through
the checked ``cube_values``, so did ``bgfast.analyse`` of a game through a sure win; a
batch with several bad rows named a later one when an earlier row broke a check that ran
later (``cube_values`` promises the first bad row); and the native model aborted the
interpreter when its result did not fit in memory (it is now allocated fallibly: a
``MemoryError``). The rest pins down what
held: hostile dtypes and layouts, numpy scalars as the cube life, stakes subclassed or
built with ``dataclasses.replace``, many threads at once, the shared stakes' immutability,
and the model's sanity over every cube, limit and score.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import decimal
import functools
import itertools
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import cubeful
from bgfast.cubeful import Stakes, cube_values, decide
from bgfast.errors import BgfastError
from bgfast.vocab import CUBE_LIMIT

ROW = [0.72, 0.12, 0.0, 0.05, 0.0]
MONEY = Stakes.check()
OWNERS = ("centred", "mover", "opponent")


def _random_chances(n: int, seed: int = 1) -> npt.NDArray[np.float32]:
    """``n`` rows of five chances that fit together, gammonless, gammonish and
    backgammon-heavy, with the corners (sure wins and losses, all gammons) first."""
    rng = np.random.default_rng(seed)
    win = rng.random(n)
    win_g = win * rng.random(n) * rng.choice([0, 1, 1], n)
    win_bg = win_g * rng.random(n) * rng.choice([0, 1], n)
    lose_g = (1 - win) * rng.random(n) * rng.choice([0, 1, 1], n)
    lose_bg = lose_g * rng.random(n) * rng.choice([0, 1], n)
    p = np.stack([win, win_g, win_bg, lose_g, lose_bg], 1)
    p[:12] = [
        [0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1e-7, 0, 0, 1, 0],
        [1 - 1e-7, 1, 0, 0, 0],
        [0.5, 0.5, 0.5, 0.5, 0.5],
        [1, 1, 1, 0, 0],
        [0, 0, 0, 1, 1],
        [0, 1e-6, 1e-6, 1, 1],  # at the rounding tolerance
        [1, 1, 1, 1e-6, 1e-6],
        [0.25, 0, 0, 0, 0],
        [0.75, 0, 0, 0, 0],
        [0.5, 0, 0, 0, 0],
    ]
    return p.astype(np.float32)


CHANCES = _random_chances(400)


# ---------------------------------------------------------------------------- the rows


@pytest.mark.parametrize(
    ("rows", "named"),
    [
        # row 0 breaks a check that runs after the one row 1 breaks
        ([[0.9, 0.1, 0.0, 0.2, 0.0], [0.5, 0.1, 0.2, 0.0, 0.0]], r"row 0 .* lose gammon 0\.2"),
        # row 0 does not fit together, row 2 is out of range
        ([[0.5, 0.6, 0.0, 0.2, 0.0], ROW, [2.0, 0, 0, 0, 0]], r"row 0 .* win gammon 0\.6"),
        ([ROW, [0.5, 0.6, 0.0, 0.0, 0.0], [np.nan, 0, 0, 0, 0]], r"row 1 .* win gammon 0\.6"),
        ([ROW, [np.inf] * 5, [0.5, 0.6, 0.0, 0.0, 0.0]], r"from 0 to 1 .* row 1 "),
    ],
)
def test_the_first_bad_row_is_the_one_named(rows: list[list[float]], named: str) -> None:
    with pytest.raises(BgfastError, match=named):
        cube_values(rows, MONEY)


def _same_rows_as_float64(rows: Any) -> npt.NDArray[np.float64]:
    return np.asarray(np.asarray(rows).tolist(), dtype=np.float64)


def _matrix(rows: npt.NDArray[np.float64]) -> Any:
    with warnings.catch_warnings():  # numpy discourages np.matrix; callers still have them
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(rows)


def _accepted_layouts() -> list[tuple[str, Any]]:
    base = CHANCES[:40].astype(np.float64)
    read_only = base.copy()
    read_only.setflags(write=False)
    wide = np.zeros((40, 12))
    wide[:, 3:8] = base
    return [
        ("ints", np.array([[1, 0, 0, 0, 0], [0, 0, 0, 1, 1]], dtype=np.int16)),
        ("float16", base[12:].astype(np.float16)),  # (rounding takes 1e-6 past the tolerance)
        ("big-endian float64", base.astype(">f8")),
        ("big-endian float32", base.astype(">f4")),
        ("long double", base.astype(np.longdouble)),
        ("every third row", np.repeat(base, 3, axis=0)[::3]),
        ("a slice of wider rows", wide[:, 3:8]),
        ("Fortran order", np.asfortranarray(base)),
        ("read-only", read_only),
        ("one row broadcast", np.broadcast_to(base[4], (40, 5))),
        ("a matrix", _matrix(base)),
        ("a memoryview", memoryview(np.ascontiguousarray(base))),  # type: ignore[arg-type]
        ("lists of lists", base.tolist()),
        ("tuples of numpy scalars", tuple(tuple(np.float32(x) for x in r) for r in base)),
    ]


@pytest.mark.parametrize(
    ("name", "rows"), [pytest.param(name, rows, id=name) for name, rows in _accepted_layouts()]
)
def test_any_dtype_and_layout_of_numbers_gives_the_plain_arrays_answer(
    name: str, rows: Any
) -> None:
    want = cube_values(_same_rows_as_float64(rows), MONEY)
    got = cube_values(rows, MONEY)
    assert got.dtype == np.float64 and got.flags.c_contiguous
    assert np.array_equal(got, want), name


def test_the_callers_rows_are_left_as_they_were_and_the_answer_is_the_callers() -> None:
    rows = CHANCES[:50].copy()
    before = rows.copy()
    for stakes in (MONEY, Stakes.check(backgammon_counts_double=True)):
        values = cube_values(rows, stakes)
        assert np.array_equal(rows, before)  # the R16 option zeroes a copy's backgammons
        values[:] = 99.0  # the answer is the caller's own: the next one is unchanged
        assert np.all(cube_values(rows, stakes) < 99.0)


@pytest.mark.parametrize(
    "rows",
    [
        np.array([[True, False, False, False, False]]),
        np.array([ROW], dtype=object),
        np.array([ROW], dtype=complex),
        np.array([ROW]).astype(str),
        np.zeros(3, dtype=[("p", "f8", (5,))]),
        np.float64(0.5),
        np.array(ROW),
        np.array([[ROW]]),
        np.zeros((0, 0)),
        [],
        [ROW, ROW[:4]],
        [ROW, [0.5, 0.1, 0.0, 0.1, None]],
        [[10**30, 0, 0, 0, 0]],
        (row for row in [ROW]),
        "chances",
        {0: ROW},
    ],
    ids=lambda x: f"{type(x).__name__} {getattr(x, 'dtype', '')} {getattr(x, 'shape', '')}",
)
def test_what_are_not_rows_of_numbers_are_refused(rows: Any) -> None:
    with pytest.raises(BgfastError, match="rows of five numbers"):
        cube_values(rows, MONEY)


@pytest.mark.parametrize(
    "row",
    [
        [1 + 2e-6, 0, 0, 0, 0],
        [0.5, -2e-6, 0, 0, 0],
        [0.5, 0, 0, 0, -0.0001],
        [np.nan, 0, 0, 0, 0],
        [0.5, 0, 0, np.inf, 0],
        [0.5, 0, 0, 0, -np.inf],
    ],
    ids=str,
)
def test_chances_outside_0_to_1_are_refused_by_both(row: Any) -> None:
    with pytest.raises(BgfastError, match="from 0 to 1"):
        cube_values([row], MONEY)
    with pytest.raises(BgfastError, match="from 0 to 1"):
        decide(row)


#: wildbg_large's chances for the side to move in ``G354AAT/AQAAAA``: its softmax head's win
#: (the sum of three outcomes) rounds to 1.0000001.
SURE_WIN = np.array([1.0000001, 0.8868914, 6.49378e-06, 3.14547e-11, 3.11393e-11], np.float32)


@pytest.mark.parametrize(
    ("row", "taken"),
    [
        (SURE_WIN, [1.0, *SURE_WIN[1:].tolist()]),
        ([1 + 1e-9, 0, 0, 0, 0], [1, 0, 0, 0, 0]),
        ([0.5, -1e-12, 0, 0, 0], [0.5, 0, 0, 0, 0]),
        ([1e-7, 0, 0, 1 + 5e-7, 0], [1e-7, 0, 0, 1, 0]),
    ],
    ids=["a net's sure win", "1 + 1e-9", "-1e-12", "lose gammon 1 + 5e-7"],
)
def test_chances_rounded_past_0_or_1_are_taken_as_0_or_1(row: Any, taken: list[float]) -> None:
    """A net's float32 chances may pass 1 by a rounding, as they may break the relations
    between them (``_CHANCE_TOLERANCE``): decide and cube_values take them as 0 and 1."""
    want = cube_values(np.array([taken]), MONEY)
    assert np.array_equal(cube_values(np.array([row]), MONEY), want)
    d = decide(row)
    assert (d.no_double, d.double_take, d.double_pass, d.value) == tuple(want[0])


def test_a_game_analysed_with_wildbg_large_through_a_sure_win() -> None:
    """The analysis values every roll's cube by cube_values, checked: a roll at a sure
    win, where wildbg_large's win came out 1.0000001 (its outputs' sum rounded past 1; it
    is kept at 1 now), made it refuse the whole game."""
    net = bgfast.Net.wildbg_large()
    sure = bgfast.Position.from_id("G354AAT/AQAAAA")
    assert net.evaluate(bgfast.batch.to_array([sure]))[0, 0] == 1.0
    opening = bgfast.Game(seed=1)
    opening.roll()
    opening.move(opening.legal_moves()[0])
    opening.commit()
    money_match_id = opening.gnubg_id().split(":")[1]  # money, the cube centred, to roll
    game = bgfast.Game.from_gnubg_id(f"G354AAT/AQAAAA:{money_match_id}")
    game.roll((6, 5))
    game.move(game.legal_moves()[0])
    analysis = bgfast.analyse(game, net=net)
    assert analysis is not None


def test_decide_takes_what_cube_values_takes_for_one_row() -> None:
    for rows in (
        np.array(ROW, dtype=np.float16),
        np.array(ROW, dtype=">f8"),
        np.array([ROW]),  # one row of a batch
        np.array(ROW * 2)[::2][[0, 3, 1, 4, 2]],
    ):
        d = decide(rows)
        values = cube_values(np.asarray(rows, dtype=np.float64).reshape(1, 5), MONEY)[0]
        assert (d.no_double, d.double_take, d.double_pass, d.value) == tuple(values)
    for bad in (np.array(ROW, dtype=complex), np.array(ROW, dtype=object), [True] * 5):
        with pytest.raises(BgfastError, match="five numbers"):
            decide(bad)


def test_a_million_rows_of_one_broadcast_row_are_answered_row_by_row() -> None:
    rows = np.broadcast_to(np.array(ROW), (1_000_000, 5))  # no memory of its own
    values = cube_values(rows, MONEY)
    assert values.shape == (1_000_000, 4)
    assert np.array_equal(values, np.broadcast_to(cube_values([ROW], MONEY), values.shape))


def test_a_result_too_large_for_memory_is_a_memory_error() -> None:
    """Under a memory limit, a batch whose (N, 4) result does not fit is a MemoryError that
    leaves the interpreter alive, not an abort. The rows are one row broadcast (no memory),
    given to the native model as they are, so its result is the one large allocation."""
    script = """
import resource, numpy as np
from bgfast import _core
from bgfast.cubeful import Stakes
stakes = Stakes.check()
model = _core.CubeModel(stakes.cube(), stakes.native(), 0.68)
rows = np.broadcast_to(np.array([0.72, 0.12, 0, 0.05, 0], dtype=np.float32), (10**8, 5))
status = open("/proc/self/status").read().split("VmSize:")[1].split()[0]
_, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (int(status) * 1024 + (1 << 30), hard))
try:
    model.values(rows)  # 3.2 GB of float64
except MemoryError:
    print("MemoryError")
"""
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip() == "MemoryError", run.stderr[-300:]


# ---------------------------------------------------------------------------- cube life


@pytest.mark.parametrize(
    "life",
    [np.float32(0.5), np.float16(0.5), np.longdouble(0.5), np.float64(0.5), np.int64(1), 0],
    ids=repr,
)
def test_numpy_scalars_are_cube_lives(life: Any) -> None:
    want = cube_values(CHANCES[:20], MONEY, float(life))
    assert np.array_equal(cube_values(CHANCES[:20], MONEY, life), want)
    d = decide(ROW, cube_life=life)
    assert (d.no_double, d.double_take) == tuple(cube_values([ROW], MONEY, float(life))[0, :2])


@pytest.mark.parametrize(
    "life",
    [np.bool_(True), True, np.array(0.5), np.nan, -1e-9, 1 + 1e-9, "0.5", decimal.Decimal("0.5")],
    ids=repr,
)
def test_what_is_not_a_cube_life_is_refused(life: Any) -> None:
    with pytest.raises(BgfastError, match="cube_life"):
        cube_values(CHANCES[:2], MONEY, life)
    with pytest.raises(BgfastError, match="cube_life"):
        decide(ROW, cube_life=life)


# ---------------------------------------------------------------------------- stakes


class _MyStakes(Stakes):
    """A caller's own stakes class."""


def test_subclassed_and_replaced_stakes_give_the_checked_stakes_values() -> None:
    checked = Stakes.check(cube=(2, "mover"), match_length=7, score=(3, 4), max_cube=8)
    fields = {f.name: getattr(checked, f.name) for f in dataclasses.fields(Stakes)}
    want = cube_values(CHANCES, checked)
    mine = _MyStakes(**fields)
    assert np.array_equal(cube_values(CHANCES, mine), want)
    assert type(mine.for_opponent()) is _MyStakes
    # Built by replace() from other stakes, with other spellings of the same things.
    assert dataclasses.replace(MONEY, cube_owner="center", jacoby=np.False_) == MONEY  # type: ignore[arg-type]
    replaced = dataclasses.replace(
        MONEY,
        cube_value=2,
        cube_owner="opponent",
        match_length=7,
        score=[3, 4],  # type: ignore[arg-type]
        max_cube=8,
    )
    assert replaced == Stakes.check(cube=(2, "opponent"), match_length=7, score=(3, 4), max_cube=8)
    replaced = dataclasses.replace(replaced, cube_owner="mover")
    assert replaced == checked and hash(replaced) == hash(checked)
    assert np.array_equal(cube_values(CHANCES, replaced), want)
    with pytest.raises(BgfastError, match="past the game's limit"):
        dataclasses.replace(checked, max_cube=1)
    with pytest.raises(TypeError, match="Stakes"):
        cube_values(CHANCES, fields)  # type: ignore[arg-type]


def test_the_shared_stakes_cannot_be_changed_by_a_caller() -> None:
    """``Stakes.of(position)`` and ``for_opponent`` hand the same objects to every caller:
    assignment and deletion are refused, and values built on them stay the same."""
    position = bgfast.Position.from_id("4HPwATDgc/ABMA")
    shared = Stakes.of(position)
    theirs = Stakes.check(cube=(2, "mover"), max_cube=4).for_opponent()
    assert theirs is Stakes.check(cube=(2, "mover"), max_cube=4).for_opponent()
    want = [cube_values(CHANCES, s) for s in (shared, theirs)]
    for s in (shared, theirs):
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.cube_value = 4  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del s.cube_owner
        dataclasses.replace(s, cube_value=1, max_cube=2)  # a new object, checked
    net = bgfast.Net.wildbg()
    bgfast.hint(net, position, (3, 1), stakes=theirs)
    bgfast.hint(net, position, (3, 1))
    assert Stakes.of(position) is shared and shared == Stakes.check()
    assert theirs == Stakes.check(cube=(2, "opponent"), max_cube=4)
    assert all(np.array_equal(cube_values(CHANCES, s), w) for s, w in zip((shared, theirs), want))


def test_the_package_sets_frozen_fields_only_on_objects_it_is_building() -> None:
    """``object.__setattr__`` (the one way round a frozen dataclass) is applied only to
    ``self``, in the package's own classes: nothing changes shared stakes after the fact."""
    package = Path(bgfast.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "__setattr__"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "object"
            ):
                target = node.args[0]
                assert isinstance(target, ast.Name) and target.id == "self", (
                    f"{path.name}:{node.lineno}"
                )


# ---------------------------------------------------------------------------- threads


def _stakes_of_every_kind() -> list[Stakes]:
    found = [
        Stakes.check(cube=(c, o), max_cube=limit, jacoby=c == 1, beavers=o == "opponent")
        for c in (1, 2, 4)
        for o in OWNERS
        for limit in (4, 8, CUBE_LIMIT)
        if c * 2 <= limit
    ]
    for length in (5, 7, 11):
        for mine in range(0, length, 2):
            for theirs in range(0, length, 3):
                crawford = False if 1 in (length - mine, length - theirs) else None
                for cube in ((1, "centred"), (2, "mover"), (2, "opponent")):
                    found.append(
                        Stakes.check(
                            cube=cube,
                            match_length=length,
                            score=(mine, theirs),
                            crawford=crawford,
                            max_cube=4 if mine == 0 else CUBE_LIMIT,
                        )
                    )
    return found


def test_many_threads_at_many_stakes_get_the_single_threaded_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """cube_values and hint from 16 threads at once, each walking the stakes from its own
    start, with the models' and the opponents' caches kept small so that they drop
    entries under the threads: every answer is the one a single thread gets."""
    stakes = _stakes_of_every_kind()
    net = bgfast.Net.wildbg()
    position = bgfast.Position.from_id("4HPwATDgc/ABMA")

    def hinted(s: Stakes) -> list[tuple[str, float]]:
        return [
            (str(h.move), h.cubeful_equity) for h in bgfast.hint(net, position, (6, 4), stakes=s)
        ]

    want = [cube_values(CHANCES, s) for s in stakes]
    want_hints = [hinted(s) for s in stakes[::5]]
    small_models = functools.lru_cache(maxsize=3)(cubeful._model.__wrapped__)
    small_views = functools.lru_cache(maxsize=3)(cubeful._seen_by_the_opponent.__wrapped__)
    monkeypatch.setattr(cubeful, "_model", small_models)
    monkeypatch.setattr(cubeful, "_seen_by_the_opponent", small_views)
    failures: list[str] = []
    start = threading.Barrier(16)

    def client(k: int) -> None:
        try:
            start.wait()
            for i in [*range(k, len(stakes)), *range(k)]:
                if not np.array_equal(cube_values(CHANCES, stakes[i]), want[i]):
                    failures.append(f"cube_values {k} {stakes[i].words()}")
                if i % 5 == 0 and hinted(stakes[i]) != want_hints[i // 5]:
                    failures.append(f"hint {k} {stakes[i].words()}")
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(repr(error))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures, failures[:5]
    assert small_models.cache_info().misses > len(stakes)


# ---------------------------------------------------------------------------- the model


def _money_stakes() -> list[Stakes]:
    return [
        Stakes.check(cube=(c, o), jacoby=jacoby, beavers=beavers, max_cube=limit)
        for limit in (1 << k for k in range(16))
        for c in (1 << k for k in range(16))
        if c <= limit
        for o in OWNERS
        for jacoby, beavers in ((False, False), (True, True))
    ]


def _match_stakes(lengths: tuple[int, ...] = (1, 2, 3, 7, 11, 25)) -> list[Stakes]:
    found = []
    for length in lengths:
        for mine, theirs, (rule, crawford), limit, c, o in itertools.product(
            range(length),
            range(length),
            ((True, None), (True, False), (False, None)),
            (1, 2, 4, 16, 1 << 14, CUBE_LIMIT),
            (1, 2, 4, 8, 16),
            OWNERS,
        ):
            with contextlib.suppress(BgfastError):  # a cube the score or limit refuses
                found.append(
                    Stakes.check(
                        cube=(c, o),
                        match_length=length,
                        score=(mine, theirs),
                        crawford=crawford,
                        crawford_rule=rule,
                        max_cube=limit,
                    )
                )
    return list(dict.fromkeys(found))


MONEY_STAKES = _money_stakes()
MATCH_STAKES = _match_stakes()


def _check_sane(stakes: Stakes, values: npt.NDArray[np.float64]) -> None:
    assert np.isfinite(values).all(), stakes.words()
    no_double, take, cash, value = values.T
    if stakes.is_match:
        # (a sure loss's double/take comes out of sums of products: -1e-17, say)
        assert ((values >= -1e-12) & (values <= 1 + 1e-12)).all(), stakes.words()
        assert np.all(cash == stakes.match_value(True)), stakes.words()
    else:
        assert (np.abs(no_double) <= 3 + 1e-9).all() and (np.abs(take) <= 6 + 1e-9).all()
        assert (cash == 1).all(), stakes.words()
    # The value after the cube action: a double where the side to move may double and the
    # opponent's better answer (pass where taking is no better for it) beats no double.
    answer = np.minimum(take, cash)
    may = stakes.why_no_double() is None
    assert np.array_equal(value, np.where(may & (answer > no_double), answer, no_double))


@pytest.mark.parametrize("kind", ["money", "match"])
def test_the_model_is_sane_at_every_cube_limit_and_score(kind: str) -> None:
    every = MONEY_STAKES if kind == "money" else MATCH_STAKES
    assert len(every) > (800 if kind == "money" else 30_000)
    rows = CHANCES[:60]
    for stakes in every:
        _check_sane(stakes, cube_values(rows, stakes))


@pytest.mark.parametrize("kind", ["money", "match"])
def test_a_take_is_worth_the_opponents_cube_twice_as_high(kind: str) -> None:
    """Double/take at a cube is no double at twice the cube the opponent owns (money
    values per unit of the cube now: twice it), whatever the limit and the score."""
    every = MONEY_STAKES if kind == "money" else _match_stakes((3, 7, 11))
    checked = 0
    for stakes in every:
        if stakes.why_no_double() is not None:
            continue
        taken = dataclasses.replace(stakes, cube_value=2 * stakes.cube_value, cube_owner="opponent")
        take = cube_values(CHANCES, stakes)[:, 1]
        after = cube_values(CHANCES, taken)[:, 0]
        assert np.array_equal(take, after if stakes.is_match else 2 * after), stakes.words()
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("kind", ["money", "match"])
def test_values_rise_with_the_chance_to_win(kind: str) -> None:
    """With the shares of gammons held, more wins are never worth less, at any limit."""
    win = np.linspace(0.0, 1.0, 401)
    every = MONEY_STAKES[::3] if kind == "money" else _match_stakes((3, 7))[::7]
    for share in (0.0, 0.3):
        rows = np.stack([win, win * share, 0.1 * win * share, (1 - win) * share, 0 * win], 1)
        for stakes in every:
            values = cube_values(rows, stakes)
            assert (np.diff(values, axis=0) >= -1e-9).all(), (stakes.words(), share)


def test_a_far_limit_is_no_limit() -> None:
    """A limit of 16,384 values the cube as none does: the same in a match (no score
    reaches the levels it cuts); in money play within 1e-5 for chances with fewer gammons
    than 70 % of the wins and losses (the doubles the limit leaves count less the more
    gammons there are: up to 1e-3 when every game is a backgammon)."""
    rows = CHANCES.astype(np.float64)
    win = rows[:, 0]
    wins = 1 + (rows[:, 1] + rows[:, 2]) / np.maximum(win, 1e-9)
    losses = 1 + (rows[:, 3] + rows[:, 4]) / np.maximum(1 - win, 1e-9)
    ordinary = (wins <= 1.7) & (losses <= 1.7)
    assert ordinary.sum() > 100
    for o in OWNERS:
        for jacoby in (False, True):
            stakes = Stakes.check(cube=(1, o), jacoby=jacoby)
            far = dataclasses.replace(stakes, max_cube=1 << 14)
            gap = np.abs(cube_values(rows, stakes) - cube_values(rows, far))
            assert gap[ordinary].max() < 1e-5 and gap.max() < 1e-3, stakes.words()
    for stakes in MATCH_STAKES[::11]:
        if stakes.max_cube == CUBE_LIMIT:
            far = dataclasses.replace(stakes, max_cube=1 << 14)
            assert np.array_equal(cube_values(rows, stakes), cube_values(rows, far))


def test_decides_actions_match_its_values() -> None:
    """The action and the answer to a double follow the three values: a take only where
    taking is better for the taker (double/take below double/pass), a double only where
    it beats no double, and the value the action's."""
    rng = np.random.default_rng(7)
    every = MONEY_STAKES + MATCH_STAKES
    for k in rng.integers(0, len(every), 1500):
        stakes = every[k]
        p = CHANCES[rng.integers(0, len(CHANCES))]
        d = cubeful.decide_for(p, stakes, cubeful.DEFAULT_CUBE_LIFE)
        nd, dt, dp = d.no_double, d.double_take, d.double_pass
        assert d.answer == ("pass" if dt >= dp else "beaver" if d.answer == "beaver" else "take")
        if d.answer == "beaver":
            # A beaver may be passed: it beats a take only within twice the cube.
            assert stakes.may_beaver and -2 <= dt < 0
        if not d.may_double:
            assert d.action.startswith("no ") and d.value == nd
            continue
        if d.action.startswith(("no ", "too good")):
            assert d.value == nd, d
        else:
            assert d.value == min(dt, dp), d
        # A double worth exactly not doubling is a double, as GNU Backgammon names it.
        if d.action.endswith(", beaver"):
            # "no double, beaver" when twice the take is worth less than not doubling.
            assert d.action.startswith("no ") == (2 * dt < nd) and nd <= dt < dp, d
        elif d.action.startswith("too good"):
            # Playing on beats the pass: the opponent would pass, or take (", take").
            assert dp < nd and (dt < dp) == d.action.endswith(", take"), d
        elif d.action.endswith("pass"):
            assert dp <= dt and dp >= nd, d
        elif d.action.endswith("take"):
            assert nd <= dt < dp, d
        else:
            assert d.action.startswith("no ") and min(dt, dp) < nd <= dp, d
