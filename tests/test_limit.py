"""One budget type: `Limit` is what advise, the bots, the arena, the engine and external engines take.

Its ranges are those of solver.base.bounds; milliseconds (the engine protocol's `go movetime`, the
match commands' `--movetime`, a record's `movetime_ms`) convert exactly both ways; the same
budget written as a bot spec, a CLI option or a protocol command is the same Limit.
"""

import dataclasses
import random
import sys
import textwrap

import pytest
from click.testing import CliRunner

from solver.agents.arena import make_player, record_settings
from solver.agents.bots import IsmctsBot, SpecError, make_bot, spec_budget
from solver.agents.external import ExternalBot
from solver.agents.match import make_jobs, play_job, record_key
from solver.base.bounds import MAX_ITERATIONS, MAX_MOVETIME_MS
from solver.interfaces.engine import DEFAULT_LIMIT as ENGINE_DEFAULT
from solver.interfaces.engine import ProtocolError, parse_go
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import advise

ROUND2 = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"


# -- the type ------------------------------------------------------------------------------

@pytest.mark.parametrize("fields, named", [
    (dict(seconds=float("nan")), "seconds"), (dict(seconds=float("inf")), "seconds"),
    (dict(seconds=float("-inf")), "seconds"), (dict(seconds=1e20), "seconds"), (dict(seconds=0.0), "seconds"),
    (dict(seconds=-1.0), "seconds"), (dict(seconds=0.0009), "seconds"), (dict(seconds=86_400.5), "seconds"),
    (dict(seconds=True), "seconds"), (dict(seconds="soon"), "seconds"),
    (dict(iterations=1e20), "iterations"), (dict(iterations=10**20), "iterations"), (dict(iterations=0), "iterations"),
    (dict(iterations=-5), "iterations"), (dict(iterations=MAX_ITERATIONS + 1), "iterations"),
    (dict(iterations=2.5), "iterations"), (dict(iterations=float("nan")), "iterations"), (dict(iterations=True), "iterations"),
    (dict(seconds=1.0, iterations=float("inf")), "iterations"),
])
def test_out_of_range_budgets_are_refused_naming_the_field(fields, named):
    with pytest.raises(ValueError, match=f"^{named}: "):
        Limit(**fields)


@pytest.mark.parametrize("fields", [dict(), dict(seconds=None, iterations=None), dict(infinite=True, seconds=1.0),
                                    dict(infinite=True, iterations=5), dict(infinite="yes", iterations=5)])
def test_a_limit_is_finite_with_a_budget_or_explicitly_infinite(fields):
    with pytest.raises(ValueError):
        Limit(**fields)


def test_the_ends_of_the_ranges_are_accepted():
    assert Limit(seconds=0.001).seconds == 0.001 and Limit(seconds=86_400).seconds == 86_400.0
    assert Limit(iterations=1).iterations == 1 and Limit(iterations=MAX_ITERATIONS).iterations == MAX_ITERATIONS
    assert isinstance(Limit(seconds=2).seconds, float)  # one type for a time, whichever number was given
    assert Limit(infinite=True).infinite and Limit(infinite=True).ms is None


def test_a_limit_is_a_value():
    assert Limit(seconds=0.5, iterations=10) == Limit(iterations=10, seconds=0.5)
    assert len({Limit(seconds=0.5), Limit(seconds=0.5), Limit(iterations=5)}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limit(seconds=1.0).seconds = 2.0
    with pytest.raises(ValueError, match="seconds"):  # a changed copy is checked as well
        dataclasses.replace(Limit(seconds=1.0), seconds=float("nan"))


def test_reports_say_the_budget():
    assert str(Limit(seconds=0.5)) == "0.5 s"
    assert str(Limit(iterations=2000)) == "2000 iterations"
    assert str(Limit(seconds=2, iterations=10)) == "10 iterations or 2 s"
    assert str(Limit(infinite=True)) == "until stopped"


def test_whole_milliseconds_make_a_round_trip_exactly():
    rng = random.Random(11)
    samples = list(range(1, 100_001)) + [rng.randrange(1, MAX_MOVETIME_MS + 1) for _ in range(100_000)]
    samples += [MAX_MOVETIME_MS - 1, MAX_MOVETIME_MS]
    assert [ms for ms in samples if Limit.from_ms(ms).ms != ms] == []
    assert Limit.from_ms(50) == Limit(seconds=0.05) and Limit.from_ms(1000) == Limit(seconds=1.0)
    assert Limit.from_ms(None, iterations=7) == Limit(iterations=7) and Limit(iterations=7).ms is None


@pytest.mark.parametrize("ms", [0, -1, MAX_MOVETIME_MS + 1, 1.5, "1e3", float("nan"), True])
def test_milliseconds_out_of_range_are_refused_naming_the_field(ms):
    with pytest.raises(ValueError, match="^go movetime: "):
        Limit.from_ms(ms, name="go movetime")


def test_given_is_none_without_a_budget():
    assert Limit.given() is None and Limit.given(None, None) is None
    assert Limit.given(0.25, None) == Limit(seconds=0.25) and Limit.given(None, 30) == Limit(iterations=30)


# -- advise ----------------------------------------------------------------------------------

def test_advise_with_an_iteration_limit_is_deterministic_with_a_seed():
    pos = Position.parse(ROUND2)
    runs = [advise(pos, Limit(iterations=1500), threads=1, seed=7) for _ in range(2)]
    assert runs[0].iterations == runs[1].iterations == 1500
    assert [(m.move, m.visits, m.expected) for m in runs[0].moves] == [(m.move, m.visits, m.expected)
                                                                      for m in runs[1].moves]


def test_advise_takes_a_limit_and_nothing_else():
    pos = Position.parse(ROUND2)
    with pytest.raises(TypeError):
        advise(pos, 1500)
    with pytest.raises(TypeError):
        advise(pos, iterations=1500)  # the old keywords are gone: one way to give a budget


# -- the same budget, however it is written --------------------------------------------------

def _cli_advise_limit(monkeypatch, *options: str) -> Limit:
    """The Limit that `dnoir advise OPTIONS` hands to solver.solvers.search.advise."""
    from solver.cli.main import cli

    seen = []

    def capture(pos, limit=None, **kwargs):
        seen.append(limit)
        raise KeyboardInterrupt  # nothing to search: stop the command here

    monkeypatch.setattr("solver.cli.main.advise_position", capture)
    CliRunner().invoke(cli, ["advise", ROUND2, *options])
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("spec, options", [
    ("ismcts:time=0.25", ("--time", "0.25")),
    ("ismcts:iterations=300", ("--iterations", "300")),
    ("ismcts:iterations=300,time=0.1", ("--iterations", "300", "--time", "0.1")),
    ("ismcts:time=86400", ("--time", "86400")),
])
def test_a_bot_specs_budget_is_the_limit_the_cli_gives(monkeypatch, spec, options):
    assert make_bot(spec).limit == _cli_advise_limit(monkeypatch, *options)


def test_a_bot_spec_without_a_budget_takes_the_one_it_is_given():
    assert make_bot("ismcts").limit == IsmctsBot.DEFAULT_LIMIT == Limit(iterations=2000)
    assert make_bot("ismcts:threads=1", limit=Limit(seconds=0.1)).limit == make_bot("ismcts:time=0.1").limit
    assert make_bot("ismcts:iterations=50", limit=Limit(seconds=0.1)).limit == Limit(iterations=50)  # its own wins
    assert not hasattr(make_bot("greedy", limit=Limit(seconds=0.1)), "limit")
    with pytest.raises(SpecError, match="finite"):
        IsmctsBot(limit=Limit(infinite=True))


def test_a_bots_budget_reads_back_as_the_same_spec():
    for limit in (Limit(seconds=0.1), Limit(iterations=2000), Limit(seconds=0.123456789, iterations=3)):
        assert make_bot(f"ismcts:{spec_budget(limit)}").limit == limit


def test_match_budgets_reach_the_bots_as_the_spec_would_give_them():
    # --movetime 250 is the spec's time=0.25; with --iterations too, ISMCTS plays the iterations
    assert make_player("ismcts", limit=Limit.from_ms(250)).limit == make_bot("ismcts:time=0.25").limit
    assert make_player("ismcts", limit=Limit.from_ms(250, iterations=40)).limit == Limit(iterations=40)


def test_a_match_budget_plays_the_same_games_as_the_spec_budget():
    given = play_job(make_jobs([("ismcts", "random")], pairs=1, seed=3, limit=Limit(iterations=40))[0])
    named = play_job(make_jobs([("ismcts:iterations=40", "random")], pairs=1, seed=3)[0])
    assert given["moves"] == named["moves"] and given["deal"] == named["deal"]
    assert given["settings"] == {"movetime_ms": None, "iterations": 40}


def test_records_keep_their_budget_fields_so_old_files_resume():
    limit = Limit.from_ms(100, iterations=50)
    assert record_settings(limit) == {"movetime_ms": 100, "iterations": 50}
    assert record_settings(None) == {"movetime_ms": None, "iterations": None}
    plan = make_jobs([("greedy", "random")], pairs=2, seed=5, limit=limit)
    # the key of a record written before Limit existed: budgets as --movetime/--iterations gave them
    old = dict(pairing=["greedy", "random"], settings={"movetime_ms": 100, "iterations": 50},
               match_seed=5, pair=1, game=0)
    assert record_key(old) == plan[2].key and record_key(old) in plan
    other = make_jobs([("greedy", "random")], pairs=2, seed=5, limit=Limit.from_ms(101, iterations=50))
    assert record_key(old) not in other


# -- the engine protocol and external engines ----------------------------------------------

@pytest.mark.parametrize("args, limit", [
    (["movetime", "50"], Limit(seconds=0.05)),
    (["movetime", "50", "iterations", "200"], Limit(seconds=0.05, iterations=200)),
    (["iterations", "200", "seed", "4"], Limit(iterations=200)),
    (["infinite"], Limit(infinite=True)),
    ([], ENGINE_DEFAULT),
    (["seed", "9"], Limit(seconds=1.0)),
])
def test_the_engines_go_gives_a_limit(args, limit):
    assert parse_go(args).limit == limit


@pytest.mark.parametrize("args, message", [
    (["movetime", "0"], "go movetime: 0 is out of range"),
    (["movetime", "1e20"], "go movetime: '1e20' is not a whole number"),
    (["movetime", "nan"], "go movetime: 'nan' is not a whole number"),
    (["iterations", "99999999999999999999"], "go iterations: 99999999999999999999 is out of range"),
])
def test_the_engines_go_refuses_bad_limits_naming_them(args, message):
    with pytest.raises(ProtocolError, match=message):
        parse_go(args)


LOGGING_ENGINE = textwrap.dedent("""
    import sys
    from solver.rules.position import Position

    log, position = open(sys.argv[1], "a"), None
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["dn"]:
            print("id name logger", "dnok", sep="\\n", flush=True)
        elif words[:1] == ["isready"]:
            print("readyok", flush=True)
        elif words[:1] == ["position"]:
            position = Position.parse(line.split(None, 1)[1])
        elif words[:1] == ["go"]:
            log.write(line)
            log.flush()
            print(f"bestmove {position.legal_moves()[0]}", flush=True)
        elif words[:1] == ["quit"]:
            break
""")


@pytest.mark.parametrize("limit, sent", [
    (Limit(seconds=0.05), "go movetime 50 seed"),
    (Limit(iterations=300), "go iterations 300 seed"),
    (Limit.from_ms(1234, iterations=7), "go movetime 1234 iterations 7 seed"),
    (None, "go movetime 1000 seed"),
])
def test_an_external_engine_is_sent_its_limit_in_the_protocols_units(tmp_path, limit, sent):
    script, log = tmp_path / "logger.py", tmp_path / "go.log"
    script.write_text(LOGGING_ENGINE)
    bot = ExternalBot(f"{sys.executable} {script} {log}", limit=limit)
    try:
        pos = Position.random_deal(2)
        assert bot.choose(pos.view("ab"[pos.to_move])) in pos.legal_moves()
    finally:
        bot.close()
    assert log.read_text().startswith(sent + " ")


def test_an_external_engine_refuses_an_infinite_limit():
    with pytest.raises(ValueError, match="finite"):
        ExternalBot("true", limit=Limit(infinite=True))
