"""Rollout checkpoints (``checkpoint=``): a run stopped anywhere goes on from its file, and a
finished one extends, to the same bits as one uninterrupted run; a file of another rollout,
or a damaged one, is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import bgfast
from bgfast import _checkpoint
from bgfast.persist import checksum

SHORT_RACE = "2GMAAGC3AQAAAA"  # a race: pubeval games of a few dozen plies


def same(a: bgfast.RolloutResult, b: bgfast.RolloutResult) -> None:
    """Every number of two results is the same, bit for bit."""
    for name in ("games", "win", "win_gammon", "win_backgammon", "equity", "counts", "ends"):
        assert getattr(a, name) == getattr(b, name), name
    assert a.stderr == b.stderr
    assert a.cubeful_equity == b.cubeful_equity and a.mwc == b.mwc


def test_resumed_and_extended_runs_equal_one_run(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    whole = bgfast.rollout(games=700, seed=3, policy="pubeval", threads=2)
    first = bgfast.rollout(games=250, seed=3, policy="pubeval", threads=1, checkpoint=path)
    assert first.games == 250
    second = bgfast.rollout(games=600, seed=3, policy="pubeval", threads=2, checkpoint=path)
    assert second.games == 600
    # No seed given: the file's.
    third = bgfast.rollout(games=700, policy="pubeval", threads=1, checkpoint=str(path))
    same(third, whole)
    assert third.settings["seed"] == 3
    assert third.seconds >= second.seconds >= first.seconds
    # Asking for as many games as the file holds plays none and gives the same result.
    same(bgfast.rollout(games=700, policy="pubeval", checkpoint=path), whole)


def test_cubeful_match_with_variance_reduction_resumes_exactly(tmp_path: Path) -> None:
    path = tmp_path / "vr.json"
    args: dict[str, Any] = dict(
        policy="wildbg",
        seed=11,
        variance_reduction=True,
        truncate=6,
        cubeful=True,
        match_length=7,
        score=(3, 4),
        threads=1,
    )
    whole = bgfast.rollout(games=24, **args)
    bgfast.rollout(games=10, checkpoint=path, **args)
    same(bgfast.rollout(games=24, checkpoint=path, **args), whole)


def test_candidate_plays_and_cube_decisions_resume_exactly(tmp_path: Path) -> None:
    plays: dict[str, Any] = dict(top=3, policy="wildbg", seed=5, truncate=4, threads=1)
    whole = bgfast.rollout_moves(None, (3, 1), games=40, **plays)
    bgfast.rollout_moves(None, (3, 1), games=15, checkpoint=tmp_path / "m.json", **plays)
    resumed = bgfast.rollout_moves(None, (3, 1), games=40, checkpoint=tmp_path / "m.json", **plays)
    assert [(m.move, m.diff, m.diff_stderr) for m in resumed] == [
        (m.move, m.diff, m.diff_stderr) for m in whole
    ]
    for a, b in zip(resumed, whole):
        same(a.result, b.result)

    cube: dict[str, Any] = dict(policy="wildbg", seed=2, truncate=4, threads=1)
    position = "4HPwATDgc/ABMA"
    whole_cube = bgfast.rollout_cube(position, games=30, **cube)
    bgfast.rollout_cube(position, games=12, checkpoint=tmp_path / "c.json", **cube)
    resumed_cube = bgfast.rollout_cube(position, games=30, checkpoint=tmp_path / "c.json", **cube)
    assert resumed_cube.to_dict()["stderr"] == whole_cube.to_dict()["stderr"]
    assert (resumed_cube.no_double, resumed_cube.double_take, resumed_cube.action) == (
        whole_cube.no_double,
        whole_cube.double_take,
        whole_cube.action,
    )


def test_an_executor_resumes_a_run_begun_in_process(tmp_path: Path) -> None:
    path = tmp_path / "shards.json"
    whole = bgfast.rollout(SHORT_RACE, games=23_000, seed=9, policy="pubeval", threads=2)
    bgfast.rollout(SHORT_RACE, games=1_234, seed=9, policy="pubeval", checkpoint=path)
    with ThreadPoolExecutor(2) as pool:
        resumed = bgfast.rollout(
            SHORT_RACE, games=23_000, policy="pubeval", executor=pool, checkpoint=path
        )
    same(resumed, whole)


def test_ctrl_c_keeps_the_finished_games_and_the_next_call_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "stopped.json"
    whole = bgfast.rollout(games=3_000, seed=4, policy="pubeval", threads=1)

    def interrupt(done: int, total: int) -> None:
        if done >= 500:
            raise KeyboardInterrupt  # as Ctrl-C lands between two chunks

    stopped = bgfast.rollout(
        games=3_000, seed=4, policy="pubeval", threads=1, progress=interrupt, checkpoint=path
    )
    assert stopped.partial and 0 < stopped.games < 3_000
    seen: list[tuple[int, int]] = []
    resumed = bgfast.rollout(
        games=3_000,
        policy="pubeval",
        threads=1,
        progress=lambda done, total: seen.append((done, total)),
        checkpoint=path,
    )
    assert not resumed.partial
    same(resumed, whole)
    # Progress counts from game 0: the saved games are done already.
    assert seen[0][0] > stopped.games and seen[-1] == (3_000, 3_000)


def test_the_file_is_written_while_the_run_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy of the file taken mid-run (what a killed process leaves) resumes exactly."""
    monkeypatch.setattr(_checkpoint, "SAVE_EVERY_SECONDS", 0.0)
    path, copy = tmp_path / "live.json", tmp_path / "copy.json"
    copied: list[int] = []

    def snapshot(done: int, total: int) -> None:
        if not copied and path.exists():
            shutil.copy(path, copy)
            copied.append(json.loads(path.read_text())["sums"]["games"])

    whole = bgfast.rollout(
        games=5_000, seed=8, policy="pubeval", threads=1, progress=snapshot, checkpoint=path
    )
    assert copied and 0 < copied[0] < 5_000
    same(bgfast.rollout(games=5_000, policy="pubeval", threads=1, checkpoint=copy), whole)


def test_a_failed_run_keeps_its_finished_games(tmp_path: Path) -> None:
    path = tmp_path / "failed.json"

    def fail(done: int, total: int) -> None:
        if done >= 400:
            raise RuntimeError("the caller's progress bar broke")

    with pytest.raises(RuntimeError, match="progress bar broke"):
        bgfast.rollout(
            games=2_000, seed=6, policy="pubeval", threads=1, progress=fail, checkpoint=path
        )
    saved = json.loads(path.read_text())["sums"]["games"]
    assert 400 <= saved < 2_000
    same(
        bgfast.rollout(games=2_000, policy="pubeval", threads=1, checkpoint=path),
        bgfast.rollout(games=2_000, seed=6, policy="pubeval", threads=1),
    )


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (dict(seed=4), "seed 3 there, 4 here"),
        (dict(policy="random"), "policy 'pubeval' there, 'random' here"),
        (dict(quasi_random=False), "quasi_random True there, False here"),
        (dict(position="2GMAAGC3AQAAAA"), "branches"),
        (dict(cubeful=True, evaluator="wildbg"), "cubeful False there, True here"),
        (dict(match_length=5), "match_length"),
    ],
)
def test_a_file_of_another_rollout_is_refused_naming_the_difference(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    path = tmp_path / "run.json"
    base: dict[str, Any] = dict(games=100, seed=3, policy="pubeval", threads=1)
    bgfast.rollout(checkpoint=path, **base)
    before = path.read_bytes()
    with pytest.raises(bgfast.BgfastError, match="holds the games of another rollout") as error:
        bgfast.rollout(checkpoint=path, **{**base, **change})
    assert named in str(error.value)
    assert path.read_bytes() == before


def test_another_kind_of_rollout_and_another_net_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    bgfast.rollout_cube(games=10, seed=1, policy="wildbg", truncate=2, threads=1, checkpoint=path)
    with pytest.raises(bgfast.BgfastError, match="kind 'rollout_cube' there, 'rollout' here"):
        bgfast.rollout(games=10, seed=1, policy="wildbg", truncate=2, checkpoint=path)
    # A shipped net passed as an object is the name's net; a changed one is another net.
    same_net = bgfast.rollout(
        games=5, seed=1, policy="wildbg", truncate=2, checkpoint=tmp_path / "net.json"
    )
    as_object = bgfast.rollout(
        games=5, policy=bgfast.Net.wildbg(), truncate=2, checkpoint=tmp_path / "net.json"
    )
    same(same_net, as_object)
    arrays = bgfast.Net.wildbg().to_arrays()
    weights, bias, activation = arrays["contact"][-1]
    arrays["contact"][-1] = (weights, bias + 0.01, activation)
    other = bgfast.Net.from_arrays(**arrays)
    with pytest.raises(bgfast.BgfastError, match="policy 'wildbg' there, 'net sha256:"):
        bgfast.rollout(
            games=5, policy=other, evaluator="wildbg", truncate=2, checkpoint=tmp_path / "net.json"
        )


def test_fewer_games_than_the_file_holds_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    bgfast.rollout(games=300, seed=3, policy="pubeval", checkpoint=path)
    with pytest.raises(bgfast.BgfastError, match="holds 300 games, more than the 200 asked for"):
        bgfast.rollout(games=200, policy="pubeval", checkpoint=path)


def test_an_evaluator_callable_is_refused_before_any_file_is_made(tmp_path: Path) -> None:
    path = tmp_path / "callable.json"
    with pytest.raises(bgfast.BgfastError, match="checkpoint= needs a native policy"):
        bgfast.rollout(games=10, policy=lambda f: f.sum(axis=1), checkpoint=path)
    assert not path.exists()


def test_a_refused_call_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "refused.json"
    with ThreadPoolExecutor(1) as pool, pytest.raises(bgfast.BgfastError, match="executor"):
        bgfast.rollout(games=10, policy="pubeval", threads=2, executor=pool, checkpoint=path)
    with pytest.raises(bgfast.BgfastError):
        bgfast.rollout(games=10, policy="pubeval", truncate=-1, checkpoint=path)
    assert not path.exists()


def test_a_path_that_cannot_be_written_is_refused_before_play(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such directory"):
        bgfast.rollout(games=10, policy="pubeval", checkpoint=tmp_path / "no" / "run.json")
    with pytest.raises(IsADirectoryError):
        bgfast.rollout(games=10, policy="pubeval", checkpoint=str(tmp_path / "new") + os.sep)
    with pytest.raises(bgfast.InvalidSaveError, match="not a regular file"):
        bgfast.rollout(games=10, policy="pubeval", checkpoint=tmp_path)
    with pytest.raises(TypeError):
        bgfast.rollout(games=10, policy="pubeval", checkpoint=7)  # type: ignore[arg-type]


def _reseal(path: Path, edit: Any) -> None:
    """Edits the record at ``path`` and gives it a valid checksum again (a forged file)."""
    data = json.loads(path.read_text())
    del data["checksum"]
    edit(data)
    data["checksum"] = checksum(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda p: p.write_text(p.read_text()[:-40]), "not a JSON record"),
        (lambda p: p.write_text(p.read_text().replace('"seed": 3', '"seed": 5')), "checksum"),
        (lambda p: p.write_text("[]"), "a saved record is a JSON object"),
        (lambda p: p.write_bytes(b"\xff\xfe"), "not a JSON record"),
        (lambda p: _reseal(p, lambda d: d["sums"].update(games=101)), "add up to 100, not 101"),
        (lambda p: _reseal(p, lambda d: d["sums"]["cross"].append("1")), "cross must be a list"),
        (
            lambda p: _reseal(
                p, lambda d: d["sums"]["branches"][0]["squares"].__setitem__(0, "-1")
            ),
            "squares may not be negative",
        ),
        (
            lambda p: _reseal(p, lambda d: d["sums"]["branches"][0]["sums"].__setitem__(0, 1.5)),
            "decimal text",
        ),
        (lambda p: _reseal(p, lambda d: d.update(seconds=-1.0)), "its seconds are -1.0"),
        (lambda p: _reseal(p, lambda d: d.pop("sums")), "missing field 'sums'"),
        (
            lambda p: _reseal(p, lambda d: d["rollout"]["settings"].update(seed="3")),
            "its seed is '3'",
        ),
        (lambda p: _reseal(p, lambda d: d.update(version=2)), "record version 2"),
        # Forged with a valid checksum: sums no games could give.
        (
            lambda p: _reseal(
                p, lambda d: d["sums"]["branches"][0]["sums"].__setitem__(0, str(5000 * 2**128))
            ),
            "larger than its squares allow",
        ),
        (
            lambda p: _reseal(
                p, lambda d: d["sums"]["branches"][0]["sums"].__setitem__(0, str(10**400))
            ),
            "larger than its squares allow",
        ),
        (
            lambda p: _reseal(p, lambda d: d["sums"]["branches"][0]["squares"].__setitem__(5, "0")),
            "larger than its squares allow",
        ),
        (
            lambda p: _reseal(
                p, lambda d: d["sums"]["branches"][0]["sums"].__setitem__(0, "1_000")
            ),
            "ASCII digits",
        ),
        (
            lambda p: _reseal(
                p, lambda d: d["sums"]["branches"][0]["sums"].__setitem__(0, "\u0661")
            ),
            "ASCII digits",
        ),
        (lambda p: _reseal(p, lambda d: d.update(seconds=1e308)), "its seconds are 1e+308"),
    ],
)
def test_a_damaged_file_is_refused(tmp_path: Path, damage: Any, said: str) -> None:
    path = tmp_path / "run.json"
    bgfast.rollout(games=100, seed=3, policy="pubeval", checkpoint=path)
    damage(path)
    with pytest.raises(bgfast.InvalidSaveError, match="rollout checkpoint") as error:
        bgfast.rollout(games=200, policy="pubeval", checkpoint=path)
    assert said in str(error.value)
    with pytest.raises(bgfast.BgfastError):  # with a seed given, too
        bgfast.rollout(games=200, seed=3, policy="pubeval", checkpoint=path)


def _rollout_command(*args: str) -> subprocess.CompletedProcess[str]:
    """``bgfast rollout --policy pubeval ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "bgfast", "rollout", "--policy", "pubeval", *args],
        capture_output=True,
        text=True,
    )


def test_the_cli_goes_on_from_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "cli.json"

    said: list[str] = []

    def cli(*args: str) -> Any:
        run = _rollout_command("--json", "--threads", "1", "--checkpoint", str(path), *args)
        assert run.returncode == 0, run.stderr
        said.append(run.stderr)
        return json.loads(run.stdout)

    cli("--games", "300", "--seed", "12")
    assert said[-1] == ""
    resumed = cli("--games", "800")
    assert said[-1] == f"bgfast: {path} holds 300 games: going on from there\n"
    whole = bgfast.rollout(games=800, seed=12, policy="pubeval", threads=1)
    assert resumed["games"] == 800
    assert resumed["statistics"]["equity"]["value"] == whole.equity
    refused = _rollout_command("--games", "900", "--seed", "13", "--checkpoint", str(path))
    assert refused.returncode == 2
    assert "seed 12 there, 13 here" in refused.stderr
    assert "going on from there" not in refused.stderr  # refused: it does not go on
    missing = str(tmp_path / "no" / "run.json")
    unwritable = _rollout_command("--games", "10", "--checkpoint", missing)
    assert unwritable.returncode == 2  # a bad flag, as every other
    assert f"--checkpoint {missing}: no such directory" in unwritable.stderr


def test_a_file_that_is_no_checkpoint_is_never_called_damaged(tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    bgfast.Game(seed=1).save(game)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    for path in (game, notes):
        before = path.read_bytes()
        with pytest.raises(bgfast.InvalidSaveError, match="is not a rollout checkpoint") as e:
            bgfast.rollout(games=10, policy="pubeval", checkpoint=path)
        assert "delete" not in str(e.value)
        assert path.read_bytes() == before


def test_a_mismatch_names_each_difference_once_and_plays_given_in_another_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.json"
    bgfast.rollout(games=20, seed=1, policy="wildbg", truncate=2, checkpoint=path)
    with pytest.raises(bgfast.BgfastError) as error:
        bgfast.rollout(games=40, seed=1, policy="pubeval", checkpoint=path)
    said = str(error.value)
    assert said.count("evaluator") == 1 and "evaluator 'wildbg' there, none here" in said
    match = tmp_path / "match.json"
    bgfast.rollout(games=8, seed=5, policy="race", match_length=5, checkpoint=match)
    with pytest.raises(bgfast.BgfastError) as error:
        bgfast.rollout(games=8, seed=5, policy="race", match_length=7, checkpoint=match)
    said = str(error.value)  # the stakes in words would say the same difference again
    assert "match_length 5 there, 7 here" in said and "stakes" not in said
    plays = tmp_path / "plays.json"
    args: dict[str, Any] = dict(games=10, seed=1, policy="pubeval", checkpoint=plays)
    bgfast.rollout_moves(None, (6, 4), ["24/14", "8/2 6/2"], **args)
    with pytest.raises(bgfast.BgfastError, match="the same lines in another order"):
        bgfast.rollout_moves(None, (6, 4), ["8/2 6/2", "24/14"], **args)


def test_a_checkpoint_that_cannot_be_saved_again_is_refused_before_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.json"
    bgfast.rollout(games=10, seed=1, policy="pubeval", checkpoint=path)
    before = path.read_bytes()
    # Its directory made read-only since (tests run as root here, whom chmod does not stop).
    monkeypatch.setattr(_checkpoint.os, "access", lambda p, mode: os.fspath(p) != str(tmp_path))
    played: list[int] = []
    with pytest.raises(PermissionError, match="cannot write a checkpoint there"):
        bgfast.rollout(
            games=20, policy="pubeval", checkpoint=path, progress=lambda d, t: played.append(d)
        )
    assert not played and path.read_bytes() == before


def test_a_save_that_fails_warns_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_checkpoint, "SAVE_EVERY_SECONDS", 0.0)
    path = tmp_path / "full.json"

    def disk_full(self: _checkpoint.Checkpoint) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_checkpoint.Checkpoint, "_write", disk_full)
    with pytest.warns(RuntimeWarning, match="No space left on device"):
        done = bgfast.rollout(games=2_000, seed=2, policy="pubeval", threads=1, checkpoint=path)
    same(done, bgfast.rollout(games=2_000, seed=2, policy="pubeval", threads=1))
