"""Turn notifications in the web client, in real Chromium against the real gateway: the
page registers its service worker (/sw.js, under the page's strict CSP), the tab's title
and icon count the tables waiting for me, the first seat I take offers push (its button
asks the browser's permission and keeps the subscription), the service worker shows a
push message as a notification, and a click on it opens the table.

Chromium's own push service is Google's, out of a test's reach, so the message is handed
to the service worker through DevTools (``ServiceWorker.deliverPushMessage``): this proves
the worker's side; the notifier's side (VAPID, RFC 8291 encryption, 410) is proven
against a push service on loopback (tests/test_notify.py). Nor can DevTools click a
system notification: the click is a ``notificationclick`` event dispatched inside the
running worker with the notification it showed. The browser lets a worker focus or open
a window only while it handles a trusted click, so for that script-made event the two
calls are stood in for (focus resolves, openWindow records its URL); the rest, the
worker's own handler, ``Clients.matchAll`` and ``WindowClient.navigate`` of the page,
is the browser's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis as sync_redis
from playwright.sync_api import Browser, Worker, expect

from notify.vapid import new_private_key, public_key
from orrery_contracts import keys
from tests.support.browser import Person, WebStack, connected, new_person, web_stack

# A web stack of its own: with the slow tests (the default run's browser checks share one).
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-notify"))) as started:
        yield started


@pytest.fixture(scope="module")
def browser(stack: WebStack, chromium_endpoint: str) -> Iterator[Browser]:
    with connected(chromium_endpoint) as started:
        yield started


def _my_turn(stack: WebStack, token: str) -> str:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=stack.url, headers=headers, timeout=30) as http:
        table: str = http.post("/v1/tables", json={"game": "tiny", "seats": 1}).json()["table_id"]
        assert http.post(f"/v1/tables/{table}/join", json={}).status_code == 200
        assert http.post(f"/v1/tables/{table}/start").status_code == 200
        deadline = time.monotonic() + 30  # until the views show it waits for me
        while not http.get("/v1/players/me/turns").json()["tables"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    return table


class DevTools:
    """A DevTools session on a person's page with its ServiceWorker domain on; the
    registration of the client's scope."""

    def __init__(self, person: Person, stack: WebStack) -> None:
        self.stack = stack
        self.cdp = person.context.new_cdp_session(person.page)
        registrations: list[dict[str, Any]] = []
        self.cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda event: registrations.extend(event["registrations"]),
        )
        self.cdp.send("ServiceWorker.enable")
        deadline = time.monotonic() + 30
        while not registrations and time.monotonic() < deadline:
            person.page.wait_for_timeout(50)
        (registration,) = [r for r in registrations if r["scopeURL"] == stack.url + "/"]
        self.registration = str(registration["registrationId"])

    def push(self, message: dict[str, Any]) -> None:
        """Hand the service worker a push message, as the push service would."""
        self.cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": self.stack.url + "/",
                "registrationId": self.registration,
                "data": json.dumps(message),
            },
        )


def _turn_message(table: str, url: str | None = None) -> dict[str, Any]:
    return {
        "type": "your_turn",
        "title": "Your turn — Orrery",
        "body": f"Tiny, table {table}",
        "url": url or f"/#/table/{table}",
        "tables": [table],
    }


def _worker(person: Person, stack: WebStack) -> Worker:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        running = [w for w in person.context.service_workers if w.url == f"{stack.url}/sw.js"]
        if running:
            return running[-1]
        person.page.wait_for_timeout(50)
    raise AssertionError("no service worker runs")


# The notifications the worker shows, with the URL each opens.
SHOWN = """() => self.registration.getNotifications().then((all) =>
  all.map((n) => ({title: n.title, body: n.body, url: n.data && n.data.url})))"""

# A click on the notification the worker shows: a notificationclick event with it,
# dispatched in the worker; what the worker focused, opened and left shown.
CLICK = """async () => {
  const focused = [];
  const opened = [];
  const focus = WindowClient.prototype.focus;
  const openWindow = Clients.prototype.openWindow;
  // allowed to the browser's own click only: stood in for
  WindowClient.prototype.focus = function () {
    focused.push(this.url);
    return Promise.resolve(this);
  };
  Clients.prototype.openWindow = function (url) {
    opened.push(url);
    return Promise.resolve(null);
  };
  try {
    const [notification] = await self.registration.getNotifications();
    const event = new NotificationEvent("notificationclick", { notification });
    const waits = [];
    // (a script-made event refuses waitUntil: the handler's promise is kept here)
    Object.defineProperty(event, "waitUntil", { value: (promise) => waits.push(promise) });
    self.dispatchEvent(event);
    await Promise.all(waits);
    const left = (await self.registration.getNotifications()).length;
    return { focused, opened, waited: waits.length, left };
  } finally {
    WindowClient.prototype.focus = focus;
    Clients.prototype.openWindow = openWindow;
  }
}"""


def _shown(worker: Worker, count: int = 1) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30  # its own wait, whatever the registration took
    while len(shown) < count and time.monotonic() < deadline:
        shown = worker.evaluate(SHOWN)
        time.sleep(0.05)
    return shown


def test_the_title_counts_my_turns_and_the_service_worker_shows_a_push(
    stack: WebStack, browser: Browser
) -> None:
    ann = new_person(stack, browser, "Ann")
    ann.context.grant_permissions(["notifications"], origin=stack.url)
    ann.sign_up()
    page = ann.page
    script = page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.active && r.active.scriptURL)"
    )
    assert script == f"{stack.url}/sw.js"
    table = _my_turn(stack, ann.token)
    ann.open("/games")  # a page change asks again at once
    assert not ann.errors, ann.errors
    expect(page).to_have_title("(1) Your turn — Orrery", timeout=30_000)
    assert page.evaluate("document.querySelector('link[rel=icon]').href").startswith(
        "data:image/png"
    )
    devtools = DevTools(ann, stack)
    shown: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60  # its own wait, whatever the registration took
    while not shown and time.monotonic() < deadline:
        # delivered again after a while unshown, as a push service retries (a worker
        # Chromium was just stopping may miss one); its tag keeps one notification
        devtools.push(_turn_message(table))
        again = time.monotonic() + 10
        while not shown and time.monotonic() < min(again, deadline):
            shown = page.evaluate(
                """navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) =>
                     all.map((n) => ({title: n.title, body: n.body, url: n.data && n.data.url})))"""
            )
            page.wait_for_timeout(50)
    assert shown == [{"title": "Your turn — Orrery", "body": f"Tiny, table {table}",
                      "url": f"/#/table/{table}"}]  # fmt: skip
    assert not ann.errors


def test_a_click_on_the_notification_opens_the_table(stack: WebStack, browser: Browser) -> None:
    cal = new_person(stack, browser, "Cal")
    cal.context.grant_permissions(["notifications"], origin=stack.url)
    cal.sign_up()
    page = cal.page
    page.evaluate("navigator.serviceWorker.ready.then(() => null)")
    devtools = DevTools(cal, stack)
    table = _my_turn(stack, cal.token)
    cal.open("/games")
    page.get_by_test_id("my-games-page").wait_for()

    # the client is open on another page: that window is focused and shows the table
    devtools.push(_turn_message(table))
    worker = _worker(cal, stack)
    assert [n["url"] for n in _shown(worker)] == [f"/#/table/{table}"]
    clicked = worker.evaluate(CLICK)
    (window,) = clicked.pop("focused")  # (the URL it was opened at: the hash may differ)
    assert window.startswith(stack.url + "/")
    assert clicked == {"opened": [], "waited": 1, "left": 0}
    page.wait_for_url(f"{stack.url}/#/table/{table}")
    cal.table().wait_for()

    # a link to elsewhere is never followed
    devtools.push(_turn_message(table, "https://elsewhere.example/#/x"))
    assert [n["url"] for n in _shown(worker)] == ["https://elsewhere.example/#/x"]
    clicked = worker.evaluate(CLICK)
    assert clicked == {"focused": [], "opened": [], "waited": 0, "left": 0}
    assert page.url == f"{stack.url}/#/table/{table}"

    # no window of the client open: one opens on the table
    page.goto("about:blank")
    devtools.push(_turn_message(table))
    worker = _worker(cal, stack)
    assert [n["url"] for n in _shown(worker)] == [f"/#/table/{table}"]
    clicked = worker.evaluate(CLICK)
    assert clicked == {
        "focused": [],
        "opened": [f"{stack.url}/#/table/{table}"],
        "waited": 1,
        "left": 0,
    }
    assert not cal.errors, cal.errors


# Stand-ins for the browser's side of the offer: its permission prompt (a headless
# browser has no one to answer it) and its push service (Google's, out of reach), which
# would hand the page a subscription for the key it asked with.
PUSH_BROWSER = r"""
window.pushAsked = 0;
window.pushKey = null;
Notification.requestPermission = async () => {
  window.pushAsked += 1;
  return "granted";
};
PushManager.prototype.subscribe = async function (options) {
  const key = String.fromCharCode(...new Uint8Array(options.applicationServerKey));
  window.pushKey = btoa(key).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return {
    toJSON: () => ({
      endpoint: "https://fcm.googleapis.com/fcm/send/" + window.pushKey.slice(0, 16),
      keys: { p256dh: "BKey", auth: "auth" },
    }),
  };
};
"""


def test_the_first_seat_offers_push_and_keeps_the_subscription(
    stack: WebStack, browser: Browser
) -> None:
    vapid = public_key(new_private_key())
    redis = sync_redis.Redis.from_url(stack.service.url)
    try:
        redis.set(keys.NOTIFY_VAPID, vapid)  # (what a running notifier publishes)
    finally:
        redis.close()
    bea = new_person(stack, browser, "Bea")
    bea.context.add_init_script(PUSH_BROWSER)
    bea.sign_up()
    page = bea.page
    assert page.evaluate("Notification.permission") == "default"
    # offered at a turn-based table only: none with a realtime clock
    paces = page.evaluate(
        """async () => {
            const { turnBased } = await import("/lib/notify.js");
            return [
                turnBased({ clock: null }),
                turnBased({ clock: { bank_ms: 600000, per_move_ms: 10000 } }),
                turnBased({ clock: { bank_ms: 0, per_move_ms: 86400000 } }),
            ];
        }"""
    )
    assert paces == [True, False, True]
    offer = page.get_by_test_id("push-offer")
    headers = {"Authorization": f"Bearer {bea.token}"}
    with httpx.Client(base_url=stack.url, headers=headers, timeout=30) as http:
        watched = http.post("/v1/tables", json={"game": "tiny", "seats": 2}).json()["table_id"]
        bea.open(f"/table/{watched}")  # watching a table: no offer
        bea.table().wait_for()
        page.wait_for_timeout(1000)
        assert offer.count() == 0
        assert http.post(f"/v1/tables/{watched}/join", json={}).status_code == 200
        bea.open("/games")
        bea.open(f"/table/{watched}")  # my first seat: the offer
        expect(offer).to_be_visible(timeout=30_000)
        assert page.evaluate("window.pushAsked") == 0  # nothing asked before the click
        page.get_by_test_id("push-yes").click()
        expect(offer).to_have_count(0)
        deadline = time.monotonic() + 30
        while http.get("/v1/players/me/notifications").json()["push_subscriptions"] == 0:
            assert time.monotonic() < deadline, "no subscription kept"
            time.sleep(0.05)
        assert page.evaluate("[window.pushAsked, window.pushKey]") == [1, vapid]
        # asked once: another seat offers nothing
        second = http.post("/v1/tables", json={"game": "tiny", "seats": 2}).json()["table_id"]
        assert http.post(f"/v1/tables/{second}/join", json={}).status_code == 200
        bea.open(f"/table/{second}")
        bea.table().wait_for()
        page.wait_for_timeout(1000)
        assert offer.count() == 0 and page.evaluate("window.pushAsked") == 1
    assert not bea.errors, bea.errors
