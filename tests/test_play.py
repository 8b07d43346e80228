"""`dnoir play`: a game against an engine and a tracked game, driven through a pseudo-terminal."""

import io
import json
import subprocess
import sys

import pexpect
import pytest

from solver.agents.arena import play_game
from solver.agents.arena import make_player
from solver.interfaces.play import Game, PlayLoop, load_game, start_view
from solver.rules.cards import format_counts
from solver.rules.position import Position

TIMEOUT = 60  # a deadline against hangs only


def dnoir(*args, input=None, timeout=120):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          input=input, timeout=timeout)


def spawn(*args):
    child = pexpect.spawn(sys.executable, ["-I", "-m", "solver.cli", *args], encoding="utf-8",
                          timeout=TIMEOUT, dimensions=(50, 200))
    return child


def quit_cleanly(child) -> None:
    """Type quit at a prompt of `dnoir play`; it must say bye and exit with status 0."""
    child.sendline("quit")
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def final_position(deal: str, moves: str) -> Position:
    pos = Position.parse(deal)
    for token in moves.split():
        pos = pos.play(token)
    return pos


# -- through a pseudo-terminal ---------------------------------------------------------------

@pytest.mark.slow
def test_whole_game_against_random_with_hint_and_undo(tmp_path):
    record = tmp_path / "game.json"
    child = spawn("play", "--engine", "random", "--seat", "a", "--seed", "11", "--hint-time", "0.05",
                  "--review-time", "0.02", "--threads", "1", "--record", str(record))
    hinted = undone = False
    moves_made = 0
    while True:
        i = child.expect([r"your move \(([^)]*)\)> ", r"Game over\."])
        if i == 1:
            break
        legal = child.match.group(1).split()
        if not hinted:
            child.sendline("hint")
            child.expect(r"recommended (\S+)")
            assert child.match.group(1) in legal
            hinted = True
            child.expect(r"your move \(([^)]*)\)> ")
        if moves_made == 3 and not undone:
            child.sendline("undo")
            child.expect(r"undone: back to round 1, a to move")
            undone = True
            continue
        child.sendline(legal[-1] if moves_made % 2 else legal[0])
        moves_made += 1
    child.expect(r"result: ([^\r\n]*)\r\n")  # pexpect matches with DOTALL: stop at the line end
    result_line = child.match.group(1)
    child.expect(r"a: \d+ decisions")  # the closing review
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert hinted and undone
    saved = json.loads(record.read_text())
    assert saved["kind"] == "play" and saved["seat"] == "a" and saved["players"]["b"] == "random"
    final = final_position(saved["deal"], saved["moves"])
    assert final.is_over
    assert saved["result"]["winner"] == final.result().winner
    assert f"result: {result_line}" in _score_text(final)


def _score_text(pos):
    from solver.interfaces.board import render_score

    return render_score(pos)


def _recorded_game(seed):
    return play_game(Position.random_deal(seed), ("random", "greedy"), seed=seed)


def _track_script(record, seat):
    """What a player at seat `seat` types, in order, to follow the recorded game: (prompt, answer) pairs."""
    full = Position.parse(record["deal"])
    script = []
    for token in record["moves"].split():
        mover = full.to_move
        prompt = r"your move \([^)]*\)> " if mover == seat else rf"{'ab'[mover]}'s move \(the card played, or T\)> "
        script.append((prompt, token))
        after = full.play(token)
        if after.round != full.round and not after.is_over:
            script.append((r"your new hand \(5 cards, e\.g\. 568\+2C\)> ", format_counts(after.hands[seat])))
        full = after
    return script, full


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_tracked_game_reaches_the_recorded_games_final_view(tmp_path, seat):
    record = _recorded_game(seed=21 + seat)
    deal = Position.parse(record["deal"])
    script, final = _track_script(record, seat)
    kept = tmp_path / "tracked.json"
    child = spawn("play", "--track", "--review-time", "0", "--record", str(kept))
    child.expect(r"your seat \(a or b\)> ")
    child.sendline("ab"[seat])
    child.expect(r"who moves first \(a or b\)> ")
    child.sendline("ab"[deal.to_move])
    child.expect(r"the starting line .*> ")
    child.sendline(str(deal).split()[0])
    child.expect(r"your hand .*> ")
    child.sendline(format_counts(deal.hands[seat]))
    half = len(script) // 2
    for prompt, answer in script[:half]:
        child.expect(prompt)
        child.sendline(answer)
    # save, quit and resume from the saved file
    child.expect(r"> ")
    saved = tmp_path / "saved.json"
    child.sendline(f"save {saved}")
    child.expect(f"saved to {saved}")
    quit_cleanly(child)
    child = spawn("play", "--track", "--load", str(saved), "--review-time", "0", "--record", str(kept))
    for prompt, answer in script[half:]:
        child.expect(prompt)
        child.sendline(answer)
    child.expect(r"Game over\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    game = load_game(str(kept))
    assert game.position == final.view("ab"[seat])
    assert str(game.position) == str(final.view("ab"[seat]))


# -- standard input not a terminal -------------------------------------------------------------

def test_piped_commands_one_a_line():
    run = dnoir("play", "--engine", "random", "--seat", "b", "--seed", "4", "--hint-time", "0.05", "--threads", "1",
                input="help\nshow\nhint\nfoo\nsave\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "> help\n" in out and "undo" in out  # the help text names the commands
    assert "recommended" in out
    assert "error: 'foo' is neither a move" in out
    assert "error: save needs a file name" in out
    assert out.rstrip().endswith("bye")  # the end of the input ends the game, nothing is lost


def test_piped_track_start_is_asked_again_after_a_bad_answer():
    run = dnoir("play", "--track", input="c\na\nb\n5+2\n678+4+4\n5+2\n678+3C\nquit\n")
    assert run.returncode == 0, run.stderr
    assert "error: answer a or b" in run.stdout
    assert "678+4+4\nerror: cards: 2 cards of kind +4, the game has 1\nthe starting line" in run.stdout
    assert "[round 1] b's move (the card played, or T)> quit" in run.stdout


def test_track_refuses_an_engine():
    run = dnoir("play", "--track", "--engine", "random", input="")
    assert run.returncode == 2
    assert run.stderr.strip() == "dnoir: error: --track follows a game played elsewhere: it takes no --engine"


def test_load_of_a_bad_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"seat": "a", "start": "5+2 678+3C/????? ./. 1 a -", "events": "8 +4 +4"}\n')
    run = dnoir("play", "--track", "--load", str(bad), input="")
    assert run.returncode == 2
    assert run.stderr.strip() == (f"dnoir: error: {bad} line 1: field 'events': event 3 (+4): a cannot play +4: "
                                  "the legal moves are 6 7 +3 C T")


def test_load_of_a_tracked_game_without_track(tmp_path):
    saved = tmp_path / "t.json"
    saved.write_text(json.dumps(Game.track(start_view(0, 0, "5+2", "678+3C"), 0).to_record()) + "\n")
    run = dnoir("play", "--load", str(saved), input="")
    assert run.returncode == 2 and "tracked game: add --track" in run.stderr


# -- the Game itself --------------------------------------------------------------------------

def test_undo_goes_back_to_the_players_previous_decision():
    game = Game.versus(Position.random_deal(5), seat=1, engine="random")  # b moves first in deal 5
    assert game.position.to_move == 1
    game.push("6")
    game.push("8")  # a's move
    game.push("7")
    assert game.undo() and game.events == ["6", "8"]
    assert game.undo() and game.events == []
    assert not game.undo()


def test_undo_when_tracking_takes_back_the_last_entry():
    game = Game.track(start_view(0, 0, "5+2", "678+3C"), 0)
    game.push("8")
    game.push("-1")
    assert game.undo() and game.events == ["8"] and str(game.position) == "5+28 67+3C/????? ./. 1 b -"


def test_records_round_trip():
    game = Game.versus(Position.random_deal(5), seat=0, engine="greedy", seed=5)
    game.push("6")
    again = Game.from_record(json.loads(json.dumps(game.to_record())))
    assert again.position == game.position and again.engine == "greedy" and again.seat == 0
    tracked = Game.track(start_view(1, 0, "5+2", "678+3C"), 1)
    tracked.push("-3")
    again = Game.from_record(tracked.to_record())
    assert again.tracked and again.events == ["-3"] and again.position == tracked.position


def test_a_hand_cannot_be_entered_against_an_engine():
    loop_out = io.StringIO()
    game = Game.versus(Position.random_deal(5), seat=1, engine="random")
    PlayLoop(game, io.StringIO("hand:56778\nquit\n"), loop_out, engine=make_player("random")).run()
    assert "error: new hands are dealt by the game against a bot" in loop_out.getvalue()


def test_docstring_examples():
    import doctest

    import solver.interfaces.play

    result = doctest.testmod(solver.interfaces.play, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_an_engine_that_fails_stops_the_game_with_one_line(tmp_path):
    from pathlib import Path

    faulty = Path(__file__).parent / "engines" / "faulty.py"
    kept = tmp_path / "game.json"
    run = dnoir("play", "--engine", f"cmd:{sys.executable} {faulty} crash", "--seat", "b", "--seed", "5",
                "--record", str(kept), input="6\n8\n")  # deal 5: b moves first
    assert run.returncode == 1, run.stderr  # an engine failure: exit 1, the record kept
    assert "error: the engine failed (crash: " in run.stdout and run.stdout.rstrip().endswith("bye")
    assert json.loads(kept.read_text())["moves"] == "6"


def test_a_record_file_that_cannot_be_written_is_refused_before_the_game(tmp_path):
    missing = tmp_path / "no" / "game.json"
    for args in (["--engine", "random", "--seed", "1"], ["--track"]):
        run = dnoir("play", *args, "--record", str(missing), input="a\n")
        assert run.returncode == 2
        assert run.stderr == (f"dnoir: error: Invalid value for --record: cannot write {missing}: "
                              f"no folder {missing.parent}\n")
        assert "your seat" not in run.stdout
