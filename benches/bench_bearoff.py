"""Bear-off databases: build times beside GNU Backgammon's ``makebearoff``, and lookups.

Run: ``python -m pytest benches/bench_bearoff.py --benchmark-group-by=group``.
``makebearoff`` comes from Debian's ``gnubg`` package (bench only); its rows are skipped
when it is not installed. Each build records whether its table is correct.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from bgfast import bearoff
from bgfast._core import OneSidedTable, TwoSidedTable

MAKEBEAROFF = shutil.which("makebearoff") or (
    "/usr/games/makebearoff" if Path("/usr/games/makebearoff").exists() else None
)
BATCH = 1_000_000


@pytest.fixture(scope="module", autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A private cache so the lookup benches never touch the user's."""
    import os

    os.environ["BGFAST_CACHE_DIR"] = str(tmp_path_factory.mktemp("bgfast-bench-cache"))


@pytest.mark.benchmark(group="one-sided build")
@pytest.mark.parametrize("threads", [1, 2])
def test_one_sided_build_bgfast(benchmark: Any, threads: int) -> None:
    table = benchmark.pedantic(OneSidedTable.build, kwargs={"threads": threads}, rounds=5)
    correct = table.rolls_distribution([0, 0, 0, 0, 0, 1])[1] == 27 / 36
    benchmark.extra_info["correct"] = bool(correct)
    assert correct


@pytest.mark.benchmark(group="two-sided build")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("cubeful", [False, True], ids=["cubeless", "cubeful"])
def test_two_sided_build_bgfast(benchmark: Any, threads: int, cubeful: bool) -> None:
    table = benchmark.pedantic(
        TwoSidedTable.build, kwargs={"threads": threads, "cubeful": cubeful}, rounds=3
    )
    correct = table.win_probability(([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])) == 27 / 36
    benchmark.extra_info["correct"] = bool(correct)
    assert correct


def _makebearoff(args: list[str], out: Path) -> int:
    assert MAKEBEAROFF is not None
    subprocess.run(
        [MAKEBEAROFF, *args, "-f", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return out.stat().st_size


@pytest.mark.skipif(MAKEBEAROFF is None, reason="makebearoff (Debian gnubg) not installed")
@pytest.mark.benchmark(group="one-sided build")
def test_one_sided_build_makebearoff(benchmark: Any, tmp_path: Path) -> None:
    out = tmp_path / "os.bd"
    size = benchmark.pedantic(_makebearoff, args=(["-o", "6"], out), rounds=3)
    benchmark.extra_info["correct"] = size > 0


@pytest.mark.skipif(MAKEBEAROFF is None, reason="makebearoff (Debian gnubg) not installed")
@pytest.mark.benchmark(group="two-sided build")
def test_two_sided_build_makebearoff(benchmark: Any, tmp_path: Path) -> None:
    # makebearoff always adds the cube states unless told -C; both are timed.
    out = tmp_path / "ts.bd"
    size = benchmark.pedantic(_makebearoff, args=(["-t", "6x6"], out), rounds=1)
    benchmark.extra_info["correct"] = size == 40 + 924 * 924 * 8


@pytest.mark.skipif(MAKEBEAROFF is None, reason="makebearoff (Debian gnubg) not installed")
@pytest.mark.benchmark(group="two-sided build")
def test_two_sided_cubeless_build_makebearoff(benchmark: Any, tmp_path: Path) -> None:
    out = tmp_path / "ts.bd"
    size = benchmark.pedantic(_makebearoff, args=(["-t", "6x6", "-C"], out), rounds=1)
    benchmark.extra_info["correct"] = size == 40 + 924 * 924 * 2


@pytest.fixture(scope="module")
def many_points() -> npt.NDArray[np.uint8]:
    """A million random one-sided positions as a C-contiguous uint8 array."""
    rng = np.random.default_rng(1)
    return bearoff.position_batch(rng.integers(0, 54_264, BATCH))


@pytest.fixture(scope="module")
def many_small() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """A million random two-sided pairs."""
    rng = np.random.default_rng(2)
    return (
        bearoff.position_batch(rng.integers(0, 924, BATCH)),
        bearoff.position_batch(rng.integers(0, 924, BATCH)),
    )


@pytest.mark.benchmark(group="lookup")
def test_epc_single(benchmark: Any, many_points: npt.NDArray[np.uint8]) -> None:
    rows = many_points[:10_000].tolist()
    table = bearoff.one_sided()

    def run() -> float:
        return sum(table.epc(r) for r in rows)

    total = benchmark(run)
    benchmark.extra_info["positions"] = len(rows)
    benchmark.extra_info["correct"] = bool(total > 0)


@pytest.mark.benchmark(group="lookup")
def test_epc_batch(benchmark: Any, many_points: npt.NDArray[np.uint8]) -> None:
    table = bearoff.one_sided()
    out = benchmark(table.epc_batch, many_points)
    benchmark.extra_info["positions"] = BATCH
    benchmark.extra_info["correct"] = bool(out[0] == table.epc(many_points[0].tolist()))


@pytest.mark.benchmark(group="lookup")
def test_index_batch(benchmark: Any, many_points: npt.NDArray[np.uint8]) -> None:
    out = benchmark(bearoff.index_batch, many_points)
    benchmark.extra_info["positions"] = BATCH
    benchmark.extra_info["correct"] = bool(out[0] == bearoff.index(many_points[0].tolist()))


@pytest.mark.benchmark(group="lookup")
def test_win_probability_batch(
    benchmark: Any, many_small: tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]
) -> None:
    table = bearoff.two_sided()
    mover, opponent = many_small
    out = benchmark(table.win_probability_batch, mover, opponent)
    first = table.win_probability((mover[0].tolist(), opponent[0].tolist()))
    benchmark.extra_info["positions"] = BATCH
    benchmark.extra_info["correct"] = bool(out[0] == first)
