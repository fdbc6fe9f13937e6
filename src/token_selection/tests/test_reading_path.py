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


def _prose(body: str) -> str:
    return rp.reading_path(f"<article>{body}</article>").prose


@pytest.mark.parametrize("tag", ["details", "aside", "script", "style", "template", "noscript"])
def test_each_hidden_element_hides_its_text(tag):
    prose = _prose(f"<p>Shown words.</p><{tag}><span>Hidden words.</span></{tag}><p>Shown again.</p>")
    assert "Hidden" not in prose and "Shown words." in prose and "Shown again." in prose


@pytest.mark.parametrize("cls", ["margin", "sidebar", "sidenote", "marginnote", "dropdown", "toggle-hidden"])
def test_each_hidden_class_hides_its_text_and_code(cls):
    path = rp.reading_path(
        f"<article><p>Shown.</p><div class='admonition {cls}'><p>Hidden.</p><pre>assert x</pre></div></article>"
    )
    assert path.prose == "\nShown.\n\n\n\n\n" and path.code == ""


@pytest.mark.parametrize("cls", ["math", "cell_output", "output"])
def test_maths_and_outputs_are_not_prose(cls):
    prose = _prose(f"<p>Before <span class='{cls}'>skipped</span> after.</p>")
    assert "skipped" not in prose and "Before" in prose and "after." in prose


def test_maths_becomes_x_only_where_it_is_visible_prose():
    assert _prose("<p>a <mjx-container>m</mjx-container> b</p>") == "\na  x  b\n"
    assert _prose("<p>a <span class='math notranslate'>m</span> b</p>") == "\na  x  b\n"
    assert _prose("<aside><span class='math'>m</span></aside><p>c</p>") == "\nc\n"  # hidden: no x
    assert _prose("<pre>code <span class='math'>m</span></pre>") == ""  # inside code: no x
    assert rp.reading_path("<span class='math'>m</span><article>z</article>").prose == "z"  # outside: no x
    assert _prose("<p>inline <code>not prose</code> words</p>") == "\ninline  words\n"


@pytest.mark.parametrize(
    "tag", ["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "section", "table", "tr"]
)
def test_blocks_break_lines(tag):
    assert _prose(f"a<{tag}>b</{tag}>c") == "a\nb\nc"


@pytest.mark.parametrize("tag", ["area", "base", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])
def test_void_elements_close_themselves(tag):
    # were a void element kept open, its class would hide the words after it
    assert _prose(f"<p>one <{tag} class='margin'> two</p>") == "\none  two\n"
    assert _prose(f"<p>one <{tag} class='margin'></{tag}> two</p>") == "\none  two\n"


def test_a_line_break_breaks_the_line_and_a_double_one_the_paragraph():
    prose = _prose("one two three four<br>still the same<br><br>Five six seven eight")
    assert prose == "one two three four\nstill the same\n\nFive six seven eight"
    assert rp.sentences(prose) == ["one two three four still the same", "Five six seven eight"]


def test_only_the_article_is_read_and_code_keeps_its_lines():
    html = "<p>menu</p><article><p>in one</p></article><p>between</p><article><pre>x = 1\nassert x</pre><p>in two</p></article>"
    path = rp.reading_path(html)
    assert path.prose == "\n\n\nin one\n\n\n\nin two\n" and path.code  # blocks outside break lines too == "x = 1\nassert x"
    nested = rp.reading_path("<article>a<article>b</article>c</article>d")
    assert nested.prose == "abc"
    assert rp.reading_path("<article>a<pre>b</pre></article><pre>outside</pre>").code == "b"


def test_an_end_tag_closes_the_elements_left_open_inside_it():
    assert _prose("<div><aside><p>hidden</div><p>shown</p>") == "\n\n\n\nshown\n"


def test_assert_lines_are_lines_whose_first_word_is_assert():
    code = "x = 1\n    assert x == 1, 'msg'\nasserted = 2\n# assert nothing\nassert(x)\nnot assert"
    assert rp.assert_lines(code) == ["assert x == 1, 'msg'", "assert(x)"]
    assert rp.assert_lines("") == []


def test_sentences_end_before_quotes_brackets_emphasis_code_and_maths():
    text = (
        'Then it trains for a while. "Quoted words start this one." (A bracketed sentence follows here.) '
        "*Emphasis starts this one here.* More words come after it. `code` starts this sentence too. "
        "$x$ starts a maths sentence here.\n\n- a list item in its own paragraph"
    )
    assert rp.sentences(text) == [
        "Then it trains for a while.",
        '"Quoted words start this one.',  # the closing quote or bracket goes with the break
        "(A bracketed sentence follows here.",
        "*Emphasis starts this one here.* More words come after it.",  # "*" closes nothing: no break
        "`code` starts this sentence too.",
        "$x$ starts a maths sentence here.",
        "- a list item in its own paragraph",
    ]
    assert rp.sentences("Is it so? Yes it is so! No doubt about it. e.g. this stays one sentence here") == [
        "Yes it is so!", "No doubt about it. e.g. this stays one sentence here",
    ]  # fmt: skip
    assert rp.sentences("Three words only. Four words are kept.") == ["Four words are kept."]


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("The claim is tagged [derived] in the margin.", "provenance"),
        ("The claim is tagged [ours] in the margin.", "provenance"),
        ("The claim is tagged [inferred] in the margin.", "provenance"),
        ("Reviewer vwUg asked the same question.", "provenance"),
        ("The authors' reply gives the ratio.", "provenance"),
        ("As OpenReview shows, the thread is long.", "provenance"),
        ("Both our sources agree on this point.", "provenance"),
        ("The provenance of each row is given.", "provenance"),
        ("The rebuttal gives a second table.", "provenance"),
        ("The value is asserted below for you.", "checks"),
        ("A tolerance of one percent is enough.", "checks"),
        ("The check has teeth in this case.", "checks"),
        ("This cell is compared by nbval every time.", "checks"),
        ("It passes by a wide margin every time.", "checks"),
        ("Each run is recorded with its machine.", "infrastructure"),
        ("At the `full` scale it takes hours.", "infrastructure"),
        ("Run it with scale fast to see it.", "infrastructure"),
        ("The file grid.json holds every cell.", "infrastructure"),
        ("Its sha256 is printed next to it.", "infrastructure"),
        ("It runs on CI after each push.", "infrastructure"),
        ("Run scripts/run_records.py to redo it.", "infrastructure"),
        ("Type make book to build the pages.", "infrastructure"),
        ("Set TOKEN_SELECTION_DATA to the folder.", "infrastructure"),
        ("The results are written as json files.", "infrastructure"),
        ("The attention concentrates on one token.", None),
        ("The tests of strength are in the next chapter.", "checks"),
    ],
)
def test_every_family_on_more_examples(sentence, kind):
    assert rp.machinery_kind(sentence) == kind
    assert rp.is_machinery(sentence) is (kind is not None)


def test_the_first_matching_family_is_named_and_the_share_is_exact():
    assert rp.machinery_kind("The rebuttal's record is checked.") == "provenance"
    assert rp.machinery_kind("The record is checked.") == "checks"
    assert list(rp.MACHINERY) == ["provenance", "checks", "infrastructure"]
    prose = (
        "The model reads every token here.\n\nThe record holds the result here.\n\n"
        "A third plain sentence is here.\n\nOne more plain sentence is here."
    )
    assert rp.machinery_share(prose) == (0.25, 1, 4)


def test_entities_are_read_as_their_characters_and_code_keeps_every_piece():
    path = rp.reading_path("<article><p>Tom &amp; Jerry &lt;3 &#955;</p><pre>a <span>b</span>&amp;c</pre></article>")
    assert path.prose == "\nTom & Jerry <3 λ\n" and path.code == "a b&c"


def test_what_is_not_prose_stays_so_in_nested_elements():
    assert _prose("<p>a <span class='math'><span><em>inner</em></span></span> b</p>") == "\na  x  b\n"
    assert _prose("<p>a <code><span>inner</span></code> b</p>") == "\na  b\n"
    assert _prose("<div class='cell_output'><p>printed</p></div><p>c</p>") == "\n\n\n\n\nc\n"
