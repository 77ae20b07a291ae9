"""A third adversarial pass over the native API surface: numpy inputs, nets, bear-off
caches and rollouts' arguments. Each test failed before the fix it names."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bgfast
from bgfast import BgfastError, InvalidNetError, Net, Position, VecEnv, bearoff
from bgfast.rollout import SHARDS_IN_FLIGHT

#: The module (``bgfast.rollout`` is also the function).
rollout_module = importlib.import_module("bgfast.rollout")

# ------------------------------------------------------------------ scores float64 merges

#: A score past 2**53, where float64 no longer holds every integer.
HUGE = 2**60


def _best_last(count: int, dtype: Any) -> np.ndarray:
    """``count`` scores, equal but the last, which is one higher."""
    scores = np.full(count, HUGE, dtype=dtype)
    scores[-1] += 1
    return scores


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_segment_argmax_refuses_integer_scores_float64_merges(dtype: Any) -> None:
    # The last candidate scores highest; as float64 all are equal and 0 was chosen.
    env = VecEnv(1, seed=3)
    _, offsets = env.candidates()
    with pytest.raises(BgfastError, match="equal as float64"):
        bgfast.segment_argmax(_best_last(int(offsets[1]), dtype), offsets)


def test_step_scores_refuses_integer_scores_float64_merges_and_changes_nothing() -> None:
    env = VecEnv(1, seed=3)
    _, offsets = env.candidates()
    before = env.positions.copy()
    with pytest.raises(BgfastError, match=r"rows \d+ and \d+ differ"):
        env.step_scores(_best_last(int(offsets[1]), np.int64))
    assert (env.positions == before).all()


def test_scores_wider_than_float64_that_float64_merges_are_refused() -> None:
    env = VecEnv(1, seed=3)
    _, offsets = env.candidates()
    scores = np.ones(int(offsets[1]), dtype=np.longdouble)
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    scores[-1] += np.finfo(np.longdouble).eps
    with pytest.raises(BgfastError, match="equal as float64"):
        env.step_scores(scores)


def test_an_evaluator_returning_integer_scores_float64_merges_is_refused() -> None:
    def evaluator(features: np.ndarray) -> np.ndarray:
        return _best_last(len(features), np.int64)

    with pytest.raises(BgfastError, match=r"the evaluator's scores: .* equal as float64"):
        bgfast.rollout(games=2, policy=evaluator, seed=1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40))
def test_int64_scores_play_the_highest_or_are_refused(values: list[int]) -> None:
    scores = np.array(values, dtype=np.int64)
    offsets = np.array([0, len(scores)], dtype=np.int64)
    try:
        choice = bgfast.segment_argmax(scores, offsets)
    except BgfastError as error:
        assert "equal as float64" in str(error)
        assert len({float(v) for v in values}) < len(set(values))
    else:
        assert choice[0] == values.index(max(values))


def test_scores_float64_tells_apart_are_still_taken() -> None:
    offsets = np.array([0, 3], dtype=np.int64)
    for scores in (
        np.array([2**53, -(2**53), 5], dtype=np.int64),
        np.array([2**63, 2**63 + 2**11, 7], dtype=np.uint64),
        np.array([1.0, 2.5, 2.5], dtype=np.longdouble),
    ):
        assert bgfast.segment_argmax(scores, offsets)[0] == int(np.argmax(scores))


# ------------------------------------------------------------------ Net.from_arrays dtypes


def _layers() -> list[tuple[np.ndarray, np.ndarray, str]]:
    rng = np.random.default_rng(5)
    return [
        (rng.normal(size=(8, 50)).astype(np.float32) * 0.1, np.zeros(8, np.float32), "tanh"),
        (rng.normal(size=(6, 8)).astype(np.float32), np.zeros(6, np.float32), "softmax"),
    ]


@pytest.mark.parametrize(
    ("convert", "said"),
    [
        (lambda w: w.astype(np.complex64) + 1j, "complex64"),
        (lambda w: w.astype("M8[s]"), "datetime64"),
        (lambda w: w.astype("m8[s]"), "timedelta64"),
        (lambda w: w.astype(str), "<U"),
    ],
)
def test_weights_that_are_not_real_numbers_are_refused(convert: Any, said: str) -> None:
    # Complex weights lost their imaginary part, dates and times became their counts.
    layers = _layers()
    w, b, activation = layers[0]
    with pytest.raises(InvalidNetError, match=f"contact net: layer 0: W holds {said}"):
        Net.from_arrays([(convert(w), b, activation), layers[1]], inputs="board")


def test_a_finite_weight_beyond_float32_is_named_as_such() -> None:
    layers = _layers()
    w, b, activation = layers[1]
    big = w.astype(np.float64)
    big[2, 3] = 1e40
    with pytest.raises(InvalidNetError, match=r"layer 1: W\[2, 3\] = 1e40 is beyond float32"):
        Net.from_arrays([layers[0], (big, b, activation)], inputs="board")
    bias = b.astype(np.float64)
    bias[4] = -1e39
    with pytest.raises(InvalidNetError, match=r"layer 1: b\[4\] = -1e39 is beyond float32"):
        Net.from_arrays([layers[0], (w, bias, activation)], inputs="board")


def test_weights_of_every_real_dtype_and_layout_build_the_same_net() -> None:
    layers = _layers()
    net = Net.from_arrays(layers, inputs="board")
    w, b, activation = layers[0]
    for same in (
        w.astype(np.float64),
        w.astype(">f4"),
        np.asfortranarray(w),
        w[::-1][::-1],
        w.astype(object),
        w.tolist(),
    ):
        assert Net.from_arrays([(same, b, activation), layers[1]], inputs="board") == net
    ints = [(np.ones((8, 50), np.int16), np.zeros(8, np.uint8), "tanh"), layers[1]]
    assert Net.from_arrays(ints, inputs="board").to_arrays()["contact"][0][0].sum() == 400


def test_nan_weights_are_still_named_by_place() -> None:
    layers = _layers()
    w = layers[0][0].astype(np.float64)
    w[1, 2] = np.nan
    with pytest.raises(InvalidNetError, match=r"weights\[52\] is not a finite number"):
        Net.from_arrays([(w, layers[0][1], "tanh"), layers[1]], inputs="board")


def test_r16_five_sigmoids_are_made_consistent_as_gnubg_makes_them() -> None:
    # Independent sigmoids said a gammon was likelier than a win ([0.047, 0.953, ...]), and
    # rollouts, cube decisions and analysis used the numbers as they were.
    hidden = _layers()[0]
    head = (np.zeros((5, 8), np.float32), np.array([-3, 3, 3, 3, 3], np.float32), "sigmoid")
    net = Net.from_arrays([hidden, head], inputs="board")
    win, wg, wbg, lg, lbg = net.evaluate(Position())
    assert win == pytest.approx(1 / (1 + np.exp(3)))
    assert (wg, wbg) == (win, win)
    assert (lg, lbg) == (np.float32(1) - win, np.float32(1) - win)
    bgfast.cubeful.decide(net.evaluate(Position()))  # consistent chances are taken


# ------------------------------------------------------------------ the bear-off cache


def test_a_cached_two_sided_table_without_cube_equities_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A valid cubeless table at the cache path was kept forever: cubeful_equity then
    # failed and cubeful rollouts lost their exact bear-offs.
    monkeypatch.setenv("BGFAST_CACHE_DIR", str(tmp_path))
    path = bearoff._two_sided_path()
    bearoff._atomic_write(path, bearoff.TwoSidedTable.build(cubeful=False).to_bytes())
    monkeypatch.setattr(bearoff, "_loaded", {})
    assert bearoff.two_sided().cubeful
    assert bearoff.TwoSidedTable.from_bytes(path.read_bytes()).cubeful
    assert bearoff.cubeful_equity(([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])) == 1.0


def test_bearoff_build_rebuilds_a_cubeless_two_sided_file(tmp_path: Path) -> None:
    one, two = bearoff.build(directory=tmp_path)
    two.write_bytes(bearoff.TwoSidedTable.build(cubeful=False).to_bytes())
    bearoff.build(directory=tmp_path)
    assert bearoff.TwoSidedTable.from_bytes(two.read_bytes()).cubeful
    assert one.exists()


# ------------------------------------------------------------------ rollout arguments


@pytest.mark.parametrize("value", [np.array(["exact", "exact"]), np.array(["exact"]), ["exact"]])
def test_a_bearoff_setting_that_is_no_str_is_a_bgfast_error(value: object) -> None:
    # A numpy array raised numpy's "truth value of an array is ambiguous".
    with pytest.raises(BgfastError, match="bearoff must be 'exact' or None"):
        bgfast.rollout(Position(), games=2, policy="random", seed=1, bearoff=value)


# ------------------------------------------------------------------ nets too large for memory


def _first_words(code: str) -> list[str]:
    """The first word of each line ``code`` prints, run in a fresh Python (which must
    exit normally: an abort is what these tests catch)."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return [line.split()[0] for line in result.stdout.splitlines()]


def test_a_net_too_large_for_memory_is_a_memory_error(tmp_path: Path) -> None:
    # Loading a valid 270 MB net file under a memory limit aborted the process (the file's
    # bytes, its weights and their compiled copy were allocated infallibly).
    path = tmp_path / "big.bgnet"
    layers = [
        (np.zeros((1024, 50), np.float32), np.zeros(1024, np.float32), "tanh"),
        (np.zeros((65536, 1024), np.float32), np.zeros(65536, np.float32), "tanh"),
        (np.zeros((6, 65536), np.float32), np.zeros(6, np.float32), "softmax"),
    ]
    Net.from_arrays(layers, inputs="board").save(path)
    del layers
    code = f"""
        import resource, bgfast
        data = open({str(path)!r}, "rb").read()
        limit = 800_000 * 1024  # as `ulimit -v 800000`: room for the bytes, not the net
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for load in (lambda: bgfast.Net.load({str(path)!r}), lambda: bgfast.Net.from_bytes(data)):
            try:
                load()
                print("loaded")
            except MemoryError as error:
                print("MemoryError", error)
        print(bgfast.Net.wildbg().equity(bgfast.Position()) != 0)
    """
    assert _first_words(code) == ["MemoryError", "MemoryError", "True"]


def test_an_onnx_net_too_large_for_memory_is_a_memory_error(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    # 50 -> 1024 -> 65536 -> 6: a 270 MB file whose tensors were copied and transposed
    # with infallible allocations.
    shapes = [(50, 1024), (1024, 65536), (65536, 6)]
    nodes, tensors, current = [], [], "x"
    for k, (inputs, outputs) in enumerate(shapes):
        tensors.append(numpy_helper.from_array(np.zeros((inputs, outputs), np.float32), f"w{k}"))
        tensors.append(numpy_helper.from_array(np.zeros(outputs, np.float32), f"b{k}"))
        nodes.append(helper.make_node("Gemm", [current, f"w{k}", f"b{k}"], [f"h{k}"]))
        activation = "Softmax" if k == len(shapes) - 1 else "Tanh"
        nodes.append(helper.make_node(activation, [f"h{k}"], [f"a{k}"]))
        current = f"a{k}"
    graph = helper.make_graph(
        nodes,
        "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 50])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, [None, 6])],
        tensors,
    )
    path = tmp_path / "big.onnx"
    onnx.save(helper.make_model(graph), str(path))
    del graph, tensors
    code = f"""
        import resource, bgfast
        limit = 700_000 * 1024  # as `ulimit -v 700000`
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            bgfast.Net.from_onnx({str(path)!r})
            print("loaded")
        except MemoryError as error:
            print("MemoryError", error)
        print(bgfast.Net.wildbg().equity(bgfast.Position()) != 0)
    """
    assert _first_words(code) == ["MemoryError", "True"]


def test_a_vecenv_whose_candidates_outgrow_memory_raises_memory_error() -> None:
    # A million games hold about nine million candidates: their vector grew without a
    # check, and running out of memory aborted the process.
    code = """
        import resource, numpy as np, bgfast
        env = bgfast.VecEnv(1_000_000, seed=1)
        limit = 900_000 * 1024  # as `ulimit -v 900000`
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for call in (env.candidates, env.candidate_positions,
                     lambda: env.step(np.zeros(env.n, np.int64))):
            try:
                call()
                print("done")
            except MemoryError as error:
                print("MemoryError", error)
        print(env.n == 1_000_000)
    """
    assert _first_words(code) == ["MemoryError", "MemoryError", "MemoryError", "True"]


def test_every_vecenv_call_sized_by_its_games_raises_memory_error() -> None:
    # Only the candidates were checked: making the games, reading their positions, final
    # positions or features, and a step's output aborted the process when memory ran out.
    code = """
        import resource, numpy as np, bgfast
        def mapped():
            status = open("/proc/self/status").read().split("VmSize:")[1]
            return int(status.split()[0]) * 1024
        env = bgfast.VecEnv(1_000_000, seed=1)
        env.candidates()  # so that a step needs no new candidates
        before = env.positions
        room = mapped() + 30_000_000  # less than any call below needs
        resource.setrlimit(resource.RLIMIT_AS, (room, resource.RLIM_INFINITY))
        calls = {
            "VecEnv": lambda: bgfast.VecEnv(1_000_000, seed=2),
            "reset": env.reset,
            "positions": lambda: env.positions,
            "observe": env.observe,
            "step": lambda: env.step(np.zeros(env.n, np.int64)),
        }
        for name, call in calls.items():
            try:
                call()
                print(name, "done")
            except MemoryError:
                print(name, "MemoryError")
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)
        print("unchanged", bool((env.positions == before).all()))
        env.step(np.zeros(env.n, np.int64))
        print("stepped", bool((env.positions != before).any()))
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == [
        "VecEnv MemoryError",
        "reset MemoryError",
        "positions MemoryError",
        "observe MemoryError",
        "step MemoryError",
        "unchanged True",
        "stepped True",
    ]


# ------------------------------------------------------------------ rollouts on executors


class _FirstShardRefused(Executor):
    """Shard 0 is refused by its worker at once; the other shards never finish on their
    own (they must be cancelled)."""

    def __init__(self) -> None:
        self.futures: list[Future[Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        if not self.futures:
            f.set_exception(BgfastError("shard refused"))
        self.futures.append(f)
        return f


def test_a_huge_rollout_on_an_executor_submits_a_bounded_window_of_shards() -> None:
    # Every one of the 1.8e15 shards of games=2**64-1 was made before the first was
    # submitted: the run took all memory instead of starting.
    executor = _FirstShardRefused()
    with pytest.raises(bgfast.ShardError, match=r"shard 0 of 1844674407370956 .*refused"):
        bgfast.rollout(games=2**64 - 1, policy="random", seed=1, executor=executor)
    assert len(executor.futures) == SHARDS_IN_FLIGHT
    assert all(f.cancelled() for f in executor.futures[1:])


class _InOrder(Executor):
    """Plays each shard here when it is submitted, and records the order."""

    def __init__(self) -> None:
        self.firsts: list[int] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.firsts.append(args[0]["first_game"])
        f: Future[Any] = Future()
        f.set_result(fn(*args, **kwargs))
        return f


def test_a_rollout_of_more_shards_than_the_window_gives_the_local_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rollout_module, "SHARDS_IN_FLIGHT", 2)
    monkeypatch.setattr(rollout_module, "SHARD_GAMES", 7)
    local = bgfast.rollout(games=60, policy="random", seed=31, threads=1)
    executor = _InOrder()
    remote = bgfast.rollout(games=60, policy="random", seed=31, executor=executor)
    assert remote.counts == local.counts and not remote.partial
    assert executor.firsts == [7 * k for k in range(9)]


@pytest.mark.parametrize(
    "call",
    [
        lambda progress: bgfast.rollout(games=4, policy="random", seed=1, progress=progress),
        lambda progress: bgfast.rollout(games=4, policy=lambda f: f[:, 0], progress=progress),
        lambda progress: bgfast.rollout_moves(Position(), (3, 1), games=4, progress=progress),
        lambda progress: bgfast.duel("random", "random", games=4, seed=1, progress=progress),
    ],
)
def test_a_progress_that_cannot_be_called_is_named_before_any_game(call: Any) -> None:
    # It was called once the first games had finished: "'int' object is not callable".
    with pytest.raises(TypeError, match="progress must be callable or None, not int"):
        call(5)


def test_r1_huge_counts_whose_sum_wraps_are_too_many_checkers() -> None:
    # Two counts of 2**127 - 1 and one of 2 summed to 0 in the core's i128 (wrapping): no
    # violation was found and packing the position raised a PanicException.
    mover = [2**127 - 1, 2**127 - 1, 2] + [0] * 22
    opponent = [0] * 5 + [15] + [0] * 19
    with pytest.raises(bgfast.InvalidPositionError, match="R1"):
        Position.from_array([mover, opponent])


def test_threads_with_an_executor_are_refused_and_checked() -> None:
    # threads=0 passed unchecked beside an executor, which plays each shard on one thread.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(BgfastError, match="threads must be from 1 to 256"):
            bgfast.rollout(games=10, policy="random", threads=0, executor=pool)
        with pytest.raises(BgfastError, match="threads=2 and an executor"):
            bgfast.rollout(games=10, policy="random", threads=2, executor=pool)
        assert bgfast.rollout(games=10, policy="random", executor=pool, seed=1).threads == 1
