"""Real servers and a real browser for the web client's tests.

``web_stack`` starts an embedded Valkey, a worker and a projector (``live_service``), the
gateway (``orrery gateway --port 0``, its URL read from its first stdout line) and the
bot runner, all real processes sharing one server key. ``chromium`` launches Debian's
Chromium through Playwright (the bundled browser download is not reachable here);
``python3 dev.py test`` installs both when missing.

``Person`` is one browser context (its own localStorage, so its own account) with the
helpers a test needs to act as a person would: sign up through the form, open pages,
click legal-move controls and wait for the page to show the outcome. Every WebSocket
frame a page receives is kept (``frames``), and every seq the table page rendered
(``rendered()``, recorded by a MutationObserver added before the page's own scripts).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ViewportSize,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from orrery.runtime import stop_processes
from tests.support.gateway import LiveGateway, spawn_gateway, wait_ready
from tests.support.service import REPO, LiveService, live_service

ORRERY = (sys.executable, "-m", "orrery.cli")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
TIMEOUT_MS = 30_000
PASSWORD = "a good password"
# Screenshots for docs/: set ORRERY_WEB_SCREENSHOTS=docs/img to refresh the committed ones.
SCREENSHOTS_ENV = "ORRERY_WEB_SCREENSHOTS"

# Records every data-seq the table root shows (a test-side observer: no hook in the app).
RECORD_SEQS = """
window.__seqs = [];
new MutationObserver(() => {
  const root = document.querySelector('[data-testid=table]:not([data-replay])');
  if (!root || !root.dataset.seq) return;
  const seq = Number(root.dataset.seq);
  if (window.__seqs[window.__seqs.length - 1] !== seq) window.__seqs.push(seq);
}).observe(document, {subtree: true, childList: true, attributes: true,
                      attributeFilter: ['data-seq']});
"""


def chromium_executable() -> str:
    found = os.environ.get("ORRERY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(found).exists():
        raise RuntimeError(
            "Chromium is missing: `python3 dev.py test` installs it (apt-get install -y chromium)"
        )
    return found


# Where the web tests keep their screenshots as artefacts when not told otherwise (kept
# after the run, unlike pytest's tmp_path): <temp>/orrery-web-artefacts.
ARTEFACTS = Path(tempfile.gettempdir()) / "orrery-web-artefacts"


def screenshot_dir(fallback: Path | None = None) -> Path:
    wanted = os.environ.get(SCREENSHOTS_ENV)
    target = (
        (REPO / wanted)
        if wanted and not Path(wanted).is_absolute()
        else Path(wanted or fallback or ARTEFACTS)
    )
    target.mkdir(parents=True, exist_ok=True)
    return target


class WebStack:
    def __init__(self, service: LiveService, key: str) -> None:
        self.service = service
        self.key = key
        self.processes: list[subprocess.Popen[bytes]] = []
        self.url = ""
        self.port = 0
        self.log_path = Path(service.server.data_dir).parent / f"web-{uuid.uuid4().hex[:6]}.log"
        self.log = self.log_path.open("ab")
        self.gateway: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "ORRERY_SECRET_KEY": self.key,
            # every browser context signs up from 127.0.0.1, and the tests read many
            # replays with a player's session: no rate limits here
            "ORRERY_GATEWAY_ANON_BURST": "100000",
            "ORRERY_GATEWAY_ANON_RATE": "1000",
            "ORRERY_GATEWAY_BURST": "100000",
            "ORRERY_GATEWAY_RATE": "1000",
        }

    def start_gateway(self, port: int = 0) -> str:
        try:
            process, line = spawn_gateway(self.service.url, self.env(), self.log, port)
        except RuntimeError as failure:
            raise RuntimeError(f"{failure}\n{self.logs()[-3000:]}") from None
        self.gateway = process
        self.processes.append(process)
        self.url = line
        self.port = int(line.rsplit(":", 1)[1])
        wait_ready(self.url)
        return line

    def stop_gateway(self) -> None:
        """Stop the gateway (its connections drop); ``start_gateway(stack.port)`` again."""
        assert self.gateway is not None
        stop_processes([self.gateway])
        self.processes.remove(self.gateway)
        self.gateway = None

    def start_bots(self) -> None:
        self.processes.append(
            subprocess.Popen(
                [*ORRERY, "bots", "--redis-url", self.service.url],
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stderr=self.log,
            )
        )

    def logs(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_processes(self.processes)
        self.log.close()


@contextmanager
def web_stack(data_dir: Path) -> Iterator[WebStack]:
    key = secrets.token_urlsafe(32)
    with live_service(data_dir, ORRERY_SECRET_KEY=key) as service:
        stack = WebStack(service, key)
        try:
            stack.start_gateway()
            stack.start_bots()
            yield stack
        finally:
            stack.stop()


@contextmanager
def chromium() -> Iterator[tuple[Playwright, Browser]]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_executable(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield playwright, browser
        finally:
            browser.close()


@contextmanager
def chromium_process(profile: Path) -> Iterator[str]:
    """One headless Chromium for a whole test run; its DevTools endpoint (``ws://…``).

    Each browser test module connects to it (:func:`connected`) instead of starting a
    browser of its own. Playwright's sync API keeps an event loop marked as running
    while it is started, so it is started per module, never for the whole run."""
    process = subprocess.Popen(
        [
            chromium_executable(),
            "--headless",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            *CHROMIUM_ARGS,
            "about:blank",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said: list[str] = []
        for line in process.stderr:
            said.append(line)
            if line.startswith("DevTools listening on "):
                endpoint = line.removeprefix("DevTools listening on ").strip()
                break
        else:
            raise RuntimeError("Chromium did not start: " + "".join(said[-20:]))
        # keep reading what it says, so a full pipe never stops it
        threading.Thread(target=lambda: [None for _ in process.stderr or ()], daemon=True).start()
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def connected(endpoint: str) -> Iterator[Browser]:
    """Playwright connected to the run's Chromium (contexts opened through it close with it)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(endpoint)
        try:
            yield browser
        finally:
            browser.close()  # its contexts close; the browser runs on for the next module


# ---------------------------------------------------------------- a person in a browser


# Where the web client is served: a module's WebStack, or the run's shared gateway (the
# ``live`` fixture) for a test that needs no bot runner.
Site = WebStack | LiveGateway


@dataclass
class Person:
    stack: Site
    context: BrowserContext
    page: Page
    name: str
    token: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    replays: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    board_clicks: int = 0  # moves made on the drawn board
    board_keys: int = 0  # of which with the keyboard

    # ------------------------------------------------------------ pages and forms

    def open(self, path: str = "/") -> None:
        self.page.goto(self.stack.url + "/#" + path)

    def sign_up(self) -> None:
        self.open("/")
        self.page.get_by_test_id("signup-name").fill(self.name)
        self.page.get_by_test_id("signup-password").fill(PASSWORD)
        self.page.get_by_test_id("signup-submit").click()
        self.page.get_by_test_id("lobby").wait_for()
        session = self.page.evaluate("localStorage.getItem('orrery.session')")
        self.token = json.loads(session)["token"]

    def create_table(
        self,
        game: str,
        seats: int,
        options: dict[str, str] | None = None,
        private: bool = False,
        sit: bool = True,
    ) -> str:
        """Create a table through the lobby's form; the creator takes a seat at once
        unless ``sit`` is False (the form's "Take a seat at it" box unticked)."""
        page = self.page
        self.open("/")
        page.get_by_test_id("create-game").select_option(game)
        page.get_by_test_id("create-seats").fill(str(seats))
        for key, value in (options or {}).items():
            page.get_by_test_id(f"create-option-{key}").select_option(value)
        if private:
            page.get_by_label("Private").check()
        if not sit:
            page.get_by_test_id("create-sit").uncheck()
        page.get_by_test_id("create-submit").click()
        page.wait_for_url("**/#/table/*")
        self.table().wait_for()
        if sit:
            page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
        return page.url.rsplit("/", 1)[1].split("?")[0]

    def table(self) -> Any:
        return self.page.locator("[data-testid=table]:not([data-replay])")

    def attr(self, name: str) -> str | None:
        value: str | None = self.table().get_attribute(name)
        return value

    def seq(self) -> int:
        return int(self.attr("data-seq") or -1)

    def phase(self) -> str:
        return self.attr("data-phase") or ""

    def wait_phase(self, phase: str) -> None:
        self.page.locator(f"[data-testid=table][data-phase={phase}]").wait_for()

    def wait_seq(self, at_least: int) -> None:
        self.page.wait_for_function(
            "n => Number((document.querySelector('[data-testid=table]:not([data-replay])')"
            " || {dataset: {}}).dataset.seq || -1) >= n",
            arg=at_least,
            timeout=TIMEOUT_MS,
        )

    def wait_change(self, seq: int) -> None:
        """Until the page shows a later seq, or says it is my turn, or the game is over."""
        self.page.wait_for_function(
            """seq => {
                const t = document.querySelector('[data-testid=table]:not([data-replay])');
                return !!t && (Number(t.dataset.seq) > seq || t.dataset.phase === 'finished'
                    || (t.dataset.myTurn === '1' && !t.dataset.busy)); }""",
            arg=seq,
            timeout=TIMEOUT_MS,
        )

    def rendered(self) -> list[int]:
        seqs: list[int] = self.page.evaluate("window.__seqs || []")
        return seqs

    def views(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == "view"]

    # ------------------------------------------------------------ the API, as this person

    def api(self, path: str, **params: Any) -> Any:
        response = httpx.get(
            self.stack.url + path,
            params=params or None,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=30,
        )
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: Any = None) -> Any:
        response = httpx.post(
            self.stack.url + path,
            json=body,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=30,
        )
        response.raise_for_status()
        return response.json()

    def view_at(self, table_id: str, seq: int) -> dict[str, Any]:
        """My view at ``seq``: the frame my page received for it, else the replay."""
        for frame in reversed(self.frames):
            if frame.get("type") == "view" and frame["seq"] == seq:
                view: dict[str, Any] = frame["view"]
                return view
        return {k: v for k, v in self.replay(table_id, seq).items() if k != "replay"}

    def replay(self, table_id: str, seq: int, fresh: bool = False) -> dict[str, Any]:
        """My view after the command holding ``seq`` (GET …/replay, with its ``replay``
        member; kept, since a past seq's view never changes). ``fresh`` asks again: the
        ``replay`` member's ``steps`` (the table's command count) grows while it plays."""
        key = (table_id, seq)
        if fresh or key not in self.replays:
            self.replays[key] = self.api(f"/v1/tables/{table_id}/replay", at=seq)
        return self.replays[key]

    # ------------------------------------------------------------ playing by clicking

    def state(self) -> dict[str, Any]:
        """The table root's seq, viewer, seats to move and whether I may move, in one read."""
        state: dict[str, Any] = self.page.evaluate(
            """() => {
                const t = document.querySelector('[data-testid=table]:not([data-replay])');
                if (!t) return {seq: -1, viewer: null, to_move: [], mine: false};
                return {seq: Number(t.dataset.seq || -1),
                        viewer: t.dataset.viewer === 'spectator' ? null : Number(t.dataset.viewer),
                        to_move: (t.dataset.toMove || '').split(',').filter(x => x).map(Number),
                        mine: t.dataset.myTurn === '1' && !t.dataset.busy}; }"""
        )
        return state

    def my_turn(self) -> bool:
        return self.page.evaluate(
            "() => { const t = document.querySelector('[data-testid=table]:not([data-replay])');"
            " return !!t && t.dataset.myTurn === '1' && !t.dataset.busy; }"
        )

    def move_controls(self) -> Any:
        # Legal-move controls the page offers (composed orders and lifecycle buttons aside):
        # buttons, and the drawn board's elements that make a move.
        return self.table().locator(
            "button[data-command]:not([disabled]):not([data-composed]):not([data-lifecycle]),"
            " [data-testid=board] [data-command]:not([aria-disabled=true])"
        )

    def board_controls(self) -> Any:
        return self.table().locator("[data-testid=board] [data-command]:not([aria-disabled=true])")

    def choose_other(self, controls: str, chosen: str) -> None:
        """Now and then pick another of these choices, and wait until the page shows it."""
        others = self.table().locator(f"{controls}:not({chosen})")
        if others.count() and self.rng.random() < 0.3:
            other = others.nth(self.rng.randrange(others.count()))
            key = other.get_attribute("data-key")
            other.click()
            self.table().locator(f"[data-key='{key}']{chosen}").wait_for()

    def click_a_move(self) -> bool:
        """Click one legal-move control at random, on the drawn board when it offers one
        (mostly); wait until the page shows its outcome. False when there was nothing to
        click."""
        # Sometimes another choice first: an ambassador, side, die or token (Federation's
        # placement in steps), the chip a click on a region places or the payment a click
        # on an objective peeks with (Fractured Sky).
        self.choose_other("[data-testid=placement] input[type=radio]", ":checked")
        self.choose_other("button.chip[aria-pressed]", "[aria-pressed=true]")
        self.choose_other("button.pay[aria-pressed]", "[aria-pressed=true]")
        on_board = self.board_controls()
        picks = self.table().locator("[data-testid=board] [data-pick]:not([aria-disabled=true])")
        if picks.count() and (not on_board.count() or self.rng.random() < 0.3):
            # a thing on the board with a price (a part to build, an objective to peek
            # at): click it, then one of its payments beside the board
            picks.nth(self.rng.randrange(picks.count())).click()
            payments = self.table().locator("[data-testid=payment] button[data-command]")
            payments.first.wait_for()
            self.board_clicks += 1
            self.click_control(payments.nth(self.rng.randrange(payments.count())))
            return True
        controls = on_board if on_board.count() and self.rng.random() < 0.85 else None
        if controls is None:
            controls = self.move_controls()
        count = controls.count()
        if not count:
            return False
        self.click_control(controls.nth(self.rng.randrange(count)))
        return True

    def click_control(self, control: Any) -> None:
        """Make the move of one legal-move control (the first move on the board with the
        keyboard) and wait until the page shows its outcome."""
        page = self.page
        seq = self.attr("data-seq")
        body = json.loads(control.get_attribute("data-command") or "{}")
        assert body.get("type") and not body["type"].startswith("table."), body
        assert control.get_attribute("aria-label"), "a move control without an accessible name"
        if control.evaluate("e => !!e.closest('[data-testid=board]')"):
            self.board_clicks += 1
        if self.board_clicks == 1 and not self.board_keys:
            # the first move on the board with the keyboard: focus it, press Enter
            self.board_keys += 1
            control.focus()
            page.keyboard.press("Enter")
        else:
            control.click()
        page.wait_for_function(
            """seq => {
                const t = document.querySelector('[data-testid=table]:not([data-replay])');
                return !t.dataset.busy
                    && (t.dataset.seq !== seq || t.dataset.outcome === 'rejected'); }""",
            arg=seq,
            timeout=TIMEOUT_MS,
        )


def stalled(people: list[Person]) -> str:
    """What each page shows when nothing moves any more (for the failure message)."""
    lines = []
    for person in people:
        table = person.page.url.split("/table/")[-1].split("/")[0].split("?")[0]
        view = person.api(f"/v1/tables/{table}/view")
        lines.append(
            f"{person.name}: page seq {person.seq()} phase {person.phase()} my-turn"
            f" {person.attr('data-my-turn')} busy {person.attr('data-busy')}; service seq"
            f" {view['seq']} to_move {view['to_move']} legal {json.dumps(view['legal'])[:600]}"
            f" controls {person.move_controls().count()}"
        )
    return "nothing moves:\n" + "\n".join(lines)


def new_person(
    stack: Site,
    browser: Browser,
    prefix: str,
    *,
    viewport: ViewportSize | None = None,
    mobile: bool = False,
) -> Person:
    context = browser.new_context(
        viewport=viewport or {"width": 1280, "height": 900},
        is_mobile=mobile,
        has_touch=mobile,
    )
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RECORD_SEQS)
    page = context.new_page()
    person = Person(stack, context, page, f"{prefix}{uuid.uuid4().hex[:6]}")

    def on_socket(socket: Any) -> None:
        def received(payload: str | bytes) -> None:
            text = payload.decode() if isinstance(payload, bytes) else payload
            person.frames.append(json.loads(text))

        socket.on("framereceived", received)

    page.on("websocket", on_socket)
    page.on("pageerror", lambda error: person.errors.append(str(error)))

    def console(message: Any) -> None:
        # An HTTP error the page handles (a refused join) is logged by Chromium too.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            person.errors.append(message.text)

    page.on("console", console)
    return person


def play_until_finished(
    people: list[Person],
    *,
    before: Callable[[Person], bool] | None = None,
    after: Callable[[Person, int], None] | None = None,
    limit_s: float = 300.0,
    moves: int | None = None,
) -> int:
    """Each person clicks legal-move controls whenever their page says it is their turn,
    until every page shows the finished table, or until ``moves`` moves were made.
    ``before(person)`` may make a move of its own first (returns True when it did);
    ``after(person, clicks)`` runs after each move. Returns the number of moves."""
    clicks = 0
    deadline = time.monotonic() + limit_s
    while True:
        if all(p.phase() == "finished" for p in people):
            return clicks
        if moves is not None and clicks >= moves:
            return clicks
        if time.monotonic() > deadline:
            raise AssertionError(f"no end after {clicks} clicks: {[p.phase() for p in people]}")
        moved = False
        for person in people:
            if person.phase() != "playing" or not person.my_turn():
                continue
            if (before is not None and before(person)) or person.click_a_move():
                clicks += 1
                moved = True
                if after is not None:
                    after(person, clicks)
        if not moved:
            # Nobody could move on the page they saw. Look again (one read per page): a
            # page may say it is my turn by now; else a page lags behind (wait until it
            # shows the newest seq); else wait on the page of the person to move, or, when
            # a bot or an AI moves next, for the next seq.
            states = [p.state() for p in people]
            if any(s["mine"] for s in states):
                continue
            top = max(s["seq"] for s in states)
            lagging = [p for p, s in zip(people, states, strict=True) if s["seq"] < top]
            movers = [p for p, s in zip(people, states, strict=True) if s["viewer"] in s["to_move"]]
            try:
                for person in lagging:
                    person.wait_seq(top)
                if not lagging:
                    (movers or people)[0].wait_change(top)
            except PlaywrightTimeout:
                raise AssertionError(stalled(people)) from None
