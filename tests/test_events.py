"""Event strings and views that follow a real game (Position.play from a hidden hand, Position.deal)."""

import doctest
import json
import random

import pytest

import solver.rules.events
from solver.rules.cards import format_counts
from solver.rules.events import EventError, apply_event, apply_events, apply_option, parse_event, parse_events
from solver.rules.notation import PositionError
from solver.rules.position import MoveError, Position

START_A = "5+2 678+3C/????? ./. 1 a -"  # a's view, a to move


def test_docstring_examples():
    result = doctest.testmod(solver.rules.events, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# -- Position.play on a hidden hand ------------------------------------------------------

def test_hidden_hand_plays_the_named_card():
    view = Position.parse("5+26 78+3C/????? ./. 1 b -")
    after = view.play("-3")
    assert str(after) == "5+26-3 78+3C/???? ./. 1 a -"


def test_hidden_hand_play_refused_when_every_copy_is_in_sight():
    # the one +4 of the game is in a's hand: b cannot have it
    view = Position.parse("5+26 78+4C/????? ./. 1 b -")
    with pytest.raises(MoveError, match=r"b cannot play \+4: every \+4 is already in sight"):
        view.play("+4")


def test_hidden_hand_play_refused_when_copies_are_used_up_by_public_cards():
    # all three cities are in sight: two in the line, one in a's hand
    view = Position.parse("CC6 78+3C/????? ./. 1 b -")
    with pytest.raises(MoveError, match="every C"):
        view.play("C")


def test_hidden_hand_take():
    view = Position.parse("5+26 78+3C/????? ./. 1 b -")
    assert str(view.play("T")) == ". 78+3C/????? ./56+2 1 a b"


def test_hidden_hand_second_take_refused_with_reason():
    view = Position.parse("7 8+3C/????? ./5+26 1 b b")
    with pytest.raises(MoveError, match="b has taken this round already"):
        view.play("T")


def test_hidden_hand_round_end_hides_both_new_hands():
    full = Position.random_deal(3)
    moves = _moves_until_round(full, 2)
    pos = apply_events(full, " ".join(moves))
    # the same game from a's view: after the last action of round 1 both new hands are hidden
    view = full.view("a")
    for token in moves:
        view = view.play(token)
    assert view.round == 2 and view.hands == (None, None)
    assert view.deal("a", pos.hands[0]) == pos.view("a")


def _moves_until_round(full, round_):
    moves, pos = [], full
    while pos.round < round_:
        move = pos.legal_moves()[0]
        moves.append(str(move))
        pos = pos.play(move)
    return moves


# -- Position.deal -------------------------------------------------------------------------

def test_deal_checks_size_and_unseen_cards():
    view = Position.parse("5+2 ?????/????? ./. 1 a -")
    assert str(view.deal("a", "678+3C")) == START_A
    with pytest.raises(PositionError, match="hand a: 4 cards given, the hand holds 5"):
        view.deal("a", "678+3")
    with pytest.raises(PositionError, match=r"hand a: 2 x \+4 given, but only 1 \+4 is unseen"):
        view.deal("a", "+4+4678")
    with pytest.raises(PositionError, match="already known"):
        Position.parse(START_A).deal("a", "678+3C")


# -- events --------------------------------------------------------------------------------

def test_parse_events():
    events = parse_events("8 -1 hand:568+2C T")
    assert [str(e) for e in events] == ["8", "-1", "hand:568+2C", "T"]
    assert events[2].hand is not None and events[0].move is not None


@pytest.mark.parametrize("text, index, token, reason", [
    ("8 x", 2, "x", "unknown move 'x'"),
    ("8 hand:", 2, "hand:", "give the cards"),
    ("hand:5Z", 1, "hand:5Z", "unknown card token 'Z'"),
    ("8 +4 +4", 3, "+4", "a cannot play +4: the legal moves are 6 7 +3 C T"),
])
def test_bad_events_name_index_token_and_reason(text, index, token, reason):
    with pytest.raises(EventError) as info:
        apply_events(Position.parse(START_A), text)
    assert info.value.index == index and info.value.token == token
    assert reason in str(info.value)
    assert str(info.value).startswith(f"event {index} ({token}): ")


def test_event_from_hidden_hand_with_no_copy_left():
    with pytest.raises(EventError, match=r"event 2 \(\+3\): b cannot play \+3: every \+3 is already in sight"):
        apply_events(Position.parse("5+3 678+3C/????? ./. 1 a -"), "8 +3")


def test_hand_event_needs_a_hidden_own_hand():
    with pytest.raises(EventError, match=r"event 1 \(hand:568\+2C\): the hand of a is already known"):
        apply_events(Position.parse(START_A), "hand:568+2C")


def test_hand_event_without_an_observer():
    with pytest.raises(EventError, match="cannot tell whose hand"):
        apply_events(Position.parse("5+2 ?????/????? ./. 1 a -"), "hand:678+3C")
    assert str(apply_events(Position.parse("5+2 ?????/????? ./. 1 a -"), "hand:678+3C", observer=0)) == START_A


def test_move_after_the_end_of_the_game():
    full = Position.random_deal(8)
    pos, moves = full, []
    while not pos.is_over:
        move = pos.legal_moves()[-1]
        moves.append(str(move))
        pos = pos.play(move)
    with pytest.raises(EventError, match=f"event {len(moves) + 1} \\(8\\): the game is over"):
        apply_events(full, " ".join(moves + ["8"]))


def test_apply_option_names_the_option():
    with pytest.raises(ValueError, match=r"^--moves: event 2 \(x\): unknown move"):
        apply_option(Position.parse(START_A), "8 x")
    assert apply_option(Position.parse(START_A), None) == Position.parse(START_A)


# -- a view follows the whole game ---------------------------------------------------------

def _tracked_replay(seed: int):
    """Play a random game from deal `seed`; follow it from each seat with events only; check every step."""
    rng = random.Random(seed)
    full = Position.random_deal(seed)
    views = [full.view("a"), full.view("b")]
    while not full.is_over:
        move = rng.choice(full.legal_moves())
        after = full.play(move)
        for p in range(2):
            views[p] = apply_event(views[p], parse_event(str(move)), p)
            if after.round != full.round and not after.is_over:
                assert views[p].hands == (None, None)  # the deck is unknown: both new hands hidden
                views[p] = apply_event(views[p], parse_event("hand:" + format_counts(after.hands[p])), p)
            expected = after.view("ab"[p])
            assert views[p] == expected, (seed, str(views[p]), str(expected))
            assert str(views[p]) == str(expected)
        full = after


def test_views_follow_a_few_games():
    for seed in range(20):
        _tracked_replay(seed)


@pytest.mark.slow
def test_views_follow_a_thousand_games_from_each_seat():
    for seed in range(20, 1020):
        _tracked_replay(seed)


# -- --moves on the command line ------------------------------------------------------------

def dnoir(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          timeout=120)


def test_show_moves_dnp_prints_only_the_position_reached():
    run = dnoir("show", START_A, "--moves", "8 -1 T", "--dnp")
    assert run.returncode == 0, run.stderr
    assert run.stdout == ". 67+3C/???? 58+2-1/. 1 b a\n"


def test_moves_may_start_with_a_betrayal():
    run = dnoir("show", "--moves", "-1", "5+2", "678+3C/?????", "./.", "1", "b", "-", "--dnp")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "5+2-1 678+3C/???? ./. 1 a -\n"


def test_a_bad_event_is_one_line_naming_index_token_and_reason():
    run = dnoir("show", START_A, "--moves", "8 +4 +4")
    assert run.returncode == 2
    assert run.stderr == "dnoir: error: --moves: event 3 (+4): a cannot play +4: the legal moves are 6 7 +3 C T\n"


@pytest.mark.parametrize("command", [["score"], ["solve", "--json"], ["advise", "--json"], ["perft"]])
def test_every_command_that_takes_a_dnp_applies_moves(command):
    # round 4, b to move; after b's T and a's 5 the position is a's view with b to move
    dnp = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"
    after = str(Position.parse(dnp).play("T").play("5"))
    args = command[:1] + [dnp, "--moves", "T 5"] + command[1:] + (["2"] if command[0] == "perft" else [])
    plain = command[:1] + [after] + command[1:] + (["2"] if command[0] == "perft" else [])
    with_moves, direct = dnoir(*args), dnoir(*plain)
    assert with_moves.returncode == 0, with_moves.stderr
    if command[0] in ("solve", "advise"):  # timings differ between runs: compare the moves' figures
        assert json.loads(with_moves.stdout)["moves"] == json.loads(direct.stdout)["moves"]
    else:
        assert with_moves.stdout == direct.stdout
