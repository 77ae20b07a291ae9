"""bgfast.Cube: value, owner, face (R17), who may double, max value, Crawford (R21)."""

from __future__ import annotations

import pytest

from bgfast.cube import Cube
from bgfast.errors_game import GameStateError, MatchOptionError


def test_r17_starts_centred_at_one_showing_64() -> None:
    cube = Cube()
    assert (cube.value, cube.owner, cube.centred, cube.face) == (1, None, True, 64)
    assert cube.who_may_double() == (0, 1)
    assert str(cube) == "cube 1 centred"  # the value, not the face


def test_r17_faces_are_the_values_above_one() -> None:
    for value in (2, 4, 8, 16, 32, 64, 128):
        assert Cube(value=value, owner=0).face == value


def test_r19_taken_cube_belongs_to_the_taker_who_alone_redoubles() -> None:
    cube = Cube().taken(1)
    assert (cube.value, cube.owner, cube.who_may_double()) == (2, 1, (1,))
    assert not cube.may_double(0)
    assert "R17" in str(cube.why_not_double(0))
    assert cube.taken(0).to_dict()["value"] == 4


def test_max_value_and_crawford() -> None:
    assert Cube(value=8, owner=0, max_value=8).who_may_double() == ()
    assert Cube(value=4, owner=0, max_value=8).who_may_double() == (0,)
    off = Cube(enabled=False)
    assert off.who_may_double() == () and "R21" in str(off.why_not_double(0))


def test_r22_automatic_double_keeps_it_centred() -> None:
    assert Cube().auto_doubled() == Cube(value=2)
    with pytest.raises(GameStateError):
        Cube(value=2, owner=0).auto_doubled()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"value": 3},
        {"value": 0},
        {"owner": 2},
        {"value": 16, "max_value": 8},
        {"max_value": 1 << 16},
        {"raccoons": True},
        {"value": True},
    ],
)
def test_invalid_cubes_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(MatchOptionError):
        Cube(**kwargs)  # type: ignore[arg-type]


def test_dict_round_trip() -> None:
    cube = Cube(value=4, owner=1, max_value=64, beavers=True, raccoons=True)
    assert Cube.from_dict(cube.to_dict()) == cube
    with pytest.raises(MatchOptionError):
        Cube.from_dict({"value": 2})
    with pytest.raises(GameStateError):
        cube.may_double(2)
