"""The `fpu` search option (first-play urgency below the root): off unless asked, an untried
move then waits while a tried one scores above the mover's mean plus `fpu`. When on, it
changes the tree (tests/test_search_pinned.py) and keeps the root's figures whole: every root
move is still tried."""

import subprocess
import sys

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers._ismcts import MAX_FPU, Searcher
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


def _view(seed=1, plies=0):
    pos = Position.random_deal(seed)
    for i in range(plies):
        pos = pos.play(pos.legal_moves()[i % len(pos.legal_moves())])
    return pos.view("ab"[pos.to_move])


def _searched(view, iterations=3000, seed=3, **options):
    s = Searcher(max_nodes=300_000)
    s.start(view.core, observer=view.to_move, seed=seed, opponent_hands=10.0, **options)
    s.search(iterations=iterations)
    return s


def _root(searcher):
    return sorted((move, s.visits, s.reward) for move, s in searcher.root_stats().items())


def test_off_by_default_and_in_both_presets():
    assert SearchConfig().fpu is None and PRESETS["388581d"].fpu is None
    view = _view()
    # negative is off: the same tree as a search that never heard of it
    assert _root(_searched(view)) == _root(_searched(view, fpu=-1.0))


@pytest.mark.parametrize("seed", range(6))
def test_every_root_move_is_tried_and_the_visits_add_up(seed):
    # fpu 0: below the root an untried move waits as long as any tried one scores above the
    # mover's mean; at the root every legal move still gets its visits
    view = _view(seed, plies=seed)
    s = _searched(view, iterations=2000, fpu=0.0)
    stats = s.root_stats()
    assert set(stats) == {m.index for m in view.legal_moves()}
    assert all(st.visits > 0 for st in stats.values())
    assert sum(st.visits for st in stats.values()) == 2000


def test_it_changes_where_the_search_goes_deeper():
    # with a low urgency the tree follows its best lines further: more nodes for the same
    # iterations (each expansion is a block of children further down)
    view = _view(2)
    assert _searched(view, iterations=5000, fpu=0.2).nodes_used > _searched(view, iterations=5000).nodes_used


def test_seeded():
    view = _view(4)
    assert _root(_searched(view, fpu=0.8)) == _root(_searched(view, fpu=0.8))


@pytest.mark.parametrize("bad", [MAX_FPU + 0.5, float("nan"), float("inf")])
def test_searcher_refuses_out_of_range(bad):
    with pytest.raises(ValueError, match="fpu"):
        Searcher(max_nodes=1000).start(_view().core, observer=_view().to_move, fpu=bad)


def test_options_and_spec_keys():
    assert from_options(fpu=0.8).fpu == 0.8
    assert from_options(fpu="off").fpu is None
    assert from_options(fpu=0.5).replace(fpu=None).fpu == 0.5  # None in replace: unchanged
    assert make_bot("ismcts:iterations=10,fpu=0.25").config.fpu == 0.25
    assert make_bot("ismcts:iterations=10,fpu=off").config.fpu is None
    assert "mover's mean + 0.25" in from_options(fpu=0.25).assumes
    assert "mover's mean" not in SearchConfig().assumes
    with pytest.raises(ArgumentError, match=r"fpu: 3 is out of range \(0 to 2\)"):
        SearchConfig(fpu=3)
    with pytest.raises(SpecError, match=r"fpu: 'of' is not a number \(0 to 2, or off\)"):
        make_bot("ismcts:iterations=10,fpu=of")


@pytest.mark.parametrize("value, message", [
    ("3", "3 is out of range (0 to 2, or off)"),
    ("nan", "nan is not a finite number (0 to 2, or off)"),
    ("of", "'of' is not a number (0 to 2, or off)"),
])
def test_cli_refuses_a_bad_fpu_in_one_line(value, message, tmp_path):
    run = subprocess.run([sys.executable, "-m", "solver", "advise", "--fpu", value, "x"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr == f"dnoir: error: Invalid value for '--fpu': {message}\n"
