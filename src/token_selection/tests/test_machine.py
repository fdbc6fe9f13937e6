"""Where code runs: the CPU or GPU, the machine type, cores and torch version, on a faked machine (no dependence on this one)."""

import io
import os
import platform

import pytest
import torch

from token_selection import machine, results
from token_selection.machine import cpu_model, default_device, device_name, machine_description
from token_selection.real_data import trainer


def test_machine_description_names_the_device_the_machine_and_torch():
    text = machine_description("cpu")
    threads = torch.get_num_threads()
    assert text.startswith(f"CPU {cpu_model()}, {threads} thread")
    assert f"; {platform.machine()}, {os.cpu_count()} CPU cores; torch {torch.__version__}" in text
    assert machine_description() == machine_description(default_device())
    assert device_name(torch.device("cpu")) == text.split(";")[0]


def test_records_and_trainer_share_the_one_description(tmp_path, monkeypatch):
    monkeypatch.setenv(results.RECORDS_VARIABLE, str(tmp_path))
    results.write_record("probe", "fast", protocol="a probe", settings={}, metrics={})
    assert results.read_record("probe", "fast")["machine"] == machine_description()
    assert trainer.hardware_name is machine_description


CPUINFO = "\n".join(
    [
        "processor\t: 0",
        "vendor_id\t: Example",
        "model name\t: Example Core 9: rev 2  ",
        "processor\t: 1",
        "model name\t: Other Core",
    ]
)
"""A /proc/cpuinfo of two processors: the first model name is the one reported, a colon inside it kept."""


def _fake_open(text: str | None, opened: list[str]):
    """An ``open`` for the machine module: /proc/cpuinfo reads ``text``; None makes it unreadable."""

    def fake(path, *args, **kwargs):
        opened.append(path)
        if text is None:
            raise PermissionError(path)
        return io.StringIO(text)

    return fake


@pytest.fixture
def fake_machine(monkeypatch):
    """A machine with no GPU, of type ``riscv64`` with 7 cores, and torch ``9.9.9`` on 2 threads."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    monkeypatch.setattr(platform, "processor", lambda: "")
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    monkeypatch.setattr(torch, "__version__", "9.9.9")
    return monkeypatch


def test_cpu_model_is_the_first_model_name_of_cpuinfo(fake_machine):
    opened = []
    fake_machine.setattr(machine, "open", _fake_open(CPUINFO, opened), raising=False)
    assert cpu_model() == "Example Core 9: rev 2"
    assert opened == ["/proc/cpuinfo"]


@pytest.mark.parametrize("text", [None, "processor\t: 0\nvendor_id\t: Example\n"])
def test_cpu_model_falls_back_to_the_processor_then_the_machine_type(fake_machine, text):
    # cpuinfo unreadable (not Linux) or without a model name: platform.processor(), else platform.machine()
    fake_machine.setattr(machine, "open", _fake_open(text, []), raising=False)
    assert cpu_model() == "riscv64"  # processor() is empty here
    fake_machine.setattr(platform, "processor", lambda: "Example64")
    assert cpu_model() == "Example64"


@pytest.mark.parametrize(("threads", "words"), [(1, "1 thread"), (2, "2 threads"), (3, "3 threads")])
def test_device_name_of_the_cpu_counts_its_threads(fake_machine, threads, words):
    fake_machine.setattr(machine, "open", _fake_open(CPUINFO, []), raising=False)
    fake_machine.setattr(torch, "get_num_threads", lambda: threads)
    assert device_name("cpu") == f"CPU Example Core 9: rev 2, {words}"


def test_a_gpu_is_named_by_cuda_and_chosen_by_default(fake_machine):
    asked = []
    fake_machine.setattr(torch.cuda, "get_device_name", lambda device: asked.append(device) or "Example GPU 80GB")
    assert device_name("cuda:1") == "Example GPU 80GB (CUDA)"
    assert asked == [torch.device("cuda:1")]
    assert default_device() == torch.device("cpu")
    # a device named explicitly is described, whatever the default would be
    assert machine_description("cuda") == "Example GPU 80GB (CUDA); riscv64, 7 CPU cores; torch 9.9.9"
    fake_machine.setattr(torch.cuda, "is_available", lambda: True)
    assert default_device() == torch.device("cuda")
    assert machine_description() == "Example GPU 80GB (CUDA); riscv64, 7 CPU cores; torch 9.9.9"


def test_machine_description_of_a_cpu_in_full(fake_machine):
    fake_machine.setattr(machine, "open", _fake_open(CPUINFO, []), raising=False)
    expected = "CPU Example Core 9: rev 2, 2 threads; riscv64, 7 CPU cores; torch 9.9.9"
    assert machine_description("cpu") == expected
    assert machine_description() == expected  # no GPU: the default device is the CPU
