# A package marker for Cython (ext/solver/rules/_core.pxd declares solver.rules._core).
