"""`dnoir serve`: the JSON API in process (Starlette's test client), and the real server in a
subprocess for what only a real socket shows (a client going away, Ctrl-C).

No test here depends on a tight wall-clock margin: searches are given iterations where a
count matters, and a wait for the server to notice something polls with a generous bound.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import tracemalloc
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from solver.web.app import Settings, create_app  # noqa: E402

EXAMPLE = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"
ROUND4 = "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"


@pytest.fixture
def client():
    with TestClient(create_app(Settings(max_searches=2)), raise_server_exceptions=False) as c:
        yield c


def lines(response) -> list[dict]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["solver.web.board", "solver.web.jobs", "solver.web.review", "solver.web.match"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# -- positions and errors -----------------------------------------------------------------

def test_position_json_has_every_field_and_the_legal_moves(client):
    r = client.get("/api/position", params={"dnp": "5+2 678+3C/????? ./. 1 a -"})
    assert r.status_code == 200
    data = r.json()
    assert data["dnp"] == "5+2 678+3C/????? ./. 1 a -"
    assert data["legal"] == ["6", "7", "8", "+3", "C", "T"]
    assert data["hands"] == [["6", "7", "8", "+3", "C"], None] and data["hand_sizes"] == [5, 5]
    assert data["board"].startswith("District Noir")  # what `dnoir show` prints
    after = client.get("/api/position", params={"dnp": data["dnp"], "moves": "8 -1 T"}).json()
    assert after["dnp"] == ". 67+3C/???? 58+2-1/. 1 b a"  # as `dnoir show --moves "8 -1 T" --dnp`


@pytest.mark.parametrize("dnp, field, words", [
    ("5+2 678+3C/???? ./. 1 a -", "cards", "44 cards in all"),
    ("5+2 678+3C?/????? ./. 1 a -", "hand a", "mixes known cards"),
    ("5+2 678+3C/????? ./. 9 a -", "round", "is not a round"),
    ("5+2 678+3C/????? ./. 1 a a", "to-move", "so it is b's turn"),
    ("", "position", "empty"),
    pytest.param("x" * 5000, "position", "at most", id="5000-chars"),
])
def test_an_impossible_position_is_a_400_naming_the_field_as_the_cli_does(client, dnp, field, words):
    r = client.get("/api/position", params={"dnp": dnp})
    assert r.status_code == 400
    data = r.json()
    assert data["field"] == field and words in data["error"]
    assert "\n" not in data["error"] and "Traceback" not in r.text
    if dnp and len(dnp) < 100:  # the same line as the CLI's (after its "dnoir: error: ")
        cli = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "show", dnp], capture_output=True, text=True)
        assert cli.returncode == 2 and cli.stderr.strip() == f"dnoir: error: {data['error']}"


def test_a_bad_event_names_its_index(client):
    r = client.get("/api/position", params={"dnp": "5+2 678+3C/????? ./. 1 a -", "moves": "8 +4 +4"})
    assert r.status_code == 400
    assert r.json()["index"] == 3 and "event 3 (+4)" in r.json()["error"]


@pytest.mark.parametrize("path, body, status", [
    ("/api/advise", b"not json", 400),
    ("/api/advise", b"[1, 2]", 400),
    ("/api/advise", json.dumps({"dnp": EXAMPLE, "seconds": "lots"}).encode(), 400),
    ("/api/advise", json.dumps({"dnp": EXAMPLE, "seconds": 1e9}).encode(), 400),
    ("/api/advise", json.dumps({"dnp": EXAMPLE, "seconds": float("nan")}).encode(), 400),
    ("/api/advise", b"\xff\xfe", 400),
    pytest.param("/api/advise", b"{" * 3_000_000, 413, id="3-MB-body"),
    ("/api/game", json.dumps({"seat": "c"}).encode(), 400),
    ("/api/game", json.dumps({"engine": "ismcts:time=1000"}).encode(), 400),
    ("/api/game", json.dumps({"engine": "nobot"}).encode(), 400),
    ("/api/game/nope/move", json.dumps({"move": "8"}).encode(), 404),
    ("/api/review", json.dumps({"record": {"deal": "x", "moves": ""}}).encode(), 400),
    ("/api/review", json.dumps({"record": "{not json"}).encode(), 400),
    ("/api/review", json.dumps({"record": [1]}).encode(), 400),
    ("/api/track", json.dumps({"seat": "a", "first": "a", "line": "5+2", "hand": "67X"}).encode(), 400),
])
def test_bad_requests_get_a_4xx_with_one_line_never_a_traceback(client, path, body, status):
    r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    data = r.json()
    assert set(data) >= {"error"} and data["error"] and "\n" not in data["error"]
    assert "Traceback" not in r.text


def test_random_garbage_never_gets_a_500(client):
    import random

    rng = random.Random(22)  # fixed: the same requests every run
    alphabet = "5678+-23C?T./ abhn:\\\"{}[]0\x00\u00e9\U0001F600"
    junk = lambda: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))  # noqa: E731
    values = [None, True, -1, 1e308, [], {}, "", "x" * 300]
    for _ in range(500):
        pick = lambda: junk() if rng.random() < 0.6 else rng.choice(values)  # noqa: E731
        requests = [
            lambda: client.get("/api/position", params={"dnp": junk(), "moves": junk()}),
            lambda: client.get("/api/advise", params={"dnp": junk(), "iterations": junk(), "seed": junk()}),
            lambda: client.post("/api/advise", json={"dnp": pick(), "seconds": pick(), "id": pick(), "moves": pick()}),
            lambda: client.post("/api/game", json={"seat": pick(), "engine": pick(), "seed": pick()}),
            lambda: client.post("/api/review", json={"record": {"deal": pick(), "moves": pick(), "seat": pick()}}),
            lambda: client.post("/api/track", json={"seat": pick(), "first": pick(), "line": pick(), "hand": pick()}),
            lambda: client.post("/api/advise", content=junk().encode("utf-8", "surrogatepass"),
                                headers={"Content-Type": "application/json"}),
        ]
        r = rng.choice(requests)()
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            assert r.json()["error"] and "Traceback" not in r.text


def test_unknown_routes_and_methods_are_json_4xx(client):
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/nothing").json()["error"]
    assert client.request("DELETE", "/api/position", json={}).status_code == 405
    assert client.get("/static/../app.py").status_code == 404  # no file outside the page's own


def test_only_the_page_itself_may_post():
    app = create_app(Settings(local_only=True, allow_engines=True))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        ok = c.post("/api/game", json={"engine": "random"}, headers={"Origin": "http://127.0.0.1:8000"})
        assert ok.status_code == 200
        # a form or a "simple" fetch from another site: no JSON content type, so no preflight
        r = c.post("/api/game", content=b'{"engine": "cmd:touch /tmp/dnoir-web-csrf"}',
                   headers={"Content-Type": "text/plain"})
        assert r.status_code == 415 and "application/json" in r.json()["error"]
        r = c.post("/api/game", json={"engine": "cmd:touch /tmp/dnoir-web-csrf"}, headers={"Origin": "http://evil.example"})
        assert r.status_code == 403 and "another site" in r.json()["error"]
        assert not os.path.exists("/tmp/dnoir-web-csrf")
    # a DNS name rebound to 127.0.0.1 still says its own name in Host
    with TestClient(app, base_url="http://evil.example:8000") as c:
        r = c.get("/api/status")
        assert r.status_code == 403 and "loopback" in r.json()["error"]
    with TestClient(app, base_url="http://localhost:8000") as c:
        assert c.get("/api/status").status_code == 200


def test_no_request_names_a_file_or_a_command(client):
    r = client.post("/api/game", json={"engine": "cmd:touch /tmp/dnoir-web-pwned"})
    assert r.status_code == 400 and "--allow-engines" in r.json()["error"]
    assert not os.path.exists("/tmp/dnoir-web-pwned")
    # the match view reads only the files given at start-up, whatever the query says
    r = client.get("/api/match", params={"file": "/etc/passwd", "path": "/etc/passwd"})
    assert r.status_code == 200 and r.json() == {"files": []}


# -- advice ----------------------------------------------------------------------------------

def test_advise_get_mirrors_the_cli_json(client):
    r = client.get("/api/advise", params={"dnp": EXAMPLE, "iterations": 3000, "seed": 4})
    assert r.status_code == 200
    web = r.json()
    cli = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "advise", EXAMPLE, "--iterations", "3000", "--seed", "4",
                          "--threads", "1", "--json"], capture_output=True, text=True, check=True)
    expected = json.loads(cli.stdout)
    assert set(web) == set(expected)
    for key in ("seconds", "iterations_per_second", "max_nodes"):
        web.pop(key, None), expected.pop(key, None)
    assert web["moves"] == expected["moves"] and web["best"] == expected["best"]


def test_the_advice_stream_fills_in_and_goes_on_from_its_tree(client):
    r = client.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.3})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    got = lines(r)
    assert got[-1]["done"] and all(not g["done"] for g in got[:-1])
    first = got[-1]["advice"]
    assert first["method"] == "ismcts" and {m["move"] for m in first["moves"]} == {"8", "+3", "T"}
    counts = [g["advice"]["iterations"] for g in got]
    assert counts == sorted(counts)  # the figures grow slice by slice
    again = lines(client.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.2, "id": got[-1]["id"]}))
    assert again[-1]["id"] == got[-1]["id"]
    assert again[-1]["advice"]["iterations"] > first["iterations"]  # "go on" keeps the tree


def test_go_on_waits_for_the_stopped_search_to_wind_down():
    app = create_app(Settings())
    with TestClient(app) as c:
        first = lines(c.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.1}))[-1]
        analysis = app.state.analyses.get(first["id"])
        analysis.busy = True  # the stopped stream has not noticed its client left yet

        import threading
        threading.Timer(0.5, lambda: setattr(analysis, "busy", False)).start()
        again = c.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.1, "id": first["id"]})
        assert again.status_code == 200 and lines(again)[-1]["id"] == first["id"]


def test_round_4_advice_is_exact_at_once(client):
    got = lines(client.post("/api/advise", json={"dnp": ROUND4, "seconds": 5}))
    assert len(got) == 1 and got[0]["done"]
    assert got[0]["advice"]["exact"] and got[0]["advice"]["method"] in ("equilibrium", "view")


def test_advice_needs_the_movers_hand_and_a_game_not_over(client):
    r = client.post("/api/advise", json={"dnp": "5+2 ?????/678+3C ./. 1 a -"})
    assert r.status_code == 400 and r.json()["field"] == "hand a"


def test_searches_are_capped_with_429():
    app = create_app(Settings(max_searches=1))
    with TestClient(app) as c:
        app.state.capacity.acquire()  # another search holds the only slot
        try:
            for request in (lambda: c.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.1}),
                            lambda: c.get("/api/advise", params={"dnp": EXAMPLE, "iterations": 100})):
                r = request()
                assert r.status_code == 429 and "limit" in r.json()["error"]
        finally:
            app.state.capacity.release()
        assert c.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.1}).status_code == 200
        assert app.state.capacity.running == 0


# -- play and review ---------------------------------------------------------------------------

def test_a_whole_game_against_the_engine_with_undo_then_its_review(client):
    game = client.post("/api/game", json={"seat": "b", "engine": "random", "seed": 11}).json()
    assert game["view"]["hands"][0] is None  # the engine's cards are face down
    undone = False
    while not game["over"]:
        if game["engine_to_move"]:
            game = client.post(f"/api/game/{game['id']}/engine", json={}).json()
            continue
        legal = game["view"]["legal"]
        game = client.post(f"/api/game/{game['id']}/move", json={"move": legal[0]}).json()
        if not undone and len(game["history"]) > 4:
            before = len(game["history"])
            game = client.post(f"/api/game/{game['id']}/undo", json={}).json()
            assert len(game["history"]) < before
            undone = True
        assert "hands" in game["view"]
    assert undone
    assert len(game["final"]["removed"]) == 3 and game["view"]["removed"] is None  # shown once it is over
    result = game["final"]["result"]
    assert set(result["scores"]) == {"a", "b"} and "total" in result["scores"]["a"]
    assert client.post(f"/api/game/{game['id']}/move", json={"move": "T"}).status_code == 409
    got = lines(client.post("/api/review", json={"record": game["record"], "iterations": 200}))
    assert got[0]["replay"]["seats"] == ["b"]
    decisions = [g["decision"] for g in got if "decision" in g]
    assert decisions and all(d["player"] == "b" for d in decisions)
    assert got[-1]["done"] and got[-1]["summary"]["b"]["decisions"] == len(decisions)


def test_an_external_engine_plays_only_with_allow_engines(tmp_path):
    from pathlib import Path

    scripted = Path(__file__).parent / "engines" / "scripted.py"
    spec = f"cmd:{sys.executable} {scripted} {tmp_path}"
    with TestClient(create_app(Settings(allow_engines=True))) as c:
        game = c.post("/api/game", json={"seat": "b", "engine": spec, "seed": 2}).json()
        if game["my_turn"]:
            game = c.post(f"/api/game/{game['id']}/move", json={"move": game["view"]["legal"][0]}).json()
        assert game["engine_to_move"]
        game = c.post(f"/api/game/{game['id']}/engine", json={}).json()
        assert game["my_turn"] and any(h["player"] == "a" for h in game["history"])


@pytest.mark.parametrize("command", ["/nonexistent/dnoir-engine", "true"])
def test_an_external_engine_that_does_not_start_is_a_400_naming_it(command):
    # a command that is not there, and one that exits instead of answering the handshake:
    # the player's choice of engine at fault (a 400 with the engine's reason), not a 500
    with TestClient(create_app(Settings(allow_engines=True)), raise_server_exceptions=False) as c:
        r = c.post("/api/game", json={"engine": f"cmd:{command}", "seed": 1})
        assert r.status_code == 400, r.text
        assert r.json()["error"].startswith(f"engine: cmd:{command} does not start (crash: ")
        assert len(c.app.state.games) == 0


def test_each_game_has_an_external_engine_of_its_own(tmp_path):
    # one process shared by two games would interleave their questions (two engine threads
    # at once) and each new game's `newgame` would reset the other's
    from pathlib import Path

    scripted = Path(__file__).parent / "engines" / "scripted.py"
    spec = f"cmd:{sys.executable} {scripted} {tmp_path}"
    with TestClient(create_app(Settings(allow_engines=True))) as c:
        games = [c.post("/api/game", json={"seat": "b", "engine": spec, "seed": seed}).json() for seed in (1, 2)]
        bots = [c.app.state.games.get(g["id"]).bot for g in games]
        assert bots[0] is not bots[1] and bots[0].proc.pid != bots[1].proc.pid
        assert len(list(tmp_path.glob("*.pid"))) == 2  # two launches
        for g in games:  # both play on
            if g["my_turn"]:
                g = c.post(f"/api/game/{g['id']}/move", json={"move": g["view"]["legal"][0]}).json()
            assert c.post(f"/api/game/{g['id']}/engine", json={}).json()["my_turn"]


def engine_moves(c, game):
    """The game after the engine's moves, making the player's first legal move first if it is
    the player's turn."""
    if game["my_turn"]:
        game = c.post(f"/api/game/{game['id']}/move", json={"move": game["view"]["legal"][0]}).json()
    return c.post(f"/api/game/{game['id']}/engine", json={}).json()


def test_only_the_engines_of_the_games_that_moved_last_keep_their_trees():
    # tree reuse keeps an ISMCTS engine's tree from one move to the next (about 45 MB after a
    # 1 s move): 32 games' trees would hold gigabytes, so only the `warm` last ones keep theirs,
    # each in a pool of ENGINE_NODES
    from solver.web.app import ENGINE_NODES

    app = create_app(Settings())
    app.state.games.warm = 2
    with TestClient(app) as c:
        games = [engine_moves(c, c.post("/api/game", json={"engine": "ismcts:iterations=300", "seed": seed}).json())
                 for seed in range(5)]
        bots = [app.state.games.get(g["id"]).bot for g in games]
        assert all(b.config.max_nodes == ENGINE_NODES for b in bots)
        assert [b.kept._search is not None for b in bots] == [False, False, False, True, True]
        assert c.get("/api/status").json()["warm_engines"] == 2
        engine_moves(c, c.get(f"/api/game/{games[0]['id']}").json())  # a cold game plays on
        assert [b.kept._search is not None for b in bots] == [True, False, False, False, True]


def test_the_engines_of_cold_and_dropped_games_stop(tmp_path):
    # an external engine's process (which holds its own trees) is as costly: only the warm
    # games keep theirs running; a cold game's engine starts again at its next move
    from pathlib import Path

    scripted = Path(__file__).parent / "engines" / "scripted.py"
    spec = f"cmd:{sys.executable} {scripted} {tmp_path}"
    app = create_app(Settings(allow_engines=True))
    app.state.games.warm, app.state.games.size = 1, 2
    with TestClient(app) as c:
        first = c.post("/api/game", json={"seat": "b", "engine": spec, "seed": 1}).json()
        bot = app.state.games.get(first["id"]).bot
        assert bot.running
        second = c.post("/api/game", json={"seat": "b", "engine": spec, "seed": 2}).json()
        assert not bot.running and app.state.games.get(second["id"]).bot.running
        assert engine_moves(c, first)["my_turn"] and bot.running  # started again
        assert len(list(tmp_path.glob("*.pid"))) == 3
        c.post("/api/game", json={"seat": "b", "engine": "random", "seed": 3})
        c.post("/api/game", json={"seat": "b", "engine": "random", "seed": 4})  # both dropped
        assert c.get(f"/api/game/{first['id']}").status_code == 404 and not bot.running


def test_a_move_while_the_engine_thinks_is_refused_not_waited_for(client):
    game = client.post("/api/game", json={"seat": "a", "engine": "random", "seed": 1}).json()
    session = client.app.state.games.get(game["id"])
    with session.lock:  # the engine's thread holds the game
        r = client.post(f"/api/game/{game['id']}/move", json={"move": "T"})
    assert r.status_code == 409 and "thinking" in r.json()["error"]


def test_an_illegal_move_is_refused_with_the_legal_ones(client):
    game = client.post("/api/game", json={"seat": "a", "engine": "random", "seed": 3}).json()
    if game["engine_to_move"]:
        game = client.post(f"/api/game/{game['id']}/engine", json={}).json()
    hand = game["view"]["hands"][0]
    absent = next(k for k in ["5", "6", "7", "8", "+2", "+3", "+4", "-1", "-2", "-3", "C"] if k not in hand)
    r = client.post(f"/api/game/{game['id']}/move", json={"move": absent})
    assert r.status_code == 400 and "legal" in r.json()["error"] and r.json()["field"] == "move"


def test_a_match_record_reviews_every_decision_of_both_players(client):
    record = {"deal": "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a - . 58C",
              "moves": "T T 7 +4"}
    got = lines(client.post("/api/review", json={"record": json.dumps(record)}))
    marks = [g["decision"]["mark"] for g in got if "decision" in g]
    assert marks == ["", "??", "", ""]  # as `dnoir review` grades it (tests/test_review.py)
    assert [m["move"] for m in got[0]["replay"]["moves"]] == ["T", "T", "7", "+4"]


def test_track_start_and_events(client):
    r = client.post("/api/track", json={"seat": "b", "first": "b", "line": "5C", "hand": "66778"})
    assert r.status_code == 200
    start = r.json()["start"]
    pos = client.get("/api/position", params={"dnp": start, "moves": "7 8"}).json()
    assert pos["to_move"] == "b" and pos["line"] == ["5", "C", "7", "8"]
    assert pos["hands"][0] is None and pos["hand_sizes"][0] == 4


def test_a_tracked_game_followed_to_its_end_then_reviewed(client):
    # the page's Track flow over a whole game: the start, each move as /api/position events
    # (the opponent's card from what it `playable` offers), the new hand at each round start,
    # the end with both scores, then the record the page builds reviewed from its seat
    import random

    from solver.rules.cards import KINDS, format_counts
    from solver.rules.position import Position

    rng = random.Random(5)
    full = Position.random_deal(5)
    start = client.post("/api/track", json={"seat": "b", "first": "ab"[full.to_move], "hand": format_counts(full.hands[1]),
                                            "line": "".join(KINDS[k] for k in full.line)}).json()["start"]
    assert start == str(full.view("b"))
    events = []
    while not full.is_over:
        pos = client.get("/api/position", params={"dnp": start, "moves": " ".join(events)}).json()
        move = rng.choice(full.legal_moves())
        offered = pos["legal"] if pos["to_move"] == "b" else pos["playable"]
        assert str(move) in offered
        events.append(str(move))
        after = full.play(move)
        if after.round != full.round and not after.is_over:
            events.append("hand:" + format_counts(after.hands[1]))
        full = after
    end = client.get("/api/position", params={"dnp": start, "moves": " ".join(events)}).json()
    assert end["over"] and end["result"] == client.get("/api/position", params={"dnp": str(full)}).json()["result"]
    record = {"kind": "track", "seat": "b", "start": start, "events": " ".join(events)}
    got = lines(client.post("/api/review", json={"record": record, "iterations": 100}))
    decisions = [g["decision"] for g in got if "decision" in g]
    assert decisions and {d["player"] for d in decisions} == {"b"}
    assert got[-1]["done"] and set(got[-1]["summary"]) == {"b"}


def test_the_match_view_reads_the_files_given_at_start_up(tmp_path):
    out = tmp_path / "games.jsonl"
    subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", "random", "greedy", "--pairs", "2", "--workers", "1",
                    "--out", str(out)], check=True, capture_output=True)
    with out.open("a") as f:
        f.write('{"deal": "torn')  # a line still being written
    with TestClient(create_app(Settings(match_files=(str(out),), sprt="0,10"))) as c:
        data = c.get("/api/match").json()["files"][0]
    assert data["name"] == "games.jsonl" and data["games"] == 4 and data["bad_lines"] == 1
    pairing = data["pairings"][0]
    cli = json.loads(subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", "random", "greedy", "--pairs", "2",
                                     "--workers", "1", "--json"], check=True, capture_output=True, text=True).stdout)
    assert pairing["pentanomial"] == cli["pentanomial"] and pairing["score"] == cli["score"]
    assert pairing["sprt"]["lower"] < 0 < pairing["sprt"]["upper"]


@pytest.mark.slow
def test_memory_stays_bounded_over_1000_requests():
    app = create_app(Settings(max_searches=2))
    with TestClient(app) as c:
        tracemalloc.start()
        try:
            for i in range(1000):
                if i == 200:
                    base = tracemalloc.get_traced_memory()[0]
                kind = i % 10
                if kind < 6:
                    assert c.get("/api/position", params={"dnp": EXAMPLE, "moves": "8" if i % 2 else ""}).status_code == 200
                elif kind < 8:
                    assert c.post("/api/game", json={"engine": "random", "seed": i}).status_code == 200
                elif kind < 9:  # an ISMCTS engine's move: its tree is kept for its next one
                    game = c.post("/api/game", json={"engine": "ismcts:iterations=200", "seed": i}).json()
                    assert engine_moves(c, game)["my_turn"]
                else:
                    assert c.post("/api/advise", json={"dnp": EXAMPLE, "seconds": 0.05, "seed": i}).status_code == 200
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
    assert len(app.state.games) <= 32 and len(app.state.analyses) <= 8
    assert app.state.capacity.running == 0
    # the trees, out of tracemalloc's sight (the compiled core's memory), of 4 engines only
    from solver.web.app import MAX_WARM_ENGINES
    trees = sum(s.bot.kept._search is not None for s in app.state.games._items.values() if hasattr(s.bot, "kept"))
    assert 0 < trees <= MAX_WARM_ENGINES
    assert grown < 30e6, f"{grown / 1e6:.1f} MB more after 800 requests"


# -- the real server ---------------------------------------------------------------------------

def start_server(*args, env=None):
    """`dnoir serve --port 0 ARGS` in a subprocess; (process, url) once it says where it is."""
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise AssertionError(f"no address from dnoir serve: {line!r} {proc.stderr.read()!r}")
    url = line.split("http://", 1)[1].split()[0]
    return proc, "http://" + url


def status(url) -> dict:
    import httpx
    return httpx.get(url + "api/status", timeout=30).json()


def wait_for(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def open_stream(host: str, port: int) -> socket.socket:
    """A raw connection with a two-minute advice stream running on it (its first line read)."""
    sock = socket.create_connection((host, port), timeout=30)
    body = json.dumps({"dnp": EXAMPLE, "seconds": 120}).encode()
    sock.sendall(b"POST /api/advise HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (host.encode(), port, len(body), body))
    got = b""
    while b"iterations" not in got:
        chunk = sock.recv(65536)
        assert chunk, "the stream ended before its first line"
        got += chunk
    return sock


def test_serve_binds_to_localhost_says_where_and_stops_on_ctrl_c():
    started = time.monotonic()
    proc, url = start_server()
    took = time.monotonic() - started
    try:
        assert url.startswith("http://127.0.0.1:")
        assert took < 30  # in practice well under 2 s (README); a loaded CI machine is slower
        host, port = url[len("http://"):].rstrip("/").split(":")
        # a long search is running when Ctrl-C comes
        sock = open_stream(host, int(port))
        assert status(url)["searches"] == 1
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        sock.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130  # as every dnoir command stopped by Ctrl-C
    assert "stopped" in proc.stdout.read()
    assert "Traceback" not in proc.stderr.read()


def test_ctrl_c_stops_an_engine_move_and_a_review_too():
    import threading

    import httpx

    proc, url = start_server("--max-searches", "4")
    try:
        game = httpx.post(url + "api/game", json={"seat": "b", "engine": "ismcts:time=10", "seed": 1}).json()
        if game["my_turn"]:
            game = httpx.post(url + f"api/game/{game['id']}/move", json={"move": game["view"]["legal"][0]}).json()
        answers = []
        record = {"deal": "75 688+2-1/55888 ./. 1 a - +27-1778+2+37+286-276+4C65-36+3C-17-3-256C 8-2-2",
                  "moves": "-1 T 8 5 +2 5 6 8 8 8 T 8"}
        calls = [lambda: httpx.post(url + f"api/game/{game['id']}/engine", json={}, timeout=120),
                 lambda: httpx.post(url + "api/review", json={"record": record, "seconds": 5}, timeout=120)]
        threads = [threading.Thread(target=lambda c=c: answers.append(c())) for c in calls]
        for t in threads:
            t.start()
        assert wait_for(lambda: status(url)["searches"] == 2)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)  # a 10 s engine move and a 5 s a decision review do not hold it up
        for t in threads:
            t.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in proc.stderr.read()


def test_a_search_is_cancelled_when_its_client_goes_away():
    proc, url = start_server("--max-searches", "1")
    try:
        host, port = url[len("http://"):].rstrip("/").split(":")
        sock = open_stream(host, int(port))
        assert status(url)["searches"] == 1
        sock.close()  # the browser tab is closed
        assert wait_for(lambda: status(url)["searches"] == 0), "the search went on after its client left"
        import httpx
        assert httpx.post(url + "api/advise", json={"dnp": EXAMPLE, "seconds": 0.1}, timeout=30).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_a_one_shot_advice_is_cancelled_when_its_client_goes_away():
    # GET /api/advise answers once, at the end: 2,000,000 iterations is seconds of search
    # (over 3 s even at 600,000 a second), which stop within a slice once the client has gone
    from urllib.parse import urlencode

    proc, url = start_server("--max-searches", "1")
    try:
        host, port = url[len("http://"):].rstrip("/").split(":")
        sock = socket.create_connection((host, int(port)), timeout=30)
        query = urlencode({"dnp": EXAMPLE, "iterations": 2_000_000})
        sock.sendall(f"GET /api/advise?{query} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        assert wait_for(lambda: status(url)["searches"] == 1)
        sock.close()
        left = time.monotonic()
        assert wait_for(lambda: status(url)["searches"] == 0, seconds=60)
        assert time.monotonic() - left < 3.0, "the search went on after its client left"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def leave_during_an_engine_move(url: str, engine: str) -> dict:
    """Start a game against `engine` (the player's first move made if it is theirs), ask for
    the engine's move on a raw connection, and close it (the tab closed) once the move is
    being searched; returns the game as it was before the engine's move."""
    import httpx

    game = httpx.post(url + "api/game", json={"seat": "b", "engine": engine, "seed": 1}, timeout=30).json()
    if game["my_turn"]:
        game = httpx.post(url + f"api/game/{game['id']}/move", json={"move": game["view"]["legal"][0]}).json()
    host, port = url[len("http://"):].rstrip("/").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(f"POST /api/game/{game['id']}/engine HTTP/1.1\r\nHost: {host}:{port}\r\n"
                 "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}".encode())
    assert wait_for(lambda: status(url)["searches"] == 1)
    sock.close()
    return game


def test_an_engine_move_is_abandoned_when_its_player_goes_away():
    # a 10 s engine move for a closed tab: the search stops within a slice and its move is not
    # played; the game waits for the engine as it was
    import httpx

    proc, url = start_server("--max-searches", "1")
    try:
        game = leave_during_an_engine_move(url, "ismcts:time=10")
        left = time.monotonic()
        assert wait_for(lambda: status(url)["searches"] == 0, seconds=60)
        assert time.monotonic() - left < 3.0, "the engine went on thinking after its player left"
        now = httpx.get(url + f"api/game/{game['id']}").json()
        assert now["history"] == game["history"] and now["engine_to_move"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_an_external_engine_is_told_to_stop_when_its_player_goes_away(tmp_path):
    # an external engine that answers `go` only when told `stop`: a closed tab sends it the
    # protocol's stop (without it the engine would be killed at its time limit, and never
    # hear `stop`), and its move is not played
    from pathlib import Path

    import httpx

    scripted = Path(__file__).parent / "engines" / "scripted.py"
    spec = f"cmd:{sys.executable} {scripted} {tmp_path} --until-stop"
    proc, url = start_server("--max-searches", "1", "--allow-engines")
    try:
        game = leave_during_an_engine_move(url, spec)
        assert wait_for(lambda: status(url)["searches"] == 0, seconds=60)
        assert (tmp_path / "stop.got").exists(), "the engine was not told to stop"
        now = httpx.get(url + f"api/game/{game['id']}").json()
        assert now["history"] == game["history"] and now["engine_to_move"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_a_review_stops_when_its_client_goes_away():
    # 12 decisions searched 2 s each (24 s) for a closed tab: the review ends with the
    # decision in progress
    proc, url = start_server("--max-searches", "1")
    try:
        host, port = url[len("http://"):].rstrip("/").split(":")
        record = {"deal": "75 688+2-1/55888 ./. 1 a - +27-1778+2+37+286-276+4C65-36+3C-17-3-256C 8-2-2",
                  "moves": "-1 T 8 5 +2 5 6 8 8 8 T 8"}
        body = json.dumps({"record": record, "seconds": 2}).encode()
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.sendall(b"POST /api/review HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (host.encode(), int(port), len(body), body))
        got = b""
        while b"decision" not in got:  # the first decision is graded: the second is being searched
            chunk = sock.recv(65536)
            assert chunk, "the review ended before its first decision"
            got += chunk
        sock.close()
        left = time.monotonic()
        assert wait_for(lambda: status(url)["searches"] == 0, seconds=60)
        assert time.monotonic() - left < 6.0, "the review went on after its client left"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_serve_refuses_a_port_in_use_in_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "serve", "--port", str(port)], capture_output=True,
                             text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.startswith("dnoir: error: cannot listen on 127.0.0.1:")
    assert len(run.stderr.strip().splitlines()) == 1
