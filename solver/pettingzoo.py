"""The public path `solver.pettingzoo` (the PettingZoo environment: env, raw_env, BotOpponent, play_against), kept as the README shows it.

The code lives in `solver.interfaces.pettingzoo` (the layers: README, "Layout"); this module only
re-exports its public names, so that both paths give the very same objects.
"""

from solver.interfaces.pettingzoo import *  # noqa: F401,F403
