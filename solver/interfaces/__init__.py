"""What people and other programs talk to: the engine protocol (`engine`), terminal play
(`play`), the board and advice rendering (`board`, where the advice table is drawn), and
the OpenSpiel and PettingZoo adapters (`openspiel`, `pettingzoo`, `observation`).

Imports the analysis and below.
"""
