"""Progress lines of long runs: a bar on a terminal, a line every few seconds otherwise."""

import io

from solver.agents.progress import Progress


def test_without_a_terminal_lines_are_rate_limited_and_the_last_count_is_printed():
    out = io.StringIO()
    with Progress(total=1000, label="games", stream=out, every=3600) as p:
        for _ in range(1000):
            p.advance(note="A scores 0.500")
    lines = out.getvalue().splitlines()
    # the first finished item is reported at once, then nothing for an hour, then the final count
    assert len(lines) == 2 and lines[0].startswith("games 1/1000 ") and lines[1].startswith("games 1000/1000 (100%)")
    assert "\r" not in out.getvalue() and lines[1].endswith("A scores 0.500")


def test_nothing_is_printed_before_the_first_result():
    out = io.StringIO()
    with Progress(total=10, label="items", stream=out):
        pass
    assert out.getvalue() == ""


def test_on_a_terminal_the_line_is_redrawn_in_place():
    out = io.StringIO()
    with Progress(total=3, label="items", stream=out, live=True) as p:
        for _ in range(3):
            p.advance()
    text = out.getvalue()
    assert text.count("\r\x1b[2K") == 4 and text.endswith("items 3/3 (100%)  " + text.rsplit("(100%)  ", 1)[1])
    assert text.endswith("\n") and text.count("\n") == 1


def test_an_unknown_total_counts_up():
    out = io.StringIO()
    with Progress(total=None, label="positions", stream=out, every=0) as p:
        p.advance(5)
    assert out.getvalue().splitlines()[-1].startswith("positions 5  ")
