"""The pages of docs/: their examples print what the pages show, and the files they cite exist.

The examples of each page run in order in one folder (an example may read what an earlier
one wrote) and are compared as the README's are (tests/doc_examples.py: the numbers of a
reproducible example digit for digit, a clocked one shape for shape).
"""

import re
from pathlib import Path

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


# -- docs/rules.md against the core --------------------------------------------------------

def rules_table() -> list[tuple[str, int, str]]:
    """(kind name, copies, token) of every row of docs/rules.md's card table."""
    rows = re.findall(r"^\| ([A-Z][a-z]+(?: [+-]?\d)?) \| (\d+) \| `([^`]+)` \|$", (ROOT / "docs" / "rules.md").read_text(),
                      re.MULTILINE)
    return [(name, int(copies), token) for name, copies, token in rows]


def test_the_rules_card_table_is_the_cores():
    from solver.rules.cards import COMPOSITION, KINDS, NCARDS

    table = rules_table()
    assert [token for _, _, token in table] == list(KINDS)
    assert tuple(copies for _, copies, _ in table) == COMPOSITION
    assert sum(COMPOSITION) == NCARDS == 45
    for name, _, token in table:  # the name carries the token's value
        assert name == "City" if token == "C" else name.endswith(" " + token)


def test_the_rules_value_sums_are_what_the_scoring_counts():
    """'7 alliances (values summing to +18) + 9 betrayals (summing to −17)': one player holding them all."""
    from solver import Position
    from solver.rules.cards import COMPOSITION, KINDS, format_cards

    text = (ROOT / "docs" / "rules.md").read_text()
    assert "7 alliances (values summing to +18) + 9 betrayals (summing to −17)" in text
    mine = [k for k in range(4, 10) for _ in range(COMPOSITION[k])]
    rest = [k for k in (0, 1, 2, 3, 10) for _ in range(COMPOSITION[k])]
    pos = Position.parse(f"{format_cards(rest[3:])} ./. {format_cards(mine)}/. 4 - ab . {format_cards(rest[:3])}")
    score = pos.result().scores[0]
    assert (len([k for k in mine if KINDS[k][0] == "+"]), score.alliances) == (7, 18)
    assert (len([k for k in mine if KINDS[k][0] == "-"]), score.betrayals) == (9, 17)


def test_the_readme_links_the_rules():
    assert "[docs/rules.md](docs/rules.md)" in (ROOT / "README.md").read_text()


def test_every_position_on_the_notation_page_is_read_and_printed_back_as_written():
    from solver import Position

    text = (ROOT / "docs" / "notation.md").read_text()
    shown = re.findall(r"`([^`<>]+ [1-4] [ab-] (?:-|a|b|ab)(?: [^`]+)?)`", text)
    assert len(shown) >= 4
    for dnp in shown:
        assert str(Position.parse(dnp)) == dnp


# -- every file the code and the docs cite is in the repository ------------------------------

CITED = re.compile(r"(?<![\w/.\-])((?:[\w\-]+/)*[\w\-]+\.md)\b")
SOURCES = ("solver/**/*.py", "ext/**/*.pyx", "ext/**/*.pxd", "tests/*.py", "tests/refmodel/*.py", "bench/*.py", "bench/*.sh",
           "docs/*.md", "README.md", "setup.py", ".ci/run")
# cited files still missing, each waiting on work in another branch: (file, citation)
PENDING = {
    ("ext/state.pxd", "RULES.md"): "ext/state.pxd is being optimised in another branch: its RULES.md "
                                   "citations become docs/rules.md at the merge",
}


def citations() -> list[tuple[str, str, bool]]:
    """(file, cited .md path, whether it exists) for every citation of a Markdown file."""
    found = set()
    for pattern in SOURCES:
        for path in ROOT.glob(pattern):
            if path == Path(__file__).resolve():
                continue  # this file names files to look for, it cites none
            for m in CITED.finditer(path.read_text()):
                cited = m.group(1)
                exists = (ROOT / cited).exists() or (path.parent / cited).exists()
                found.add((str(path.relative_to(ROOT)), cited, exists))
    return sorted(found)


def test_every_cited_file_exists():
    missing = [(f, c) for f, c, exists in citations() if not exists and (f, c) not in PENDING]
    assert not missing, f"cited but not in the repository: {missing}"
    assert any(c == "docs/rules.md" for _, c, _ in citations())


@pytest.mark.parametrize("source, cited", sorted(PENDING), ids=[f for f, _ in sorted(PENDING)])
def test_a_pending_citation_is_still_missing(source, cited):
    """Each PENDING entry is a strict xfail: once the file exists (or the citation is fixed) it fails, so the entry goes."""
    if (source, cited, False) in citations():
        pytest.xfail(PENDING[(source, cited)])
    pytest.fail(f"{source} no longer cites a missing {cited}: remove it from PENDING")


# -- engine sessions (docs/protocol.md) ---------------------------------------------------------

from doc_examples import check_session, sessions  # noqa: E402

SESSIONS = [session for page in PAGES for session in sessions(page)]


def test_the_protocol_page_has_sessions():
    assert sum(s.page == "docs/protocol.md" for s in SESSIONS) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("session", SESSIONS, ids=[f"{s.page}:{s.line}" for s in SESSIONS])
def test_each_engine_session_answers_what_the_page_shows(session, tmp_path):
    check_session(session, tmp_path)


# -- Python examples (docs/adapters.md) --------------------------------------------------------

from doc_examples import check_python, python_examples  # noqa: E402


def test_the_adapters_page_has_python_examples_with_output():
    found = python_examples(ROOT / "docs" / "adapters.md")
    assert len(found) >= 5 and any(e.shown for e in found)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if python_examples(p)], ids=lambda p: p.name)
def test_the_python_examples_of_a_page_run_and_print_what_it_shows(page, tmp_path):
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    check_python(python_examples(page), tmp_path)
