"""Shared fixtures for the benchmarks: the wildbg corpora (see tests/data/NOTICE.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bgfast import Position

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def load_corpus(name: str) -> list[Position]:
    """The positions of one corpus file, one Position ID a line."""
    lines = (DATA / name).read_text().split()
    return [Position.from_id(line) for line in lines]


@pytest.fixture(scope="session")
def contact() -> list[Position]:
    """1,000 contact positions from real games."""
    return load_corpus("wildbg_contact.csv")


@pytest.fixture(scope="session")
def race() -> list[Position]:
    """1,000 race positions from real games."""
    return load_corpus("wildbg_race.csv")
