"""The import structure: the contracts in .importlinter hold, no module imports itself back
through others (lazy imports counted), and first-party imports stay at module level outside
the CLI (which defers them so that ``raidsweep --help`` starts at once)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

from tests.support.paths import ROOT

PACKAGES = ("sweeper", "recommender", "app_pages")
#: where first-party imports may be deferred into functions
DEFERRING = ("sweeper.cli",)
#: deferred imports still to be moved to module level, by module and what they import
STILL_DEFERRED: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    return [base]


def _deferred_imports(module: str, path: Path) -> set[tuple[str, str]]:
    """First-party imports inside a function body of ``module``."""
    found = set()
    for func in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in _imported(node, module, path.name == "__init__.py"):
                    if name.split(".")[0] in PACKAGES:
                        found.add((module, name))
    return found


def test_the_import_contracts_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(str(ROOT / ".importlinter"), no_cache=True, no_logo=True) == 0


def test_no_module_imports_itself_back() -> None:
    """Across packages too, deferred imports counted: importing a module runs its packages'
    ``__init__`` first, so each module also depends on its parent packages."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True)
    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        imported = set(graph.find_modules_directly_imported_by(module))
        parents = {
            parent
            for name in imported
            for parent in (name.rsplit(".", i)[0] for i in range(1, name.count(".") + 1))
            if not module.startswith(parent + ".") and parent != module
        }
        edges[module] = imported | parents
    try:
        order = list(graphlib.TopologicalSorter(edges).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")
    assert "sweeper.vocabulary" in order


def test_first_party_imports_are_at_module_level_outside_the_cli() -> None:
    deferred = {
        found
        for module, path in _modules().items()
        if not module.startswith(DEFERRING)
        for found in _deferred_imports(module, path)
    }
    assert deferred <= STILL_DEFERRED, sorted(deferred - STILL_DEFERRED)
