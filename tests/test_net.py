"""Native net evaluation against independent programs.

The oracles: onnxruntime runs wildbg's ONNX files (tests/data/wildbg/, the nets bgfast ships
converted), and the inputs are rebuilt here from GNU Backgammon's own decoding of each
Position ID (``gnubg_nn.board_from_position_id``) with wildbg's published layout, not with
bgfast's encoder. Positions: the wildbg corpora (1,000 contact, 1,000 race, from rollout
games) and positions of games the net plays against itself.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import Net, Position

onnx = pytest.importorskip("onnx")
numpy_helper = pytest.importorskip("onnx.numpy_helper")
ort = pytest.importorskip("onnxruntime")
gnubg_nn = pytest.importorskip("gnubg_nn")

DATA = Path(__file__).parent / "data"
ONNX = {part: DATA / "wildbg" / f"{part}.onnx" for part in ("contact", "race")}
TOLERANCE = 2e-5


def corpus(name: str) -> list[str]:
    return [line.strip() for line in (DATA / name).read_text().splitlines() if line.strip()]


def onnx_layers(path: Path) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """The ONNX file's layers as ``Net.from_arrays`` takes them, read with ``onnx``."""
    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return [
        (weights["hidden.weight"], weights["hidden.bias"], "tanh"),
        (weights["output.weight"], weights["output.bias"], "softmax"),
    ]


@cache
def session(part: str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(ONNX[part]), options, providers=["CPUExecutionProvider"])


def units(n: int) -> list[float]:
    if n == 0:
        return [0.0, 0.0, 0.0, 0.0]
    if n == 1:
        return [1.0, 0.0, 0.0, 0.0]
    if n == 2:
        return [0.0, 1.0, 0.0, 0.0]
    return [0.0, 0.0, 1.0, float(n - 3)]


def wildbg_inputs(position_id: str, race: bool) -> np.ndarray:
    """wildbg's inputs from gnubg's board: ``[not on roll[25], on roll[25]]``, index 24 the
    bar, index ``i`` a side's own point ``i + 1``."""
    opponent, mover = gnubg_nn.board_from_position_id(position_id)
    mover_off = 15 - sum(mover)
    opponent_off = 15 - sum(opponent)

    def opponent_on(point: int) -> int:  # the square the mover calls ``point``
        return opponent[24 - point]

    x = [float(mover_off), float(opponent_off)]
    if race:
        for p in range(1, 24):
            x += units(mover[p - 1])
        for p in range(2, 25):
            x += units(opponent_on(p))
    else:
        x += units(mover[24])
        for p in range(1, 25):
            x += units(mover[p - 1])
        x += units(opponent[24])
        for p in range(1, 25):
            x += units(opponent_on(p))
    return np.asarray(x, dtype=np.float32)


def onnx_five(position_id: str, race: bool) -> np.ndarray:
    """onnxruntime's outcomes folded into gnubg's five."""
    part = "race" if race else "contact"
    x = wildbg_inputs(position_id, race)[None]
    (p,) = session(part).run(None, {session(part).get_inputs()[0].name: x})[0]
    wn, wg, wb, _ln, lg, lb = (float(v) for v in p)
    return np.asarray([wn + wg + wb, wg + wb, wb, lg + lb, lb], dtype=np.float32)


def self_play_positions(net: Net, games: int, seed: int) -> list[Position]:
    """Every position of ``games`` games the net plays against itself."""
    rng = random.Random(seed)
    seen: list[Position] = []
    for _ in range(games):
        pos = Position()
        while pos.outcome is None:
            seen.append(pos)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            pos = net.best_move(pos, dice).result
    return seen


@pytest.fixture(scope="module")
def from_onnx_arrays() -> Net:
    return Net.from_arrays(onnx_layers(ONNX["contact"]), onnx_layers(ONNX["race"]))


@pytest.fixture(scope="module")
def positions(from_onnx_arrays: Net) -> list[Position]:
    ids = corpus("wildbg_contact.csv") + corpus("wildbg_race.csv")
    played = self_play_positions(from_onnx_arrays, games=30, seed=13)
    return [Position.from_id(i) for i in ids] + played


def test_the_inputs_are_wildbgs_layout_of_gnubgs_board(positions: list[Position]) -> None:
    contact = bgfast.encode(positions, "wildbg")
    race = bgfast.encode(positions, "wildbg-race")
    for i, pos in enumerate(positions):
        np.testing.assert_array_equal(contact[i], wildbg_inputs(pos.id, race=False))
        if pos.is_race:
            np.testing.assert_array_equal(race[i], wildbg_inputs(pos.id, race=True))


def test_evaluate_agrees_with_onnxruntime(from_onnx_arrays: Net, positions: list[Position]) -> None:
    got = from_onnx_arrays.evaluate(positions, threads=1)
    races = sum(p.is_race for p in positions)
    assert races >= 1000 and len(positions) - races >= 1000
    assert got.shape == (len(positions), 5) and got.dtype == np.float32
    want = np.stack([onnx_five(p.id, p.is_race) for p in positions])
    np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE)


def test_one_position_and_equity(from_onnx_arrays: Net) -> None:
    start = Position()
    p = from_onnx_arrays.evaluate(start)
    assert p.shape == (5,)
    np.testing.assert_allclose(p, onnx_five(start.id, race=False), atol=TOLERANCE)
    win, wg, wbg, lg, lbg = (float(v) for v in p)
    assert from_onnx_arrays.equity(start) == pytest.approx(
        2 * win - 1 + wg + wbg - lg - lbg, abs=1e-6
    )
    many = from_onnx_arrays.equity([start, start.flipped()])
    assert many.shape == (2,) and many.dtype == np.float32


def test_finished_games_are_scored_exactly(from_onnx_arrays: Net) -> None:
    # The opponent has borne off all 15; the mover has 15 on its own 24-point (the winner's
    # home board): a backgammon loss, whatever the net would say.
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, 23] = 15
    np.testing.assert_array_equal(from_onnx_arrays.evaluate(board), [0, 0, 0, 1, 1])
    assert from_onnx_arrays.equity(board) == -3.0


def test_rank_is_the_results_seen_by_the_mover(from_onnx_arrays: Net) -> None:
    pos = Position.from_id("4HPwATDgc/ABMA")
    ranked = from_onnx_arrays.rank(pos, (3, 1))
    moves = pos.moves(3, 1)
    assert sorted(m.result.id for m, _, _ in ranked) == sorted(m.result.id for m in moves)
    equities = [e for _, _, e in ranked]
    assert equities == sorted(equities, reverse=True)
    for move, probabilities, equity in ranked:
        flipped = from_onnx_arrays.evaluate(move.result)
        mine = [1 - flipped[0], flipped[3], flipped[4], flipped[1], flipped[2]]
        np.testing.assert_allclose(probabilities, mine, atol=1e-6)
        assert equity == pytest.approx(-from_onnx_arrays.equity(move.result), abs=1e-5)
    best = from_onnx_arrays.best_move(pos, (3, 1))
    assert best.result == ranked[0][0].result


def test_best_move_is_worst_for_the_opponent_by_onnxruntime(from_onnx_arrays: Net) -> None:
    rng = random.Random(5)
    ids = rng.sample(corpus("wildbg_contact.csv"), 60) + rng.sample(corpus("wildbg_race.csv"), 60)
    for position_id in ids:
        pos = Position.from_id(position_id)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        moves = pos.moves(*dice)
        opponent = []
        for m in moves:
            r = m.result
            if r.outcome is not None:
                p = from_onnx_arrays.evaluate(r)
            else:
                p = onnx_five(r.id, r.is_race)
            opponent.append(2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4])
        best = from_onnx_arrays.best_move(pos, dice)
        chosen = opponent[[m.result for m in moves].index(best.result)]
        assert chosen <= min(opponent) + 1e-4


def test_the_baseline_build_agrees_and_says_so(positions: list[Position], tmp_path: Path) -> None:
    """``BGFAST_ISA=baseline`` runs the portable net passes on any CPU: they agree with the
    build this CPU chooses, and ``bgfast --version --verbose`` names the one that runs."""
    import os
    import subprocess
    import sys

    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(p.id for p in positions))
    out = tmp_path / "baseline.npy"
    code = (
        "import sys, numpy as np, bgfast\n"
        "from bgfast import cli\n"
        "ids = open(sys.argv[1]).read().split()\n"
        "positions = [bgfast.Position.from_id(i) for i in ids]\n"
        "np.save(sys.argv[2], bgfast.Net.wildbg().evaluate(positions))\n"
        "cli.main(['--version', '--verbose'])\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", code, str(ids), str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "BGFAST_ISA": "baseline"},
        check=False,
    )
    assert child.returncode == 0, child.stderr
    assert "net evaluation: x86-64 baseline (BGFAST_ISA=baseline)" in child.stdout
    here = Net.wildbg().evaluate(positions)
    np.testing.assert_allclose(np.load(out), here, rtol=0, atol=2e-6)


# The larger shipped net: wildbg's training nets 17 (contact, hard sigmoid) and 16 (race,
# ReLU), three hidden layers, run by onnxruntime from the ONNX files it was converted from.

LARGE = {
    "contact": DATA / "wildbg-training" / "contact-17.onnx",
    "race": DATA / "wildbg-training" / "race-16.onnx",
}


@cache
def large_session(part: str) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(LARGE[part]), options, providers=["CPUExecutionProvider"])


def large_onnx_five(positions: list[Position]) -> np.ndarray:
    """onnxruntime's outcomes of the large nets, folded into gnubg's five."""
    out = np.empty((len(positions), 5), dtype=np.float32)
    for part, race in (("contact", False), ("race", True)):
        rows = [i for i, p in enumerate(positions) if p.is_race == race]
        session = large_session(part)
        name = session.get_inputs()[0].name
        # The graphs take one position at a time (their batch dimension is fixed at 1).
        p = np.concatenate(
            [session.run(None, {name: wildbg_inputs(positions[i].id, race)[None]})[0] for i in rows]
        ).astype(np.float64)
        wn, wg, wb, _ln, lg, lb = p.T
        out[rows] = np.stack([wn + wg + wb, wg + wb, wb, lg + lb, lb], axis=1)
    return out


def test_the_large_net_is_wildbgs_training_nets(positions: list[Position]) -> None:
    large = Net.wildbg_large()
    assert large == Net.from_onnx(LARGE["contact"], race=LARGE["race"])
    assert large != Net.wildbg()
    playing = [p for p in positions if p.outcome is None]
    got = large.evaluate(playing, threads=1)
    np.testing.assert_allclose(got, large_onnx_five(playing), rtol=0, atol=TOLERANCE)


def test_the_large_net_ranks_each_play_as_it_evaluates_the_result() -> None:
    """Ranking scores a roll's results from their parent's first layer and the deeper
    layers over a batch of results: each equals the result evaluated alone."""
    large = Net.wildbg_large()
    rng = random.Random(8)
    for position_id in rng.sample(corpus("wildbg_contact.csv"), 40):
        pos = Position.from_id(position_id)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        for move, probabilities, _ in large.rank(pos, dice):
            flipped = large.evaluate(move.result)
            mine = [1 - flipped[0], flipped[3], flipped[4], flipped[1], flipped[2]]
            np.testing.assert_allclose(probabilities, mine, atol=2e-6)


def test_the_large_net_outplays_the_small_one() -> None:
    """wildbg's training nets are the stronger player (about +0.45 points a game in
    BENCHMARKS.md): 400 games on common dice, a fixed seed."""
    duel = bgfast.duel("wildbg-large", "wildbg", games=400, seed=3, threads=2)
    assert duel.points_per_game > 3 * duel.stderr
