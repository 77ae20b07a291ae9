#!/usr/bin/env python3
"""Write python/bgfast/data/THIRD-PARTY-NOTICES.md: the crates linked into bgfast's native code.

Reads ``cargo metadata --format-version 1 --locked`` (the crate versions of Cargo.lock, every
target platform), keeps the crates the extension module ``bgfast._core`` (crate bgfast-py)
and the C library ``libbgfast`` (crate bgfast-c) link: their normal dependencies, followed
transitively. Dev- and build-dependencies are left out, and so are procedural-macro crates
and what only they depend on: they run inside the compiler and are not linked (they are
named at the end of the file). For each crate the file gives its version, licence
expression and repository, then the texts of the licence and copyright files the crate's
package ships (``LICENSE*``, ``LICENCE*``, ``COPYING*``, ``COPYRIGHT*``, ``NOTICE*`` at its
root or in a ``LICENSES/`` folder, and its ``license-file``), each distinct text once with
the crates that share it.

    python scripts/third_party_notices.py           # rewrite the file
    python scripts/third_party_notices.py --check   # exit 1 when the file is out of date

Run it after any change to Cargo.lock. It reads the crates' sources from Cargo's cache
(``cargo metadata`` downloads the missing ones) and builds nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "python" / "bgfast" / "data" / "THIRD-PARTY-NOTICES.md"
# Workspace crate -> what it builds.
PRODUCTS = {"bgfast-py": "bgfast._core", "bgfast-c": "libbgfast"}
NOTICE_FILE = re.compile(r"^(LICEN[CS]E|COPYING|COPYRIGHT|NOTICE)", re.IGNORECASE)
MAX_BYTES = 400_000


@dataclass
class Crate:
    name: str
    version: str
    license: str
    repository: str
    directory: Path
    license_file: str | None
    # Product -> the platform conditions of the paths reaching the crate (None: every platform).
    products: dict[str, set[str | None]] = field(default_factory=dict)


def cargo_metadata() -> dict[str, Any]:
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def edge_condition(dep: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether a resolve edge is a normal dependency, and its platform condition if any."""
    normal = [k for k in dep["dep_kinds"] if k["kind"] is None]
    if not normal:
        return False, None
    targets = [k["target"] for k in normal]
    if None in targets:
        return True, None
    return True, " or ".join(sorted(set(targets)))


def linked_crates(meta: dict[str, Any]) -> tuple[list[Crate], list[Crate]]:
    """The crates linked into PRODUCTS' binaries, and the procedural macros they use."""
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    workspace = set(meta["workspace_members"])

    def is_proc_macro(pkg: dict[str, Any]) -> bool:
        return any("proc-macro" in t["kind"] for t in pkg["targets"])

    crates: dict[str, Crate] = {}
    macros: dict[str, Crate] = {}

    def crate_of(pkg_id: str, into: dict[str, Crate]) -> Crate:
        if pkg_id not in into:
            p = packages[pkg_id]
            into[pkg_id] = Crate(
                name=p["name"],
                version=p["version"],
                license=p["license"] or "(none given: see its licence file)",
                repository=p["repository"] or p["homepage"] or "",
                directory=Path(p["manifest_path"]).parent.resolve(),
                license_file=p["license_file"],
            )
        return into[pkg_id]

    for root_name, product in PRODUCTS.items():
        (root,) = [i for i in workspace if packages[i]["name"] == root_name]
        queue: deque[tuple[str, str | None]] = deque([(root, None)])
        seen: set[tuple[str, str | None]] = set()
        while queue:
            pkg_id, condition = queue.popleft()
            if (pkg_id, condition) in seen:
                continue
            seen.add((pkg_id, condition))
            for dep in nodes[pkg_id]["deps"]:
                normal, target = edge_condition(dep)
                if not normal:
                    continue
                dep_id = dep["pkg"]
                cond = condition if target is None else target
                if condition is not None and target is not None:
                    cond = f"{condition}, then {target}"
                if dep_id in workspace:
                    queue.append((dep_id, cond))
                    continue
                if is_proc_macro(packages[dep_id]):
                    crate_of(dep_id, macros)
                    continue
                crate = crate_of(dep_id, crates)
                crate.products.setdefault(product, set()).add(cond)
                queue.append((dep_id, cond))

    # What the procedural macros depend on, unless it is linked too.
    pending = deque(macros)
    while pending:
        for dep in nodes[pending.popleft()]["deps"]:
            if edge_condition(dep)[0] and dep["pkg"] not in crates and dep["pkg"] not in macros:
                crate_of(dep["pkg"], macros)
                pending.append(dep["pkg"])

    def key(c: Crate) -> tuple[str, str]:
        return c.name, c.version

    return sorted(crates.values(), key=key), sorted(macros.values(), key=key)


def notice_files(crate: Crate) -> list[Path]:
    found = {
        p
        for p in crate.directory.iterdir()
        if p.is_file() and NOTICE_FILE.match(p.name) and p.suffix.lower() not in {".rs", ".toml"}
    }
    licenses_dir = crate.directory / "LICENSES"
    if licenses_dir.is_dir():
        found.update(p for p in licenses_dir.iterdir() if p.is_file())
    if crate.license_file:
        extra = (crate.directory / crate.license_file).resolve()
        if extra.is_file() and extra.is_relative_to(crate.directory):
            found.add(extra)
    return sorted(found, key=lambda p: p.relative_to(crate.directory).as_posix().lower())


def normalise(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def fence_for(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def linked_into(crate: Crate) -> str:
    """The products linking the crate, each with its platforms unless it links it on all."""
    parts = []
    for product, conditions in sorted(crate.products.items()):
        if None in conditions:
            parts.append(product)
        else:
            parts.append(f"{product} on {' or '.join(sorted(c for c in conditions if c))}")
    return "; ".join(parts)


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(crates: list[Crate], macros: list[Crate]) -> tuple[str, list[str]]:
    warnings: list[str] = []
    texts: dict[str, list[str]] = {}  # normalised text -> "crate version (file)" users
    crate_texts: dict[tuple[str, str], list[int]] = {}
    order: list[str] = []
    for crate in crates:
        files = notice_files(crate)
        if not files:
            warnings.append(f"{crate.name} {crate.version}: no licence file in its package")
        numbers = []
        for path in files:
            text = normalise(path.read_text(encoding="utf-8", errors="replace"))
            if text not in texts:
                texts[text] = []
                order.append(text)
            rel = path.relative_to(crate.directory)
            texts[text].append(f"{crate.name} {crate.version} (`{rel.as_posix()}`)")
            numbers.append(order.index(text) + 1)
        crate_texts[(crate.name, crate.version)] = sorted(set(numbers))

    out = [
        "# Third-party notices",
        "",
        "Generated by `scripts/third_party_notices.py` in bgfast's sources from `Cargo.lock`;",
        "do not edit by hand.",
        "",
        "bgfast's native code links the Rust crates below: `bgfast._core`, the extension module",
        "in this package, and `libbgfast`, the C library built from the same sources (not part",
        "of the Python package). Each crate is listed with the licence its authors give, and",
        "each distinct licence or notice text its package ships follows once, with the crates",
        "that ship it. A crate linked only on some targets names their `cfg` condition.",
        "",
        "The Rust standard library is linked into both as well; it is licensed MIT OR",
        "Apache-2.0 (its copyright notices: https://github.com/rust-lang/rust/blob/master/COPYRIGHT).",
        "The nets built into `bgfast._core` have their own notice: `wildbg/NOTICE.md`.",
        "",
        "## Crates",
        "",
        "| crate | version | licence | repository | linked into | texts |",
        "|---|---|---|---|---|---|",
    ]
    for c in crates:
        refs = ", ".join(f"[{n}](#text-{n})" for n in crate_texts[(c.name, c.version)]) or "none"
        out.append(
            f"| {c.name} | {c.version} | {cell(c.license)} | {c.repository} "
            f"| {cell(linked_into(c))} | {refs} |"
        )
    out += ["", "## Licence and notice texts", ""]
    for number, text in enumerate(order, start=1):
        fence = fence_for(text)
        out += [
            f'<a id="text-{number}"></a>',
            f"### Text {number}",
            "",
            "Shipped by: " + ", ".join(texts[text]) + ".",
            "",
            fence + "text",
            text.rstrip("\n"),
            fence,
            "",
        ]
    out += [
        "## Compile-time only",
        "",
        "These procedural-macro crates, and the crates only they depend on, run inside the",
        "compiler while bgfast is built and are not linked into it:",
        "",
    ]
    for c in macros:
        out.append(f"- {c.name} {c.version} ({c.license}), {c.repository}")
    return "\n".join(out) + "\n", warnings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args()
    crates, macros = linked_crates(cargo_metadata())
    text, warnings = render(crates, macros)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    size = len(text.encode())
    if size > MAX_BYTES:
        print(f"error: {size} bytes, more than {MAX_BYTES}", file=sys.stderr)
        return 1
    rel = OUTPUT.relative_to(ROOT)
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{rel} is out of date: run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {rel}: {len(crates)} crates, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
