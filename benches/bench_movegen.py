"""Move generation from Python, bgfast beside its peers, on the same (position, roll) lists.

Grouped by fixture (the wildbg contact and race corpora with all 21 rolls of each position,
and the start with the 15 opening rolls) x library:

- ``bgfast-single``: ``Position.moves(d1, d2)`` once per (position, roll), taking ``len``
  (``Moves`` is lazy: no ``Move`` object is made);
- ``bgfast-single-iter``: the same, also making every ``Move`` and its ``result`` Position;
- ``bgfast-batch-1t`` / ``bgfast-batch-2t``: ``bgfast.batch.all_rolls`` (corpora) or
  ``bgfast.batch.moves`` (start) over the whole fixture in one call, 1 and 2 threads;
- ``bgfast-count-1t``: ``bgfast.batch.move_counts`` on 1 thread, the same call with the
  generation alone (no result written): the Rust per-position cost, measured in the same run;
- ``gnubg``: GNU Backgammon's PyPI bindings, ``gnubg_nn.moves(board, d1, d2)``;
- ``bgsage``: ``bgsage.possible_moves(board, d1, d2)``;
- ``openspiel``: ``legal_actions()`` of an OpenSpiel backgammon state, start only: its
  Python API cannot set up any other position.

Each benchmark records ``extra_info["lists"]`` (the number of (position, roll) lists) and
``extra_info["correct"]``: whether, for every list, the number of distinct results the
library gives equals bgfast's (a roll with no legal play counting one result). The peers
are the ``bench`` extra; a missing one is skipped with a message. BENCHMARKS.md's table::

    OPENBLAS_NUM_THREADS=1 pytest benches/bench_movegen.py --benchmark-only \
        --benchmark-timer=time.process_time --benchmark-json=movegen.json
    python benches/movegen_table.py movegen.json
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from bgfast import Position, batch

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
ROLLS_21 = [(a, b) for a in range(2, 7) for b in range(1, a)] + [(d, d) for d in range(1, 7)]
OPENING = ROLLS_21[:15]
FIXTURES = ["contact", "race", "start"]
LIBRARIES = [
    "bgfast-single",
    "bgfast-single-iter",
    "bgfast-batch-1t",
    "bgfast-batch-2t",
    "bgfast-count-1t",
    "gnubg",
    "bgsage",
    "openspiel",
]


@dataclass(frozen=True)
class Fixture:
    """The (position, roll) lists of one fixture, in every library's input format."""

    name: str
    positions: list[Position]
    array: npt.NDArray[np.uint8]
    pairs: list[tuple[int, int, int]]  # (position index, d1, d2)
    counts: list[int]  # bgfast's distinct results per pair, the reference


@cache
def fixture(name: str) -> Fixture:
    if name == "start":
        positions = [Position()]
        pairs = [(0, a, b) for a, b in OPENING]
    else:
        ids = (DATA / f"wildbg_{name}.csv").read_text().split()
        positions = [Position.from_id(i) for i in ids]
        pairs = [(i, a, b) for i in range(len(positions)) for a, b in ROLLS_21]
    array = batch.to_array(positions)
    counts = [len(positions[i].moves(a, b)) for i, a, b in pairs]
    return Fixture(name, positions, array, pairs, counts)


def peer(module: str, library: str) -> ModuleType:
    """Imports a peer or skips the benchmark saying which is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        pytest.skip(f"{library} is not installed ({e}); pip install 'bgfast[bench]'")


def gnubg_board(position: Position) -> list[list[int]]:
    """gnubg's board: [not on roll[25], on roll[25]], each in its own numbering, 24 = bar."""
    a = position.to_array()
    return [a[1].tolist(), a[0].tolist()]


def bgsage_board(position: Position) -> list[int]:
    """bgsage's board: index 1..24 the mover's points (opponent negative), 25 the mover's bar,
    0 the opponent's bar."""
    a = position.to_array().astype(int)
    board = [0] * 26
    for i in range(24):
        board[i + 1] += a[0, i]
        board[24 - i] -= a[1, i]
    board[25] = a[0, 24]
    board[0] = -a[1, 24]
    return board


def openspiel_states(fx: Fixture) -> list[Any]:
    """OpenSpiel states with player 0 on roll at the start, one per opening roll of ``fx``."""
    if fx.name != "start":
        pytest.skip(
            "openspiel: pyspiel.BackgammonState has no way to set up an arbitrary position "
            "from Python (no set_state binding), so only the start fixture is measured"
        )
    pyspiel = peer("pyspiel", "open-spiel")
    game = pyspiel.load_game("backgammon")
    initial = game.new_initial_state()
    by_dice = {}
    for action, _ in initial.chance_outcomes():
        state = initial.clone()
        state.apply_action(action)
        if state.current_player() == 0:
            dice = str(state).split("Dice: ")[1].split()[0]
            by_dice[(int(dice[1]), int(dice[0]))] = state
    return [by_dice[(a, b)] for _, a, b in fx.pairs]


def openspiel_counts(states: list[Any]) -> list[int]:
    """Distinct boards after each legal action (OpenSpiel lists an action per dice order)."""

    def board(state: Any) -> str:
        skip = ("Turn", "Previous", "Extra", "Dice")
        return "\n".join(line for line in str(state).splitlines() if not line.startswith(skip))

    counts = []
    for state in states:
        results = set()
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            results.add(board(child))
        counts.append(len(results))
    return counts


def batch_call(fx: Fixture, threads: int) -> Callable[[], int]:
    if fx.name == "start":
        array = np.repeat(fx.array, len(fx.pairs), axis=0)
        dice = np.array([(a, b) for _, a, b in fx.pairs])
        return lambda: int(batch.moves(array, dice, threads=threads)[0][-1])
    return lambda: int(batch.all_rolls(fx.array, threads=threads)[0][-1])


def batch_counts(fx: Fixture, threads: int) -> list[int]:
    if fx.name == "start":
        array = np.repeat(fx.array, len(fx.pairs), axis=0)
        offsets = batch.moves(array, np.array([(a, b) for _, a, b in fx.pairs]), threads=threads)[0]
    else:
        offsets = batch.all_rolls(fx.array, threads=threads)[0]
    return [int(n) for n in np.diff(offsets)]


def prepare(library: str, fx: Fixture) -> tuple[Callable[[], Any], list[int]]:
    """The timed call over the whole fixture, and the per-pair distinct counts it gives."""
    pairs = fx.pairs
    if library == "bgfast-single":
        positions = fx.positions
        lookup = [(positions[i], a, b) for i, a, b in pairs]
        return (
            lambda: sum(len(p.moves(a, b)) for p, a, b in lookup),
            [len(p.moves(a, b)) for p, a, b in lookup],
        )
    if library == "bgfast-single-iter":
        lookup = [(fx.positions[i], a, b) for i, a, b in pairs]
        return (
            lambda: sum(len([m.result for m in p.moves(a, b)]) for p, a, b in lookup),
            [len({m.result for m in p.moves(a, b)}) for p, a, b in lookup],
        )
    if library == "bgfast-count-1t":
        if fx.name == "start":
            array = np.repeat(fx.array, len(fx.pairs), axis=0)
            dice = np.array([(a, b) for _, a, b in pairs])
            return (
                lambda: batch.move_counts(array, dice, threads=1),
                batch.move_counts(array, dice, threads=1).tolist(),
            )
        return (
            lambda: batch.move_counts(fx.array, threads=1),
            batch.move_counts(fx.array, threads=1).ravel().tolist(),
        )
    if library.startswith("bgfast-batch"):
        threads = int(library[-2])
        return batch_call(fx, threads), batch_counts(fx, threads)
    if library == "gnubg":
        gnubg_nn = peer("gnubg_nn", "gnubg-nn")
        boards = [gnubg_board(p) for p in fx.positions]
        calls = [(boards[i], a, b) for i, a, b in pairs]
        moves = gnubg_nn.moves

        def gnubg_all() -> None:
            for board, a, b in calls:
                moves(board, a, b)

        return (
            gnubg_all,
            [len(set(moves(board, a, b))) or 1 for board, a, b in calls],
        )
    if library == "bgsage":
        bgsage = peer("bgsage", "bgsage")
        flat_boards = [bgsage_board(p) for p in fx.positions]
        flat_calls = [(flat_boards[i], a, b) for i, a, b in pairs]
        possible = bgsage.possible_moves

        def bgsage_all() -> None:
            for board, a, b in flat_calls:
                possible(board, a, b)

        return (
            bgsage_all,
            [len({tuple(r) for r in possible(board, a, b)}) or 1 for board, a, b in flat_calls],
        )
    if library == "openspiel":
        states = openspiel_states(fx)

        def openspiel_all() -> None:
            for state in states:
                state.legal_actions()

        return openspiel_all, openspiel_counts(states)
    raise AssertionError(library)


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("name", FIXTURES)
def test_movegen(benchmark: Any, name: str, library: str) -> None:
    fx = fixture(name)
    call, counts = prepare(library, fx)
    benchmark.group = f"movegen-{name}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["lists"] = len(fx.pairs)
    benchmark.extra_info["results"] = sum(fx.counts)
    benchmark.extra_info["correct"] = counts == fx.counts
    benchmark(call)
