"""The imports of the package, drawn from its source: no module imports itself back.

Every ``import`` and ``from ... import`` of ``python/bgfast`` counts, wherever it stands (a
deferred import inside a function is a dependency too), and so do
``importlib.import_module("bgfast....")`` calls; imports under ``if TYPE_CHECKING:`` run
only for type checkers and are left out. The graph must have no cycle, and the game layer's
modules must stand in layers: the words and errors at the bottom, the state above them, the
codecs and pictures above the state, the game above those, matches and chouettes on top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "python" / "bgfast"
MODULES = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {"_core"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> set[str]:
    """The bgfast modules ``tree`` imports, outside ``if TYPE_CHECKING:`` blocks."""
    found: set[str] = set()

    def target(dotted: str) -> str | None:
        parts = dotted.split(".")
        if parts[0] != "bgfast":
            return None
        return parts[1] if len(parts) > 1 else "__init__"

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = target(alias.name)
                if name:
                    found.add(name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            name = target(node.module)
            if name == "__init__":  # from bgfast import x: x a module, else the package
                for alias in node.names:
                    found.add(alias.name if alias.name in MODULES else "__init__")
            elif name:
                found.add(name)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            name = target(node.args[0].value)
            if name:
                found.add(name)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def graph() -> dict[str, set[str]]:
    """Module -> the bgfast modules it imports (``_core`` is native: it imports none)."""
    edges = {"_core": set()}
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges[path.stem] = _imports(tree) - {path.stem}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_the_drawing_sees_deferred_imports() -> None:
    tree = ast.parse(
        "def f():\n    from bgfast.game import Game\n"
        "if TYPE_CHECKING:\n    from bgfast.match import Match\n"
        "importlib.import_module('bgfast.met')\n"
    )
    assert _imports(tree) == {"game", "met"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_import_circles() -> None:
    found = cycles(graph())
    assert not found, f"import circles: {[sorted(c) for c in found]}"


# Each module of the game layer and the modules it may import (besides _core and the
# standard library): a newcomer finds the state in one file, the flow in another, the codecs
# beside them, and no module reaches up.
LAYERS = {
    "errors": set(),
    "errors_game": {"errors"},
    "vocab": {"errors"},
    "persist": {"errors"},
    "scoring": {"errors", "vocab"},
    "cube": {"errors", "vocab"},
    "events": {"errors", "vocab"},
    "state": {"errors", "vocab", "persist", "scoring", "cube"},
    "codec": {"errors", "vocab", "scoring", "state"},
    "svg": {"errors", "vocab", "state"},
    "met": {"errors", "vocab"},
    "game": {"errors", "vocab", "persist", "scoring", "cube", "events", "state", "codec", "svg"},
    "ids": {"codec", "errors", "game", "scoring"},
    "transcript": {"errors"},
    "matfile": {"errors", "vocab", "transcript"},
    "sgf": {"errors", "vocab", "transcript", "_version"},
    "replay": {"errors", "vocab", "scoring", "events", "state", "game", "transcript"},
    "match": {
        "errors",
        "vocab",
        "persist",
        "scoring",
        "game",
        "met",
        "svg",
        "transcript",
        "matfile",
        "sgf",
        "replay",
    },
    "_moments": {"errors", "vocab", "events", "replay", "cube", "game", "scoring", "state"},
    "analysis": {
        "errors",
        "events",
        "batch",
        "bearoff",
        "codec",
        "cubeful",
        "met",
        "game",
        "state",
        "match",
        "transcript",
        "_moments",
        "policies",
        "scoring",
    },
    "_cli_match": {"analysis", "match", "policies", "_cli_common"},
    "chouette": {"errors", "vocab", "persist", "scoring", "cube", "game"},
}


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_the_game_layer_imports_only_downwards(module: str) -> None:
    imported = graph()[module] - {"_core"}
    assert imported <= LAYERS[module], f"{module} imports {sorted(imported - LAYERS[module])}"


def test_the_codecs_and_pictures_know_no_game() -> None:
    edges = graph()
    for module in ("state", "codec", "svg", "events", "vocab", "errors", "persist"):
        assert not edges[module] & {"game", "match", "chouette", "ids"}, module


def test_the_file_formats_know_no_referee() -> None:
    # One module per notation, syntax apart from legality: the readers and writers of
    # match files see words, never a game; the replay alone meets the referee.
    edges = graph()
    for module in ("transcript", "matfile", "sgf"):
        assert not edges[module] & {"game", "match", "state", "replay", "_core"}, module
