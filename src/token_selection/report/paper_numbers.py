"""The sources' numbers under the name the chapters import (``report.paper_numbers``).

They live in ``token_selection.sources``, the package's lowest layer; this module only
re-exports them, so ``from token_selection.report import paper_numbers as pn`` keeps working.
"""

from __future__ import annotations

from ..sources import (
    EMBEDDING_DIMENSION,
    FROZEN_ACCURACY,
    FROZEN_TEST_LOSS,
    ONE_STEP_STD_RATIO_SCORES,
    ONE_STEP_STD_RATIO_VALUES,
    REBUTTAL_BIN_CENTRES,
    REBUTTAL_KEY_QUERY,
    REBUTTAL_MLP,
    REBUTTAL_YELP_STARS,
    TRAINED_ACCURACY,
    TRAINED_TEST_LOSS,
    VOCABULARY_SIZES,
)

__all__ = [
    "EMBEDDING_DIMENSION",
    "FROZEN_ACCURACY",
    "FROZEN_TEST_LOSS",
    "ONE_STEP_STD_RATIO_SCORES",
    "ONE_STEP_STD_RATIO_VALUES",
    "REBUTTAL_BIN_CENTRES",
    "REBUTTAL_KEY_QUERY",
    "REBUTTAL_MLP",
    "REBUTTAL_YELP_STARS",
    "TRAINED_ACCURACY",
    "TRAINED_TEST_LOSS",
    "VOCABULARY_SIZES",
]
