"""Game records checked field by field: solver.rules.records, and the readers that use it (match --resume, replay)."""

import doctest
import json
import subprocess
import sys

import pytest

import solver.rules.records
from solver.agents.match import make_jobs, play_job, read_records
from solver.rules.position import Position
from solver.rules.records import MATCH_FIELDS, REPLAY_FIELDS, RecordError, check_record


def dnoir(*args, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def record():
    return play_job(make_jobs([("greedy", "random")], pairs=1, seed=4)[0])


def test_docstring_examples():
    result = doctest.testmod(solver.rules.records, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_match_record_passes_and_extra_fields_are_allowed(record):
    assert check_record(record, MATCH_FIELDS) is record
    assert check_record(dict(record, budget={"iterations": 5}, note="hand-made"), MATCH_FIELDS)
    bare = {"deal": record["deal"], "moves": record["moves"]}
    assert check_record(bare, REPLAY_FIELDS) is bare  # a record not from a match, without a result
    with pytest.raises(RecordError) as e:
        check_record(bare, MATCH_FIELDS)
    assert e.value.field == "result" and e.value.reason == "missing"


def _after_one_move(deal: str) -> str:
    pos = Position.parse(deal)
    return str(pos.play(pos.legal_moves()[0]))


def _illegal_first_move(deal: str) -> str:
    pos = Position.parse(deal)
    legal = {str(m) for m in pos.legal_moves()}
    return next(t for t in ["5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C", "T"] if t not in legal)


@pytest.mark.parametrize("change, field, reason", [
    (lambda r: [1, 2], "record", "JSON object"),
    (lambda r: dict(r, deal=5), "deal", "DNP string"),
    (lambda r: dict(r, deal="not a position"), "deal", ""),
    (lambda r: dict(r, deal=str(Position.parse(r["deal"]).view("a"))), "deal", "full deal"),
    (lambda r: dict(r, deal=_after_one_move(r["deal"])), "deal", "start of round 1"),
    (lambda r: {k: v for k, v in r.items() if k != "deal"}, "deal", "missing"),
    (lambda r: dict(r, moves=None), "moves", "string"),
    (lambda r: dict(r, moves=["8"]), "moves", "string"),
    (lambda r: dict(r, moves="Q " + r["moves"]), "moves", "move 1 ('Q') is not a move token"),
    (lambda r: dict(r, moves=_illegal_first_move(r["deal"]) + " " + r["moves"]), "moves", "move 1"),
    (lambda r: dict(r, moves=r["moves"] + " T"), "moves", "after the end"),
    (lambda r: dict(r, moves=" ".join(r["moves"].split()[:-1])), "moves", "not over"),
    (lambda r: dict(r, result=None), "result", "object, not null"),
    (lambda r: dict(r, result={**r["result"], "winner": "c"}), "result.winner", "'a', 'b' or 'draw'"),
    (lambda r: dict(r, result={**r["result"], "how": 3}), "result.how", "string"),
    (lambda r: dict(r, result={**r["result"], "scores": {"a": {}}}), "result.scores.a.majorities", "integer"),
    (lambda r: dict(r, result={**r["result"], "winner": {"a": "b", "b": "a", "draw": "a"}[r["result"]["winner"]]}),
     "result", "the moves give"),
    (lambda r: dict(r, pairing="greedy"), "pairing", "two strings"),
    (lambda r: dict(r, pairing=["greedy", 3]), "pairing", "two strings"),
    (lambda r: dict(r, pair=-1), "pair", "0 or more"),
    (lambda r: dict(r, pair=True), "pair", "0 or more"),
    (lambda r: dict(r, pair=1.0), "pair", "0 or more"),
    (lambda r: dict(r, game=2), "game", "0 or 1"),
    (lambda r: dict(r, match_seed="7"), "match_seed", "integer"),
    (lambda r: dict(r, match_seed=False), "match_seed", "integer"),
    (lambda r: dict(r, players=["greedy", "random"]), "players", "seats"),
    (lambda r: dict(r, settings=None), "settings", "object"),
    (lambda r: dict(r, fault={"player": "a", "kind": "boom"}), "fault.kind", "timeout"),
])
def test_a_malformed_record_names_its_field(record, change, field, reason):
    with pytest.raises(RecordError) as e:
        check_record(change(dict(record)), MATCH_FIELDS)
    assert e.value.field == field and reason in e.value.reason
    assert isinstance(e.value, ValueError) and str(e.value).startswith(field)


def _write_with_bad_records(path, record):
    """Line 1: a good record of pair 0 game 0; then the same game malformed three ways; line 5 not UTF-8."""
    lines = [json.dumps(record).encode(),
             json.dumps(dict(record, result=None)).encode(),
             json.dumps(dict(record, moves=record["moves"] + " T")).encode(),
             json.dumps(dict(record, pair="0")).encode(),
             b'{"deal": "\xff\xfe"}']
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_read_records_skips_malformed_records_naming_line_and_field(tmp_path, record):
    out = tmp_path / "g.jsonl"
    _write_with_bad_records(out, record)
    bad = []
    records = read_records(out, on_bad_line=lambda n, why: bad.append((n, why)))
    assert records == [record]
    assert [n for n, _ in bad] == [2, 3, 4, 5]
    assert bad[0][1].startswith("result:") and bad[1][1].startswith("moves:") and bad[2][1].startswith("pair:")
    assert "UTF-8" in bad[3][1]


def test_match_resume_warns_of_malformed_records_and_replays_those_games(tmp_path):
    out = tmp_path / "g.jsonl"
    assert dnoir("match", "greedy", "random", "--pairs", "2", "--out", str(out)).returncode == 0
    good = out.read_text().splitlines()
    broken = json.loads(good[1])
    broken["result"] = None
    lines = [good[0].encode(), json.dumps(broken).encode(), b"\xff not UTF-8"] + [g.encode() for g in good[2:]]
    out.write_bytes(b"\n".join(lines) + b"\n")
    resumed = dnoir("match", "greedy", "random", "--pairs", "2", "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    warnings = [line for line in resumed.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 2
    assert "line 2" in warnings[0] and "result" in warnings[0]
    assert json.loads(resumed.stdout)["games"] == 4
    assert {(r["pair"], r["game"]) for r in read_records(out)} == {(k, g) for k in range(2) for g in (0, 1)}


def test_match_resume_survives_invalid_utf8(tmp_path, record):
    out = tmp_path / "g.jsonl"
    out.write_bytes(b"\xff\xfe not text\n")
    resumed = dnoir("match", "greedy", "random", "--pairs", "1", "--seed", "4", "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "line 1" in resumed.stderr and "UTF-8" in resumed.stderr
    assert len(read_records(out)) == 2


def test_replay_of_a_malformed_record_is_one_line(tmp_path, record):
    out = tmp_path / "g.jsonl"
    _write_with_bad_records(out, record)
    for index, line, field in [(1, 2, "result"), (2, 3, "moves"), (4, 5, "UTF-8")]:
        result = dnoir("replay", str(out), "--game", str(index))
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert f"line {line}" in result.stderr and field in result.stderr and "Traceback" not in result.stderr
    past = dnoir("replay", str(out), "--game", "5")
    assert past.returncode == 2 and "holds 5 game records" in past.stderr


def test_replay_numbers_records_by_line_and_needs_only_deal_and_moves(tmp_path, record):
    out = tmp_path / "g.jsonl"
    other = play_job(make_jobs([("random", "greedy")], pairs=1, seed=9)[0])
    out.write_text(json.dumps(dict(record, result=None)) + "\n"
                   + json.dumps({"deal": other["deal"], "moves": other["moves"]}) + "\n")
    result = dnoir("replay", str(out), "--game", "1", "--full")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("--- move ") == len(other["moves"].split())
    assert f"result (from the moves): {other['result']['winner']}" in result.stdout
