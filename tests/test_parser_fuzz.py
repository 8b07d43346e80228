"""The DNP parser never fails with anything but PositionError, whatever it is given."""

from conftest import random_position
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Position, PositionError

ALPHABET = "5678+-1234C?./ abT\t"


def parse_or_reject(text):
    try:
        pos = Position.parse(text)
    except PositionError as e:
        assert str(e).split(":", 1)[0] == e.field and e.reason
        return None
    assert Position.parse(str(pos)) == pos  # anything accepted prints and re-parses the same
    return pos


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=80))
def test_random_text(text):
    parse_or_reject(text)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 60), st.data())
def test_mutated_valid_positions(seed, prefix, data):
    """Small edits of real positions: each is either rejected with a named field or valid."""
    pos = random_position(seed, prefix)
    text = str(data.draw(st.sampled_from([pos, pos.view("a"), pos.view("b")])))
    i = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["delete", "insert", "replace"]))
    char = data.draw(st.sampled_from(ALPHABET))
    if edit == "delete":
        text = text[:i] + text[i + 1:]
    elif edit == "insert":
        text = text[:i] + char + text[i:]
    else:
        text = text[:i] + char + text[i + 1:]
    parse_or_reject(text)
