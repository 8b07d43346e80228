"""`dnoir serve`: the analysis board in a browser (extra `[web]`; the server is solver.web.serve)."""

from __future__ import annotations

import click

from solver.cli.common import Whole
from solver.web.serve import run


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (127.0.0.1: this machine only; 0.0.0.0 opens it to the network).")
@click.option("--port", type=Whole(0, 65535), default=8000, show_default=True, help="Port (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--allow-engines", is_flag=True,
              help="Let the page play against external engines (cmd:...): they run commands on this machine.")
@click.option("--match", "match_files", multiple=True, metavar="FILE",
              help="A `dnoir match --out` file to show live (repeatable).")
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]", help="The SPRT bounds of the match view.")
@click.option("--max-searches", type=Whole(1, 64), default=2, show_default=True,
              help="Searches running at once; more requests are refused with 429 until one ends.")
def serve(host, port, open_browser, allow_engines, match_files, sprt, max_searches):
    """Serve the web analysis board: analyse, play, follow a real table, review, watch a match."""
    run(host, port, open_browser, allow_engines, match_files, sprt, max_searches)
