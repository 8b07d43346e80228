"""What the round-34 tail scripts share: the recorded positions they sample and the disagreement kinds."""
import random


def sampled_positions(path, seed, rate=0.03):
    """Lines "DNP<TAB>move played" of `path` (round 33's data.dnp: every position of rounds 1-3
    of the recorded engine games with the move made there), a `rate` of them, shuffled by `seed`."""
    rng = random.Random(seed)
    picked = []
    with open(path) as f:
        for line in f:
            if rng.random() < rate:
                picked.append(line.rstrip("\n"))
    rng.shuffle(picked)
    for line in picked:
        dnp, move = line.split("\t")
        yield dnp, move


def disagreement(chosen, best):
    """How a choice differs from the equilibrium's most frequent move."""
    if chosen == best:
        return "same"
    if chosen == "T":
        return "takes where the equilibrium plays"
    if best == "T":
        return "plays where the equilibrium takes"
    return "another card"
