"""Regression tests of the hardening issue: no input, fork, memory limit or interrupt may
crash, hang or fool bgfast.

What could hang or kill the interpreter runs in a child process with a generous timeout, so
that a regression fails the test instead of stopping the suite. The timeouts bound a wait;
nothing here measures speed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import Position, batch

#: Seconds a child process may take before it is taken to be hung.
HUNG = 120

START = Position().to_array()
CORPUS = Path(__file__).parent / "data" / "wildbg_contact.csv"


def run_child(code: str, timeout: float = HUNG) -> subprocess.CompletedProcess[str]:
    """Runs ``code`` in a fresh interpreter; fails the test if it does not end in time."""
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"the child hung (killed after {timeout} s): {expired.stderr!r}")


# 1. Counts that overflow (R1): validated before any arithmetic, reported as given.


def overflowing_rows() -> list[list[list[int]]]:
    wraps = [0] * 25
    wraps[1] = wraps[2] = 2**31 - 255
    wraps[3] = 525  # the three sum to 2**32 + 15: 15 once wrapped to 32 bits
    return [
        [[2**31 - 1, 1] + [0] * 23, [0] * 24 + [1]],
        [[2**40, 1] + [0] * 23, [0] * 24 + [1]],
        [wraps, START[1].tolist()],
    ]


@pytest.mark.parametrize("rows", overflowing_rows())
def test_overflowing_counts_are_refused_by_every_entry_point_r1(rows: list[list[int]]) -> None:
    total = str(sum(c for c in rows[0] if c > 0))
    wide = np.array([rows], dtype=np.int64)
    calls = {
        "from_array": lambda: Position.from_array(rows),
        "from_array int64": lambda: Position.from_array(wide[0]),
        "batch.ids": lambda: batch.ids(wide),
        "batch.moves": lambda: batch.moves(wide, np.array([[3, 1]])),
        "batch.all_rolls": lambda: batch.all_rolls(wide, threads=2),
        "batch.to_positions": lambda: batch.to_positions(wide),
        "encode": lambda: bgfast.encode(wide),
        "pubeval": lambda: bgfast.pubeval.score(wide),
        "rollout": lambda: bgfast.rollout(wide[0], games=2, seed=1),
    }
    for name, call in calls.items():
        with pytest.raises(bgfast.InvalidPositionError, match=rf"R1: .* {total} checkers") as info:
            call()
        assert "PanicException" not in type(info.value).__name__, name


def test_a_64_bit_count_is_not_read_as_its_low_32_bits_r1() -> None:
    # 2**32 + 5 on the 6-point used to be read as 5: the start.
    counts = START.astype(np.int64)
    counts[0, 5] = 2**32 + 5
    for call in (bgfast.encode, bgfast.pubeval.score, batch.ids, Position.from_array):
        with pytest.raises(bgfast.InvalidPositionError, match=r"R1: .*4294967311 checkers"):
            call(counts if call is Position.from_array else counts[None])
    unsigned = np.full((1, 2, 25), 2**64 - 1, dtype=np.uint64)
    with pytest.raises(bgfast.InvalidPositionError, match=str(25 * (2**64 - 1))):
        batch.ids(unsigned)
    with pytest.raises(bgfast.InvalidPositionError, match=r"R1: .* 10{30} checkers"):
        Position.from_array([[10**30] + [0] * 24, [0] * 25])
    # Beyond 128 bits: still the value as given.
    with pytest.raises(bgfast.InvalidPositionError, match=r"count 10{40} on the side to move"):
        Position.from_array([[10**40] + [0] * 24, [0] * 25])


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_every_integer_dtype_reads_the_same_positions(dtype: type[np.integer]) -> None:
    rows = batch.from_ids(["4HPwATDgc/ABMA", "v3sAAAhmdzMAAQ", "4HPhMQDgc/ADIA"])
    typed = rows.astype(dtype)
    assert batch.ids(typed) == batch.ids(rows)
    assert Position.from_array(typed[1]) == Position.from_array(rows[1])
    np.testing.assert_array_equal(bgfast.encode(typed), bgfast.encode(rows))
    non_contiguous = np.repeat(typed, 2, axis=0)[::2]
    assert batch.ids(non_contiguous) == batch.ids(rows)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_, np.complex64, object])
def test_arrays_that_hold_no_counts_say_so(dtype: type) -> None:
    with pytest.raises(bgfast.InvalidPositionError, match="integer array") as info:
        Position.from_array(START.astype(dtype))
    assert "shape" not in str(info.value)
    with pytest.raises(bgfast.InvalidPositionError, match="integer array"):
        batch.ids(START[None].astype(dtype))


# 2. A position no game reaches, and native loops that Ctrl-C stops.

BOTH_BARRED = "27YBA0DbtgEDQA"


def test_both_sides_barred_against_closed_boards_is_refused_r12() -> None:
    with pytest.raises(bgfast.InvalidPositionError, match="R12"):
        Position.from_id(BOTH_BARRED)
    side = [2] * 6 + [0] * 18 + [1]
    with pytest.raises(bgfast.InvalidPositionError, match="R12"):
        Position.from_array([side, side])
    with pytest.raises(bgfast.InvalidPositionError, match="R12"):
        batch.ids(np.array([[side, side]], dtype=np.uint8))
    with pytest.raises(bgfast.InvalidPositionError, match="R12"):
        bgfast.rollout([side, side], games=10, seed=1)  # never returned before


#: Seconds after Ctrl-C by which an interrupted call must have stopped: each call below
#: takes several times longer uninterrupted (at least 8 s on the 2-vCPU VM of
#: BENCHMARKS.md, on one thread), and stops within a fraction of a second.
STOPS_WITHIN = 3

#: Calls that take far longer than `STOPS_WITHIN`, each with the setup (made before the call
#: starts) of its arguments.
INTERRUPTIBLE = {
    "perft": ("", "bgfast.perft(bgfast.Position(), 5)"),  # hours of work
    "rollout plan": (
        "",
        "bgfast._core.RolloutPlan([(bgfast.Position(), 'position')],"
        " (1, 'centred', 32768), ('money', False, False), 1, True, None, None, False, None,"
        " None, 'pubeval').run(0, 10**12, 1)",
    ),
    # Batch calls on copies of a contact position (20 s, 22 s, 33 s and 9 s uninterrupted).
    # Those that generate plays write every row they make, so memory, not time, bounds
    # them (seconds); the Rust tests stop them part way.
    "batch.move_counts": ("rows = contact(8_000_000)", "batch.move_counts(rows, threads=1)"),
    "Net.evaluate": (
        "rows = contact(8_000_000); net = bgfast.Net.wildbg_large()",
        "net.evaluate(rows, threads=1)",
    ),
    "Net.score_rolls": (
        "rows = contact(300_000); net = bgfast.Net.wildbg()",
        "net.score_rolls(rows, threads=1)",
    ),
    "pubeval.score": ("rows = contact(16_000_000)", "bgfast.pubeval.score(rows)"),
    # 11 s, mostly the kernel's first touch of the 3.2 GB it writes.
    "features.encode": ("rows = contact(4_000_000)", "bgfast.features.encode(rows, 'wildbg')"),
}


@pytest.mark.parametrize("call", sorted(INTERRUPTIBLE))
def test_ctrl_c_stops_long_native_calls(call: str) -> None:
    setup, statement = INTERRUPTIBLE[call]
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, numpy as np, bgfast\n"
            "from bgfast import batch\n"
            "def contact(n):\n"
            "    row = bgfast.Position.from_id('4HPwATDgc/ABMA').to_array()\n"
            "    return np.repeat(row[np.newaxis], n, axis=0)\n"
            # The test sends Ctrl-C again until the child has exited: one arriving after
            # the first (even before the except clause below runs) must not turn the
            # clean stop into a death by signal. The first raises, as Python's own does.
            "fired = []\n"
            "def once(signum, frame):\n"
            "    if not fired:\n"
            "        fired.append(signum)\n"
            "        raise KeyboardInterrupt\n"
            "signal.signal(signal.SIGINT, once)\n"
            f"{setup}\n"
            "try:\n"
            "    print('started', flush=True)\n"
            f"    {statement}\n"
            "    print('finished before Ctrl-C: give it more work', flush=True)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n"
            "    sys.exit(3)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        # Interrupt once the call is under way, again until it has noticed.
        time.sleep(1)
        interrupted = time.monotonic()
        for _ in range(HUNG):
            child.send_signal(signal.SIGINT)
            try:
                child.wait(timeout=1)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            pytest.fail(f"{call} did not stop on Ctrl-C")
        # A call that ran to its end would stop too (Python raises once it returns).
        waited = time.monotonic() - interrupted
        assert waited < STOPS_WITHIN, f"{call} stopped {waited:.1f} s after Ctrl-C"
        assert child.returncode == 3, child.stdout.read()
        assert child.stdout.read().strip() == "interrupted"
    finally:
        child.kill()
        child.wait()


def test_a_rollout_interrupted_by_ctrl_c_returns_its_partial_result() -> None:
    result = run_child(
        """
        import os, signal, threading, bgfast
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        r = bgfast.rollout(games=10**9, policy="random", seed=1, threads=1)
        print(r.partial, r.games > 0)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


def test_an_interrupted_cube_rollout_says_so_at_the_top() -> None:
    # The flag was only on each line's result: a script acting on `action` could not tell.
    result = run_child(
        """
        import os, signal, threading, bgfast
        whole = bgfast.rollout_cube(games=20, seed=1)
        print(whole.partial, whole.games, whole.to_dict()["partial"])
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        c = bgfast.rollout_cube(games=10**9, seed=1, threads=1)
        print(c.partial, c.to_dict()["partial"], 0 < c.games == c.to_dict()["games"] < 10**9)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "20", "False", "True", "True", "True"]


def test_a_cube_rollout_stopped_before_any_game_names_no_action() -> None:
    class Interrupted(ThreadPoolExecutor):
        """Ctrl-C as the first shard is sent: no game is played."""

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt

    with Interrupted() as pool:
        cube = bgfast.rollout_cube(games=100, seed=1, executor=pool)
    assert (cube.games, cube.partial, cube.action) == (0, True, "no game played")
    assert json.loads(json.dumps(cube.to_dict(), allow_nan=False))["action"] == "no game played"


# 3. Fork: a child process gets working thread pools.


def test_a_process_forked_after_threaded_calls_works() -> None:
    result = run_child(
        """
        import multiprocessing, numpy as np, bgfast
        from concurrent.futures import ProcessPoolExecutor
        from bgfast import batch
        rows = np.repeat(bgfast.Position().to_array()[None], 600, axis=0)
        dice = np.tile([[3, 1]], (600, 1))
        batch.moves(rows, dice)  # the default thread count
        batch.moves(rows, dice, threads=2)
        bgfast.rollout(games=500, policy="pubeval", seed=1, threads=2)
        local = bgfast.rollout(games=3000, policy="race", seed=5, threads=1)
        fork = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(2, mp_context=fork) as pool:
            remote = bgfast.rollout(games=3000, policy="race", seed=5, executor=pool)
            counts = pool.submit(batch.move_counts, rows[:300], None, threads=2).result()
        assert remote.counts == local.counts
        assert counts.shape == (300, 21)
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# 4. Out of memory: a MemoryError, and the process goes on.


def test_a_result_too_large_for_memory_is_a_memory_error() -> None:
    result = run_child(
        """
        import resource, numpy as np, bgfast
        from bgfast import batch
        rows = np.repeat(bgfast.Position().to_array()[None], 200_000, axis=0)
        limit = 3_000_000 * 1024  # as `ulimit -v 3000000`
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for threads in (1, 2):
            try:
                batch.all_rolls(rows, threads=threads)
            except MemoryError as error:
                print("MemoryError", error)
        print(len(batch.all_rolls(rows[:10])[0]))
        """
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["MemoryError", "MemoryError"]
    assert lines[2] == "211"


def test_scoring_every_roll_of_too_many_positions_is_a_memory_error() -> None:
    # Net.score_rolls grew each row's results infallibly: the interpreter aborted.
    result = run_child(
        """
        import resource, numpy as np, bgfast
        rows = np.repeat(bgfast.Position().to_array()[None], 100_000, axis=0)
        net = bgfast.Net.wildbg()
        print(len(net.score_rolls(rows[:1])[1]))
        with open("/proc/self/status") as status:
            size = next(int(l.split()[1]) for l in status if l.startswith("VmSize:"))
        limit = (size + 150_000) * 1024  # 150 MB more than the process has now
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for threads in (1, 2):
            try:
                net.score_rolls(rows, threads=threads)
            except MemoryError as error:
                print("MemoryError", error)
        print(len(net.score_rolls(rows[:1])[1]))
        """
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:3]] == ["MemoryError", "MemoryError"]
    assert lines[0] == lines[3]


def test_a_callable_rollout_with_too_many_slots_is_a_memory_error() -> None:
    # A rollout with an evaluator callable grew its lockstep slots and candidates
    # infallibly: a large batch= aborted the interpreter.
    result = run_child(
        """
        import resource, numpy as np, bgfast
        flat = lambda features: np.zeros(len(features))
        def roll(games):
            return bgfast.rollout(games=games, batch=games, seed=1, policy=flat)
        print(roll(8).games)
        with open("/proc/self/status") as status:
            size = next(int(l.split()[1]) for l in status if l.startswith("VmSize:"))
        limit = (size + 200_000) * 1024  # 200 MB more than the process has now
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for games in (2**20, 2**22):
            try:
                roll(games)
            except MemoryError as error:
                print("MemoryError", error)
        print(roll(8).games)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:1] == ["8"]
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:3]] == ["MemoryError", "MemoryError"]
    assert lines[3] == "8"


def test_a_bearoff_batch_names_the_first_bad_row_of_either_side() -> None:
    mover = np.ones((5, 6), dtype=np.int64)
    opponent = np.ones((5, 6), dtype=np.int64)
    mover[3] = [1, 16, 0, 0, 0, 0]
    opponent[1] = [1, 16, 0, 0, 0, 0]
    for m, o in ((mover, opponent), (opponent, mover)):
        with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1: "):
            bgfast.bearoff.win_probability_batch(m, o)


@pytest.mark.parametrize("kind", [np.uint8, np.int64, list])
def test_a_bearoff_batch_names_a_board_past_the_table_before_a_later_non_board(
    kind: object,
) -> None:
    # Row 3 is no home board at all (16 checkers, R1), row 2 a board of 7 checkers, which
    # the table does not cover: the error names row 2, the first bad row.
    mover = np.array([[1, 0, 0, 0, 0, 0]] * 4, dtype=np.uint8)
    opponent = mover.copy()
    mover[3] = [16, 0, 0, 0, 0, 0]
    opponent[2] = [7, 0, 0, 0, 0, 0]
    as_kind = (lambda a: a.tolist()) if kind is list else (lambda a: a.astype(kind))
    for m, o in ((mover, opponent), (opponent, mover)):
        with pytest.raises(bgfast.BearoffRangeError, match=r"^row 2: 7 checkers"):
            bgfast.bearoff.win_probability_batch(as_kind(m), as_kind(o))


def test_candidate_features_too_large_for_memory_are_a_memory_error() -> None:
    result = run_child(
        """
        import resource, bgfast
        env = bgfast.VecEnv(1_000_000, seed=1)
        limit = 3_000_000 * 1024  # as `ulimit -v 3000000`
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            env.candidates()
        except MemoryError as error:
            print("MemoryError", error)
        print(len(env.observe()))
        """
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[0] == "MemoryError" and lines[1] == "1000000"


def _random_plan(lines: int = 1) -> bgfast._core.RolloutPlan:
    """A cubeless money rollout plan of the start, ``lines`` times, with random play."""
    return bgfast._core.RolloutPlan(
        [(Position(), "position")] * lines,
        (1, "centred", 32768),
        ("money", False, False),
        1,
        True,
        None,
        None,
        False,
        None,
        None,
        "random",
    )


def test_a_rollout_of_more_lines_than_a_roll_has_plays_is_refused() -> None:
    # Their paired sums would take memory in the square of their number.
    with pytest.raises(bgfast.BgfastError, match="at most 3060 lines"):
        _random_plan(lines=3061)


# 6. Threads: bounded, whatever is asked.


@pytest.mark.parametrize("threads", [0, -1, 257, 2**63, 2**64, 10**30])
def test_thread_counts_out_of_range_name_the_range(threads: int) -> None:
    message = rf"threads must be from 1 to 256, got {threads}"
    with pytest.raises(bgfast.BgfastError, match=message):
        bgfast.rollout(games=10, threads=threads)
    with pytest.raises(bgfast.BgfastError, match=message):
        batch.ids([Position()], threads=threads)
    with pytest.raises(bgfast.BgfastError, match=message):
        _random_plan().run(0, 10, threads)


@pytest.mark.parametrize("threads", [True, 1.5, "2"])
def test_thread_counts_of_the_wrong_type_are_type_errors(threads: object) -> None:
    with pytest.raises(TypeError, match="threads must be an int"):
        batch.ids([Position()], threads=threads)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="threads must be an int"):
        bgfast.rollout(games=10, threads=threads)  # type: ignore[arg-type]


def test_many_thread_counts_keep_a_bounded_number_of_threads() -> None:
    result = run_child(
        """
        import os, time, bgfast
        for k in range(1, 61):
            bgfast.rollout(games=64, policy="random", seed=k, threads=k)
        # The workers of a dropped pool end soon after, not at once: wait for them (a
        # bounded wait: a leak never gets below the bound).
        for _ in range(200):
            threads = len(os.listdir("/proc/self/task"))
            if threads < 4 * 60 + 20:
                break
            time.sleep(0.05)
        print(threads)
        """
    )
    assert result.returncode == 0, result.stderr
    # Four pools of at most 60 workers (MAX_POOLS), not 1,830 threads.
    assert int(result.stdout) < 4 * 60 + 20


# 8. Silent wrong answers.


def test_an_evaluator_scoring_nan_is_refused_naming_the_rows() -> None:
    def nan_at_row_2(features: np.ndarray) -> np.ndarray:
        scores = np.zeros(len(features), dtype=np.float32)
        scores[2] = np.nan
        return scores

    with pytest.raises(bgfast.BgfastError, match=r"the score at row 2 is NaN"):
        bgfast.rollout(games=8, policy=nan_at_row_2, seed=1)
    with pytest.raises(bgfast.BgfastError, match="scores must be numbers"):
        bgfast.rollout(games=8, policy=lambda f: np.array(["x"] * len(f)), seed=1)


# Unclear errors: every bad integer argument is a BgfastError naming it.


def test_integer_arguments_out_of_range_name_the_argument() -> None:
    start = Position()
    cases = [
        (lambda: start.moves(2**70, 1), bgfast.InvalidDiceError, "1180591620717411303424"),
        (lambda: start.play("8/5 6/5", (2**70, 1)), bgfast.InvalidDiceError, "from 1 to 6"),
        (lambda: bgfast.perft(start, -1), bgfast.BgfastError, "depth must be from 0 to 7"),
        (lambda: bgfast.perft(start, 2**40), bgfast.BgfastError, "depth must be from 0 to 7"),
        (lambda: bgfast.rollout(games=2, truncate=2**32), bgfast.BgfastError, "truncate"),
        (lambda: bgfast.rollout(games=2**64), bgfast.BgfastError, "games must be from 1"),
        (lambda: bgfast.rollout(games=2, seed=-1), bgfast.BgfastError, "seed must be from 0"),
        (lambda: bgfast.rollout(games=2, policy=len, batch=0), bgfast.BgfastError, "batch"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_moves_index_beyond_any_size_is_an_index_error() -> None:
    moves = Position().moves(3, 1)
    for index in (2**63, -(2**63), 10**40, len(moves)):
        with pytest.raises(IndexError, match="out of range"):
            moves[index]
    assert moves[True] == moves[1]  # as in a list
    with pytest.raises(TypeError):
        moves[1.0]  # type: ignore[index]


def test_moves_is_a_full_sequence() -> None:
    moves = Position().moves(3, 1)
    other = Position().moves(6, 6)
    for i, move in enumerate(moves):
        assert moves.index(move) == i
        assert moves.count(move) == 1
    assert moves.count(other[0]) == 0
    with pytest.raises(ValueError):
        moves.index(other[0])
    with pytest.raises(ValueError):
        moves.index(moves[0], 1)
    assert moves.index(moves[-1], -1) == len(moves) - 1
    assert moves.index(moves[3], -(10**30), 10**30) == 3


# The portable builds: forced on this machine, named by `bgfast --version --verbose`.


def test_the_baseline_builds_give_the_same_batch_output_and_say_so() -> None:
    code = """
        import hashlib, pathlib, numpy as np, bgfast
        from bgfast import batch, cli
        ids = pathlib.Path(CORPUS).read_text().split()[:300]
        offsets, results, _ = batch.all_rolls(batch.from_ids(ids), threads=2)
        print(hashlib.sha256(offsets.tobytes() + results.tobytes()).hexdigest())
        cli.main(["--version", "--verbose"])
        """
    outputs = {}
    for isa in ("", "baseline"):
        env = {**os.environ, "BGFAST_ISA": isa}
        child = subprocess.run(
            [sys.executable, "-c", f"CORPUS = {str(CORPUS)!r}" + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=HUNG,
            env=env,
        )
        assert child.returncode == 0, child.stderr
        outputs[isa] = child.stdout.splitlines()
    assert outputs[""][0] == outputs["baseline"][0]
    assert "move generator: x86-64 baseline (BGFAST_ISA=baseline)" in outputs["baseline"]
    assert "row writer: SSE2 (BGFAST_ISA=baseline)" in outputs["baseline"]
    assert not any("BGFAST_ISA" in line for line in outputs[""])
