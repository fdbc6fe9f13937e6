"""Time full-scale training of the one-layer model on IMDB (E, p, v jointly, the fast exact form).

Uses the full-scale settings of the real-data chapters (``real_data_settings("full")``:
all 25,000 training reviews, 10% of them held out for early stopping, T = 512,
d = 2048, Adam, float32) and trains from scratch (no checkpoint is read). Prints the
time per epoch, the total time, validation and test accuracy, and the hardware.

    python benchmarks/train_imdb.py                     # CUDA when available, else the CPU
    python benchmarks/train_imdb.py --device cpu --epochs 3
    python benchmarks/train_imdb.py --d 256             # a smaller model

The reviews come from the Hugging Face hub or from ``$TOKEN_SELECTION_DATA`` (see
``token_selection.real_data.reviews``); tokenisation is cached and timed separately.
"""

from __future__ import annotations

import argparse
import platform
import time

import torch

from token_selection.machine import machine_description
from token_selection.real_data.encoding import prepare_reviews
from token_selection.real_data.registry import build_model
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.trainer import accuracy, train_model


def main() -> None:
    full = real_data_settings("full")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--d", type=int, default=full.d)
    parser.add_argument("--epochs", type=int, default=full.epochs)
    parser.add_argument("--T", type=int, default=full.T)
    parser.add_argument("--batch-size", type=int, default=full.batch_size)
    parser.add_argument("--lr", type=float, default=full.lr)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for torch (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    settings = real_data_settings("full", d=args.d, epochs=args.epochs, T=args.T, batch_size=args.batch_size, lr=args.lr)

    start = time.perf_counter()
    data = prepare_reviews("imdb", **settings.data_arguments())
    print(data.describe())
    print(f"data ready in {time.perf_counter() - start:.1f} s ({'cache' if data.from_cache else 'tokenised now'})")
    print(
        f"one-layer model: V = {data.vocab_size:,}, d = {args.d}, T = {settings.T}, batch {settings.batch_size}, "
        f"Adam lr {settings.lr}, at most {settings.epochs} epochs (patience {settings.patience}), float32"
    )
    print(f"hardware: {machine_description(device)}; {platform.platform()}")

    model = build_model("one_layer", data.vocab_size, args.d, seed=settings.seed)
    history = train_model(
        model,
        data.train,
        data.validation,
        epochs=settings.epochs,
        batch_size=settings.batch_size,
        lr=settings.lr,
        patience=settings.patience,
        seed=settings.seed,
        device=device,
        desc="imdb one-layer",
    )
    for epoch, seconds, loss, val in zip(
        history.epoch, history.epoch_seconds, history.train_loss, history.validation_accuracy, strict=True
    ):
        print(f"epoch {epoch:2d}: {seconds:7.1f} s   train loss {loss:.4f}   validation accuracy {val:.2%}")
    test_start = time.perf_counter()
    test_accuracy = accuracy(model, data.test)
    print(f"{history.stop_reason}; kept epoch {history.best_epoch}")
    print(f"time per epoch: {sum(history.epoch_seconds) / len(history.epoch):.1f} s (mean of {len(history.epoch)})")
    print(f"total training time: {history.seconds:.1f} s ({history.seconds / 60:.1f} min) on {history.hardware}")
    print(f"test accuracy: {test_accuracy:.2%} on {len(data.test):,} reviews ({time.perf_counter() - test_start:.1f} s)")


if __name__ == "__main__":
    main()
