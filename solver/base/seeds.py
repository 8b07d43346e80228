"""How one seed becomes many: the seeds of a search's threads, of a match's games and deals.

Every derived seed is splitmix64 of the seed and an index (Steele, Lea and Flood 2014), so
that neighbouring indices give unrelated streams. Seeds a user may see (a record's deal and
game seeds) keep their top 53 bits, the range of `--seed` (solver.base.bounds.MAX_SEED).

>>> thread_seed(1, 0) != thread_seed(1, 1)
True
>>> 0 <= thread_seed(2**53 - 1, 7) >> 11 <= 2**53 - 1
True
"""

from __future__ import annotations


def thread_seed(seed: int, index: int) -> int:
    """The seed of thread `index` of a search seeded with `seed` (splitmix64 of both), 64 bits."""
    z = (seed * 0x9E3779B97F4A7C15 + index + 1) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)
