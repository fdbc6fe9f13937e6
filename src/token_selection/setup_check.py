"""The end of every chapter's set-up cell: did installing the course change a package already imported?

In Colab the set-up cell installs the course package into a session that has already imported
some packages. Python keeps using the version it imported until the session restarts, so a
package that the install replaced on disk is only picked up after a restart. The cell cannot
use this module before the install (the package is not there yet), so its first lines record
the version of every installed distribution, as Python would import it, then install:

    before = {d.name: version(d.name) for d in distributions()}
    if "google.colab" in sys.modules:
        !pip install -q "{package}"
    finish_setup(before)

``finish_setup`` first stops the cell when that ``!pip`` line failed (pip's messages are shown
above it), then compares that record with what is installed now, restricted to distributions
that were installed before (named in the record) and provide a module in ``sys.modules``: when
one changed it stops the cell and asks for a restart, naming each change; otherwise it prints
one line (the package version, the device, the compute scale and how to choose the paper's).
Outside Colab nothing is installed, so nothing changes and only that line is printed.

Only a module imported before the install can be stale, but ``sys.modules`` also holds what was
imported after it: the course itself and the modules its import loads. A distribution missing
from the record was not installed, so nothing imported before came from it: the course on a
reader's first visit, or a package the install brought in, never asks for a restart. The course's
import and this check load only the standard library and the course's own modules (a test keeps
it so), so no other distribution's module is first imported between the install and the check.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import PurePath, PurePosixPath
from typing import NamedTuple

from ._version import __version__
from .scale import SCALE_VARIABLE, compute_scale

# A compiled extension module's file name: the module name, then a platform tag, e.g.
# "_multiarray_umath.cpython-312-x86_64-linux-gnu.so" or "_speedups.abi3.so" or "_ssl.pyd".
EXTENSION = re.compile(r"^([A-Za-z_]\w*)(?:\.[\w.-]+)?\.(?:so|pyd)$")
# Folders beside the modules that hold no importable module of the distribution.
METADATA_SUFFIXES = (".dist-info", ".egg-info", ".data")


def canonical_name(name: str) -> str:
    """A distribution name in its normal form (PEP 503): ``"Scikit_Learn"`` -> ``"scikit-learn"``.

    Raises ``TypeError`` for a name that is no string and ``ValueError`` for a blank one.
    """
    if not isinstance(name, str):
        raise TypeError(f"a distribution name must be a string, got {name!r} ({type(name).__name__})")
    if not name.strip():
        raise ValueError(f"a distribution name must not be blank, got {name!r}")
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def installed_versions() -> dict[str, str]:
    """Every installed distribution: normal-form name -> version, as Python imports it.

    Where a distribution is installed in two folders of ``sys.path``, the first one's version
    counts (the one an import finds). A distribution without a name in its metadata is left out.
    """
    versions: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.strip():
            versions.setdefault(canonical_name(name), dist.version)
    return versions


def module_names(files: Iterable[str | PurePath]) -> set[str]:
    """The modules that a distribution's files provide, by dotted name.

    ``files`` are paths relative to the folder the distribution is installed in (its
    ``RECORD``, as ``Distribution.files`` gives them). A ``.py`` file is a module
    (``six.py`` -> ``six``, ``google/protobuf/message.py`` -> ``google.protobuf.message``), a
    package's ``__init__.py`` the package (``numpy/__init__.py`` -> ``numpy``), a compiled
    extension its module (``numpy/_core/_multiarray_umath.cpython-312-x86_64-linux-gnu.so`` ->
    ``numpy._core._multiarray_umath``). A folder shared with other distributions (a namespace
    such as ``google``) is not named unless the distribution has a module directly in it. Files
    outside that folder (``../../bin/tool``), metadata (``six-1.17.0.dist-info/RECORD``),
    bytecode and data files name nothing.
    """
    names = set()
    for file in files:
        parts = PurePosixPath(str(file).replace("\\", "/")).parts
        if not parts or parts[0].endswith(METADATA_SUFFIXES):
            continue
        *folders, leaf = parts
        if leaf.endswith(".py"):
            stem = leaf[: -len(".py")]
        else:
            match = EXTENSION.match(leaf)
            if match is None:
                continue
            stem = match.group(1)
        dotted = [*folders] if stem == "__init__" else [*folders, stem]
        if dotted and all(part.isidentifier() for part in dotted):
            names.add(".".join(dotted))
    return names


def distribution_modules(name: str) -> set[str]:
    """The modules the installed distribution ``name`` provides (read from its file list).

    For a distribution that is no longer installed, or lists no files, the guess is its name
    written as a module name (``"typing-extensions"`` -> ``"typing_extensions"``).
    """
    try:
        files = metadata.distribution(name).files
    except metadata.PackageNotFoundError:
        files = None
    return module_names(files or []) or {canonical_name(name).replace("-", "_")}


class Change(NamedTuple):
    """One distribution whose version changed: ``before`` or ``now`` is None where it was or is not installed."""

    name: str
    before: str | None
    now: str | None

    def __str__(self) -> str:
        return f"{self.name} {self.before or '(not installed)'} -> {self.now or '(removed)'}"


def _versions(record: Mapping[str, str], what: str) -> dict[str, str]:
    """``record`` with normal-form names, checked: every name and version a non-blank string."""
    if not isinstance(record, Mapping):
        raise TypeError(f"{what} must map distribution names to versions (a dict), got {type(record).__name__}")
    versions: dict[str, str] = {}
    for name, version in record.items():
        if not isinstance(version, str) or not version.strip():
            raise ValueError(f"{what}: the version of {name!r} must be a non-blank string, got {version!r}")
        key = canonical_name(name)
        if versions.setdefault(key, version) != version:
            raise ValueError(f"{what}: {key!r} appears twice, with versions {versions[key]!r} and {version!r}")
    return versions


def changed_imports(
    before: Mapping[str, str],
    *,
    now: Mapping[str, str] | None = None,
    imported: Iterable[str] | None = None,
    provides: Callable[[str], set[str]] = distribution_modules,
) -> list[Change]:
    """The distributions installed before whose version changed and that provide an imported module.

    ``before`` maps distribution names to versions (recorded before installing); ``now``
    defaults to what is installed now (``installed_versions()``), ``imported`` to the names in
    ``sys.modules``, ``provides`` to ``distribution_modules``. Names are compared in their
    normal form ("PyYAML" is "pyyaml"). A distribution that was upgraded, downgraded or removed
    counts as changed; one that appeared (missing from ``before``) does not, whatever is imported:
    it was not installed, so no module imported before the install came from it (the course
    itself, installed and then imported by a reader's first set-up cell, is such a one). The
    changes come sorted by name; an empty list means no restart is needed.
    """
    old = _versions(before, "the record before installing")
    new = installed_versions() if now is None else _versions(now, "the versions installed now")
    loaded = set(sys.modules if imported is None else imported)
    changes = []
    for name in sorted(old):
        if old[name] != new.get(name) and provides(name) & loaded:
            changes.append(Change(name, old[name], new.get(name)))
    return changes


class RestartRequired(SystemExit):
    """Installing changed a package this session had already imported: the session must restart.

    A ``SystemExit``, so that IPython shows the message without a traceback and "Run all" stops
    at the set-up cell.
    """


def restart_message(changes: Iterable[Change], in_colab: bool) -> str:
    """What to do when ``changes`` (at least one) touched imported packages, in Colab or elsewhere."""
    listed = ", ".join(str(change) for change in changes)
    if not listed:
        raise ValueError("restart_message needs at least one change")
    how = "Restart the session (Runtime > Restart session)" if in_colab else "Restart the kernel"
    return (
        f"Installing the course changed packages this session had already imported: {listed}. "
        f"{how} and run the notebook again from the top."
    )


def device_description() -> str:
    """The device the chapters compute on: ``"GPU (<its name>)"`` or ``"CPU (no GPU found)"``."""
    import torch

    if torch.cuda.is_available():
        return f"GPU ({torch.cuda.get_device_name(0)})"
    return "CPU (no GPU found)"


def summary_line(version: str, device: str, scale: str, in_colab: bool) -> str:
    """The set-up cell's one line: the package version, the device, the scale and how to choose the paper's."""
    if scale == "full":
        hint = "the paper's settings"
    elif in_colab:
        hint = f"for the paper's settings run `%env {SCALE_VARIABLE}=full` on a GPU runtime, then this notebook"
    else:
        hint = f"for the paper's settings run with {SCALE_VARIABLE}=full, e.g. `{SCALE_VARIABLE}=full make book`"
    return f"token_selection {version} on {device}; compute scale: {scale} ({hint})."


def last_shell_status() -> int | None:
    """The exit status of the last ``!`` shell line this IPython session ran (its ``_exit_code``).

    None outside IPython, or before any shell line ran.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return None if shell is None else shell.user_ns.get("_exit_code")


def finish_setup(before: Mapping[str, str], *, in_colab: bool | None = None) -> None:
    """End the set-up cell: stop if the install failed or changed an imported package, else print one line.

    ``before`` is the record the cell took before installing (distribution name -> version).
    ``in_colab`` defaults to whether ``google.colab`` is imported; there the cell has just
    installed with a ``!pip`` line, and a non-zero exit status of that line raises
    ``RuntimeError`` (pip's messages are already shown above it). Raises ``RestartRequired``
    (naming every change) when a distribution named in ``before`` that provides an imported
    module changed (``changed_imports``); prints ``summary_line`` otherwise.
    """
    colab = "google.colab" in sys.modules if in_colab is None else in_colab
    status = last_shell_status() if colab else None
    if status:
        raise RuntimeError(f"pip could not install the course package (exit status {status}): see its messages above")
    changes = changed_imports(before)
    if changes:
        raise RestartRequired(restart_message(changes, colab))
    print(summary_line(__version__, device_description(), compute_scale(), colab))
