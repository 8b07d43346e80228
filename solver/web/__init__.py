"""The web analysis board: `dnoir serve` (extra `[web]`: Starlette on uvicorn).

The page (solver/web/static: HTML, CSS and JavaScript, no build step) talks to a small
JSON API (solver.web.app) whose answers mirror the command line's JSON: a position (what
`dnoir show` and `dnoir score` print), advice (`dnoir advise --json`), a review
(`dnoir review --json`) and a match summary (`dnoir match --json`). Everything the server
computes goes through the existing API (Position, events, search, review, match); the
modules here only adapt it to requests: solver.web.board (positions as JSON),
solver.web.jobs (searches in slices, capped and cancellable), solver.web.app (routes) and
solver.web.serve (the server's life; the `dnoir serve` command itself is solver.cli.serve).

Nothing here imports the web stack at import time except solver.web.app, which needs the
`[web]` extra: solver.web.serve imports it when the server starts.
"""
