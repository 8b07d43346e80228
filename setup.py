"""Build script: cythonizes ext/*.pyx into compiled modules of the `solver` package.

ext/core.pyx becomes solver.rules._core, and so on: every .pyx in ext/ is one
extension module of the layer it belongs to: the rules core in solver.rules, the searches
and solvers in solver.solvers (LAYER below). The .pxd files in ext/ (the C state and
rules, the RNG) are shared by cimport and compile into each module inline.

One extension type crosses modules: `CoreState`, defined by ext/core.pyx. Cython ties a
cimported type to the module its .pxd is named after, so its declaration is
ext/solver/rules/_core.pxd, at the qualified path of the module `solver.rules._core` under
ext/ (found through include_path below), rather than ext/core.pxd, which would make the search modules
import a module `core` that does not exist. The search modules
`from solver.rules._core cimport CoreState` and take it as their argument.
"""

import os
import platform
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
EXT = "ext"

# DNOIR_CHECKED=1 builds the checked core: apply_move verifies the state's invariants
# (state_problem in ext/state.pxd) after every move and aborts with the reason if one is
# broken. Slower; for tests only (.ci/run runs the differential tests over it). Its objects
# are built apart (build/checked), so a checked and a normal build never share one.
CHECKED = os.environ.get("DNOIR_CHECKED", "") not in ("", "0")



def cpu_flags() -> list[str]:
    """-mpopcnt when the machine that builds is an x86-64 whose CPU has the instruction
    (Linux: /proc/cpuinfo), unless DNOIR_PORTABLE=1. Without it a popcount is a dozen
    instructions (state.pxd counts bits inline), which cost about 4% of ISMCTS's speed.
    A build from source runs where it was built; a build meant to be copied to other
    machines sets DNOIR_PORTABLE=1. Nothing else changes: the code is the same, the results
    the same."""
    if os.environ.get("DNOIR_PORTABLE", "") not in ("", "0") or platform.machine() not in ("x86_64", "AMD64"):
        return []
    try:
        with open("/proc/cpuinfo") as f:
            has = any(line.startswith("flags") and " popcnt" in line for line in f)
    except OSError:
        return []
    return ["-mpopcnt"] if has else []


# Which layer (subpackage) each compiled module belongs to: the rules or the solvers.
LAYER = {"core": "rules", "endgame": "solvers", "cfr": "solvers", "ismcts": "solvers", "pimc": "solvers"}

extensions = [
    Extension(
        f"solver.{LAYER[pyx.stem]}._{pyx.stem}",
        [f"{EXT}/{pyx.name}"],
        extra_compile_args=["-O3", *cpu_flags()],
        define_macros=[("DNOIR_CHECKED", "1")] if CHECKED else [],
    )
    for pyx in sorted((HERE / EXT).glob("*.pyx"))
]

setup(
    options={"build": {"build_base": "build/checked"}} if CHECKED else {},
    packages=["solver", "solver.base", "solver.rules", "solver.solvers", "solver.agents", "solver.analysis",
              "solver.interfaces", "solver.web", "solver.bench", "solver.cli", "solver.refmodel"],
    # The web board's page (HTML, CSS, JavaScript: no build step) ships inside the package.
    package_data={"solver.web": ["static/*.html", "static/*.css", "static/*.js", "static/*.png"],
                  "solver.solvers": ["round_model.json"]},
    # The benchmarks and the pure-Python reference model live at the top of the
    # repository (bench/, tests/refmodel/) but ship inside the package so that
    # `dnoir bench` can measure the core against the model on any installation.
    package_dir={"solver": "solver", "solver.bench": "bench", "solver.refmodel": "tests/refmodel"},
    ext_modules=cythonize(
        extensions,
        include_path=[EXT],
        compiler_directives={"language_level": "3", "embedsignature": True},
    ),
)
