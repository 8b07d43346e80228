"""bench/spsa.py: fishtest's classic SPSA over the search's numeric settings."""

import json
import random

import pytest

from solver.bench import spsa
from solver.bench.spsa import Param, Schedule

EXPLORATION = "exploration=0.35,0.1,1.0,0.05,0.02"


def test_the_schedule_ends_at_c_end_and_r_end():
    schedule = Schedule(pairs=400, big_a=40, alpha=0.602, gamma=0.101)
    param = Param("opponent_hands", 10, 0, 40, 2.0, 0.05)
    assert schedule.c(param, 400) == pytest.approx(2.0)
    assert schedule.a(param, 400) / schedule.c(param, 400) ** 2 == pytest.approx(0.05)
    # both shrink as the run goes on
    assert schedule.c(param, 1) > schedule.c(param, 200) > schedule.c(param, 400)
    assert schedule.a(param, 1) > schedule.a(param, 200) > schedule.a(param, 400)


def test_a_win_of_the_plus_side_moves_theta_along_its_flip_and_clips():
    schedule = Schedule(pairs=10, big_a=1, alpha=0.602, gamma=0.101)
    params = [Param("exploration", 0.35, 0.1, 1.0, 0.05, 0.02), Param("opponent_hands", 10, 0, 40, 2, 0.02)]
    after = spsa.step(schedule, params, [0.35, 10.0], 1, [[1, -1]], [2.0])
    gain = [schedule.a(p, 1) / schedule.c(p, 1) for p in params]
    assert after == pytest.approx([0.35 + 2 * gain[0], 10.0 - 2 * gain[1]])
    assert spsa.step(schedule, params, [0.35, 10.0], 1, [[1, -1]], [0.0]) == [0.35, 10.0]
    # a huge step stops at the range's end
    wild = [Param("exploration", 0.35, 0.1, 1.0, 0.05, 1e6)]
    assert spsa.step(schedule, wild, [0.35], 1, [[-1]], [2.0]) == [0.1]


def test_a_pair_result_is_the_plus_sides_wins_less_losses():
    def game(number, winner):
        return {"game": number, "result": {"winner": winner}}
    assert spsa.pair_result([game(0, "a"), game(1, "b")]) == 2.0  # the plus side is a, then b
    assert spsa.pair_result([game(0, "a"), game(1, "a")]) == 0.0
    assert spsa.pair_result([game(0, "draw"), game(1, "a")]) == -1.0


def test_the_flips_are_both_signs_pair_by_pair():
    seen = [tuple(spsa.flips_for(5, pair, 3)) for pair in range(400)]
    assert len(set(seen)) == 8  # every pattern of three signs
    assert all(abs(sum(f[i] for f in seen)) < 60 for i in range(3))  # about as many of each sign
    assert spsa.flips_for(6, 0, 3) != spsa.flips_for(5, 0, 3) or spsa.flips_for(6, 1, 3) != spsa.flips_for(5, 1, 3)


def fake_play(target):
    """A stand-in for play_job: the side whose exploration is nearer `target` wins more often."""
    def play(job):
        plus = float(job.x.rsplit("exploration=", 1)[1])
        minus = float(job.y.rsplit("exploration=", 1)[1])
        rng = random.Random(job.seed * 1000 + job.pair * 2 + job.game)
        edge = 4 * (abs(minus - target) - abs(plus - target))  # the plus side's edge
        x_wins = rng.random() < 0.5 + max(-0.45, min(0.45, edge))
        x_seat = "a" if job.game == 0 else "b"
        winner = x_seat if x_wins else ("b" if x_seat == "a" else "a")
        return {"pair": job.pair, "game": job.game, "result": {"winner": winner}}
    return play


def test_it_climbs_towards_the_better_value(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(spsa, "play_job", fake_play(0.7))
    out = tmp_path / "run.jsonl"
    spsa.main(["ismcts:iterations=100", "--param", "exploration=0.35,0.1,1.0,0.05,0.5", "--pairs", "300",
               "--seed", "4", "--out", str(out)])
    final = json.loads(out.read_text().splitlines()[-1])["theta"][0]
    assert final > 0.55  # from 0.35; the same run with the target at 0.2 goes the other way
    monkeypatch.setattr(spsa, "play_job", fake_play(0.2))
    other = tmp_path / "other.jsonl"
    spsa.main(["ismcts:iterations=100", "--param", "exploration=0.35,0.1,1.0,0.05,0.5", "--pairs", "300",
               "--seed", "4", "--out", str(other)])
    assert json.loads(other.read_text().splitlines()[-1])["theta"][0] < 0.3
    assert "spec: ismcts:iterations=100,exploration=" in capsys.readouterr().out


def test_real_games_and_a_resumed_run_give_the_same_theta(tmp_path, capsys):
    argv = ["ismcts:iterations=60", "--param", EXPLORATION, "--param", "opponent_hands=10,0,40,2,0.02",
            "--pairs", "4", "--batch", "2", "--seed", "9"]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    spsa.main(argv + ["--out", str(whole)])
    lines = whole.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["params"][0]["name"] == "exploration"
    assert [json.loads(line)["first"] for line in lines[1:]] == [0, 2]
    # a batch is played at its first pair's k, each pair with the flips of its own number
    params = [Param.parse(EXPLORATION), Param.parse("opponent_hands=10,0,40,2,0.02")]
    schedule = Schedule(pairs=4, big_a=0.4, alpha=0.602, gamma=0.101)
    for line in map(json.loads, lines[1:]):
        assert line["c"] == [schedule.c(p, line["first"] + 1) for p in params]
        assert line["flips"] == [spsa.flips_for(9, line["first"] + j, 2) for j in range(2)]
    # interrupted after the first batch, the second half of a line torn off
    cut.write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])
    spsa.main(argv + ["--out", str(cut), "--resume"])
    assert cut.read_text().splitlines() == lines
    # resumed when done: nothing more is played
    spsa.main(argv + ["--out", str(cut), "--resume"])
    assert cut.read_text().splitlines() == lines
    # not resumed: refused, the file as it was
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        spsa.main(argv + ["--out", str(cut)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "exists: add --resume" in err and err.count("\n") == 1
    assert cut.read_text().splitlines() == lines


@pytest.mark.parametrize("argv, says", [
    ([], "give at least one --param"),
    (["--param", "tree_rounds=2,0,4,0.5,0.02"], "'tree_rounds' takes 0 to 4, not any real number"),
    (["--param", "time=0.1,0.01,1,0.02,0.02"], "'time' is the budget"),
    (["--param", "exploration=0.35,0.1"], "is not NAME=START,MIN,MAX,C_END,R_END"),
    (["--param", "exploration=0.35,0.1,1.0,x,0.02"], "must be numbers"),
    (["--param", "exploration=0.35,1.0,0.1,0.05,0.02"], "must be below MAX"),
    (["--param", "exploration=1.5,0.1,1.0,0.05,0.02"], "outside MIN..MAX"),
    (["--param", "exploration=0.35,0.1,1.0,0.9,0.02"], "at most half the range"),
    (["--param", "exploration=0.35,0.1,1.0,0.05,0"], "R_END 0 is out of range"),
    (["--param", EXPLORATION, "--param", EXPLORATION], "a key is given twice"),
    (["--param", "explore=0.35,0.1,1.0,0.05,0.02"], "not a key it takes"),
    (["--param", "exploration=50,0,200,1,0.02"], "out of range"),  # the spec's own range: 0 to 100
    (["--param", EXPLORATION, "--alpha", "0"], "--alpha: 0.0 is out of range"),
    (["--param", EXPLORATION, "--big-a", "nan"], "--big-a: nan is out of range"),
    (["--param", EXPLORATION, "--pairs", "0"], "0 is out of range"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, says):
    with pytest.raises(SystemExit) as exit_:
        spsa.main(["ismcts:iterations=60", "--out", str(tmp_path / "run.jsonl"), *(["--pairs", "2"]
                   if "--pairs" not in argv else []), *argv])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err and err.count("\n") == 1, err


def test_a_setting_of_whole_numbers_is_refused_for_any_bot(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        spsa.main(["pimc:worlds=10", "--param", "worlds=20,10,100,5,0.02", "--pairs", "2",
                   "--out", str(tmp_path / "r.jsonl")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "not any real number" in err and err.count("\n") == 1
    assert not (tmp_path / "r.jsonl").exists()


def test_an_external_engine_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        spsa.main(["cmd:dnoir engine", "--param", EXPLORATION, "--pairs", "2", "--out", str(tmp_path / "r.jsonl")])
    assert exit_.value.code == 2 and "external engine" in capsys.readouterr().err


def test_resuming_another_run_or_a_damaged_file_is_refused(tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    argv = ["ismcts:iterations=60", "--param", EXPLORATION, "--pairs", "2", "--batch", "1", "--seed", "1",
            "--out", str(out)]
    spsa.main(argv)
    capsys.readouterr()
    for changed, says in ((["--seed", "2"], "holds another tuning run"), (["--pairs", "3"], "holds another tuning run")):
        with pytest.raises(SystemExit) as exit_:
            spsa.main(argv + changed + ["--resume"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and says in err and err.count("\n") == 1
    lines = out.read_text().splitlines()
    batch = json.loads(lines[1])
    damaged = [
        (lines[0] + "\n" + lines[2] + "\n", "line 2 is not the next batch of this run"),  # a batch lost
        (lines[0] + "\n" + json.dumps(dict(batch, theta=[0.9])) + "\n", "line 2 is not the next batch"),
        (lines[0] + "\n" + json.dumps(dict(batch, results=[-batch["results"][0] or 2.0])) + "\n",
         "line 2 is not the next batch"),
        ("\n" + lines[1] + "\n", "holds another tuning run (its first line is not an SPSA run's settings)"),
        ("[1, 2]\n", "holds another tuning run"),
    ]
    for text, says in damaged:
        out.write_text(text)
        with pytest.raises(SystemExit) as exit_:
            spsa.main(argv + ["--resume"])
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and says in err and err.count("\n") == 1, err
        assert out.read_text() == text  # nothing written, nothing cut


def test_resuming_from_what_is_not_a_file_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        spsa.main(["ismcts:iterations=60", "--param", EXPLORATION, "--pairs", "2", "--out", "/dev/null", "--resume"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "/dev/null is not a file" in err and err.count("\n") == 1


def test_resuming_with_other_workers_names_the_setting(tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    argv = ["ismcts:iterations=60", "--param", EXPLORATION, "--pairs", "2", "--seed", "1", "--out", str(out)]
    spsa.main(argv)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        spsa.main(argv + ["--workers", "2", "--resume"])
    assert exit_.value.code == 2 and "settings differ from these in batch" in capsys.readouterr().err


def _processes_naming(path) -> list[str]:
    """The pids of the processes whose command line names `path` (a run and its workers, which
    are forks of it)."""
    import os

    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if str(path).encode() in f.read():
                    found.append(entry)
        except OSError:  # not a process, or gone
            pass
    return found


def test_sigterm_stops_it_with_its_batches_kept_and_no_worker_left(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "run.jsonl"
    # run from elsewhere than the checkout, whose unbuilt solver/ would shadow the installed package
    run = subprocess.Popen([sys.executable, "-m", "solver.bench.spsa", "ismcts:iterations=300", "--param", EXPLORATION,
                            "--pairs", "1000", "--workers", "2", "--seed", "1", "--out", str(out)],
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        _stop_and_check(run, out, lambda: _processes_naming(out))
    finally:  # a failing check leaves no process behind
        if run.poll() is None:
            run.kill()
            run.communicate()


def test_sigterm_to_the_whole_group_stops_it_the_same_way(tmp_path):
    # pkill -f, a service manager or `kill -- -PGID` reach the workers too: the batch under way
    # is lost with them, and the run stops as it would on its own SIGTERM (no traceback)
    import os
    import signal
    import subprocess
    import sys

    out = tmp_path / "run.jsonl"
    run = subprocess.Popen([sys.executable, "-m", "solver.bench.spsa", "ismcts:iterations=300", "--param", EXPLORATION,
                            "--pairs", "1000", "--workers", "2", "--seed", "1", "--out", str(out)],
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True)
    try:
        _stop_and_check(run, out, lambda: _processes_naming(out), send=lambda: os.killpg(run.pid, signal.SIGTERM))
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()


def _stop_and_check(run, out, left, send=None):
    import signal
    import time

    deadline = time.monotonic() + 120

    def workers():
        return [pid for pid in left() if pid != str(run.pid)]
    seen = []  # a batch's workers, once some run (named by the command line that left() reads)
    while (not out.exists() or len(out.read_text().splitlines()) < 2 or not seen) \
            and run.poll() is None and time.monotonic() < deadline:
        seen = workers()  # (between two batches there are none for a moment)
        time.sleep(0.05)
    assert run.poll() is None, run.communicate()[1]
    assert seen
    if send is None:
        run.send_signal(signal.SIGTERM)
    else:
        send()
    err = run.communicate(timeout=60)[1]
    assert run.returncode == 130 and "interrupted; every finished batch is in" in err, err
    assert "Traceback" not in err
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) >= 2 and [line["first"] for line in lines[1:]] == list(range(0, 2 * (len(lines) - 1), 2))

    deadline = time.monotonic() + 30
    while left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left()
