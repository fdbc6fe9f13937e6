"""The package's top level: every name the chapters use, each imported at its first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

import token_selection


def test_every_listed_name_resolves_to_what_its_submodule_defines():
    from importlib import import_module

    for name, module in token_selection._EXPORTS.items():
        assert getattr(token_selection, name) is getattr(import_module(f"token_selection.{module}"), name), name
    assert set(token_selection.__all__) == {"__version__", *token_selection._EXPORTS}
    assert set(token_selection.__all__) <= set(dir(token_selection))


def test_an_unknown_name_is_an_attribute_error_that_names_it():
    with pytest.raises(AttributeError, match="module 'token_selection' has no attribute 'no_such_name'"):
        token_selection.no_such_name  # noqa: B018 - the access is the test
    assert not hasattr(token_selection, "theory_of_everything")


def test_importing_the_package_loads_neither_torch_nor_matplotlib_until_a_name_needs_them():
    code = (
        "import sys, token_selection as ts\n"
        "print(sorted(m for m in ('torch', 'matplotlib') if m in sys.modules))\n"
        "ts.finish_setup\n"
        "print(sorted(m for m in ('torch', 'matplotlib') if m in sys.modules))\n"
        "ts.CLSAttention\n"
        "print('torch' in sys.modules, ts.CLSAttention is sys.modules['token_selection.theory.model'].CLSAttention)\n"
    )
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines == ["[]", "[]", "True True"]


def test_the_modules_the_lint_scripts_read_load_no_torch():
    # tidy_notebooks.py (prose) and reading_times.py (reading_time) run in `make lint`, before any chapter
    code = "import sys, token_selection.prose, token_selection.reading_time\nprint('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_the_type_checkers_imports_are_the_listed_names():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(token_selection.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imported = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported == token_selection._EXPORTS
