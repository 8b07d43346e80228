"""The `model_temperature` search option: the round-end model's logit multiplied by a constant
(bench/STRENGTH.md's test 34). 1 by default: the fitted weights themselves, the tree node for
node as before (tests/test_search_pinned.py pins it)."""

import gzip
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.bench.model_temperature import log_loss, round_ends
from solver.errors import ArgumentError, SpecError
from solver.limit import Limit
from solver.solvers._ismcts import round_end_win_probability
from solver.solvers.roundmodel import weights, win_probability
from solver.solvers.search import advise
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


def _round_ends(count: int, seed: int):
    rng = random.Random(seed)
    while count:
        pos = Position.random_deal(rng.getrandbits(50))
        current = pos.round
        while not pos.is_over and count:
            pos = pos.play(rng.choice(pos.legal_moves()))
            if not pos.is_over and pos.round != current:
                current = pos.round
                count -= 1
                yield pos


def test_one_by_default_and_in_every_preset():
    assert all(preset.model_temperature == 1.0 for preset in PRESETS.values())
    assert weights(1.0) is weights()  # the fitted rows themselves, not a copy scaled by 1


def test_the_logit_is_scaled_in_the_reference_and_the_search_alike():
    ends = list(_round_ends(30, seed=7))
    assert len(ends) == 30
    for pos in ends:
        p = win_probability(pos)
        logit = math.log(p / (1 - p))
        hot = win_probability(pos, 1.75)
        assert hot == pytest.approx(1 / (1 + math.exp(-1.75 * logit)), abs=1e-12)
        assert (hot - 0.5) * (p - 0.5) >= 0 and abs(hot - 0.5) >= abs(p - 0.5)  # the same side, further out
        assert round_end_win_probability(pos.core, weights(1.75)) == pytest.approx(hot, abs=1e-12)


def _root(config: SearchConfig, pos: Position) -> dict:
    advice = advise(pos, Limit(iterations=3000), threads=1, seed=3, config=config)
    return {m.move: (m.visits, m.expected) for m in advice.moves}


def test_it_changes_the_search_with_the_model_only():
    pos = Position.random_deal(11)  # a round-1 root: every playout ends with the model
    assert _root(from_options(model_temperature=1.75), pos) != _root(SearchConfig(), pos)
    plain = from_options(round_model=0)
    assert _root(plain.replace(model_temperature=1.75), pos) == _root(plain, pos)


def test_the_assumptions_claim_it_only_with_the_model_and_its_range():
    # (tests/test_search_option_cli.py: the option, the spec key and the assumptions where it acts)
    assert "logit" not in from_options(model_temperature=1.75, round_model=0).assumes
    for bad in (0.0, 0.05, 10.5, float("nan"), float("inf")):
        with pytest.raises(ArgumentError, match="model_temperature"):
            SearchConfig(model_temperature=bad)
    with pytest.raises(SpecError, match="model_temperature"):
        make_bot("ismcts:iterations=10,model_temperature=20")


def _tool(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-m", "solver.bench.model_temperature", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_the_bench_tool_reads_recorded_games():
    games = Path(__file__).resolve().parents[1] / "bench" / "matches" / "t26_bundle.jsonl.gz"
    run = _tool(games, games, "--boot", "5")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "122 games"  # the file read twice counts each game once
    assert [line.split(":")[0] for line in lines[1:]] == [f"end of round {r}" for r in (1, 2, 3)]
    assert "round ends of 61 deals" in lines[1]  # the two games of a pair share their deal
    # the file's first game reaches round 4: three round ends, each the model's logit for a there
    record = json.loads(gzip.open(games, "rt").readline())
    ends = round_ends(record)
    assert [r for r, _ in ends] == [1, 2, 3]
    assert ends[0][1] == pytest.approx(-0.0348441, abs=1e-6)
    assert log_loss([0.0], [1.0], 1.75) == pytest.approx(math.log(2.0))


def test_the_bench_tool_refuses_what_is_not_a_finished_game(tmp_path):
    games = Path(__file__).resolve().parents[1] / "bench" / "matches" / "t26_bundle.jsonl.gz"
    record = json.loads(gzip.open(games, "rt").readline())
    cases = {"missing": None, "notjson": "{not json\n", "empty": "",
             "noresult": json.dumps(dict(record, result=None)) + "\n",
             "badwinner": json.dumps(dict(record, result={"winner": "x"})) + "\n",
             "badmove": json.dumps(dict(record, moves="T T T")) + "\n"}
    for name, text in cases.items():
        path = tmp_path / f"{name}.jsonl"
        if text is not None:
            path.write_text(text)
        run = _tool(path)
        assert run.returncode == 2, (name, run.stderr)
        assert f"{name}.jsonl" in run.stderr and run.stderr.count("\n") == 1, (name, run.stderr)
    directory = _tool(tmp_path)
    assert directory.returncode == 2 and directory.stderr.count("\n") == 1
