"""Plain-text rendering of a position and of a score, for the CLI.

>>> from solver.rules.position import Position
>>> print(render_score(Position.parse("5+2 678+3C/????? ./. 1 a -")).splitlines()[0])
player  majorities  sets  alliances  betrayals  total
"""

from __future__ import annotations

from solver.rules.cards import KINDS
from solver.rules.notation import PLAYERS, deck_size
from solver.rules.position import Position

_HOW = {"points": "on points", "tie-break": "on the tie-break (more 8s, then 7s, 6s, 5s)",
        "city": "by collecting the three cities", "draw": ""}


def _cards(kinds) -> str:
    return " ".join(KINDS[k] for k in kinds) or "(empty)"


def _counts(counts) -> str:
    return " ".join(KINDS[k] for k, n in enumerate(counts) for _ in range(n)) or "(empty)"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _taken_text(pos: Position) -> str:
    who = [PLAYERS[p] for p in range(2) if pos.taken >> p & 1]
    return " and ".join(who) if who else "nobody"


def render_score(pos: Position) -> str:
    """A table of both players' score breakdowns and one line saying the result."""
    result = pos.result()
    rows = ["player  majorities  sets  alliances  betrayals  total"]
    for p, s in enumerate(result.scores):
        rows.append(f"{PLAYERS[p]:<6}  {s.majorities:>10}  {s.sets:>4}  {s.alliances:>+9}  "
                    f"{-s.betrayals:>+9}  {s.total:>5}")
    totals = f"{result.scores[0].total} to {result.scores[1].total}"
    if not result.over:
        rows.append(f"score so far (the game is not finished): a {totals} b")
    elif result.winner == "draw":
        rows.append(f"result: draw ({totals}, equal supports of every value)")
    else:
        rows.append(f"result: {result.winner} wins {_HOW[result.how]} (a {totals} b)")
    return "\n".join(rows)


def render_board(pos: Position) -> str:
    """A readable board: round, turn, takes, the line with its newest end, hands, collections, score."""
    if pos.is_over:
        status = "game over"
    else:
        status = f"{PLAYERS[pos.to_move]} to move ({PLAYERS[pos.first]} is first player this round)"
    out = [f"District Noir — round {pos.round} of 4, {status}; taken this round: {_taken_text(pos)}"]
    if pos.line:
        reach = pos.in_reach
        out.append(f"line    {_cards(pos.line)}  <- newest   ({_plural(len(pos.line), 'card')})")
        if not pos.is_over:
            out.append(f"{PLAYERS[pos.to_move]} taking now would get: {_cards(reach)}")
    else:
        out.append("line    (empty)")
    for p in range(2):
        hand = pos.hands[p]
        text = _counts(hand) if hand is not None else f"{'? ' * pos.hand_sizes[p]}({pos.hand_sizes[p]} hidden)"
        out.append(f"hand {PLAYERS[p]}  {text}")
    for p in range(2):
        out.append(f"collection {PLAYERS[p]}  {_counts(pos.colls[p])}")
    deck = "unknown" if pos.deck is None else (_cards(pos.deck) if pos.deck else "(empty)")
    removed = "unknown" if pos.removed is None else _cards(sorted(pos.removed))
    out.append(f"deck ({deck_size(pos.round)} cards, top first): {deck}")
    out.append(f"removed: {removed}")
    out.append("")
    out.append(render_score(pos))
    return "\n".join(out)



def render_move_line(number: int, before: Position, token: str, after: Position) -> str:
    """One line of a compact replay: the move, what it did, and the score after it.

    >>> pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
    >>> render_move_line(1, pos, "T", pos.play("T"))
    '   1. r1 a  T    takes 5 +2                   a 7 - b 0'
    """
    mover = PLAYERS[before.to_move]
    if token == "T":
        what = f"takes {_cards(before.in_reach)}"
    else:
        what = f"plays {token}"
    scores = after.result().scores
    end = ""
    if after.is_over:
        result = after.result()
        end = "   game over: " + ("draw" if result.winner == "draw" else f"{result.winner} wins {_HOW[result.how]}")
    elif after.round != before.round:
        end = f"   round {after.round} begins"
    return (f"{number:>4}. r{before.round} {mover}  {token:<3}  {what:<28} a {scores[0].total} - b {scores[1].total}"
            f"{end}")


def render_solve(result) -> str:
    """A table of every move's value (an `endgame.SolveResult`), best first, and the search figures."""
    out = []
    if result.mode == "open":
        out.append(f"open hands, {result.to_move} to move: best {result.best}")
        out.append("move  outcome       margin")
        for m in result.moves:
            outcome = f"{m.outcome} (city)" if m.city else m.outcome
            out.append(f"{m.move:<4}  {outcome:<12}  {m.margin:>+6}")
        out.append(f"principal variation: {' '.join(result.pv) or '(the result is already settled)'}")
    else:
        out.append(f"{result.to_move}'s view, {result.worlds} possible opponent hands: best {result.best}")
        out.append("move  expected     win    draw    loss   margin")
        for m in result.moves:
            out.append(f"{m.move:<4}  {float(m.expected):>8.4f}  {float(m.win):>6.1%}  {float(m.draw):>6.1%}  "
                       f"{float(m.loss):>6.1%}  {m.margin:>+7.2f}")
    out.append(f"nodes {result.nodes:,}  time {result.seconds * 1000:.2f} ms")
    return "\n".join(out)


def render_advice(pos, advice) -> str:
    """Every move's figures (a `search.Advice`), best first, the recommendation, how sure it is,
    and the search figures."""
    mover = PLAYERS[pos.to_move]
    out = [f"round {pos.round}, {mover} to move: recommended {advice.best}"]
    if advice.method == "equilibrium":
        out.append(f"equilibrium: round 4, the hidden-information game solved to exploitability "
                   f"{advice.exploitability:.1e} (both hands dealt from the cards not public)")
        out.append("move  frequency  expected")
        for m in advice.moves:
            out.append(f"{m.move:<4}  {m.share:>9.4f}  {m.expected:>8.4f}")
        out.append(f"recommended: {advice.rule}")
        out.append(f"iterations {advice.iterations:,}  time {advice.seconds * 1000:.1f} ms")
        return "\n".join(out)
    if advice.exact:
        out.append(f"exact: round 4, solved over all {advice.worlds} hands the opponent may hold "
                   "(optimistic: both sides then play as if they saw every card)")
        out.append("move  expected     win    draw    loss   margin")
        for m in advice.moves:
            out.append(f"{m.move:<4}  {m.expected:>8.4f}  {m.win:>6.1%}  {m.draw:>6.1%}  {m.loss:>6.1%}  "
                       f"{m.margin:>+7.2f}")
        out.append(f"time {advice.seconds * 1000:.1f} ms")
        return "\n".join(out)
    if all(m.win is not None for m in advice.moves):
        out.append("move    share     visits  expected  ± s.e.     win    draw    loss   margin")
        for m in advice.moves:
            out.append(f"{m.move:<4}  {m.share:>6.1%}  {m.visits:>9,}  {m.expected:>8.4f}  {m.se:>6.4f}  "
                       f"{m.win:>6.1%}  {m.draw:>6.1%}  {m.loss:>6.1%}  {m.margin:>+7.2f}")
    else:  # the round-end model scored the playouts: no played-out split or margin to show
        out.append("move    share     visits  expected  ± s.e.")
        for m in advice.moves:
            out.append(f"{m.move:<4}  {m.share:>6.1%}  {m.visits:>9,}  {m.expected:>8.4f}  {m.se:>6.4f}")
    if advice.close_call:
        out.append(f"close call: {', '.join(advice.close_call)} cannot be separated by the evidence "
                   "(expected scores within 1.96 standard errors); give more time or iterations")
    out.append(f"recommended: {advice.rule}")
    if advice.config is not None:
        name = f" ({advice.config.name})" if advice.config.name else ""
        out.append(f"search{name}: {advice.config.assumes}")
    out.append(f"iterations {advice.iterations:,}  {advice.iterations_per_second:,.0f} per second  "
               f"threads {advice.threads}  time {advice.seconds:.2f} s")
    return "\n".join(out)


def render_pairing(p) -> str:
    """The result table of one pairing (a `match.PairingSummary`), from X's side.

    The score, its interval and the Elo come from the complete duplicate pairs; their
    pentanomial counts (pairs in which X scored 0, 1/2, 1, 3/2, 2 points) are shown, and
    games whose partner was not played are counted apart.
    """
    s = p.summary
    fx, fy = p.faults["x"], p.faults["y"]
    lone = f", {p.lone_games} lone game{'s' if p.lone_games != 1 else ''} not counted" if p.lone_games else ""
    penta = " ".join(str(n) for n in s.penta)
    return "\n".join([
        f"{p.x}  vs  {p.y}: {p.games} games, {s.units} complete pair{'s' if s.units != 1 else ''}{lone}",
        f"  {p.x}: wins {p.wins}  draws {p.draws}  losses {p.losses}   pairs by points 0/½/1/1½/2: {penta}",
        f"  score {s.score:.3f}  95% [{s.low:.3f}, {s.high:.3f}]   {s.elo_text()}",
        f"  mean margin {p.margin:+.2f} points   city wins {p.city_wins[0]} - {p.city_wins[1]}",
        f"  illegal moves / timeouts / crashes: {fx['illegal']}/{fx['timeout']}/{fx['crash']} "
        f"- {fy['illegal']}/{fy['timeout']}/{fy['crash']}",
    ])


def render_ratings(ratings) -> str:
    """A Bradley-Terry Elo table (a list of `stats.Rating`), strongest first."""
    width = max(len(r.name) for r in ratings)
    rows = [f"{'player':<{width}}  {'Elo':>6}  {'95% interval':>16}  {'games':>5}  {'score':>5}"]
    for r in ratings:
        rows.append(f"{r.name:<{width}}  {r.elo:>+6.0f}  [{r.low:>+6.0f}, {r.high:>+6.0f}]  {r.games:>5}  "
                    f"{r.score:>5.3f}")
    return "\n".join(rows)
