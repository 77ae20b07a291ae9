"""The Net API around evaluation: building, saving and loading nets, bad input, nets as
policies (rollouts, duels, the command line) and the net input schemes."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import bgfast
from bgfast import InvalidNetError, Net, Position, codec, cubeful, hint

DATA = Path(__file__).parent / "data"
ONNX = DATA / "wildbg"


@pytest.fixture(scope="module")
def wildbg() -> Net:
    return Net.wildbg()


def small_layers(inputs: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, str]]:
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(0, 0.1, (8, inputs)).astype(np.float32), np.zeros(8, np.float32), "tanh"),
        (rng.normal(0, 0.1, (6, 8)).astype(np.float32), np.zeros(6, np.float32), "softmax"),
    ]


# ------------------------------------------------------------------ building and files


def test_the_shipped_net_is_wildbgs_onnx_files(wildbg: Net) -> None:
    assert Net.from_onnx(ONNX / "contact.onnx", ONNX / "race.onnx") == wildbg
    assert wildbg.inputs == "wildbg"
    assert "202-150-6" in repr(wildbg) and "186-16-6" in repr(wildbg)


def test_save_load_bytes_and_pickle_round_trip(wildbg: Net, tmp_path: Path) -> None:
    path = tmp_path / "net.bgnet"
    wildbg.save(path)
    assert Net.load(path) == wildbg
    assert Net.load(str(path)) == wildbg
    assert Net.from_bytes(wildbg.to_bytes()) == wildbg
    assert pickle.loads(pickle.dumps(wildbg)) == wildbg
    assert hash(Net.load(path)) == hash(wildbg)


def test_arrays_round_trip(wildbg: Net) -> None:
    arrays = wildbg.to_arrays()
    assert arrays["inputs"] == "wildbg"
    (w, b, activation) = arrays["contact"][0]
    assert w.shape == (150, 202) and b.shape == (150,) and activation == "tanh"
    rebuilt = Net.from_arrays(arrays["contact"], arrays["race"], inputs=arrays["inputs"])
    assert rebuilt == wildbg


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: d[:20], id="truncated"),
        pytest.param(lambda d: b"NOTANET!" + d[8:], id="magic"),
        pytest.param(lambda d: d[:100] + bytes([d[100] ^ 1]) + d[101:], id="flipped-bit"),
        pytest.param(lambda d: d + b"\0", id="trailing"),
        pytest.param(lambda d: b"", id="empty"),
    ],
)
def test_damaged_files_are_refused(wildbg: Net, tmp_path: Path, change: object) -> None:
    damaged = change(wildbg.to_bytes())  # type: ignore[operator]
    path = tmp_path / "damaged.bgnet"
    path.write_bytes(damaged)
    with pytest.raises(InvalidNetError):
        Net.load(path)
    with pytest.raises(InvalidNetError):
        Net.from_bytes(damaged)


def test_files_that_are_not_nets(tmp_path: Path) -> None:
    # What the system refuses is its OSError, as open() raises it, naming the path.
    with pytest.raises(FileNotFoundError, match="No such file") as missing:
        Net.load(tmp_path / "no-such.bgnet")
    assert missing.value.filename == str(tmp_path / "no-such.bgnet")
    with pytest.raises(InvalidNetError):
        Net.load(tmp_path)  # a directory
    with pytest.raises(InvalidNetError, match="contact"):
        Net.from_onnx(DATA / "wildbg_contact.csv")  # not ONNX


def test_save_failure_leaves_the_old_file(wildbg: Net, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        wildbg.save(tmp_path / "missing-dir" / "net.bgnet")


def test_from_arrays_names_what_is_wrong() -> None:
    good = small_layers(202)
    with pytest.raises(InvalidNetError, match=r"contact net: layer 0: .*torch.nn.Linear.weight"):
        Net.from_arrays([(good[0][0].T, good[0][1], "tanh"), good[1]])
    nan = good[0][0].copy()
    nan[3, 4] = np.nan
    with pytest.raises(InvalidNetError, match="not a finite number"):
        Net.from_arrays([(nan, good[0][1], "tanh"), good[1]])
    with pytest.raises(InvalidNetError, match='unknown activation "gelu"'):
        Net.from_arrays([(good[0][0], good[0][1], "gelu"), good[1]])
    with pytest.raises(InvalidNetError, match="softmax over 6"):
        Net.from_arrays([good[0], (good[1][0], good[1][1], "tanh")])
    with pytest.raises(InvalidNetError, match="takes 50 inputs"):
        Net.from_arrays(small_layers(50))
    with pytest.raises(InvalidNetError, match="unknown input encoding"):
        Net.from_arrays(good, inputs="tesauro")
    with pytest.raises(InvalidNetError, match="at least one layer"):
        Net.from_arrays([])
    with pytest.raises(InvalidNetError, match=r"\(W, b, activation\)"):
        Net.from_arrays([good[0][:2]])
    with pytest.raises(InvalidNetError, match="race net"):
        Net.from_arrays(good, race=small_layers(202))
    # Finite weights whose sums could overflow float32 (NaN chances): refused.
    huge = (good[1][0] * np.float32(1e37), good[1][1], "softmax")
    with pytest.raises(InvalidNetError, match=r"layer 1 can sum to .* too large"):
        Net.from_arrays([good[0], huge])


def test_a_board_net_of_any_shape_runs() -> None:
    rng = np.random.default_rng(1)
    layers = [
        (rng.normal(0, 0.2, (32, 50)).astype(np.float32), np.zeros(32, np.float32), "relu"),
        (rng.normal(0, 0.2, (16, 32)).astype(np.float32), np.zeros(16, np.float32), "sigmoid"),
        (rng.normal(0, 0.2, (5, 16)).astype(np.float32), np.zeros(5, np.float32), "sigmoid"),
    ]
    net = Net.from_arrays(layers, inputs="board")
    positions = [Position(), Position.from_id("sGfwATDgc/ABMA")]
    x = bgfast.encode(positions, "board")
    h = np.maximum(x @ layers[0][0].T, 0)
    h = 1 / (1 + np.exp(-(h @ layers[1][0].T)))
    want = 1 / (1 + np.exp(-(h @ layers[2][0].T)))
    # Five sigmoids are made consistent as gnubg's SanityCheck makes them (R16).
    win, wg, wbg, lg, lbg = want.T
    wg = np.minimum(wg, win)
    lg = np.minimum(lg, 1 - win)
    want = np.stack([win, wg, np.minimum(wbg, wg), lg, np.minimum(lbg, lg)], axis=1)
    np.testing.assert_allclose(net.evaluate(positions), want, atol=2e-6)


# ------------------------------------------------------------------ evaluate's inputs


def test_evaluate_takes_positions_in_every_form(wildbg: Net) -> None:
    positions = [Position(), Position.from_id("sGfwATDgc/ABMA")]
    want = wildbg.evaluate(positions)
    arrays = np.stack([p.to_array() for p in positions])
    for dtype in (np.uint8, np.int8, np.int32, np.int64):
        np.testing.assert_array_equal(wildbg.evaluate(arrays.astype(dtype)), want)
    np.testing.assert_array_equal(wildbg.evaluate(arrays[0]), want[0])
    np.testing.assert_array_equal(wildbg.evaluate(tuple(positions)), want)
    assert wildbg.evaluate(np.zeros((0, 2, 25), np.uint8)).shape == (0, 5)


def test_threads_do_not_change_the_numbers(wildbg: Net) -> None:
    ids = (DATA / "wildbg_contact.csv").read_text().split()
    arrays = np.stack([Position.from_id(i).to_array() for i in ids])
    np.testing.assert_array_equal(wildbg.evaluate(arrays, threads=1), wildbg.evaluate(arrays))
    np.testing.assert_array_equal(
        wildbg.evaluate(arrays, threads=2), wildbg.evaluate(arrays, threads=1)
    )


def test_bad_positions_and_arguments(wildbg: Net) -> None:
    bad = np.zeros((3, 2, 25), np.int64)
    bad[:, 0, 0] = 15
    bad[:, 1, 0] = 15
    bad[1, 0, 0] = 16
    with pytest.raises(bgfast.InvalidPositionError, match="row 1"):
        wildbg.evaluate(bad)
    with pytest.raises(bgfast.InvalidPositionError):
        wildbg.evaluate(np.zeros((3, 25)))
    with pytest.raises(bgfast.BgfastError, match="threads"):
        wildbg.evaluate(Position(), threads=0)
    with pytest.raises(bgfast.InvalidDiceError):
        wildbg.rank(Position(), (0, 3))
    over = np.zeros((2, 25), np.int8)
    over[0, 0] = 3
    with pytest.raises(bgfast.GameOverError, match="R15"):
        wildbg.best_move(Position.from_array(over), (3, 1))


def test_a_forced_pass_is_ranked_alone(wildbg: Net) -> None:
    # The mover is on the bar against a closed board: 6-6 cannot enter (R7).
    board = np.zeros((2, 25), np.int8)
    board[0, 24] = 1
    board[0, 5] = 14
    board[1, 0:6] = 2  # the opponent's home board, where the mover enters
    board[1, 6] = 3
    ranked = wildbg.rank(Position.from_array(board), (6, 6))
    assert len(ranked) == 1 and str(ranked[0][0]) == ""


# ------------------------------------------------------------------ policies


def test_rollouts_with_nets_are_reproducible(wildbg: Net) -> None:
    one = bgfast.rollout(games=72, policy="wildbg", seed=3, threads=1)
    two = bgfast.rollout(games=72, policy=wildbg, seed=3, threads=2)
    assert one.counts == two.counts
    assert one.policy == two.policy == "wildbg"
    mine = Net.from_arrays(small_layers(202))
    assert bgfast.rollout(games=4, policy=mine, seed=1).policy.startswith("<bgfast.Net")
    with ThreadPoolExecutor(2) as pool:
        sharded = bgfast.rollout(games=72, policy=wildbg, seed=3, executor=pool)
    assert sharded.counts == one.counts


def test_net_and_pubeval_rollouts_differ() -> None:
    net = bgfast.rollout(games=144, policy="wildbg", seed=5, threads=1)
    pub = bgfast.rollout(games=144, policy="pubeval", seed=5, threads=1)
    assert net.counts != pub.counts


def test_duels_are_reproducible_and_fair(wildbg: Net) -> None:
    a = bgfast.duel("wildbg", "pubeval", games=40, seed=11, threads=1)
    b = bgfast.duel(wildbg, "pubeval", games=40, seed=11, threads=2)
    assert a.counts == b.counts
    assert a.games == 40 and sum(a.wins) + sum(a.losses) + a.truncated == 40
    # The same deterministic player on both sides: each deal's two games mirror each other.
    mirror = bgfast.duel("pubeval", "pubeval", games=40, seed=2)
    assert mirror.points_per_game == 0.0 and mirror.stderr == 0.0
    swapped = bgfast.duel("pubeval", "wildbg", games=40, seed=11)
    assert swapped.points_per_game == -a.points_per_game
    assert "points per game" in str(a) and a.to_dict()["games"] == 40


def test_duel_arguments() -> None:
    with pytest.raises(bgfast.BgfastError, match="even"):
        bgfast.duel("pubeval", "random", games=3, seed=1)
    with pytest.raises(bgfast.BgfastError, match="policy b"):
        bgfast.duel("pubeval", "gnubg", games=2, seed=1)
    with pytest.raises(bgfast.BgfastError, match="games"):
        bgfast.duel("pubeval", "random", games=0, seed=1)


def test_unknown_policy_names_the_choices() -> None:
    with pytest.raises(bgfast.BgfastError, match="wildbg"):
        bgfast.rollout(games=10, policy="strong")


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_a_policys_seed_is_checked(seed: object) -> None:
    # -1 and 2**64 raised OverflowError from the native call.
    with pytest.raises((bgfast.BgfastError, TypeError), match="seed"):
        bgfast.policies.choose("random", Position(), (3, 1), seed=seed)  # type: ignore[arg-type]
    assert bgfast.policies.choose("random", Position(), (3, 1), seed=2**64 - 1) is not None


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bgfast", *args], capture_output=True, text=True, check=False
    )


def test_cli_moves_ranked_by_the_net(wildbg: Net) -> None:
    out = cli("moves", "4HPwATDgc/ABMA", "31", "--policy", "wildbg")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("money, cube 1 centred: cubeful equity")
    assert "cubeful" in lines[1] and "cubeless" in lines[1] and "win" in lines[1]
    best = wildbg.best_move(Position(), (3, 1))
    assert lines[2].split()[1:3] == str(best).split()
    assert len(lines) == 2 + len(Position().moves(3, 1))


def test_cli_moves_ranked_at_the_score_of_an_xgid(wildbg: Net) -> None:
    """The plays of an XGID at 2-3 in a 7-point match with the cube at 2 on the side to
    move, as ``bgfast.hint`` ranks them, in the table and in JSON."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:64:2:3:0:7:10"
    state = codec.state_from_id(xgid)
    assert state is not None
    ranked = hint(wildbg, state)
    out = cli("moves", xgid, "--policy", "wildbg")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("7-point match at 2-3, cube 2 the mover's, at most 1024: cubeful")
    assert "mwc" in lines[1]
    assert [line.split()[1:3] for line in lines[2:4]] == [str(h.move).split() for h in ranked[:2]]
    out = cli("moves", xgid, "--policy", "wildbg", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["stakes"] == cubeful.Stakes.of_state(state).describe()
    assert [m["move"] for m in data["moves"]] == [str(h.move) for h in ranked]
    for got, h in zip(data["moves"], ranked):
        assert (got["cubeful_equity"], got["mwc"], got["equity"]) == pytest.approx(
            (h.cubeful_equity, h.mwc, h.equity)
        )
    far = "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:0:0:0:31:10"  # past the table
    out = cli("moves", far, "--policy", "wildbg")
    assert out.returncode == 2 and "R20" in out.stderr and not out.stdout


def test_cli_eval_gives_the_chances_and_the_cube_decision_at_the_ids_stakes(
    wildbg: Net,
) -> None:
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:2:3:0:7:10"  # 2-3 of 7, cube 2 mine
    state = codec.state_from_id(xgid)
    assert state is not None
    p = wildbg.evaluate(state.position)
    want = cubeful.decide_for(p, cubeful.Stakes.of_state(state), cubeful.DEFAULT_CUBE_LIFE)
    out = cli("eval", xgid, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["stakes"] == cubeful.Stakes.of_state(state).describe()
    assert [data[k] for k in ("win", "win_gammon", "win_backgammon")] == pytest.approx(p[:3])
    assert data["equity"] == pytest.approx(float(wildbg.equity(state.position)))
    cube = data["cube"]
    assert cube["action"] == want.action == "no redouble"
    assert (cube["no_double"], cube["double_take"], cube["double_pass"]) == pytest.approx(
        (want.no_double, want.double_take, want.double_pass)
    )
    assert want.emg is not None and cube["emg"] == pytest.approx(want.emg)
    table = cli("eval", xgid).stdout.splitlines()
    assert table[0].startswith("7-point match at 2-3, cube 2 the mover's")
    assert table[3] == "cube: no redouble" and table[4] == "  (cube life 0.68)"
    assert "EMG" in table[5] and "MWC" in table[5]
    assert data["cube_life"] == 0.68
    ranked = cli("moves", "4HPwATDgc/ABMA", "31", "--policy", "wildbg").stdout.splitlines()
    assert ranked[0].endswith("best first; cube life 0.68")
    by_position = cli("moves", "4HPwATDgc/ABMA", "31", "--policy", "wildbg", "--cube-life", "gnubg")
    assert by_position.stdout.splitlines()[0].endswith("cube life GNU Backgammon's by position")
    listed = cli("moves", "4HPwATDgc/ABMA", "31", "--policy", "wildbg", "--json").stdout
    assert json.loads(listed)["cube_life"] == 0.68
    race = cli("eval", "egoAAKcMAAAAAA", "--cube-life", "gnubg").stdout.splitlines()
    assert "  (cube life 0.6, GNU Backgammon's)" in race  # both sides bearing off
    # For money from a Position ID; no cube decision once the dice are rolled.
    money = json.loads(cli("eval", "4HPwATDgc/ABMA", "--json").stdout)
    assert money["stakes"] == cubeful.Stakes.check().describe()
    assert money["cube"]["action"] == "no double" and money["cube"]["emg"] is None
    rolled = cli("eval", xgid.replace(":00:", ":31:"))
    assert rolled.returncode == 0 and "no cube decision: the dice are rolled" in rolled.stdout
    bad = cli("eval", "4HPwATDgc/ABMA", "--net", "pubeval")
    assert bad.returncode == 2 and "--net must be" in bad.stderr


def test_cli_eval_answers_a_waiting_double_and_not_a_waiting_resignation() -> None:
    doubled = cli("eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10")
    assert doubled.returncode == 0, doubled.stderr
    assert doubled.stdout.splitlines()[-1] == "the double waiting is answered: take"
    data = json.loads(
        cli("eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "--json").stdout
    )
    assert data["cube"]["answer"] == "take"
    game = bgfast.Game(seed=3)
    game.roll((4, 2))
    game.play("8/4 6/4")
    game.resign("single")
    resigned = cli("eval", game.gnubg_id())
    assert resigned.returncode == 0, resigned.stderr
    assert (
        resigned.stdout.splitlines()[-1] == "no cube decision: a resignation waits for its answer"
    )


def test_cli_policy_from_a_net_file(wildbg: Net, tmp_path: Path) -> None:
    path = tmp_path / "mine.bgnet"
    wildbg.save(path)
    out = cli("moves", "4HPwATDgc/ABMA", "64", "--policy", str(path))
    assert out.returncode == 0, out.stderr
    bad = cli("moves", "4HPwATDgc/ABMA", "64", "--policy", "pubeval")
    assert bad.returncode == 2 and "no probabilities" in bad.stderr
    out = cli("rollout", "--games", "40", "--seed", "1", "--policy", str(path), "--json")
    assert out.returncode == 0, out.stderr


# ------------------------------------------------------------------ schemes


def test_net_schemes_in_evaluator_rollouts(wildbg: Net) -> None:
    """A callable given the wildbg inputs of each candidate (the opponent on roll) plays
    exactly as the native net when it returns minus the opponent's equity."""
    arrays = wildbg.to_arrays()
    (w1, b1, _), (w2, b2, _) = arrays["contact"]

    def contact_equity(x: np.ndarray) -> np.ndarray:
        h = np.tanh(x @ w1.T + b1)
        z = h @ w2.T + b2
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return -((p[:, 0] + 2 * p[:, 1] + 3 * p[:, 2]) - (p[:, 3] + 2 * p[:, 4] + 3 * p[:, 5]))

    contact_only = Net.from_arrays(arrays["contact"])
    ours = bgfast.rollout(
        games=24,
        policy=contact_equity,
        scheme="wildbg",
        seed=8,
        truncate=30,
        evaluator=contact_only,
    )
    native = bgfast.rollout(games=24, policy=contact_only, seed=8, truncate=30, threads=1)
    # The same plays; a truncated game's value may differ in float32's last bits (the native
    # player scores a play's result incrementally, the lockstep evaluates it whole).
    assert ours.ends == native.ends
    assert ours.counts == pytest.approx(native.counts, abs=1e-6)


def test_scheme_widths() -> None:
    for scheme, width in [("wildbg", 202), ("wildbg-race", 186), ("board", 50)]:
        assert bgfast.encode(Position(), scheme).shape == (width,)
    np.testing.assert_array_equal(
        bgfast.encode(Position(), "board"), Position().to_array().reshape(-1)
    )


def test_vecenv_plays_native_policies(wildbg: Net) -> None:
    env = bgfast.VecEnv(64, seed=4, scheme="wildbg")
    for _ in range(30):
        choices = env.policy_choices("wildbg")
        positions = env.positions
        dice = env.dice
        _features, offsets = env.candidates()
        results = env.candidate_positions()
        for game in range(0, 64, 16):
            pos = Position.from_array(positions[game])
            best = wildbg.best_move(pos, tuple(int(d) for d in dice[game]))
            chosen = results[offsets[game] + choices[game]]  # seen by the chooser
            assert Position.from_array(chosen).flipped() == best.result
        env.step(choices)
    rewards, done = env.step_policy("pubeval")
    assert rewards.shape == done.shape == (64,)
    random_choices = env.policy_choices("random")
    counts = np.diff(env.candidates()[1])
    assert ((random_choices >= 0) & (random_choices < counts)).all()
    with pytest.raises(bgfast.BgfastError, match="policy"):
        env.policy_choices("best")


def test_race_policy_first_used_on_two_threads_does_not_deadlock() -> None:
    """The race policy's table is built on first use; a fresh process whose first race
    rollout runs on two threads once hung (a pool worker waited for the build while being
    handed games that waited for it too). The timeout only turns a hang into a failure."""
    code = "import bgfast; print(bgfast.rollout(games=200, policy='race', seed=1, threads=2).games)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "200"


def test_nested_lists_of_counts_read_as_their_array(wildbg: Net) -> None:
    """Counts as nested lists (what ``ndarray.tolist()`` gives) are the array they spell,
    as the stubs' ``ArrayLike`` promises, for the net as for the batch functions."""
    array = np.stack([Position().to_array(), Position.from_id("4HPwATDgc/ABMA").to_array()])
    nested = array.tolist()
    np.testing.assert_array_equal(wildbg.evaluate(nested), wildbg.evaluate(array))
    np.testing.assert_array_equal(wildbg.equity(nested), wildbg.equity(array))
    for got, want in zip(wildbg.score_rolls(nested), wildbg.score_rolls(array)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        bgfast._core.gnubg_cube_lives(nested), bgfast._core.gnubg_cube_lives(array)
    )
    for got, want in zip(bgfast.batch.moves(nested, (3, 1)), bgfast.batch.moves(array, (3, 1))):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(bgfast.InvalidPositionError, match=r"\(N, 2, 25\)"):
        wildbg.evaluate([[[0] * 25, [0] * 24]])  # ragged
    with pytest.raises(bgfast.InvalidPositionError, match="integer"):
        wildbg.evaluate(array.astype(float).tolist())
    with pytest.raises(bgfast.InvalidPositionError, match=r"^row 1: .*got a str"):
        wildbg.evaluate([Position(), "4HPwATDgc/ABMA"])


def test_rows_in_a_tuple_are_read_and_an_iterator_is_refused(wildbg: Net) -> None:
    rows = [Position().to_array().tolist()] * 3
    with pytest.raises(bgfast.InvalidPositionError, match="list_iterator"):
        wildbg.evaluate(iter(rows))
    np.testing.assert_array_equal(
        wildbg.evaluate(tuple(np.asarray(rows))), wildbg.evaluate(np.asarray(rows))
    )


def test_a_bool_among_nested_counts_is_refused(wildbg: Net) -> None:
    # numpy reads True beside ints as 1; Position.from_array refuses it, and so do these.
    rows = Position().to_array()[None].tolist()
    for flag in (True, np.True_):
        bad = [[list(rows[0][0]), list(rows[0][1])]]
        bad[0][1][3] = flag
        for call in (wildbg.evaluate, bgfast.batch.pip_counts, bgfast.batch.ids):
            with pytest.raises(bgfast.InvalidPositionError, match="bool"):
                call(bad)
    # Arrays of ints inside the lists are still read.
    np.testing.assert_array_equal(
        wildbg.evaluate([np.asarray(rows[0])]), wildbg.evaluate(np.asarray(rows))
    )


def test_score_rolls_takes_one_position_as_a_batch_of_one(wildbg: Net) -> None:
    # As evaluate and equity take one: it was refused ("got one Position").
    position = Position.from_id("4HPwATDgc/ABMA")
    want = wildbg.score_rolls([position])
    for one in (position, position.to_array()):
        offsets, probabilities = wildbg.score_rolls(one)
        assert offsets.shape == (22,)
        np.testing.assert_array_equal(offsets, want[0])
        np.testing.assert_array_equal(probabilities, want[1])
    with pytest.raises(bgfast.InvalidPositionError, match=r"shape \(2, 25\).*got shape \[3, 25\]"):
        wildbg.score_rolls(np.zeros((3, 25), np.uint8))  # named as evaluate names it
