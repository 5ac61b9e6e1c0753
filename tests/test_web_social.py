"""Players among players in real Chromium against the real service: the other seat's
presence dot turns online while their page is open, a friend request from a seat's menu
arrives as a notice the other accepts, the lobby lists the friend with their dot, and a
chat message is reported with its button."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import WebStack, new_person, web_stack

# A web stack of its own: with the slow tests (the default run's browser checks share one).
pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT_MS = 30_000


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-social"))) as started:
        yield started


def test_presence_friends_and_a_report_on_the_page(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    ben = new_person(stack, browser, "Ben")
    for person in (ann, ben):
        person.sign_up()
    ben_id = ben.api("/v1/players/me")["player_id"]
    table = ann.post("/v1/tables", {"game": "tiny", "seats": 2})["table_id"]
    ann.post(f"/v1/tables/{table}/join")
    ben.post(f"/v1/tables/{table}/join")
    ann.open(f"/table/{table}")
    ben.open(f"/table/{table}")
    ann.table().wait_for()
    ben.table().wait_for()

    # Ben's page is open: his seat's dot says so on Ann's page
    dot = ann.page.get_by_test_id(f"presence-{ben_id}")
    expect(dot).to_have_attribute("data-presence", "online", timeout=WAIT_MS)

    # Ann asks Ben to be friends from his seat's menu; Ben accepts the notice
    menu = ann.page.get_by_test_id(f"player-menu-{ben_id}")
    menu.locator("summary").click()
    menu.get_by_test_id("friend-action").click()
    expect(menu).to_contain_text("Friend request sent", timeout=WAIT_MS)
    notices = ben.page.get_by_test_id("notices")
    expect(notices).to_contain_text("asks to be your friend", timeout=WAIT_MS)
    notices.get_by_role("button", name="Accept").click()
    ann.page.wait_for_function(
        "async () => (await (await fetch('/v1/players/me/friends', {headers: {Authorization:"
        " 'Bearer ' + JSON.parse(localStorage.getItem('orrery.session')).token}})).json())"
        ".friends.length === 1",
        timeout=WAIT_MS,
    )

    # Ben says something rude; Ann reports it
    posted = ben.post(f"/v1/tables/{table}/chat", {"text": "a rude line"})
    report = ann.page.get_by_test_id(f"report-{posted['id']}")
    report.click()
    expect(report).to_have_text("Reported", timeout=WAIT_MS)
    expect(report).to_be_disabled()

    # the lobby lists the friend, with his dot
    ann.open("/")
    friend = ann.page.get_by_test_id(f"friend-{ben_id}")
    expect(friend).to_contain_text(ben.name, timeout=WAIT_MS)
    expect(friend.get_by_test_id(f"presence-{ben_id}")).to_have_attribute(
        "data-presence", "online", timeout=WAIT_MS
    )
    for person in (ann, ben):
        assert not person.errors, person.errors
        person.context.close()
