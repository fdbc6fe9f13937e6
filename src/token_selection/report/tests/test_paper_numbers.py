"""``report.paper_numbers`` re-exports every number of ``token_selection.sources``, the same objects."""


def test_report_paper_numbers_re_exports_every_number_of_the_sources():
    from token_selection import sources
    from token_selection.report import paper_numbers

    public = {name for name in vars(sources) if name.isupper()}
    assert public == set(paper_numbers.__all__)
    assert all(getattr(paper_numbers, name) is getattr(sources, name) for name in public)
