"""Loop appendix A1's float64 gradient check until it fails, and measure how far it is from failing.

Appendix A1 compares the gradients of the logistic loss in E, p and v computed by the
package's fast form (``model(X)``) and by gather-then-attend (``ts.gather_then_attend``)
on a random float64 problem (n=300, T=64, V=2000, d=128, |p| = 5, seed 1) and requires a
relative difference ``|fast - gather| / |gather|`` below 1e-12 for each gradient. This
script repeats that check, with the chapter's inputs and with other seeds, at 1 and 2
torch threads, until a time limit, and for every (seed, threads) prints the largest
relative difference seen. A failing run saves both gradients to a .npz under /tmp.

It also measures the rounding noise of each route on its own: the same problem with the
sequences and the positions inside each sequence permuted (the loss is invariant; only the
order of the floating-point sums changes), so a failure can be compared with the spread
that summation order alone produces.

    python benchmarks/a1_float64_flake.py                    # 5 seeds, 1 and 2 threads, 300 s
    python benchmarks/a1_float64_flake.py --seconds 60 --seeds 1
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import torch

import token_selection as ts

TOLERANCE = 1e-12
NAMES = ("E", "p", "v")


def random_problem(n: int, T: int, V: int, d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, ts.CLSAttention]:
    """The chapter's problem: token ids (n, T), labels (n,) and a float64 model with |p| = 5."""
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(0, V, (n, T), generator=gen)
    y = torch.where(torch.rand(n, generator=gen) < 0.5, 1.0, -1.0).double()
    model = ts.CLSAttention(V, d, seed=seed, dtype=torch.float64, p_init="random")
    with torch.no_grad():
        model.p.mul_(5.0 / model.p.norm())
    return X, y, model


def gradients(route: str, model: ts.CLSAttention, X: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
    """The chapter's forward + backward: gradients of E (V, d), p (d,), v (d,)."""
    model.zero_grad()
    if route == "fast":
        logits = model(X)
    else:
        logits = ts.gather_then_attend(model.E, model.p, model.v, X)[0]
    ts.logistic_loss(logits, y).backward()
    return [model.E.grad.clone(), model.p.grad.clone(), model.v.grad.clone()]


def relative(a: torch.Tensor, b: torch.Tensor) -> float:
    """The chapter's measure: |a - b| / |b| (Frobenius norms)."""
    return float((a - b).norm() / b.norm())


def permutation_noise(model: ts.CLSAttention, X: torch.Tensor, y: torch.Tensor, route: str, tries: int) -> list[float]:
    """Largest relative change of each gradient of ``route`` when sequences and positions are permuted."""
    reference = gradients(route, model, X, y)
    worst = [0.0, 0.0, 0.0]
    gen = torch.Generator().manual_seed(12345)
    for _ in range(tries):
        rows = torch.randperm(X.shape[0], generator=gen)
        cols = torch.argsort(torch.rand(X.shape, generator=gen), dim=1)
        Xp = torch.gather(X[rows], 1, cols)
        grads = gradients(route, model, Xp, y[rows])
        worst = [max(w, relative(g, r)) for w, g, r in zip(worst, grads, reference, strict=True)]
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="time limit of the loop")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5], help="problem seeds (1 is A1's)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path, default=Path("/tmp/a1_float64_flake"))
    args = parser.parse_args()

    print(f"torch {torch.__version__}, numpy {np.__version__}, python {platform.python_version()}, {platform.machine()}")
    print(f"torch config: {torch.__config__.parallel_info().splitlines()[0:3]}")
    problems = {seed: random_problem(300, 64, 2000, 128, seed) for seed in args.seeds}

    for seed, (X, y, model) in problems.items():
        fast, slow = gradients("fast", model, X, y), gradients("gather", model, X, y)
        norms = ", ".join(f"|grad_{n}| = {float(g.norm()):.3e}" for n, g in zip(NAMES, slow, strict=True))
        noise_fast = permutation_noise(model, X, y, "fast", 5)
        noise_slow = permutation_noise(model, X, y, "gather", 5)
        print(f"seed {seed}: {norms}")
        for i, name in enumerate(NAMES):
            print(
                f"  grad_{name}: fast vs gather {relative(fast[i], slow[i]):.2e}; order noise (5 permutations) "
                f"fast {noise_fast[i]:.2e}, gather {noise_slow[i]:.2e}"
            )

    worst: dict[tuple[int, int], list[float]] = {}
    runs = failures = 0
    start = time.perf_counter()
    original_threads = torch.get_num_threads()
    while time.perf_counter() - start < args.seconds:
        for threads in args.threads:
            torch.set_num_threads(threads)
            for seed, (X, y, model) in problems.items():
                fast, slow = gradients("fast", model, X, y), gradients("gather", model, X, y)
                rel = [relative(a, b) for a, b in zip(fast, slow, strict=True)]
                key = (seed, threads)
                worst[key] = [max(w, r) for w, r in zip(worst.get(key, [0.0] * 3), rel, strict=True)]
                runs += 1
                if max(rel) >= TOLERANCE:
                    failures += 1
                    args.out.mkdir(parents=True, exist_ok=True)
                    path = args.out / f"failure_{failures}_seed{seed}_threads{threads}.npz"
                    np.savez(
                        path,
                        **{f"fast_{n}": g.numpy() for n, g in zip(NAMES, fast, strict=True)},
                        **{f"gather_{n}": g.numpy() for n, g in zip(NAMES, slow, strict=True)},
                        X=X.numpy(),
                        y=y.numpy(),
                    )
                    diff = [float((a - b).abs().max()) for a, b in zip(fast, slow, strict=True)]
                    print(
                        f"FAILURE {failures} (run {runs}, seed {seed}, {threads} threads): relative {rel}, "
                        f"largest absolute differences {diff}; saved {path}"
                    )
    torch.set_num_threads(original_threads)

    elapsed = time.perf_counter() - start
    print(f"\n{runs} checks in {elapsed:.0f} s, {failures} failures (tolerance {TOLERANCE:.0e})")
    for (seed, threads), rel in sorted(worst.items()):
        print(
            f"  seed {seed}, {threads} thread(s): largest relative difference "
            + ", ".join(f"grad_{n} {r:.2e}" for n, r in zip(NAMES, rel, strict=True))
        )


if __name__ == "__main__":
    main()
