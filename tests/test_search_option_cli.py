"""Each search option of the CLI reaches the search: `dnoir advise` accepts it, reports it in
`--json`'s `search`, and refuses a value out of its range in one line with exit code 2."""

import subprocess
import sys

import pytest

DNP = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"  # round 2: the tree reaches round 4, the model is on


@pytest.mark.parametrize("option, value, key, bad", [
    ("--round4-exploration", "0.7", "round4_exploration", "200"),
    ("--model-temperature", "1.75", "model_temperature", "0"),
])
def test_the_cli_option_reaches_the_search_and_its_json(option, value, key, bad):
    # -I: the installed package, whatever the current directory holds
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", DNP, "--iterations", "200", "--json",
                          option, value], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert f'"{key}": {value}' in run.stdout
    refused = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", DNP, option, bad],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and option.lstrip("-") in refused.stderr and refused.stderr.count("\n") == 1
