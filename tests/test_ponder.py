"""Pondering: after its answer, a player searches on below the move it gave while the opponent
thinks (Searcher.restrict_root, IsmctsSearch.ponder, KeptTree.ponder, the engine's Ponder
option), and the next search keeps what went below the opponent's actual reply."""

import io
import threading
import time

import pytest
from conftest import random_position
from test_engine import DEADLINE, engine  # noqa: F401 (the fixture)
from test_play import quit_cleanly, spawn
from test_reuse import _game_step, _searched

from solver.agents.bots import make_bot

from solver.interfaces.engine import Engine
from solver.rules.cards import Move
from solver.solvers._ismcts import Searcher
from solver.solvers.limit import Limit
from solver.solvers.search import IsmctsSearch, KeptTree, advise


def _view(seed=21, moves=0):
    full = random_position(seed, moves)
    return full, full.view("ab"[full.to_move])


@pytest.mark.parametrize("hands", [0.0, 10.0])
def test_restricted_iterations_go_below_the_one_root_move_only(hands):
    _, view = _view()
    s = _searched(view, iterations=3000, opponent_hands=hands)
    before = s.root_stats()
    move = min(before, key=lambda m: before[m].visits)  # the least visited: UCB alone would not pick it
    s.restrict_root(move)
    assert s.search(iterations=2000) == 2000
    after = s.root_stats()
    assert after[move].visits == before[move].visits + 2000
    assert {m: after[m] for m in after if m != move} == {m: before[m] for m in before if m != move}
    s.restrict_root(None)
    s.search(iterations=4000)
    assert sum(st.visits for m, st in s.root_stats().items() if m != move) > \
        sum(st.visits for m, st in before.items() if m != move)


def test_restrict_root_refuses_what_is_not_a_legal_root_move():
    _, view = _view()
    s = Searcher(max_nodes=10_000)
    with pytest.raises(ValueError, match="start"):
        s.restrict_root(0)
    s.start(view.core, observer=view.to_move, seed=1)
    illegal = next(m for m in range(12) if Move(m) not in view.legal_moves())
    for bad in (illegal, 12, -1, True, 1.0, "T"):
        with pytest.raises(ValueError, match="not a legal move at the root"):
            s.restrict_root(bad)


def test_follow_keeps_the_pondered_visits_below_the_actual_reply():
    full, view = _view(seed=22)
    search = IsmctsSearch(view, threads=1, seed=1)
    search.run(iterations=5000)
    best = Move(search.ranked()[0].move)
    between, theirs, after = _game_step(full, str(best))
    below = (best.index, theirs.index)
    visits_before = sum(st.visits for st in search.searchers[0].node_stats(below).values())
    slices = iter(range(20))
    made = search.ponder(best, lambda: next(slices, None) is None)
    assert made > 0 and search.iterations == 5000 + made
    visits_after = sum(st.visits for st in search.searchers[0].node_stats(below).values())
    assert visits_after > visits_before
    kept = search.follow(after.view("ab"[full.to_move]), seed=2)
    assert kept >= visits_after  # the node's own visits: its children's and the one that made it
    search.close()


def test_a_kept_tree_ponders_until_stopped_and_a_take_stops_it_first():
    full, view = _view(seed=23)
    kept = KeptTree()
    assert kept.ponder(threading.Event()) == 0  # nothing kept
    first = advise(view, Limit(iterations=3000), threads=1, seed=1, kept=kept)
    result = []
    worker = threading.Thread(target=lambda: result.append(kept.ponder()))
    worker.start()
    deadline = time.monotonic() + DEADLINE
    while kept._search.iterations <= 3000 and time.monotonic() < deadline:
        time.sleep(0.01)
    _, _, after = _game_step(full, first.best)
    # take() stops the pondering before it moves the trees on
    second = advise(after.view("ab"[full.to_move]), Limit(iterations=1000), threads=1, seed=2, kept=kept)
    worker.join(DEADLINE)
    assert not worker.is_alive() and result[0] > 0
    assert second.iterations == 1000
    stopped = threading.Event()
    stopped.set()
    assert kept.ponder(stopped) == 0  # a stop already given: no search at all


def _bestmove(out: io.StringIO, count: int) -> str:
    deadline = time.monotonic() + DEADLINE
    while True:
        moves = [line.split()[1] for line in out.getvalue().splitlines() if line.startswith("bestmove")]
        if len(moves) >= count:
            return moves[count - 1]
        assert time.monotonic() < deadline, out.getvalue()
        time.sleep(0.005)


def test_the_engine_ponders_after_bestmove_until_the_next_position():
    out = io.StringIO()
    engine = Engine(out=out)
    full, view = _view(seed=24)
    engine.handle("setoption name Ponder value true")
    engine.handle(f"position {view}")
    engine.handle("go iterations 3000 seed 1")
    best = _bestmove(out, 1)
    deadline = time.monotonic() + DEADLINE
    while engine.kept._search.iterations <= 3000 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert engine.kept._search.iterations > 3000  # searching on the opponent's time
    engine.handle("isready")  # answered, and the pondering goes on
    _, _, after = _game_step(full, best)
    engine.handle(f"position {after.view('ab'[full.to_move])}")
    engine.handle("go iterations 1000 seed 2")
    assert _bestmove(out, 2) in {str(m) for m in after.legal_moves()}
    engine.wait()  # stops the pondering after the second answer too
    assert "readyok" in out.getvalue() and "error" not in out.getvalue()


def test_the_engine_does_not_ponder_unless_asked():
    out = io.StringIO()
    engine = Engine(out=out)
    _, view = _view(seed=25)
    engine.handle(f"position {view}")
    engine.handle("go iterations 2000 seed 1")
    _bestmove(out, 1)
    time.sleep(0.1)
    assert engine.kept._search.iterations == 2000
    engine.handle("setoption name Ponder value maybe")
    assert out.getvalue().splitlines()[-1] == "error setoption Ponder: 'maybe' is not true or false"


def test_a_pondering_engine_answers_in_time_and_quits_at_once(engine):
    full, view = _view(seed=26)
    e = engine("--ponder")
    e.send("dn")
    e.expect("dnok")
    assert "option name Ponder type check default true" in e.lines
    e.send(f"position {view}", "go movetime 100")
    best = e.expect("bestmove").split()[1]
    time.sleep(0.3)  # the opponent thinks; the engine ponders
    _, _, after = _game_step(full, best)
    start = time.monotonic()
    e.send(f"position {after.view('ab'[full.to_move])}", "go movetime 100")
    assert e.expect("bestmove").split()[1] in {str(m) for m in after.legal_moves()}
    took = time.monotonic() - start
    assert took < DEADLINE
    time.sleep(0.2)
    start = time.monotonic()
    e.send("quit")
    assert e.close() == 0  # no stderr, every line a protocol answer
    print(f"second move answered in {took:.3f} s; quit took {time.monotonic() - start:.3f} s")


def test_a_bot_with_ponder_searches_while_the_block_runs_and_stops_after():
    full, view = _view(seed=27)
    bot = make_bot("ismcts:iterations=2000,ponder=1", seed=1)
    best = bot.choose(view)
    with bot.pondering():
        deadline = time.monotonic() + DEADLINE
        while bot.kept._search.iterations <= 2000 and time.monotonic() < deadline:
            time.sleep(0.01)
    pondered = bot.kept._search.iterations
    assert pondered > 2000
    time.sleep(0.05)
    assert bot.kept._search.iterations == pondered  # the thread has stopped with the block
    assert not any(t.name == "dnoir-ponder" for t in threading.enumerate())
    _, _, after = _game_step(full, str(best))
    assert bot.choose(after.view("ab"[full.to_move])) in after.legal_moves()


@pytest.mark.parametrize("spec", ["ismcts:iterations=2000", "ismcts:iterations=2000,ponder=1,reuse=0", "random"])
def test_bots_that_do_not_ponder_do_nothing_in_the_block(spec):
    _, view = _view(seed=28)
    bot = make_bot(spec, seed=1)
    bot.choose(view)
    with bot.pondering():
        time.sleep(0.05)
    kept = getattr(bot, "kept", None)
    assert kept is None or kept._search is None or kept._search.iterations == 2000


def test_play_against_a_pondering_engine_answers_and_ends_cleanly():
    child = spawn("play", "--engine", "ismcts:iterations=1000,ponder=1", "--seat", "a", "--seed", "3",
                  "--threads", "1")
    for _ in range(4):
        child.expect(r"your move \(([^)]*)\)> ")
        legal = child.match.group(1).split()
        time.sleep(0.2)  # the engine ponders while the player thinks
        child.sendline(legal[0])
    child.expect(r"your move \(([^)]*)\)> ")
    quit_cleanly(child)
    assert "Traceback" not in child.before
