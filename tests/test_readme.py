"""Every example in the README is real output of the current code.

Each `$ dnoir ...` line of a code block in README.md is run, and its output compared with
the lines printed under it in the README (tests/doc_examples.py says how: the numbers of a
reproducible example digit for digit, a clocked one shape for shape; `...` for any lines).
docs/*.md are checked the same way by tests/test_docs.py.
"""

import pytest
from doc_examples import ROOT, check, examples

README = ROOT / "README.md"


def test_the_readme_has_examples():
    assert len(examples(README)) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("example", examples(README), ids=[e.command[:60] for e in examples(README)])
def test_each_readme_example_prints_what_the_readme_shows(example, tmp_path):
    check(example, tmp_path)
