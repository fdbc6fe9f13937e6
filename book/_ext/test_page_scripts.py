"""Each script once on a page: the same file or inline body twice keeps the first, different ones all stay."""

from __future__ import annotations

from page_scripts import drop_repeated_scripts, unique_scripts
from sphinx.builders.html._assets import _JavaScript


def test_a_repeated_inline_script_is_kept_once_and_the_order_stays():
    config = _JavaScript(None, body="const THEBE_JS_URL = 'x'")
    loader = _JavaScript("sphinx-thebe.js", **{"async": "async"})
    other = _JavaScript(None, body="const other = 1")
    # the second copy of an inline script has "" where the first has None (so it is in a built page)
    again = [_JavaScript("", body="const THEBE_JS_URL = 'x'"), _JavaScript("sphinx-thebe.js", **{"async": "async"})]
    scripts = [config, loader, again[0], other, again[1]]
    assert unique_scripts(scripts) == [config, loader, other]


def test_the_same_file_with_other_attributes_is_another_script():
    plain, deferred = _JavaScript("a.js"), _JavaScript("a.js", defer="defer")
    assert unique_scripts([plain, deferred, "b.js", "b.js"]) == [plain, deferred, "b.js"]


def test_the_page_context_is_rewritten_only_where_it_has_scripts():
    context = {"script_files": [_JavaScript("a.js"), _JavaScript("a.js")]}
    drop_repeated_scripts(None, "page", "page.html", context, None)
    assert len(context["script_files"]) == 1
    empty: dict = {}
    drop_repeated_scripts(None, "page", "page.html", empty, None)
    assert empty == {}
