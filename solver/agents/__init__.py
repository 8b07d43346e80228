"""Players and the places they meet: bots, external engines, one game (`arena`), matches
(`match`, `parallel`), the statistics of their results (`stats`), progress lines and plots.

Imports the solvers and below.
"""
