"""The live match view: what `dnoir match --json` would print now for each file the server
was started with (`dnoir serve --match FILE`), read again on every request.

A line still being written (the torn end of a running match) or any other bad line is
counted in `bad_lines` and skipped. The counts are kept as tallies (solver.agents.match), so a
long match reads in flat memory beyond its records.

>>> match_summaries([], None)
[]
"""

from __future__ import annotations

import os

from solver.agents.match import PairingTally, read_records
from solver.agents.stats import Sprt


def match_summaries(paths, sprt: str | None) -> list[dict]:
    """One entry a file: its name, the games read, and each pairing's summary (with the SPRT
    result when `sprt` is given, as `dnoir match --sprt` computes it)."""
    test = Sprt.parse(sprt) if sprt else None
    out = []
    for path in paths:
        bad = []
        records = read_records(path, on_bad_line=lambda number, reason: bad.append(number)) \
            if os.path.exists(path) else []
        tallies: dict[tuple, PairingTally] = {}
        for r in records:
            key = tuple(r["pairing"])
            tally = tallies.get(key)
            if tally is None:
                tally = tallies[key] = PairingTally(*key)
            tally.add(r)
        pairings = []
        for tally in tallies.values():
            data = tally.summary().to_dict()
            if test is not None:
                data["sprt"] = test.result(tally.units.penta).to_dict()
            pairings.append(data)
        out.append(dict(name=os.path.basename(path), exists=os.path.exists(path), games=len(records),
                        bad_lines=len(bad), pairings=pairings))
    return out
