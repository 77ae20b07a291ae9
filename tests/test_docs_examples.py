"""The documentation's Python examples, run as a reader would run them.

The ```python blocks of README.md and docs/*.md run in order, the blocks of one document
sharing one namespace (a later block uses the names an earlier one made), in a fresh
`python` per document, as a script (`__name__ == "__main__"`), whose working directory is a
temporary one holding the files the examples open: `club.mat` and `club.sgf` (a 5-point
match from tests/data/matches) and wildbg's `contact.onnx` and `race.onnx`
(tests/data/wildbg). Each block is compiled with the document as its file name and its own
line numbers, so a failure names the document and the block's first line, and its traceback
quotes the document's lines.

A block is left out only when its document says why, in an HTML comment on the line just
before the block's fence:

    <!-- docs-test: skip (needs a Dask cluster) -->

Each such block is a skipped test of its own, its reason shown (`pytest -rs`). Examples that
would take long are cut to a smaller count in the document itself, not here.
"""

from __future__ import annotations

import doctest
import importlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DATA = ROOT / "tests" / "data"
# The files the examples open by name, as a reader's own would be.
FILES = {
    "club.mat": DATA / "matches" / "noisy_5pt_seed11.mat",
    "club.sgf": DATA / "matches" / "noisy_5pt_seed11.sgf",
    "contact.onnx": DATA / "wildbg" / "contact.onnx",
    "race.onnx": DATA / "wildbg" / "race.onnx",
}
MARKER = re.compile(r"<!--\s*docs-test:\s*(?P<rest>.*?)\s*-->")
SKIP = re.compile(r"skip\s*\((?P<reason>[^()]*\S[^()]*)\)")
# Runs one document's blocks in one module namespace standing in for the script's own.
RUNNER = """\
import json, sys, traceback, types

path, blocks = sys.argv[1], json.loads(sys.stdin.read())
main = types.ModuleType("__main__")
sys.modules["__main__"] = main
for line, source in blocks:
    print(f"docs-test: block at line {line}", file=sys.stderr, flush=True)
    try:
        exec(compile("\\n" * (line - 1) + source, path, "exec"), main.__dict__)
    except BaseException:
        traceback.print_exc()
        sys.exit(f"docs-test: failed at line {line}")
print("docs-test: every block ran", file=sys.stderr)
"""


@dataclass(frozen=True)
class Block:
    document: Path
    line: int  # the first line of the code, after the fence
    source: str
    skip: str | None  # the reason the document gives for not running it


def blocks_of(document: Path) -> list[Block]:
    """The ```python blocks of a document, with any docs-test marker just before each."""
    lines = document.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: tuple[int, str] | None = None  # a marker and its line, waiting for its block
    i = 0
    while i < len(lines):
        text = lines[i]
        marker = MARKER.fullmatch(text.strip())
        if marker:
            pending = (i + 1, marker["rest"])
            i += 1
            continue
        fence = re.match(r"(\s*)(```+|~~~+)\s*(\S*)", text)
        if not fence:
            if pending and text.strip():
                raise AssertionError(f"{document.name}:{pending[0]}: a marker not before a block")
            i += 1
            continue
        indent, ticks, language = fence.groups()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(ticks):
            end += 1
        if language == "python":
            skip = None
            if pending:
                rule = SKIP.fullmatch(pending[1])
                if not rule:
                    raise AssertionError(
                        f"{document.name}:{pending[0]}: docs-test marker {pending[1]!r} is not"
                        " 'skip (reason)'"
                    )
                skip = rule["reason"].strip()
            code = [line[len(indent) :] for line in lines[i + 1 : end]]
            blocks.append(Block(document, i + 2, "\n".join(code) + "\n", skip))
        elif pending:
            raise AssertionError(
                f"{document.name}:{pending[0]}: a marker before a {language} block"
            )
        pending = None
        i = end + 1
    return blocks


def name(document: Path) -> str:
    return str(document.relative_to(ROOT)) if ROOT in document.parents else document.name


def failure_of(document: Path, cwd: Path) -> str | None:
    """Runs the document's blocks in a fresh ``python`` in ``cwd``: ``None`` when every block
    but the marked ones ran, else which block failed, with its traceback and the output."""
    runnable = [(block.line, block.source) for block in blocks_of(document) if not block.skip]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(document)],
        input=json.dumps(runnable),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode == 0 and "docs-test: every block ran" in done.stderr:
        return None
    started = re.findall(r"docs-test: block at line (\d+)", done.stderr)
    where = f"the block at line {started[-1]}" if started else "before the first block"
    return f"{name(document)}: {where} failed:\n{done.stderr}\n--- stdout ---\n{done.stdout}"


SKIPPED = [block for document in DOCUMENTS for block in blocks_of(document) if block.skip]


def test_every_document_has_examples() -> None:
    documents = {name(d) for d in DOCUMENTS if blocks_of(d)}
    assert {"README.md", "docs/distributed.md", "docs/game.md", "docs/rollouts.md"} <= documents


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if blocks_of(d)], ids=name)
def test_examples_run(document: Path, tmp_path: Path) -> None:
    for file, source in FILES.items():
        shutil.copyfile(source, tmp_path / file)
    failure = failure_of(document, tmp_path)
    if failure:
        pytest.fail(failure, pytrace=False)


@pytest.mark.parametrize(
    "block", SKIPPED, ids=[f"{name(b.document)}:{b.line}" for b in SKIPPED] or None
)
def test_marked_block(block: Block) -> None:
    pytest.skip(f"{name(block.document)}:{block.line}: {block.skip}")


def test_a_failure_names_its_block(tmp_path: Path) -> None:
    """The runner itself: blocks share names, a marked block is not run, and a failure
    names its block and quotes the document's own line."""
    document = tmp_path / "guide.md"
    document.write_text(
        "Some text.\n\n```python\nx = 1\n```\n\n"
        "<!-- docs-test: skip (shown, not run) -->\n```python\nraise SystemExit(3)\n```\n\n"
        "```sh\nexit 1\n```\n\n"
        "```python\nassert x == 1\ny = x / 0\n```\n",
        encoding="utf-8",
    )
    blocks = blocks_of(document)
    assert [(b.line, b.skip) for b in blocks] == [(4, None), (9, "shown, not run"), (17, None)]
    failure = failure_of(document, tmp_path)
    assert failure is not None
    assert failure.startswith("guide.md: the block at line 17 failed:")
    assert f'File "{document}", line 18' in failure
    assert "y = x / 0" in failure and "ZeroDivisionError" in failure


@pytest.mark.parametrize(
    "text",
    [
        "<!-- docs-test: skip (why) -->\n```sh\nls\n```\n",  # not before a python block
        "<!-- docs-test: skip (why) -->\nText between.\n```python\npass\n```\n",
        "<!-- docs-test: skip -->\n```python\npass\n```\n",  # no reason given
    ],
)
def test_a_misplaced_or_bare_marker_is_refused(tmp_path: Path, text: str) -> None:
    document = tmp_path / "guide.md"
    document.write_text(text, encoding="utf-8")
    with pytest.raises(AssertionError, match=r"guide\.md:1"):
        blocks_of(document)


def _modules_with_examples() -> list[str]:
    """The bgfast modules whose docstrings hold ``>>>`` examples."""
    package = ROOT / "python" / "bgfast"
    return sorted(
        "bgfast" if path.stem == "__init__" else f"bgfast.{path.stem}"
        for path in package.glob("*.py")
        if ">>>" in path.read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("module", _modules_with_examples())
def test_docstring_examples_give_what_they_show(module: str) -> None:
    """Every ``>>>`` example in a module's docstrings prints what the docstring says."""
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {module}'s examples differ (output above)"
