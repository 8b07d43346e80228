"""Running the analysis board's server (`dnoir serve`, solver.cli.serve; extra `[web]`).

The server binds to 127.0.0.1 unless told otherwise, prints where to point the browser
and serves until Ctrl-C (or SIGTERM; exit code 130 as for every dnoir command), which ends every search at once: the server's
shutdown event is set the moment the signal arrives, each search notices it within one
slice, and connections still open after a short grace are closed.
"""

from __future__ import annotations

import socket
import sys
import threading

import click

from solver.agents.stats import Sprt
from solver.errors import SetupError

GRACE_SECONDS = 2


def _missing_web_stack(e: ImportError) -> SetupError:
    return SetupError(f"dnoir serve needs the web extra ({e.name} is missing): pip install \"district-noir-solver[web]\"")


def run(host: str, port: int, open_browser: bool, allow_engines: bool, match_files, sprt, max_searches: int):
    """Serve the board on host:port until Ctrl-C or SIGTERM, then exit (130 once stopped by a signal).

    The web stack (the extra [web]: Starlette, uvicorn) is imported here, not at the top: without
    the extra every other command still runs, and this one says what to install (SetupError)."""
    try:
        import uvicorn

        from solver.web.app import Settings, create_app
    except ImportError as e:
        raise _missing_web_stack(e) from None
    if sprt:
        Sprt.parse(sprt)  # a bad test is refused now, not on the first page view
    app = create_app(Settings(allow_engines=allow_engines, match_files=match_files, sprt=sprt,
                              max_searches=max_searches, local_only=_is_loopback_address(host)))
    sock = _bind(host, port)
    url = f"http://{_url_host(host)}:{sock.getsockname()[1]}/"
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=GRACE_SECONDS,
                            lifespan="off", access_log=False)
    server = _Server(config, app.state.shutdown)
    click.echo(f"dnoir serve: the analysis board is at {url}  (Ctrl-C stops)", err=False)
    sys.stdout.flush()
    if open_browser:
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the signal again once it has shut down
        pass
    click.echo("dnoir serve: stopped")
    sys.exit(130 if server.should_exit else 0)  # stopped by Ctrl-C or SIGTERM: 130, as every dnoir command


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port; a port in use is the user's one-line error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _is_loopback_address(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def _server_class():
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, which also tells every search to stop the moment a signal comes."""

        def __init__(self, config, shutdown: threading.Event):
            super().__init__(config)
            self._shutdown = shutdown

        def handle_exit(self, sig, frame):
            self._shutdown.set()
            super().handle_exit(sig, frame)

    return Server


def _Server(config, shutdown):
    return _server_class()(config, shutdown)
