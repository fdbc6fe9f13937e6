"""The course's synthetic generator (our choice; the paper's Eq. 15 is not public).

Vocabulary: ``m`` positive-relevant tokens (ids 0..m-1), ``m`` negative-relevant
tokens (ids m..2m-1), the rest irrelevant. Each of the T positions of a sequence
holds, independently, with probability ``delta`` a relevant token of the
sequence's own class, otherwise an irrelevant token; a sequence that drew no
relevant token gets one at a random position. Within each group tokens follow
a Zipf law. With ``balanced=True`` sequences come in twins with the same
irrelevant tokens and opposite labels, so every irrelevant token has signed
frequency exactly 0.

``REFERENCE_CASE`` names the one synthetic case the course returns to (data and the
model after one step on the embeddings), so that it is written down once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..validation import check_delta, check_positive_int
from .model import CLSAttention
from .one_step import one_step_embeddings, step_size_threshold


@dataclass(frozen=True)
class SyntheticData:
    """A synthetic dataset.

    X: (n, T) int64 token ids; y: (n,) int64 labels in {-1, +1};
    relevant: (n, T) bool, True where the position holds a relevant token;
    token_class: (V,) int64, +1 positive-relevant, -1 negative-relevant, 0 irrelevant.
    """

    X: torch.Tensor
    y: torch.Tensor
    relevant: torch.Tensor
    token_class: torch.Tensor

    @property
    def vocab_size(self) -> int:
        return int(self.token_class.shape[0])

    def relevant_per_sequence(self) -> torch.Tensor:
        """(n,) number of distinct relevant tokens in each sequence."""
        marked = torch.where(self.relevant, self.X, -1)
        return torch.tensor([len(set(row.tolist()) - {-1}) for row in marked])

    def satisfies_assumption_1(self) -> bool:
        """True when every sequence holds exactly one distinct relevant token."""
        return bool((self.relevant_per_sequence() == 1).all())


def zipf_probabilities(k: int, exponent: float) -> np.ndarray:
    """(k,) probabilities proportional to 1 / rank**exponent (exponent 0 = uniform)."""
    weights = 1.0 / np.arange(1, k + 1, dtype=np.float64) ** exponent
    return weights / weights.sum()


def make_synthetic(
    n: int,
    T: int,
    vocab_size: int,
    delta: float,
    *,
    n_relevant: int | None = None,
    zipf: float = 1.0,
    balanced: bool = True,
    seed: int = 0,
) -> SyntheticData:
    """Draw ``n`` sequences of length ``T`` (see the module docstring).

    n_relevant: relevant tokens per class (``m``); default max(1, vocab_size // 10).
    Exactly n // 2 labels are +1. With ``balanced=True`` ``n`` must be even.
    """
    n = check_positive_int(n, "n", minimum=2)
    T = check_positive_int(T, "T")
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=3)
    delta = check_delta(delta)
    m = max(1, vocab_size // 10) if n_relevant is None else check_positive_int(n_relevant, "n_relevant")
    if 2 * m >= vocab_size:
        raise ValueError(f"n_relevant={m} leaves no irrelevant token: need 2 * n_relevant < vocab_size={vocab_size}")
    if not np.isfinite(zipf) or zipf < 0:
        raise ValueError(f"zipf must be a finite exponent >= 0, got {zipf}")
    if balanced and n % 2:
        raise ValueError(f"balanced=True pairs sequences into twins, so n must be even, got n={n}")

    rng = np.random.default_rng(seed)
    n_irrelevant = vocab_size - 2 * m
    n_base = n // 2 if balanced else n
    is_rel = rng.random((n_base, T)) < delta
    none = ~is_rel.any(axis=1)
    is_rel[none, rng.integers(0, T, size=int(none.sum()))] = True
    rank = rng.choice(m, size=(n_base, T), p=zipf_probabilities(m, zipf))
    irrelevant = 2 * m + rng.choice(n_irrelevant, size=(n_base, T), p=zipf_probabilities(n_irrelevant, zipf))

    if balanced:
        pos = np.where(is_rel, rank, irrelevant)
        neg = np.where(is_rel, m + rank, irrelevant)
        X = np.concatenate([pos, neg])
        y = np.concatenate([np.ones(n_base), -np.ones(n_base)])
        relevant = np.concatenate([is_rel, is_rel])
    else:
        y = np.where(rng.permutation(n) < n // 2, 1.0, -1.0)
        X = np.where(is_rel, np.where(y[:, None] > 0, rank, m + rank), irrelevant)
        relevant = is_rel
    order = rng.permutation(n)
    token_class = np.zeros(vocab_size, dtype=np.int64)
    token_class[:m], token_class[m : 2 * m] = 1, -1
    return SyntheticData(
        X=torch.from_numpy(X[order].astype(np.int64)),
        y=torch.from_numpy(y[order].astype(np.int64)),
        relevant=torch.from_numpy(relevant[order]),
        token_class=torch.from_numpy(token_class),
    )


@dataclass(frozen=True)
class ReferenceCase:
    """The course's reference Assumption-1 case (our choice of sizes).

    ``n`` sequences of length ``T`` over ``vocab_size`` tokens from ``make_synthetic``
    (balanced twins, ``delta``, ``seed``); a float64 ``CLSAttention`` of dimension ``d``
    from the same ``seed`` (E, v ~ N(0, I/d), p = 0) after one full-batch step of size
    ``eta`` on E. ``eta = 200`` is about 15 ``eta*`` of these data (``step_size_threshold``).
    """

    n: int = 200
    T: int = 8
    vocab_size: int = 50
    d: int = 512
    eta: float = 200.0
    delta: float = 0.0
    seed: int = 0

    def data(self) -> SyntheticData:
        """The synthetic data set of the case."""
        return make_synthetic(self.n, self.T, self.vocab_size, self.delta, seed=self.seed)

    def model_after_one_step(self, X: torch.Tensor | None = None, y: torch.Tensor | None = None) -> CLSAttention:
        """A fresh float64 model whose E took one step of size ``eta`` on (X, y) (default: the case's data).

        X: (n', T') token ids and y: (n',) labels, both or neither. ``p`` stays 0, ``v`` at its initial value.
        """
        if (X is None) != (y is None):
            raise ValueError("pass both X and y, or neither (then the case's own data are used)")
        if X is None:
            data = self.data()
            X, y = data.X, data.y
        model = CLSAttention(self.vocab_size, self.d, seed=self.seed, dtype=torch.float64)
        model.E.data.copy_(one_step_embeddings(model, X, y, self.eta))
        return model

    def step_factor(self, X: torch.Tensor | None = None, y: torch.Tensor | None = None) -> float:
        """The step ``eta`` as a multiple of ``eta*`` (``step_size_threshold``) at the case's ``d``, on (X, y).

        X: (n', T') token ids and y: (n',) labels, both or neither (then the case's own data are used).
        """
        if (X is None) != (y is None):
            raise ValueError("pass both X and y, or neither (then the case's own data are used)")
        if X is None:
            data = self.data()
            X, y = data.X, data.y
        return self.eta / step_size_threshold(X, y, self.vocab_size, self.d)

    def build(self) -> tuple[SyntheticData, CLSAttention]:
        """The data and the model after the one step on them."""
        data = self.data()
        return data, self.model_after_one_step(data.X, data.y)


REFERENCE_CASE = ReferenceCase()
"""n=200, T=8, V=50, d=512, eta=200, delta=0, seed 0: used by chapters 3-4, the explorer and the tests."""
