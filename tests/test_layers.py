"""The house plan holds: layers that point one way, no import hidden in a function, and a
README layout that lists every file of the tree (issue 19 item 1).

- The import-linter contracts of pyproject.toml (`[tool.importlinter]`) are checked here,
  so a wrong-way import fails the suite (and CI).
- No module of the package imports a module of the package inside a function: such an
  import hides a dependency from the layers contract (and was how a circle stayed alive).
  The only ones allowed need an optional extra, listed in OPTIONAL with the reason.
- The README's "Layout" block names every source file (one line each), and nothing else.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# (file, module imported inside a function): each needs an optional extra, so that every
# other command runs without it
OPTIONAL = {
    ("solver/web/serve.py", "solver.web.app"),  # Starlette, extra [web]: imported when the server starts
    ("bench/adapters.py", "solver.interfaces.openspiel"),  # pyspiel, extra [openspiel]
    ("bench/adapters.py", "solver.interfaces.pettingzoo"),  # pettingzoo, extra [pettingzoo]
}


def package_files() -> list[Path]:
    files = [*ROOT.glob("solver/**/*.py"), *ROOT.glob("bench/*.py")]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def function_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a project module inside a function of `path`."""
    found = []
    for fn in ast.walk(ast.parse(path.read_text())):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                if node.level or module == "solver" or module.startswith("solver."):
                    found.append((node.lineno, module))
            elif isinstance(node, ast.Import):
                found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "solver"]
    return found


def test_the_import_linter_contracts_hold():
    run = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "Layers point one way KEPT" in run.stdout and "0 broken" in run.stdout, run.stdout[-2000:]


def test_the_contract_would_catch_a_wrong_way_import(tmp_path):
    """The contract is not vacuous: a rules module that imports the CLI breaks it."""
    import shutil

    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "solver", copy / "solver", ignore=shutil.ignore_patterns("__pycache__", "*.so", "static"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    cards = copy / "solver" / "rules" / "cards.py"
    cards.write_text(cards.read_text() + "\nfrom solver.cli.common import Whole  # noqa: E402\n")
    run = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                         cwd=copy, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"})
    assert run.returncode != 0, run.stdout[-2000:]
    assert "solver.rules.cards -> solver.cli.common" in run.stdout, run.stdout[-2000:]


def test_no_module_imports_the_package_inside_a_function():
    hidden = [(str(p.relative_to(ROOT)), line, module) for p in package_files()
              for line, module in function_level_imports(p)
              if (str(p.relative_to(ROOT)), module) not in OPTIONAL]
    assert hidden == [], "imports inside functions (hoist them, or list an optional extra in OPTIONAL):\n" + \
        "\n".join(f"{f}:{line}: {m}" for f, line, m in hidden)


def test_the_scan_finds_an_import_inside_a_function(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text("import os\n\ndef f():\n    from solver.rules import cards\n    from . import x\n    import solver.base.seeds\n")
    assert function_level_imports(sample) == [(4, "solver.rules"), (5, "."), (6, "solver.base.seeds")]


def layout_entries() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Layout\n", 1)[1]
    block = section.split("```\n", 2)[1]
    return [m.group(1) for line in block.splitlines() if (m := re.match(r"(\S+)\s", line + " "))]


def test_the_readme_layout_lists_every_file_of_the_tree_once():
    listed = layout_entries()
    assert len(listed) == len(set(listed)), [e for e in listed if listed.count(e) > 1]
    files = [p for p in (*ROOT.glob("solver/**/*.py"), *ROOT.glob("ext/**/*.pyx"), *ROOT.glob("ext/**/*.pxd"))
             if "__pycache__" not in p.parts]
    tree = {str(p.relative_to(ROOT)) for p in files} | {"solver/web/static/", "bench/", "tests/", "docs/"}
    assert set(listed) == tree, f"missing from the README: {sorted(tree - set(listed))}; " \
                                f"not in the tree: {sorted(set(listed) - tree)}"


def test_every_layer_is_a_package_named_in_the_contract():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = [name for c in contracts if c["type"] == "layers" for name in c["layers"]]
    packages = {f"solver.{p.parent.name}" for p in ROOT.glob("solver/*/__init__.py")}
    assert packages | {"solver.errors"} == set(layers)
    # the only top-level modules are the package's own, the error family and the public facades
    top = {p.stem for p in ROOT.glob("solver/*.py")}
    assert top == {"__init__", "__main__", "errors", "endgame", "limit", "search", "openspiel", "pettingzoo"}


@pytest.mark.parametrize("facade, home", [("endgame", "solver.solvers.endgame"), ("limit", "solver.solvers.limit"),
                                          ("search", "solver.solvers.search")])
def test_the_readme_import_paths_give_the_same_objects(facade, home):
    import importlib

    public, real = importlib.import_module(f"solver.{facade}"), importlib.import_module(home)
    names = [n for n in vars(public) if not n.startswith("_")]
    assert names and all(getattr(public, n) is getattr(real, n) for n in names)
