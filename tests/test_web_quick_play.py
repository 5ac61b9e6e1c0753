"""Quick play in the web client, in real Chromium against the real service, gateway and
matchmaker: two players who each click "Play now" for the same game land on the same
started table; "Find a game" with bots after a second opens a table with bots by itself;
a search shows the time waited and can be cancelled."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import WebStack, connected, new_person, web_stack

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-quick"))) as started:
        started.service.start(
            "matchmaker", ORRERY_SECRET_KEY=started.key, ORRERY_MATCHMAKER_CYCLE_S="0.2"
        )
        yield started


@pytest.fixture(scope="module")
def browser(stack: WebStack, chromium_endpoint: str) -> Iterator[Browser]:
    # (after the stack: its embedded server is prepared before Playwright's event loop runs)
    with connected(chromium_endpoint) as started:
        yield started


def seated_table(person: object) -> str:
    page = person.page  # type: ignore[attr-defined]
    page.wait_for_url("**/#/table/*")
    page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
    return str(page.url.rsplit("/", 1)[1].split("?")[0])


def test_two_players_clicking_play_now_land_on_one_started_table(
    stack: WebStack, browser: Browser
) -> None:
    ann = new_person(stack, browser, "Ann")
    bea = new_person(stack, browser, "Bea")
    for person in (ann, bea):
        person.sign_up()
    ann.page.get_by_test_id("play-now-spacecraft").click()
    expect(ann.page.get_by_test_id("quick-waiting")).to_be_visible()
    expect(ann.page.get_by_test_id("quick-elapsed")).to_have_text(re.compile(r"0:0[1-9]"))
    bea.page.get_by_test_id("play-now-spacecraft").click()
    tables = {seated_table(ann), seated_table(bea)}
    assert len(tables) == 1
    (table,) = tables
    detail = httpx.get(
        f"{stack.url}/v1/tables/{table}", headers={"Authorization": f"Bearer {ann.token}"}
    ).json()
    assert detail["state"] == "playing" and detail["bots"] == []
    assert sorted(p["name"] for p in detail["players"]) == sorted([ann.name, bea.name])
    assert not ann.errors and not bea.errors


def test_find_a_game_with_bots_opens_a_table_by_itself(stack: WebStack, browser: Browser) -> None:
    cai = new_person(stack, browser, "Cai")
    cai.sign_up()
    page = cai.page
    page.get_by_text("Find a game").first.click()
    page.get_by_test_id("find-game").select_option("fractured_sky")
    page.get_by_test_id("find-min").fill("3")
    page.get_by_test_id("find-max").fill("3")
    page.get_by_test_id("find-pace").select_option("turn_based")
    page.get_by_test_id("find-bots-after").fill("1")
    page.get_by_test_id("find-submit").click()
    table = seated_table(cai)
    detail = httpx.get(
        f"{stack.url}/v1/tables/{table}", headers={"Authorization": f"Bearer {cai.token}"}
    ).json()
    assert detail["state"] == "playing" and detail["seats"] == 3 and len(detail["bots"]) == 2


def test_a_search_can_be_cancelled(stack: WebStack, browser: Browser) -> None:
    dee = new_person(stack, browser, "Dee")
    dee.sign_up()
    page = dee.page
    page.get_by_test_id("play-now-federation").click()
    expect(page.get_by_test_id("quick-waiting")).to_be_visible()
    page.get_by_test_id("quick-cancel").click()
    expect(page.get_by_test_id("quick-waiting")).to_be_hidden()
    expect(page.get_by_test_id("quick-message")).to_have_text("Search cancelled.")
    mine = httpx.get(
        f"{stack.url}/v1/queue", headers={"Authorization": f"Bearer {dee.token}"}
    ).json()
    assert mine == {"tickets": []}
    expect(page.get_by_test_id("play-now-federation")).to_be_enabled()
