"""The rule book, RULES.md: copied into the repository with its source notice, linked from
the README, the docs and the errors, and every rule id R1-R32 cited by at least one test."""

from __future__ import annotations

import re
from pathlib import Path

import bgfast
from bgfast import errors

ROOT = Path(__file__).parent.parent
RULE_BOOK = ROOT / "RULES.md"
RULE_ID = re.compile(r"\bR([1-9][0-9]?)\b")


def _rule_ids() -> list[int]:
    """The ids the rule book defines, in order (``- **R9 Higher die.**``)."""
    return [int(n) for n in re.findall(r"^- \*\*R(\d+) ", RULE_BOOK.read_text(), re.MULTILINE)]


def test_the_rule_book_is_in_the_repository_with_its_source() -> None:
    text = RULE_BOOK.read_text(encoding="utf-8")
    assert text.startswith("> **Source.**"), "the source notice comes first"
    assert "seeds" in text and "Catalan" in text and "Norwegian" in text
    assert _rule_ids() == list(range(1, 33))


def test_every_rule_id_is_cited_by_a_test() -> None:
    cited: dict[int, list[str]] = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name == Path(__file__).name:
            continue  # this file names every id; it cites none
        for n in RULE_ID.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(int(n), []).append(path.name)
    missing = [f"R{n}" for n in _rule_ids() if n not in cited]
    assert not missing, f"rule ids no test cites: {missing}"


def test_the_readme_the_docs_and_the_errors_link_the_rule_book() -> None:
    assert "(RULES.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("game.md", "fuzzing.md"):  # the docs about the rules
        assert "(../RULES.md)" in (ROOT / "docs" / doc).read_text(encoding="utf-8"), doc
    assert errors.__doc__ is not None and "RULES.md" in errors.__doc__
    assert bgfast.__doc__ is not None and "RULES.md" in bgfast.__doc__
    # Rule ids in messages lead to it: an illegal move names its rule.
    try:
        bgfast.Position().play("24/18", (3, 1))
    except bgfast.IllegalMoveError as e:
        assert RULE_ID.fullmatch(e.rule) and str(e).startswith(e.rule)
