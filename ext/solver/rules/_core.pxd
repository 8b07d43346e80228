# cython: language_level=3
"""The declaration of `CoreState`, the one carrier of a game state between compiled modules.

ext/core.pyx is compiled as the module `solver.rules._core` (setup.py), and Cython binds a
cimported extension type to the module named by its .pxd: a cimport of `core.pxd` would
make every search module import a module `core` at load time, which does not exist. So
this file sits at the module's qualified path under ext/ (ext/solver/rules/_core.pxd, with
the package markers ext/solver/__init__.pxd and ext/solver/rules/__init__.pxd), found
through setup.py's include path (ext/); core.pyx picks it up as its own declaration and
ext/endgame.pyx, ismcts.pyx, pimc.pyx and cfr.pyx `from solver.rules._core cimport
CoreState`. (The alternative, solver/rules/_core.pxd, would put a C declaration among the
Python sources away from the .pyx it declares.)

A search module takes a CoreState and reads (copies) its `s`; a CoreState's State has
passed the rules check of its constructor (core.pyx), so no module re-checks it.
"""

from state cimport State


cdef class CoreState:
    cdef State s
