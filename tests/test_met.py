"""Match equity tables and take points (R20, R21), checked against GNU Backgammon's numbers."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from bgfast import met
from bgfast._core import BgfastError

DATA = Path(__file__).parent / "data"


def _oracle_rows() -> list[dict[str, str]]:
    lines = (DATA / "formats" / "takepoint_gnubg_checks.tsv").read_text().splitlines()
    body = [line for line in lines if line and not line.startswith("#")]
    return list(csv.DictReader(body, delimiter="\t"))


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.parametrize("name", met.table_names())
def test_every_table_loads_with_its_notice(name: str) -> None:
    table = met.load(name)
    assert table.name == name
    assert table.max_away == (15 if name == "woolsey" else 25)
    assert len(table.pre) == table.max_away
    assert all(len(row) == table.max_away for row in table.pre)
    assert len(table.post) == table.max_away
    # The copyright and permission notice travels with the data.
    assert "Copyright (C)" in table.notice
    assert "notice and this notice are preserved" in table.notice
    assert "GNU Backgammon" in table.notice


def test_the_shipped_tables_are_the_test_copies() -> None:
    # The engine ships (in its data/met, for Rust, C and Python alike) the same files the
    # tests were written against, headers included.
    from bgfast import _core

    for name in met.table_names():
        found = _core.shipped_met(name)
        assert found is not None and found[0] == name
        copy = DATA / "met" / f"met_{name.replace('-', '_')}.csv"
        assert found[1] == copy.read_text(encoding="utf-8")
    assert _core.shipped_met("Kazaross_XG2") == _core.shipped_met("kazaross-xg2")
    assert _core.shipped_met("no-such-table") is None


@pytest.mark.parametrize("name", met.table_names())
def test_pre_crawford_entries_are_complementary(name: str) -> None:
    table = met.load(name)
    for a in range(1, table.max_away + 1):
        for b in range(1, table.max_away + 1):
            assert met.equity(a, b, name) + met.equity(b, a, name) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("name", met.table_names())
def test_post_crawford_lookup_is_complementary_and_ordered(name: str) -> None:
    table = met.load(name)
    for n in range(1, table.max_away + 1):
        trailer = table.equity(n, 1, post_crawford=True)
        assert trailer + table.equity(1, n, post_crawford=True) == pytest.approx(1.0)
        # A free drop makes 2-away post-Crawford better than the Crawford game (R21).
        if n == 2:
            assert trailer > table.equity(2, 1)


@pytest.mark.parametrize(
    ("table", "my_away", "opp_away", "post", "expected"),
    [
        # Values read from each CSV (transcribed from gnubg's met/*.xml).
        ("kazaross-xg2", 1, 1, False, 0.5),
        ("kazaross-xg2", 1, 2, False, 0.67736),  # Crawford game, leader 1-away
        ("kazaross-xg2", 2, 1, False, 0.32264),
        ("kazaross-xg2", 2, 3, False, 0.59947),
        ("kazaross-xg2", 3, 2, False, 0.40053),
        ("kazaross-xg2", 2, 1, True, 0.48803),  # post-Crawford trailer
        ("kazaross-xg2", 1, 2, True, 1 - 0.48803),
        ("kazaross-xg2", 25, 1, True, 0.00123),
        ("kazaross-xg2", 1, 25, False, 0.99905),
        ("rockwell-kazaross", 1, 2, False, 0.676888),
        ("rockwell-kazaross", 2, 3, False, 0.598994),
        ("rockwell-kazaross", 2, 1, True, 0.487677),
        ("woolsey", 1, 2, False, 0.7),
        ("woolsey", 2, 3, False, 0.6),
        ("woolsey", 2, 1, True, 0.485),
        # 0-away: the match is won.
        ("kazaross-xg2", 0, 5, False, 1.0),
        ("kazaross-xg2", 5, 0, False, 0.0),
        ("woolsey", 0, 1, True, 1.0),
    ],
)
def test_known_values(table: str, my_away: int, opp_away: int, post: bool, expected: float) -> None:
    assert met.equity(my_away, opp_away, table, post_crawford=post) == pytest.approx(
        expected, abs=1e-12
    )


def test_default_table_and_name_spellings() -> None:
    assert met.table_names()[0] == met.DEFAULT_TABLE == "kazaross-xg2"
    assert met.equity(2, 3) == met.equity(2, 3, "Kazaross_XG2") == met.equity(2, 3, "KAZAROSS XG2")
    assert met.load("woolsey") is met.load("Woolsey")


@pytest.mark.parametrize(
    "row", _oracle_rows(), ids=lambda r: f"{r['doubler_away']}v{r['taker_away']}"
)
def test_take_points_reproduce_gnubg(row: dict[str, str]) -> None:
    tp = met.take_point(int(row["doubler_away"]), int(row["taker_away"]))
    # gnubg prints the window's high end in percent with 2 decimals: taker TP = 1 - hi.
    hi = row["gnubg_window_hi"]
    half_ulp = 0.5 * 10.0 ** -(_decimals(hi) + 2)
    assert abs((1.0 - tp) - float(hi) / 100) <= half_ulp + 1e-12
    for column in ("take_point_from_gnubg", "take_point_csv"):
        printed = row[column]
        assert abs(tp - float(printed)) <= 0.5 * 10.0 ** -_decimals(printed) + 1e-12, column


def test_take_point_by_hand() -> None:
    # 4-away doubles 2-away (Kazaross-XG2): take & win -> 1.0; take & lose -> 2-away all
    # (0.5); pass -> 2-away vs 3-away = 0.59947. TP = (0.59947 - 0.5) / (1 - 0.5).
    assert met.take_point(4, 2) == pytest.approx((0.59947 - 0.5) / 0.5)
    # 2-away doubles 4-away: pass gives the doubler 1-away, the Crawford game, where the
    # 4-away taker has 1 - 0.81436; take & lose -> 0; take & win -> 2-away all.
    assert met.take_point(2, 4) == pytest.approx((1 - 0.81436) / 0.5)
    # Post-Crawford: the 4-away trailer doubles the 1-away leader. Pass -> leader 1 vs 3,
    # lose -> leader 1 vs 2 (both post-Crawford), win -> the leader wins the match.
    t = met.load()
    expected = ((1 - t.post[2]) - (1 - t.post[1])) / (1.0 - (1 - t.post[1]))
    assert met.take_point(4, 1) == pytest.approx(expected)
    # Cube 2 -> 4 at 5-away each: pass -> taker 5 vs 3; lose -> 5 vs 1 (the Crawford game);
    # win -> 1 vs 5 (the Crawford game).
    e = met.equity
    assert met.take_point(5, 5, cube=2) == pytest.approx((e(5, 3) - e(5, 1)) / (e(1, 5) - e(5, 1)))
    # A dead cube that wins the match either way: taker loses everything unless he wins.
    assert met.take_point(2, 2, cube=2) == pytest.approx(0.0)
    assert met.take_point(1, 1) == 0.0


def test_take_point_is_a_probability_everywhere() -> None:
    for name in met.table_names():
        t = met.load(name)
        for d in range(1, t.max_away + 1):
            for k in range(1, t.max_away + 1):
                for cube in (1, 2, 4, 8, 16, 32, 64):
                    tp = t.take_point(d, k, cube)
                    assert 0.0 <= tp <= 1.0 and not math.isnan(tp)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: met.equity(-1, 3), met.InvalidScoreError),
        (lambda: met.equity(3, 26), met.InvalidScoreError),
        (lambda: met.equity(16, 3, "woolsey"), met.InvalidScoreError),
        (lambda: met.equity(0, 0), met.InvalidScoreError),
        (lambda: met.equity(3, 4, post_crawford=True), met.InvalidScoreError),
        (lambda: met.equity(True, 4), met.InvalidScoreError),
        (lambda: met.equity(2.0, 4), met.InvalidScoreError),  # type: ignore[arg-type]
        (lambda: met.equity(2, 3, "snowie"), met.UnknownTableError),
        (lambda: met.load(""), met.UnknownTableError),
        (lambda: met.take_point(0, 3), met.InvalidScoreError),
        (lambda: met.take_point(3, 3, cube=3), met.InvalidCubeError),
        (lambda: met.take_point(3, 3, cube=0), met.InvalidCubeError),
        (lambda: met.take_point(3, 3, table="nope"), met.UnknownTableError),
    ],
)
def test_bad_input_raises_bgfast_errors(call: object, error: type[Exception]) -> None:
    assert callable(call)
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, BgfastError)
    assert isinstance(info.value, ValueError)
    assert str(info.value)


def test_docstring_examples_run() -> None:
    import doctest

    result = doctest.testmod(met)
    assert result.attempted > 0 and result.failed == 0
