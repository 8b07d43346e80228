"""Every example in the public docstrings runs and prints what it says."""

import doctest
import importlib

import pytest

MODULES = ["solver", "solver.cards", "solver.notation", "solver.position", "solver.board", "solver.endgame",
           "solver.search", "solver.bots", "solver.engine", "solver.arena", "solver._ismcts", "solver._pimc",
           "solver.bench.search", "solver.bench.signature", "solver.match", "solver.stats", "solver.external", "solver.parallel", "solver.jsonl", "solver.analysis", "solver.batch", "solver.bench.analyse",
           "solver._endgame", "solver.bench.solve",
           "solver._core", "solver.bench.speed", "solver.bounds", "solver.progress", "solver.records",
           "solver.limit"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no docstring example"
