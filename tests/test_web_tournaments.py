"""Tournaments in the web client, in real Chromium against the real service, gateway and
matchmaker (whose organiser seats the rounds): a player organises one from the list,
another registers from the list, the organiser starts it, each sees their next table
linked, and the standings show once a round is paired."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import WebStack, connected, new_person, web_stack

# A web stack of its own: with the slow tests (the default run's browser checks share one).
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-tournaments"))) as started:
        started.service.start(
            "matchmaker",
            ORRERY_SECRET_KEY=started.key,
            ORRERY_TOURNAMENT_CYCLE_S="0.1",
            ORRERY_TOURNAMENT_LEASE_MS="1500",
        )
        yield started


@pytest.fixture(scope="module")
def browser(stack: WebStack, chromium_endpoint: str) -> Iterator[Browser]:
    with connected(chromium_endpoint) as started:
        yield started


def test_organise_register_start_and_find_my_table(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    bea = new_person(stack, browser, "Bea")
    for person in (ann, bea):
        person.sign_up()
    ann.page.get_by_test_id("nav-tournaments").click()
    form = ann.page.get_by_test_id("create-tournament")
    form.get_by_label("Game").fill("spacecraft")
    form.get_by_label("Seats a table").fill("2")
    form.get_by_role("button", name="Organise").click()
    ann.page.get_by_test_id("tournament-page").wait_for()
    ann.page.get_by_role("button", name="Register").click()
    expect(ann.page.get_by_text("You are registered.")).to_be_visible()
    tournament_id = ann.page.url.rsplit("/", 1)[1]

    bea.open("/tournaments")
    bea.page.locator(f"[data-key=register-{tournament_id}]").click()
    expect(bea.page.locator(f"[data-tournament={tournament_id}]")).to_contain_text("registered")

    ann.page.get_by_role("button", name="Start now").click()
    for person in (ann, bea):
        person.open(f"/tournament/{tournament_id}")
        expect(person.page.get_by_test_id("my-next-table")).to_be_visible(timeout=30_000)
        expect(person.page.get_by_test_id("tournament-standings")).to_contain_text("Buchholz")
    bea.page.get_by_test_id("my-next-table").get_by_role("link").click()
    bea.page.wait_for_url("**/#/table/*")
    bea.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
