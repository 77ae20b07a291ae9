"""Rollouts: reproducibility, closed-form statistics, exact sums, truncation, exact bear-offs,
variance reduction, partial runs, evaluators, the CLI."""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest

import bgfast
from bgfast import Position

from boards import position

#: A contact position from the wildbg corpus (tests/data/wildbg_contact.csv).
CONTACT = "4PPgAQjg2+ABMA"


@functools.cache
def one_checker_win(p: int, q: int) -> float:
    """Exact chance that the side on roll wins a race of one checker each, ``p`` and ``q``
    pips away (a lone checker always uses its whole roll: doubles four times, R5, R14)."""
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            pips = 4 * d1 if d1 == d2 else d1 + d2
            total += 1.0 if pips >= p else 1.0 - one_checker_win(q, p - pips)
    return total / 36


def test_same_seed_same_numbers_on_one_and_two_threads() -> None:
    for policy in ("random", "pubeval", "wildbg"):
        one = bgfast.rollout(games=400, policy=policy, seed=11, threads=1)
        two = bgfast.rollout(games=400, policy=policy, seed=11, threads=2)
        assert one.counts == two.counts
        assert one.equity == two.equity and one.stderr == two.stderr
    other = bgfast.rollout(games=400, policy="random", seed=12, threads=1)
    assert other.counts != one.counts


def test_every_mode_gives_the_same_bits_on_any_thread_count() -> None:
    kwargs = dict(games=60, seed=5, truncate=11, variance_reduction=True, cubeful=True)
    one = bgfast.rollout(CONTACT, threads=1, **kwargs)  # type: ignore[arg-type]
    two = bgfast.rollout(CONTACT, threads=2, **kwargs)  # type: ignore[arg-type]
    assert one.to_dict()["statistics"] == two.to_dict()["statistics"]
    match = dict(games=40, seed=2, cubeful=True, match_length=7, score=(2, 4), truncate=20)
    a = bgfast.rollout(CONTACT, threads=1, **match)  # type: ignore[arg-type]
    b = bgfast.rollout(CONTACT, threads=2, **match)  # type: ignore[arg-type]
    assert a.mwc == b.mwc and a.stderr == b.stderr


def test_won_whatever_the_dice_r15_r16() -> None:
    # Our last checker is on our 1-point: every roll bears it off. The opponent has borne
    # off none and has checkers in our home board: a backgammon every time (R16).
    pos = position({1: 1}, {19: 3, 13: 12})
    r = bgfast.rollout(pos, games=360, policy="random", seed=1)
    assert r.win == 1.0 and r.win_gammon == 1.0 and r.win_backgammon == 1.0
    assert r.equity == 3.0 and r.stderr["equity"] == 0.0 and r.lose == 0.0


def test_lost_whatever_the_dice_r16() -> None:
    # The opponent's last checker is on its 1-point; we cannot bear off 15 in one roll and
    # never reach its home board from our 13-point: a plain gammon lost every time.
    pos = position({13: 15}, {1: 1})
    r = bgfast.rollout(pos, games=360, policy="pubeval", seed=2)
    assert r.lose == 1.0 and r.lose_gammon == 1.0 and r.lose_backgammon == 0.0
    assert r.equity == -2.0 and r.win == 0.0


@pytest.mark.parametrize(("p", "q"), [(6, 8), (11, 4), (20, 4)])
def test_one_checker_race_matches_the_closed_form(p: int, q: int) -> None:
    pos = position({p: 1}, {q: 1})
    assert pos.is_race
    r = bgfast.rollout(pos, games=36_000, policy="random", seed=5, bearoff=None)
    exact = one_checker_win(p, q)
    assert abs(r.win - exact) < 4 * r.stderr["win"] + 1e-12, (r.win, exact)
    lo, hi = r.ci95["win"]
    assert lo - 2 * r.stderr["win"] <= exact <= hi + 2 * r.stderr["win"]
    assert r.win_gammon == 0.0 and r.lose_gammon == 0.0  # 14 checkers already off
    assert r.equity == pytest.approx(2 * r.win - 1)


def test_quasi_random_first_roll_gives_each_roll_its_share() -> None:
    # A game decided by the first roll alone: the opponent bears off next turn, so we win
    # exactly when our roll bears off both checkers from our 6- and 5-points: 6-5 and the
    # doubles 3-3 to 6-6 (6 of the 36 rolls; pubeval takes both off with 6-5) ...
    pos = position({6: 1, 5: 1}, {1: 1})
    r = bgfast.rollout(pos, games=36 * 50, policy="pubeval", seed=9, bearoff=None)
    assert r.win == 6 / 36  # ... exactly, because every roll gets its exact share
    assert r.quasi_random and r.stratified
    loose = bgfast.rollout(
        pos, games=36 * 50, policy="pubeval", seed=9, bearoff=None, quasi_random=False
    )
    assert loose.win != r.win and not loose.quasi_random
    with pytest.warns(DeprecationWarning, match="quasi_random"):
        old = bgfast.rollout(pos, games=36, policy="pubeval", seed=9, bearoff=None, stratify=False)
    assert not old.quasi_random


def test_statistics_from_counts() -> None:
    r = bgfast.rollout(games=720, policy="random", seed=3, threads=1, bearoff=None)
    ws, wg, wb, ls, lg, lb, tr = r.counts
    n = r.games
    assert n == 720 and tr == 0 and all(isinstance(c, int) for c in r.counts)
    assert r.win == (ws + wg + wb) / n and r.lose_backgammon == lb / n
    assert r.equity == pytest.approx((ws - ls + 2 * (wg - lg) + 3 * (wb - lb)) / n)
    p = r.win_gammon
    assert r.stderr["win_gammon"] == pytest.approx(math.sqrt(p * (1 - p) / (n - 1)))
    lo, hi = r.ci95["equity"]
    assert lo < r.equity < hi
    assert r.games_per_second > 0 and not r.partial
    assert r.ends == {"finished": 720, "passed": 0, "truncated": 0, "bearoff": 0, "capped": 0}


def test_exact_bearoffs_end_games_with_their_value() -> None:
    r = bgfast.rollout(games=720, policy="random", seed=3)
    assert r.ends["bearoff"] > 0 and r.ends["bearoff"] + r.ends["finished"] == 720
    # Chances counted from an exact bear-off are fractions of a game.
    assert any(isinstance(c, float) for c in r.counts[:6])
    assert r.counts[0] + r.counts[1] + r.counts[2] == pytest.approx(r.win * 720)


def test_bearoff_in_the_database_is_exact_r15() -> None:
    # Both sides within the two-sided database: every game ends at once with the exact
    # cubeless chance (no gammon is possible with 9 or more checkers off).
    pos = position({1: 2, 4: 1, 6: 2}, {2: 3, 5: 1})
    exact = bgfast.bearoff.win_probability(pos)
    r = bgfast.rollout(pos, games=100, policy="pubeval", seed=1)
    assert r.win == exact and r.stderr["win"] == 0.0
    assert r.equity == 2 * exact - 1 and r.ends["bearoff"] == 100
    cube = bgfast.rollout_cube(pos, games=50, seed=1)
    table = bgfast.bearoff.two_sided()
    assert cube.no_double == table.cubeful_equity(pos, "centred", may_double=False)
    assert cube.double_take == 2 * table.cubeful_equity(pos, "unavailable", may_double=False)
    assert cube.double_pass == 1.0


def test_bearoff_in_the_database_counts_the_cube_limit_r17() -> None:
    # The database's value of a cube one or two doubles from the game's limit, not that of
    # a cube that can always be turned again.
    pos = position({1: 2, 4: 1, 6: 2}, {2: 3, 5: 1})
    table = bgfast.bearoff.two_sided()
    cubeless = 2 * bgfast.bearoff.win_probability(pos) - 1
    cube = bgfast.rollout_cube(pos, games=50, seed=1, max_cube=2)
    assert cube.no_double == table.cubeful_equity(pos, "centred", False, doubles_left=1)
    assert cube.double_take == 2 * cubeless  # the taker's cube is dead
    assert cube.no_double != table.cubeful_equity(pos, "centred", False)
    owned = bgfast.rollout(pos, games=50, seed=1, cubeful=True, cube=(2, "mover"), max_cube=8)
    assert owned.cubeful_equity == table.cubeful_equity(pos, "owned", doubles_left=2)
    dead = bgfast.rollout(pos, games=50, seed=1, cubeful=True, cube=(8, "mover"), max_cube=8)
    assert dead.cubeful_equity == cubeless
    # The default limit is a limit too: a cube of 16,384 has one double left (a helper's
    # adversarial pass found it valued as a cube that can always be turned again).
    high = bgfast.rollout(pos, games=50, seed=1, cubeful=True, cube=(16384, "mover"))
    assert high.cubeful_equity == table.cubeful_equity(pos, "owned", doubles_left=1)


def test_truncating_at_zero_plies_is_the_evaluator_exactly() -> None:
    net = bgfast.Net.wildbg()
    pos = Position.from_id(CONTACT)
    r = bgfast.rollout(pos, games=300, seed=4, truncate=0)
    assert r.equity == net.equity(pos) and r.stderr["equity"] == 0.0
    assert r.win == float(net.evaluate(pos)[0])
    assert r.ends["truncated"] == 300 and r.truncated == 300


def test_truncated_games_are_scored_by_the_evaluator_never_as_zero() -> None:
    r = bgfast.rollout(CONTACT, games=200, seed=1, truncate=6)
    assert r.truncated == 200 and r.win != 0.0 and r.equity != 0.0
    # The mean of six plies' worth of evaluations, near the evaluator's own value.
    assert abs(r.equity - bgfast.Net.wildbg().equity(Position.from_id(CONTACT))) < 0.3
    pubeval = bgfast.rollout(
        CONTACT, games=50, seed=1, truncate=6, policy="pubeval", evaluator="wildbg"
    )
    assert pubeval.truncated == 50 and pubeval.settings["evaluator"] == "wildbg"


def test_variance_reduction_keeps_the_mean_and_cuts_the_error() -> None:
    plain = bgfast.rollout(CONTACT, games=1296, seed=7, bearoff=None)
    vr = bgfast.rollout(CONTACT, games=1296, seed=7, variance_reduction=True, bearoff=None)
    se, se_vr = plain.stderr["equity"], vr.stderr["equity"]
    assert se_vr < 0.8 * se
    assert abs(plain.equity - vr.equity) < 3 * math.hypot(se, se_vr)


def test_variance_reduction_with_the_larger_nets_cuts_the_error_to_under_0_6() -> None:
    """With wildbg's larger nets, whose 0-ply values agree closely with their own 1-ply
    averages, the luck they measure is most of a game's spread: variance reduction cuts the
    standard error to about 0.2x on contact positions of the corpus (BENCHMARKS.md), here
    to under 0.6x on one with short games, and leaves the mean where it was."""
    position = "c9sNIACfNwAAHg"
    kwargs = dict(games=648, seed=11, policy="wildbg-large", threads=2)
    plain = bgfast.rollout(position, **kwargs)  # type: ignore[arg-type]
    vr = bgfast.rollout(position, variance_reduction=True, **kwargs)  # type: ignore[arg-type]
    se, se_vr = plain.stderr["equity"], vr.stderr["equity"]
    assert se_vr < 0.6 * se
    # The same dice: the games are the same and the difference is the mean luck.
    assert abs(plain.equity - vr.equity) < 3 * se


def test_double_match_point_match_chances_are_the_wins() -> None:
    # 6-6 in a 7-point match: any win wins the match; the cube is dead.
    for cubeful in (False, True):
        r = bgfast.rollout(
            CONTACT,
            games=300,
            seed=2,
            match_length=7,
            score=(6, 6),
            cubeful=cubeful,
            truncate=30,
        )
        assert r.mwc == r.win and r.stderr["mwc"] == r.stderr["win"]
        assert r.emg == pytest.approx(2 * r.win - 1)


def test_ctrl_c_returns_the_finished_games_marked_partial() -> None:
    calls = []

    def interrupt(done: int, total: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt

    r = bgfast.rollout(games=100_000, policy="random", seed=4, threads=1, progress=interrupt)
    assert r.partial and 0 < r.games == calls[0] < 100_000
    # What finished is a prefix of the game order: the same as asking for that many games.
    assert r.counts == bgfast.rollout(games=r.games, policy="random", seed=4).counts


def pip_evaluator(features: np.ndarray) -> np.ndarray:
    """A tiny hand-made evaluator on tesauro198 features: prefer borne-off checkers and
    opponent checkers on the bar, avoid blots."""
    off, opp_bar = features[:, 97], features[:, 194]
    blots = features[:, 0:96:4].sum(axis=1) - features[:, 1:96:4].sum(axis=1)
    return 3 * off + opp_bar - 0.1 * blots


def test_evaluator_batches_do_not_change_the_result() -> None:
    calls = []

    def evaluator(features: np.ndarray) -> np.ndarray:
        calls.append(len(features))
        return pip_evaluator(features)

    a = bgfast.rollout(games=150, policy=evaluator, seed=8, batch=150)
    b = bgfast.rollout(games=150, policy=pip_evaluator, seed=8, batch=17)
    assert a.games == 150 and a.counts == b.counts
    # One call per ply for the whole batch, not one per position.
    assert len(calls) < 2000 and max(calls) > 150


def test_evaluator_rollouts_have_every_mode_and_any_batch_size() -> None:
    # A Python evaluator chooses the plays; the net takes the cube decisions, scores the
    # truncated games and measures the luck; the batch size changes nothing.
    common = dict(
        games=30,
        seed=3,
        truncate=12,
        variance_reduction=True,
        cubeful=True,
        evaluator=bgfast.Net.wildbg(),
    )
    a = bgfast.rollout(CONTACT, policy=pip_evaluator, batch=30, **common)  # type: ignore[arg-type]
    b = bgfast.rollout(CONTACT, policy=pip_evaluator, batch=7, **common)  # type: ignore[arg-type]
    assert a.to_dict()["statistics"] == b.to_dict()["statistics"]
    assert a.cubeful_equity is not None and a.truncated == b.truncated


def test_evaluator_with_pubeval_features() -> None:
    r = bgfast.rollout(games=40, policy=lambda x: x[:, 121], scheme="pubeval", seed=1)
    assert r.games == 40


def test_bad_arguments_raise_bgfast_errors() -> None:
    with pytest.raises(bgfast.BgfastError, match="policy"):
        bgfast.rollout(games=10, policy="gnubg")
    with pytest.raises(bgfast.BgfastError, match="games"):
        bgfast.rollout(games=0)
    with pytest.raises(bgfast.BgfastError, match="scores"):
        bgfast.rollout(games=10, policy=lambda x: np.zeros(3))
    with pytest.raises(bgfast.InvalidPositionError):
        bgfast.rollout("not an id", games=10)
    with pytest.raises(bgfast.BgfastError, match="truncate"):
        bgfast.rollout(games=10, truncate=-1)
    with pytest.raises(bgfast.BgfastError, match="cubeful=True needs a net"):
        bgfast.rollout(games=10, policy=pip_evaluator, cubeful=True)
    with pytest.raises(bgfast.BgfastError, match="needs a net"):
        bgfast.rollout(games=10, policy="pubeval", variance_reduction=True)
    with pytest.raises(bgfast.MatchOptionError, match="R20"):
        bgfast.rollout(games=10, match_length=7, score=(7, 2))
    with pytest.raises(bgfast.MatchOptionError, match="money"):
        bgfast.rollout(games=10, match_length=7, jacoby=True)
    with pytest.raises(bgfast.MatchOptionError, match="R21"):
        bgfast.rollout(games=10, match_length=7, score=(1, 2), crawford=True)
    with pytest.raises(bgfast.BgfastError, match="R17"):
        bgfast.rollout(games=10, cube=(3, "centred"))
    with pytest.raises(bgfast.BgfastError, match="bearoff"):
        bgfast.rollout(games=10, bearoff="approximate")
    with pytest.raises(bgfast.BgfastError, match="cube_life"):
        bgfast.rollout(games=10, cubeful=True, cube_life=1.5)


def test_result_reports_a_drawn_seed() -> None:
    r = bgfast.rollout(games=36, policy="random", threads=1)
    again = bgfast.rollout(games=36, policy="random", threads=1, seed=r.seed)
    assert again.counts == r.counts


def test_cli_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    assert main(["rollout", "4HPwATDgc/ABMA", "--games", "720", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 720 and data["policy"] == "wildbg" and not data["partial"]
    expected = bgfast.rollout(Position(), games=720, seed=1)
    assert data["statistics"]["equity"]["value"] == expected.equity
    from bgfast._cli_rollout import main as cli_rollout

    assert cli_rollout(["--games", "360", "--policy", "random", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "equity" in out and "win gammon" in out and "\r" not in out  # no bar when piped
    assert "numbers for the side to move" in out


def test_cli_cubeful_match_truncated_vr(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    args = [
        "rollout",
        CONTACT,
        "--games",
        "40",
        "--seed",
        "3",
        "--cubeful",
        "--match",
        "7",
        "--score",
        "3,4",
        "--truncate",
        "10",
        "--vr",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "cubeful, 7-point match at 3-4" in out and "MWC" in out and "EMG" in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = bgfast.rollout(
        CONTACT,
        games=40,
        seed=3,
        cubeful=True,
        match_length=7,
        score=(3, 4),
        truncate=10,
        variance_reduction=True,
    )
    assert data["statistics"]["mwc"]["value"] == expected.mwc


def test_cli_moves_and_cube(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    assert main(["rollout", "--moves", "31", "--top", "3", "--games", "72", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "candidate plays ranked by equity" in out and out.count("/") >= 3
    assert main(["rollout", CONTACT, "--cube", "--games", "36", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["action"] in ("no double", "double, take", "double, pass", "too good to double")
    assert main(["rollout", "--top", "3"]) == 2
    assert "--moves" in capsys.readouterr().err


@pytest.mark.slow
def test_sigint_stops_the_cli_with_a_partial_table() -> None:
    import signal
    import subprocess
    import sys
    import time

    # The command as `bgfast rollout ...` runs it, saying when bgfast is imported: a Ctrl-C
    # during the import (slow on a busy host) is Python's own traceback, not this test's.
    script = (
        "import sys; from bgfast.cli import main; print('imported', flush=True);"
        " sys.exit(main(['rollout', '--games', '100000000', '--seed', '1']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "imported\n"
    time.sleep(1.0)  # let it start playing; no timing is asserted
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "PARTIAL" in out and "equity" in out


def test_one_game_has_no_stderr_and_json_stays_valid() -> None:
    r = bgfast.rollout(games=1, policy="random", seed=1)
    assert r.games == 1 and math.isnan(r.stderr["equity"])
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["statistics"]["equity"]["stderr"] is None


def test_a_finished_position_is_its_result_every_game_r15() -> None:
    # The opponent has borne off all 15; we still have a checker on the bar: backgammon.
    over = position({25: 1, 6: 14}, {})
    r = bgfast.rollout(over, games=50, policy="random", seed=1)
    assert r.lose == 1.0 and r.lose_backgammon == 1.0 and r.equity == -3.0


def test_race_policy_bears_off_perfectly() -> None:
    # Decided by our first roll (the opponent bears off next): only the bear-off-perfect
    # play of 6-5 takes both checkers off, so the race policy wins exactly 6 rolls of 36.
    pos = position({6: 1, 5: 1}, {1: 1})
    r = bgfast.rollout(pos, games=36 * 10, policy="race", seed=9, bearoff=None)
    assert r.win == 6 / 36
    # From the start it is pubeval until the bear-off, and reproducible across threads.
    one = bgfast.rollout(games=300, policy="race", seed=3, threads=1)
    assert one.counts == bgfast.rollout(games=300, policy="race", seed=3, threads=2).counts


def test_cli_takes_the_stakes_of_an_xgid(capsys: pytest.CaptureFixture[str]) -> None:
    from bgfast.cli import main

    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:4:0:7:10"
    assert main(["rollout", xgid, "--games", "60", "--seed", "2", "--cubeful", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    state = bgfast.codec.state_from_id(xgid)
    assert state is not None
    stakes = bgfast.cubeful.Stakes.of_state(state)
    assert data["settings"]["match_length"] == 7 and data["settings"]["cube"] == [2, "mover"]
    expected = bgfast.rollout(state.position, games=60, seed=2, cubeful=True, **stakes.arguments())
    assert data["statistics"]["mwc"]["value"] == expected.mwc
    assert main(["rollout", xgid, "--games", "10", "--match", "7"]) == 2
    assert "holds the cube and the score already" in capsys.readouterr().err


def test_cli_rolls_out_a_match_without_the_crawford_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bgfast.cli import main

    args = ["rollout", CONTACT, "--games", "30", "--seed", "4", "--cubeful", "--match", "5"]
    args += ["--score", "0,4", "--no-crawford-rule", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["settings"]["crawford_rule"] is False and data["settings"]["crawford"] is False
    expected = bgfast.rollout(
        CONTACT,
        games=30,
        seed=4,
        cubeful=True,
        match_length=5,
        score=(0, 4),
        crawford_rule=False,
    )
    assert data["statistics"]["mwc"]["value"] == expected.mwc
    # An ID's stakes take the rule too; money play has none.
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:4:0:7:10"
    assert main(["rollout", xgid, "--games", "10", "--no-crawford-rule", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["crawford_rule"] is False
    assert main(["rollout", CONTACT, "--games", "10", "--no-crawford-rule"]) == 2
    assert "crawford_rule is a match setting" in capsys.readouterr().err


def test_gnubg_cube_life_by_position() -> None:
    # A race of 52 against 56 pips: GNU Backgammon's cube life there is 0.55 + 52/800.
    race = "t9sFAQBv20UAAA"
    fixed = bgfast.rollout(race, games=200, seed=1, cubeful=True, truncate=2)
    by_position = bgfast.rollout(
        race, games=200, seed=1, cubeful=True, truncate=2, cube_life="gnubg"
    )
    assert by_position.settings["cube_life"] == "gnubg"
    assert by_position.equity == fixed.equity  # the same games and chances ...
    assert by_position.cubeful_equity != fixed.cubeful_equity  # ... valued with another cube
    with pytest.raises(bgfast.BgfastError, match="cube_life"):
        bgfast.cubeful.decide([0.5, 0.1, 0.0, 0.1, 0.0], cube_life="gnubg")  # type: ignore[arg-type]


def test_the_table_names_the_cube_and_says_when_bear_offs_are_played_out() -> None:
    owned = bgfast.rollout(bgfast.Position(), games=8, seed=1, cubeful=True, cube=(2, "mover"))
    assert owned.settings["stakes"] == "money, cube 2 the mover's"
    assert "cubeful, money, cube 2 the mover's, exact bear-offs;" in owned.table()
    # The two-sided database holds money values only: cubeful match games play on.
    race = bgfast.Position.from_id("dwcAANwdAAAAAA")
    match = bgfast.rollout(race, games=8, seed=1, cubeful=True, match_length=7, score=(3, 4))
    assert match.ends["bearoff"] == 0 and match.settings["bearoff"] == "played out"
    assert "bear-offs played out (no exact cubeful match values)" in match.table()
    cubeless = bgfast.rollout(race, games=8, seed=1, match_length=7, score=(3, 4))
    assert cubeless.ends["bearoff"] == 8 and "exact bear-offs" in cubeless.table()
