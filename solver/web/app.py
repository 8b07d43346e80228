"""The web server's routes (Starlette): the page, and a JSON API that mirrors the CLI's JSON.

Every answer is JSON. A bad request gets a 4xx whose body is `{"error": <the one line the
CLI would print>, "field": ...}`; never a traceback. No request names a file or a command:
the server reads only its own page and the match files given at start-up (`--match`), and
starts an external `cmd:` engine only when started with `--allow-engines`.

Searches (advice, the engine's moves, hints, reviews) take a slot of the server's
`Capacity`; with every slot taken a request gets 429. A streamed search (advice, review)
stops within one slice when its client goes away or the server shuts down.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import threading
from collections import OrderedDict
from contextlib import contextmanager
from importlib import resources

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from solver.agents.bots import IsmctsBot, check_spec
from solver.agents.external import EngineFault, ExternalBot
from solver.base.bounds import MAX_SEED
from solver.errors import DnoirError, PositionError, RecordError, SpecError
from solver.agents.arena import make_player
from solver.interfaces.play import Game, start_view
from solver.rules.cards import CardError, tokenize
from solver.rules.notation import PLAYERS
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import advise
from solver.web.board import mistake, parse_position, position_json
from solver.web.jobs import ANALYSIS_NODES, DEFAULT_ANALYSES, SLICE_SECONDS, Analyses, Busy, Capacity
from solver.web.match import match_summaries
from solver.web.review import REVIEW_SECONDS, replay_of, run_review

MAX_BODY = 2_000_000  # bytes of a request body: a game record is a few kB
MAX_STREAM_SECONDS = 120.0  # the longest one advice stream searches before it says done
MAX_REVIEW_SECONDS = 5.0  # a decision's budget before round 4
MAX_REVIEW_ITERATIONS = 1_000_000
MAX_GAMES = 32  # games against the engine kept at once (least recently used dropped first)
# What an engine holds between its moves (an ISMCTS bot's tree, kept for tree reuse; an
# external engine's process) is kept for the games whose engine moved last only: 32 games'
# trees or processes would hold gigabytes (a 1 s move leaves about 45 MB of tree).
MAX_WARM_ENGINES = 4
# An ISMCTS engine's node pool: 1,000,000 nodes, 56 MB (the CLI's default pool is 5,000,000
# nodes, 280 MB, which a 10 s move could fill); a full pool stops growing, the search goes on.
ENGINE_NODES = 1_000_000
MAX_ENGINE_SECONDS = 10.0
MAX_ENGINE_ITERATIONS = 2_000_000
MAX_ENGINE_WORLDS = 2000
DEFAULT_ENGINE = "ismcts:time=1"
SEATS = ("a", "b")  # PLAYERS is the string "ab", in which "" and "ab" would be found too
STATIC = resources.files("solver.web") / "static"


class Settings:
    """What the server was started with; nothing a request can change."""

    def __init__(self, allow_engines: bool = False, match_files: tuple[str, ...] = (), sprt: str | None = None,
                 max_searches: int = 2, analyses: int = DEFAULT_ANALYSES, analysis_nodes: int = ANALYSIS_NODES,
                 local_only: bool = False):
        self.allow_engines = allow_engines
        # served on a loopback address: only requests naming a loopback host are answered, so
        # that a web page elsewhere cannot reach the server through a rebound DNS name
        self.local_only = local_only
        self.match_files = tuple(match_files)
        self.sprt = sprt
        self.max_searches = max_searches
        self.analyses = analyses
        self.analysis_nodes = analysis_nodes


def error(status: int, message: str, **extra) -> JSONResponse:
    """A 4xx/5xx answer: the one-line reason (and the field at fault)."""
    return JSONResponse(dict(error=" ".join(str(message).split()), **extra), status_code=status)


async def read_json(request: Request) -> dict:
    """The request's JSON object, at most MAX_BODY bytes; a DnoirError-like 400/413 otherwise."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise HTTPException(413, f"the request body is over {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, f"the request body is over {MAX_BODY} bytes")
    try:
        data = json.loads(body.decode("utf-8")) if body else {}
    except (UnicodeDecodeError, ValueError) as e:
        raise HTTPException(400, f"the request body is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the request body must be one JSON object")
    return data


def _number(data, key: str, kind, low, high, default=None):
    """A number field of a request, checked against its range (PositionError-like 400 otherwise)."""
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = kind(value)
        except ValueError:
            raise HTTPException(400, f"{key}: {value[:20]!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not float(value).is_integer()):
        raise HTTPException(400, f"{key}: {str(value)[:20]!r} is not a {'whole ' if kind is int else ''}number")
    if not low <= value <= high or value != value:
        raise HTTPException(400, f"{key}: {value} is out of range ({low} to {high})")
    return kind(value)


def check_engine(spec, allow_engines: bool) -> str:
    """The engine spec of a game request, within the server's caps; SpecError says why not."""
    if not isinstance(spec, str) or not spec.strip() or len(spec) > 200:
        raise SpecError("engine: give a bot spec such as ismcts:time=1, greedy or random")
    spec = spec.strip()
    if spec.startswith("cmd:"):
        if not allow_engines:
            raise SpecError("engine: external engines (cmd:...) are off; start the server with --allow-engines")
        return spec
    name, params = check_spec(spec)
    if params.get("time", 0) > MAX_ENGINE_SECONDS:
        raise SpecError(f"engine: time={params['time']} is over this server's {MAX_ENGINE_SECONDS:g} s a move")
    if params.get("iterations", 0) > MAX_ENGINE_ITERATIONS:
        raise SpecError(f"engine: iterations={params['iterations']} is over this server's {MAX_ENGINE_ITERATIONS}")
    if params.get("worlds", 0) > MAX_ENGINE_WORLDS:
        raise SpecError(f"engine: worlds={params['worlds']} is over this server's {MAX_ENGINE_WORLDS}")
    if params.get("threads", 1) > 1:
        raise SpecError("engine: threads=1 only on this server (searches share the machine)")
    return spec


def start_engine(spec: str, seed: int):
    """The engine of one new game, started and ready (`new_game` done); SpecError (a 400) when it
    does not start, with the engine's own reason.

    Blocks (an external engine's handshake may take seconds), so the app calls it in a thread.
    An external engine is a process of this game's own, not the one `make_player` shares
    between the games of a process: two games at once would otherwise interleave their
    questions on one engine, and each new game's `newgame` would reset the other's."""
    bot = ExternalBot(spec[4:].strip(), seed=seed) if spec.startswith("cmd:") else make_player(spec, seed)
    if isinstance(bot, IsmctsBot) and bot.config.max_nodes > ENGINE_NODES:
        bot.config = bot.config.replace(max_nodes=ENGINE_NODES)
    try:
        bot.new_game()
    except EngineFault as e:
        bot.close()
        raise SpecError(f"engine: {spec[:80]} does not start ({e})") from None
    return bot


class GameSession:
    """A game against the engine from one seat (solver.interfaces.play.Game) and the engine playing the other."""

    def __init__(self, game, bot):
        self.id = secrets.token_urlsafe(9)
        self.game = game
        self.bot = bot
        self.lock = threading.Lock()

    def release(self) -> bool:
        """Free what the engine keeps between its moves: an ISMCTS bot's tree, an external
        engine's process (started again, with `newgame`, at its next move). Only while the
        engine is not moving: a game whose engine is thinking is left as it is (False)."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if isinstance(self.bot, IsmctsBot):
                self.bot.kept.clear()
            elif isinstance(self.bot, ExternalBot):
                self.bot.close()
        finally:
            self.lock.release()
        return True

    def to_json(self) -> dict:
        game = self.game
        pos = game.position
        history, mover = [], None
        for i, token in enumerate(game.events):
            before = game.positions[i]
            mover = PLAYERS[before.to_move]
            history.append(dict(ply=i + 1, player=mover, move=token, round=before.round))
        out = dict(id=self.id, seat=PLAYERS[game.seat], engine=game.engine, seed=game.seed,
                   view=position_json(game.view), history=history, over=pos.is_over,
                   my_turn=game.my_turn, engine_to_move=not pos.is_over and not game.my_turn,
                   record=game.to_record())
        if pos.is_over:
            out["final"] = position_json(pos)  # the game is over: every card may be shown
        return out


@contextmanager
def held(session: GameSession):
    """The game's lock, without waiting (the event loop never blocks on an engine's move)."""
    if not session.lock.acquire(blocking=False):
        raise HTTPException(409, "the engine is thinking; try again when it has moved")
    try:
        yield
    finally:
        session.lock.release()


class Games:
    """The games kept at once: at most `size`, the least recently used dropped first; of
    these, the engines of the `warm` games that moved last keep what they hold between moves.

    Memory stays bounded by the warm games' trees and processes (and the searches running),
    not by every game kept. Releasing an engine may wait for an external one to quit, so
    `add` and `moved` are called in a worker thread, never on the event loop.
    """

    def __init__(self, size: int = MAX_GAMES, warm: int = MAX_WARM_ENGINES):
        self.size = size
        self.warm = warm
        self._items: OrderedDict[str, GameSession] = OrderedDict()
        self._warm: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    @property
    def warm_engines(self) -> int:
        """How many games' engines hold a tree or a process between moves now."""
        return len(self._warm)

    def add(self, session: GameSession) -> None:
        """Keep a new game (its engine, just started, is warm); the least recently used game
        beyond `size` is dropped and its engine released."""
        with self._lock:
            self._items[session.id] = session
            dropped = [self._items.popitem(last=False)[1] for _ in range(len(self._items) - self.size)]
        for gone in dropped:
            with self._lock:
                self._warm.pop(gone.id, None)
            gone.release()  # one thinking now is released by `moved` when its move ends
        self.moved(session)

    def moved(self, session: GameSession) -> None:
        """`session`'s engine has just moved (its lock released): it keeps its tree or process
        for its next move, and the warm engines beyond `warm` let go of theirs, but for one
        that is thinking (it comes back here when its move ends)."""
        with self._lock:
            if session.id not in self._items:  # dropped while its engine thought
                cold = [session]
            else:
                self._warm[session.id] = session
                self._warm.move_to_end(session.id)
                cold = [self._warm.popitem(last=False)[1] for _ in range(len(self._warm) - self.warm)]
        for other in cold:
            if not other.release():
                with self._lock:
                    if other.id in self._items:
                        self._warm[other.id] = other  # thinking: it stays warm until it has moved

    def get(self, key: str) -> GameSession:
        with self._lock:
            session = self._items.get(key)
            if session is None:
                raise HTTPException(404, f"no game {key[:40]!r} on this server (finished long ago, or never started)")
            self._items.move_to_end(key)
            return session


def create_app(settings: Settings | None = None) -> Starlette:
    """The Starlette application of `dnoir serve`."""
    settings = settings or Settings()
    capacity = Capacity(settings.max_searches)
    analyses = Analyses(settings.analyses, settings.analysis_nodes)
    games = Games()
    shutdown = threading.Event()

    async def in_daemon_thread(fn, slot: bool = True, request: Request | None = None, gone: threading.Event | None = None):
        """`fn()` in a thread of its own, holding a search slot (429 when none is free) unless
        `slot` is False. The request waits for it, but a server that stops does not: the answer
        is then 503 and the thread, a daemon, ends with the process (a bot's move, or an
        engine's start, cannot be interrupted). With `request` and `gone`, `gone` is set the
        moment the request's client goes away, for `fn` to stop early."""
        if slot:
            capacity.acquire()
        done, box = threading.Event(), {}

        def target():
            try:
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - handed to the request below
                box["error"] = e
            finally:
                if slot:
                    capacity.release()
                done.set()

        threading.Thread(target=target, name="dnoir-web-search", daemon=True).start()
        delay = 0.001  # short work (a game's start) answers at once, a long move is polled 20 times a second
        while not done.is_set():
            if shutdown.is_set():
                raise HTTPException(503, "the server is stopping")
            if gone is not None and not gone.is_set() and await request.is_disconnected():
                gone.set()
            await anyio.sleep(delay)
            delay = min(0.05, 2 * delay)
        if "error" in box:
            raise box["error"]
        return box.get("value")

    async def index(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), media_type="text/html")

    async def position(request: Request) -> Response:
        q = request.query_params
        pos = parse_position(q.get("dnp"), q.get("moves"))
        return JSONResponse(position_json(pos))

    async def deal(request: Request) -> Response:
        seed = _number(request.query_params, "seed", int, 0, MAX_SEED, default=None)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        full = Position.random_deal(seed)
        return JSONResponse(dict(seed=seed, full=str(full), a=str(full.view("a")), b=str(full.view("b"))))

    async def track_start(request: Request) -> Response:
        data = await read_json(request)
        seat, first = data.get("seat"), data.get("first")
        if seat not in SEATS:
            raise HTTPException(400, "seat: answer a or b")
        if first not in SEATS:
            raise HTTPException(400, "first: answer a or b")
        line, hand = data.get("line") or ".", data.get("hand") or "."
        if not isinstance(line, str) or not isinstance(hand, str) or len(line) > 40 or len(hand) > 40:
            raise HTTPException(400, "line and hand are card tokens such as 5+2 and 678+3C")
        try:
            start = start_view(PLAYERS.index(seat), PLAYERS.index(first), line.strip() or ".", hand.strip() or ".")
        except PositionError:  # names its field already
            raise
        except DnoirError as e:  # a card token that is not one: say which field
            return JSONResponse(mistake(e, field="hand" if _bad_cards(line) is None else "line"), status_code=400)
        return JSONResponse(dict(start=str(start), position=position_json(start)))

    # -- advice -------------------------------------------------------------------------

    def _advice_line(analysis, advice, done: bool) -> bytes:
        return (json.dumps(dict(id=analysis.id, dnp=analysis.dnp, done=done, advice=advice.to_dict()),
                           allow_nan=False) + "\n").encode()

    async def advise_once(request: Request) -> Response:
        """GET: one answer, as `dnoir advise --json` prints it (a budget of iterations or seconds)."""
        q = request.query_params
        pos = parse_position(q.get("dnp"), q.get("moves"))
        iterations = _number(q, "iterations", int, 1, 2_000_000)
        seconds = _number(q, "seconds", float, 0.01, 10.0)
        seed = _number(q, "seed", int, 0, MAX_SEED, default=0)
        limit = Limit(seconds=seconds if seconds or iterations else 1.0, iterations=iterations)
        # the search stops within a slice when the client goes away (as a stream does) or the
        # server stops: up to 2,000,000 iterations is many seconds nobody would wait for
        gone = threading.Event()
        advice = await in_daemon_thread(lambda: advise(pos, limit, threads=1, seed=seed, max_nodes=settings.analysis_nodes,
                                                       stop=lambda: gone.is_set() or shutdown.is_set()),
                                        request=request, gone=gone)
        return JSONResponse(advice.to_dict())

    async def advise_stream(request: Request) -> Response:
        """POST {dnp, moves?, id?, seconds?, seed?}: NDJSON lines of advice while the search runs.

        With the `id` of an earlier stream for the same position, the search goes on from
        its tree ("go on"); the stream ends after `seconds` (default 10), at once in round 4.
        """
        data = await read_json(request)
        seconds = _number(data, "seconds", float, 0.05, MAX_STREAM_SECONDS, default=10.0)
        seed = _number(data, "seed", int, 0, MAX_SEED, default=0)
        pos = parse_position(data.get("dnp"), data.get("moves"))
        analysis = analyses.get(data["id"]) if isinstance(data.get("id"), str) else None
        if analysis is None or analysis.dnp != str(pos):
            analysis = analyses.open(pos, seed=seed)
        # "go on" right after "stop": the stopped stream ends within a slice of noticing that its
        # client went away; wait for that rather than refuse
        for _ in range(60):
            if not analysis.busy:
                break
            await anyio.sleep(0.05)
        if analysis.busy:
            raise HTTPException(409, "this analysis is being searched already (by another request)")
        capacity.acquire()
        analysis.busy = True
        released = threading.Event()

        def close():
            if not released.is_set():
                released.set()
                analysis.busy = False
                capacity.release()

        async def lines():
            try:
                spent = 0.0
                while True:
                    slice_seconds = min(SLICE_SECONDS, seconds - spent)
                    before = analysis.seconds
                    advice = await anyio.to_thread.run_sync(analysis.step, slice_seconds)
                    spent += max(analysis.seconds - before, slice_seconds if not analysis.exact else seconds)
                    done = analysis.done or spent >= seconds - 1e-9 or shutdown.is_set()
                    yield _advice_line(analysis, advice, done)
                    if done:
                        break
            finally:
                close()

        return Stream(lines(), close, headers={"X-Analysis-Id": analysis.id})

    # -- play against the engine --------------------------------------------------------

    async def game_new(request: Request) -> Response:
        data = await read_json(request)
        seat = data.get("seat", "a")
        if seat not in SEATS:
            raise HTTPException(400, "seat: answer a or b")
        spec = check_engine(data.get("engine", DEFAULT_ENGINE), settings.allow_engines)
        seed = _number(data, "seed", int, 0, MAX_SEED, default=None)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        game = Game.versus(deal=Position.random_deal(seed), seat=PLAYERS.index(seat), engine=spec, seed=seed)

        def start():
            session = GameSession(game, start_engine(spec, seed))
            games.add(session)
            return session

        session = await in_daemon_thread(start, slot=False)
        return JSONResponse(session.to_json())

    async def game_get(request: Request) -> Response:
        return JSONResponse(games.get(request.path_params["id"]).to_json())

    async def game_move(request: Request) -> Response:
        session = games.get(request.path_params["id"])
        data = await read_json(request)
        move = data.get("move")
        if not isinstance(move, str) or len(move) > 3:
            raise HTTPException(400, "move: give a move token such as 8, +3, -1, C or T")
        with held(session):
            game = session.game
            if not game.my_turn:
                raise HTTPException(409, "it is not your move" if not game.position.is_over else "the game is over")
            try:
                game.push(move)
            except DnoirError as e:
                return JSONResponse(mistake(e, field="move"), status_code=400)
            return JSONResponse(session.to_json())

    async def game_engine(request: Request) -> Response:
        """The engine's moves until it is the player's turn again (or the game ends).

        When the player goes away (the tab closed) an ISMCTS engine's search stops within a
        slice (an external engine is sent the protocol's `stop`), and the move it was making
        is not played: the game waits, as it was, for the
        next request to ask the engine again."""
        session = games.get(request.path_params["id"])
        gone = threading.Event()

        def run():
            try:
                with session.lock:
                    game = session.game
                    while not game.position.is_over and not game.my_turn and not shutdown.is_set():
                        pos = game.position
                        view = pos.view(PLAYERS[pos.to_move])
                        bot = session.bot
                        move = bot.choose(view, stop=gone)
                        if gone.is_set():
                            break
                        game.push(str(move))
            finally:
                games.moved(session)

        try:
            await in_daemon_thread(run, request=request, gone=gone)
        except EngineFault as e:
            return error(502, f"the engine failed ({e}); the game stops here")
        return JSONResponse(session.to_json())

    async def game_undo(request: Request) -> Response:
        session = games.get(request.path_params["id"])
        with held(session):
            if not session.game.undo():
                raise HTTPException(409, "nothing to undo")
        return JSONResponse(session.to_json())

    # -- review -------------------------------------------------------------------------

    async def review(request: Request) -> Response:
        """POST {record, seconds?, iterations?, seat?}: NDJSON, first the moves, then one line a
        decision (as `dnoir review --json`), then a summary."""
        data = await read_json(request)
        record = data.get("record")
        if isinstance(record, str):
            try:
                record = json.loads(record)
            except ValueError as e:
                raise RecordError("record", f"not valid JSON ({e})") from None
        seconds = _number(data, "seconds", float, 0.01, MAX_REVIEW_SECONDS, default=None)
        iterations = _number(data, "iterations", int, 1, MAX_REVIEW_ITERATIONS, default=None)
        seat = data.get("seat")
        if seat is not None and seat not in SEATS:
            raise HTTPException(400, "seat: answer a or b, or leave it out")
        limit = Limit(seconds=seconds, iterations=iterations) if seconds or iterations else Limit(seconds=REVIEW_SECONDS)
        replay = replay_of(record)  # RecordError before anything is searched
        capacity.acquire()
        items: queue.Queue = queue.Queue()
        cancel = threading.Event()

        def work():
            try:
                run_review(record, limit, {seat} if seat else None, items.put, lambda: cancel.is_set() or shutdown.is_set())
            except Exception as e:  # noqa: BLE001 - reported in the stream, never a traceback
                items.put(dict(error=" ".join(str(e).split()) if isinstance(e, DnoirError)
                               else f"internal error: {type(e).__name__}: {e}"))
            finally:
                capacity.release()
                items.put(None)

        threading.Thread(target=work, name="dnoir-review", daemon=True).start()

        async def lines():
            try:
                yield (json.dumps(dict(replay=replay)) + "\n").encode()
                while not shutdown.is_set():
                    item = await anyio.to_thread.run_sync(_get, items)
                    if item is None:
                        break
                    if item is _EMPTY:
                        continue
                    yield (json.dumps(item, allow_nan=False) + "\n").encode()
            finally:
                cancel.set()

        return Stream(lines(), cancel.set)

    # -- the live match view ------------------------------------------------------------

    async def match_view(request: Request) -> Response:
        return JSONResponse(dict(files=await anyio.to_thread.run_sync(match_summaries, settings.match_files,
                                                                     settings.sprt)))

    async def status(request: Request) -> Response:
        return JSONResponse(dict(searches=capacity.running, max_searches=capacity.limit, analyses=len(analyses),
                                 games=len(games), warm_engines=games.warm_engines, allow_engines=settings.allow_engines,
                                 match_files=[os.path.basename(p) for p in settings.match_files]))

    # -- errors -------------------------------------------------------------------------

    async def on_dnoir_error(request: Request, exc: DnoirError) -> Response:
        return JSONResponse(mistake(exc), status_code=400)

    async def on_http(request: Request, exc: HTTPException) -> Response:
        return error(exc.status_code, exc.detail)

    async def on_busy(request: Request, exc: Busy) -> Response:
        return error(429, str(exc))

    async def on_internal(request: Request, exc: Exception) -> Response:
        return error(500, f"internal error: {type(exc).__name__}: {exc}")

    routes = [
        Route("/", index),
        Route("/api/position", position),
        Route("/api/deal", deal),
        Route("/api/track", track_start, methods=["POST"]),
        Route("/api/advise", advise_once, methods=["GET"]),
        Route("/api/advise", advise_stream, methods=["POST"]),
        Route("/api/game", game_new, methods=["POST"]),
        Route("/api/game/{id}", game_get),
        Route("/api/game/{id}/move", game_move, methods=["POST"]),
        Route("/api/game/{id}/engine", game_engine, methods=["POST"]),
        Route("/api/game/{id}/undo", game_undo, methods=["POST"]),
        Route("/api/review", review, methods=["POST"]),
        Route("/api/match", match_view),
        Route("/api/status", status),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={DnoirError: on_dnoir_error, HTTPException: on_http,
                                                      Busy: on_busy, Exception: on_internal},
                    middleware=[Middleware(SameOrigin, local_only=settings.local_only)])
    app.state.settings = settings
    app.state.capacity = capacity
    app.state.analyses = analyses
    app.state.games = games
    app.state.shutdown = shutdown
    return app


_EMPTY = object()
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def _host_name(host: str) -> str:
    """The name of a Host header without its port ('[::1]:8000' -> '[::1]')."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_loopback(name: str) -> bool:
    return name in LOOPBACK_NAMES or name.startswith("127.")


class SameOrigin:
    """Requests from the page itself only (plain ASGI middleware).

    A POST must say `Content-Type: application/json` (a cross-site form or a "simple"
    cross-origin fetch cannot, without a CORS preflight this server never grants), and an
    `Origin`, when sent, must be the server's own; with `local_only` the Host must be a
    loopback name (no DNS rebinding). Refusals are JSON 4xx like every other.
    """

    def __init__(self, app, local_only: bool = False):
        self.app = app
        self.local_only = local_only

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        problem = None
        if self.local_only and not _is_loopback(_host_name(host).lower()):
            problem = (403, f"this server answers only at a loopback address (127.0.0.1, localhost), not {host[:60]!r}")
        elif scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin")
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
                problem = (403, f"a request from another site ({origin[:60]}) is refused")
            elif kind != "application/json":
                problem = (415, "send the request body as JSON (Content-Type: application/json)")
        if problem is None:
            return await self.app(scope, receive, send)
        response = error(*problem)
        await response(scope, receive, send)


class Stream(StreamingResponse):
    """NDJSON lines; `on_close` runs once the response ends however it ends (done, the client
    gone, the server stopping), even when the body was never started."""

    def __init__(self, lines, on_close, headers=None):
        super().__init__(lines, media_type="application/x-ndjson", headers={"Cache-Control": "no-store", **(headers or {})})
        self._on_close = on_close

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


def _get(items: queue.Queue):
    """The next item of a queue, or _EMPTY after 0.2 s (so a cancelled stream notices)."""
    try:
        return items.get(timeout=0.2)
    except queue.Empty:
        return _EMPTY


def _bad_cards(text: str):
    try:
        tokenize(text)
    except CardError as e:
        return e
    return None
