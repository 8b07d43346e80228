"""The web board in a real browser: headless Chromium (Debian's package) driven by Selenium
through Debian's chromedriver, against `dnoir serve` in a subprocess.

What a player does: set a position up by clicking and see the advice fill in (stop, go
on), click a move, see bad input next to its field, play a whole game against the engine
with a hint and an undo and review it, follow a real table, load and review a record
file, watch a match. Screenshots at 1280x800 and at a phone's 390 px width go to
$DNOIR_SCREENSHOTS (default: a temporary directory).

Without chromium and chromedriver the tests skip, unless DNOIR_BROWSER_TESTS=require
(.ci/run sets it, after installing both), where a missing browser fails.
Waits poll with generous bounds: nothing here depends on a tight wall-clock margin.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
selenium = pytest.importorskip("selenium")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from test_web_server import start_server  # noqa: E402

pytestmark = pytest.mark.slow  # a browser and a server: run once in CI, not in its fast second pass

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/lib/chromium/chromedriver" if os.path.exists("/usr/lib/chromium/chromedriver") else None)
WAIT = 90  # seconds: the longest any one step may take on a loaded machine
EXAMPLE = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"

if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("DNOIR_BROWSER_TESTS") == "require":
        raise RuntimeError("DNOIR_BROWSER_TESTS=require but chromium or chromedriver is missing "
                           "(apt-get install chromium chromium-driver)")
    pytest.skip("no chromium/chromedriver here (apt-get install chromium chromium-driver)", allow_module_level=True)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("DNOIR_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def match_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("match") / "games.jsonl"
    subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", "random", "greedy", "--pairs", "2", "--workers", "1",
                    "--seed", "3", "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def live_file(tmp_path_factory) -> Path:
    """A match file that a `dnoir match --out` run during the test writes (not there at first)."""
    return tmp_path_factory.mktemp("live") / "live.jsonl"


@pytest.fixture(scope="module")
def url(match_file, live_file):
    proc, address = start_server("--match", str(match_file), "--match", str(live_file), "--sprt", "0,10",
                                 "--max-searches", "4")
    yield address
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,800", "--hide-scrollbars"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_window_size(1280, 800)
    yield d
    d.quit()


def viewport(d, width, height, mobile=False):
    """The page's viewport exactly width x height CSS pixels (a window's frame aside)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


@pytest.fixture
def desktop(driver):
    viewport(driver, 1280, 800)
    return driver


def wait(d, predicate, seconds=WAIT):
    """Poll `predicate(d)` until it is truthy; a stale element (the page re-rendered) is a retry."""
    def safe(d):
        try:
            return predicate(d)
        except (StaleElementReferenceException, IndexError, ValueError):
            return False
    return WebDriverWait(d, seconds, poll_frequency=0.1).until(safe)


def css(d, selector):
    return d.find_elements(By.CSS_SELECTOR, selector)


def click(d, selector):
    """Click the first element matching `selector`, once it is there (retrying a stale one)."""
    def go(d):
        found = css(d, selector)
        if not found:
            return False
        found[0].click()
        return True
    wait(d, go)


def text(d, element_id) -> str:
    return d.find_element(By.ID, element_id).text


def shot(d, shots: Path, name: str, full: bool = False) -> Path:
    """A PNG of the viewport, or of the whole page (`full`), as the user sees it."""
    path = shots / f"{name}.png"
    if full:
        import base64
        data = d.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "format": "png"})
        path.write_bytes(base64.b64decode(data["data"]))
    else:
        d.save_screenshot(str(path))
    return path


def shows_win_draw_loss(d, box="a-advice") -> bool:
    """Every advice row shows its win, draw and loss rates, once (a column on a wide screen,
    under the expected score on a phone)."""
    # read in one script: the panel is redrawn every slice, so elements found one by one go stale
    shown = d.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((row) => [...row.querySelectorAll('[data-role=wdl]')]"
        ".filter((e) => e.offsetParent !== null).map((e) => e.textContent))", f"#{box} tr[data-move]")
    return bool(shown) and all(len(s) == 1 and re.fullmatch(r"\D*\d+%\D+\d+%\D+\d+%", s[0]) for s in shown)


def shows_no_split(d, box="a-advice", phone=False) -> bool:
    """Every advice row shows a dash where the win/draw/loss rates would be (on a phone, whose
    screen has no room for that column, nothing), and the panel says why: the default search
    scores its playouts by the round-end model before round 4."""
    shown = d.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((row) => [...row.querySelectorAll('[data-role=wdl]')]"
        ".filter((e) => e.offsetParent !== null).map((e) => e.textContent))", f"#{box} tr[data-move]")
    expected = [] if phone else ["\u2014"]
    return bool(shown) and all(s == expected for s in shown) and bool(css(d, f"#{box} [data-role=round-model]"))


def iterations(d, box="a-advice") -> int:
    return int(d.find_element(By.ID, box).get_attribute("data-iterations") or 0)


def advice_state(d, box="a-advice") -> str:
    found = css(d, f"#{box} [data-role=advice-state]")
    return found[0].text if found else ""


# -- the analysis board ----------------------------------------------------------------------

def test_set_up_a_position_by_clicking_and_watch_the_advice_fill_in(desktop, url, shots):
    d = desktop
    d.get(url)
    wait(d, lambda d: css(d, "#a-advice tr[data-move]"))
    # two minutes a search: it is still running when Stop is pressed, however slow this machine
    Select(d.find_element(By.ID, "a-seconds")).select_by_visible_text("2 min")
    click(d, "#setup summary")
    for key in ("line", "hand-a", "hand-b", "coll-a", "coll-b"):
        while css(d, f"#s-{key} .card"):
            click(d, f"#s-{key} .card")
    for key, cards in (("line", ["5", "+2"]), ("hand-a", ["6", "7", "8", "+3", "C"]), ("hand-b", ["?"] * 5)):
        click(d, f'#setup-fields .field[data-field="{key}"] label')
        for card in cards:
            click(d, f'#palette .card[data-card="{card}"]')
    Select(d.find_element(By.ID, "s-round")).select_by_visible_text("1")
    Select(d.find_element(By.ID, "s-tomove")).select_by_visible_text("a")
    Select(d.find_element(By.ID, "s-taken")).select_by_visible_text("-")
    click(d, "#setup-apply")
    dnp = "5+2 678+3C/????? ./. 1 a -"
    wait(d, lambda d: d.find_element(By.ID, "dnp-input").get_attribute("value") == dnp)
    assert "dnp=5%2B2+678%2B3C" in d.current_url  # the URL carries the position
    # the advice fills in while the search runs: every legal move, growing figures
    wait(d, lambda d: len(css(d, "#a-advice tr[data-move]")) == 6)
    first = iterations(d)
    wait(d, lambda d: iterations(d) > first)
    assert "ISMCTS" in text(d, "a-advice") and shows_no_split(d)  # round 1: the round-end model scores
    d.execute_script("document.getElementById('setup').open = false")
    shot(d, shots, "analyse-1280")
    click(d, "#a-advice [data-role=stop]")
    wait(d, lambda d: advice_state(d) == "stopped")
    stopped = iterations(d)
    click(d, "#a-advice [data-role=go-on]")
    wait(d, lambda d: iterations(d) > stopped)  # go on: the same tree grows further
    click(d, "#a-advice [data-role=stop]")
    wait(d, lambda d: advice_state(d) == "stopped")
    Select(d.find_element(By.ID, "a-seconds")).select_by_visible_text("10 s")


def test_a_move_is_a_click_and_back_returns(desktop, url):
    d = desktop
    d.get(url + "?dnp=" + "5%2B2+678%2B3C%2F%3F%3F%3F%3F%3F+.%2F.+1+a+-")
    wait(d, lambda d: css(d, '#a-board [data-seat=a] .card.legal[data-card="8"]'))
    click(d, '#a-board [data-seat=a] .card.legal[data-card="8"]')
    wait(d, lambda d: d.find_element(By.ID, "dnp-input").get_attribute("value") == "5+28 67+3C/????? ./. 1 b -")
    wait(d, lambda d: "hidden" in text(d, "a-advice"))  # b's hand is hidden: no advice for b
    click(d, "#a-back")
    wait(d, lambda d: d.find_element(By.ID, "dnp-input").get_attribute("value") == "5+2 678+3C/????? ./. 1 a -")
    # round 4: the answer is exact, and says which method gave it
    box = d.find_element(By.ID, "dnp-input")
    box.clear()
    box.send_keys("7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a", Keys.ENTER)
    wait(d, lambda d: advice_state(d) == "done" and "exact: equilibrium" in text(d, "a-advice"))
    assert len(css(d, "#a-advice tr[data-move]")) == 3 and "freq." in text(d, "a-advice")


def test_bad_input_is_shown_next_to_its_field(desktop, url, shots):
    d = desktop
    d.get(url)
    box = d.find_element(By.ID, "dnp-input")
    box.clear()
    box.send_keys("5+2 678+3C/???? ./. 1 a -", Keys.ENTER)
    wait(d, lambda d: "44 cards in all" in text(d, "err-dnp"))
    box = d.find_element(By.ID, "dnp-input")
    box.clear()
    box.send_keys("5+2 678+3C?/????? ./. 1 a -", Keys.ENTER)
    wait(d, lambda d: "mixes known cards" in text(d, "err-hand-a"))  # next to hand a in the set-up
    d.execute_script("document.getElementById('err-hand-a').scrollIntoView({block: 'center'})")
    shot(d, shots, "bad-input-1280")
    # following a table: a bad card in the hand is shown next to the hand
    click(d, '#tabs button[data-tab="track"]')
    d.find_element(By.ID, "t-line").send_keys("5+2")
    d.find_element(By.ID, "t-hand").send_keys("67X")
    click(d, "#t-start")
    wait(d, lambda d: "unknown card token" in text(d, "err-t-hand"))
    # a file that is not game records, next to the file field
    bad = shots / "not-records.jsonl"
    bad.write_text("this is not json\n")
    click(d, '#tabs button[data-tab="review"]')
    d.find_element(By.ID, "r-file").send_keys(str(bad))
    wait(d, lambda d: "line 1: not valid JSON" in text(d, "err-r-file"))
    bad.unlink()


# -- play, review, track, match ------------------------------------------------------------------

def my_moves(d, seat):
    return css(d, f"#p-board [data-seat={seat}] .card.legal") + css(d, f"#p-board [data-seat={seat}] button.take")


def test_play_a_whole_game_with_hint_and_undo_then_review_it(desktop, url, shots):
    d = desktop
    d.get(url + "?tab=play")
    Select(d.find_element(By.ID, "p-seat")).select_by_visible_text("b")
    d.find_element(By.ID, "p-spec").send_keys("ismcts:iterations=300")
    d.find_element(By.ID, "p-seed").send_keys("5")
    click(d, "#p-new")
    undone = hinted = False
    mine = 0
    for _ in range(200):
        wait(d, lambda d: d.find_element(By.ID, "p-status").get_attribute("data-state") in ("your-move", "over"))
        if d.find_element(By.ID, "p-status").get_attribute("data-state") == "over":
            break
        # the engine's cards are face down
        assert wait(d, lambda d: all(c.get_attribute("data-card") == "?"
                                     for c in css(d, "#p-board [data-seat=a] [data-zone=hand-a] .card")))
        if not hinted and mine == 2:
            click(d, "#p-hint")
            wait(d, lambda d: css(d, "#p-advice tr[data-move]") and advice_state(d, "p-advice") == "done")
            shot(d, shots, "play-hint-1280")
            hinted = True
        if not undone and mine == 3:
            before = len(css(d, "#p-moves .mv"))
            click(d, "#p-undo")
            wait(d, lambda d: len(css(d, "#p-moves .mv")) < before)
            undone = True
            mine -= 1
            continue
        played = len(css(d, "#p-moves .mv"))

        def play_first(d):
            moves = my_moves(d, "b")
            if moves:
                moves[0].click()
            return bool(moves)
        try:
            wait(d, play_first)
            # the move is in the list (or the game is over) before the next one is looked for
            wait(d, lambda d: len(css(d, "#p-moves .mv")) > played
                 or d.find_element(By.ID, "p-status").get_attribute("data-state") == "over")
        except TimeoutException:
            shot(d, shots, "play-failure", full=True)
            raise AssertionError(f"stuck: status {text(d, 'p-status')!r}, error {text(d, 'err-p-move')!r}, "
                                 f"board {text(d, 'p-board')!r}") from None
        mine += 1
    else:
        pytest.fail("the game did not end in 200 moves")
    assert hinted and undone
    wait(d, lambda d: css(d, "#p-end .breakdown"))
    end = text(d, "p-end")
    assert "majorities" in end and "total" in end and ("wins" in end or "draw" in end)
    shot(d, shots, "play-end-1280", full=True)
    saved = css(d, "#p-end a.download")
    assert saved and saved[0].get_attribute("download").endswith(".jsonl")
    click(d, "#p-review")
    wait(d, lambda d: d.find_element(By.ID, "r-summary").get_attribute("data-state") == "done", seconds=300)
    assert "b:" in text(d, "r-summary") and "a:" not in text(d, "r-summary")  # your decisions only
    assert css(d, "#r-graph circle")


def test_load_and_review_a_record_file(desktop, url, shots, match_file):
    d = desktop
    d.get(url + "?tab=review")
    d.find_element(By.ID, "r-file").send_keys(str(match_file))
    wait(d, lambda d: len(css(d, "#r-game option")) == 4)
    Select(d.find_element(By.ID, "r-game")).select_by_index(1)
    Select(d.find_element(By.ID, "r-budget")).select_by_visible_text("0.1 s")
    click(d, "#r-go")
    wait(d, lambda d: d.find_element(By.ID, "r-summary").get_attribute("data-state") == "done", seconds=300)
    summary = text(d, "r-summary")
    assert "a:" in summary and "b:" in summary  # a match record: both players reviewed
    # marks depend on how sure a timed search is: not asserted here (tests/test_web_server.py
    # checks them on a record whose round-4 grades are exact)
    assert len(css(d, "#r-graph circle")) >= 30
    assert graph_within_its_box(d)
    click(d, '#r-graph circle[data-ply="20"]')  # the graph is a way to a move too, as on lichess
    wait(d, lambda d: "before move 20" in text(d, "r-board"))
    click(d, '#r-moves .mv[data-ply="10"]')
    wait(d, lambda d: "before move 10" in text(d, "r-board"))
    wait(d, lambda d: css(d, "#r-advice tr[data-move]"))
    shot(d, shots, "review-1280", full=True)
    # what `dnoir review --json` printed is shown as it is, nothing searched again; one seat's
    # decisions only (every other ply): the graph still spans the game
    graded = match_file.parent / "review.jsonl"
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "review", str(match_file), "--game", "0", "--json",
                          "--iterations", "200", "--seat", "b"], check=True, capture_output=True, text=True)
    graded.write_text(run.stdout)
    count = len(run.stdout.splitlines())
    d.find_element(By.ID, "r-file").send_keys(str(graded))
    wait(d, lambda d: "reviewed decisions" in text(d, "r-game"))
    click(d, "#r-go")
    wait(d, lambda d: "Reviewed decisions (from the file)" in text(d, "r-summary"))
    assert len(css(d, "#r-moves .mv")) == count and len(css(d, "#r-graph circle")) == count
    assert graph_within_its_box(d)
    last = max(json.loads(line)["ply"] for line in run.stdout.splitlines())
    click(d, f'#r-graph circle[data-ply="{last}"]')
    wait(d, lambda d: f"before move {last}" in text(d, "r-board"))


def graph_within_its_box(d) -> bool:
    """Every point of the review graph lies inside the graph's box, the last near its right end."""
    width = float(d.find_element(By.ID, "r-graph").get_dom_attribute("viewBox").split()[2])
    xs = [float(c.get_attribute("cx")) for c in css(d, "#r-graph circle")]
    return bool(xs) and all(0 <= x <= width for x in xs) and max(xs) > 0.9 * width


def test_follow_a_real_table(desktop, url):
    d = desktop
    d.get(url + "?tab=track")
    Select(d.find_element(By.ID, "t-seat")).select_by_visible_text("b")
    Select(d.find_element(By.ID, "t-first")).select_by_visible_text("b")
    d.find_element(By.ID, "t-line").send_keys("5C")
    d.find_element(By.ID, "t-hand").send_keys("66778")
    click(d, "#t-start")
    click(d, '#t-board [data-seat=b] .card.legal[data-card="7"]')  # my move
    click(d, '#t-board [data-seat=a] .card.legal[data-card="8"]')  # the card they played
    wait(d, lambda d: "Your move" in text(d, "t-status"))
    click(d, "#t-hint")
    wait(d, lambda d: css(d, "#t-advice tr[data-move]"))
    assert [e.text for e in css(d, "#t-moves .mv")] == ["1. 7", "2. 8"]
    click(d, "#t-undo")
    wait(d, lambda d: [e.text for e in css(d, "#t-moves .mv")] == ["1. 7"])
    # the rest of round 1, then the new hand at the start of round 2
    for seat, move in zip("abababababa", "8 6 T 6 5 7 +2 T 6 8 7".split()):
        selector = (f"#t-board [data-seat={seat}] button.take" if move == "T" else
                    f'#t-board [data-seat={seat}] .card.legal[data-card="{move}"]')
        before = len(css(d, "#t-moves .mv"))
        click(d, selector)
        wait(d, lambda d: len(css(d, "#t-moves .mv")) > before)
    wait(d, lambda d: css(d, "#t-newhand"))
    d.find_element(By.ID, "t-newhand").send_keys("CCCC")
    click(d, "#t-newhand-go")
    wait(d, lambda d: "4 cards given, the hand holds 5" in text(d, "err-t-newhand"))  # next to the field
    field = d.find_element(By.ID, "t-newhand")
    field.clear()
    field.send_keys("568+2C")
    click(d, "#t-newhand-go")
    wait(d, lambda d: "a's move" in text(d, "t-status"))
    assert [c.get_attribute("data-card") for c in css(d, "#t-board [data-zone=hand-b] .card")] == \
        ["5", "6", "8", "+2", "C"]


def test_the_live_match_view(desktop, url, live_file):
    d = desktop
    d.get(url + "?tab=match")
    wait(d, lambda d: css(d, "[data-role=pairing]"))
    view = text(d, "m-files")
    assert "games.jsonl: 4 games" in view and "random vs greedy" in view and "SPRT" in view and "LLR" in view
    assert "Elo" in view and "pairs by points" in view
    assert "live.jsonl: 0 games (not there yet)" in view
    # a match started now: the open page shows its games as they are written, without a reload
    subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", "greedy", "random", "--pairs", "3", "--workers", "1",
                    "--seed", "4", "--out", str(live_file)], check=True, capture_output=True)
    wait(d, lambda d: "live.jsonl: 6 games" in text(d, "m-files"))
    live = css(d, "[data-role=pairing]")[-1].text
    assert "greedy vs random" in live and "LLR" in live


def test_phone_width(driver, url, shots):
    d = driver
    viewport(d, 390, 844, mobile=True)
    try:
        d.get(url + "?dnp=" + "68%2B28+%3F%3F%3F%2F88%2B3+57%2B2-1-3CC%2F778%2B2-1+2+b+a")
        wait(d, lambda d: len(css(d, "#a-advice tr[data-move]")) == 3 and iterations(d) > 0)
        width = d.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, f"the page is {width} px wide on a 390 px screen"
        assert shows_no_split(d, phone=True)  # round 2: the round-end model scores the playouts
        shot(d, shots, "analyse-390", full=True)
        click(d, "#a-advice [data-role=stop]")
        # a round-4 start, solved from the mover's view: the split goes under the expected score
        d.get(url + "?dnp=" + "885565+78%2B3-1-2%2F%3F%3F%3F%3F%3F+6667788%2B2%2B2-2-2-3-3C%2F6677788%2B2-1-1-2C+4+a+-")
        wait(d, lambda d: css(d, "#a-advice tr[data-move]") and "exact" in text(d, "a-advice"))
        assert shows_win_draw_loss(d)  # under the expected score: the column does not fit
        assert d.execute_script("return document.documentElement.scrollWidth") <= 400
        d.get(url + "?tab=play")
        d.find_element(By.ID, "p-spec").send_keys("random")
        click(d, "#p-new")
        wait(d, lambda d: d.find_element(By.ID, "p-status").get_attribute("data-state") == "your-move")
        shot(d, shots, "play-390", full=True)
    finally:
        viewport(d, 1280, 800)
