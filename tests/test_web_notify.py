"""Turn notifications in the web client, in real Chromium against the real gateway: the
page registers its service worker (/sw.js, under the page's strict CSP), the tab's title
and icon count the tables waiting for me, and the service worker shows a push message as a
notification. Chromium's own push service is Google's, out of a test's reach, so the
message is handed to the service worker through DevTools
(``ServiceWorker.deliverPushMessage``): this proves the worker's side; the notifier's side
(VAPID, RFC 8291 encryption, 410) is proven against a push service on loopback
(tests/test_notify.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import WebStack, connected, new_person, web_stack

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

    cdp = ann.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 30
    while not registrations and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    (registration,) = [r for r in registrations if r["scopeURL"] == stack.url + "/"]
    message = {
        "type": "your_turn",
        "title": "Your turn — Orrery",
        "body": f"Tiny, table {table}",
        "url": f"/#/table/{table}",
        "tables": [table],
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": stack.url + "/",
            "registrationId": registration["registrationId"],
            "data": json.dumps(message),
        },
    )
    shown: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30  # its own wait, whatever the registration took
    while not shown and time.monotonic() < deadline:
        shown = page.evaluate(
            """navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) =>
                 all.map((n) => ({title: n.title, body: n.body, url: n.data && n.data.url})))"""
        )
        page.wait_for_timeout(50)
    assert shown == [{"title": "Your turn — Orrery", "body": f"Tiny, table {table}",
                      "url": f"/#/table/{table}"}]  # fmt: skip
    assert not ann.errors
