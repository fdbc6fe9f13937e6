"""Lock ``requirements.txt`` with uv, sha256 for every file, and install exactly that lock.

``uv pip compile --generate-hashes`` resolves and hashes; this script adds what uv does not:

* the lock records the sha256 of the ``requirements.txt`` it was made from, so a stale lock is
  caught (``--check``, and ``make install`` stops on it);
* uv sees the package sources pip is configured with (``pip config list``: find-links, index
  URLs), so the lock and the install pick the same files pip would, the local torch CPU wheel
  included;
* the lock is resolved for the lowest patch release of this interpreter's minor version
  (``--python-version 3.11``), so it installs on every 3.11.x: Debian 12's Python is 3.11.2, and a
  package that needs a later patch release (soupsieve 4.1 needs 3.11.5) is not picked;
* uv is bootstrapped, when the locked version is not on ``PATH``, from the lock's own entry for
  it (pip ``--require-hashes``), and pip ``--require-hashes`` installs the lock where uv cannot.

    python scripts/lock_requirements.py              # regenerate, keeping the pins that still fit (``make lock``)
    python scripts/lock_requirements.py --upgrade    # regenerate with the newest versions the ranges allow
    python scripts/lock_requirements.py --check      # exit 1 when requirements.txt changed since
    python scripts/lock_requirements.py --install    # install the lock into this interpreter's venv (``make install``)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements.lock"
SOURCE_HASH = re.compile(r"^# requirements\.txt sha256: ([0-9a-f]{64})$", re.MULTILINE)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
SHA256 = re.compile(r"--hash=sha256:([0-9a-f]{64})\b")
# pip's configuration key -> uv's environment variable, and how uv separates several values.
PIP_TO_UV = {
    "index-url": ("UV_INDEX_URL", " "),
    "extra-index-url": ("UV_EXTRA_INDEX_URL", " "),
    "find-links": ("UV_FIND_LINKS", ","),
    "cert": ("SSL_CERT_FILE", " "),
}


def requirements_sha256(path: Path = REQUIREMENTS) -> str:
    """sha256 of the requirements file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recorded_sha256(lock: Path = LOCK) -> str | None:
    """The requirements sha256 written in the lock's header, or None when there is none."""
    if not lock.is_file():
        return None
    match = SOURCE_HASH.search(lock.read_text())
    return match.group(1) if match else None


def stale_reason(requirements: Path = REQUIREMENTS, lock: Path = LOCK) -> str | None:
    """Why ``lock`` does not match ``requirements`` (a sentence), or None when it does."""
    if not lock.is_file():
        return f"{lock.name} is missing: run `make lock`"
    recorded = recorded_sha256(lock)
    if recorded is None:
        return f"{lock.name} has no '# requirements.txt sha256:' header: run `make lock`"
    actual = requirements_sha256(requirements)
    if recorded != actual:
        return (
            f"{requirements.name} changed since {lock.name} was written (sha256 {actual[:12]}..., "
            f"the lock was made from {recorded[:12]}...): run `make lock`"
        )
    return None


def normalise(name: str) -> str:
    """A package name as the lock writes it (lower case, ``-`` for ``_`` and ``.``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def entries(lock: Path = LOCK) -> dict[str, str]:
    """Every requirement of the lock, by normalised name: its text, continuation lines joined, comments dropped."""
    found, current = {}, ""
    for line in lock.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        current = f"{current} {line}".strip()
        if current.endswith("\\"):
            current = current[:-1].strip()
            continue
        match = PIN.match(current)
        if match:
            found[normalise(match.group(1))] = current
        current = ""
    return found


def locked_names(lock: Path = LOCK) -> set[str]:
    """Normalised names of the packages the lock pins."""
    return set(entries(lock))


def unhashed(lock: Path = LOCK) -> list[str]:
    """The lock's requirements that carry no sha256."""
    return sorted(name for name, text in entries(lock).items() if not SHA256.search(text))


def locked_version(name: str, lock: Path = LOCK) -> str | None:
    """The version the lock pins ``name`` to, or None."""
    text = entries(lock).get(normalise(name)) if lock.is_file() else None
    match = PIN.match(text) if text else None
    return match.group(2) if match else None


def pip_configuration(python: str = sys.executable) -> dict[str, str]:
    """pip's effective settings (``pip config list``): an environment variable over ``install.*`` over ``global.*``."""
    try:
        listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    rank = {"global": 0, "install": 1, ":env:": 2}
    settings: dict[str, tuple[int, str]] = {}
    for line in listed.splitlines():
        match = re.fullmatch(r"([^.=]*|:env:)\.([\w-]+)='(.*)'", line.strip())
        if match and match.group(1) in rank:
            # a value written over several lines in pip.conf is listed with its newlines escaped
            scope, key, value = rank[match.group(1)], match.group(2), match.group(3).replace("\\n", " ")
            if key not in settings or scope >= settings[key][0]:
                settings[key] = (scope, value)
    return {key: value for key, (_, value) in settings.items()}


def uv_environment(base: dict[str, str] | None = None, pip_settings: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with uv told where pip finds packages.

    uv does not read pip's configuration. Each pip setting of ``PIP_TO_UV`` becomes the uv
    variable unless that is already set, and uv picks the best version across every index, as pip
    does (uv's default takes a package from the first index that has it).
    """
    env = dict(os.environ if base is None else base)
    settings = pip_configuration() if pip_settings is None else pip_settings
    for key, (variable, separator) in PIP_TO_UV.items():
        if settings.get(key) and variable not in env:
            env[variable] = separator.join(settings[key].split())
    env.setdefault("UV_INDEX_STRATEGY", "unsafe-best-match")
    return env


def uv_version(uv: str) -> str | None:
    """The version ``uv --version`` reports, or None when it does not run."""
    try:
        out = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out[1] if len(out) > 1 else None


def find_uv(python: str = sys.executable, lock: Path = LOCK) -> str | None:
    """uv at the lock's version: beside ``python`` or this interpreter, on ``PATH``, or bootstrapped.

    The bootstrap installs the lock's entry for uv into ``python``'s environment with pip
    ``--require-hashes``. None when the lock pins no uv and none is found, or when the bootstrap
    fails (pip then installs the lock).
    """
    wanted = locked_version("uv", lock)
    beside = Path(python).parent / "uv"
    for candidate in (str(beside), str(Path(sys.executable).parent / "uv"), shutil.which("uv")):
        version = uv_version(candidate) if candidate and Path(candidate).is_file() else None
        if version is not None and wanted in (None, version):
            return candidate
    if wanted is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        requirement = Path(tmp) / "uv.txt"
        requirement.write_text(entries(lock)["uv"] + "\n")
        pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--require-hashes", "--no-deps"]
        if subprocess.run([*pip, "-r", str(requirement)]).returncode != 0:
            print(f"could not bootstrap uv {wanted} with pip: installing with pip instead", file=sys.stderr)
            return None
    return str(beside) if beside.is_file() else shutil.which("uv")


def bytecode_options(env: dict[str, str] | None = None) -> list[str]:
    """``--compile-bytecode`` for uv when Python will not cache bytecode at run time, else nothing.

    pip compiles every module at install; uv leaves it to the first import, which caches it, unless
    ``PYTHONDONTWRITEBYTECODE`` is set: then every process (each chapter's kernel) would compile
    torch and the rest again, so the install compiles them all once. The Makefile unsets the
    variable (caching only what is imported is cheaper still); ``UV_COMPILE_BYTECODE=1`` always compiles.
    """
    return ["--compile-bytecode"] if (os.environ if env is None else env).get("PYTHONDONTWRITEBYTECODE") else []


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    """Run ``command``, echoed as make echoes its recipes; raise on failure."""
    print(shlex.join(command), flush=True)
    subprocess.run(command, check=True, env=env)


RESOLVED_FOR = re.compile(r"^# resolved for Python (\d+)\.(\d+)\b", re.MULTILINE)


def locked_python(lock: Path = LOCK) -> tuple[int, int] | None:
    """The Python (major, minor) ``lock`` was resolved for, from its header; None for a lock without that line."""
    match = RESOLVED_FOR.search(lock.read_text()) if lock.is_file() else None
    return None if match is None else (int(match.group(1)), int(match.group(2)))


def version_mismatch(python: str, lock: Path = LOCK) -> str | None:
    """Why ``python`` cannot install ``lock`` (another minor version than the lock's), or None when it can."""
    wanted = locked_python(lock)
    if wanted is None:
        return None
    found = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:3])"], capture_output=True, text=True, check=True)
    major, minor, patch = (int(part) for part in found.stdout.split())
    if (major, minor) == wanted:
        return None
    return (
        f"{lock.name} is resolved for Python {wanted[0]}.{wanted[1]} (any {wanted[0]}.{wanted[1]}.x), and {python} is "
        f"Python {major}.{minor}.{patch}: run make with that version (`make PYTHON=python{wanted[0]}.{wanted[1]} test`, "
        f"after `rm -rf .venv`), or lock for this one (`make lock`, which rewrites {lock.name})"
    )


def install(
    python: str = sys.executable,
    lock: Path = LOCK,
    installer: str = "auto",
    project: Path | None = ROOT,
    options: tuple[str, ...] = (),
) -> str:
    """Install exactly ``lock`` into ``python``'s environment, every file checked against its sha256.

    With uv, ``uv pip sync`` also removes what the lock does not list; with pip (``installer="pip"``,
    or when uv cannot be had), ``pip install --require-hashes --no-deps``. ``options`` go to either
    (``--no-index``, ``--find-links``). Then ``project`` (the course, editable, no dependencies,
    built with the locked setuptools) and a dependency check. Returns the installer used. Raises RuntimeError, before
    installing anything, when ``python`` is another minor version than the one the lock was resolved for.
    """
    mismatch = version_mismatch(python, lock)
    if mismatch:
        raise RuntimeError(mismatch)
    uv = find_uv(python, lock) if installer in ("auto", "uv") else None
    if installer == "uv" and uv is None:
        raise RuntimeError("uv is not available and could not be bootstrapped")
    if uv:
        env = uv_environment()
        run([uv, "pip", "sync", "--python", python, "--require-hashes", *bytecode_options(), *options, str(lock)], env)
        if project is not None:
            run([uv, "pip", "install", "--python", python, "--no-deps", "--no-build-isolation", "-e", str(project)], env)
        run([uv, "pip", "check", "--python", python], env)
        return "uv"
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    run([*pip, "install", "-q", "--require-hashes", "--no-deps", *options, "-r", str(lock)])
    if project is not None:
        run([*pip, "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(project)])
    run([*pip, "check"])
    return "pip"


def header(source_sha256: str, uv_release: str | None) -> str:
    """The lock's first lines: how it was made and from what."""
    return "\n".join(
        [
            "# Every package of the course's environment, pinned, with the sha256 of every file an install may use.",
            "# Generated by `make lock` (scripts/lock_requirements.py: uv pip compile --generate-hashes) from",
            "# requirements.txt; do not edit by hand.",
            f"# requirements.txt sha256: {source_sha256}",
            f"# resolved for Python {lock_python()} (every {lock_python()}.x) on {sys.platform} {platform.machine()}"
            f" by uv {uv_release}",
        ]
    )


def lock_python() -> str:
    """The Python version the lock is resolved for: this interpreter's minor version, e.g. ``"3.11"``, which uv reads
    as its lowest patch release (3.11.0), so no locked package needs a later one."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def lock(requirements: Path = REQUIREMENTS, output: Path = LOCK, upgrade: bool = False) -> tuple[int, bool]:
    """Write ``output`` from ``requirements`` with uv; return the number of packages pinned and whether it changed."""
    uv = find_uv(sys.executable, output)
    if uv is None:
        raise RuntimeError("uv is needed to lock: `pip install uv`, or restore requirements.lock (it pins uv)")
    source = requirements.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        body = Path(tmp) / output.name
        if output.is_file() and not upgrade:
            shutil.copy(output, body)  # uv keeps the pins of an existing output file that still fit
        command = [uv, "pip", "compile", requirements.name, "--generate-hashes", "--no-header", "--python", sys.executable]
        command += ["--python-version", lock_python()]
        command += ["--output-file", str(body), "--quiet", *(["--upgrade"] if upgrade else [])]
        subprocess.run(command, check=True, cwd=requirements.parent, env=uv_environment())
        if requirements.read_bytes() != source:
            raise RuntimeError(f"{requirements.name} changed while it was being locked: run `make lock` again")
        text = header(hashlib.sha256(source).hexdigest(), uv_version(uv)) + "\n" + body.read_text()
        changed = not output.is_file() or output.read_text() != text
        if changed:  # an unchanged lock keeps its time: `make install` has nothing to do
            output.write_text(text)
    return len(entries(output)), changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="only check that the lock matches requirements.txt")
    action.add_argument("--install", action="store_true", help="install the lock into this interpreter's environment")
    action.add_argument("--upgrade", action="store_true", help="lock the newest versions the ranges allow")
    parser.add_argument(
        "--installer", choices=("auto", "uv", "pip"), default="auto", help="with --install (default: uv when it can be had)"
    )
    args = parser.parse_args()
    if args.check:
        reason = stale_reason()
        print(reason or f"{LOCK.name} matches {REQUIREMENTS.name}", file=sys.stderr if reason else sys.stdout)
        return 1 if reason else 0
    if args.install:
        try:
            used = install(installer=args.installer)
        except RuntimeError as error:
            print(f"cannot install: {error}", file=sys.stderr)
            return 1
        print(f"installed {LOCK.name} with {used}, every file checked against its sha256")
        return 0
    count, changed = lock(upgrade=args.upgrade)
    print(f"{'wrote' if changed else 'unchanged:'} {LOCK.name}, {count} packages, each with its sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
