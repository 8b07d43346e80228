"""The bottom layer: what every other layer may use and which knows nothing of the game.

- `bounds`: the range of every number a user can give, and the one way each is checked;
- `jsonl`: the one reader (and the locked, atomic writer) of JSON-lines files;
- `seeds`: how one seed becomes the seeds of threads, games and deals.
"""
