"""The web client under the gateway's Content-Security-Policy, in real Chromium: the
policy is in force (an inline script is refused), and a person signs up, opens a
SPACEcraft table (whose junkyard grid is styled from script), takes a seat, adds a bot,
starts and sees the live table, with no policy violation and no session in any
WebSocket URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.support.browser import WebStack, new_person, web_stack

pytestmark = pytest.mark.browser

# Every CSP violation the page reports, kept for the test (added before the app's scripts).
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.effectiveDirective + ' ' + e.blockedURI));
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-csp"))) as started:
        yield started


def test_the_web_client_runs_under_a_strict_csp(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    ann.context.add_init_script(RECORD_VIOLATIONS)
    sockets: list[str] = []
    ann.page.on("websocket", lambda socket: sockets.append(socket.url))
    document: list[Any] = []
    ann.page.on("response", lambda r: document.append(r) if r.url.endswith("/") else None)
    ann.sign_up()
    assert document, "the page was loaded"
    policy = document[0].headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self';" in policy

    table = ann.post("/v1/tables", {"game": "spacecraft", "seats": 2})["table_id"]
    ann.open(f"/table/{table}")
    ann.page.get_by_test_id("join").click()
    ann.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
    ann.page.get_by_test_id("add-bot").click()
    ann.page.get_by_test_id("start").click()
    ann.wait_phase("playing")
    ann.page.get_by_test_id("connection").filter(has_text="Live").wait_for()
    # the grid's columns come from script (CSSOM): applied under the policy
    # (polled: a live re-render may swap the element between the lookup and the read)
    columns = ann.page.wait_for_function(
        "() => { const e = document.querySelector('.junkyard');"
        " const c = e && e.isConnected ? getComputedStyle(e).gridTemplateColumns : '';"
        " return c && c !== 'none' ? c : null; }"
    ).json_value()
    assert columns and columns != "none", columns
    assert ann.views(), "views arrived over the WebSocket"

    assert sockets and all("token" not in url for url in sockets), sockets
    assert ann.page.evaluate("window.__csp") == []
    assert not ann.errors, ann.errors

    # and the policy is really enforced: an injected inline script does not run
    ran = ann.page.evaluate(
        """() => { window.__ran = false; const s = document.createElement('script');
           s.textContent = 'window.__ran = true'; document.body.append(s);
           return window.__ran; }"""
    )
    assert ran is False
    ann.page.wait_for_function("window.__csp.length > 0")
    assert any(v.startswith("script-src") for v in ann.page.evaluate("window.__csp"))
    ann.context.close()
