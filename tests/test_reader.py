"""A bad file is an input error, whatever its bytes (issue 18, items 2 and 4).

One reader (solver.base.jsonl: `records`, `file_lines`, `stream_lines`, `read_line`, `loads`)
reads game records, saved games, analyse input and results: every line alone, capped in
length before it is in memory, decoded alone, nesting capped. Every command that reads
such a file reports a bad one in one line naming the file and the line, exit code 2 (in
`analyse`: a bad line, and the rest runs).
"""

import io
import json
import subprocess
import sys

import pytest

from solver.agents.arena import play_game
from solver.base.jsonl import MAX_DEPTH, MAX_LINE_BYTES, loads, read_line, records, stream_lines
from solver.rules.position import Position

DEEP = "[" * 100_000 + "]" * 100_000
NOT_UTF8 = b'{"seat": "a", "start": "\xff\xfe"}\n'


def dnoir(*args, input=None, env=None, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True,
                          input=input, env=env, timeout=timeout)


def one_error_line(run) -> str:
    err = run.stderr.decode()
    assert run.returncode == 2, (run.returncode, err[-500:])
    assert err.count("\n") == 1 and err.startswith("dnoir: error: "), err[-500:]
    assert "internal error" not in err and "Traceback" not in err
    return err


@pytest.fixture(scope="module")
def record():
    """A real match record (as `dnoir match --out` writes it)."""
    return play_game(Position.random_deal(5), ("greedy", "random"), seed=1)


# -- the reader -----------------------------------------------------------------------------

def test_loads_caps_nesting_and_says_why():
    assert loads('{"a": [[1]]}') == {"a": [[1]]}
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for text in (DEEP, "{" + '"a":{' * 50_000, "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)):
        with pytest.raises(ValueError, match="nested deeper than"):
            loads(text)
    assert loads(json.dumps(["[" * 50, "{\\\"" * 50])) == ["[" * 50, "{\\\"" * 50]  # brackets in strings
    with pytest.raises(ValueError, match="not valid JSON"):
        loads('{"a": ')


def test_read_line_caps_a_line_before_it_is_in_memory():
    stream = io.BytesIO(b"x" * (MAX_LINE_BYTES * 3) + b"\nnext\n")
    assert read_line(stream) == (None, f"longer than {MAX_LINE_BYTES:,} bytes")
    assert read_line(stream) == ("next\n", None)
    assert read_line(stream) == ("", None)
    lines = list(stream_lines(io.BytesIO(b"ok\n\xff\xfe\n" + b"y" * 5000 + b"\n"), cap=4096))
    assert lines == [(1, "ok\n", None), (2, None, "not valid UTF-8 (byte 0xff at column 1)"),
                     (3, None, "longer than 4,096 bytes")]


def test_records_name_each_bad_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": 1}\n\n\xc3\x28\n' + DEEP.encode() + b"\nnot json\n")
    out = list(records(str(path)))
    assert out[0] == (1, {"id": 1}, None)
    assert [(n, problem.split(" (")[0]) for n, _, problem in out[1:]] == [
        (3, "not valid UTF-8"), (4, "nested deeper than 32 levels"), (5, "not valid JSON")]


# -- the commands -----------------------------------------------------------------------------
# The ids are short on purpose: pytest before 9.2 makes an id of the whole 1 MB value, puts it
# in PYTEST_CURRENT_TEST, and the subprocess then fails to start (E2BIG: one environment string
# is capped at 128 KiB).

@pytest.mark.parametrize("content,reason", [(NOT_UTF8, "not valid UTF-8"), (DEEP.encode() + b"\n", "nested deeper"),
                                            (b"x" * (MAX_LINE_BYTES + 10) + b"\n", "longer than")],
                         ids=["not-utf8", "deep", "long"])
def test_play_load_of_any_bytes_is_one_line(tmp_path, content, reason):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    err = one_error_line(dnoir("play", "--track", "--load", str(bad), input=b""))
    assert f"{bad} line 1: {reason}" in err


@pytest.mark.parametrize("content,reason", [(NOT_UTF8, "not valid UTF-8"), (DEEP.encode() + b"\n", "nested deeper")],
                         ids=["not-utf8", "deep"])
def test_review_and_replay_of_any_bytes_is_one_line(tmp_path, record, content, reason):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(json.dumps(record).encode() + b"\n" + content)
    err = one_error_line(dnoir("review", str(bad), "--iterations", "50", "--game", "1"))
    assert f"{bad} line 2: {reason}" in err
    err = one_error_line(dnoir("replay", str(bad), "--game", "1"))
    assert f"{bad} line 2" in err and reason in err


def test_analyse_counts_a_deep_or_undecodable_line_as_one_bad_line(tmp_path):
    good = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C"
    path = tmp_path / "in.txt"
    path.write_bytes(b"\n".join([good.encode(), b'{"id": 1, "dnp": ' + DEEP.encode() + b"}", b"\xff" + good.encode(),
                                 b"{" + b'"a":{' * 60 + b"}" * 61, good.replace("b a", "a b").encode()]) + b"\n")
    run = dnoir("analyse", str(path), "--workers", "1")
    err = run.stderr.decode()
    assert run.returncode == 1, err  # bad lines: the rest still ran
    assert "internal error" not in err and "Traceback" not in err
    assert "line 2: nested deeper" in err and "line 3: not valid UTF-8" in err and "line 4: nested deeper" in err
    results = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert [r["line"] for r in results] == [1, 5]


def test_play_stdin_of_any_bytes_under_a_strict_locale(tmp_path):
    import os

    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8:strict")
    huge = b"8" * (20 * 1024 * 1024)
    answers = b"b\nb\n5C\n66778\n\xff\xfe\n" + huge + b"\nquit\n"
    run = dnoir("play", "--track", input=answers, env=env)
    out, err = run.stdout.decode(), run.stderr.decode()
    assert run.returncode == 0, err[-500:]
    assert "not valid UTF-8 (byte 0xff at column 1): ignored" in out
    assert "longer than 4,096 bytes: ignored" in out
    assert len(out) < 100_000  # the 20 MB line is not echoed back


# -- review checks records as replay and analyse do (item 4) -------------------------------

@pytest.mark.parametrize("edit,field", [
    (lambda r: r["result"].update(winner="nobody"), "result.winner"),
    (lambda r: r.update(pair="x"), "pair"),
    (lambda r: r["result"].update(winner="b" if r["result"]["winner"] == "a" else "a"), "result"),
])
def test_review_refuses_a_hand_edited_record(tmp_path, record, edit, field):
    edited = json.loads(json.dumps(record))
    edit(edited)
    path = tmp_path / "edited.jsonl"
    path.write_text(json.dumps(edited) + "\n")
    err = one_error_line(dnoir("review", str(path), "--iterations", "50"))
    assert f"line 1: {field}" in err
