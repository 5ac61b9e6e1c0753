"""The web client's lobby, accounts, private tables, live reconnects, keyboard use and
phone-sized screens, in real Chromium against the real service. Games here are real
where the lobby needs them (the create form offers the real games) and the platform's
tiny test game where any game will do (drawn by the generic renderer)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from tests.support.browser import (
    PASSWORD,
    Person,
    WebStack,
    new_person,
    screenshot_dir,
    web_stack,
)

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 390, "height": 844}

# Every control's accessible name (a button's text or aria-label, a field's label).
UNNAMED = """() => [...document.querySelectorAll('button, a[href], input, select, textarea')]
  .filter(e => !e.closest('[hidden]'))
  .filter(e => {
    const name = (e.getAttribute('aria-label') || e.textContent || e.title || '').trim();
    const labelled = e.labels && [...e.labels].some(l => l.textContent.trim());
    const by = e.getAttribute('aria-labelledby');
    return !(name || labelled || (by && document.getElementById(by)));
  })
  .map(e => e.outerHTML.slice(0, 120))"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-lobby"))) as started:
        yield started


def shoot(person: Person, name: str) -> None:
    path = screenshot_dir(Path(person.stack.log_path).parent) / f"{name}.png"
    person.page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


def unnamed_controls(person: Person) -> list[str]:
    found: list[str] = person.page.evaluate(UNNAMED)
    return found


def sideways(person: Person) -> int:
    overflow: int = person.page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return overflow


def test_sign_up_with_the_keyboard_then_sign_in_again(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    ann.open("/")
    page = ann.page
    # The name field has the focus; type, Tab to the password, Enter submits (sign up).
    page.get_by_test_id("signup-name").wait_for()
    page.keyboard.type(ann.name)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.get_by_test_id("lobby").wait_for()
    assert page.get_by_test_id("signed-in-as").inner_text() == ann.name
    assert not unnamed_controls(ann)
    # The same name again is refused with the API's message; signing in works.
    page.get_by_test_id("sign-out").click()
    page.get_by_test_id("signup-name").fill(ann.name.upper())
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_test_id("auth-message")).to_contain_text("taken", ignore_case=True)
    # A name over the limit is told, not cut short.
    page.get_by_test_id("signup-name").fill("x" * 45)
    expect(page.get_by_test_id("auth-message")).to_contain_text("at most 40 characters")
    assert page.get_by_test_id("signup-name").input_value() == "x" * 45
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_test_id("auth-message")).to_contain_text("this one has 45")
    page.get_by_test_id("signup-name").fill(ann.name.upper())
    page.get_by_test_id("signup-password").fill("not the password")
    page.get_by_test_id("signin-submit").click()
    expect(page.get_by_test_id("auth-message")).to_contain_text(
        "name or password", ignore_case=True
    )
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signin-submit").click()
    page.get_by_test_id("lobby").wait_for()
    assert not ann.errors, ann.errors
    ann.context.close()


def test_private_table_needs_its_invite_and_the_lobby_lists_public_ones(
    stack: WebStack, browser: Browser
) -> None:
    ann, bob = new_person(stack, browser, "Ann"), new_person(stack, browser, "Bob")
    for person in (ann, bob):
        person.sign_up()
    public = ann.create_table("spacecraft", 3, {"variant": "advanced"}, sit=False)
    secret = ann.create_table(
        "federation", 2, {"president_medal": "intrigue"}, private=True, sit=False
    )
    invite = ann.page.get_by_test_id("invite-link").input_value()
    assert f"/table/{secret}?invite=" in invite
    # The creator adds a bot of a level she chooses before taking a seat; then sits down.
    assert ann.page.get_by_test_id("bot-level").input_value() == "greedy"
    ann.page.get_by_test_id("bot-level").select_option("ismcts")
    ann.page.get_by_test_id("add-bot").click()
    first = ann.page.locator("[data-testid=seats] li:first-child")
    first.locator(".name").filter(has_text="Bot (ismcts)").wait_for()
    expect(ann.page.get_by_test_id("bot-0")).to_have_text(" (bot: ismcts)")
    assert ann.page.get_by_test_id("bot-level").input_value() == "ismcts"  # kept

    # Bob's lobby lists the public table with its seats and options, never the private one.
    bob.open("/")
    listed = bob.page.get_by_test_id("table-list").locator(f"[data-table='{public}']")
    listed.wait_for()
    # options in the catalogue's words, not their keys
    assert "0/3 seats" in listed.inner_text()
    assert "Design cards: Advanced" in listed.inner_text() and "variant" not in listed.inner_text()
    assert not bob.page.locator(f"[data-table='{secret}']").count()
    shoot(bob, "lobby")
    bob.page.get_by_test_id("create-game").select_option("federation")  # the form follows
    assert bob.page.get_by_test_id("create-seats").get_attribute("max") == "4"

    # Without the invite Bob's join is refused, with the API's message.
    bob.open(f"/table/{secret}")
    bob.page.get_by_test_id("join").click()
    message = bob.page.get_by_test_id("message")
    message.filter(has_text="invite").wait_for()
    # With the invite link he takes the last seat; Ann, watching, sees it live.
    ann.open(f"/table/{secret}")
    ann.page.get_by_test_id("spectating").wait_for()
    bob.page.goto(invite)
    bob.table().wait_for()
    bob.page.get_by_test_id("join").click()
    bob.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
    ann.page.locator("[data-testid=seats]").filter(has_text=bob.name).wait_for()
    # Every seat is taken: Bob starts; "my tables" offers to resume.
    bob.page.get_by_test_id("start").click()
    ann.wait_phase("playing")
    bob.open("/")
    mine = bob.page.get_by_test_id("my-tables").locator(f"[data-table='{secret}']")
    mine.wait_for()
    assert "Resume" in mine.inner_text()
    for person in (ann, bob):
        assert not person.errors, person.errors
        person.context.close()


def test_reconnect_resumes_and_the_generic_drawing_plays_the_tiny_game(
    stack: WebStack, browser: Browser
) -> None:
    ann, bob = new_person(stack, browser, "Ann"), new_person(stack, browser, "Bob")
    for person in (ann, bob):
        person.sign_up()
    table = ann.post("/v1/tables", {"game": "tiny", "seats": 2})["table_id"]
    ann.open(f"/table/{table}")
    ann.page.get_by_test_id("join").focus()
    ann.page.keyboard.press("Enter")  # a keyboard press takes the seat
    ann.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()
    # Focus stays on the control across live updates (Bob joins meanwhile).
    ann.page.get_by_test_id("add-bot").focus()
    bob.post(f"/v1/tables/{table}/join", {})
    ann.page.locator("[data-testid=seats]").filter(has_text=bob.name).wait_for()
    ann.page.get_by_test_id("start").wait_for()
    assert ann.page.evaluate("document.activeElement.dataset.key") in ("start", "add-bot", None)
    ann.page.get_by_test_id("start").click()
    ann.wait_phase("playing")
    assert not unnamed_controls(ann)

    # The gateway restarts: the page says so, reconnects and resumes after its last seq.
    shown = ann.seq()
    frames_before = len(ann.frames)
    stack.stop_gateway()
    ann.page.get_by_test_id("connection").filter(has_text="Reconnecting").wait_for()
    stack.start_gateway(stack.port)
    ann.page.get_by_test_id("connection").filter(has_text="Live").wait_for()
    while ann.phase() == "playing":
        view = bob.api(f"/v1/tables/{table}/view")
        if bob_turn := (view["viewer"] in view["to_move"]):
            bob.post(
                f"/v1/tables/{table}/commands",
                {"command_id": f"b{view['seq']}", "body": {"type": "tiny.stand"}},
            )
        if ann.my_turn():
            assert ann.click_a_move()
        elif not bob_turn:
            ann.wait_change(ann.seq())
    resumed = [f["seq"] for f in ann.frames[frames_before:] if f.get("type") == "view"]
    assert resumed and min(resumed) > shown, (shown, resumed)
    ann.page.get_by_test_id("standings").wait_for()
    # (Chromium logs the reconnect attempts made while the gateway was away.)
    assert not [e for e in ann.errors if "ERR_CONNECTION_REFUSED" not in e], ann.errors
    for person in (ann, bob):
        person.context.close()


def test_phone_sized_pages_fit_and_every_control_is_named(
    stack: WebStack, browser: Browser
) -> None:
    dan = new_person(stack, browser, "Dan", viewport=PHONE, mobile=True)
    dan.sign_up()
    assert sideways(dan) <= 1
    assert not unnamed_controls(dan)
    # an empty leaderboard says which games are rated
    empty = dan.page.get_by_test_id("leaderboard-empty")
    said = empty.inner_text()
    assert "signed-in players" in said and "bots" in said and "two of them" in said
    for game, seats in (("fractured_sky", 1), ("spacecraft", 2), ("federation", 2)):
        dan.create_table(game, seats)  # the creator sits down at once
        for _ in range(seats - 1):
            dan.page.get_by_test_id("add-bot").click()
        dan.page.get_by_test_id("start").click()
        dan.wait_phase("playing")
        dan.page.locator("[data-testid=table][data-my-turn]").wait_for()
        assert sideways(dan) <= 1, game
        assert not unnamed_controls(dan), game
        assert dan.move_controls().count() > 0
    assert not dan.errors, dan.errors
    dan.context.close()


def test_my_games_lists_a_finished_game_and_opens_its_replay(
    stack: WebStack, browser: Browser
) -> None:
    import contextlib
    import re
    import time

    import httpx

    ann = new_person(stack, browser, "Ann")
    ann.sign_up()
    table = ann.post("/v1/tables", {"game": "tiny", "seats": 2})["table_id"]
    ann.post(f"/v1/tables/{table}/join", {})
    ann.post(f"/v1/tables/{table}/bots", {})
    ann.post(f"/v1/tables/{table}/start")
    deadline = time.monotonic() + 120
    while (view := ann.api(f"/v1/tables/{table}/view"))["phase"] != "finished":
        assert time.monotonic() < deadline, view
        if view["viewer"] in view["to_move"]:  # Ann stands; the bot plays its own seat
            body = {"command_id": f"a{view['seq']}", "body": {"type": "tiny.stand"}}
            # (refused when decided on a view the bot had moved past: look again)
            with contextlib.suppress(httpx.HTTPStatusError):
                ann.post(f"/v1/tables/{table}/commands", body)
        else:
            time.sleep(0.1)
    ann.page.get_by_test_id("nav-my-games").click()
    row = ann.page.locator(f"[data-testid=my-games] li[data-table='{table}']")
    row.wait_for()
    expect(row).to_contain_text("(bot)")
    row.get_by_role("link", name=re.compile("^Replay")).click()
    ann.page.locator("[data-testid=table][data-replay]").wait_for()
    assert not unnamed_controls(ann)
    assert not ann.errors, ann.errors
    ann.context.close()


def test_a_second_tab_signing_in_as_someone_else_is_noticed(
    stack: WebStack, browser: Browser
) -> None:
    """Two tabs share the browser's session: when the second signs in as another account,
    the first follows at once (and says so) instead of showing the old seat."""
    ann = new_person(stack, browser, "Ann")
    ann.sign_up()
    table = ann.create_table("spacecraft", 2)
    assert ann.attr("data-viewer") == "0"
    other = ann.context.new_page()
    other.goto(stack.url + "/#/")
    other.get_by_test_id("sign-out").click()
    bob_name = "Bob" + ann.name[3:]
    other.get_by_test_id("signup-name").fill(bob_name)
    other.get_by_test_id("signup-password").fill(PASSWORD)
    other.get_by_test_id("signup-submit").click()
    other.get_by_test_id("lobby").wait_for()
    # the first tab now shows Bob, on the same table page, as a spectator of Ann's seat
    expect(ann.page.get_by_test_id("signed-in-as")).to_have_text(bob_name)
    expect(ann.page.get_by_test_id("account-notice")).to_contain_text(f"Signed in as {bob_name}")
    ann.page.locator(f"[data-testid=table][data-table='{table}'][data-viewer=spectator]").wait_for()
    other.get_by_test_id("sign-out").click()
    expect(ann.page.get_by_test_id("account-notice")).to_contain_text("Signed out")
    assert not ann.errors, ann.errors
    ann.context.close()
