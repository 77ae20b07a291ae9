"""Bear-off databases: the index, the one-sided and two-sided tables, the disk cache.

Oracles: GNU Backgammon's PyPI bindings (test-only). ``gnubg.positionbearoff`` numbers
positions; ``gnubg_nn.bearoff_probabilities`` reads its shipped one-sided database
(``gnubg_os0.bd``, 16-bit fractions); its two-sided database ``gnubg_ts0.bd`` is read
directly from the ``gnubg`` package's data directory (format: ``makebearoff.c``).

Rules: R5 (doubles play four times), R8 (play all dice), R13 (bearing off needs every
checker home), R14 (exact and higher dice), R17/R19 (cube, take or pass).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import Position, bearoff
from bgfast._core import BearoffFileError, BearoffRangeError, OneSidedTable, TwoSidedTable

gnubg = pytest.importorskip("gnubg")
gnubg_nn = pytest.importorskip("gnubg_nn")

N1 = 54_264  # one-sided positions
N2 = 924  # two-sided positions per side
UNIT = 65_535.0  # GNU Backgammon stores probabilities as x / 65535
GNUBG_DATA = Path(gnubg.__file__).parent / "data"


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test here uses a private cache directory (built once for the module)."""
    path = tmp_path_factory.mktemp("bgfast-cache")
    old = os.environ.get("BGFAST_CACHE_DIR")
    os.environ["BGFAST_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        del os.environ["BGFAST_CACHE_DIR"]
    else:
        os.environ["BGFAST_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def all_points() -> npt.NDArray[np.uint8]:
    """Every one-sided position, by index."""
    return bearoff.position_batch(np.arange(N1))


@pytest.fixture(scope="module")
def gnubg_one_sided() -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """GNU Backgammon's one-sided file: (rolls, gammon) as raw 16-bit units, (N1, 32)."""
    data = (GNUBG_DATA / "gnubg_os0.bd").read_bytes()
    assert data.startswith(b"gnubg-OS-06-15-1-1")  # 6 points, 15 checkers, gammon, compressed
    index = np.frombuffer(data, dtype=np.uint8, count=N1 * 8, offset=40).reshape(N1, 8)
    offsets = index[:, :4].copy().view("<u4")[:, 0].astype(np.int64)
    values = np.frombuffer(data, dtype="<u2", offset=40 + N1 * 8)
    rolls = np.zeros((N1, 32))
    gammon = np.zeros((N1, 32))
    for i in range(N1):
        nz, start, nzg, gstart = (int(x) for x in index[i, 4:])
        o = offsets[i]
        rolls[i, start : start + nz] = values[o : o + nz]
        gammon[i, gstart : gstart + nzg] = values[o + nz : o + nz + nzg]
    return rolls, gammon


@pytest.fixture(scope="module")
def gnubg_two_sided() -> npt.NDArray[np.float64]:
    """GNU Backgammon's two-sided file: (924, 924, 4) raw 16-bit units, mover-major:
    cubeless, cube owned, centred, owned by the opponent."""
    data = (GNUBG_DATA / "gnubg_ts0.bd").read_bytes()
    assert data.startswith(b"gnubg-TS-06-06-1")  # 6 points, 6 checkers, cubeful
    raw = np.frombuffer(data, dtype="<u2", offset=40).reshape(N2, N2, 4)
    return raw.astype(np.float64)


@pytest.fixture(scope="module")
def compat() -> OneSidedTable:
    """GNU Backgammon's method reproduced (16-bit rounding, its move order)."""
    return OneSidedTable.build_gnubg_compatible()


def gnubg_nn_rolls(index: int) -> npt.NDArray[np.float64]:
    """gnubg_nn's rolls distribution as our layout (its tuple starts at one roll)."""
    probs = gnubg_nn.bearoff_probabilities(index)
    out = np.zeros(32)
    out[1 : 1 + len(probs)] = probs
    return out


# The index


def test_cli_build_fills_the_cache(cache_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # First in the file on purpose: later tests load these files instead of building.
    assert bearoff.cli_build(["--cache-dir", str(cache_dir)]) == 0
    out = capsys.readouterr()
    # The progress bar is drawn on a terminal only (tests/test_cli.py draws it on one).
    assert "bearoff-one-sided-v1.bin" in out.out and out.err == ""
    assert bearoff.cli_build(["--cache-dir", str(cache_dir)]) == 0
    assert "already cached" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bearoff.cli_build(["--threads", "0"])
    # The same subcommand mounted on a ``bgfast``-style parser.
    parser = argparse.ArgumentParser(prog="bgfast")
    bearoff.add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bearoff", "build", "--cache-dir", str(cache_dir)])
    assert args.run(args) == 0
    assert "already cached" in capsys.readouterr().out


def test_index_equals_gnubg_positionbearoff_for_every_position(
    all_points: npt.NDArray[np.uint8],
) -> None:
    for i, points in enumerate(all_points.tolist()):
        assert gnubg.positionbearoff([*points] + [0] * 19, 6, 15) == i
        assert bearoff.index(points) == i
    assert np.array_equal(bearoff.index_batch(all_points), np.arange(N1, dtype=np.uint32))


def test_position_inverts_index_like_gnubg(all_points: npt.NDArray[np.uint8]) -> None:
    for i in range(0, N1, 7):
        assert bearoff.position(i) == tuple(gnubg.positionfrombearoff(i, 15, 6)[:6])
        assert bearoff.position(i) == tuple(all_points[i])
    assert bearoff.position(0) == (0,) * 6
    assert bearoff.position(1) == (1, 0, 0, 0, 0, 0)
    assert bearoff.position(N1 - 1) == (0, 0, 0, 0, 0, 15)


def test_index_rejects_bad_input() -> None:
    for bad in ([1, 2, 3], [-1, 0, 0, 0, 0, 0], [16, 0, 0, 0, 0, 0], [3, 3, 3, 3, 3, 1]):
        with pytest.raises(bgfast.InvalidPositionError):
            bearoff.index(bad)
    with pytest.raises(BearoffRangeError, match=r"index 54264 out of range.* 0 to 54263$"):
        bearoff.position(N1)
    with pytest.raises(bgfast.InvalidPositionError, match="row 1"):
        bearoff.index_batch(np.array([[1, 0, 0, 0, 0, 0], [15, 1, 0, 0, 0, 0]], dtype=np.uint8))
    assert issubclass(BearoffRangeError, bgfast.BgfastError)
    assert issubclass(BearoffFileError, ValueError)


def test_too_many_checkers_cites_r1_only_past_fifteen() -> None:
    # Seven checkers a side are a position (R1 allows 15), only not one the two-sided table
    # covers; the message cited R1.
    seven = Position.from_array(
        np.array([[3, 2, 2] + [0] * 22, [1, 1, 1, 1, 1, 1] + [0] * 19], dtype=np.uint8)
    )
    with pytest.raises(BearoffRangeError, match=r"^7 checkers on one side's home points; .* 6 a"):
        bearoff.win_probability(seven)
    with pytest.raises(bgfast.InvalidPositionError, match=r"^R1: 16 checkers .* at most 15$"):
        bearoff.index([8, 8, 0, 0, 0, 0])


@pytest.mark.parametrize("bad", [-1, -(2**70), N1, 10**30, 2**200])
def test_index_errors_name_the_index_given_and_the_true_range(bad: int) -> None:
    # Regression: position(-1) said "index 0 out of range: valid indexes are 0..54264".
    expected = f"bear-off index {bad} out of range: valid indexes are 0 to 54263"
    with pytest.raises(BearoffRangeError) as caught:
        bearoff.position(bad)
    assert str(caught.value) == expected
    with pytest.raises(BearoffRangeError) as caught:
        bearoff.position_batch([0, 1, bad])
    assert str(caught.value) == f"row 2: {expected}"
    if -(2**63) <= bad < 2**63:
        with pytest.raises(BearoffRangeError) as caught:
            bearoff.position_batch(np.array([bad, 0], dtype=np.int64))
        assert str(caught.value) == f"row 0: {expected}"


def test_index_functions_take_any_integer_type_and_refuse_others() -> None:
    big = np.array([3, 2**63], dtype=np.uint64)
    with pytest.raises(BearoffRangeError, match=f"row 1: bear-off index {2**63} out of"):
        bearoff.position_batch(big)
    assert bearoff.position(np.int16(1)) == (1, 0, 0, 0, 0, 0)
    for dtype in (np.int8, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        assert bearoff.position_batch(np.array([1, 7], dtype=dtype)).tolist() == [
            [1, 0, 0, 0, 0, 0],
            [2, 0, 0, 0, 0, 0],
        ]
    with pytest.raises(TypeError, match="integer"):
        bearoff.position(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="row 1"):
        bearoff.position_batch([1, 1.5])
    with pytest.raises(TypeError):
        bearoff.position_batch("12")
    with pytest.raises(bgfast.InvalidPositionError, match="1-D"):
        bearoff.position_batch(np.zeros((2, 2)))
    # Dice of any size are an InvalidDiceError, not an OverflowError.
    with pytest.raises(bgfast.InvalidDiceError, match=str(2**70)):
        bearoff.best_play([1, 0, 0, 0, 0, 0], 2**70, 1)


# One-sided: closed forms


def test_one_checker_on_the_ace_needs_exactly_one_roll() -> None:
    d = bearoff.rolls_distribution([1, 0, 0, 0, 0, 0])
    assert d.shape == (32,) and d[1] == 1.0 and d.sum() == 1.0
    assert bearoff.expected_rolls([1, 0, 0, 0, 0, 0]) == 1.0
    assert bearoff.variance([1, 0, 0, 0, 0, 0]) == 0.0
    assert bearoff.rolls_distribution([0] * 6)[0] == 1.0  # nothing left: no roll


def test_single_checker_epcs_by_hand() -> None:
    # One checker on point p fails to come off in one roll only when the roll's pips fall
    # short (R14): p <= 3 never (1-1 moves 4); p = 4: 2-1; p = 5: 2-1, 3-1, 1-1; p = 6: also
    # 4-1, 3-2 (27/36 succeed). A second roll always finishes. EPC = E[rolls] x 49/6.
    misses = {1: 0, 2: 0, 3: 0, 4: 2, 5: 5, 6: 9}
    for p, miss in misses.items():
        points = [0] * 6
        points[p - 1] = 1
        assert bearoff.epc(points) == pytest.approx((1 + miss / 36) * 49 / 6, abs=1e-12)
    # Walter Trice's table of one-checker EPCs, to two decimals.
    trice = [8.17, 8.17, 8.17, 8.62, 9.30, 10.21]
    got = [round(bearoff.epc([int(i == p) for i in range(6)]), 2) for p in range(6)]
    assert got == trice


def test_fifteen_on_the_ace() -> None:
    # Each roll bears off 2 (4 with doubles, R5): 4 rolls only with four doubles, never
    # more than 8. The first checker always comes off in the first roll.
    d = bearoff.rolls_distribution([15, 0, 0, 0, 0, 0])
    assert d[4] == pytest.approx(1 / 6**4, abs=1e-15)
    assert d[:4].sum() == 0 and d[9:].sum() == 0
    assert bearoff.gammon_distribution([15, 0, 0, 0, 0, 0])[1] == 1.0
    # Fewer than 15 checkers: one is off, no gammon.
    assert bearoff.gammon_distribution([0, 0, 0, 0, 0, 14])[0] == 1.0


def test_distributions_sum_to_one_and_batches_match(all_points: npt.NDArray[np.uint8]) -> None:
    rolls = bearoff.rolls_distribution_batch(all_points)
    gammon = bearoff.gammon_distribution_batch(all_points)
    assert rolls.shape == (N1, 32) and gammon.shape == (N1, 32)
    assert np.abs(rolls.sum(1) - 1).max() < 1e-12
    assert np.abs(gammon.sum(1) - 1).max() < 1e-12
    means = (rolls * np.arange(32)).sum(1)
    assert np.allclose(bearoff.expected_rolls_batch(all_points), means, rtol=0, atol=1e-12)
    assert np.allclose(bearoff.epc_batch(all_points), means * 49 / 6, rtol=0, atol=1e-11)
    assert np.allclose(bearoff.epc_batch(all_points.astype(np.int64)), means * 49 / 6)
    for i in range(0, N1, 997):
        points = all_points[i].tolist()
        assert np.array_equal(bearoff.rolls_distribution(points), rolls[i])
        assert bearoff.epc(points) == pytest.approx(means[i] * 49 / 6, abs=1e-12)


def test_best_play_is_bear_off_perfect(all_points: npt.NDArray[np.uint8]) -> None:
    # Against the core move generator (R5, R8, R14): the opponent's 15 checkers sit on its
    # 6-point, out of reach. The chosen play has the fewest expected rolls of all results.
    assert bearoff.best_play([0, 0, 0, 0, 0, 2], 6, 6) == (0,) * 6
    assert bearoff.best_play([0] * 6, 6, 6) is None
    for i in range(1, N1, 1_009):
        points = all_points[i].tolist()
        mover = points + [0] * 19
        opponent = [0] * 25
        opponent[5] = 15
        start = Position.from_array([mover, opponent])
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                results = [m.result.to_array()[1][:6].tolist() for m in start.moves(d1, d2)]
                best = bearoff.best_play(points, d1, d2)
                assert best is not None and list(best) in results
                fewest = min(bearoff.expected_rolls(r) for r in results)
                assert bearoff.expected_rolls(best) == fewest
    with pytest.raises(bgfast.InvalidDiceError):
        bearoff.best_play([1, 0, 0, 0, 0, 0], 7, 1)


# One-sided: GNU Backgammon


def test_gnubg_compatible_build_reproduces_gnubg_file_exactly(
    all_points: npt.NDArray[np.uint8],
    gnubg_one_sided: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
    compat: OneSidedTable,
) -> None:
    # makebearoff's own method (16-bit rounding at every position, plays chosen by rounded
    # means in its move order), reproduced: identical to its shipped file, entry for entry.
    rolls, gammon = gnubg_one_sided
    assert np.array_equal(np.rint(compat.rolls_distribution_batch(all_points) * UNIT), rolls)
    assert np.array_equal(np.rint(compat.gammon_distribution_batch(all_points) * UNIT), gammon)


def _compare_with_gnubg_nn(compat: OneSidedTable, indexes: range | npt.NDArray[np.int64]) -> None:
    for i in indexes:
        i = int(i)
        points = bearoff.position(i)
        # gnubg_nn hands out its 16-bit values as C floats: agreement to float precision.
        ours = compat.rolls_distribution(points)
        assert np.abs(ours - gnubg_nn_rolls(i)).max() < 1e-7, points


def test_rolls_distribution_equals_gnubg_nn_sample(compat: OneSidedTable) -> None:
    _compare_with_gnubg_nn(compat, np.random.default_rng(20261129).integers(1, N1, 2_000))


@pytest.mark.slow
def test_rolls_distribution_equals_gnubg_nn_all_positions(compat: OneSidedTable) -> None:
    _compare_with_gnubg_nn(compat, range(1, N1))


def test_exact_table_agrees_with_gnubg_to_its_rounding(
    all_points: npt.NDArray[np.uint8],
    gnubg_one_sided: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
) -> None:
    # The exact table computes in f64 from exact children. GNU Backgammon rounds every
    # position to 1/65535 and picks plays by rounded means, so where two plays are within
    # its rounding it may pick the other one: expected rolls agree within 2.5e-4 rolls
    # everywhere (measured 2.0e-4), whole distributions within 0.003 (measured 0.0028,
    # 127 positions above 10 units), first-checker distributions within 2 units.
    rolls, gammon = gnubg_one_sided
    exact_rolls = bearoff.rolls_distribution_batch(all_points)
    exact_gammon = bearoff.gammon_distribution_batch(all_points)
    steps = np.arange(32)
    mean_gap = np.abs((exact_rolls - rolls / UNIT) @ steps)
    assert mean_gap.max() < 2.5e-4
    assert np.abs(exact_rolls - rolls / UNIT).max() < 0.003
    assert np.abs(exact_gammon - gammon / UNIT).max() < 2 / UNIT
    # Most positions agree to GNU Backgammon's resolution outright.
    close = (np.abs(exact_rolls - rolls / UNIT).max(1) <= 2 / UNIT).mean()
    assert close > 0.95


# Two-sided


def _all_pairs() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    six = bearoff.position_batch(np.arange(N2))
    return np.repeat(six, N2, axis=0), np.tile(six, (N2, 1))


def test_gnubg_compatible_two_sided_reproduces_gnubg_file_exactly(
    gnubg_two_sided: npt.NDArray[np.float64],
) -> None:
    # makebearoff's own arithmetic (16-bit equities, truncating averages, its cube rule),
    # reproduced on our move generator and shells: identical to its shipped file, all
    # 924 x 924 x 4 words. So the exact table below differs only by that rounding.
    words = TwoSidedTable.gnubg_compatible_words()
    assert words.shape == (N2, N2, 4) and words.dtype == np.uint16
    assert np.array_equal(words, gnubg_two_sided)


def test_two_sided_cubeless_agrees_with_gnubg_database(
    gnubg_two_sided: npt.NDArray[np.float64],
) -> None:
    # makebearoff truncates each 16-bit average (integer division by 36), so its errors
    # accumulate a little along the shells: within 4 units of 1/65535 (measured 3.7).
    # Every pair but (0, 0), where both sides have borne off everything (R15: no position).
    mover, opponent = _all_pairs()
    ours = bearoff.win_probability_batch(mover[1:], opponent[1:])
    theirs = gnubg_two_sided[:, :, 0].reshape(-1)[1:] / UNIT
    assert np.abs(ours - theirs).max() < 4 / UNIT


def test_two_sided_cubeful_agrees_with_gnubg_database(
    gnubg_two_sided: npt.NDArray[np.float64],
) -> None:
    # Stored equities e as (e + 1) x 65535 / 2; ours without the side on roll's own cube
    # action now, as GNU Backgammon stores them. Within 4 units of 2/65535 (measured 3.9).
    rng = np.random.default_rng(7)
    six = bearoff.position_batch(np.arange(N2))
    cubes: list[tuple[int, bearoff.Cube]] = [(1, "owned"), (2, "centred"), (3, "unavailable")]
    for k, cube in cubes:
        for u, t in rng.integers(1, N2, size=(1_500, 2)):
            pair = (six[u].tolist(), six[t].tolist())
            ours = bearoff.cubeful_equity(pair, cube, may_double=False)
            theirs = 2 * gnubg_two_sided[u, t, k] / UNIT - 1
            assert abs(ours - theirs) < 8 / UNIT, (cube, pair)


def test_two_sided_closed_forms() -> None:
    # A lone checker has one play per roll: one checker a side is an independent race.
    six_vs_ace = ([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])
    assert bearoff.win_probability(six_vs_ace) == pytest.approx(27 / 36, abs=1e-15)
    assert bearoff.win_probability(([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 6])) == 1.0
    # R17/R19: the side on roll doubles at 75% against a certain finisher; the opponent
    # passes (a take would cost twice 0.5). Not doubling is worth 2 x 0.75 - 1.
    assert bearoff.cubeful_equity(six_vs_ace, "centred") == 1.0
    assert bearoff.cubeful_equity(six_vs_ace, "owned") == 1.0
    assert bearoff.cubeful_equity(six_vs_ace, "unavailable") == pytest.approx(0.5, abs=1e-7)
    assert bearoff.cubeful_equity(six_vs_ace, "centred", may_double=False) == pytest.approx(
        0.5, abs=1e-7
    )
    with pytest.raises(bgfast.BgfastError, match="R17"):
        bearoff.cubeful_equity(six_vs_ace, "middle")  # type: ignore[arg-type]


def test_two_sided_cube_near_its_limit_r17() -> None:
    # doubles_left counts the turns left before the game's cube limit: 0 is a dead cube,
    # worth the cubeless equity; with one left a take gives the taker a dead cube, so the
    # doubler gets twice the cubeless equity; from 7 on it is the table of a cube that can
    # always be turned again (the engine's tests check every level against the game tree).
    rng = np.random.default_rng(3)
    six = bearoff.position_batch(np.arange(N2))
    cubes: tuple[bearoff.Cube, ...] = ("centred", "owned", "unavailable")
    changed = 0
    for u, t in rng.integers(1, N2, size=(300, 2)):
        pair = (six[u].tolist(), six[t].tolist())
        cubeless = 2 * bearoff.win_probability(pair) - 1
        for cube in cubes:
            for may_double in (False, True):
                assert bearoff.cubeful_equity(pair, cube, may_double, doubles_left=0) == cubeless
            no_double = bearoff.cubeful_equity(pair, cube, False, doubles_left=1)
            best = no_double if cube == "unavailable" else max(no_double, min(1.0, 2 * cubeless))
            assert bearoff.cubeful_equity(pair, cube, True, doubles_left=1) == best
            unlimited = bearoff.cubeful_equity(pair, cube)
            assert bearoff.cubeful_equity(pair, cube, doubles_left=15) == unlimited
            assert bearoff.cubeful_equity(pair, cube, doubles_left=None) == unlimited
            changed += abs(best - unlimited) > 1e-3
    assert changed > 30


@pytest.mark.parametrize(
    ("doubles_left", "error"),
    [(-1, bgfast.BgfastError), (16, bgfast.BgfastError), (2**70, bgfast.BgfastError)]
    + [(bad, TypeError) for bad in (1.5, "2", [1])],
)
def test_two_sided_cube_limit_must_be_a_count_of_doubles_r17(
    doubles_left: object, error: type[Exception]
) -> None:
    pair = ([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])
    with pytest.raises(error, match="R17: doubles_left"):
        bearoff.cubeful_equity(pair, doubles_left=doubles_left)  # type: ignore[arg-type]


def test_two_sided_best_play_maximises_winning_chances() -> None:
    # Against the core move generator: of every result of every roll, the chosen play
    # leaves the opponent (now on roll) the lowest winning chances.
    six = bearoff.position_batch(np.arange(N2))
    table = bearoff.two_sided()
    for u, t in np.random.default_rng(5).integers(1, N2, size=(40, 2)):
        mover, opponent = six[u].tolist(), six[t].tolist()
        start = Position.from_array([mover + [0] * 19, opponent + [0] * 19])
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                results = [m.result.to_array()[1][:6].tolist() for m in start.moves(d1, d2)]
                best = table.best_play((mover, opponent), d1, d2)
                assert best is not None and list(best) in results
                chances = [table.win_probability((opponent, r)) for r in results]
                assert table.win_probability((opponent, list(best))) == min(chances)


def test_two_sided_takes_positions_and_rejects_what_it_does_not_cover() -> None:
    mover = [0] * 25
    mover[5] = 1  # one on the 6-point
    opponent = [0] * 25
    opponent[0] = 1
    position = Position.from_array([mover, opponent])
    assert bearoff.win_probability(position) == pytest.approx(27 / 36, abs=1e-15)
    with pytest.raises(BearoffRangeError, match="at most 6"):
        bearoff.win_probability(([7, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]))
    with pytest.raises(BearoffRangeError, match="R13"):
        bearoff.win_probability(Position())
    with pytest.raises(BearoffRangeError, match="at most 6"):
        bearoff.win_probability_batch(
            np.array([[7, 0, 0, 0, 0, 0]], np.uint8), np.array([[1, 0, 0, 0, 0, 0]], np.uint8)
        )


def test_both_sides_borne_off_is_not_a_position_anywhere() -> None:
    # Regression (R15): win_probability(([0]*6, [0]*6)) answered 1.0 for what Position
    # rejects. Every two-sided entry point refuses it as Position does.
    empty = ([0] * 6, [0] * 6)
    table = bearoff.two_sided()
    calls = [
        lambda: bearoff.win_probability(empty),
        lambda: bearoff.cubeful_equity(empty),
        lambda: bearoff.cubeful_equity(empty, "owned", may_double=False),
        lambda: table.best_play(empty, 6, 5),
        lambda: bearoff.race_probabilities(*empty),
    ]
    for call in calls:
        with pytest.raises(bgfast.InvalidPositionError, match="R15"):
            call()
    zeros = np.zeros((3, 6), np.uint8)
    mover = zeros.copy()
    mover[0, 0] = 1
    for dtype in (np.uint8, np.int64):  # the fast path and the general one
        with pytest.raises(bgfast.InvalidPositionError, match=r"row 1: .*R15"):
            bearoff.win_probability_batch(mover.astype(dtype), zeros.astype(dtype))
    with pytest.raises(bgfast.InvalidPositionError, match="R15"):
        Position.from_array([[0] * 25, [0] * 25])
    # One side finished is a position: that side has won (seen from the side on roll).
    assert bearoff.win_probability(([0] * 6, [1, 0, 0, 0, 0, 0])) == 1.0
    assert bearoff.win_probability(([1, 0, 0, 0, 0, 0], [0] * 6)) == 0.0
    # A side with nothing left has won a single unless the other has borne off nothing.
    assert bearoff.race_probabilities([0] * 6, [1, 0, 0, 0, 0, 0]) == (1.0, 0.0, 0.0)
    assert bearoff.race_probabilities([0] * 6, [0, 0, 0, 0, 0, 15]) == (1.0, 1.0, 0.0)
    assert bearoff.race_probabilities([0, 0, 0, 0, 0, 15], [0] * 6) == (0.0, 0.0, 1.0)


def test_race_probabilities_against_the_two_sided_table() -> None:
    # One checker a side: no choices, the independent race is exact.
    singles = [[int(i == p) for i in range(6)] for p in range(6)]
    for mover in singles:
        for opponent in singles:
            win, win_gammon, lose_gammon = bearoff.race_probabilities(mover, opponent)
            assert win == pytest.approx(bearoff.win_probability((mover, opponent)), abs=1e-14)
            assert win_gammon == lose_gammon == 0.0  # 14 checkers are already off
    # More checkers: the plays interact only a little.
    rng = np.random.default_rng(3)
    six = bearoff.position_batch(rng.integers(1, N2, 400))
    for mover, opponent in zip(six[:200].tolist(), six[200:].tolist()):
        win = bearoff.race_probabilities(mover, opponent)[0]
        assert abs(win - bearoff.win_probability((mover, opponent))) < 0.02
    # Gammons: 15 on the 6-point against a lone ace checker loses a gammon unless its
    # first roll bears a checker off.
    full = [0, 0, 0, 0, 0, 15]
    first_off = bearoff.gammon_distribution(full)[1]
    assert bearoff.race_probabilities(full, [1, 0, 0, 0, 0, 0]) == pytest.approx(
        (0.0, 0.0, 1 - first_off), abs=1e-12
    )


def test_position_epc() -> None:
    mover = [0] * 25
    mover[0] = 2
    opponent = [0] * 25
    opponent[5] = 1
    position = Position.from_array([mover, opponent])
    ours, theirs = bearoff.position_epc(position)
    assert ours == pytest.approx(49 / 6) and theirs == pytest.approx(1.25 * 49 / 6)
    with pytest.raises(BearoffRangeError, match="R13"):
        bearoff.position_epc(Position())


# The cache


def test_cache_is_written_and_reused(cache_dir: Path) -> None:
    bearoff.one_sided()
    bearoff.two_sided()
    names = sorted(p.name for p in cache_dir.iterdir())
    assert names == ["bearoff-one-sided-v1.bin", "bearoff-two-sided-v1.bin"]
    data = (cache_dir / names[0]).read_bytes()
    assert data[:8] == b"BGFBEAR\n"
    assert OneSidedTable.from_bytes(data).to_bytes() == data


@pytest.mark.parametrize("damage", ["missing", "flipped", "truncated", "stale", "garbage"])
def test_bad_cache_files_are_rebuilt_never_trusted(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "one.bin"
    good = bearoff.one_sided().to_bytes()
    if damage == "flipped":
        bad = bytearray(good)
        bad[len(bad) // 2] ^= 0x01
        path.write_bytes(bytes(bad))
    elif damage == "truncated":
        path.write_bytes(good[: len(good) // 3])
    elif damage == "stale":
        bad = bytearray(good)
        bad[8:12] = (0).to_bytes(4, "little")  # another format version
        path.write_bytes(bytes(bad))
    elif damage == "garbage":
        path.write_bytes(b"not a table")
    if damage != "missing":
        with pytest.raises(BearoffFileError):
            OneSidedTable.from_bytes(path.read_bytes())
    builds = []

    def build() -> OneSidedTable:  # the module's table: a real build is tested elsewhere
        builds.append(1)
        return bearoff.one_sided()

    table = bearoff._load_or_build(path, OneSidedTable.from_bytes, build)
    assert builds == [1]
    assert path.read_bytes() == good
    assert table.to_bytes() == good
    assert not list(tmp_path.glob("*.tmp"))
    # The rebuilt file is trusted next time: no build.
    bearoff._load_or_build(path, OneSidedTable.from_bytes, build)
    assert builds == [1]


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _run(script: str, cache: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """Runs ``script`` in a fresh interpreter using ``cache``; a hang fails, never blocks."""
    env = {**os.environ, "BGFAST_CACHE_DIR": str(cache)}
    try:
        return subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung for {timeout} s: {script}")


def test_a_forged_value_count_is_rebuilt_and_the_process_lives(tmp_path: Path) -> None:
    # Regression: a value count of 0xFFFFFFFF with the checksum recomputed made from_bytes
    # allocate 32 GB and abort the process, and every later one that read the cache.
    good = bearoff.one_sided().to_bytes()
    payload = bytearray(good[32 : 32 + 8 + N1 * 12])  # the spans, not the values
    payload[4:8] = (0xFFFFFFFF).to_bytes(4, "little")
    forged = (
        good[:16]
        + len(payload).to_bytes(8, "little")
        + _fnv1a64(bytes(payload)).to_bytes(8, "little")
        + payload
    )
    path = tmp_path / "bearoff-one-sided-v1.bin"
    path.write_bytes(forged)
    script = (
        "import pathlib\n"
        "from bgfast import bearoff\n"
        f"data = pathlib.Path({str(path)!r}).read_bytes()\n"
        "try:\n"
        "    bearoff.OneSidedTable.from_bytes(data)\n"
        "except bearoff.BearoffFileError as error:\n"
        "    print('refused:', error)\n"
        "print(bearoff.epc([1, 0, 0, 0, 0, 0]))\n"
    )
    done = _run(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "refused: bear-off file content is invalid" in done.stdout
    assert path.read_bytes() == good  # rebuilt in place
    with pytest.raises(BearoffFileError, match="value count"):
        OneSidedTable.from_bytes(forged)


def test_a_fifo_at_the_cache_path_is_replaced_not_read(tmp_path: Path) -> None:
    # Regression: opening a FIFO for reading blocks until a writer comes, so the first
    # bear-off use hung forever. Only regular files are read; the rename replaces the FIFO.
    path = tmp_path / "bearoff-one-sided-v1.bin"
    os.mkfifo(path)
    done = _run("from bgfast import bearoff; print(bearoff.epc([1, 0, 0, 0, 0, 0]))", tmp_path)
    assert done.returncode == 0, done.stderr
    assert path.is_file() and path.read_bytes() == bearoff.one_sided().to_bytes()


def test_a_cache_path_that_cannot_be_replaced_works_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "one.bin"
    path.mkdir()  # not a file, and a rename cannot replace it
    good = bearoff.one_sided()
    with pytest.warns(RuntimeWarning, match="cannot cache the bear-off table"):
        table = bearoff._load_or_build(path, OneSidedTable.from_bytes, lambda: good)
    assert table is good and path.is_dir() and not list(tmp_path.glob("*.tmp"))
    # Device files are refused unread too.
    assert bearoff._read_regular_file(Path(os.devnull)) is None


def test_progress_callbacks_may_use_the_tables(tmp_path: Path, cache_dir: Path) -> None:
    # Regression: build() held the module lock while building and calling back, so a
    # callback that used the tables deadlocked. Only the one-sided table is built here.
    bearoff.two_sided()
    name = "bearoff-two-sided-v1.bin"
    (tmp_path / name).write_bytes((cache_dir / name).read_bytes())
    script = (
        "from bgfast import bearoff\n"
        "seen = []\n"
        "def progress(table, done, total):\n"
        "    pair = ([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])\n"
        "    seen.append((table, bearoff.epc(pair[0]), bearoff.win_probability(pair)))\n"
        "bearoff.build(progress=progress)\n"
        "assert seen and {t for t, _, _ in seen} == {'one-sided'}, seen\n"
        "assert bearoff.one_sided() is bearoff.one_sided()\n"
        "print(len(seen))\n"
    )
    done = _run(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1


def test_concurrent_first_uses_leave_a_valid_file(tmp_path: Path) -> None:
    script = (
        "from bgfast import bearoff; "
        "assert bearoff.rolls_distribution([1, 0, 0, 0, 0, 0])[1] == 1.0"
    )
    env = {**os.environ, "BGFAST_CACHE_DIR": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env) for _ in range(3)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    files = list(tmp_path.iterdir())
    assert [f.name for f in files] == ["bearoff-one-sided-v1.bin"]
    OneSidedTable.from_bytes(files[0].read_bytes())  # verifies version and checksum


def test_tables_round_trip_and_threads_agree() -> None:
    one = OneSidedTable.build(threads=1)
    assert one.to_bytes() == bearoff.one_sided().to_bytes()  # built on all threads
    assert len(one) == N1
    with pytest.raises(bgfast.BgfastError, match="threads"):
        OneSidedTable.build(threads=0)
    calls: list[tuple[int, int]] = []
    two = TwoSidedTable.build(cubeful=False, progress=lambda d, t: calls.append((d, t)))
    assert not two.cubeful and calls[-1][0] == calls[-1][1]
    assert two.cubeful_equity(([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])) is None
    again = TwoSidedTable.from_bytes(two.to_bytes())
    assert again.to_bytes() == two.to_bytes()
