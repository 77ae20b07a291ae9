"""One test per movement rule of RULES.md (R2, R4-R14, R16), on hand-built positions."""

from __future__ import annotations

import pytest

import bgfast

from boards import mover_after, position

# An opponent that never meets the mover's checkers in these tests: all 15 on its own
# 24-point... which is the mover's 1-point, so tests bearing off use ``HOME_FREE``.
FAR = {24: 15}
HOME_FREE = {13: 15}  # the mover's 12-point, behind every checker of those tests


def test_r4_dice_are_separate_moves_not_a_sum() -> None:
    # One checker on 24; the 4-2 sum of 6 would land on 18, but both intermediate points
    # (22 and 20) are blocked by the opponent (its 3- and 5-points), so only... nothing.
    pos = position({24: 1, 6: 14}, {3: 2, 5: 2, 2: 11})
    for after in mover_after(pos, 4, 2):
        assert after.get(18, 0) == 0, "a 6 was played as one move"


def test_r4_order_matters_for_one_checker() -> None:
    # 22 is blocked, 20 is open: 24/20/18 is legal (4 first), 24/22 is not.
    pos = position({24: 1, 6: 14}, {3: 2, 2: 13})
    assert {18: 1, 6: 14} in mover_after(pos, 4, 2)
    assert all(after.get(22, 0) == 0 for after in mover_after(pos, 4, 2))


def test_r5_doubles_move_four_times() -> None:
    pos = position({24: 1}, {2: 15})
    (move,) = pos.moves(2, 2)
    assert len(move.steps) == 4
    assert mover_after(pos, 2, 2) == [{16: 1}]


def test_r6_landing_on_empty_own_or_blot_hits() -> None:
    pos = position({13: 2, 6: 13}, {1: 14, 16: 1})  # opponent blot on mover's 9
    moves = pos.moves(4, 4)
    hits = [m for m in moves if any(hit for _, _, hit in m.steps)]
    assert hits, "landing on a blot must be possible"
    for move in hits:
        assert move.result.to_array()[0][24] == 1, "the hit blot goes to the bar"


def test_r7_blocked_point_cannot_be_landed_on_or_touched_on_the_way() -> None:
    # Opponent holds the mover's 9-point (its 16-point). 13/9 with a 4 is illegal, and with
    # 2-2 a single checker cannot pass through 9 (13/11/9/7 stops on 9).
    pos = position({13: 1, 6: 14}, {16: 2, 1: 13})
    assert all(after.get(9, 0) == 0 for after in mover_after(pos, 4, 1))
    assert all(after.get(5, 0) == 0 for after in mover_after(pos, 2, 2)), "stopped on 9"


def test_r8_both_dice_must_be_played_when_possible() -> None:
    # A lone checker on 8 with 6-1: 8/7 is blocked (the opponent's 18), 8/2 alone would
    # leave the 1 unplayed, but 8/2/1 plays both, so it is the only legal move.
    pos = position({8: 1}, {18: 2, 22: 2, 20: 11})
    assert mover_after(pos, 6, 1) == [{1: 1}]


def test_r9_the_higher_die_when_only_one_can_be_played() -> None:
    # Mover: one checker on 13 only; opponent blocks mover's 8 (6+... ) so 13/7 then 7/x ...
    # Build: either die alone is playable, but not both: the 5 and 2 from 13 land on 8 and
    # 11; after 13/8 the 2 (8/6) is blocked; after 13/11 the 5 (11/6) is blocked.
    pos = position({13: 1}, {19: 2, 20: 13})  # the opponent holds the mover's 6 and 5
    assert mover_after(pos, 5, 2) == [{8: 1}]


def test_r10_no_legal_play_passes_with_one_result() -> None:
    # On the bar against a closed board.
    pos = position({25: 1, 6: 14}, {p: 2 for p in range(1, 7)} | {13: 3})
    (move,) = pos.moves(6, 5)
    assert move.is_pass and move.steps == []
    assert move.result == pos.flipped()


def test_r11_hitting_is_not_compulsory() -> None:
    pos = position({13: 2, 6: 13}, {1: 14, 16: 1})  # blot on mover's 9
    moves = pos.moves(4, 2)
    assert any(any(h for *_, h in m.steps) for m in moves)
    assert any(not any(h for *_, h in m.steps) for m in moves)


def test_r12_bar_first_and_entry_with_one_die() -> None:
    pos = position({25: 1, 13: 14}, {1: 15})
    for move in pos.moves(6, 3):
        assert move.steps[0][0] == 25, "a checker moved before entering"
    # Two on the bar, one die blocked: only one enters and the other die is lost.
    pos = position({25: 2, 13: 13}, {6: 2, 1: 13})  # opponent holds its 6 = mover's 19
    moves = pos.moves(6, 3)
    assert all(m.steps == [(25, 22, False)] for m in moves)


def test_r13_no_bearing_off_with_a_checker_outside() -> None:
    pos = position({7: 1, 6: 14}, HOME_FREE)
    for move in pos.moves(6, 6):
        # 7/1 first brings everyone home; then bearing off is allowed.
        assert move.steps[0][0] == 7
    pos = position({8: 1, 6: 14}, HOME_FREE)
    for move in pos.moves(5, 1):
        assert all(to != 0 for _, to, _ in move.steps), "bore off with a checker on 8"


def test_r14_exact_and_higher_dice() -> None:
    # Exact: a 4 bears off from the 4-point.
    pos = position({4: 1, 2: 1}, HOME_FREE)
    assert {} in mover_after(pos, 4, 2)
    # Higher: a 6 bears off from the highest point when it is lower than 6.
    pos = position({5: 1, 4: 1}, HOME_FREE)
    assert mover_after(pos, 6, 6) == [{}]
    # Full value first: with a checker on 6, a 5 may not bear off from the 4-point, so
    # 6/5 4/off (leaving the 5) is illegal; 6/1 4/3 and 6/5 5/off are legal.
    pos = position({6: 1, 4: 1}, HOME_FREE)
    after = mover_after(pos, 5, 1)
    assert {5: 1} not in after
    assert {4: 1} in after and {3: 1, 1: 1} in after
    # A die may be used to move inside the home board.
    assert any((4, 3, False) in m.steps for m in pos.moves(5, 1))


def test_r16_outcome_kinds() -> None:
    gammon = position({1: 15}, {})
    assert gammon.outcome is not None
    assert (gammon.outcome.winner, gammon.outcome.kind, gammon.outcome.points) == (
        "opponent",
        "gammon",
        2,
    )
    backgammon = position({1: 14, 20: 1}, {})
    assert backgammon.outcome is not None and backgammon.outcome.kind == "backgammon"
    single = position({1: 3}, {})
    assert single.outcome is not None and single.outcome.kind == "single"
    with pytest.raises(bgfast.GameOverError, match="R15"):
        single.moves(3, 1)


def test_r2_the_bar_is_not_a_point() -> None:
    """R2: the bar is not a point; crossing from the outer board to the home board, or
    entering from the bar, costs no extra pip."""
    # Crossing from the outer board to the home board costs no extra pip: a 6 moves 9 to 3,
    # and a checker entering with a 6 lands on the 19-point (the bar counts as 25).
    pos = position({9: 1, 6: 14}, HOME_FREE)
    assert any((9, 3, False) in m.steps for m in pos.moves(6, 1))
    pos = position({25: 1, 6: 14}, HOME_FREE)
    assert all(m.steps[0] == (25, 19, False) for m in pos.moves(6, 6))
