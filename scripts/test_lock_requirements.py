"""The lock matches requirements.txt, every file it names carries a sha256, and a wrong sha256 stops an install."""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from lock_requirements import (
    LOCK,
    REQUIREMENTS,
    ROOT,
    SHA256,
    bytecode_options,
    entries,
    find_uv,
    header,
    install,
    lock,
    lock_python,
    locked_names,
    locked_python,
    locked_version,
    normalise,
    pip_configuration,
    recorded_sha256,
    requirements_sha256,
    stale_reason,
    unhashed,
    uv_environment,
    version_mismatch,
)

# The message each installer gives when a file's sha256 is not the lock's.
MISMATCH = {"uv": "Hash mismatch", "pip": "DO NOT MATCH THE HASHES"}


def test_lock_was_generated_from_the_current_requirements():
    reason = stale_reason()
    assert reason is None, reason


def test_every_requirement_is_pinned_in_the_lock():
    pinned = locked_names()
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name = normalise(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0])
            assert name in pinned, f"{name} is in requirements.txt but not pinned in {LOCK.name}: run `make lock`"


def test_every_locked_package_carries_a_sha256():
    locked = entries()
    assert len(locked) > 100 and {"torch", "uv", "numpy", "setuptools"} <= set(locked)
    assert unhashed() == [], f"no sha256 in {LOCK.name} for {unhashed()}: run `make lock`"
    # every line that is not a comment is a pin continued by its hashes, or one of those hashes
    pin, sha256 = re.compile(r"[a-z0-9][a-z0-9.-]*==\S+ \\"), re.compile(r"--hash=sha256:[0-9a-f]{64}( \\)?")
    for line in LOCK.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            assert pin.fullmatch(line) or sha256.fullmatch(line), line


def test_entries_join_continuation_lines_and_drop_comments(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        header("0" * 64, "0.13.9")
        + "\nnumpy==2.4.6 \\\n    --hash=sha256:"
        + "a" * 64
        + " \\\n    --hash=sha256:"
        + "b" * 64
        + "\n    # via -r requirements.txt\nsix==1.17.0\n"
    )
    assert entries(lock) == {"numpy": f"numpy==2.4.6 --hash=sha256:{'a' * 64} --hash=sha256:{'b' * 64}", "six": "six==1.17.0"}
    assert unhashed(lock) == ["six"]
    assert locked_version("NumPy", lock) == "2.4.6" and locked_version("uv", lock) is None


def test_a_changed_requirements_file_makes_the_lock_stale(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("numpy>=1.26,<3\n")
    lock = tmp_path / "requirements.lock"
    pin = "numpy==2.0.0 \\\n    --hash=sha256:" + "a" * 64
    lock.write_text(header(requirements_sha256(requirements), "0.13.9") + "\n" + pin + "\n")
    assert stale_reason(requirements, lock) is None
    assert recorded_sha256(lock) == requirements_sha256(requirements)

    requirements.write_text("numpy>=1.26,<3\nscipy>=1.11,<2\n")
    reason = stale_reason(requirements, lock)
    assert reason is not None and "make lock" in reason and "changed" in reason

    lock.unlink()
    assert "missing" in stale_reason(requirements, lock)


def test_the_lock_is_resolved_for_the_lowest_patch_release_of_this_minor_version(tmp_path, monkeypatch):
    # Debian 12's Python is 3.11.2: a lock resolved for the running 3.11.7 pinned soupsieve 4.1.2, which needs 3.11.5
    assert lock_python() == f"{sys.version_info.major}.{sys.version_info.minor}"
    requirements, output = tmp_path / "requirements.txt", tmp_path / "requirements.lock"
    requirements.write_text("numpy>=1.26,<3\n")
    commands, run = [], subprocess.run

    def compile_(command, **kwargs):  # uv pip compile writes a one-package lock; any other command really runs
        if "compile" not in command:
            return run(command, **kwargs)
        commands.append(command)
        Path(command[command.index("--output-file") + 1]).write_text("numpy==2.0.0 \\\n    --hash=sha256:" + "a" * 64 + "\n")
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr("lock_requirements.subprocess.run", compile_)
    assert lock(requirements, output) == (1, True)
    (command,) = commands
    assert command[command.index("--python-version") + 1] == lock_python()
    assert f"# resolved for Python {lock_python()} (every {lock_python()}.x) on " in output.read_text()
    assert f"# resolved for Python {lock_python()} (every {lock_python()}.x) on " in LOCK.read_text()  # the real lock


def test_an_interpreter_of_another_minor_version_is_refused_before_anything_is_installed(tmp_path, monkeypatch, capsys):
    major, minor, patch = sys.version_info[:3]
    assert locked_python() == (major, minor), "the real lock is resolved for the interpreter that runs the tests"
    lock_file = tmp_path / "requirements.lock"
    lock_file.write_text(f"# resolved for Python {major}.{minor + 1} (every {major}.{minor + 1}.x) on linux x86_64\nsix==1.0\n")
    assert locked_python(lock_file) == (major, minor + 1)
    reason = version_mismatch(sys.executable, lock_file)
    assert reason is not None and reason.startswith(f"requirements.lock is resolved for Python {major}.{minor + 1}")
    assert f"is Python {major}.{minor}.{patch}" in reason and f"make PYTHON=python{major}.{minor + 1} test" in reason
    monkeypatch.setattr("lock_requirements.find_uv", lambda *a: pytest.fail("nothing may be installed"))
    with pytest.raises(RuntimeError, match=f"resolved for Python {major}.{minor + 1} "):
        install(sys.executable, lock_file)
    # the old header (a patch release) reads as its minor version; a lock without the line is not checked
    lock_file.write_text(f"# resolved for Python {major}.{minor}.{patch + 5} on linux x86_64 by uv 0.13.9\nsix==1.0\n")
    assert locked_python(lock_file) == (major, minor) and version_mismatch(sys.executable, lock_file) is None
    lock_file.write_text(f"# resolved for Python {major}.{minor}0 (every {major}.{minor}0.x)\n")
    assert locked_python(lock_file) == (major, minor * 10) and version_mismatch(sys.executable, lock_file) is not None
    lock_file.write_text("six==1.0\n")
    assert locked_python(lock_file) is None and version_mismatch(sys.executable, lock_file) is None
    assert locked_python(tmp_path / "missing.lock") is None

    def refuse(**kwargs):
        raise RuntimeError("requirements.lock is resolved for Python 9.9")

    monkeypatch.setattr("lock_requirements.install", refuse)
    monkeypatch.setattr("sys.argv", ["lock_requirements.py", "--install"])
    import lock_requirements

    assert lock_requirements.main() == 1
    assert capsys.readouterr().err == "cannot install: requirements.lock is resolved for Python 9.9\n"


def test_uv_sees_the_package_sources_pip_is_configured_with():
    pip_settings = {"find-links": "/wheels /more-wheels", "extra-index-url": "file:///a/simple file:///b/simple", "timeout": "9"}
    env = uv_environment({"PATH": "/bin"}, pip_settings)
    assert env["UV_FIND_LINKS"] == "/wheels,/more-wheels"
    assert env["UV_EXTRA_INDEX_URL"] == "file:///a/simple file:///b/simple"
    assert env["UV_INDEX_STRATEGY"] == "unsafe-best-match", "the best version across every index, as pip picks"
    assert "UV_INDEX_URL" not in env
    # what is already set for uv wins
    assert uv_environment({"UV_FIND_LINKS": "/mine"}, pip_settings)["UV_FIND_LINKS"] == "/mine"


def test_pip_configuration_reads_the_environment_over_the_files(monkeypatch, tmp_path):
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nfind-links = /from/the/file\nextra-index-url =\n    file:///a/simple\n    file:///b/simple\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("PIP_FIND_LINKS", "/from/the/environment")
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    settings = pip_configuration()
    assert settings["find-links"] == "/from/the/environment"
    assert settings["extra-index-url"].split() == ["file:///a/simple", "file:///b/simple"], "a value over several lines"


def test_the_workflows_set_up_the_locked_uv_with_its_cache():
    for workflow in ("ci.yml", "colab.yml", "publish.yml"):
        jobs = yaml.safe_load((ROOT / ".github" / "workflows" / workflow).read_text())["jobs"]
        steps = [step for job in jobs.values() for step in job.get("steps", [])]
        setup = [step for step in steps if str(step.get("uses", "")).startswith("astral-sh/setup-uv@")]
        assert setup, f"{workflow} does not set up uv"
        assert setup[0]["with"]["version"] == locked_version("uv"), f"{workflow} sets up another uv than {LOCK.name} pins"
        assert setup[0]["with"]["enable-cache"] is True


def build_wheel(
    folder: Path,
    name: str = "hash_probe",
    version: str = "1.0",
    requires: tuple[str, ...] = (),
    modules: dict[str, str] | None = None,
) -> Path:
    """A minimal pure-Python wheel that requires ``requires``, built offline: pip installs it without a build step.

    ``modules`` maps the paths of its files to their text (default: a package ``name`` of one line).
    """
    info = f"{name}-{version}.dist-info"
    metadata = "".join(f"Requires-Dist: {requirement}\n" for requirement in requires)
    files = {
        **(modules or {f"{name}/__init__.py": "VALUE = 1\n"}),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata}",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},{len(text)}"
        for path, text in files.items()
    ]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def corrupt(entry: str) -> str:
    """``entry`` with the first hex digit of every sha256 changed."""
    return SHA256.sub(lambda m: f"--hash=sha256:{'0' if m.group(1)[0] != '0' else '1'}{m.group(1)[1:]}", entry)


def new_environment(path: Path, installer: str, uv: str | None) -> str:
    """An empty virtual environment for ``installer``; its python."""
    if installer == "uv":
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(path)], check=True)
    else:
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return str(path / "bin" / "python")


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_an_install_with_a_corrupted_hash_fails(tmp_path, monkeypatch, capfd, installer):
    """The install `make install` runs, offline, from a lock of one wheel: a wrong sha256 stops it, the right one installs."""
    uv = find_uv()
    if installer == "uv" and uv is None:
        pytest.skip("no uv: make install bootstraps it")
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    wheel = build_wheel(tmp_path / "wheels")
    offline = ("--no-index", "--find-links", str(wheel.parent))
    python = new_environment(tmp_path / "venv", installer, uv)
    entry = f"hash-probe==1.0 \\\n    --hash=sha256:{hashlib.sha256(wheel.read_bytes()).hexdigest()}\n"
    good, bad = tmp_path / "good.lock", tmp_path / "bad.lock"
    good.write_text(entry)
    bad.write_text(corrupt(entry))

    # an installed package is not checked again: the corrupted lock goes first, into the empty environment
    with pytest.raises(subprocess.CalledProcessError):
        install(python, bad, installer, project=None, options=offline)
    output = "".join(capfd.readouterr())
    assert MISMATCH[installer] in output, output[-2000:]
    assert subprocess.run([python, "-c", "import hash_probe"], capture_output=True).returncode != 0, "nothing was installed"

    assert install(python, good, installer, project=None, options=offline) == installer
    subprocess.run([python, "-c", "import hash_probe"], check=True)


def test_a_corrupted_hash_in_the_real_lock_fails(tmp_path, capfd):
    """One small package of requirements.lock, from the configured sources: a corrupted entry fails, its own installs."""
    uv = find_uv()
    if uv is None:
        pytest.skip("no uv: make install bootstraps it")
    locked = entries()
    name = next(name for name in ("six", "cycler", "comm", "pure-eval", "executing") if name in locked)
    python = new_environment(tmp_path / "venv", "uv", uv)
    good, bad = tmp_path / "good.lock", tmp_path / "bad.lock"
    good.write_text(locked[name] + "\n")
    bad.write_text(corrupt(locked[name]) + "\n")
    with pytest.raises(subprocess.CalledProcessError):
        install(python, bad, "uv", project=None)
    output = "".join(capfd.readouterr())
    if MISMATCH["uv"] not in output and "Failed to fetch" in output:
        pytest.skip(f"{name} cannot be fetched from the configured package sources here")
    assert MISMATCH["uv"] in output, output[-2000:]
    install(python, good, "uv", project=None)


def test_bytecode_is_compiled_at_install_only_when_python_will_not_cache_it():
    assert bytecode_options({"PYTHONDONTWRITEBYTECODE": "1"}) == ["--compile-bytecode"]
    assert bytecode_options({}) == []
