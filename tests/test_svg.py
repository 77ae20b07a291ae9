"""SVG pictures (R32 board orientation; pips, cube, dice shown)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from bgfast import BgfastError, Game, Position
from bgfast.errors_game import GameStateError
from bgfast.match import Match
from bgfast.svg import board_svg, game_svg, match_svg, position_svg

NS = "{http://www.w3.org/2000/svg}"


def _checkers(svg: str, side: str) -> list[tuple[float, float]]:
    root = ET.fromstring(svg)
    return [
        (float(c.get("cx", 0)), float(c.get("cy", 0)))
        for c in root.iter(f"{NS}circle")
        if c.get("class") == f"checker {side}"
    ]


def test_position_svg_is_valid_xml_with_all_checkers() -> None:
    svg = position_svg(Position())
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert len(_checkers(svg, "bottom")) == 15 and len(_checkers(svg, "top")) == 15
    assert "167 pips" in svg
    assert ">64<" in svg  # the centred cube shows 64 (R17)


def test_r32_home_board_bottom_right_or_left() -> None:
    right = position_svg(Position(), home="right")
    left = position_svg(Position(), home="left")

    # the bottom side's 6-point stack (5 checkers) sits right of centre, or left of it
    def six_point_x(svg: str) -> float:
        height = float(ET.fromstring(svg).get("height", 0))
        xs = [x for x, y in _checkers(svg, "bottom") if y > height / 2]  # the bottom row
        return max(set(xs), key=xs.count)

    width = float(ET.fromstring(right).get("width", 0))
    assert six_point_x(right) > width / 2 > six_point_x(left)
    with pytest.raises(GameStateError, match="R32"):
        position_svg(Position(), home="up")  # type: ignore[arg-type]


def test_game_svg_shows_dice_cube_and_stacks() -> None:
    game = Game(seed=1)
    game.roll((6, 1))
    game.play("13/7 8/7")
    game.double()
    game.take()
    game.roll((5, 5))
    svg = game_svg(game)
    assert svg == game._repr_svg_()
    ET.fromstring(svg)
    assert len(re.findall(r'class="die"', svg)) == 2
    cube = re.search(r'<g class="cube">.*?>(\d+)</text></g>', svg)
    assert cube is not None and cube.group(1) == "2"


def test_big_stacks_and_bar_and_off_are_drawn() -> None:
    rows = [[0] * 25, [0] * 25]
    rows[0][0] = 9  # nine on the 1-point, six off
    rows[1][24] = 4  # four on the bar, eleven off
    svg = board_svg(rows)
    assert ">9<" in svg and ">4<" in svg
    assert svg.count('class="off bottom"') == 6 and svg.count('class="off top"') == 11
    with pytest.raises(GameStateError):
        board_svg([[0] * 24, [0] * 25])


def test_r32_sides_swap_after_each_game_when_asked() -> None:
    match = Match(3, seed=1)
    assert "match to 3: 0-0" in match._repr_svg_()
    for _ in range(2):
        game = match.new_game()
        game.roll((6, 1))  # player 0 starts
        game.play("24/18 24/23")
        fixed = match_svg(match)
        swapped = match_svg(match, swap_sides=True)
        if len(match.games) == 1:
            assert fixed == swapped
        else:
            assert fixed != swapped
            assert "player 0 bottom" in swapped and "player 1 bottom" in fixed
        game.resign("single")
        game.accept()


def _dice_x(svg: str) -> list[float]:
    return [
        float(rect.get("x", 0))
        for g in ET.fromstring(svg).iter(f"{NS}g")
        if g.get("class") == "die"
        for rect in g.iter(f"{NS}rect")
    ]


def test_position_svg_is_public_and_its_caption_says_who_is_on_roll() -> None:
    pos = Position()
    assert pos.svg() == position_svg(pos) == pos._repr_svg_()  # type: ignore[attr-defined]
    assert "the bottom side (to move) is on roll" in pos.svg()
    with_dice = pos.svg(dice=(3, 1), home="left")
    assert "on roll with 3-1" in with_dice and len(_dice_x(with_dice)) == 2


@pytest.mark.parametrize("home", ["right", "left"])
@pytest.mark.parametrize("first", [(6, 1), (1, 6)])
def test_r32_dice_are_drawn_on_the_right_hand_board(home: str, first: tuple[int, int]) -> None:
    """With home="left" the dice were drawn on the left-hand (home) board."""
    game = Game(seed=1)
    game.roll(first)  # either player on roll: the dice in its half, on the right
    svg = game_svg(game, home=home)  # type: ignore[arg-type]
    width = float(ET.fromstring(svg).get("width", 0))
    xs = _dice_x(svg)
    assert len(xs) == 2 and min(xs) > width / 2, (home, xs)
    assert f"player {game.turn} to play" in svg
    pos_svg = position_svg(Position(), home=home, dice=(5, 2))  # type: ignore[arg-type]
    assert min(_dice_x(pos_svg)) > width / 2


def test_game_svg_caption_says_what_the_game_waits_for() -> None:
    game = Game(seed=1)
    game.roll((6, 1))
    game.play("13/7 8/7")
    assert "player 1 on roll" in game.svg()
    game.double()
    assert "player 1 offers a double to 2: player 0 to answer" in game.svg(home="left")
    game.drop()
    assert "player 1 won a single" in game_svg(game)


@pytest.mark.parametrize(
    "given", [{"cube_value": True}, {"cube_value": 3}, {"cube_value": 2.5}, {"dice": (True, 1)}]
)
def test_a_drawing_refuses_a_cube_or_dice_no_game_has_r17_r4(given: dict[str, object]) -> None:
    rows = Position().to_array().tolist()
    with pytest.raises(BgfastError):
        board_svg(rows, **given)  # type: ignore[arg-type]
    four = board_svg(rows, cube_value=np.int64(4), dice=(3, 1))  # type: ignore[arg-type]
    assert four == board_svg(rows, cube_value=4, dice=(3, 1))
