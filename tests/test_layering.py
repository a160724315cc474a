"""The package layering: core <- domains <- catalog <- charts/pages/publish <- web <- build <- cli.

The contracts are in ``pyproject.toml`` (``[tool.importlinter]``): one for the layers, one
for the order of the domains, one forbidding a cycle between two packages; imports under
``if TYPE_CHECKING:`` count. Beside them, this looks for any import cycle between two
modules (type-only imports included), checks that no module imports one of the package's
own modules by a name computed at run time (which neither check could see), and shows on a
copy of the package that a back-import breaks the layering.
"""

from __future__ import annotations

import ast
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "computeatlas"


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
    graph = grimp.build_graph("computeatlas", exclude_type_checking_imports=False, cache_dir=None)
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


def _dynamic_imports(source: str) -> list[str]:
    """The calls in ``source`` that import a module by a computed name (``importlib.import_module``,
    ``__import__``) unless the name visibly starts with another package's name: each as
    ``"line: call"``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in ("import_module", "__import__"):
            continue
        arg = node.args[0] if node.args else None
        head = arg.values[0] if isinstance(arg, ast.JoinedStr) and arg.values else arg
        prefix = head.value if isinstance(head, ast.Constant) and isinstance(head.value, str) else ""
        if not prefix or prefix.split(".")[0] == "computeatlas":
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_imports_a_package_module_by_a_computed_name():
    """Every import of a module of the package is an import statement, which the contracts
    and the cycle check read (one of sqlalchemy's dialects, named in full, is no such import)."""
    sources = {p: p.read_text("utf-8") for p in sorted(PACKAGE.rglob("*.py"))}
    found = {
        str(p.relative_to(ROOT)): hits
        for p, text in sources.items()
        if ("import_module" in text or "__import__" in text) and (hits := _dynamic_imports(text))
    }
    assert found == {}


def test_the_dynamic_import_finder_finds_one():
    source = (
        "import importlib\nimportlib.import_module('computeatlas.web.app')\nimportlib.import_module(f'computeatlas.{x}')\n"
        "__import__(name)\n__import__(f'sqlalchemy.dialects.{dialect}')\n"
    )
    assert _dynamic_imports(source) == [
        "2: importlib.import_module('computeatlas.web.app')",
        "3: importlib.import_module(f'computeatlas.{x}')",
        "4: __import__(name)",
    ]


def _copy_with(tmp_path: Path, lines: dict[str, str]) -> Path:
    """A copy of the package and of ``pyproject.toml`` under ``tmp_path`` in which each
    module of ``lines`` (a path under ``computeatlas/``) ends with its line."""
    shutil.copytree(PACKAGE, tmp_path / "computeatlas", ignore=shutil.ignore_patterns("__pycache__", "templates", "static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for module, line in lines.items():
        target = tmp_path / "computeatlas" / module
        target.write_text(target.read_text("utf-8") + line, encoding="utf-8")
    return tmp_path


CHECK = """
import sys, grimp
sys.path.insert(0, {tests!r})
from test_layering import _cycles
print(_cycles(grimp.build_graph("computeatlas", exclude_type_checking_imports=False, cache_dir=None)))
from importlinter.cli import lint_imports
raise SystemExit(lint_imports(no_cache=True, no_logo=True))
"""
"""Run in the copy: print the import cycles, then run the contracts (exit 1 when one is broken)."""


def test_a_back_import_breaks_the_layering(tmp_path: Path) -> None:
    """In a copy of the package, a core module that names a web type (only for type
    checkers) and a silicon module that imports an economics one (silicon is below
    economics): both are reported, each by its contract, and both make cycles."""
    copy = _copy_with(
        tmp_path,
        {
            "core/units.py": "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from computeatlas.web.app import create_app\n",
            "silicon/related.py": "\nfrom computeatlas.economics.claims import Metric  # noqa: E402\n",
        },
    )
    env = {**os.environ, "PYTHONPATH": str(copy)}  # the copy ahead of the installed package
    run = subprocess.run(
        [sys.executable, "-c", CHECK.format(tests=str(ROOT / "tests"))],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = run.stdout.replace(" \n", " ")  # import-linter wraps long contract names
    assert run.returncode == 1, out + run.stderr
    cycles = out.splitlines()[0]
    assert "'computeatlas.core.units'" in cycles and "'computeatlas.web.app'" in cycles
    assert "'computeatlas.silicon.related'" in cycles and "'computeatlas.economics.claims'" in cycles
    assert "Layers: core <- domains <- catalog (the composition root) <- charts/pages/publish <- web <- build <- cli BROKEN" in out
    assert "computeatlas.core is not allowed to import computeatlas.web:" in out
    assert "computeatlas.core.units -> computeatlas.web.app" in out
    assert "Domains: silicon | ledger <- cloud <- economics <- energy BROKEN" in out
    assert "computeatlas.silicon is not allowed to import computeatlas.economics:" in out
    assert "computeatlas.silicon.related -> computeatlas.economics.claims" in out
    assert "No import cycle between two packages (domain <-> domain included) BROKEN" in out
    assert "Contracts: 0 kept, 3 broken." in out
