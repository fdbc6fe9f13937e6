"""Where code runs, in one description: the results records and the real-data trainer both use it.

``machine_description(device)`` names the device that computes (the GPU, or the CPU model
with the threads torch uses), then the machine around it (processor type, core count) and
the torch version, e.g. ``"CPU AMD EPYC 7B13, 2 threads; x86_64, 2 CPU cores; torch 2.5.1"``.
"""

from __future__ import annotations

import os
import platform

import torch


def default_device() -> torch.device:
    """CUDA when available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo on Linux), else the machine type."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_name(device: torch.device | str) -> str:
    """The device that computes: the GPU's name (``"... (CUDA)"``), or ``"CPU <model>, <n> threads"``."""
    device = torch.device(device)
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} (CUDA)"
    threads = torch.get_num_threads()
    return f"CPU {cpu_model()}, {threads} thread{'s' if threads > 1 else ''}"


def machine_description(device: torch.device | str | None = None) -> str:
    """``device`` (default: ``default_device()``), the machine's processor type and cores, and torch's version.

    One line, the same wherever the course records where something ran (results records,
    training histories, the status page).
    """
    where = device_name(default_device() if device is None else device)
    return f"{where}; {platform.machine()}, {os.cpu_count()} CPU cores; torch {torch.__version__}"
