"""A deliberately broken engine for the match runner's tests: `illegal`, `silent` or `crash`."""

import sys

mode = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "dn":
        print(f"id name faulty-{mode}\ndnok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        if mode == "illegal":
            print("bestmove +4", flush=True)  # there is one +4 in the game: rarely in hand
        elif mode == "crash":
            sys.exit(3)
        # silent: never answers
    elif words[0] == "quit":
        break
