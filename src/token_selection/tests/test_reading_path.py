"""token_selection.reading_path: the visible layer of a built page and the machinery classifier."""

from __future__ import annotations

import pytest

from token_selection import reading_path as rp

PAGE = """<html><body><nav>Menu text is not read at all here.</nav><article class="bd-article">
<h1>The model</h1>
<p>The scores <span class="math">z_i</span> decide where the attention goes in a sentence.</p>
<aside class="margin sidebar"><p>[abstract] The abstract states it in one sentence.</p></aside>
<div class="cell tag_hide-input"><details class="hide above-input"><summary>Show code</summary>
<div class="cell_input"><pre>assert x == 1
print("ok")</pre></div></details>
<div class="cell_output"><pre>✓ 4 checks passed</pre></div></div>
<div class="cell"><div class="cell_input"><pre>y = 2
    assert y == 2</pre></div></div>
<details class="sd-dropdown"><summary>How this page checks itself</summary><p>The tolerance is wide.</p></details>
<div class="solution dropdown admonition"><p>A folded solution is not on the path.</p></div>
<p>The check below has teeth because the tolerance is tight.</p>
<img src="a.png"><br>
<p>Each row moves along the same direction v after the step.</p>
</article><footer>Footer words are not read either.</footer></body></html>"""


def test_reading_path_keeps_the_visible_layer_only():
    path = rp.reading_path(PAGE)
    assert "where the attention goes" in path.prose and " x " in path.prose
    for hidden in ("abstract", "How this page", "tolerance is wide", "folded solution", "Menu", "Footer", "✓"):
        assert hidden not in path.prose
    assert rp.assert_lines(path.code) == ["assert y == 2"]  # the folded cell's assert is not visible


def test_machinery_share_counts_sentences_of_the_reading_path():
    share, machinery, total = rp.machinery_share(rp.reading_path(PAGE).prose)
    assert (machinery, total) == (1, 3) and share == pytest.approx(1 / 3)
    assert rp.machinery_share("") == (0.0, 0, 0)


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("*[discussion]* Reviewer q6jg asks about the protocol here.", "provenance"),
        ("So ±0.2 is about 3.6 standard errors of the spread.", "checks"),
        ("The record imdb-one_layer-joint was written at the full scale.", "infrastructure"),
        ("The grid is loaded from the cache when it exists.", "infrastructure"),
        ("Every row moves along the same direction v.", None),
        ("The margin gamma is the inverse norm of p_mm.", None),
        ("The test accuracy of the model rises with the step.", "checks"),  # a known false positive
    ],
)
def test_the_classifier_on_examples(sentence, kind):
    assert rp.machinery_kind(sentence) == kind


def test_sentences_split_at_full_stops_and_drop_fragments():
    text = "First sentence is here. Second one follows it. Ok.\n\nA heading\n\nThen a new paragraph starts here"
    assert rp.sentences(text) == ["First sentence is here.", "Second one follows it.", "Then a new paragraph starts here"]
