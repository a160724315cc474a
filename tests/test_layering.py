"""The package layering: core <- domains <- charts/pages/publish <- web <- build <- cli.

The contract itself is in ``pyproject.toml`` (``[tool.importlinter]``); this test runs it
and, beside it, looks for any import cycle between two modules of the package.
"""

from __future__ import annotations

import logging
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def test_imports_flow_one_way(monkeypatch):
    monkeypatch.chdir(ROOT)
    # lint_imports configures logging with dictConfig, which disables every logger that
    # exists already (ours included): undo that, so later tests can still capture logs.
    loggers = [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)]
    enabled = [logger for logger in loggers if not logger.disabled]
    try:
        assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0
    finally:
        for logger in enabled:
            logger.disabled = False


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.find_modules_directly_imported_by(node):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_between_modules():
    graph = grimp.build_graph("computeatlas", exclude_type_checking_imports=True, cache_dir=None)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]
