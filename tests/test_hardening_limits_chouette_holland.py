"""Adversarial pass over four features that landed together: the bear-off database's cube
limit (``bearoff.cubeful_equity(doubles_left=)``, R17), cubeful rollouts that read it,
``hint`` of a chouette over its members' cubes (R26, R27) and the Holland rule in valuing
plays (``scoring.holland_waits``).

Each is checked against something it does not compute itself: the one-roll recursion of
the game, the cube options' orderings, ``hint`` at each member's stakes, the native cube
model's no-double value, and the Holland rule as the referee applied it before the change.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bgfast
from bgfast import Net, bearoff, cubeful, hint, scoring
from bgfast.chouette import BOX, Chouette, IllegalChouetteActionError
from bgfast.cube import Cube
from bgfast.errors import BgfastError, InvalidDiceError

from boards import position

N2 = 924  # positions of up to 6 checkers on the six home points (and none)
CUBES: tuple[bearoff.Cube, ...] = ("owned", "centred", "unavailable")
#: The cube as the side on roll after a play sees it (a cube we own is unavailable to it).
FLIPPED: dict[str, bearoff.Cube] = {
    "owned": "unavailable",
    "centred": "centred",
    "unavailable": "owned",
}
LEVELS: list[int | None] = [None, *range(16)]
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
#: A bear-off in the two-sided database's range: 5 checkers on roll against 4.
BEAROFF = position({1: 2, 4: 1, 6: 2}, {2: 3, 5: 1})
#: The rollout's cube owner as the database names it.
AS_TABLE: dict[str, bearoff.Cube] = {
    "centred": "centred",
    "mover": "owned",
    "opponent": "unavailable",
}


@pytest.fixture(scope="module")
def net() -> Net:
    return Net.wildbg()


def _pairs(count: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """Random pairs of home boards, each side with a checker or more."""
    six = bearoff.position_batch(np.arange(N2))
    rng = np.random.default_rng(seed)
    return [(six[u].tolist(), six[t].tolist()) for u, t in rng.integers(1, N2, size=(count, 2))]


# 1. The database's cube limit (R17).


def test_every_level_keeps_the_cube_options_in_order_r17() -> None:
    # Real invariants at every number of doubles left: owning the cube is an option (never
    # worth less than the cubeless equity, never less than sharing it), the opponent's
    # cube the same option against us; doubling when one may never costs; a dead cube is
    # the cubeless equity exactly; from 7 doubles left the unlimited table's values. The
    # holder's equity is NOT monotone in doubles_left (after a take the taker's cube
    # has them too): both directions occur, so no test may assume one.
    up = down = 0
    for pair in _pairs(250, seed=11):
        cubeless = 2 * bearoff.win_probability(pair) - 1
        rows: dict[tuple[str, bool], list[float]] = {}
        for cube, may_double in itertools.product(CUBES, (False, True)):
            values = [bearoff.cubeful_equity(pair, cube, may_double, d) for d in LEVELS]
            assert all(-1.0 <= v <= 1.0 for v in values)
            unlimited, by_level = values[0], values[1:]
            assert by_level[0] == cubeless
            for v in by_level[7:]:
                assert v == pytest.approx(unlimited, abs=1e-6)
            rows[cube, may_double] = values
            up += sum(b > a + 1e-6 for a, b in zip(by_level, by_level[1:]))
            down += sum(b < a - 1e-6 for a, b in zip(by_level, by_level[1:]))
        for i, d in enumerate(LEVELS):
            own, centred, theirs = (rows[c, False][i] for c in CUBES)
            assert theirs - 1e-7 <= centred <= own + 1e-7, (pair, d)
            assert theirs - 1e-7 <= cubeless <= own + 1e-7, (pair, d)
            # The opponent's cube: nothing to decide, may_double changes nothing.
            assert rows["unavailable", True][i] == theirs
            for cube in ("owned", "centred"):
                no_double = rows[cube, False][i]
                best = rows[cube, True][i]
                if d == 0:
                    assert best == no_double  # a dead cube cannot be turned
                    continue
                # Doubling: the taker owns the cube one double nearer the limit.
                below = None if d is None else d - 1
                taken = bearoff.cubeful_equity(pair, "unavailable", False, below)
                assert best == max(no_double, min(1.0, 2 * taken)), (pair, cube, d)
    assert up > 0 and down > 0


def test_every_level_solves_the_one_roll_recursion_r17() -> None:
    # The game's own recursion, over the plays bgfast's move generator finds: the side on
    # roll not doubling now gets the mean over the 21 rolls of its best play's value, the
    # negative of the opponent's equity after the opponent's own cube action at the same
    # number of doubles left (the cube seen from the other side); a play bearing off the
    # last checker wins 1. The engine's check against the game tree reaches 3 checkers a
    # side and 4 doubles left; this one every level, up to 6 checkers a side.
    for mover, opponent in _pairs(8, seed=5):
        pos = position(
            {p + 1: n for p, n in enumerate(mover) if n},
            {p + 1: n for p, n in enumerate(opponent) if n},
        )
        children: list[tuple[int, list[tuple[list[int], list[int]] | None]]] = []
        for d1, d2 in ROLLS:
            results: list[tuple[list[int], list[int]] | None] = []
            for move in pos.moves(d1, d2):
                rows = move.result.to_array()  # the opponent on roll now
                home = (rows[0][:6].tolist(), rows[1][:6].tolist())
                results.append(None if rows[1].sum() == 0 else home)
            children.append((1 if d1 == d2 else 2, results))
        for d, cube in itertools.product([None, 0, 1, 2, 3, 5, 6, 7, 9, 15], CUBES):
            total = 0.0
            for weight, results in children:
                total += weight * max(
                    1.0 if r is None else -bearoff.cubeful_equity(r, FLIPPED[cube], True, d)
                    for r in results
                )
            want = total / 36
            got = bearoff.cubeful_equity((mover, opponent), cube, False, d)
            assert got == pytest.approx(want, abs=2e-6), (mover, opponent, cube, d)


@pytest.mark.parametrize("given", [np.int64(3), np.uint8(3), np.int32(3), 3])
def test_doubles_left_is_any_int_r17(given: Any) -> None:
    pair = ([0, 1, 1, 0, 2, 0], [1, 1, 0, 0, 1, 1])
    assert bearoff.cubeful_equity(pair, "owned", True, given) == bearoff.cubeful_equity(
        pair, "owned", True, 3
    )


@pytest.mark.parametrize(
    ("given", "error"),
    [
        (True, TypeError),  # True == 1, but a bool is no count of doubles
        (False, TypeError),
        (np.bool_(True), TypeError),
        (2.0, TypeError),
        (np.float64(2.0), TypeError),
        ("2", TypeError),
        (b"2", TypeError),
        (np.int64(16), BgfastError),
        (np.int32(-1), BgfastError),
        (-(2**70), BgfastError),
    ],
)
def test_doubles_left_of_a_wrong_kind_is_refused_by_name_r17(given: Any, error: type) -> None:
    pair = ([0, 1, 1, 0, 2, 0], [1, 1, 0, 0, 1, 1])
    with pytest.raises(error, match="R17: doubles_left"):
        bearoff.cubeful_equity(pair, doubles_left=given)


def test_a_refused_position_is_refused_at_every_level_r17() -> None:
    for d in (None, 0, 4):
        with pytest.raises(bgfast.InvalidPositionError, match="R15"):
            bearoff.cubeful_equity(([0] * 6, [0] * 6), doubles_left=d)
        with pytest.raises(bearoff.BearoffRangeError, match="at most 6"):
            bearoff.cubeful_equity(([7, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]), doubles_left=d)
        with pytest.raises(bearoff.BearoffRangeError, match="R13"):
            bearoff.cubeful_equity(bgfast.Position(), doubles_left=d)
        with pytest.raises(BgfastError, match="R17: cube must be"):
            bearoff.cubeful_equity(BEAROFF, "middle", doubles_left=d)  # type: ignore[arg-type]


def test_threads_asking_a_fresh_table_for_its_levels_at_once_agree_r17() -> None:
    # A copy read from bytes has no level built: many threads ask for two and three doubles
    # left at once (each lookup releases the GIL while the level is built) and all read
    # what the process's table reads.
    table = bearoff.two_sided()
    fresh = bearoff.TwoSidedTable.from_bytes(table.to_bytes())
    pairs = _pairs(24, seed=2)
    asks = [(pairs[i % len(pairs)], CUBES[i % 3], i % 5 != 0, 2 + i % 2) for i in range(64)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        got = list(pool.map(lambda a: fresh.cubeful_equity(*a), asks))
    assert got == [table.cubeful_equity(*a) for a in asks]


# 2. Cubeful rollouts in the database's range with a cube limit (R17).


def _doubles_left(limit: int, value: int) -> int:
    return int(math.log2(limit // value))


@pytest.mark.parametrize(
    ("limit", "value", "owner"),
    [
        (1, 1, "centred"),  # no cube at all: dead from the start
        (2, 1, "centred"),
        (2, 2, "mover"),  # at its limit: dead
        (2, 2, "opponent"),
        (4, 1, "centred"),
        (4, 2, "opponent"),
        (16, 2, "mover"),
        (16, 4, "opponent"),
        (64, 1, "centred"),
        (64, 8, "mover"),
        (1024, 512, "mover"),
        (1024, 2, "opponent"),
        (32768, 4, "mover"),
        (32768, 32768, "mover"),
    ],
)
def test_a_cubeful_rollout_in_the_database_reads_its_cube_limits_level_r17(
    limit: int, value: int, owner: str
) -> None:
    result = bgfast.rollout(
        BEAROFF, games=8, seed=4, cubeful=True, cube=(value, owner), max_cube=limit
    )
    level = _doubles_left(limit, value)
    assert result.cubeful_equity == bearoff.cubeful_equity(BEAROFF, AS_TABLE[owner], True, level)


@pytest.mark.parametrize(("limit", "value", "owner"), [(4, 1, "centred"), (8, 2, "mover")])
@pytest.mark.parametrize("limit_step", [1, 2, 3])
def test_rollout_cube_in_the_database_reads_both_branches_levels_r17(
    limit: int, value: int, owner: str, limit_step: int
) -> None:
    # The no-double branch at the cube's level, the double/take branch one level down
    # (the taker's cube), the pass 1.
    limit *= 2 ** (limit_step - 1)
    level = _doubles_left(limit, value)
    cube = bgfast.rollout_cube(BEAROFF, games=8, seed=2, cube=(value, owner), max_cube=limit)
    assert cube.no_double == bearoff.cubeful_equity(BEAROFF, AS_TABLE[owner], False, level)
    taken = bearoff.cubeful_equity(BEAROFF, "unavailable", False, level - 1)
    assert cube.double_take == 2 * taken
    assert cube.double_pass == 1.0


def test_rollout_cube_at_a_dead_cube_is_refused_by_name_r17() -> None:
    for value, limit in ((2, 2), (8, 8), (1, 1)):
        with pytest.raises(BgfastError, match="R17"):
            bgfast.rollout_cube(BEAROFF, games=4, seed=1, cube=(value, "mover"), max_cube=limit)
    with pytest.raises(BgfastError, match="R17"):
        bgfast.rollout(BEAROFF, games=4, seed=1, cubeful=True, cube=(4, "mover"), max_cube=2)


@pytest.mark.parametrize(
    ("limit", "value", "owner"),
    [(8, 1, "centred"), (8, 2, "mover"), (4, 2, "opponent"), (2, 2, "mover"), (None, 2, "mover")],
)
def test_rollout_moves_in_the_database_read_the_level_after_each_play_r17(
    limit: int | None, value: int, owner: str
) -> None:
    # Each candidate starts with the opponent on roll at the same cube, seen from its side:
    # minus its equity with its cube action, at the same number of doubles left.
    level = None if limit is None else _doubles_left(limit, value)
    seen_from_them = FLIPPED[AS_TABLE[owner]]
    for pos, dice in (
        (BEAROFF, (5, 3)),
        (position({1: 1, 2: 2, 3: 2}, {3: 2, 5: 2, 6: 1}), (2, 1)),
    ):
        ranked = bgfast.rollout_moves(
            pos, dice, games=8, seed=1, cubeful=True, cube=(value, owner), max_cube=limit
        )
        for candidate in ranked:
            after = candidate.move.result
            want = -bearoff.cubeful_equity(after, seen_from_them, True, level)
            assert candidate.result.cubeful_equity == want


@pytest.mark.parametrize(("value", "owner"), [(1, "centred"), (2, "mover"), (64, "opponent")])
def test_no_cube_limit_reads_the_unlimited_table_r17(value: int, owner: str) -> None:
    # A small cube below the game's 32,768 has more than 7 doubles left: the table of a
    # cube that can always be turned again.
    result = bgfast.rollout(BEAROFF, games=8, seed=3, cubeful=True, cube=(value, owner))
    assert result.cubeful_equity == bearoff.cubeful_equity(BEAROFF, AS_TABLE[owner], True)
    if owner != "opponent":
        cube = bgfast.rollout_cube(BEAROFF, games=8, seed=3, cube=(value, owner))
        assert cube.no_double == bearoff.cubeful_equity(BEAROFF, AS_TABLE[owner], False)
        assert cube.double_take == 2 * bearoff.cubeful_equity(BEAROFF, "unavailable", False)


def test_concurrent_limited_rollouts_on_a_fresh_table_agree_r17(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fresh cache directory holding a copy of the table: the process loads it anew, with
    # no level built, and rollouts of several limits on their own thread pools build them
    # while plain lookups ask for them. None may wait for another for ever; all agree with
    # the process's own table.
    table = bearoff.two_sided()
    monkeypatch.setenv("BGFAST_CACHE_DIR", str(tmp_path))
    path = bearoff._two_sided_path()
    path.write_bytes(table.to_bytes())
    fresh = bearoff.two_sided()
    assert fresh is not table

    def job(i: int) -> tuple[float | None, float | None]:
        limit = (2, 4, 8)[i // 3 % 3]
        level = _doubles_left(limit, 1)
        if i % 3 == 0:
            got = bgfast.rollout_cube(BEAROFF, games=8, seed=i, max_cube=limit, threads=2)
            return got.no_double, table.cubeful_equity(BEAROFF, "centred", False, level)
        if i % 3 == 1:
            run = bgfast.rollout(
                BEAROFF, games=8, seed=i, cubeful=True, cube=(2, "opponent"), max_cube=limit
            )
            return run.cubeful_equity, table.cubeful_equity(BEAROFF, "unavailable", True, level - 1)
        return fresh.cubeful_equity(BEAROFF, "owned", True, level), table.cubeful_equity(
            BEAROFF, "owned", True, level
        )

    with ThreadPoolExecutor(max_workers=9) as pool:
        futures = [pool.submit(job, i) for i in range(18)]
        pairs = [f.result(timeout=120) for f in futures]
    for got, want in pairs:
        assert got == want


# 3. hint of a chouette (R26, R27).

SEATS = {"Ann": 6, "Bob": 5, "Cy": 4, "Di": 3, "Ed": 2}  # box Ann; Bob captain, Cy, Di, Ed


def _ranked(ranked: list[bgfast.RankedPlay]) -> list[tuple[Any, ...]]:
    return [
        (str(h.move), h.probabilities.tolist(), h.equity, h.cubeful_equity, h.mwc) for h in ranked
    ]


def _weighted(
    net: Net, state: bgfast.GameState, cubes: list[tuple[int, cubeful.Stakes]], dice: Any = None
) -> dict[str, float]:
    """The value of each play over several cubes, each hinted at alone, by their points."""
    total: dict[str, float] = {}
    for points, stakes in cubes:
        for h in hint(net, state, dice, stakes=stakes):
            total[str(h.move)] = total.get(str(h.move), 0.0) + points * h.cubeful_equity
    weight = sum(points for points, _ in cubes)
    return {move: value / weight for move, value in total.items()}


def _three(form: Any = "team-cube", **options: Any) -> Chouette:
    """Ann (the box), Bob and Cy."""
    three = {name: SEATS[name] for name in ("Ann", "Bob", "Cy")}
    return Chouette(list(three), form, rolls=three, **options)


def _per_member_box_to_move(**options: Any) -> Chouette:
    """Per-member cubes. The box (Ann) opened 5-2; on the team's turn Bob doubled (the box
    took: it owns Bob's 2) and Cy doubled (the box passed: Cy is out); on the box's turn
    it redoubled Bob (taken: the team owns Bob's 4) and doubled Di (taken: the team owns
    Di's 2) and Ed (passed: Ed is out); the box has rolled 3-1."""
    c = Chouette(list(SEATS), "per-member-cubes", rolls=SEATS, **options)
    c.start_game()
    c.roll((5, 2))
    c.play("24/22 13/8")
    c.member_double("Bob", "take")
    c.member_double("Cy", "pass")
    c.roll((6, 4))
    c.play("24/14")
    c.box_double({"Bob": "take", "Di": "take", "Ed": "pass"})
    c.roll((3, 1))
    return c


def test_the_box_ranks_over_the_cubes_still_in_by_their_points_r26_r27(net: Net) -> None:
    c = _per_member_box_to_move()
    board = c.game
    assert board is not None and board.turn == BOX
    assert c.active_members == ("Bob", "Di")
    before = c.to_json()
    state = board.state
    # The box moves: both cubes stand on the team's side, the box's opponent.
    bob = cubeful.Stakes.check(cube=(4, "opponent"))
    di = cubeful.Stakes.check(cube=(2, "opponent"))
    ranked = hint(net, c)
    want = _weighted(net, state, [(4, bob), (2, di)])
    assert {str(h.move): h.cubeful_equity for h in ranked} == pytest.approx(want, abs=1e-12)
    values = [h.cubeful_equity for h in ranked]
    assert values == sorted(values, reverse=True)
    assert all(h.mwc is None for h in ranked)
    assert _ranked(hint(net, c, member="Bob")) == _ranked(hint(net, state, stakes=bob))
    assert _ranked(hint(net, c, member="Di")) == _ranked(hint(net, state, stakes=di))
    # Members out of this game are not counted and cannot be named.
    for out in ("Cy", "Ed"):
        with pytest.raises(IllegalChouetteActionError, match="has left"):
            hint(net, c, member=out)
    assert c.to_json() == before


def test_the_team_ranks_over_its_members_cubes_from_its_side_r26(net: Net) -> None:
    c = _per_member_box_to_move()
    board = c.game
    assert board is not None
    c.play(hint(net, c)[0].move)
    board = c.game
    assert board is not None and board.phase == "roll" and board.turn != BOX
    before = c.to_json()
    # The team is on roll, not yet rolled: the roll given ranks; the cubes it owns are
    # the mover's now.
    ranked = hint(net, c, (4, 2))
    want = _weighted(
        net,
        board.state,
        [
            (4, cubeful.Stakes.check(cube=(4, "mover"))),
            (2, cubeful.Stakes.check(cube=(2, "mover"))),
        ],
        (4, 2),
    )
    assert {str(h.move): h.cubeful_equity for h in ranked} == pytest.approx(want, abs=1e-12)
    with pytest.raises(BgfastError, match="give the roll"):
        hint(net, c)
    assert c.to_json() == before


def test_a_team_cube_is_one_cube_whoever_passed_r26_r27(net: Net) -> None:
    c = Chouette(list(SEATS), "team-cube", rolls=SEATS)
    c.start_game()
    c.roll((5, 2))
    c.play("24/22 13/8")
    c.team_double(c.active_members, "take")  # the box owns the team cube at 2
    c.roll((6, 4))
    c.play("24/14")
    c.box_double({"Bob": "pass", "Cy": "take", "Di": "take", "Ed": "pass"})
    assert c.active_members == ("Cy", "Di") and c.acting_captain == "Cy"
    c.roll((3, 1))
    board = c.game
    assert board is not None
    before = c.to_json()
    at = cubeful.Stakes.check(cube=(4, "opponent"))
    want = _ranked(hint(net, board.state, stakes=at))
    assert _ranked(hint(net, c)) == want
    assert _ranked(hint(net, c, member="Di")) == want
    with pytest.raises(IllegalChouetteActionError, match="has left"):
        hint(net, c, member="Bob")  # passed the box's double: out, captain or not
    assert c.to_json() == before


@pytest.mark.parametrize(
    "options",
    [
        {"jacoby": True},
        {"backgammon_counts_double": True},
        {"jacoby": True, "backgammon_counts_double": True},
    ],
)
def test_the_chouettes_rules_reach_every_members_cube_r16_r23(
    net: Net, options: dict[str, bool]
) -> None:
    # The box has turned Bob's cube; Cy's is centred: Jacoby (gammons single on a cube
    # never turned) counts for Cy's alone, the backgammon option for both.
    c = _three("per-member-cubes", **options)
    c.start_game()
    c.roll((5, 2))
    c.play("24/22 13/8")
    c.roll((6, 4))
    c.play("24/14")
    c.box_double({"Bob": "take"})
    c.roll((6, 6))
    board = c.game
    assert board is not None
    rules = {
        "jacoby": options.get("jacoby", False),
        "backgammon_counts_double": options.get("backgammon_counts_double", False),
    }
    bob = cubeful.Stakes.check(cube=(2, "opponent"), **rules)
    cy = cubeful.Stakes.check(**rules)
    want = _weighted(net, board.state, [(2, bob), (1, cy)])
    got = {str(h.move): h.cubeful_equity for h in hint(net, c)}
    assert got == pytest.approx(want, abs=1e-12)
    # The options change the values here: a chouette ignoring them would not pass.
    plain = cubeful.Stakes.check(cube=(2, "opponent")), cubeful.Stakes.check()
    ignored = _weighted(net, board.state, [(2, plain[0]), (1, plain[1])])
    assert any(abs(ignored[m] - want[m]) > 1e-9 for m in want)
    assert _ranked(hint(net, c, member="Cy")) == _ranked(hint(net, board.state, stakes=cy))


def test_a_chouette_without_gammons_ranks_single_games(net: Net) -> None:
    # Each result valued on its winning chances alone, at both cubes still in; the same
    # chouette with gammons values them otherwise.
    cubes = [
        (4, cubeful.Stakes.check(cube=(4, "opponent"))),
        (2, cubeful.Stakes.check(cube=(2, "opponent"))),
    ]
    ranked = hint(net, _per_member_box_to_move(gammons=False))
    for h in ranked:
        theirs = [1.0 - float(h.probabilities[0]), 0.0, 0.0, 0.0, 0.0]
        value = 0.0
        for points, at in cubes:
            d = cubeful.decide_for(theirs, at.for_opponent(), cubeful.DEFAULT_CUBE_LIFE)
            value -= points * d.value
        assert h.cubeful_equity == pytest.approx(value / 6, abs=1e-6)
    with_gammons = {str(h.move): h.cubeful_equity for h in hint(net, _per_member_box_to_move())}
    assert any(abs(with_gammons[str(h.move)] - h.cubeful_equity) > 1e-4 for h in ranked)


def test_a_chouette_with_no_play_to_rank_is_refused_and_unchanged(net: Net) -> None:
    checks: list[tuple[Chouette, Any, str]] = [(_three(), None, "no game in progress")]
    c = _three()
    c.start_game()
    checks += [(c, None, "R3"), (c, (3, 1), "R3")]  # the board not rolled yet
    recorded = _three()
    recorded.start_game()
    recorded.team_double(recorded.active_members, "take")  # doubled before any roll
    checks += [(recorded, None, "R3"), (recorded, (3, 1), "R3")]
    over = _three()
    over.start_game()
    over.end_game("box", "gammon")  # between games
    checks.append((over, (3, 1), "no game in progress"))
    for chouette, dice, error in checks:
        before = chouette.to_json()
        with pytest.raises(BgfastError, match=error):
            hint(net, chouette, dice)
        with pytest.raises(BgfastError, match=error):
            hint(net, chouette, dice, member="Bob")
        assert chouette.to_json() == before


@pytest.mark.parametrize(
    ("member", "error", "match"),
    [
        (3, TypeError, "member must be"),
        (b"Bob", TypeError, "member must be"),
        (["Bob"], TypeError, "member must be"),
        (("Bob",), TypeError, "member must be"),
        ("Ann", IllegalChouetteActionError, "is the box"),
        ("bob", IllegalChouetteActionError, "not playing"),
        ("", IllegalChouetteActionError, "not playing"),
        ("Zed", IllegalChouetteActionError, "not playing"),
    ],
)
def test_a_member_who_is_none_is_refused_by_name(
    net: Net, member: Any, error: type, match: str
) -> None:
    c = _per_member_box_to_move()
    before = c.to_json()
    with pytest.raises(error, match=match):
        hint(net, c, member=member)
    assert c.to_json() == before


def test_other_arguments_with_a_chouette_are_refused_and_change_nothing(net: Net) -> None:
    c = _per_member_box_to_move()
    board = c.game
    assert board is not None
    before = c.to_json()
    with pytest.raises(BgfastError, match="name a member, not stakes"):
        hint(net, c, stakes=cubeful.Stakes.check(), member="Bob")
    with pytest.raises(InvalidDiceError):
        hint(net, c, (7, 1))
    with pytest.raises(BgfastError, match="rank a Chouette"):
        hint(net, board.state, member="Bob")
    with pytest.raises(BgfastError, match="cube_life"):
        hint(net, c, cube_life=1.5)
    # Another roll than the board's 3-1 contradicts it (as for a game state).
    with pytest.raises(InvalidDiceError, match="has rolled 3-1, not 2-1"):
        hint(net, c, (2, 1))
    assert c.to_json() == before
    # The board's own roll, given or not, ranks at every member's cube.
    want = _weighted(
        net,
        board.state,
        [
            (4, cubeful.Stakes.check(cube=(4, "opponent"))),
            (2, cubeful.Stakes.check(cube=(2, "opponent"))),
        ],
    )
    for dice in (None, (3, 1), (1, 3)):
        got = {str(h.move): h.cubeful_equity for h in hint(net, c, dice)}
        assert got == pytest.approx(want, abs=1e-12)


def test_a_members_cube_at_the_limit_is_dead_r17(net: Net) -> None:
    # Bob's cube turned on every turn up to 32,768: no side may turn it again, and ranked
    # at it alone each play is worth its cubeless equity; Cy's centred cube still counts
    # for one point in 32,769.
    c = _three("per-member-cubes")
    c.start_game()
    rng = random.Random(1)
    c.roll((5, 2))
    while c.cube("Bob").value < 32768:
        board = c.game
        assert board is not None
        if board.phase == "move":
            c.play(rng.choice(board.legal_moves()))
            continue
        if board.turn == BOX and "Bob" in c.members_box_may_double():
            c.box_double({"Bob": "take"})
        elif board.turn != BOX and "Bob" in c.members_who_may_double():
            c.member_double("Bob", "take")
        c.roll((rng.randint(1, 6), rng.randint(1, 6)))
    board = c.game
    assert board is not None
    if board.phase == "roll":
        c.roll((3, 1))
        board = c.game
        assert board is not None
    assert "Bob" not in c.members_box_may_double() + c.members_who_may_double()
    mover = "box" if board.turn == BOX else "team"
    owner = "mover" if c.cube("Bob").owner == mover else "opponent"
    dead = cubeful.Stakes.check(cube=(32768, owner))
    bob = hint(net, c, member="Bob")
    assert _ranked(bob) == _ranked(hint(net, board.state, stakes=dead))
    for h in bob:
        assert h.cubeful_equity == pytest.approx(h.equity, abs=1e-6)
    want = _weighted(net, board.state, [(32768, dead), (1, cubeful.Stakes.check())])
    got = {str(h.move): h.cubeful_equity for h in hint(net, c)}
    assert got == pytest.approx(want, abs=1e-9)


def test_a_staged_move_ranks_the_roll_from_before_it(net: Net) -> None:
    c = _per_member_box_to_move()
    first = hint(net, c)
    c.move(first[-1].move)
    before = c.to_json()
    assert _ranked(hint(net, c)) == _ranked(first)
    assert c.to_json() == before


# 4. The Holland rule in valuing plays.


def _old_rule_waits(state: bgfast.GameState, player: int, turns: tuple[int, int]) -> bool:
    """The Holland rule as GameState.why_not_double applied it before the change."""
    return (
        state.holland
        and state.post_crawford
        and state.score[player] < state.score[1 - player]
        and min(turns) < 2
    )


def _opened(game: bgfast.Game) -> bgfast.Game:
    """``game`` after its opening roll (rolled again while tied, R3)."""
    while game.phase == "opening":
        game.roll()
    return game


def _a_turn(match_length: int, score: tuple[int, int], crawford: bool, seed: int) -> Any:
    """The state of a game just rolled (the mover to play), under the Holland rule."""
    game = bgfast.Game(
        match_length=match_length, score=score, crawford=crawford, holland=True, seed=seed
    )
    return _opened(game).state


def _mwc_without_their_cube_action(h: bgfast.RankedPlay, stakes: cubeful.Stakes) -> float:
    p = h.probabilities
    theirs = [1.0 - float(p[0]), float(p[3]), float(p[4]), float(p[1]), float(p[2])]
    d = cubeful.decide_for(theirs, stakes.for_opponent(), cubeful.DEFAULT_CUBE_LIFE)
    return 1.0 - d.no_double


@pytest.mark.parametrize("score", [(4, 2), (1, 4), (4, 0), (3, 4)])
def test_holland_values_the_trailers_waiting_turn_without_its_cube_action(
    net: Net, score: tuple[int, int]
) -> None:
    # Every count of turns played and either player to move: where the old rule kept the
    # trailer from doubling at its next turn, each play's result is valued with the
    # trailer's no-double value; elsewhere exactly as without the rule.
    base = _a_turn(5, score, False, seed=7)
    assert base.post_crawford
    waited = plain_same = 0
    for turn, played in itertools.product((0, 1), itertools.product(range(4), repeat=2)):
        state = base.replace(turn=turn, turns_played=played)
        after = list(played)
        after[turn] += 1
        waits = _old_rule_waits(state, 1 - turn, (after[0], after[1]))
        ranked = hint(net, state)
        without = hint(net, state.replace(holland=False))
        if waits:
            waited += 1
            stakes = cubeful.Stakes.of(state)
            for h in ranked:
                assert h.mwc == pytest.approx(_mwc_without_their_cube_action(h, stakes), abs=1e-6)
        else:
            plain_same += 1
            assert _ranked(ranked) == _ranked(without)
    assert waited > 0 and plain_same > 0


@pytest.mark.parametrize(
    ("match_length", "score", "crawford"),
    [
        (5, (4, 4), False),  # tied post-Crawford: nobody trails
        (1, (0, 0), False),  # a 1-point match: no cube, no post-Crawford game
        (5, (4, 2), True),  # the Crawford game itself: no cube
        (5, (3, 1), False),  # the leader 2-away: not post-Crawford
        (7, (2, 5), False),
    ],
)
def test_holland_changes_nothing_without_a_post_crawford_trailer(
    net: Net, match_length: int, score: tuple[int, int], crawford: bool
) -> None:
    base = _a_turn(match_length, score, crawford, seed=9)
    for played in itertools.product(range(3), repeat=2):
        state = base.replace(turns_played=played)
        assert _ranked(hint(net, state)) == _ranked(hint(net, state.replace(holland=False)))


def test_holland_changes_nothing_when_the_mover_owns_the_cube(net: Net) -> None:
    # The opponent has no cube action to wait for: the values are those without the rule.
    base = _a_turn(5, (4, 2), False, seed=7)
    for turn, played in itertools.product((0, 1), itertools.product(range(3), repeat=2)):
        state = base.replace(turn=turn, turns_played=played, cube=Cube(2, turn))
        assert _ranked(hint(net, state)) == _ranked(hint(net, state.replace(holland=False)))


def test_holland_hint_before_and_after_the_roll_agree(net: Net) -> None:
    # The same turn asked in the roll phase (dice given) and in the move phase: the turns
    # counted are those completed, whichever phase the state is in.
    for seed in range(6):
        game = bgfast.Game(match_length=5, score=(2, 4), crawford=False, holland=True, seed=seed)
        rng = random.Random(seed)
        _opened(game)
        for _ in range(5):
            if game.phase == "move":
                moves = game.legal_moves()
                game.play(moves[rng.randrange(len(moves))])
            if game.is_over:
                break
            before = game.state
            assert before.phase == "roll"
            dice = game.roll()
            if game.phase != "move":
                continue  # a pass: no play to rank
            assert _ranked(hint(net, before, dice)) == _ranked(hint(net, game.state))


@pytest.mark.parametrize("score", [(1, 4), (4, 3), (0, 4)])
def test_the_analysis_rates_plays_as_hint_values_them_under_holland(
    net: Net, score: tuple[int, int]
) -> None:
    # Several games, whichever side opens and whichever trails: the analysis's loss for
    # each play is hint's gap between the best play and the one made, and where the
    # trailer's next turn may have its cube action the loss is the one without the rule.
    waited = 0
    for seed in range(3):
        analyses = []
        for holland in (True, False):
            game = bgfast.Game(
                match_length=5, score=score, crawford=False, holland=holland, seed=seed
            )
            rng = random.Random(seed)
            _opened(game)
            for _ in range(8):
                if game.phase == "roll":
                    game.roll()
                if game.phase == "move":
                    moves = game.legal_moves()
                    game.play(moves[rng.randrange(len(moves))])
            analysis = bgfast.analyse(game, net=net)
            assert analysis is not None
            analyses.append([d for d in analysis.decisions if d.kind == "move"])
        for with_rule, without in zip(*analyses):
            state = with_rule.state
            ranked = hint(net, state)
            played = next(h for h in ranked if str(h.move) == with_rule.played)
            gap = ranked[0].cubeful_equity - played.cubeful_equity
            assert with_rule.loss == pytest.approx(gap, abs=1e-5)
            after = list(state.turns_played)
            after[state.turn] += 1
            if _old_rule_waits(state, 1 - state.turn, (after[0], after[1])):
                waited += 1
            else:
                assert with_rule.loss == without.loss
    assert waited > 0


def _why_not_double_old(state: bgfast.GameState) -> str | None:
    """why_not_double as it read before the change."""
    assert state.turn is not None
    reason = state.cube.why_not_double(state.turn)
    if reason is not None:
        return reason
    if state.holland and state.post_crawford:
        trailer = state.score[state.turn] < state.score[1 - state.turn]
        if trailer and min(state.turns_played) < 2:
            return "Holland rule: the trailer may double only after both sides rolled twice"
    return None


@pytest.mark.parametrize(
    ("match_length", "score", "crawford", "holland"),
    [
        (5, (4, 2), False, True),
        (5, (1, 4), False, True),
        (5, (4, 4), False, True),
        (5, (4, 2), False, False),
        (5, (4, 2), True, True),
        (5, (2, 3), False, True),
        (1, (0, 0), False, True),
    ],
)
def test_why_not_double_keeps_the_old_holland_rule(
    match_length: int, score: tuple[int, int], crawford: bool, holland: bool
) -> None:
    # Random games in which each side doubles whenever the referee lets it: the answer is
    # the old rule's at every turn, and a refused double changes nothing.
    trailing = holland and not crawford and match_length > 1 and max(score) == match_length - 1
    trailing = trailing and score[0] != score[1]
    seen: set[str | None] = set()
    for seed in range(4):
        game = bgfast.Game(
            match_length=match_length, score=score, crawford=crawford, holland=holland, seed=seed
        )
        rng = random.Random(seed)
        _opened(game)
        for _ in range(14):
            if game.is_over:
                break
            if game.phase == "move":
                moves = game.legal_moves()
                game.play(moves[rng.randrange(len(moves))])
                continue
            state = game.state
            reason = state.why_not_double()
            assert reason == _why_not_double_old(state)
            assert game.why_not_double() == reason
            seen.add(reason)
            if reason is None:
                game.double()
                game.take()
            else:
                saved = game.to_json()
                with pytest.raises(BgfastError, match=re.escape(reason)):
                    game.double()
                assert game.to_json() == saved
                game.roll()
    assert (scoring.HOLLAND_RULE in seen) == trailing
