"""The rules of District Noir, once: cards and moves, the DNP notation, positions, events
and game records, over the compiled rules core `_core` (ext/core.pyx, ext/state.pxd).

Imports only solver.base and solver.errors.
"""
