"""SVG pictures of positions, game states, games and matches, for notebooks
(``_repr_svg_``) and files.

The side at the bottom has its home board at the bottom right by default, or at the bottom
left (``home="left"``, R32); the dice are drawn on the right-hand board either way, in the
roller's half. A :class:`~bgfast.Position` is drawn with the side to move at the bottom
(``Position.svg()``); a :class:`~bgfast.GameState` or :class:`~bgfast.Game` with player 1 at
the bottom (as GNU Backgammon and XG do) unless ``bottom=0``. Pip counts, borne-off
checkers, the cube (its face: 64 for value 1, R17, placed by its owner or in the middle),
the dice and a caption saying who is on roll are shown.

This module draws values; it imports no game or match (they call it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from bgfast._core import Position, check_dice
from bgfast.errors import GameStateError, shown
from bgfast.state import GameState
from bgfast.vocab import Roll, check_cube_value, check_player

if TYPE_CHECKING:
    from bgfast.game import Game
    from bgfast.match import Match

__all__ = ["Home", "board_svg", "game_svg", "match_svg", "position_svg", "state_svg"]

Home = Literal["right", "left"]
"""Where the bottom side's home board is drawn (R32)."""

_W = 30  # point width
_H = 150  # point height
_R = 13  # checker radius
_BAR = 36
_TRAY = 44
_M = 20  # margin around the board
_SIDE = 48  # gutter for the cube on the side away from the home board
_BOARD_H = 2 * _H + 60
_WIDTH = 2 * _M + _SIDE + 12 * _W + _BAR + _TRAY
_HEIGHT = 2 * _M + _BOARD_H + 40

_COLORS = {"bottom": ("#f4efe2", "#444"), "top": ("#2b2b2b", "#000")}


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _point_x(point: int, home: Home) -> float:
    """Centre x of the bottom side's point 1..24."""
    # column 0..11 from the home-board side of the bottom row, then back along the top
    col = point - 1 if point <= 12 else 24 - point
    x_from_home = _M + _TRAY + col * _W + (_BAR if col >= 6 else 0) + _W / 2
    if home == "right":
        return _WIDTH - x_from_home
    return x_from_home


def board_svg(
    rows: Sequence[Sequence[int]],
    *,
    home: Home = "right",
    cube_value: int = 1,
    cube_owner: Literal["bottom", "top"] | None = None,
    cube_enabled: bool = True,
    dice: tuple[int, int] | None = None,
    dice_side: Literal["bottom", "top"] = "bottom",
    names: tuple[str, str] = ("", ""),
    caption: str = "",
) -> str:
    """An SVG board from two rows of 25 counts: ``rows[0]`` the bottom side, ``rows[1]`` the
    top side, each on its own points 1..24 (indices 0..23) and its bar (index 24).

    ``names`` label (bottom, top); their pip counts and borne-off checkers are shown.
    """
    if home not in ("right", "left"):
        raise GameStateError(f"home is 'right' or 'left' (R32), not {shown(home)}")
    if len(rows) != 2 or any(len(r) != 25 for r in rows):
        raise GameStateError("a board is two rows of 25 counts")
    cube_value = check_cube_value(cube_value, "cube_value", error=GameStateError)
    dice = None if dice is None else check_dice(dice)
    bottom = [int(n) for n in rows[0]]
    top = [int(n) for n in rows[1]]
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" '
        f'width="{_WIDTH}" height="{_HEIGHT}" font-family="sans-serif">',
        f'<rect x="0" y="0" width="{_WIDTH}" height="{_HEIGHT}" fill="#fff"/>',
    ]
    board_x = _M + _SIDE if home == "right" else _M
    out.append(
        f'<rect x="{board_x}" y="{_M}" width="{_WIDTH - 2 * _M - _SIDE}" '
        f'height="{_BOARD_H}" fill="#c9a46b" stroke="#5a3b1a" stroke-width="3"/>'
    )
    y_top, y_bot = _M, _M + _BOARD_H
    # points: triangles, bottom side's numbering written outside the board
    for p in range(1, 25):
        x = _point_x(p, home)
        fill = "#8b3a2e" if p % 2 else "#e8d9b5"
        if p <= 12:
            tri = f"{x - _W / 2},{y_bot} {x + _W / 2},{y_bot} {x},{y_bot - _H}"
            ny = y_bot + 14
        else:
            tri = f"{x - _W / 2},{y_top} {x + _W / 2},{y_top} {x},{y_top + _H}"
            ny = y_top - 6
        out.append(f'<polygon class="point" points="{tri}" fill="{fill}"/>')
        out.append(f'<text x="{x}" y="{ny}" font-size="10" text-anchor="middle">{p}</text>')
    # bar and bear-off tray
    x7 = _point_x(7, home)
    bar_x = x7 + _W / 2 if home == "right" else x7 - _W / 2 - _BAR
    out.append(f'<rect x="{bar_x}" y="{y_top}" width="{_BAR}" height="{_BOARD_H}" fill="#7a5230"/>')
    tray_x = _WIDTH - _M - _TRAY if home == "right" else _M
    out.append(
        f'<rect x="{tray_x}" y="{y_top}" width="{_TRAY}" height="{_BOARD_H}" fill="#a0784a"/>'
    )

    def checker(cx: float, cy: float, side: str, label: str = "") -> None:
        fill, stroke = _COLORS[side]
        out.append(
            f'<circle class="checker {side}" cx="{cx}" cy="{cy}" r="{_R}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )
        if label:
            color = "#000" if side == "bottom" else "#fff"
            out.append(
                f'<text x="{cx}" y="{cy + 4}" font-size="11" text-anchor="middle" '
                f'fill="{color}">{label}</text>'
            )

    def stack(point: int, n: int, side: str) -> None:
        x = _point_x(point, home)
        for i in range(min(n, 5)):
            label = str(n) if i == 4 and n > 5 else ""
            if point <= 12:
                checker(x, y_bot - _R - 1 - i * 2 * _R, side, label)
            else:
                checker(x, y_top + _R + 1 + i * 2 * _R, side, label)

    for i in range(24):
        if bottom[i]:
            stack(i + 1, bottom[i], "bottom")
        if top[i]:
            stack(24 - i, top[i], "top")
    mid = y_top + _BOARD_H / 2
    cx_bar = bar_x + _BAR / 2
    for side, n, sign in (("bottom", bottom[24], 1), ("top", top[24], -1)):
        for i in range(min(n, 3)):
            label = str(n) if i == 2 and n > 3 else ""
            checker(cx_bar, mid + sign * (_R + 16 + i * 2 * _R), side, label)
    # borne-off checkers as thin slabs in the tray
    for side, n in (("bottom", 15 - sum(bottom)), ("top", 15 - sum(top))):
        fill, stroke = _COLORS[side]
        for i in range(n):
            y = (y_bot - 6 - i * 7) if side == "bottom" else (y_top + 2 + i * 7)
            out.append(
                f'<rect class="off {side}" x="{tray_x + 6}" y="{y}" width="{_TRAY - 12}" '
                f'height="5" fill="{fill}" stroke="{stroke}"/>'
            )
    # cube: face 64 for value 1 (R17); centred in the middle, else on its owner's side
    if cube_enabled:
        face = 64 if cube_value == 1 else cube_value
        gutter = _M if home == "right" else _WIDTH - _M - _SIDE
        cube_x = gutter + (_SIDE - 36) / 2
        cube_y = {None: mid - 18, "top": y_top + 4, "bottom": y_bot - 40}[cube_owner]
        out.append(
            f'<g class="cube"><rect x="{cube_x}" y="{cube_y}" width="36" height="36" '
            f'rx="5" fill="#fff" stroke="#000" stroke-width="2"/>'
            f'<text x="{cube_x + 18}" y="{cube_y + 24}" font-size="16" '
            f'text-anchor="middle" font-weight="bold">{face}</text></g>'
        )
    # dice on the right-hand board (whichever side the home board is on), in the roller's
    # half: the bottom half for the bottom side, the top half for the top side
    if dice is not None:
        right_board = range(1, 7) if home == "right" else range(7, 13)
        left_edge = min(_point_x(p, home) for p in right_board) - _W / 2
        dx = left_edge + (6 * _W - 70) / 2  # two dice 30 wide, 10 apart
        dy = mid + 12 if dice_side == "bottom" else mid - 42
        for k, d in enumerate(dice):
            x0 = dx + k * 40
            out.append(
                f'<g class="die"><rect x="{x0}" y="{dy - 10}" width="30" height="30" '
                f'rx="5" fill="#fff" stroke="#000"/>'
                f'<text x="{x0 + 15}" y="{dy + 11}" font-size="18" '
                f'text-anchor="middle">{int(d)}</text></g>'
            )
    # pip counts and names
    pips_b = sum((i + 1) * bottom[i] for i in range(24)) + 25 * bottom[24]
    pips_t = sum((i + 1) * top[i] for i in range(24)) + 25 * top[24]
    yb = _HEIGHT - 10
    out.append(
        f'<text class="pips" x="{_M}" y="{yb}" font-size="13">'
        f"{_esc(names[0])} bottom: {pips_b} pips, {15 - sum(bottom)} off"
        f" | {_esc(names[1])} top: {pips_t} pips, {15 - sum(top)} off</text>"
    )
    if caption:
        out.append(f'<text x="{_M}" y="{yb - 16}" font-size="12">{_esc(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def position_svg(
    position: Position,
    *,
    home: Home = "right",
    dice: Roll | None = None,
) -> str:
    """An SVG picture of ``position`` with the side to move at the bottom (it is on roll,
    which the caption says), and ``dice`` (one pair, checked as ``Position.moves`` checks
    it) if given. ``Position.svg()`` and ``Position._repr_svg_`` draw this."""
    if not isinstance(position, Position):
        raise TypeError(f"position must be a bgfast Position, not {type(position).__name__}")
    roll = None if dice is None else check_dice(dice)
    a = position.to_array()
    caption = "the bottom side (to move) is on roll"
    if roll is not None:
        caption += f" with {roll[0]}-{roll[1]}"
    return board_svg(
        [list(a[0]), list(a[1])],
        home=home,
        dice=roll,
        names=("to move", "opponent"),
        caption=caption,
    )


def state_svg(
    state: GameState,
    *,
    home: Home = "right",
    bottom: int = 1,
    note: str = "",
    staged: Position | None = None,
) -> str:
    """An SVG picture of a game state, player ``bottom`` at the bottom (player 1 by default,
    as in GNU Backgammon and XG); the caption says what the game waits for (who is on roll,
    a pending double or resignation, the winner), after ``note``. ``staged`` is the position
    after a move not yet committed (R29, the opponent to move), drawn instead of the
    state's board."""
    if not isinstance(state, GameState):
        raise TypeError(f"state must be a bgfast GameState, not {type(state).__name__}")
    bottom = check_player(bottom, "bottom player")
    board = state.board()
    if staged is not None:  # show the staged move (R29)
        a = staged.to_array()
        board = a if state.turn == 1 else a[::-1]
    owner = state.cube.owner
    cube_owner: Literal["bottom", "top"] | None = (
        None if owner is None else ("bottom" if owner == bottom else "top")
    )
    dice_side: Literal["bottom", "top"] = "bottom" if state.turn == bottom else "top"
    parts = [note] if note else []
    parts.append(state.summary())
    return board_svg(
        [list(board[bottom]), list(board[1 - bottom])],
        home=home,
        cube_value=state.cube.value,
        cube_owner=cube_owner,
        cube_enabled=state.cube.enabled,
        dice=state.dice,
        dice_side=dice_side,
        names=(f"player {bottom}", f"player {1 - bottom}"),
        caption=" | ".join(parts),
    )


def game_svg(game: Game, *, home: Home = "right", bottom: int = 1, note: str = "") -> str:
    """An SVG picture of a game's current state (:func:`state_svg`), with its staged move
    (R29); ``note`` is added to the caption."""
    return state_svg(game.state, home=home, bottom=bottom, note=note, staged=game.staged_position)


def match_svg(match: Match, *, home: Home = "right", swap_sides: bool = False) -> str:
    """An SVG picture of a match's current game (an empty board before the first). With
    ``swap_sides`` the players change sides after each game (R32): player 1 is at the
    bottom in the first game, player 0 in the second, and so on."""
    game = match.game
    index = max(len(match.games) - 1, 0)
    bottom = 1 - index % 2 if swap_sides else 1
    s = match.score
    # a game's caption shows the score before it; after it, show the match score too
    note = f"match to {match.length}: {s[0]}-{s[1]}" if game is None or game.is_over else ""
    if game is None:
        state = GameState.start(rules=match.rules, match_length=match.length)
        return state_svg(state, home=home, bottom=bottom, note=note)
    return game_svg(game, home=home, bottom=bottom, note=note)
