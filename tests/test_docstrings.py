"""Every example in the public docstrings runs and prints what it says."""

import doctest
import importlib

import pytest

MODULES = ["solver", "solver.rules.cards", "solver.rules.notation", "solver.rules.position", "solver.interfaces.board", "solver.solvers.endgame",
           "solver.solvers.search", "solver.agents.bots", "solver.interfaces.engine", "solver.agents.arena", "solver.solvers._ismcts", "solver.solvers._pimc",
           "solver.bench.search", "solver.bench.signature", "solver.agents.match", "solver.agents.stats", "solver.agents.external", "solver.agents.parallel", "solver.base.jsonl", "solver.analysis.exact", "solver.analysis.batch", "solver.bench.analyse",
           "solver.solvers._endgame", "solver.bench.solve",
           "solver.rules._core", "solver.bench.speed", "solver.base.bounds", "solver.agents.progress", "solver.rules.records",
           "solver.solvers.limit", "solver.bench.option_speed", "solver.solvers.searchconfig",
           "solver.bench.round4_loss", "solver.bench.round4_swing", "solver.bench.spsa",
           "solver.agents.book", "solver.bench.round_book", "solver.bench.model_temperature"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no docstring example"
