"""The set-up cell's check: which changed distributions were already imported, the restart request, the one line."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import types
from importlib import metadata
from pathlib import PurePosixPath

import pytest

import token_selection
from token_selection import setup_check
from token_selection.setup_check import (
    Change,
    RestartRequired,
    canonical_name,
    changed_imports,
    device_description,
    distribution_modules,
    finish_setup,
    installed_versions,
    last_shell_status,
    module_names,
    restart_message,
    summary_line,
)

# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("six", "six"),
        ("PyYAML", "pyyaml"),
        ("Scikit_Learn", "scikit-learn"),
        ("zope.interface", "zope-interface"),
        ("a-_.b", "a-b"),
        (" typing_extensions ", "typing-extensions"),
        ("X", "x"),
    ],
)
def test_names_take_their_normal_form(name, canonical):
    assert canonical_name(name) == canonical


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_a_blank_name_is_refused(name):
    with pytest.raises(ValueError, match=re.escape(f"a distribution name must not be blank, got {name!r}")):
        canonical_name(name)


@pytest.mark.parametrize("name", [None, 3, b"six"])
def test_a_name_that_is_no_string_is_refused_with_its_type(name):
    with pytest.raises(TypeError, match=rf"must be a string, got {name!r} \({type(name).__name__}\)"):
        canonical_name(name)


# --- the files of a distribution -> its modules ----------------------------------------------------


def test_module_names_of_uneven_file_lists():
    files = [
        "six.py",
        "six-1.17.0.dist-info/RECORD",
        "six-1.17.0.dist-info/METADATA",
        "__pycache__/six.cpython-312.pyc",
        "../../bin/six-tool",
        "numpy/__init__.py",
        "numpy/_core/__init__.py",
        "numpy/_core/_multiarray_umath.cpython-312-x86_64-linux-gnu.so",
        "numpy.libs/libgfortran-040039e1.so.5.0.0",
        "numpy/_core/tests/data/umath-validation-set-README.txt",
        "google/protobuf/message.py",
        "_cffi_backend.cpython-312-x86_64-linux-gnu.so",
        "markupsafe/_speedups.abi3.so",
        "win/_ssl.pyd",
        "plain_ext.so",
        "pkg.data/scripts/run.py",
        "legacy.egg-info/PKG-INFO",
        "odd-name/mod.py",
        "__init__.py",
        PurePosixPath("pathlib_given/thing.py"),
        "windows\\style\\mod.py",
    ]
    assert module_names(files) == {
        "six",
        "numpy",
        "numpy._core",
        "numpy._core._multiarray_umath",
        "google.protobuf.message",
        "_cffi_backend",
        "markupsafe._speedups",
        "win._ssl",
        "plain_ext",
        "pathlib_given.thing",
        "windows.style.mod",
    }


def test_a_namespace_folder_is_not_a_module_of_the_distribution():
    # google/ is shared by many distributions: only the modules inside it are protobuf's
    assert "google" not in module_names(["google/protobuf/__init__.py", "google/protobuf/message.py"])
    assert module_names(["google/protobuf/__init__.py"]) == {"google.protobuf"}


@pytest.mark.parametrize(
    "files",
    [[], [""], ["README.txt"], ["data/table.csv"], ["x.dist-info/RECORD"], ["2fast/mod.py"], ["mod.pyc"], ["lib.so.1"]],
)
def test_files_that_hold_no_module_name_none(files):
    assert module_names(files) == set()


def test_an_installed_distribution_provides_its_modules():
    assert {"pytest", "_pytest"} <= distribution_modules("pytest")
    assert "pytest" in distribution_modules("PyTest")  # found under any spelling of its name


def test_a_distribution_no_longer_installed_is_guessed_from_its_name():
    assert distribution_modules("no-such_distribution.anywhere") == {"no_such_distribution_anywhere"}


def test_a_distribution_that_lists_no_files_is_guessed_from_its_name(monkeypatch):
    class NoFiles:
        files = None

    monkeypatch.setattr(setup_check.metadata, "distribution", lambda name: NoFiles())
    assert distribution_modules("Typing-Extensions") == {"typing_extensions"}


# --- what is installed ---------------------------------------------------------------------------


class FakeDistribution:
    def __init__(self, name, version):
        self.metadata = {"Name": name}
        self.version = version


def test_installed_versions_reads_every_distribution_the_first_one_on_the_path_winning(monkeypatch):
    found = [
        FakeDistribution("Six", "1.17.0"),
        FakeDistribution("numpy", "2.1.3"),
        FakeDistribution("six", "1.16.0"),  # a second copy further down sys.path: shadowed
        FakeDistribution(None, "0.1"),  # broken metadata: no name
        FakeDistribution("  ", "0.2"),
        FakeDistribution("Scikit_Learn", "1.5.2"),
    ]
    monkeypatch.setattr(setup_check.metadata, "distributions", lambda: iter(found))
    assert installed_versions() == {"six": "1.17.0", "numpy": "2.1.3", "scikit-learn": "1.5.2"}


def test_installed_versions_of_this_environment_agree_with_importlib():
    versions = installed_versions()
    assert versions["pytest"] == metadata.version("pytest")
    assert versions["numpy"] == metadata.version("numpy")
    assert all(name == canonical_name(name) for name in versions)


# --- which changes matter ----------------------------------------------------------------------

# Uneven on purpose: names spelled differently on each side, a removal, an addition, a namespace.
PROVIDES = {
    "six": {"six"},
    "pyyaml": {"yaml", "_yaml"},
    "numpy": {"numpy", "numpy._core"},
    "protobuf": {"google.protobuf", "google.protobuf.message"},
    "tqdm": {"tqdm"},
    "newcomer": {"newcomer"},
    "unused": {"unused"},
}


def provides(name):
    return PROVIDES[name]


BEFORE = {"Six": "1.16.0", "PyYAML": "6.0.1", "numpy": "2.0.2", "protobuf": "4.25.3", "tqdm": "4.66.5", "unused": "1.0"}
NOW = {"six": "1.17.0", "pyyaml": "6.0.2", "numpy": "2.0.2", "protobuf": "5.29.0", "newcomer": "0.3"}


def test_only_changed_distributions_that_provide_an_imported_module_are_reported():
    imported = ["sys", "six", "yaml", "numpy", "numpy._core", "google", "tqdm", "newcomer"]
    changes = changed_imports(BEFORE, now=NOW, imported=imported, provides=provides)
    assert changes == [
        Change("pyyaml", "6.0.1", "6.0.2"),  # imported as yaml
        Change("six", "1.16.0", "1.17.0"),
        Change("tqdm", "4.66.5", None),  # removed while imported
    ]
    # numpy is imported but unchanged; protobuf changed but only the google namespace was loaded;
    # "unused" was removed but never imported; "newcomer" was not installed before the install,
    # so its module was imported from the new install, after it


# A reader's first visit in Colab: the course is not installed; the install brings it and one
# dependency Colab lacks ("fresh-dep"), and upgrades "six"; then the cell imports the course.
COURSE_PROVIDES = {
    "token-selection": {"token_selection", "token_selection.setup_check", "token_selection.scale"},
    "fresh-dep": {"fresh_dep"},
    "six": {"six"},
    "numpy": {"numpy"},
}
COLAB = {"six": "1.16.0", "numpy": "2.0.2"}
AFTER_INSTALL = {"six": "1.17.0", "numpy": "2.0.2", "token-selection": "1.0.0", "fresh-dep": "0.3"}
COURSE_IMPORTED = ["token_selection", "token_selection.setup_check", "token_selection.scale"]


def test_a_first_visit_that_imports_the_course_after_installing_it_needs_no_restart():
    changes = changed_imports(COLAB, now=AFTER_INSTALL, imported=["numpy", *COURSE_IMPORTED], provides=COURSE_PROVIDES.get)
    assert changes == []


def test_a_package_the_install_brought_in_needs_no_restart_imported_or_not():
    for imported in (["numpy"], ["numpy", "fresh_dep", *COURSE_IMPORTED]):
        assert changed_imports(COLAB, now=AFTER_INSTALL, imported=imported, provides=COURSE_PROVIDES.get) == []


def test_on_a_first_visit_a_package_imported_before_that_changed_is_still_named():
    imported = ["six", "numpy", *COURSE_IMPORTED]  # six was imported at kernel start
    changes = changed_imports(COLAB, now=AFTER_INSTALL, imported=imported, provides=COURSE_PROVIDES.get)
    assert [(change.name, change.before, change.now) for change in changes] == [("six", "1.16.0", "1.17.0")]


def test_a_package_imported_before_whose_version_did_not_change_needs_no_restart():
    now = {**AFTER_INSTALL, "six": "1.16.0"}
    assert changed_imports(COLAB, now=now, imported=["six", "numpy", *COURSE_IMPORTED], provides=COURSE_PROVIDES.get) == []


def test_a_course_installed_and_imported_before_that_changed_asks_for_a_restart():
    # the set-up cell run a second time in one session, after the course moved to a new version
    before = {**AFTER_INSTALL, "token-selection": "0.9.0"}
    changes = changed_imports(before, now=AFTER_INSTALL, imported=COURSE_IMPORTED, provides=COURSE_PROVIDES.get)
    assert changes == [Change("token-selection", "0.9.0", "1.0.0")]


def test_a_submodule_alone_counts_as_imported():
    changes = changed_imports(BEFORE, now=NOW, imported=["google.protobuf.message"], provides=provides)
    assert changes == [Change("protobuf", "4.25.3", "5.29.0")]


def test_nothing_changed_or_nothing_imported_means_no_restart():
    assert changed_imports(BEFORE, now=BEFORE, imported=list(PROVIDES) + ["yaml"], provides=provides) == []
    assert changed_imports(BEFORE, now=NOW, imported=[], provides=provides) == []
    assert changed_imports({}, now={}, imported=["six"], provides=provides) == []


def test_the_modules_of_unchanged_distributions_are_never_looked_up():
    asked = []

    def recording(name):
        asked.append(name)
        return PROVIDES[name]

    changed_imports(BEFORE, now=NOW, imported=["six"], provides=recording)
    # not numpy (unchanged), nor newcomer (not installed before: nothing imported came from it)
    assert sorted(asked) == ["protobuf", "pyyaml", "six", "tqdm", "unused"]


def test_by_default_the_check_reads_what_is_installed_and_imported_now():
    before = installed_versions()
    assert changed_imports(before) == []
    assert changed_imports({**before, "pytest": "0.0.1"}) == [Change("pytest", "0.0.1", metadata.version("pytest"))]


@pytest.mark.parametrize(
    ("before", "error", "message"),
    [
        ([("six", "1.16.0")], TypeError, r"the record before installing must map distribution names to versions .*got list"),
        ("six==1.16.0", TypeError, r"got str"),
        ({"six": 1.16}, ValueError, r"the record before installing: the version of 'six' must be a non-blank string, got 1\.16"),
        ({"six": " "}, ValueError, r"the version of 'six' must be a non-blank string, got ' '"),
        ({"six": None}, ValueError, r"got None"),
        ({"": "1.0"}, ValueError, r"a distribution name must not be blank"),
        ({None: "1.0"}, TypeError, r"a distribution name must be a string"),
        ({"Six": "1.16.0", "six": "1.17.0"}, ValueError, r"'six' appears twice, with versions '1\.16\.0' and '1\.17\.0'"),
    ],
)
def test_a_bad_record_is_refused_with_what_was_wrong(before, error, message):
    with pytest.raises(error, match=message):
        changed_imports(before, now={}, imported=[], provides=provides)


def test_a_bad_record_of_the_present_is_named_as_such():
    with pytest.raises(ValueError, match=r"the versions installed now: the version of 'six'"):
        changed_imports({}, now={"six": ""}, imported=[], provides=provides)


def test_the_same_version_under_two_spellings_is_one_entry():
    assert changed_imports({"Six": "1.16.0", "six": "1.16.0"}, now={"six": "1.16.0"}, imported=["six"], provides=provides) == []


def test_a_change_reads_as_old_to_new():
    assert str(Change("six", "1.16.0", "1.17.0")) == "six 1.16.0 -> 1.17.0"
    assert str(Change("newcomer", None, "0.3")) == "newcomer (not installed) -> 0.3"
    assert str(Change("tqdm", "4.66.5", None)) == "tqdm 4.66.5 -> (removed)"


# --- the restart request and the one line ---------------------------------------------------------


def test_the_restart_message_names_every_change_and_where_to_restart():
    changes = [Change("six", "1.16.0", "1.17.0"), Change("tqdm", "4.66.5", None)]
    assert restart_message(changes, in_colab=True) == (
        "Installing the course changed packages this session had already imported: "
        "six 1.16.0 -> 1.17.0, tqdm 4.66.5 -> (removed). "
        "Restart the session (Runtime > Restart session) and run the notebook again from the top."
    )
    assert restart_message(iter(changes[:1]), in_colab=False) == (
        "Installing the course changed packages this session had already imported: six 1.16.0 -> 1.17.0. "
        "Restart the kernel and run the notebook again from the top."
    )


def test_a_restart_message_without_changes_is_refused():
    with pytest.raises(ValueError, match=r"^restart_message needs at least one change$"):
        restart_message([], in_colab=True)


def test_restart_required_stops_a_script_with_its_message():
    assert issubclass(RestartRequired, SystemExit)
    assert RestartRequired("restart please").code == "restart please"


@pytest.mark.parametrize(
    ("scale", "in_colab", "line"),
    [
        (
            "fast",
            True,
            "token_selection 9.9 on CPU (no GPU found); compute scale: fast (for the paper's settings run "
            "`%env TOKEN_SELECTION_SCALE=full` on a GPU runtime, then this notebook).",
        ),
        (
            "fast",
            False,
            "token_selection 9.9 on CPU (no GPU found); compute scale: fast (for the paper's settings run with "
            "TOKEN_SELECTION_SCALE=full, e.g. `TOKEN_SELECTION_SCALE=full make book`).",
        ),
        ("full", True, "token_selection 9.9 on CPU (no GPU found); compute scale: full (the paper's settings)."),
        ("full", False, "token_selection 9.9 on CPU (no GPU found); compute scale: full (the paper's settings)."),
    ],
)
def test_the_one_line_says_version_device_scale_and_how_to_choose_the_papers(scale, in_colab, line):
    assert summary_line("9.9", "CPU (no GPU found)", scale, in_colab) == line
    assert "\n" not in line


def fake_torch(available, name="NVIDIA H100 80GB HBM3"):
    asked = []

    def device_name(index):
        asked.append(index)
        return name

    cuda = types.SimpleNamespace(is_available=lambda: available, get_device_name=device_name)
    return types.SimpleNamespace(cuda=cuda), asked


def test_the_device_is_the_gpu_by_name_when_there_is_one(monkeypatch):
    torch, asked = fake_torch(True)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert device_description() == "GPU (NVIDIA H100 80GB HBM3)"
    assert asked == [0]


def test_the_device_is_the_cpu_otherwise(monkeypatch):
    torch, asked = fake_torch(False)
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert device_description() == "CPU (no GPU found)"
    assert asked == []


# --- the whole ending of the set-up cell --------------------------------------------------------


def test_finish_setup_prints_one_line_when_nothing_imported_changed(monkeypatch, capsys):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setitem(sys.modules, "torch", fake_torch(False)[0])
    assert finish_setup(installed_versions()) is None
    out = capsys.readouterr()
    assert out.out == summary_line(token_selection.__version__, "CPU (no GPU found)", "fast", False) + "\n"
    assert out.err == ""


def test_finish_setup_in_colab_gives_colabs_hint(monkeypatch, capsys):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setitem(sys.modules, "torch", fake_torch(True, "Tesla T4")[0])
    finish_setup(installed_versions())
    assert capsys.readouterr().out == summary_line(token_selection.__version__, "GPU (Tesla T4)", "fast", True) + "\n"
    finish_setup(installed_versions(), in_colab=False)  # said outright, it wins over the guess
    assert "make book" in capsys.readouterr().out


def test_finish_setup_asks_for_a_restart_naming_the_change(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    before = {**installed_versions(), "pytest": "0.0.1"}  # as if the install had upgraded pytest, imported here
    with pytest.raises(RestartRequired) as stop:
        finish_setup(before)
    assert stop.value.code == restart_message([Change("pytest", "0.0.1", metadata.version("pytest"))], in_colab=True)
    with pytest.raises(RestartRequired, match=r"pytest 0\.0\.1 -> .*Restart the kernel"):
        finish_setup(before, in_colab=False)
    assert capsys.readouterr().out == ""  # no summary line when the session must restart


def test_finish_setup_on_a_first_visit_goes_on_though_the_course_it_installed_is_imported(monkeypatch, capsys):
    # the course was not installed when the cell took its record; it is installed and imported now
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setitem(sys.modules, "torch", fake_torch(False)[0])
    before = installed_versions()
    assert before.pop("token-selection") == token_selection.__version__
    assert "token_selection" in sys.modules
    finish_setup(before, in_colab=True)
    assert capsys.readouterr().out.startswith(f"token_selection {token_selection.__version__} on CPU (no GPU found)")


def test_finish_setup_on_a_first_visit_still_names_a_package_imported_before_that_changed(monkeypatch):
    before = installed_versions()
    del before["token-selection"]
    before["pytest"] = "0.0.1"  # as if the install had upgraded pytest, imported before it
    with pytest.raises(RestartRequired) as stop:
        finish_setup(before, in_colab=True)
    assert "pytest 0.0.1 -> " + metadata.version("pytest") in stop.value.code
    assert "token-selection" not in stop.value.code and "token_selection" not in stop.value.code


def test_the_course_import_and_the_check_load_only_the_standard_library_and_the_course():
    # what they load is imported after the install: a distribution's module among it could be a
    # fresh import of a changed package, which the check would count as imported before
    code = (
        "import sys\n"
        "start = set(sys.modules)\n"
        "import token_selection as ts\n"
        "ts.finish_setup, ts.setup_check.changed_imports(ts.setup_check.installed_versions())\n"
        "print(sorted({m.split('.')[0] for m in set(sys.modules) - start}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(result.stdout.strip()))
    assert "token_selection" in loaded
    assert loaded - {"token_selection"} - set(sys.stdlib_module_names) == set()


def fake_ipython(monkeypatch, user_ns):
    shell = None if user_ns is None else types.SimpleNamespace(user_ns=user_ns)
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))


@pytest.mark.parametrize(("user_ns", "status"), [(None, None), ({}, None), ({"_exit_code": 0}, 0), ({"_exit_code": 2}, 2)])
def test_the_last_shell_status_is_ipythons_exit_code(monkeypatch, user_ns, status):
    fake_ipython(monkeypatch, user_ns)
    assert last_shell_status() == status


def test_outside_ipython_there_is_no_shell_status(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert last_shell_status() is None


def test_in_colab_a_failed_pip_line_stops_the_cell(monkeypatch, capsys):
    fake_ipython(monkeypatch, {"_exit_code": 1})
    with pytest.raises(
        RuntimeError, match=r"^pip could not install the course package \(exit status 1\): see its messages above$"
    ):
        finish_setup(installed_versions(), in_colab=True)
    assert capsys.readouterr().out == ""


def test_a_failed_shell_line_outside_colab_is_none_of_the_cells_business(monkeypatch, capsys):
    # outside Colab the cell ran no pip line: an earlier failed shell line must not stop it
    fake_ipython(monkeypatch, {"_exit_code": 1})
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    monkeypatch.setitem(sys.modules, "torch", fake_torch(False)[0])
    finish_setup(installed_versions(), in_colab=False)
    assert "compute scale: fast" in capsys.readouterr().out


def test_in_colab_a_successful_pip_line_goes_on_to_the_check(monkeypatch, capsys):
    fake_ipython(monkeypatch, {"_exit_code": 0})
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full")
    monkeypatch.setitem(sys.modules, "torch", fake_torch(False)[0])
    finish_setup(installed_versions(), in_colab=True)
    assert capsys.readouterr().out.endswith("compute scale: full (the paper's settings).\n")


def test_the_cell_calls_finish_setup_by_the_packages_short_name():
    assert token_selection.finish_setup is finish_setup
    assert "finish_setup" in token_selection.__all__


def test_finish_setup_refuses_a_bad_record():
    with pytest.raises(TypeError, match="must map distribution names to versions"):
        finish_setup([("six", "1.16.0")])


def test_finish_setup_refuses_an_unknown_scale(monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "huge")
    monkeypatch.setitem(sys.modules, "torch", fake_torch(False)[0])
    with pytest.raises(ValueError, match="TOKEN_SELECTION_SCALE must be one of"):
        finish_setup(installed_versions())
