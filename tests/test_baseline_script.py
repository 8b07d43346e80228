"""bench/baseline.sh, the pinned-baseline builder of the strength workflow (bench/README.md).

Building a commit takes a minute or two, so the suite checks what can go wrong before the
build: a name that is not a commit is refused with one line and exit code 2, and nothing is
written.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "baseline.sh"

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                                reason="needs the git checkout the script builds from")


def test_an_unknown_commit_is_refused_before_anything_is_built(tmp_path):
    target = tmp_path / "base"
    run = subprocess.run(["bash", str(SCRIPT), "no-such-commit-anywhere", str(target)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.strip() == f"baseline.sh: no-such-commit-anywhere: not a commit of {ROOT}"
    assert not target.exists()
