"""Net evaluation side by side: bgfast's native nets vs onnxruntime and a numpy matmul.

The same weights everywhere (wildbg's contact net, 202-150-6, from its ONNX file):

- ``evaluate``: bgfast's ``Net.evaluate`` of the 967 contact positions of the wildbg contact
  corpus (real games; encoding included), onnxruntime's per-position call (the file fixes
  the batch at 1), and a numpy float32 batched forward pass (matmul, tanh, softmax) on
  inputs prepared untimed.
- ``best_move``: ``Net.best_move`` over the same positions with a fixed roll each, per
  candidate result, beside onnxruntime scoring each candidate with one call.
- ``rank`` and ``hint``: the plays of 200 positions' rolls ranked by cubeless equity
  (``Net.rank``) and by the cube model at money stakes (``bgfast.hint``).
- threads: ``evaluate`` on one and on two threads.
- the table's script also prints net rollouts' games/s and ``duel(net, "pubeval")`` over
  20,000 games.
- ``--large``: the same for wildbg's larger nets (``Net.wildbg_large()``, contact 202-300-
  250-200-6, hard sigmoid) beside onnxruntime running their ONNX file, with their duels against
  pubeval and the shipped nets.

Everything runs on one thread unless said (onnxruntime with one intra-op thread, numpy's
BLAS limited to one thread by threadpoolctl).

    python -m pytest benches/bench_net.py --benchmark-only   # pytest-benchmark
    python benches/bench_net.py     # the BENCHMARKS.md table: medians of 15 interleaved rounds
    python benches/bench_net.py --large     # the larger nets' table
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import random
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import Net, Position

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CONTACT_ONNX = DATA / "wildbg" / "contact.onnx"
LARGE_CONTACT_ONNX = DATA / "wildbg-training" / "contact-17.onnx"


def contact_positions() -> list[Position]:
    """The contact corpus's positions where contact is possible (33 of its 1,000 are races
    by ``Position.is_race``, which the race net scores)."""
    lines = (DATA / "wildbg_contact.csv").read_text().split()
    positions = [Position.from_id(line) for line in lines]
    return [p for p in positions if not p.is_race]


def installed(module: str, peer: str) -> bool:
    """Whether a peer's module is installed; as a script, a line says which peer is left out
    (bgfast's own rows run either way)."""
    if importlib.util.find_spec(module) is not None:
        return True
    print(f"({peer}: {module} is not installed, left out)")
    return False


def session(path: Path = CONTACT_ONNX) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # onnxruntime's workers otherwise spin after each run, taking a core from whatever is
    # measured next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def numpy_forward(weights: dict[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
    (w1, b1, _), (w2, b2, _) = weights["contact"]
    w1t, w2t = np.ascontiguousarray(w1.T), np.ascontiguousarray(w2.T)

    def forward(x: np.ndarray) -> np.ndarray:
        h = np.tanh(x @ w1t + b1)
        z = h @ w2t + b2
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    return forward


def rolls(positions: list[Position]) -> list[tuple[int, int]]:
    rng = random.Random(7)
    return [(rng.randint(1, 6), rng.randint(1, 6)) for _ in positions]


def candidates(positions: list[Position], dice: list[tuple[int, int]]) -> int:
    return sum(len(p.moves(*d)) for p, d in zip(positions, dice))


# ------------------------------------------------------------------ pytest-benchmark


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return contact_positions()


#: The shipped nets by policy name, and the pytest-benchmark group suffix of each.
NETS = {"wildbg": (Net.wildbg, ""), "wildbg-large": (Net.wildbg_large, "-large")}


@pytest.mark.parametrize("name", sorted(NETS))
def test_evaluate_bgfast(benchmark: Any, positions: list[Position], name: str) -> None:
    make, group = NETS[name]
    net = make()
    array = np.stack([p.to_array() for p in positions])
    benchmark.group = "net-evaluate" + group
    out = benchmark(net.evaluate, array, threads=1)
    assert out.shape == (len(positions), 5)


def test_evaluate_onnxruntime(benchmark: Any, positions: list[Position]) -> None:
    pytest.importorskip("onnxruntime")
    s = session()
    name = s.get_inputs()[0].name
    x = bgfast.encode(positions, "wildbg")

    def run() -> None:
        for row in x:
            s.run(None, {name: row[None]})

    benchmark.group = "net-evaluate"
    benchmark.pedantic(run, rounds=3, iterations=1)


def test_evaluate_numpy(benchmark: Any, positions: list[Position]) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    forward = numpy_forward(Net.wildbg().to_arrays())
    x = bgfast.encode(positions, "wildbg")
    benchmark.group = "net-evaluate"
    with threadpoolctl.threadpool_limits(1):
        out = benchmark(forward, x)
    assert out.shape == (len(positions), 6)


@pytest.mark.parametrize("name", sorted(NETS))
def test_best_move_bgfast(benchmark: Any, positions: list[Position], name: str) -> None:
    make, group = NETS[name]
    net = make()
    dice = rolls(positions)

    def run() -> None:
        for p, d in zip(positions, dice):
            net.best_move(p, d)

    benchmark.group = "net-best-move" + group
    benchmark.extra_info["candidates"] = candidates(positions, dice)
    benchmark(run)


@pytest.mark.parametrize("ranking", ["rank", "hint"])
def test_rank_and_hint(benchmark: Any, positions: list[Position], ranking: str) -> None:
    """The plays of a roll ranked by cubeless equity (``Net.rank``) and at money stakes by
    the cube model (``bgfast.hint``, what ``/best`` and ``moves --policy`` call): what the
    cubeful ranking adds to each call."""
    net = Net.wildbg()
    dice = rolls(positions)[:200]
    if ranking == "rank":

        def run() -> None:
            for p, d in zip(positions, dice):
                net.rank(p, d)
    else:

        def run() -> None:
            for p, d in zip(positions, dice):
                bgfast.hint(net, p, d)

    benchmark.group = "net-rank-200-positions"
    benchmark(run)


@pytest.mark.parametrize("threads", [1, 2])
def test_evaluate_threads(benchmark: Any, positions: list[Position], threads: int) -> None:
    net = Net.wildbg()
    array = np.stack([p.to_array() for p in positions * 20])
    benchmark.group = "net-threads"
    benchmark(net.evaluate, array, threads=threads)


# ------------------------------------------------------------------ the table


def agrees_with_onnxruntime(net: Net, array: np.ndarray, x: np.ndarray, s: Any) -> None:
    """Agreement first: the table is only worth reading if the contenders agree."""
    name = s.get_inputs()[0].name
    ours = net.evaluate(array, threads=1)
    theirs = np.stack([s.run(None, {name: row[None]})[0][0] for row in x[:200]])
    five = np.stack(
        [
            theirs[:, :3].sum(1),
            theirs[:, 1:3].sum(1),
            theirs[:, 2],
            theirs[:, 4:].sum(1),
            theirs[:, 5],
        ],
        axis=1,
    )
    assert np.abs(ours[:200] - five).max() < 2e-5


def onnx_runner(s: Any) -> Callable[[np.ndarray], None]:
    """One onnxruntime call a row (the ONNX file fixes the batch at 1)."""
    name = s.get_inputs()[0].name

    def onnx_all(rows: np.ndarray) -> None:
        for row in rows:
            s.run(None, {name: row[None]})

    return onnx_all


def main() -> None:
    has_onnx = installed("onnxruntime", "the onnxruntime rows")
    has_tpc = installed("threadpoolctl", "the numpy row, whose BLAS it holds to one thread")
    positions = contact_positions()
    n = len(positions)
    net = Net.wildbg()
    array = np.stack([p.to_array() for p in positions])
    x = bgfast.encode(positions, "wildbg")
    forward = numpy_forward(net.to_arrays())
    dice = rolls(positions)
    m = candidates(positions, dice)
    results = [c for p, d in zip(positions, dice) for c in (mv.result for mv in p.moves(*d))]
    x_candidates = bgfast.encode([r for r in results if r.outcome is None], "wildbg")

    big = np.concatenate([array] * 20)
    # A training-sized batch: a call's fixed costs (waking the pool's second worker, about
    # a millisecond on these VMs) fade against its work.
    large = np.concatenate([array] * 200)
    contenders: dict[str, Callable[[], object]] = {
        "ours": lambda: net.evaluate(array, threads=1),
        "one": lambda: net.evaluate(big, threads=1),
        "two": lambda: net.evaluate(big, threads=2),
        "one_large": lambda: net.evaluate(large, threads=1),
        "two_large": lambda: net.evaluate(large, threads=2),
        "best": lambda: [net.best_move(p, d) for p, d in zip(positions, dice)],
    }
    if has_onnx:
        s = session()
        agrees_with_onnxruntime(net, array, x, s)
        onnx_all = onnx_runner(s)
        contenders["onnx"] = lambda: onnx_all(x)
        contenders["onnx_candidates"] = lambda: onnx_all(x_candidates)
    if has_tpc:
        contenders["numpy"] = lambda: forward(x)
    # Interleaved rounds, the median of each: a busy host slows whole stretches of time, so
    # every contender gets runs spread over the same stretch; the median, not the best, as
    # a lucky one-thread run (the other vCPU's sibling idle) has no two-thread counterpart.
    # In a round, the contenders whose call is short run it several times in a row (the
    # mean of those is the round's time): one call of a fraction of a millisecond after
    # the others' runs would mostly time the caches those left behind.
    repeats = {"ours": 10, "numpy": 10, "one": 3, "two": 3, "best": 3}
    times: dict[str, list[float]] = {c: [] for c in contenders}
    with one_blas_thread() if has_tpc else contextlib.nullcontext():
        for _ in range(15):
            for contender, run in contenders.items():
                k = repeats.get(contender, 1)
                t0 = time.perf_counter()
                for _ in range(k):
                    run()
                times[contender].append((time.perf_counter() - t0) / k)
    best = {c: statistics.median(t) for c, t in times.items()}
    t_ours, t_one, t_two, t_best = best["ours"], best["one"], best["two"], best["best"]

    ns = 1e9
    print(f"contact positions: {n}; candidates of one roll each: {m}")
    print("| what | bgfast | peer | ratio |")
    print("|---|---|---|---|")
    if has_onnx:
        t_onnx = best["onnx"]
        print(
            f"| evaluate, per position, vs onnxruntime per call | {t_ours / n * ns:.0f} ns |"
            f" {t_onnx / n * ns:.0f} ns | {t_onnx / t_ours:.1f}x |"
        )
    if has_tpc:
        t_numpy = best["numpy"]
        print(
            f"| evaluate, per position, vs numpy batched float32 | {t_ours / n * ns:.0f} ns |"
            f" {t_numpy / n * ns:.0f} ns | {t_numpy / t_ours:.1f}x |"
        )
    if has_onnx:
        t_onnx_candidates = best["onnx_candidates"] / len(x_candidates) * m
        print(
            f"| best_move, per candidate, vs onnxruntime per call | {t_best / m * ns:.0f} ns |"
            f" {t_onnx_candidates / m * ns:.0f} ns | {t_onnx_candidates / t_best:.1f}x |"
        )
    else:
        print(f"| best_move, per candidate | {t_best / m * ns:.0f} ns | | |")
    print(
        f"| evaluate on 2 threads vs 1 ({len(big)} positions) | {t_two / len(big) * ns:.0f} ns |"
        f" {t_one / len(big) * ns:.0f} ns | {t_one / t_two:.2f}x |"
    )
    t_one_large, t_two_large = best["one_large"], best["two_large"]
    print(
        f"| evaluate on 2 threads vs 1 ({len(large)} positions) |"
        f" {t_two_large / len(large) * ns:.0f} ns | {t_one_large / len(large) * ns:.0f} ns |"
        f" {t_one_large / t_two_large:.2f}x |"
    )

    # The same one-thread work on two Python threads at once (the GIL is released): what one
    # thread costs while the other vCPU is busy too, beside the pool's two threads.
    def lone(out: list[float], k: int) -> None:
        t0 = time.perf_counter()
        for _ in range(5):
            net.evaluate(big, threads=1)
        out[k] = (time.perf_counter() - t0) / 5 / len(big) * ns

    each = [0.0, 0.0]
    pair = [threading.Thread(target=lone, args=(each, k)) for k in range(2)]
    for t in pair:
        t.start()
    for t in pair:
        t.join()
    print(
        f"evaluate on two Python threads at once, one native thread each: {each[0]:.0f} and"
        f" {each[1]:.0f} ns per position"
    )
    # One run each, after the table and not interleaved: a rough rate, not a ratio to quote.
    for threads in (1, 2):
        r = bgfast.rollout(games=5_000, policy=net, seed=1, threads=threads)
        rate = r.games_per_second
        print(
            f"rollout of the start with the net, {threads} thread(s), one run of 5,000 games:"
            f" {rate:,.0f} games/s"
        )
    duel = bgfast.duel(net, "pubeval", games=20_000, seed=1)
    print(duel)
    print(f"  wins {duel.wins}, losses {duel.losses} (single, gammon, backgammon)")


def main_large() -> None:
    """The larger nets: evaluation and best_move per position beside onnxruntime, rollouts,
    and their strength."""
    positions = contact_positions()
    n = len(positions)
    has_onnx = installed("onnxruntime", "the onnxruntime row")
    net = Net.wildbg_large()
    array = np.stack([p.to_array() for p in positions])
    x = bgfast.encode(positions, "wildbg")
    dice = rolls(positions)
    m = candidates(positions, dice)
    small = Net.wildbg()

    contenders: dict[str, Callable[[], object]] = {
        "large": lambda: net.evaluate(array, threads=1),
        "small": lambda: small.evaluate(array, threads=1),
        "best": lambda: [net.best_move(p, d) for p, d in zip(positions, dice)],
        "best_small": lambda: [small.best_move(p, d) for p, d in zip(positions, dice)],
    }
    if has_onnx:
        onnx_all = onnx_runner(session(LARGE_CONTACT_ONNX))
        contenders["onnx"] = lambda: onnx_all(x)
    times: dict[str, list[float]] = {c: [] for c in contenders}
    for _ in range(9):
        for contender, run in contenders.items():
            t0 = time.perf_counter()
            run()
            times[contender].append(time.perf_counter() - t0)
    t = {c: statistics.median(v) for c, v in times.items()}
    ns = 1e9
    print(f"contact positions: {n}; candidates of one roll each: {m}; medians of 9 rounds")
    print("| what, one thread | wildbg-large | peer | ratio |\n|---|---|---|---|")
    if has_onnx:
        print(
            f"| evaluate, per position, vs onnxruntime per call (same net) |"
            f" {t['large'] / n * ns:,.0f} ns | {t['onnx'] / n * ns:,.0f} ns |"
            f" {t['onnx'] / t['large']:.1f}x |"
        )
    print(
        f"| evaluate, per position, vs the shipped net | {t['large'] / n * ns:,.0f} ns |"
        f" {t['small'] / n * ns:,.0f} ns | {t['small'] / t['large']:.2f}x |"
    )
    print(
        f"| best_move, per candidate, vs the shipped net | {t['best'] / m * ns:,.0f} ns |"
        f" {t['best_small'] / m * ns:,.0f} ns | {t['best_small'] / t['best']:.2f}x |"
    )
    for threads in (1, 2):
        r = bgfast.rollout(games=2_000, policy=net, seed=1, threads=threads)
        print(f"rollout of the start, {threads} thread(s): {r.games_per_second:,.0f} games/s")
    for opponent in ("pubeval", "wildbg"):
        duel = bgfast.duel(net, opponent, games=20_000, seed=1)
        print(f"wildbg-large vs {opponent}: {duel}")


def one_blas_thread() -> Any:
    """numpy's BLAS held to one thread (threadpoolctl, installed: checked by the caller)."""
    import threadpoolctl

    return threadpoolctl.threadpool_limits(1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--large", action="store_true", help="wildbg's larger nets instead")
    if parser.parse_args().large:
        main_large()
    else:
        main()
