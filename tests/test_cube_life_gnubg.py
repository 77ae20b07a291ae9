"""GNU Backgammon's cube life index by position at 0 ply (``cube_life="gnubg"``): the
cube model mixed row by row at each position's index, checked against the model at a
fixed index and against GNU Backgammon's own ``eval`` of races, where the index is not
the default 0.68."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import bgfast
from bgfast import _core, batch, cubeful
from bgfast.cubeful import DEFAULT_CUBE_LIFE, Stakes, cube_values, decide
from bgfast.errors import BgfastError
from bgfast.hint import values_after_play

import gnubg_program

DATA = Path(__file__).parent / "data"

#: Races of the wildbg corpus with a cube decision to make, their cube life index from
#: 0.615 (52 pips on roll) to 0.655 (84 pips): 0.55 + pips / 800.
RACES = ["t9sFAQBv20UAAA", "27k5AADf2wAwAA", "bXcHCABt2zUAAA", "1/EaBADV7VkAAA", "zP1cAADNdnYAAA"]

#: Contact positions of the corpus (it holds a few races too, left out): GNU Backgammon's
#: index is 0.68 (the default) for them.
CONTACT = [
    pid
    for pid in (line.strip() for line in (DATA / "wildbg_contact.csv").read_text().splitlines())
    if pid and not bgfast.Position.from_id(pid).is_race
][::53][:20]

STAKES = [
    Stakes.check(),
    Stakes.check(jacoby=True, beavers=True),
    Stakes.check(cube=(2, "mover")),
    Stakes.check(cube=(4, "opponent")),
    Stakes.check(match_length=7, score=(3, 5)),
    Stakes.check(match_length=7, score=(5, 3), cube=(2, "mover")),
    Stakes.check(match_length=5, score=(4, 2)),
    Stakes.check(match_length=9, score=(2, 2), cube=(2, "opponent")),
]


def _boards(ids: list[str]) -> npt.NDArray[np.uint8]:
    return batch.to_array([bgfast.Position.from_id(pid) for pid in ids])


def _chances(rows: int, seed: int) -> npt.NDArray[np.float32]:
    """Rows of five chances that fit together (R16: a backgammon is a gammon, a gammon a
    win), float32 as a net gives them."""
    rng = np.random.default_rng(seed)
    win = rng.uniform(0.0, 1.0, rows)
    wg = win * rng.uniform(0.0, 0.4, rows)
    lg = (1.0 - win) * rng.uniform(0.0, 0.4, rows)
    return np.stack(
        [win, wg, wg * rng.uniform(0, 0.2, rows), lg, lg * rng.uniform(0, 0.2, rows)], axis=1
    ).astype(np.float32)


@pytest.mark.parametrize("stakes", STAKES, ids=lambda s: s.words())
def test_the_model_is_linear_in_the_cube_life(stakes: Stakes) -> None:
    # What the mixing by position relies on: no double and double/take at any index are
    # the dead cube's values moved that share of the way to the fully live cube's; a
    # pass cashes whatever the index.
    rows = _chances(500, 1)
    dead, live = cube_values(rows, stakes, 0.0), cube_values(rows, stakes, 1.0)
    assert np.array_equal(dead[:, 2], live[:, 2])
    for life in (0.3, 0.6, 0.615, 0.68, 0.7, 0.95):
        at = cube_values(rows, stakes, life)
        mixed = dead[:, :2] + life * (live[:, :2] - dead[:, :2])
        assert np.abs(at[:, :2] - mixed).max() < 1e-12


@pytest.mark.parametrize("stakes", STAKES, ids=lambda s: s.words())
def test_contact_positions_by_position_are_the_default(stakes: Stakes) -> None:
    boards = _boards(CONTACT)
    assert set(_core.gnubg_cube_lives(boards).tolist()) == {DEFAULT_CUBE_LIFE}
    rows = _chances(len(CONTACT), 2)
    by_position = cube_values(rows, stakes, "gnubg", boards=boards)
    fixed = cube_values(rows, stakes, DEFAULT_CUBE_LIFE, boards=boards)
    assert np.abs(by_position - fixed).max() < 1e-12
    # The best action's column by the same rule: the same choice on every row.
    assert np.array_equal(by_position[:, 3] == by_position[:, 0], fixed[:, 3] == fixed[:, 0])


@pytest.mark.parametrize("stakes", STAKES, ids=lambda s: s.words())
def test_a_race_is_valued_at_its_own_index(stakes: Stakes) -> None:
    boards = _boards(RACES)
    lives = _core.gnubg_cube_lives(boards)
    pips = [bgfast.Position.from_id(pid).pips[0] for pid in RACES]
    assert lives.tolist() == pytest.approx([0.55 + p / 800 for p in pips])
    rows = _chances(len(RACES), 3)
    by_position = cube_values(rows, stakes, "gnubg", boards=boards)
    for k, life in enumerate(lives.tolist()):
        alone = cube_values(rows[k : k + 1], stakes, life)[0]
        assert np.abs(by_position[k] - alone).max() < 1e-12
        d = decide_at(rows[k], stakes, bgfast.Position.from_id(RACES[k]))
        assert (d.no_double, d.double_take, d.double_pass) == pytest.approx(
            tuple(by_position[k, :3]), abs=1e-12
        )


def decide_at(
    row: npt.NDArray[np.float32], stakes: Stakes, position: bgfast.Position
) -> cubeful.CubeDecision:
    return cubeful.decide_for(row.tolist(), stakes, "gnubg", position=position)


def test_bearoffs_stay_exact_by_position() -> None:
    # Both sides bearing off in the two-sided database's range: the database's values,
    # whatever the cube life.
    row = [0.9, 0.0, 0.0, 0.0, 0.0]
    for pid in ("PQAAQMUBAAAAAA", "9QAAgAEAAAAAAA"):
        bearoff = bgfast.Position.from_id(pid)
        for length, score in ((0, (0, 0)), (7, (3, 5))):
            exact = decide(row, match_length=length, score=score, position=bearoff)
            by_position = decide(
                row, match_length=length, score=score, cube_life="gnubg", position=bearoff
            )
            assert by_position == exact


def test_by_position_needs_the_positions() -> None:
    rows = _chances(2, 4)
    with pytest.raises(BgfastError, match=r"cube_life='gnubg'.*position"):
        cube_values(rows, Stakes.check(), "gnubg")
    with pytest.raises(BgfastError, match=r"cube_life='gnubg'.*position"):
        decide(rows[0].tolist(), cube_life="gnubg")
    with pytest.raises(BgfastError, match="cube_life must be a number from 0 to 1 or 'gnubg'"):
        decide(rows[0].tolist(), cube_life="GNUBG")
    with pytest.raises(BgfastError, match="cube_life"):
        bgfast.hint(bgfast.Net.wildbg(), bgfast.Position(), (3, 1), cube_life="x")


def test_hint_values_each_result_at_its_index() -> None:
    net = bgfast.Net.wildbg()
    race = bgfast.Position.from_id(RACES[0])
    by_position = bgfast.hint(net, race, (3, 1), cube_life="gnubg")
    # Each result valued by the opponent, on roll there, at the index of its own pips.
    results = [h.move.result for h in by_position]
    mine = np.array([h.probabilities for h in by_position])
    lives = _core.gnubg_cube_lives(batch.to_array(results))
    for k, life in enumerate(lives.tolist()):
        alone = values_after_play(mine[k : k + 1], Stakes.check(), life)
        assert by_position[k].cubeful_equity == pytest.approx(float(alone[0]), abs=1e-6)
    # Contact: the default index, the same ranking and values.
    start = bgfast.Position()
    fixed = bgfast.hint(net, start, (3, 1))
    same = bgfast.hint(net, start, (3, 1), cube_life="gnubg")
    assert [h.move for h in same] == [h.move for h in fixed]
    for a, b in zip(same, fixed):
        assert a.cubeful_equity == pytest.approx(b.cubeful_equity, abs=1e-12)


def test_analyse_by_position() -> None:
    from bgfast._cli_match import read_match

    match = read_match(str(DATA / "matches" / "money_jacoby_beavers_seed5.mat"))
    fixed = bgfast.analyse(match)
    by_position = bgfast.analyse(match, cube_life="gnubg")
    assert by_position.to_dict()["cube_life"] == "gnubg"
    assert len(by_position.decisions) == len(fixed.decisions)
    # Races change their values a little; contact positions not at all.
    losses = np.array([d.loss for d in by_position.decisions])
    before = np.array([d.loss for d in fixed.decisions])
    assert 0 < np.count_nonzero(losses != before) < len(losses)
    assert np.abs(losses - before).max() < 0.05


# --------------------------------------------------------------- against GNU Backgammon

#: gnubg's cube commands and ours (seen from the side to move, gnubg's player 1).
CUBES = [
    ("set cube centre", (1, "centred")),
    ("set cube value 2\nset cube owner 1", (2, "mover")),
    ("set cube value 2\nset cube owner 0", (2, "opponent")),
]


def _gnubg_evals(setup: list[str], cube: str) -> list[gnubg_program.Evaluation]:
    commands = [*gnubg_program.SETUP, "set output digits 5", *setup]
    for pid in RACES:
        commands += ["set turn 1", f"set board {pid}", *cube.split("\n"), "eval"]
    found = gnubg_program.parse_evaluations(gnubg_program.run(commands))
    assert len(found) == len(RACES)
    assert {e.evaluator for e in found} == {"Race"}
    return found


def _gap(ours: cubeful.CubeDecision, theirs: gnubg_program.Evaluation, emg: bool) -> float:
    """The largest difference of our no double and double/take from gnubg's."""
    if emg:
        assert ours.emg is not None
        nd, dt = ours.emg["no_double"], ours.emg["double_take"]
    else:
        nd, dt = ours.no_double, ours.double_take
    if theirs.no_double is None:  # no cube action: gnubg prints the cubeful value alone
        return abs(nd - theirs.cubeful)
    assert theirs.double_take is not None
    return max(abs(nd - theirs.no_double), abs(dt - theirs.double_take))


@pytest.mark.parametrize(("command", "cube"), CUBES)
def test_races_match_gnubgs_eval_in_money(command: str, cube: tuple[int, str]) -> None:
    # gnubg's own printed chances (five decimals) through our model: its values to 2e-4.
    # At the default 0.68 they are up to about 0.025 apart.
    theirs = _gnubg_evals(["set jacoby off", "set beavers 0", "new game"], command)
    gaps_before = []
    for pid, e in zip(RACES, theirs):
        position = bgfast.Position.from_id(pid)
        chances = list(e.probabilities)
        ours = decide(chances, cube=cube, cube_life="gnubg", position=position)
        assert _gap(ours, e, emg=False) < 2e-4, pid
        if e.action is not None:
            assert e.action.lower().startswith(ours.action), pid
        gaps_before.append(_gap(decide(chances, cube=cube, position=position), e, False))
    assert max(gaps_before) > 5e-3


@pytest.mark.parametrize(("command", "cube"), CUBES)
def test_races_match_gnubgs_eval_in_a_match(command: str, cube: tuple[int, str]) -> None:
    setup = ["new match 7", "set score 4 2", "set crawford off"]  # 2-4: the mover trails
    for pid, e in zip(RACES, _gnubg_evals(setup, command)):
        position = bgfast.Position.from_id(pid)
        ours = decide(
            list(e.probabilities),
            cube=cube,
            match_length=7,
            score=(2, 4),
            cube_life="gnubg",
            position=position,
        )
        assert _gap(ours, e, emg=True) < 2e-4, pid
