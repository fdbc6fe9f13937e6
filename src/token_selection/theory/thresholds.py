"""The course's thresholds for judging a run of training ``p``: defined once, cited by every chapter.

A run is judged by two numbers at its end: the cosine of ``p`` with a max-margin direction
(``solve_max_margin``) and the attention each training sequence puts on its selected tokens.
Both thresholds are the course's choices (the sources give none).

- ``DIRECTION_COSINE``: ``p`` has *reached* a max-margin direction when
  ``cos(p, p_mm) >= DIRECTION_COSINE``. Normalised GD approaches the direction only
  logarithmically in ``|p|`` and stops at the float64 floor (chapter 4), so a run that converges
  can end a little short of 1; runs that go elsewhere end far below (chapter 10 prints the
  end cosines of its runs). 0.95 separates the two without waiting for the floor.
- ``SELECTED_ATTENTION``: a sequence *selects* its relevant (or selected) tokens when they hold
  more than ``SELECTED_ATTENTION`` of its attention.

Chapters 4, 5, 10 and 11, the explorer and the studies use these two names; a chapter that
checks something stricter says so next to the check.
"""

from __future__ import annotations

DIRECTION_COSINE = 0.95
"""cos(p, p_mm) at or above which p counts as having reached the max-margin direction p_mm."""

SELECTED_ATTENTION = 0.99
"""Attention mass above which a sequence counts as selecting its relevant (selected) tokens."""

JUDGED_WORDS = (
    "judged as chapter 4 judges a run (selects: every sequence puts more than "
    f"{SELECTED_ATTENTION:g} of its attention on its relevant token; reaches p_mm: selects and cos(p, p_mm) >= "
    f"{DIRECTION_COSINE:g}). Wilson 95% intervals."
)
"""Chapter 4's judgement of a run and the intervals, in the words with which the studies' protocols end."""
