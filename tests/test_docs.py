"""The pages of docs/: their examples print what the pages show, and the files they cite exist.

The examples of each page run in order in one folder (an example may read what an earlier
one wrote) and are compared as the README's are (tests/doc_examples.py: the numbers of a
reproducible example digit for digit, a clocked one shape for shape).
"""

import re

import pytest

from doc_examples import ROOT, check, examples

PAGES = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = [example for page in PAGES for example in examples(page)]


def test_the_pages_have_examples():
    assert {e.page for e in EXAMPLES} >= {"docs/play.md"}


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)], ids=lambda p: p.name)
def test_each_example_of_a_page_prints_what_the_page_shows(page, tmp_path):
    for example in examples(page):
        check(example, tmp_path)
