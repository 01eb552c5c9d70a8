"""The layers of `docs/ARCHITECTURE.md`, checked on every import statement (lazy ones too).

A test fails when a lower floor reaches up: the text side stays free of torch and the models, the
detectors do not know the bench, no package but `cli` and `demo` imports the command line, and the
packages import each other without a circle.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "halluscope"
HEAVY = ("torch", "transformers", "halluscope.models")
# package -> what it must never import (anything starting with one of these)
FORBIDDEN = {
    "vocab": HEAVY + ("halluscope.text", "halluscope.metrics", "halluscope.bench"),
    "text": HEAVY + ("halluscope.bench", "halluscope.signals", "halluscope.generation"),
    "metrics": HEAVY + ("halluscope.bench", "halluscope.report"),
    "report": ("torch", "transformers", "halluscope.models", "halluscope.bench"),
    "detectors": ("halluscope.bench", "halluscope.cli", "halluscope.models"),
    "runs": HEAVY + ("halluscope.bench", "halluscope.signals"),
    "llm": HEAVY + ("halluscope.text", "halluscope.metrics", "halluscope.bench"),
    "io": HEAVY, "errors": HEAVY, "data": HEAVY,
    # The registry names targets as strings: it imports nothing it registers.
    "registry": tuple(f"halluscope.{p}" for p in (
        "models", "detectors", "text", "metrics", "bench", "prism", "generation", "signals",
        "report", "cli", "runs", "llm")) + HEAVY,
}


def imports() -> dict[str, set[str]]:
    """Top-level package of each module under halluscope -> every module it imports."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        package = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found[package].update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found[package].add(node.module)
    return found


def test_each_layer_imports_only_what_lies_below_it():
    found = imports()
    broken = sorted((package, name) for package, banned in FORBIDDEN.items()
                    for name in found.get(package, ()) if name.startswith(banned))
    assert not broken, broken


def test_only_the_command_line_imports_the_command_line():
    found = imports()
    users = sorted(p for p, names in found.items() if p not in ("cli", "demo")
                   and any(n.startswith("halluscope.cli") for n in names))
    assert not users, users


def test_packages_import_each_other_without_a_circle():
    found = imports()
    graph = {p: {n.split(".")[1] for n in names if n.startswith("halluscope.") and
                 n.split(".")[1] != p} for p, names in found.items()}
    graph.pop("cli", None)  # the command line sits on top of everything
    graph.pop("demo", None)
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            assert seen.get(nxt) != 1, " -> ".join(path + [nxt])
            if nxt not in seen:
                visit(nxt, path + [nxt])
        seen[node] = 2

    for start in sorted(graph):
        if start not in seen:
            visit(start, [start])


def test_the_rules_catch_a_violation(tmp_path, monkeypatch):
    """The checker itself: a text module importing torch is reported."""
    bad = tmp_path / "text"
    bad.mkdir()
    (bad / "x.py").write_text("def f():\n    import torch\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    assert ("text", "torch") in [(p, n) for p, names in imports().items() for n in names]
    try:
        test_each_layer_imports_only_what_lies_below_it()
    except AssertionError:
        return
    raise AssertionError("the import rules did not catch text -> torch")
