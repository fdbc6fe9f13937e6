import numpy as np
import pytest
import torch

from token_selection import prose


def test_plain_turns_scalars_into_python_numbers():
    assert type(prose.plain(np.float64(0.5))) is float
    assert type(prose.plain(np.int64(3))) is int
    assert type(prose.plain(torch.tensor(2.5))) is float
    assert prose.plain("24 of 24") == "24 of 24"
    with pytest.raises(ValueError, match="single number"):
        prose.plain(torch.zeros(2))


def test_glue_records_through_myst_nb(monkeypatch):
    seen = []
    monkeypatch.setattr(prose, "_myst_glue", lambda name, value, display: seen.append((name, value, display)))
    prose.glue("x", np.float32(0.25))
    assert seen == [("x", 0.25, False)] and type(seen[0][1]) is float


def test_glue_without_myst_nb_records_nothing(monkeypatch):
    monkeypatch.setattr(prose, "_myst_glue", None)
    prose.glue("x", 1.0)  # no error: Colab has no myst-nb


@pytest.mark.parametrize(
    "source",
    [
        'glue("ch9-n", 3)\nglue("ch9-m", 4, display=False)',
        '# the numbers the prose quotes\nfrom token_selection.prose import glue\n\nglue("a", a)',
        'for name, value in {"a": 1, "b": b}.items():\n    glue(f"ch11-{name}", value, display=False)',
        'for key in ("n", "T"):\n    glue(f"ch10-{key}", settings[key])\nglue("ch10-x", 1)',
        'ts.glue("x", 1)',
    ],
)
def test_glue_plumbing_recognises_cells_that_only_glue(source):
    assert prose.glue_plumbing(source)


@pytest.mark.parametrize(
    "source",
    [
        "",
        "from token_selection.prose import glue",
        'x = 1\nglue("x", x)',
        'glue("x", 1)\nprint(x)',
        "for k in keys:\n    glue(k, 1)\n    total += 1",
        "for k in keys:\n    glue(k, 1)\nelse:\n    pass",
        'from token_selection.prose import glue, plain\nglue("x", 1)',
        '%env X=1\nglue("x", 1)',
        'display(glue("x", 1))',
    ],
)
def test_glue_plumbing_rejects_cells_that_do_more(source):
    assert not prose.glue_plumbing(source)


def test_folded_wraps_markdown_in_a_closed_details_element():
    from token_selection.prose import folded

    text = folded("- `a` (full): protocol\n- `b` (fast): missing\n", "How each record was made <2>")
    assert text == (
        '<details class="sd-sphinx-override sd-dropdown sd-card sd-mb-3">\n'
        '<summary class="sd-summary-title sd-card-header"><span class="sd-summary-text">How each record was made &lt;2&gt;'
        f"</span>{prose.CHEVRON}</summary>\n"
        '<div class="sd-summary-content sd-card-body">\n\n'
        "- `a` (full): protocol\n- `b` (fast): missing\n\n</div>\n</details>"
    )
    assert folded("  \n", "notes") == ""
    with pytest.raises(ValueError, match="summary must name"):
        folded("- a", " ")


def test_tagged_lines_starts_each_tagged_part_on_its_own_line_and_keeps_every_word():
    text = (
        "[ours] The ratio reads 9.73x [9.16, 10.30] after 80 epochs. [inferred] It grows with the budget. "
        "[ours: the measure] A reading of ours. [derived] A step. [abstract] A claim. [discussion] A reply."
    )
    lines = prose.tagged_lines(text, width=200).split("\n")
    assert lines == [
        "[ours] The ratio reads 9.73x [9.16, 10.30] after 80 epochs.",
        "[inferred] It grows with the budget.",
        "[ours: the measure] A reading of ours.",
        "[derived] A step.",
        "[abstract] A claim.",
        "[discussion] A reply.",
    ]


def test_tagged_lines_wraps_at_the_width_with_indented_continuations():
    text = "  [ours] " + " ".join(f"word{i}" for i in range(40)) + " [inferred] short.  "
    out = prose.tagged_lines(text, width=40)
    lines = out.split("\n")
    assert max(map(len, lines)) <= 40 and max(map(len, lines)) >= 35
    assert lines[0].startswith("[ours] word0") and lines[-1] == "[inferred] short."
    assert all(line.startswith("  word") for line in lines[1:-1]) and len(lines) > 3
    assert out.split() == text.split()  # no word changed, dropped or split


def test_tagged_lines_never_breaks_a_word_or_a_hyphenated_name_and_leaves_untagged_text_whole():
    long_word = "x" * 30
    out = prose.tagged_lines(f"one-step {long_word} [not a tag] end", width=20)
    assert out.split("\n") == ["one-step", f"  {long_word}", "  [not a tag] end"]


@pytest.mark.parametrize("width, ok", [(19, False), (20, True)])
def test_tagged_lines_width_must_be_at_least_20(width, ok):
    if ok:
        assert prose.tagged_lines("[ours] a", width=width) == "[ours] a"
    else:
        with pytest.raises(ValueError, match="width must be at least 20 characters, got 19"):
            prose.tagged_lines("[ours] a", width=width)


def test_tagged_lines_keeps_a_number_with_its_percent_sign():
    text = "[ours] accuracy reaches 72 % at d = 89 and 86.1 % at d = 8192"
    # plain wrapping at this width would start a line with "%" twice
    assert prose.tagged_lines(text, width=26) == "[ours] accuracy reaches\n  72 % at d = 89 and\n  86.1 % at d = 8192"


def test_math_names_sets_each_token_quantity_as_inline_math_and_nothing_else():
    text = "E_s . v rises; corr(E_s . v, alpha_s); E_s . v_k per class; E_s . p / |p|; (E_s . p); p . W2 E_s, omega_s."
    assert prose.math_names(text) == (
        r"$E_s\cdot v$ rises; corr($E_s\cdot v$, $\alpha_s$); $E_s\cdot v_k$ per class; $E_s\cdot p$ / |p|; ($E_s\cdot p$); "
        r"$p\cdot W_2E_s$, $\omega_s$."
    )
    untouched = "E_s . vector, XE_s . v, $E_s . v, E_s.v, E_s . q, eta* = 2.0, alpha_sk, $\\alpha_s, xalpha_s, p . W3 E_s"
    assert prose.math_names(untouched) == untouched
    assert prose.math_names(prose.math_names(text)) == prose.math_names(text)  # already math: left alone


def test_tagged_lines_wraps_at_the_code_columns_76_characters_by_default():
    exactly = "[ours] " + "x" * 65 + " end"  # 76 characters
    assert prose.tagged_lines(exactly) == exactly
    assert prose.tagged_lines(exactly + "s") == "[ours] " + "x" * 65 + "\n  ends"


def test_tagged_lines_never_breaks_after_a_hyphen():
    # with hyphen breaking, "one-" would end the first line (19 characters of 22)
    assert prose.tagged_lines("[ours] aaaaaaa one-step", width=22) == "[ours] aaaaaaa\n  one-step"


def test_tagged_lines_fits_a_percent_sign_to_the_last_column():
    assert prose.tagged_lines("[ours] aaaaaaaa 72 %", width=20) == "[ours] aaaaaaaa 72 %"


def test_folded_names_an_empty_summary():
    with pytest.raises(ValueError) as error:
        prose.folded("text", "  ")
    assert str(error.value) == "summary must name what is folded, got an empty string"


def test_a_dotted_import_of_glue_is_plumbing_and_of_anything_else_is_not():
    assert prose.glue_plumbing("import myst_nb.glue\nglue('x', 1)")
    assert not prose.glue_plumbing("import myst_nb.glue_more\nglue('x', 1)")


@pytest.mark.parametrize(
    ("items", "words"),
    [
        ([2048], "2048"),
        ((1024, 2048), "1024 and 2048"),
        ([1024, 2048, 4096], "1024, 2048 and 4096"),
        (["a", 1, "c", 2], "a, 1, c and 2"),
    ],
)
def test_listed_joins_with_commas_and_a_last_and(items, words):
    assert prose.listed(items) == words


def test_listed_refuses_nothing_to_list():
    with pytest.raises(ValueError, match="at least one item"):
        prose.listed([])
