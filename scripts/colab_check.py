"""Run the chapters as Colab would: Colab's package versions, its `google.colab` module, each chapter alone.

1. A separate virtual environment (``.venv-colab``) gets exactly the versions of
   ``ci/colab-versions.txt`` (Colab's preinstalled packages), installed by uv (pip where uv cannot
   be had) from the sources pip is configured with. torch is the exception: it stays at the local
   2.13.0 CPU wheel, the only torch this machine can install (Colab has 2.11 with CUDA).
2. A stand-in ``google.colab`` module (``ci/google_colab.py``) is installed there and imported at
   kernel start, as Colab does, so each chapter's first cell takes its Colab branch.
3. Each chapter is a reader's first visit: before it, the environment goes back to what it was
   when built (the course and whatever an earlier chapter's install brought are uninstalled,
   a version it changed is put back), and the course must not be importable. The chapter is
   copied alone into an empty folder (Colab opens a notebook without the repository around it)
   and run under nbval. Its first cell installs the course exactly as in Colab (its
   ``pip install`` line), with ``COURSE_PACKAGE`` pointing at a copy of the working tree
   instead of the repository address, imports it and checks that no package it had imported
   before changed.
4. After every chapter every package of the list must still have Colab's version: the course's
   ranges must not make the installer replace what Colab already has.

What it cannot check: a GPU, Colab's Python and torch builds, and Colab's own front end (how it
renders widgets and plotly figures).

    python scripts/colab_check.py                      # every chapter
    python scripts/colab_check.py notebooks/01_model.ipynb
    python scripts/colab_check.py --venv-only          # only build .venv-colab and check its versions
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lock_requirements import bytecode_options, find_uv, uv_environment
from working_tree import snapshot

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ROOT / "ci" / "colab-versions.txt"
STANDIN = ROOT / "ci" / "google_colab.py"
# The local torch wheel (see requirements.txt) and what runs the chapters, which Colab also has.
EXTRA = ["torch==2.13.0", "ipykernel>=6.29,<8", "nbval>=0.11,<1", "pytest>=8,<10"]
# Colab imports google.colab when the kernel starts; the first cell looks for it in sys.modules.
STARTUP = "import google.colab  # noqa: F401\n"
# Run inside the kernel before the chapters: proves the kernel is the check's, with Colab's versions.
PROBE = """
import json, sys
from importlib import metadata
print(json.dumps({"prefix": sys.prefix, "colab": "google.colab" in sys.modules,
                  "versions": {d.metadata["Name"].lower(): d.version for d in metadata.distributions()}}))
"""


def colab_versions(path: Path = VERSIONS) -> dict[str, str]:
    """The pinned ``name==version`` lines of ``path``, by lower-case name."""
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, sep, version = line.partition("==")
            if not sep or not version:
                raise ValueError(f"{path}: every line must be name==version, got {line!r}")
            pins[name.strip().lower()] = version.strip()
    return pins


def install_command(python: Path, uv: str | None) -> list[str]:
    """The command that installs into ``python``'s environment: uv's when there is a uv, else pip's."""
    if uv:
        return [uv, "pip", "install", "--python", str(python), *bytecode_options()]
    return [str(python), "-m", "pip", "install", "--disable-pip-version-check"]


def ensure_venv(venv: Path, uv: str | None = None) -> Path:
    """Create ``venv`` with Colab's versions unless it already has them; return its python.

    The environment has pip (Colab's has), but uv installs into it when ``uv`` is given.
    """
    python = venv / "bin" / "python"
    stamp = venv / ".colab-versions"
    installer = "uv" if uv else "pip"
    wanted = hashlib.sha256((VERSIONS.read_text() + "\n".join(EXTRA) + STANDIN.read_text() + installer).encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (venv / ".gitignore").write_text("*\n")  # as Python 3.13's venv does: never part of the repository
    subprocess.run([*install_command(python, uv), "-r", str(VERSIONS), *EXTRA], check=True, env=uv_environment())
    site = Path(
        subprocess.run(
            [str(python), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    (site / "google" / "colab").mkdir(parents=True, exist_ok=True)
    shutil.copy(STANDIN, site / "google" / "colab" / "__init__.py")
    startup = venv / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-google-colab.py").write_text(STARTUP)
    stamp.write_text(wanted)
    return python


def kernel_environment(venv: Path, package: str) -> dict[str, str]:
    """The environment nbval and its kernels run in."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env = uv_environment(env)  # the first cell's uv finds packages where pip would
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",  # the kernelspec runs the first `python` on PATH
        VIRTUAL_ENV=str(venv),
        IPYTHONDIR=str(venv / "ipython"),
        COURSE_PACKAGE=package,
        TOKEN_SELECTION_SCALE=env.get("TOKEN_SELECTION_SCALE", "fast"),
        PYTHONHASHSEED="0",
    )
    return env


def probe_kernel(python: Path, env: dict[str, str], venv: Path) -> None:
    """Start a kernel as nbval will and check it is the check's, with google.colab loaded."""
    script = (
        "import json, jupyter_client\n"
        "km, kc = jupyter_client.manager.start_new_kernel(kernel_name='python3')\n"
        f"out = []\nkc.execute_interactive({PROBE!r}, output_hook=lambda m: out.append(m['content'].get('text', '')))\n"
        "km.shutdown_kernel(now=True)\nprint(''.join(out))\n"
    )
    result = subprocess.run([str(python), "-c", script], env=env, capture_output=True, text=True, check=True, timeout=120)
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    if Path(seen["prefix"]).resolve() != venv.resolve():
        raise RuntimeError(f"the kernel runs in {seen['prefix']}, not in {venv}: check the python3 kernelspec")
    if not seen["colab"]:
        raise RuntimeError("google.colab is not in the kernel's sys.modules at start: the stand-in was not loaded")
    wrong = {n: (v, seen["versions"].get(n)) for n, v in colab_versions().items() if seen["versions"].get(n) != v}
    if wrong:
        raise RuntimeError(f"the kernel does not have Colab's versions (wanted, found): {wrong}")


def installed_distributions(python: Path) -> dict[str, str]:
    """Every distribution installed in ``python``'s environment: lower-case name -> version."""
    listing = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {item["name"].lower(): item["version"] for item in json.loads(listing)}


def changed_versions(python: Path, installed: dict[str, str] | None = None) -> dict[str, tuple[str, str | None]]:
    """Packages of the list whose installed version is no longer Colab's: name -> (Colab's, now).

    ``installed`` defaults to what ``python``'s environment holds now.
    """
    installed = installed_distributions(python) if installed is None else installed
    return {name: (version, installed.get(name)) for name, version in colab_versions().items() if installed.get(name) != version}


def course_origin(python: Path, env: dict[str, str], cwd: Path) -> str | None:
    """Where ``python``, started in ``cwd`` with ``env``, would import the course from; None where it cannot."""
    code = "import importlib.util\nspec = importlib.util.find_spec('token_selection')\nprint(spec.origin if spec else '')"
    found = subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return found.stdout.strip() or None


def first_visit(python: Path, pristine: dict[str, str], env: dict[str, str], cwd: Path, uv: str | None = None) -> None:
    """Bring ``python``'s environment back to ``pristine`` (name -> version), as a reader's first visit finds Colab.

    Every distribution not in ``pristine`` (the course, and what its install brought) is
    uninstalled, and one whose version changed gets its ``pristine`` version back. Raises
    ``RuntimeError`` naming where the course would still be imported from, in ``cwd`` with
    ``env``: the chapter's first cell must install it, as it does for a reader.
    """
    now = installed_distributions(python)
    extra = sorted(set(now) - set(pristine))
    if extra:
        subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", *extra], env=env, check=True)
    back = [f"{name}=={version}" for name, version in sorted(pristine.items()) if now.get(name) != version]
    if back:
        subprocess.run([*install_command(python, uv), *back], check=True, env=uv_environment())
    origin = course_origin(python, env, cwd)
    if origin is not None:
        raise RuntimeError(
            f"the course is importable ({origin}) before the chapter's first cell installs it: "
            f"a first visit to a chapter in Colab starts without it"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="chapters to run (default: notebooks/*.ipynb)")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv-colab")
    parser.add_argument("--cell-timeout", type=int, default=600, help="nbval's limit per cell, in seconds")
    parser.add_argument("--venv-only", action="store_true", help="only build the environment and check its versions")
    args = parser.parse_args(argv)
    notebooks = [path.resolve() for path in args.notebooks] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    missing = [str(path) for path in notebooks if not path.is_file()]
    if missing:
        raise ValueError(f"no such notebook: {', '.join(missing)}")

    uv = find_uv()
    python = ensure_venv(args.venv.resolve(), uv)
    if args.venv_only:
        changed = changed_versions(python)
        for name, (colab, now) in changed.items():
            print(f"{args.venv} has {name} {now}, not Colab's {colab}")
        print(f"colab-check: {args.venv} built; {len(changed)} of Colab's packages differ from the list")
        return 1 if changed else 0
    with tempfile.TemporaryDirectory(prefix="colab-check-") as work:
        work = Path(work)
        # The working tree stands in for the repository address that the first cell installs from.
        source = snapshot(work / "repository")
        env = kernel_environment(args.venv.resolve(), f"token_selection @ {source.as_uri()}")
        probe_kernel(python, env, args.venv.resolve())
        pristine = installed_distributions(python)
        pristine.pop("token-selection", None)  # left by an earlier run that stopped half-way
        pristine.pop("token_selection", None)
        failed, changed = [], {}
        for path in notebooks:
            # Each chapter is a reader's first visit: Colab's packages, the course not installed
            # yet, the chapter alone in an empty folder (Colab's /content), no repository around it.
            content = work / "content" / path.stem
            content.mkdir(parents=True)
            first_visit(python, pristine, env, content, uv)
            shutil.copy(path, content / path.name)
            command = [
                str(python), "-m", "pytest", "--nbval-lax", f"--nbval-cell-timeout={args.cell_timeout}",
                "-p", "no:cacheprovider", "--rootdir", str(content), "-q", str(content / path.name),
            ]  # fmt: skip
            print(f"colab-check: {path.name}", flush=True)
            if subprocess.run(command, cwd=content, env=env).returncode:
                failed.append(path.name)
            changed.update(changed_versions(python))
        first_visit(python, pristine, env, work, uv)  # leave the environment as built, for the next run
    for name, (colab, now) in changed.items():
        print(f"installing the course changed Colab's {name} {colab} -> {now}: widen its range in pyproject.toml")
    print(
        f"colab-check: {len(notebooks) - len(failed)} of {len(notebooks)} chapters passed"
        + (f" (failed: {', '.join(failed)})" if failed else "")
        + f"; {len(changed)} of Colab's packages changed"
    )
    return 1 if failed or changed else 0


if __name__ == "__main__":
    sys.exit(main())
