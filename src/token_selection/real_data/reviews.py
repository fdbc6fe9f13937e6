"""Sentiment reviews (IMDB, Yelp polarity): from the Hugging Face hub, else from local Parquet files.

``load_reviews`` tries, in order:

1. the Hugging Face hub through ``datasets`` (``stanfordnlp/imdb``, ``fancyzhx/yelp_polarity``);
2. ``<dir>/<name>/<split>.parquet`` with ``dir`` = ``data_dir`` or ``$TOKEN_SELECTION_DATA``;
3. otherwise a ``FileNotFoundError`` that says what to set.

The result records where it came from (``Reviews.source``), so that every figure
and printed number can say so. The course's local Yelp copy is a stand-in built
from real Yelp reviews, not the ``yelp_polarity`` rows; ``Reviews.stand_in`` says
when it is used.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..validation import check_positive_int

DATA_VARIABLE = "TOKEN_SELECTION_DATA"
HUB_IDS = {"imdb": "stanfordnlp/imdb", "yelp_polarity": "fancyzhx/yelp_polarity"}
SPLITS = ("train", "test")
STAND_IN_NOTE = (
    "stand-in for yelp_polarity: real Yelp reviews labelled by the same star rule, not the Zhang et al. rows; see the data README"
)
_LOCAL_STAND_INS = {"yelp_polarity"}
STAND_IN_SOURCES = {
    "train": {"yue_train": 8_000, "yue_dev": 2_370, "kaggle": 2_680, "dcwe": 1_220},
    "test": {"yue_test": 2_282, "kaggle": 670, "dcwe": 304},
}
"""Rows of the local Yelp polarity stand-in, per split and source tag, as the build table of its data README gives
them (the files have no source column): ``yue_*`` from the Yelp corpus of Yue et al. (2023), ``kaggle`` and
``dcwe`` from two public samples of the Yelp Open Dataset. Tests check each split's total against the files and
every number against the README."""
HUB_ROWS = {"imdb": {"train": 25_000, "test": 25_000}, "yelp_polarity": {"train": 560_000, "test": 38_000}}
"""Reviews per split of the datasets themselves (Maas et al. 2011 for IMDB, Zhang et al. 2015 for Yelp polarity);
the local IMDB copy is the dataset itself, and a test checks its files against these counts."""


def stand_in_counts() -> dict[str, int]:
    """The stand-in's rows (``STAND_IN_SOURCES``): per split (``train``, ``test``), in all (``total``), and by origin:
    ``yue`` from the corpus of Yue et al. (the ``yue_*`` tags), ``open_dataset`` from the other sources."""
    counts = {split: sum(rows.values()) for split, rows in STAND_IN_SOURCES.items()}
    counts["total"] = sum(counts[split] for split in STAND_IN_SOURCES)
    counts["yue"] = sum(n for rows in STAND_IN_SOURCES.values() for tag, n in rows.items() if tag.startswith("yue_"))
    counts["open_dataset"] = counts["total"] - counts["yue"]
    return counts


@dataclass(frozen=True)
class Reviews:
    """Review texts with binary labels and where they came from.

    texts: n strings; labels: (n,) int64 in {0, 1} (1 = positive); source: a
    human-readable origin; fingerprint: a string that changes when the data do
    (file checksum or hub fingerprint); stand_in: True for a local copy that is not
    the named dataset itself; hub_error: why the hub was not used (None if it was).
    """

    name: str
    split: str
    texts: list[str]
    labels: np.ndarray
    source: str
    fingerprint: str
    stand_in: bool = False
    hub_error: str | None = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.texts)


def check_dataset_name(name: str) -> str:
    """Validate a dataset name against ``HUB_IDS``."""
    if name not in HUB_IDS:
        raise ValueError(f"name must be one of {sorted(HUB_IDS)}, got {name!r}")
    return name


def validated_labels(labels, name: str = "labels") -> np.ndarray:
    """Labels as an (n,) int64 array, all in {0, 1}; ValueError otherwise."""
    array = np.asarray(labels)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind not in "iub" and not (array.dtype.kind == "f" and np.all(np.mod(array, 1) == 0)):
        raise ValueError(f"{name} must hold integer class labels 0/1, got dtype {array.dtype}")
    bad = sorted(set(np.unique(array).tolist()) - {0, 1})
    if bad:
        raise ValueError(f"{name} must all be 0 (negative) or 1 (positive), got other values {bad[:5]}")
    return array.astype(np.int64)


def _hub_unreachable_reason() -> str | None:
    """A reason to skip the hub at once, or None to try it.

    Without a proxy, a host name that does not resolve means no network: skip the
    hub rather than wait ~20 s for ``datasets``' retries. HF_HUB_OFFLINE=1 is left
    to ``datasets`` itself, which then fails at once.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return None  # datasets fails at once, or finds a copy in its own cache
    if any(os.environ.get(k) for k in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")):
        return None
    host = os.environ.get("HF_ENDPOINT", "https://huggingface.co").split("//")[-1].split("/")[0].split(":")[0]
    try:
        socket.getaddrinfo(host, 443)
    except OSError as error:
        return f"cannot resolve {host} ({error})"
    return None


def _load_from_hub(name: str, split: str) -> tuple[list[str], np.ndarray, str]:
    """(texts, labels, fingerprint) of a hub split; raises on any failure."""
    reason = _hub_unreachable_reason()
    if reason is not None:
        raise ConnectionError(reason)
    import datasets  # imported here: it takes a second and is only needed for the hub

    dataset = datasets.load_dataset(HUB_IDS[name], split=split)
    return list(dataset["text"]), np.asarray(dataset["label"]), f"hub:{HUB_IDS[name]}:{dataset._fingerprint}"


def data_directory(data_dir: str | os.PathLike | None) -> Path | None:
    """``data_dir`` if given, else ``$TOKEN_SELECTION_DATA`` if set, else None."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    named = os.environ.get(DATA_VARIABLE, "").strip()
    return Path(named).expanduser() if named else None


def _load_from_parquet(path: Path) -> tuple[list[str], np.ndarray, str]:
    """(texts, labels, fingerprint) of a local Parquet file with columns text, label."""
    import pandas as pd

    from ..disk_cache import file_sha256

    frame = pd.read_parquet(path, columns=["text", "label"])
    return frame["text"].tolist(), frame["label"].to_numpy(), f"parquet:{file_sha256(path)}"


def load_reviews(
    name: str,
    split: str,
    *,
    data_dir: str | os.PathLike | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> Reviews:
    """Load ``split`` ("train" or "test") of ``name`` ("imdb" or "yelp_polarity").

    Tries the hub, then ``<data_dir or $TOKEN_SELECTION_DATA>/<name>/<split>.parquet``
    (see the module docstring). ``limit``: keep a random subset of at most this
    many reviews, drawn with ``seed`` (None keeps all, in the source's order).
    Raises FileNotFoundError naming what to set when neither source is available.
    """
    check_dataset_name(name)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if limit is not None:
        limit = check_positive_int(limit, "limit")
    try:
        texts, labels, fingerprint = _load_from_hub(name, split)
        source, stand_in, hub_error = f"Hugging Face hub: {HUB_IDS[name]} ({split})", False, None
    except Exception as error:  # the hub fails in many ways (offline, DNS, HTTP, missing cache); all mean "use local"
        hub_error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else 'no message'}"
        directory = data_directory(data_dir)
        if directory is None:
            raise FileNotFoundError(
                f"Could not load {name!r} from the Hugging Face hub ({hub_error}), and no local copy is configured. "
                f"Set the environment variable {DATA_VARIABLE} (or pass data_dir=) to a directory holding "
                f"{name}/{split}.parquet with columns text, label."
            ) from None
        path = directory / name / f"{split}.parquet"
        if not path.is_file():
            raise FileNotFoundError(
                f"Could not load {name!r} from the Hugging Face hub ({hub_error}), and the local copy {path} does not exist. "
                f"Set {DATA_VARIABLE} (or pass data_dir=) to a directory holding {name}/{split}.parquet."
            ) from None
        texts, labels, fingerprint = _load_from_parquet(path)
        stand_in = name in _LOCAL_STAND_INS
        source = f"local Parquet: {path}" + (f" ({STAND_IN_NOTE})" if stand_in else "")
    labels = validated_labels(labels, f"labels of {name}/{split}")
    if len(texts) != len(labels):
        raise ValueError(f"{name}/{split} has {len(texts)} texts but {len(labels)} labels")
    if limit is not None and limit < len(texts):
        keep = np.sort(np.random.default_rng(seed).choice(len(texts), size=limit, replace=False))
        texts, labels = [texts[i] for i in keep], labels[keep]
        source += f", random {limit:,} of them (seed {seed})"
        fingerprint += f":limit={limit}:seed={seed}"
    return Reviews(name, split, texts, labels, source, fingerprint, stand_in, hub_error)


def split_validation(reviews: Reviews, fraction: float = 0.1, *, seed: int = 0) -> tuple[Reviews, Reviews]:
    """Carve a validation set out of ``reviews``: (rest, validation), stratified by label, seeded.

    fraction: share of each class that goes to validation, in (0, 1).
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must lie strictly between 0 and 1, got {fraction}")
    rng = np.random.default_rng(seed)
    held = []
    for label in (0, 1):
        rows = np.flatnonzero(reviews.labels == label)
        held.append(rng.choice(rows, size=int(round(fraction * len(rows))), replace=False))
    is_held = np.zeros(len(reviews), dtype=bool)
    is_held[np.concatenate(held)] = True
    if is_held.all() or not is_held.any():
        raise ValueError(f"fraction={fraction} leaves an empty part of {len(reviews)} reviews")

    def part(keep: np.ndarray, label: str) -> Reviews:
        rows = np.flatnonzero(keep)
        return Reviews(
            reviews.name,
            f"{reviews.split}/{label}",
            [reviews.texts[i] for i in rows],
            reviews.labels[rows],
            f"{reviews.source}; {label} part (seed {seed}, {fraction:.0%} held out)",
            f"{reviews.fingerprint}:{label}:{fraction}:{seed}",
            reviews.stand_in,
            reviews.hub_error,
        )

    return part(~is_held, "train"), part(is_held, "validation")


_TOY_WORDS = {
    1: ["great", "wonderful", "loved", "superb", "enjoyable"],
    0: ["awful", "boring", "hated", "terrible", "dull"],
    -1: ["the", "a", "film", "movie", "plot", "actor", "scene", "story", "it", "was", "and", "of"],
}


def make_toy_reviews(n: int, *, length: int = 12, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """A tiny synthetic review set in plain words, for tests and for trying the pipeline offline.

    n reviews with labels alternating 0, 1; each has ``length`` words: mostly neutral
    filler, plus one to three words of its own class. Some words are capitalised and
    some reviews hold an HTML line break, as real reviews do. Returns (texts, labels (n,)).
    """
    n, length = check_positive_int(n, "n"), check_positive_int(length, "length", minimum=4)
    rng = np.random.default_rng(seed)
    labels = np.arange(n, dtype=np.int64) % 2
    texts = []
    for label in labels:
        words = list(rng.choice(_TOY_WORDS[-1], size=length))
        for position in rng.choice(length, size=int(rng.integers(1, 4)), replace=False):
            words[position] = str(rng.choice(_TOY_WORDS[int(label)]))
        words[0] = words[0].capitalize()
        if rng.random() < 0.3:
            words[length // 2] += ".<br /><br />"
        texts.append(" ".join(words))
    return texts, labels


def write_parquet_split(directory: str | os.PathLike, name: str, split: str, texts: list[str], labels) -> Path:
    """Write ``<directory>/<name>/<split>.parquet`` with columns text, label: the layout ``load_reviews`` reads."""
    import pandas as pd

    check_dataset_name(name)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    path = Path(directory) / name / f"{split}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"text": list(texts), "label": validated_labels(labels)}).to_parquet(path)
    return path
