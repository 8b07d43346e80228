"""Each search option reaches the search: as a setting (from_options) and an `ismcts:` spec key,
stated in the assumptions line where it acts and not by default; and `dnoir advise` accepts it,
reports it in `--json`'s `search`, and refuses a value out of its range in one line with exit
code 2."""

import subprocess
import sys

import pytest

from solver.agents.bots import make_bot
from solver.solvers.searchconfig import SearchConfig, from_options

DNP = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"  # round 2: the tree reaches round 4, the model is on
# (setting, a value, what the assumptions line says with it, a word it says only with the setting)
SETTINGS = [("round4_exploration", 0.7, "0.7 at round 4's decisions below rounds 1-3", "round 4's decisions"),
            ("model_temperature", 1.75, "its logit times 1.75", "logit"),
            ("policy", "guard", "not the opponent's third city", "third city"),
            ("third_city", True, "a win where the next round's first player takes its third city at once",
             "third city"),
            ("poly_bonus", 0.6, "times 0.6 avail^(1/4) / sqrt(visits) in place of sqrt(ln(avail) / visits)",
             "times 0.6"),
            ("take_margin", 0.03, "the take margin 0.03 before round 4",
             "margin 0.03")]  # on by default (0.015) since test 42


@pytest.mark.parametrize("key, value, stated, word", SETTINGS)
def test_the_setting_and_spec_key_reach_the_config_and_its_assumptions(key, value, stated, word):
    assert getattr(from_options(**{key: value}), key) == value
    spec_value = int(value) if isinstance(value, bool) else value
    assert getattr(make_bot(f"ismcts:iterations=10,{key}={spec_value}").config, key) == value
    assert stated in from_options(**{key: value}).assumes
    assert word not in SearchConfig().assumes


@pytest.mark.parametrize("option, value, shown, bad", [
    ("--round4-exploration", "0.7", '"round4_exploration": 0.7', "200"),
    ("--model-temperature", "1.75", '"model_temperature": 1.75', "0"),
    ("--policy", "guard", '"policy": "guard"', "clever"),
    ("--poly-bonus", "0.6", '"poly_bonus": 0.6', "11"),
    ("--take-margin", "0.03", '"take_margin": 0.03', "2"),
])
def test_the_cli_option_reaches_the_search_and_its_json(option, value, shown, bad):
    # -I: the installed package, whatever the current directory holds
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", DNP, "--iterations", "200", "--json",
                          option, value], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert shown in run.stdout
    refused = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", DNP, option, bad],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and option.lstrip("-") in refused.stderr and refused.stderr.count("\n") == 1


def test_the_third_city_flag_reaches_the_search_and_its_json():
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", DNP, "--iterations", "200", "--json",
                          "--third-city"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert '"third_city": true' in run.stdout
