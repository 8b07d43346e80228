"""Judging play: exact analysis of round-4 positions (`exact`), batches of them (`batch`),
the review of a whole game (`review`) and the exploitability of a policy (`exploit`).

Imports the agents and below.
"""
