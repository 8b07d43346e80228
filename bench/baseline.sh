#!/usr/bin/env bash
# Build one commit of this repository into an environment of its own and print the `cmd:`
# engine spec that plays it, for strength tests against a pinned baseline (bench/STRENGTH.md):
#
#   bench/baseline.sh [COMMIT] [DIR]        # COMMIT defaults to 388581d, DIR to ../dnoir-base-COMMIT
#   dnoir match ismcts:time=0.1 "$(bench/baseline.sh)" --pairs 400 --seed 1 --sprt 0,5 ...
#
# The commit's tree is exported with `git archive` (no checkout, no worktree: the repository is
# left as it is), installed into DIR/.v by pip, and checked by running its engine once. A DIR that
# already holds a good build of the same commit is reused, so the command is cheap to repeat.
# Progress goes to stderr; stdout is the one spec line, so `$(bench/baseline.sh)` is the spec.
set -euo pipefail

commit_arg=${1:-388581d}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse --verify --quiet "${commit_arg}^{commit}") || {
    echo "baseline.sh: ${commit_arg}: not a commit of $repo" >&2
    exit 2
}
short=${commit:0:7}
dir=${2:-$(dirname "$repo")/dnoir-base-$short}
engine="$dir/.v/bin/dnoir"

if [ -f "$dir/COMMIT" ] && [ "$(cat "$dir/COMMIT")" = "$commit" ] && [ -x "$engine" ]; then
    echo "baseline.sh: reusing the build of $short in $dir" >&2
else
    echo "baseline.sh: building $short into $dir (about a minute)" >&2
    rm -rf "$dir/src" "$dir/.v" "$dir/COMMIT"
    mkdir -p "$dir/src"
    git -C "$repo" archive "$commit" | tar -x -C "$dir/src"
    python3 -m venv "$dir/.v"
    "$dir/.v/bin/pip" install --quiet "$dir/src" >&2
    echo "$commit" > "$dir/COMMIT"
fi

# The build must answer the protocol's handshake before anyone plays it.
if ! printf 'dn\nquit\n' | timeout 60 "$engine" engine | grep -q '^dnok'; then
    echo "baseline.sh: the engine of $short in $dir does not answer 'dn' with 'dnok'" >&2
    exit 1
fi
echo "cmd:$engine engine"
