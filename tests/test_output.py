"""Output never destroys what it does not own, and never counts twice (issue 18, items 3 and 5).

- an output file is locked while a run writes it: a second writer is refused in one line;
- `save` and `--record` replace only regular files in one step, follow symlinks, and
  write to anything else (a device, a pipe) as it is;
- a full disk (/dev/full) is an output error, exit 2, with what was written before kept;
- a resume counts each id once, even from an output two runs wrote at once;
- a closed output pipe ends quietly (exit 141, as a Unix tool killed by SIGPIPE).
"""

import json
import os
import stat
import subprocess
import sys
import threading

import pytest

from solver.base.jsonl import OutputLock, replace_file

R4 = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"


def dnoir(*args, input=None, timeout=300, **kw):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          input=input, timeout=timeout, **kw)


def positions(path, n):
    path.write_text("".join(json.dumps({"id": i, "dnp": R4}) + "\n" for i in range(n)))
    return path


# -- locking ----------------------------------------------------------------------------------

def test_a_second_writer_of_an_analyse_output_is_refused(tmp_path):
    out = tmp_path / "out.jsonl"
    with OutputLock(str(out)):  # another run writing it
        run = dnoir("analyse", str(positions(tmp_path / "in.txt", 3)), "--out", str(out), "--workers", "1")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "is being written by another dnoir run" in run.stderr
    assert not out.exists()  # untouched: the file the lock made is gone with it, nothing written
    run = dnoir("analyse", str(tmp_path / "in.txt"), "--out", str(out), "--workers", "1")
    assert run.returncode == 0 and len(out.read_text().splitlines()) == 3  # free again once released


def test_a_second_writer_of_a_match_output_is_refused(tmp_path):
    out = tmp_path / "games.jsonl"
    with OutputLock(str(out)):
        run = dnoir("match", "random", "greedy", "--pairs", "1", "--workers", "1", "--out", str(out))
    assert run.returncode == 2 and "is being written by another dnoir run" in run.stderr
    assert run.stderr.count("\n") == 1


def test_lock_is_only_for_regular_files_and_a_created_empty_file_goes_again(tmp_path):
    path = tmp_path / "new.jsonl"
    with OutputLock(str(path)):
        assert path.exists()
    assert not path.exists()  # created by the lock, nothing written: removed
    with OutputLock(os.devnull), OutputLock(os.devnull):  # a device is never locked
        pass
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_resume_counts_each_id_once(tmp_path):
    source = positions(tmp_path / "in.txt", 4)
    out = tmp_path / "out.jsonl"
    first = dnoir("analyse", str(source), "--out", str(out), "--workers", "1")
    assert first.returncode == 0
    out.write_text(out.read_text() * 2)  # as two unlocked runs at once left it
    again = dnoir("analyse", str(source), "--out", str(out), "--workers", "1")
    assert again.returncode == 0 and "already in the output (resumed): 4" in again.stderr

    def figures(text):
        return [line for line in text.splitlines() if line.startswith(("side to move", "game decisions"))]

    assert figures(again.stderr) == figures(first.stderr)


# -- atomic only for regular files ------------------------------------------------------------

def test_replace_file_replaces_a_regular_file_keeping_its_mode(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    replace_file(str(path), "new\n")
    assert path.read_text() == "new\n" and stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary left behind


def test_replace_file_follows_a_symlink(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    replace_file(str(link), "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"


def test_replace_file_streams_to_a_pipe(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    replace_file(str(fifo), "a record\n")
    reader.join(60)
    assert got == ["a record\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_play_record_through_a_symlink_keeps_the_link(tmp_path):
    target = tmp_path / "real.json"
    link = tmp_path / "game.json"
    link.symlink_to(target)
    run = dnoir("play", "--engine", "random", "--seed", "3", "--seat", "a", "--record", str(link),
                input="T\nquit\n")
    assert run.returncode == 0, run.stderr
    assert link.is_symlink() and json.loads(target.read_text())["kind"] == "play"


# -- a full disk ----------------------------------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [
    ["analyse", "IN", "--out", "/dev/full", "--workers", "1"],
    ["match", "random", "greedy", "--pairs", "1", "--workers", "1", "--out", "/dev/full"],
])
def test_a_full_disk_is_an_output_error(tmp_path, args):
    source = positions(tmp_path / "in.txt", 2)
    run = dnoir(*[str(source) if a == "IN" else a for a in args])
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("dnoir:")]
    assert errors == ["dnoir: error: cannot write /dev/full: No space left on device; everything before it is kept"]
    assert "internal error" not in run.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_standard_output_is_an_output_error(tmp_path):
    source = positions(tmp_path / "in.txt", 2)
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "analyse", str(source), "--workers", "1"],
                             stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert run.returncode == 2 and "No space left on device" in run.stderr
    assert "internal error" not in run.stderr


# -- a closed pipe ----------------------------------------------------------------------------

def _into_closed_pipe(*args):
    """Run `dnoir args` with its stdout a pipe whose reader reads one line and closes."""
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), first, err


def test_a_closed_pipe_ends_quietly(tmp_path):
    source = positions(tmp_path / "in.txt", 400)
    code, first, err = _into_closed_pipe("analyse", str(source), "--workers", "1")
    assert first.startswith("{") and code == 141
    assert "error" not in err and "Traceback" not in err and "Exception" not in err
    games = tmp_path / "g.jsonl"
    # 20 games replayed in full are about 140 KB, more than a pipe holds (64 KiB): the writer
    # cannot finish before the reader closes, whatever the load (4 games, 29 KB, could)
    assert dnoir("match", "random", "greedy", "--pairs", "10", "--workers", "1", "--out", str(games)).returncode == 0
    code, first, err = _into_closed_pipe("replay", str(games), "--full")
    assert first.startswith("game 0") and code == 141 and err == ""
