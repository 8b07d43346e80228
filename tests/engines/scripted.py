"""A fake engine for the external-engine tests: it plays legal moves and misbehaves on cue.

    scripted.py STATE_DIR [--crash-on-go N] [--exit-after-last-move] [--fail-relaunch exit|hang]
                          [--late-first-go SECONDS] [--error-on-go N] [--busy] [--until-stop]

Every launch writes `<pid>.pid` into STATE_DIR, holding its parent's pid, so that a test
can count launches and check that no engine (nor the worker that started it) is left.

--crash-on-go N         exit with code 3 on the Nth `go` of each launch
--exit-after-last-move  exit right after answering its last move of a game
--fail-relaunch MODE    every launch after the first fails its handshake: 'exit' at once,
                        or 'hang' (never answers `dn`)
--late-first-go S       the first `go` of the first launch answers `bestmove stale` after
                        S seconds (a token that is never a move), then writes `stale.sent`
                        into STATE_DIR
--error-on-go N         answer the Nth `go` of each launch with an `error` line, not a move
--busy                  ignore the end of its input (as an engine stuck in a search would)
--until-stop            answer each `go` only when `stop` comes (as `go infinite` does), and
                        write `stop.got` into STATE_DIR when it does
"""

import argparse
import os
import signal
import sys
import time

from solver.rules.position import Position

parser = argparse.ArgumentParser()
parser.add_argument("state")
parser.add_argument("--crash-on-go", type=int, default=0)
parser.add_argument("--exit-after-last-move", action="store_true")
parser.add_argument("--fail-relaunch", choices=["exit", "hang"], default=None)
parser.add_argument("--late-first-go", type=float, default=0.0)
parser.add_argument("--error-on-go", type=int, default=0)
parser.add_argument("--busy", action="store_true")
parser.add_argument("--until-stop", action="store_true")
options = parser.parse_args()

launch = len([name for name in os.listdir(options.state) if name.endswith(".pid")]) + 1
with open(os.path.join(options.state, f"{os.getpid()}.pid"), "w") as f:
    f.write(str(os.getppid()))
if options.busy:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def last_move_of_game(pos: Position) -> bool:
    """True if the side to move of `pos` makes its last action of the game with this move."""
    return pos.round == 4 and pos.actions[pos.to_move] == 5


position, goes = None, 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    command = words[0]
    if command == "dn":
        if launch > 1 and options.fail_relaunch == "exit":
            sys.exit(4)
        if launch > 1 and options.fail_relaunch == "hang":
            continue
        send("id name scripted")
        send("dnok")
    elif command == "isready":
        send("readyok")
    elif command == "position":
        position = Position.parse(line.split(None, 1)[1])
    elif command == "go":
        goes += 1
        if goes == options.crash_on_go:
            sys.exit(3)
        if goes == options.error_on_go:
            send("error go: refused")
            continue
        if launch == 1 and goes == 1 and options.late_first_go:
            time.sleep(options.late_first_go)
            send("bestmove stale")
            open(os.path.join(options.state, "stale.sent"), "w").close()
            continue
        if options.until_stop:
            continue
        send(f"bestmove {position.legal_moves()[0]}")
        if options.exit_after_last_move and last_move_of_game(position):
            sys.exit(0)
    elif command == "stop" and options.until_stop:
        open(os.path.join(options.state, "stop.got"), "w").close()
        send(f"bestmove {position.legal_moves()[0]}")
    elif command == "quit":
        break
while options.busy:  # its input is gone, and it runs on
    time.sleep(1)
