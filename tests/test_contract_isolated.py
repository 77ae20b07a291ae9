"""Contract tests that need a subprocess: calls that may abort the interpreter (an
allocation of hundreds of GiB), hang (a pool of 2**40 threads) or run the command line.

Each probe runs in its own interpreter with an address-space limit and a timeout; the
probes run a few at a time, once per session. A probe may raise a ``BgfastError`` or
return; it may never die of a signal, leak another exception, or (unless marked as a
legitimately endless computation) still be running at its timeout. A command line must
exit with a status and a message, never a Python traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from contract_support import (
    CLI_LAUNCHER,
    Probe,
    ProbeResult,
    assert_probe,
    child_env,
    code_result,
    start_code,
)

START_ID = "4HPwATDgc/ABMA"
FINISHED = "F = Position.from_array([[0] * 25, [1] + [0] * 24])\n"
ROLLOUT = "    return bgfast.rollout(Position(), games=100, seed=1, threads={}).counts\n"


@dataclass
class Case:
    """A probe: ``code`` defining ``probe()`` or a command line ``argv``, and its check."""

    timeout: float
    check: Callable[[ProbeResult], None]
    code: str | None = None
    argv: list[Any] | None = None


def raises_or_returns(**kw: Any) -> Callable[[ProbeResult], None]:
    return lambda r: assert_probe(r, **kw)


def returns_value(value: str) -> Callable[[ProbeResult], None]:
    def check(r: ProbeResult) -> None:
        assert_probe(r, returns=True)
        if r.status == "ok":
            assert r.detail == value, f"returned {r.detail}, expected {value}"

    return check


def _forged_one_sided(values: int) -> str:
    """Code that builds a one-sided table file whose checksum is right and whose value
    count is ``values`` (54,264 x 2 valid spans, no values)."""
    return (
        "import struct\n"
        "def _fnv(b):\n"
        "    h = 0xCBF29CE484222325\n"
        "    for x in b:\n"
        "        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF\n"
        "    return h\n"
        f"_p = struct.pack('<II', 54264, {values}) + struct.pack('<IBB', 0, 0, 1) * (2 * 54264)\n"
        "FORGED = (b'BGFBEAR\\n' + struct.pack('<IIQQ', 1, 1, len(_p), _fnv(_p)) + _p)\n"
    )


CASES: dict[str, Case] = {
    # perft allocates one move list (80 KiB) per ply up front
    "perft of the start, depth 2**32-1": Case(
        5,
        raises_or_returns(returns=False, may_run_on=True),
        code="def probe():\n    return bgfast.perft(Position(), 2**32 - 1)\n",
    ),
    "perft of a finished game, depth 2**32-1": Case(
        20,
        returns_value("1"),
        code=FINISHED + "def probe():\n    return bgfast.perft(F, 2**32 - 1)\n",
    ),
    "perft of a finished game, depth 100000": Case(
        20,
        returns_value("1"),
        code=FINISHED + "def probe():\n    return bgfast.perft(F, 100_000)\n",
    ),
    "perft depth 2**32": Case(
        5,
        raises_or_returns(returns=False, may_run_on=True, not_error=["OverflowError"]),
        code="def probe():\n    return bgfast.perft(Position(), 2**32)\n",
    ),
    "perft depth 2**64": Case(
        5,
        raises_or_returns(returns=False, may_run_on=True),
        code="def probe():\n    return bgfast.perft(Position(), 2**64)\n",
    ),
    # rollouts: the thread count is not capped (batch caps it at 256)
    **{
        f"rollout threads={label}": Case(
            30,
            raises_or_returns(),
            code="def probe():\n" + ROLLOUT.format(value),
        )
        for label, value in [
            ("2**63", "2**63"),
            ("2**40", "2**40"),
            ("100000", "100_000"),
            ("2**64", "2**64"),
            ("2**70", "2**70"),
        ]
    },
    # bear-off builds: threads= goes to a pool of that size
    **{
        f"{table}.build(threads={label})": Case(
            30,
            raises_or_returns(),
            code=(
                f"def probe():\n    return bearoff.{table}.build("
                + ("cubeful=False, " if table == "TwoSidedTable" else "")
                + f"threads={value})\n"
            ),
        )
        for table in ("OneSidedTable", "TwoSidedTable")
        for label, value in [("2**40", "2**40"), ("-1", "-1"), ("2**64", "2**64")]
    },
    # a file with a right checksum (FNV-1a is not a MAC) announcing 2**32-1 values
    "OneSidedTable.from_bytes(a forged value count)": Case(
        30,
        raises_or_returns(returns=False, error="BearoffFileError"),
        code=_forged_one_sided(2**32 - 1)
        + "def probe():\n    return bearoff.OneSidedTable.from_bytes(FORGED)\n",
    ),
    "a forged file in the cache": Case(
        60,
        returns_value("8.166666666666666"),
        code=_forged_one_sided(2**32 - 1)
        + "import os, tempfile, pathlib\n"
        + "def probe():\n"
        + "    d = pathlib.Path(tempfile.mkdtemp())\n"
        + "    os.environ['BGFAST_CACHE_DIR'] = str(d)\n"
        + "    name = f'bearoff-one-sided-v{bearoff.OneSidedTable.FORMAT_VERSION}.bin'\n"
        + "    (d / name).write_bytes(FORGED)\n"
        + "    return bearoff.epc([1, 0, 0, 0, 0, 0])\n",
    ),
    # VecEnv: more games than a batch holds
    **{
        f"VecEnv({label})": Case(
            30,
            raises_or_returns(returns=returns, not_error=["InvalidPositionError"]),
            code=f"def probe():\n    return bgfast.VecEnv({value}).n\n",
        )
        for label, value, returns in [
            ("2**22+1", "2**22 + 1", True),
            ("2**23", "2**23", True),
            ("2**40", "2**40", False),
        ]
    },
}


@dataclass
class Cli:
    """A command line and what it must do: succeed (``ok``), fail with a message
    (``ok=False``), or either (``ok=None``); never a traceback, never hang."""

    argv: list[Any]
    ok: bool | None
    timeout: float = 30


CLI: dict[str, Cli] = {
    "no arguments": Cli([], False),
    "moves": Cli(["moves", START_ID, "31"], True),
    "moves, a bad ID": Cli(["moves", "bad", "31"], False),
    "moves, bad dice": Cli(["moves", START_ID, "99"], False),
    "moves, one die": Cli(["moves", START_ID, "3"], False),
    "moves, an undecodable ID": Cli(["moves", b"\xff", "31"], False),
    "moves, a finished game": Cli(["moves", "AQAAAAAAAAAAAA", "31"], False),
    "rollout, an undecodable ID": Cli(["rollout", b"\xff\xfe", "--games", "3"], False),
    "rollout --games 0": Cli(["rollout", "--games", "0"], False),
    "rollout --seed -1": Cli(["rollout", "--games", "3", "--seed", "-1"], False),
    "rollout --threads 0": Cli(["rollout", "--games", "3", "--threads", "0"], False),
    "rollout --threads 10**23": Cli(
        ["rollout", "--games", "5", "--threads", "99999999999999999999999"], False
    ),
    "rollout --threads 2**40": Cli(["rollout", "--games", "100", "--threads", str(2**40)], None),
    "rollout --truncate 2**32": Cli(["rollout", "--games", "5", "--truncate", str(2**32)], None),
    "rollout --truncate -1": Cli(["rollout", "--games", "5", "--truncate", "-1"], False),
    "rollout --truncate 0": Cli(["rollout", "--games", "5", "--truncate", "0"], True),
    "rollout --workers 0": Cli(["rollout", "--games", "5", "--workers", "0"], False),
    "rollout --json": Cli(["rollout", "--games", "3", "--seed", "1", "--json"], True),
    "bearoff build --threads 0": Cli(["bearoff", "build", "--threads", "0"], False),
    "bearoff build into an impossible directory": Cli(
        ["bearoff", "build", "--cache-dir", "/dev/null/cache"], False, timeout=90
    ),
    "bearoff build --force --threads 2**70": Cli(
        ["bearoff", "build", "--force", "--threads", str(2**70), "--cache-dir", "{tmp}"], False
    ),
    "bearoff build --force --threads 2**40": Cli(
        ["bearoff", "build", "--force", "--threads", str(2**40), "--cache-dir", "{tmp}"],
        None,
        timeout=45,
    ),
}


@dataclass
class CliResult:
    returncode: int | None
    stdout: str
    stderr: str


def _run_cli(case: Cli, tmp: Path) -> CliResult:
    argv = [sys.executable, "-c", CLI_LAUNCHER] + [
        a.replace("{tmp}", str(tmp)) if isinstance(a, str) else a for a in case.argv
    ]
    probe = Probe(argv, case.timeout, child_env(BGFAST_CACHE_DIR=str(tmp / "cache")))
    rc, out, err, _ = probe.finish()
    return CliResult(rc, out.decode(errors="replace"), err.decode(errors="replace"))


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every probe and command line, run a few at a time."""
    tmp = tmp_path_factory.mktemp("contract-cli")
    env = child_env(BGFAST_CACHE_DIR=str(tmp / "probe-cache"))

    def run(item: tuple[str, Any]) -> tuple[str, Any]:
        name, case = item
        if isinstance(case, Case):
            assert case.code is not None
            return name, code_result(start_code(case.code, case.timeout, env))
        return name, _run_cli(case, tmp)

    with ThreadPoolExecutor(max_workers=4) as pool:
        items = [*CASES.items(), *(("cli: " + k, v) for k, v in CLI.items())]
        return dict(pool.map(run, items))


@pytest.mark.parametrize("name", sorted(CASES))
def test_probe(name: str, results: dict[str, Any]) -> None:
    CASES[name].check(results[name])


@pytest.mark.parametrize("name", sorted(CLI))
def test_command_line(name: str, results: dict[str, Any]) -> None:
    case, result = CLI[name], results["cli: " + name]
    assert result.returncode is not None, f"still running after {case.timeout} s"
    assert result.returncode >= 0, f"killed by signal {-result.returncode}: {result.stderr[-500:]}"
    assert "Traceback (most recent call last)" not in result.stderr, result.stderr[-1500:]
    if case.ok is True:
        assert result.returncode == 0, result.stderr[-500:]
    elif case.ok is False:
        assert result.returncode != 0, f"exit status 0: {result.stdout[-300:]}"
    if result.returncode != 0:
        assert result.stderr.strip(), "a failure without a message"
