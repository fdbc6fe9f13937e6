"""The package's import graph runs one way: each module imports only its own layer or lower ones.

Layers, lowest first:

0. the top-level modules (``validation``, ``scale``, ``sources``, ``machine``, ``results``, ...):
   what every part of the course may use;
1. ``theory``: the model and the paper's mathematics;
2. ``real_data`` and ``explorer``: the theory applied to reviews, and the interactive chapter;
3. ``studies``: questions beyond the paper, on synthetic data and the real-data models;
4. ``report``: the paper's claims scored against the records;
5. the package itself (``token_selection/__init__.py``), which gathers the chapters' names.

Two packages of one layer do not import each other, and no two modules import each other,
however indirectly. Every import counts, wherever it stands (inside a function, under
``TYPE_CHECKING``). The graph is read from the source with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
PACKAGE = PACKAGE_DIR.name

LAYERS: dict[str, int] = {"theory": 1, "real_data": 2, "explorer": 2, "studies": 3, "report": 4}
"""The layer of each subpackage; a top-level module is in layer 0, the package's ``__init__`` on top."""
TOP = max(LAYERS.values()) + 1


def module_files(package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Every module of the package (tests left out), dotted name -> file."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if "tests" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` (source at ``path``) imports, itself left out.

    ``from a.b import c`` counts as an import of the module ``a.b.c`` when that is a module,
    else of ``a.b``. A name that is no module of the package is dropped.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(package_dir: Path = PACKAGE_DIR) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    files = module_files(package_dir)
    return {name: imported_modules(name, path, set(files)) for name, path in files.items()}


def layer_of(module: str) -> tuple[int, str]:
    """(layer, group) of a dotted module name: group is the subpackage, or "" for the top-level modules."""
    parts = module.split(".")
    if len(parts) == 1:
        return TOP, PACKAGE
    if parts[1] in LAYERS:
        return LAYERS[parts[1]], parts[1]
    if (PACKAGE_DIR / parts[1]).is_dir():
        raise AssertionError(f"{module}: the subpackage {parts[1]!r} has no layer in LAYERS")
    return 0, ""


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a higher layer, or of another package of the same layer, as 'importer -> imported'."""
    found = []
    for module, targets in sorted(graph.items()):
        layer, group = layer_of(module)
        for target in sorted(targets):
            target_layer, target_group = layer_of(target)
            if target_layer > layer or (target_layer == layer and target_group != group):
                found.append(f"{module} (layer {layer}) -> {target} (layer {target_layer})")
    return found


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import one another, directly or through others (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_no_two_modules_import_each_other():
    assert import_cycles(import_graph()) == []


def test_the_sources_numbers_sit_in_the_lowest_layer():
    graph = import_graph()
    assert layer_of(f"{PACKAGE}.sources") == (0, "")
    assert graph[f"{PACKAGE}.sources"] == set()
    assert f"{PACKAGE}.sources" in graph[f"{PACKAGE}.real_data.measurements"]


# The checker itself, on a throwaway package: it must find an upward import and a cycle.


@pytest.fixture
def toy_package(tmp_path: Path) -> Path:
    root = tmp_path / PACKAGE
    for folder in ("theory", "report", "explorer"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("from .report import table\n")
    (root / "sources.py").write_text("import numpy\n")
    (root / "theory" / "model.py").write_text("from .. import sources\n")
    (root / "report" / "table.py").write_text("from ..theory.model import x\n")
    (root / "explorer" / "notice.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .compute import R\n"
    )
    (root / "explorer" / "compute.py").write_text("from .notice import what\n")
    return root


def test_checker_passes_a_clean_graph(toy_package):
    graph = import_graph(toy_package)
    assert graph[f"{PACKAGE}.theory.model"] == {f"{PACKAGE}.sources"}
    assert graph[f"{PACKAGE}"] == {f"{PACKAGE}.report.table"}
    assert upward_imports(graph) == []


def test_checker_finds_an_upward_import(toy_package):
    (toy_package / "theory" / "model.py").write_text("def f():\n    from ..report.table import g\n")
    assert upward_imports(import_graph(toy_package)) == [f"{PACKAGE}.theory.model (layer 1) -> {PACKAGE}.report.table (layer 4)"]


def test_checker_finds_modules_that_import_each_other(toy_package):
    assert import_cycles(import_graph(toy_package)) == [[f"{PACKAGE}.explorer.compute", f"{PACKAGE}.explorer.notice"]]
