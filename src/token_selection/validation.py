"""Input checks shared by every public function.

Each check raises ``ValueError`` with a message that names the argument, says
what was wrong and what is allowed, so that bad input never reaches torch.
"""

from __future__ import annotations

import numpy as np
import torch

ArrayLike = torch.Tensor | np.ndarray


def as_tensor(x: ArrayLike, name: str) -> torch.Tensor:
    """Return ``x`` as a tensor (numpy arrays are converted without copying)."""
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x)
    raise ValueError(f"{name} must be a torch.Tensor or numpy array, got {type(x).__name__}")


def check_tokens(X: ArrayLike, vocab_size: int, name: str = "X") -> torch.Tensor:
    """Validate token ids.

    X: (n, T) integer tensor with every id in [0, vocab_size).
    Returns X as an int64 tensor.
    """
    X = as_tensor(X, name)
    if X.dim() != 2:
        raise ValueError(f"{name} must have shape (n, T), got shape {tuple(X.shape)}")
    if X.dtype.is_floating_point or X.dtype.is_complex or X.dtype == torch.bool:
        raise ValueError(f"{name} must hold integer token ids (int64 or int32), got dtype {X.dtype}")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"{name} must hold at least one sequence of at least one token, got shape {tuple(X.shape)}")
    lo, hi = int(X.min()), int(X.max())
    if lo < 0 or hi >= vocab_size:
        raise ValueError(
            f"{name} holds token ids in [{lo}, {hi}], but ids must lie in [0, {vocab_size}) (vocab_size={vocab_size})"
        )
    return X.long()


def check_mask(mask: ArrayLike | None, X: torch.Tensor, name: str = "mask") -> torch.Tensor | None:
    """Validate a padding mask.

    mask: (n, T) bool, True where a position holds a real token, or None (no padding).
    Every row must keep at least one position.
    """
    if mask is None:
        return None
    mask = as_tensor(mask, name)
    if mask.dtype != torch.bool:
        raise ValueError(f"{name} must be a bool tensor (True = real token), got dtype {mask.dtype}")
    if tuple(mask.shape) != tuple(X.shape):
        raise ValueError(f"{name} must have the shape of X {tuple(X.shape)}, got {tuple(mask.shape)}")
    empty = (~mask.any(dim=1)).nonzero().flatten()
    if len(empty):
        rows = ", ".join(str(int(i)) for i in empty[:5])
        raise ValueError(
            f"{name} marks every position of sequence(s) {rows} as padding; each sequence needs at least one real token"
        )
    return mask.to(X.device)


def check_labels(y: ArrayLike, n: int, name: str = "y", require_both: bool = True) -> torch.Tensor:
    """Validate binary labels and map them to {-1, +1}.

    y: (n,) labels, all in {0, 1} or all in {-1, +1} (integer or integral float).
    Returns a float64 tensor of -1.0 / +1.0.
    """
    y = as_tensor(y, name)
    if y.dim() != 1 or y.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},), one label per sequence, got shape {tuple(y.shape)}")
    if y.dtype.is_complex:
        raise ValueError(f"{name} must hold real labels, got dtype {y.dtype}")
    values = set(torch.unique(y.double()).tolist())
    if values <= {0.0, 1.0}:
        signed = 2.0 * y.double() - 1.0
    elif values <= {-1.0, 1.0}:
        signed = y.double()
    else:
        shown = sorted(values)[:6]
        raise ValueError(f"{name} must be all in {{0, 1}} or all in {{-1, +1}}, got values {shown}")
    if require_both and len(torch.unique(signed)) < 2:
        raise ValueError(f"{name} holds a single class; at least one sequence of each class is needed")
    return signed


def check_delta(delta: float, name: str = "delta") -> float:
    """Validate a probability in [0, 1]."""
    delta = float(delta)
    if not 0.0 <= delta <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {delta}")
    return delta


def check_positive_int(value: int, name: str, minimum: int = 1) -> int:
    """Validate an integer >= minimum."""
    if isinstance(value, bool) or int(value) != value:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_vector(x: ArrayLike, length: int, name: str) -> torch.Tensor:
    """Validate a 1-D vector of the given length."""
    x = as_tensor(x, name)
    if x.dim() != 1 or x.shape[0] != length:
        raise ValueError(f"{name} must have shape ({length},), got {tuple(x.shape)}")
    if not x.dtype.is_floating_point:
        raise ValueError(f"{name} must be a floating-point tensor, got dtype {x.dtype}")
    return x


def check_matrix(x: ArrayLike, name: str, shape: str = "(V, d)") -> torch.Tensor:
    """Validate a floating-point matrix: (rows, cols), any size; ``shape`` names its axes in messages."""
    x = as_tensor(x, name)
    if x.dim() != 2:
        raise ValueError(f"{name} must have shape {shape}, got {tuple(x.shape)}")
    if not x.dtype.is_floating_point:
        raise ValueError(f"{name} must be a floating-point matrix, got dtype {x.dtype}")
    return x


def check_finite(x: torch.Tensor, name: str) -> torch.Tensor:
    """Reject NaN or inf entries."""
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} contains NaN or inf")
    return x
