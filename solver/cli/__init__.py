"""The `dnoir` command line (click), the top layer: it imports anything below and nothing
imports it.

solver.cli.main holds the root group, the position commands and `main` (the console
script's entry point: it runs one command and turns every failure into one line and an exit
code); the other commands are in the leaf modules (bench, equilibrium, games, play, serve),
which share solver.cli.common and never import solver.cli.main. This package's own
`__init__` imports nothing, so importing a leaf does not import the root.
"""
