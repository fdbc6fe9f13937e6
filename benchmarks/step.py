"""Time one full-batch gradient step of the model at IMDB scale against the memory-traffic floor.

Three timings from one run, interleaved so that they share the machine's load:

- floor: the passes over E (V x d) and X that any exact full-batch step makes, as plain
  torch operations writing into preallocated buffers: the forward product E [p v], one
  gather (E p)[X], one scatter (index_add_ over X) and the in-place rank-2 update of E,
  with X as int32 ids, as the package's step keeps them;
- step: the package's fused exact step and SGD update (``FullBatchGD.step_``);
- autograd: the package's forward, ``backward()`` and an in-place SGD update of E, p, v.

Also prints the peak memory of each (CPU: the rise of the resident set above its level
before the call, read from /proc/self/status after resetting the high-water mark;
CUDA: ``torch.cuda.max_memory_allocated``), and the load average next to every timing.

    python benchmarks/step.py                   # n=25,000, T=512, V=50,000, d=2048, float32
    python benchmarks/step.py --device cuda     # on a GPU
    python benchmarks/step.py --profile         # also print a torch.profiler table of one step
    python benchmarks/step.py --naive-fraction 0.01   # also time 1% of the gather-then-attend form
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path

import torch
from tqdm.auto import tqdm

from token_selection import CLSAttention, logistic_loss
from token_selection.theory.full_batch import FullBatchGD

MiB = 2**20


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def resident_mib(field: str) -> float:
    """VmRSS or VmHWM of this process in MiB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not found in /proc/self/status")


def peak_extra_mib(run: Callable[[], object], device: torch.device) -> float:
    """Memory a call needs above what was allocated before it, in MiB."""
    if device.type == "cuda":
        synchronize(device)
        before = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        run()
        synchronize(device)
        return (torch.cuda.max_memory_allocated(device) - before) / MiB
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current resident set
    before = resident_mib("VmRSS")
    run()
    return resident_mib("VmHWM") - before


def timed(run: Callable[[], object], device: torch.device) -> float:
    synchronize(device)
    start = time.perf_counter()
    run()
    synchronize(device)
    return time.perf_counter() - start


class Floor:
    """The passes over E and X of an exact step, as plain torch operations into preallocated buffers."""

    def __init__(self, model: CLSAttention, X: torch.Tensor) -> None:
        self.E, self.P = model.E.detach(), torch.stack([model.p.detach(), model.v.detach()], dim=1)
        self.X = X.reshape(-1).to(torch.int32)  # the id type the package's step keeps
        self.table = torch.empty(self.E.shape[0], 2, dtype=self.E.dtype, device=self.E.device)
        self.gathered = torch.empty(self.X.shape, dtype=self.E.dtype, device=self.E.device)
        self.rank2 = torch.full_like(self.table, 1e-12)

    def __call__(self) -> None:
        torch.mm(self.E, self.P, out=self.table)  # forward: E p and E v in one read of E
        scores = self.table[:, 0].contiguous()
        torch.index_select(scores, 0, self.X, out=self.gathered)  # one gather over X
        torch.zeros_like(scores).index_add_(0, self.X, self.gathered)  # one scatter over X
        self.E.addr_(self.rank2[:, 0], self.P[:, 0], alpha=-1.0).addr_(self.rank2[:, 1], self.P[:, 1], alpha=-1.0)


def autograd_step(model: CLSAttention, X: torch.Tensor, y: torch.Tensor, lr: float) -> None:
    """Forward, backward through autograd, and an in-place SGD update of E, p, v."""
    model.zero_grad(set_to_none=True)
    logistic_loss(model(X), y).backward()
    with torch.no_grad():
        for parameter in (model.E, model.p, model.v):
            parameter.sub_(parameter.grad, alpha=lr)
    model.zero_grad(set_to_none=True)


def naive_step(model: CLSAttention, X: torch.Tensor, y: torch.Tensor, batch: int, fraction: float) -> tuple[float, int]:
    """Forward+backward gathering E[X] batch by batch; returns (seconds, batches run)."""
    model.zero_grad(set_to_none=True)
    n = X.shape[0]
    batches = range(0, n, batch)
    run = max(1, math.ceil(len(batches) * fraction))
    synchronize(X.device)
    start = time.perf_counter()
    for first in tqdm(list(batches)[:run], desc="naive form", leave=False):
        embedded = model.E[X[first : first + batch]]  # (b, T, d): the tensor the fast form avoids
        weights = torch.softmax(embedded @ model.p, dim=-1)
        logits = (weights * (embedded @ model.v)).sum(-1)
        (logistic_loss(logits, y[first : first + batch]) * logits.shape[0] / n).backward()
    synchronize(X.device)
    model.zero_grad(set_to_none=True)
    return time.perf_counter() - start, run


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=25_000)
    parser.add_argument("--T", type=int, default=512)
    parser.add_argument("--V", type=int, default=50_000)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds of floor and step (after one warm-up)")
    parser.add_argument("--autograd-repeats", type=int, default=2, help="timed autograd steps (0 to skip)")
    parser.add_argument("--lr", type=float, default=1e-3, help="step size of the timed steps")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for torch (default: torch's choice)")
    parser.add_argument("--profile", action="store_true", help="print a torch.profiler table of one fused step")
    parser.add_argument("--naive-batch", type=int, default=32, help="sequences per batch of the naive form")
    parser.add_argument("--naive-fraction", type=float, default=0.0, help="share of the naive pass to time (0: skip)")
    args = parser.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    torch.manual_seed(0)
    X = torch.randint(0, args.V, (args.n, args.T), device=device)
    y = (torch.randint(0, 2, (args.n,), device=device) * 2 - 1).float()
    model = CLSAttention(args.V, args.d, seed=0, p_init="random").to(device)
    hardware = (
        torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else f"{platform.processor() or 'CPU'}, {torch.get_num_threads()} threads"
    )
    size_E, size_X = model.E.numel() * model.E.element_size() / MiB, X.numel() * X.element_size() / MiB
    print(f"n={args.n} T={args.T} V={args.V} d={args.d} float32 on {device} ({hardware}), torch {torch.__version__}")
    print(f"E: {size_E:.0f} MiB, X (int64): {size_X:.0f} MiB")

    floor, stepper = Floor(model, X), FullBatchGD(model, X, y)
    kept = stepper.ids.numel() * stepper.ids.element_size() / MiB
    print(f"the fused step keeps the ids as (T, n) {stepper.ids.dtype}: {kept:.0f} MiB, allocated once")
    step = lambda: stepper.step_(args.lr)  # noqa: E731
    floor(), step()
    floors, steps = [], []
    for _ in range(args.repeats):
        floors.append(timed(floor, device))
        steps.append(timed(step, device))
    ratio = median(steps) / median(floors)
    for name, times in (("floor (plain passes):", floors), ("fused step + update: ", steps)):
        print(f"{name}  {median(times) * 1e3:8.1f} ms  (median of {args.repeats}, fastest {min(times) * 1e3:.1f}; {load()})")
    print(
        f"ratio step / floor:    {ratio:8.2f}   (per-round ratios {min(s / f for s, f in zip(steps, floors, strict=True)):.2f}"
        f" to {max(s / f for s, f in zip(steps, floors, strict=True)):.2f})"
    )
    limit = size_E + size_X
    for name, run in (("floor", floor), ("fused step", step)):
        extra = peak_extra_mib(run, device)
        print(f"peak memory of {name}: {extra:7.0f} MiB above E and X (limit {limit:.0f} MiB: total under 2 x (E + X))")

    if args.autograd_repeats:
        run = lambda: autograd_step(model, X, y, args.lr)  # noqa: E731
        run()
        seconds = median([timed(run, device) for _ in range(args.autograd_repeats)])
        extra = peak_extra_mib(run, device)
        print(
            f"autograd step + SGD:   {seconds * 1e3:8.1f} ms  ({seconds / median(floors):.2f}x floor, "
            f"peak {extra:.0f} MiB above E and X; {load()})"
        )

    if args.profile:
        with torch.profiler.profile() as profiler:
            step()
        print(profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))

    if args.naive_fraction > 0:
        seconds, run_batches = naive_step(model, X, y, args.naive_batch, args.naive_fraction)
        total = math.ceil(args.n / args.naive_batch)
        naive = seconds * total / run_batches
        measured = "measured" if run_batches == total else f"scaled up from {run_batches} of {total} batches"
        print(f"gather-then-attend:    {naive:8.3f} s per forward+backward ({measured}; {load()})")
        print(f"speed-up of the fused step: {naive / median(steps):8.1f}x")


if __name__ == "__main__":
    main()
