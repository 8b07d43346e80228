"""The searches and exact solvers, and the one budget type they all take.

- `endgame`: round 4 solved exactly, with open hands or from one player's view (`_endgame`);
- `equilibrium`: the round-4 hidden-information game solved by CFR+ (`_cfr`);
- `search`: the move advice, ISMCTS before round 4 (`_ismcts`, its selection formula in
  ext/ismcts.pyx), exact in round 4; `searchconfig`: its settings; `_pimc`: determinized search;
- `limit`: the budget (iterations and/or seconds).

Imports only the rules and below.
"""
