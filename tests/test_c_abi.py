"""The C ABI (``rust/bgfast-c``, ``libbgfast``): a C program compiled with the system's
``cc`` against the checked-in header and the release library, its answers checked against
the Python package's; every function refused bad input with a code and a message, writing
nothing past the buffers given.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bgfast import Net, Position, RolloutResult, rollout

ROOT = Path(__file__).parent.parent
CRATE = ROOT / "rust" / "bgfast-c"
DATA = Path(__file__).parent / "data"


@cache
def library_dir() -> Path:
    """Builds ``libbgfast`` (release) and returns the directory it is in."""
    subprocess.run(
        ["cargo", "build", "--release", "-p", "bgfast-c"], cwd=ROOT, check=True, timeout=1800
    )
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    target = Path(json.loads(meta.stdout)["target_directory"]) / "release"
    assert (target / "libbgfast.so").exists() or (target / "libbgfast.dylib").exists()
    return target


@cache
def check_program(tmp: str) -> Path:
    """``tests/c/check.c`` compiled with the system's ``cc``, warnings as errors."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("a C compiler (cc) is needed to test the C ABI")
    lib = library_dir()
    out = Path(tmp) / "check"
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-O2",
            str(CRATE / "tests" / "c" / "check.c"),
            f"-I{CRATE / 'include'}",
            f"-L{lib}",
            "-lbgfast",
            "-lpthread",
            f"-Wl,-rpath,{lib}",
            "-o",
            str(out),
        ],
        check=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return check_program(str(tmp_path_factory.mktemp("c")))


def _run(program: Path, *args: str, stdin: str = "") -> list[str]:
    done = subprocess.run(
        [str(program), *args], input=stdin, capture_output=True, text=True, timeout=300
    )
    lines = done.stdout.splitlines()
    assert lines and lines[-1] == "FAILURES 0", done.stdout[-3000:] + done.stderr
    assert done.returncode == 0
    return lines[:-1]


def test_the_c_program_agrees_with_python(program: Path) -> None:
    ids = []
    for name in ("wildbg_contact.csv", "wildbg_race.csv"):
        ids += (DATA / name).read_text().split()[:150]
    ids.append("AAAAUUoppaQAAA")  # 2,226 results for 1-1: the largest known
    rolls = [(3, 1), (6, 6), (1, 1), (5, 2), (4, 4), (6, 5)]
    cases = [(pid, rolls[k % len(rolls)]) for k, pid in enumerate(ids)]
    cases.append(("AAAAUUoppaQAAA", (1, 1)))
    stdin = "".join(f"{pid} {d1} {d2}\n" for pid, (d1, d2) in cases)
    lines = _run(program, stdin=stdin)
    per_case = 5
    assert len(lines) == (per_case + 1) * len(cases)
    net = Net.wildbg()
    positions = [Position.from_id(pid) for pid, _ in cases]
    want_eval = net.evaluate(positions)
    batch = lines[per_case * len(cases) :]

    def floats(line: str) -> np.ndarray:
        return np.array([float(x) for x in line.split()[1:]], dtype=np.float32)

    for k, ((pid, dice), position) in enumerate(zip(cases, positions)):
        id_line, moves_line, texts_line, best_line, eval_line = lines[
            per_case * k : per_case * (k + 1)
        ]
        assert id_line == f"ID {pid}"
        moves = position.moves(dice)
        results = [m.result.id for m in moves]
        assert moves_line == f"MOVES {len(results)} " + " ".join(results), (pid, dice)
        assert texts_line == "TEXTS " + "|".join(str(m) for m in moves), (pid, dice)
        best = net.best_move(position, dice)
        assert best_line == f"BEST {best.result.id} {best}", (pid, dice)  # "" for a pass
        assert np.array_equal(floats(eval_line), want_eval[k]), (pid, want_eval[k])
        assert np.array_equal(floats(batch[k]), want_eval[k]), (pid, batch[k])
    assert max(len(line.split()) - 2 for line in lines[1::per_case]) == 2226


#: Rollouts through the C ABI and their Python twins: ``(position, games, seed, threads,
#: net, truncate, variance reduction, cubeful, cube value, owner, Jacoby, match length,
#: score, Crawford)``.
ROLLOUTS = [
    ("4HPwATDgc/ABMA", 300, 7, 2, 0, -1, 0, 0, 1, 0, 0, 0, (0, 0), 0),
    ("4HPwATDgc/ABMA", 40, 3, 1, 0, 4, 1, 0, 1, 0, 0, 0, (0, 0), 0),
    ("4HPwATDgc/ABMA", 60, 5, 2, 0, 6, 0, 1, 2, 1, 1, 0, (0, 0), 0),
    ("4HPwATDgc/ABMA", 60, 9, 2, 0, 8, 0, 1, 1, 0, 0, 7, (3, 4), 0),
    ("4HPwATDgc/ABMA", 30, 9, 1, 0, 5, 0, 1, 1, 0, 0, 5, (4, 2), 1),
    ("2GMAAGC3AQAAAA", 200, 1, 2, 0, -1, 0, 1, 2, 2, 0, 0, (0, 0), 0),  # a race, cubeful
    ("4HPwATDgc/ABMA", 8, 2, 1, 1, 2, 0, 0, 1, 0, 0, 0, (0, 0), 0),  # the larger nets
    ("4HPwATDgc/ABMA", 100, 4, 2, 0, -1, 0, 0, 1, 0, 1, 0, (0, 0), 0),  # Jacoby, cubeless
    ("4HPwATDgc/ABMA", 40, 6, 2, 0, 6, 0, 1, 1, 0, 0, 11, (2, 9), 0, "Woolsey"),
    ("4HPwATDgc/ABMA", 40, 6, 2, 0, 6, 0, 0, 1, 0, 0, 15, (12, 1), 0, "rockwell_kazaross"),
]


def _line(case: tuple[Any, ...], stop: int = 0) -> str:
    """The ``check --rollout`` input line of a case."""
    met = case[14] if len(case) > 14 else "-"
    fields = " ".join(str(x) for x in case[1:12])
    return f"{case[0]} {fields} {case[12][0]} {case[12][1]} {case[13]} {stop} {met}\n"


def _python_rollout(case: tuple[Any, ...]) -> RolloutResult:
    (
        pid,
        games,
        seed,
        threads,
        net,
        truncate,
        vr,
        cubeful,
        value,
        owner,
        jacoby,
        length,
        score,
        crawford,
        *table,
    ) = case
    return rollout(
        pid,
        games=games,
        seed=seed,
        threads=threads,
        policy=("wildbg", "wildbg-large")[net],
        truncate=None if truncate < 0 else truncate,
        variance_reduction=bool(vr),
        cubeful=bool(cubeful),
        cube=(value, ("centred", "mover", "opponent")[owner]),
        jacoby=bool(jacoby),
        match_length=length,
        score=score,
        crawford=bool(crawford) if length else None,
        met=table[0] if table else "kazaross-xg2",
    )


def _value_stderr(result: RolloutResult) -> float:
    """The standard error of the rollout's value, as Python names it."""
    if result.mwc is not None:
        return result.stderr["mwc"]
    return result.stderr["cubeful_equity" if result.cubeful_equity is not None else "equity"]


def test_rollouts_through_the_c_abi_equal_pythons(program: Path) -> None:
    stdin = "".join(_line(c) for c in ROLLOUTS)
    lines = _run(program, "--rollout", stdin=stdin)
    assert len(lines) == len(ROLLOUTS), lines
    names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")
    for case, line in zip(ROLLOUTS, lines):
        fields = line.split()
        assert fields[0] == "ROLLOUT", line
        games, stopped = int(fields[1]), int(fields[2])
        means = [float(x) for x in fields[3:10]]
        errors = [float(x) for x in fields[10:17]]
        ends = [int(x) for x in fields[17:22]]
        want = _python_rollout(case)
        assert (games, stopped) == (want.games, 0)
        assert means == [getattr(want, n) for n in names] + [want.value], case
        assert errors == [want.stderr[n] for n in names] + [_value_stderr(want)], case
        assert ends == list(want.ends.values()), case


def test_a_progress_callback_stops_a_c_rollout_with_the_games_finished(program: Path) -> None:
    case = (ROLLOUTS[0][0], 100_000, *ROLLOUTS[0][2:])
    line = _line(case, stop=2)
    (out,) = _run(program, "--rollout", stdin=line)
    fields = out.split()
    games, stopped = int(fields[1]), int(fields[2])
    assert stopped == 1 and 0 < games < 100_000
    # The games finished are game 0 onwards: the same as a rollout of that many.
    want = _python_rollout((case[0], games, *case[2:]))
    assert float(fields[3 + 5]) == want.equity


def test_calls_while_threads_exit_return_codes_and_never_abort(program: Path) -> None:
    # A thread-key destructor and an atexit handler run after Rust's thread-locals are
    # destroyed: a panic there would unwind into C and abort the process.
    done = subprocess.run([str(program), "--exiting"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    exited = [line for line in done.stdout.splitlines() if line.startswith("EXITED ")]
    # Good calls succeed, the bad dice are refused (code 4); the message is lost (0).
    assert exited == ["EXITED 0,0,0,4,0,0 0,0,0,4,0,0"], done.stdout + done.stderr


def test_bad_input_is_refused_with_codes_and_messages(program: Path) -> None:
    lines = _run(program, "--errors")
    errors = {}
    for line in lines:
        if line.startswith("ERR "):
            _, case, code, *message = line.split(" ")
            errors[case] = (int(code), " ".join(message))
    codes = {
        "from_id_null_id": 1,
        "from_id_null_out": 1,
        "from_id_short": 2,
        "from_id_garbage": 2,
        "from_id_too_many": 2,
        "from_id_not_utf8": 2,
        "from_id_newline": 2,
        "from_id_unterminated": 2,
        "to_id_null_pos": 1,
        "to_id_null_out": 1,
        "to_id_too_many": 3,
        "to_id_shared_point": 3,
        "moves_die_0": 4,
        "moves_die_7": 4,
        "moves_die_negative": 4,
        "moves_null_count": 1,
        "moves_null_results": 1,
        "moves_bad_position": 3,
        "moves_too_small": 5,
        "moves_size_query": 5,
        "moves_game_over": 6,
        "evaluate_null_pos": 1,
        "evaluate_null_out": 1,
        "evaluate_bad": 3,
        "best_move_null_result": 1,
        "best_move_game_over": 6,
        "best_move_bad_dice": 4,
        "best_move_text_too_small": 5,
        "move_text_null_text": 1,
        "move_text_null_result": 1,
        "move_text_illegal": 8,
        "move_text_bad_result": 3,
        "batch_bad_position": 3,
        "batch_threads": 9,
        "batch_null": 1,
        "rollout_defaults_null": 1,
        "rollout_null_result": 1,
        "rollout_null_settings": 1,
        "rollout_bad_position": 3,
        "rollout_no_games": 9,
        "rollout_threads": 9,
        "rollout_net": 9,
        "rollout_flag": 9,
        "rollout_cube_life": 9,
        "rollout_cube_value": 9,
        "rollout_cube_owner": 9,
        "rollout_owned_at_one": 9,
        "rollout_money_score": 9,
        "rollout_money_met": 9,
        "rollout_score_past": 9,
        "rollout_match_jacoby": 9,
        "rollout_crawford_no_one_away": 9,
        "rollout_crawford_cube": 9,
        "rollout_met": 9,
    }
    assert {case: code for case, (code, _) in errors.items()} == codes
    for case, (_, message) in errors.items():
        assert message, case  # every refusal names what is wrong
    assert "pos" in errors["to_id_null_pos"][1]
    # Read no further than an ID's 15 bytes (the 16th is a guard page: reading it faults).
    unterminated = errors["from_id_unterminated"][1]
    assert '"4HPwATDgc/ABMAA"...: longer than 14 characters' in unterminated
    assert "no NUL among its first 15 bytes" in unterminated
    # The newline fgets keeps is named as such, not as a missing terminator.
    newline = errors["from_id_newline"][1]
    assert """"4HPwATDgc/ABMA" followed by '\\n'""" in newline, newline
    assert "strip the newline fgets keeps" in newline and "no NUL" not in newline
    assert "cubeful is 0 or 1, not 2" in errors["rollout_flag"][1]
    assert "R17" in errors["rollout_cube_value"][1] and "R21" in errors["rollout_crawford_cube"][1]
    assert "match length 5" in errors["rollout_score_past"][1]
    assert '"no-such-table" is no table bgfast ships' in errors["rollout_met"][1]
    assert "16 results" in errors["moves_too_small"][1]
    assert "R15" in errors["moves_game_over"][1]
    assert "R8" in errors["move_text_illegal"][1]
    assert errors["move_text_bad_result"][1].startswith("result: ")
    assert errors["batch_bad_position"][1].startswith("position 1: ")
    assert "needs 8 bytes" in errors["best_move_text_too_small"][1]
    # A finished game sets *count to 0 (it was left as it was: 777).
    assert "GAME_OVER_COUNT 0" in lines
    assert "dice are 1 to 6" in errors["moves_die_7"][1]
    needed = [int(line.split()[1]) for line in lines if line.startswith("NEEDED ")]
    assert needed == [16, len(Position().moves(1, 1))]
    assert f"VERSION {__import__('bgfast').__version__}" in lines
    # bgfast_version leaves the last call's message as it is.
    assert f"AFTER_VERSION {errors['evaluate_bad'][1]}" in lines


@pytest.mark.parametrize("standard", ["c89", "c99", "c11"])
def test_the_header_compiles_as_strict_c(tmp_path: Path, standard: str) -> None:
    # cbindgen's `//` comments and `#endif // __cplusplus` failed under -std=c89 -pedantic.
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("a C compiler (cc) is needed to test the C ABI")
    source = tmp_path / "use.c"
    source.write_text(
        '#include "bgfast.h"\n#include "bgfast.h"\n'  # twice: the include guard
        "int main(void) { bgfast_position p; "
        'return bgfast_position_from_id("4HPwATDgc/ABMA", &p); }\n'
    )
    subprocess.run(
        [cc, f"-std={standard}", "-pedantic", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
         f"-I{CRATE / 'include'}", str(source)],
        check=True, timeout=300,
    )  # fmt: skip


def test_the_header_compiles_as_cplusplus(tmp_path: Path) -> None:
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler on this machine")
    source = tmp_path / "use.cpp"
    source.write_text(
        '#include "bgfast.h"\n'
        "int main() { bgfast_position p{}; "
        'return bgfast_position_from_id("4HPwATDgc/ABMA", &p); }\n'
    )
    lib = library_dir()
    env = {**os.environ}
    subprocess.run(
        [cxx, "-std=c++17", "-pedantic", "-Wall", "-Werror", str(source), f"-I{CRATE / 'include'}",
         f"-L{lib}", "-lbgfast", f"-Wl,-rpath,{lib}", "-o", str(tmp_path / "use")],
        check=True, timeout=300, env=env,
    )  # fmt: skip
    assert subprocess.run([str(tmp_path / "use")], timeout=60).returncode == 0


def test_the_readmes_c_example_compiles_and_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index('```c\n#include "bgfast.h"\n') + len("```c\n")
    example = readme[start : readme.index("```", start)]
    include, body = example.split("\n", 1)
    source = tmp_path / "example.c"
    source.write_text(
        f"#include <stdio.h>\n#include <stdlib.h>\n{include}\n"
        f'int main(void) {{\n{body}\nprintf("%s %s\\n", id, play);\nreturn 0;\n}}\n'
    )
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("a C compiler (cc) is needed to test the C ABI")
    lib = library_dir()
    subprocess.run(
        [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", str(source), f"-I{CRATE / 'include'}",
         f"-L{lib}", "-lbgfast", f"-Wl,-rpath,{lib}", "-o", str(tmp_path / "example")],
        check=True, timeout=300,
    )  # fmt: skip
    done = subprocess.run([str(tmp_path / "example")], capture_output=True, text=True, timeout=60)
    first = Position().moves(3, 1)[0]
    assert done.stdout.split() == [first.result.id, "8/5", "6/5"], done.stdout + done.stderr


def test_a_program_linked_by_the_librarys_path_finds_it_once_installed(tmp_path: Path) -> None:
    # CMake and Meson link a library by its path: without a SONAME the program recorded
    # the build directory and failed to start once the library was installed elsewhere.
    cc = shutil.which("cc")
    if cc is None:
        pytest.fail("a C compiler (cc) is needed to test the C ABI")
    build = tmp_path / "build"
    build.mkdir()
    shutil.copy(library_dir() / "libbgfast.so", build / "libbgfast.so")
    source = tmp_path / "app.c"
    source.write_text(
        '#include <stdio.h>\n#include "bgfast.h"\n'
        "int main(void) { bgfast_position p;\n"
        '  if (bgfast_position_from_id("4HPwATDgc/ABMA", &p) != BGFAST_OK) return 1;\n'
        '  printf("%d\\n", p.checkers[1][5]); return 0; }\n'
    )
    app = tmp_path / "app"
    subprocess.run(
        [cc, str(source), f"-I{CRATE / 'include'}", str(build / "libbgfast.so"), "-o", str(app)],
        check=True,
        timeout=300,
    )
    installed = tmp_path / "lib"
    build.rename(installed)
    env = {**os.environ, "LD_LIBRARY_PATH": str(installed)}
    done = subprocess.run([str(app)], capture_output=True, text=True, timeout=60, env=env)
    assert (done.returncode, done.stdout.strip()) == (0, "5"), done.stderr
