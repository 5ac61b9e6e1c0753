"""The table page's chat and Undo button in real Chromium against the real service: a
message appears live for a second player, a spectator's is marked, an XSS payload is
shown as text (and never runs), muting hides an author for me only, the keyboard sends;
the Undo button takes back a SPACEcraft leave and disappears when nothing is left."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.support.browser import Person, WebStack, new_person, web_stack

pytestmark = pytest.mark.browser

STEPS = ("sc.leave", "sc.choose_goal", "sc.visit", "sc.search")  # to the build step
XSS = '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>'


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-chat"))) as started:
        yield started


def seat(person: Person) -> None:
    person.page.get_by_test_id("join").click()
    seated(person)


def seated(person: Person) -> None:
    """Wait until the page shows the person's seat (a table's creator sits at once)."""
    person.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()


def say(person: Person, text: str) -> None:
    """Type a message and send it with the keyboard (Enter)."""
    box = person.page.get_by_test_id("chat-input")
    box.focus()
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def messages(person: Person) -> list[str]:
    texts: list[str] = person.page.eval_on_selector_all(
        "[data-testid=chat-log] li", "items => items.map(li => li.textContent)"
    )
    return texts


def test_chat_is_live_text_marked_and_mutable(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    ben = new_person(stack, browser, "Ben")
    eve = new_person(stack, browser, "Eve")
    for person in (ann, ben, eve):
        person.sign_up()
    table = ann.post("/v1/tables", {"game": "tiny", "seats": 2})["table_id"]
    ann.open(f"/table/{table}")
    seat(ann)
    ben.open(f"/table/{table}")
    seat(ben)
    eve.open(f"/table/{table}")
    eve.table().wait_for()
    log = ann.page.get_by_test_id("chat-log")
    expect(log).to_have_attribute("aria-live", "polite")

    say(ann, XSS)
    ben_log = ben.page.get_by_test_id("chat-log")
    mine = ben_log.locator("li[data-seat='0'] .chat-text")
    expect(mine).to_have_text(XSS)  # live, for a second player, as text
    assert ben_log.locator("img, script").count() == 0
    assert ben.page.evaluate("window.__xss") is None
    assert ann.page.evaluate("window.__xss") is None

    say(eve, "watching from the rail")
    from_eve = ann.page.get_by_test_id("chat-log").locator("li[data-spectator]")
    expect(from_eve).to_contain_text("watching from the rail")
    expect(from_eve).to_contain_text("spectator")
    expect(from_eve).to_contain_text(eve.name)

    # Ben mutes the spectator: hidden for Ben only
    ben_log.locator("li[data-spectator] .chat-mute").click()
    expect(ben_log.locator("li[data-spectator]")).to_contain_text("(muted)")
    expect(from_eve).to_contain_text("watching from the rail")
    # a refused message says why, on the page
    say(ann, "x" * 400)
    ann.page.get_by_test_id("chat-input").fill("")
    ann.page.evaluate(
        "() => { const i = document.querySelector('[data-testid=chat-input]');"
        " i.removeAttribute('maxlength'); i.value = 'y'.repeat(600); }"
    )
    ann.page.get_by_test_id("chat-send").click()
    expect(ann.page.get_by_test_id("chat-error")).not_to_be_empty()
    # the history is there after a reload, in order
    ben.page.reload()
    ben.table().wait_for()
    expect(ben.page.get_by_test_id("chat-log").locator("li")).to_have_count(3)
    texts = messages(ben)
    assert XSS in texts[0] and "(muted)" in texts[1] and "x" * 400 in texts[2]
    for person in (ann, ben, eve):
        assert not person.errors, person.errors
        person.context.close()


def test_the_undo_button_takes_back_a_move(stack: WebStack, browser: Browser) -> None:
    ann = new_person(stack, browser, "Ann")
    ann.sign_up()
    table = ann.create_table("spacecraft", 2)
    seated(ann)
    ann.page.get_by_test_id("add-bot").click()
    ann.page.locator("[data-testid=seats] li:nth-child(2) .name").filter(has_text="Bot").wait_for()
    ann.page.get_by_test_id("start").click()
    ann.wait_phase("playing")
    undo = ann.page.get_by_test_id("undo")
    while True:
        ann.wait_change(ann.seq())
        if not ann.my_turn():
            continue
        view = ann.api(f"/v1/tables/{table}/view")
        if ann.seq() < view["seq"]:
            ann.wait_seq(view["seq"])
        kinds = [c["type"] for c in view["legal"]]
        kind = next(
            k for k in ("sc.leave", "sc.choose_goal", "sc.visit", "sc.search") if k in kinds
        )
        assert undo.count() == 0  # nothing of this turn to take back yet
        before = ann.seq()
        # a button, or the thing on the board it chooses (a goal card is a click on it)
        ann.table().locator(f'[data-command^=\'{{"type":"{kind}"\']').first.click()
        ann.wait_seq(before + 1)
        if kind == "sc.leave":
            break
    left = ann.seq()
    expect(undo).to_be_visible()
    undo.focus()
    ann.page.keyboard.press("Enter")  # the keyboard works too
    ann.wait_seq(left + 1)
    expect(undo).to_have_count(0)
    leave = ann.table().locator(
        "button[data-command='" + json.dumps({"type": "sc.leave"}, separators=(",", ":")) + "']"
    )
    expect(leave).to_be_visible()
    view = ann.api(f"/v1/tables/{table}/view")
    assert view["seq"] == left + 1 and "sc.leave" in [c["type"] for c in view["legal"]]
    assert not ann.errors, ann.errors
    ann.context.close()
