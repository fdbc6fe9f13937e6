"""Time one full-batch forward+backward of the model at IMDB scale.

Compares the package's fast exact form (gather the scalars (E p)[X], (E v)[X])
with the straightforward form (gather the embeddings E[X], an (n, T, d) tensor,
then attend), batched so that it fits in memory.

    python benchmarks/step.py                   # n=25,000, T=512, V=50,000, d=2048
    python benchmarks/step.py --device cuda     # on a GPU
    python benchmarks/step.py --naive-fraction 0.1   # time 10% of the naive pass and scale up
"""

from __future__ import annotations

import argparse
import math
import platform
import time

import torch
from tqdm.auto import tqdm

from token_selection import CLSAttention, logistic_loss


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def fast_step(model: CLSAttention, X: torch.Tensor, y: torch.Tensor) -> float:
    """One full-batch forward+backward through the fast exact form; returns seconds."""
    model.zero_grad(set_to_none=True)
    synchronize(X.device)
    start = time.perf_counter()
    logistic_loss(model(X), y).backward()
    synchronize(X.device)
    return time.perf_counter() - start


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
    return time.perf_counter() - start, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=25_000)
    parser.add_argument("--T", type=int, default=512)
    parser.add_argument("--V", type=int, default=50_000)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=int, default=5, help="timed fast steps (after one warm-up)")
    parser.add_argument("--naive-batch", type=int, default=32, help="sequences per batch of the naive form")
    parser.add_argument("--naive-fraction", type=float, default=1.0, help="share of the naive pass to time, then scale up")
    args = parser.parse_args()

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
    print(f"n={args.n} T={args.T} V={args.V} d={args.d} float32 on {device} ({hardware}), torch {torch.__version__}")

    fast_step(model, X, y)
    fast = sorted(fast_step(model, X, y) for _ in range(args.repeats))
    fast_median = fast[len(fast) // 2]
    print(f"fast exact form:     {fast_median:8.3f} s per full-batch step (median of {args.repeats})")

    seconds, run = naive_step(model, X, y, args.naive_batch, args.naive_fraction)
    total = math.ceil(args.n / args.naive_batch)
    naive = seconds * total / run
    measured = "measured" if run == total else f"scaled up from {run} of {total} batches"
    print(f"gather-then-attend:  {naive:8.3f} s per full-batch step ({measured})")
    print(f"speed-up:            {naive / fast_median:8.1f}x")


if __name__ == "__main__":
    main()
