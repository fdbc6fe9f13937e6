import os
import platform

import torch

from token_selection import results
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
