"""Build script: cythonizes ext/*.pyx into compiled modules of the `solver` package.

ext/core.pyx becomes solver._core, and so on: every .pyx in ext/ is one
extension module named solver._<stem>. The .pxd files in ext/ (the C state and
rules, the RNG) are shared by cimport and compile into each module inline.

One extension type crosses modules: `CoreState`, defined by ext/core.pyx. Cython ties a
cimported type to the module its .pxd is named after, so its declaration is
ext/solver._core.pxd (Cython's dotted-filename form of the module `solver._core`, found
through include_path below) rather than ext/core.pxd, which would make the search
modules import a module `core` that does not exist. The search modules
`from solver._core cimport CoreState` and take it as their argument.
"""

import os
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

extensions = [
    Extension(
        f"solver._{pyx.stem}",
        [f"{EXT}/{pyx.name}"],
        extra_compile_args=["-O3"],
        define_macros=[("DNOIR_CHECKED", "1")] if CHECKED else [],
    )
    for pyx in sorted((HERE / EXT).glob("*.pyx"))
]

setup(
    options={"build": {"build_base": "build/checked"}} if CHECKED else {},
    packages=["solver", "solver.bench", "solver.refmodel"],
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
