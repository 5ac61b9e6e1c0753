"""The table page tells what happened in a player's words, in real Chromium against the
run's shared gateway (no bots: two people, Fractured Sky's built-in opponent).

Another player's undo is told as one in my move log ("Ann took back their last move"),
whoever took it; another player's last move is marked on my board in their colour, and
the pieces of a move that just arrived pulse, except for a reader who asks for reduced
motion; when the turn becomes mine the page plays a tone and the tab's title says so; a
build names only regions in play at this player count; the lobby names the opponents'
difficulty only for tables that have opponents; the replay says "step", never "seq", and
its "just before" list leaves no step out; the final standings share a place as "=1" and
show each participant's score in parts (slow: a whole game, the rules' own parts).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from orrery_contracts.fractured_sky import catalogue as fs
from tests.support.browser import Person, new_person
from tests.support.gateway import LiveGateway
from tests.test_web_layout import axe_violations

pytestmark = pytest.mark.browser

TAKE_BACK = "took back their last move"

# Counts the tones the page starts (lib/turn.js plays one when the turn becomes mine).
COUNT_TONES = """() => {
window.__tones = 0;
if (window.AudioContext) {
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    createOscillator() {
      const tone = super.createOscillator();
      const start = tone.start.bind(tone);
      tone.start = (...at) => { window.__tones += 1; return start(...at); };
      return tone;
    }
  };
}
}"""


def command(person: Person, table: str, body: dict[str, Any]) -> None:
    outcome = person.post(
        f"/v1/tables/{table}/commands", {"command_id": uuid.uuid4().hex, "body": body}
    )
    assert outcome["outcome"] == "accepted", outcome


def view(person: Person, table: str) -> dict[str, Any]:
    found: dict[str, Any] = person.api(f"/v1/tables/{table}/view")
    return found


def first_legal(person: Person, table: str, kind: str) -> dict[str, Any]:
    return next(b for b in view(person, table)["legal"] if b["type"] == kind)


def words_on(person: Person) -> str:
    """Everything the table page says: its text and its elements' accessible names."""
    said: str = person.page.evaluate(
        """() => { const t = document.querySelector('[data-testid=table]');
            return t.innerText + ' ' + [...t.querySelectorAll('[aria-label]')]
                .map((e) => e.getAttribute('aria-label')).join(' '); }"""
    )
    return said


def test_another_players_undo_and_last_move_are_told_and_marked(
    live: LiveGateway, browser: Browser
) -> None:
    ann, bob = new_person(live, browser, "Ann"), new_person(live, browser, "Bob")
    for person in (ann, bob):
        person.sign_up()
    # the lobby: a 3-player table made with a difficulty has no opponents to name
    crowded = ann.post(
        "/v1/tables",
        {"game": "fractured_sky", "seats": 3, "options": {"difficulty": "hard"}},
    )["table_id"]
    table = ann.create_table("fractured_sky", 2)
    ann.open("/")
    rows = ann.page.get_by_test_id("table-list")
    expect(rows.locator(f"[data-table='{table}']")).to_contain_text("Automated opponents")
    expect(rows.locator(f"[data-table='{crowded}']")).not_to_contain_text("Automated")

    bob.post(f"/v1/tables/{table}/join", {})
    ann.post(f"/v1/tables/{table}/start")
    for person in (ann, bob):
        person.open(f"/table/{table}")
        person.wait_phase("playing")
        person.page.evaluate(COUNT_TONES)
    seat = {ann.name: view(ann, table)["viewer"], bob.name: view(bob, table)["viewer"]}
    for person in (ann, bob):
        command(person, table, first_legal(person, table, "fs.choose_start"))
    mover, watcher = (ann, bob) if seat[ann.name] in view(ann, table)["to_move"] else (bob, ann)
    mover.wait_seq(view(mover, table)["seq"])

    # two regions leave a table of three participants (two seats, an opponent): no word
    # on the page names them
    removed = [r.name for r in fs.REGIONS if r.index not in fs.active_regions(3)]
    assert len(removed) == 2
    said = words_on(mover)
    assert "Platform 1 (bridges " in said
    assert not [name for name in removed if name in said], removed

    # an undo is told as one, to the other player too
    command(mover, table, first_legal(mover, table, "fs.trade"))
    command(mover, table, {"type": "table.undo"})
    log = watcher.page.get_by_test_id("move-log")
    expect(log).to_contain_text(f"{mover.name} {TAKE_BACK}.")
    expect(mover.page.get_by_test_id("move-log")).to_contain_text("You took back your last move.")

    # the mover's airship is marked on the other's board, in the mover's colour; it ends
    # the mover's turn (the automated opponent moves at once): the other's turn comes, told
    # by a tone and the tab's title (never by the page's first drawing)
    assert watcher.page.evaluate("window.__tones") == 0
    command(mover, table, first_legal(mover, table, "fs.place_airship"))
    assert seat[watcher.name] in view(watcher, table)["to_move"]
    marked = watcher.page.locator(f"[data-testid=board] [data-last-move-by='{seat[mover.name]}']")
    expect(marked.first).to_be_attached()
    # ringed: its shapes, never its words
    rings = marked.first.evaluate(
        """(e) => [...e.querySelectorAll('rect, circle, polygon, text')]
            .map((n) => [n.tagName, getComputedStyle(n).filter])"""
    )
    assert any(tag != "text" and "drop-shadow" in f for tag, f in rings), rings
    assert all(f == "none" for tag, f in rings if tag == "text"), rings
    # ... never on the mover's own board
    assert not mover.page.locator("[data-testid=board] [data-last-move-by]").count()
    # the pieces pulse once, unless the reader asked for less motion
    pulse = """() => [...document.querySelectorAll('[data-testid=board] .just-moved')]
        .map((e) => getComputedStyle(e).animationName)"""
    watcher.page.emulate_media(reduced_motion="reduce")
    assert set(watcher.page.evaluate(pulse)) == {"none"}
    watcher.page.emulate_media(reduced_motion="no-preference")
    assert set(watcher.page.evaluate(pulse)) == {"just-moved"}
    watcher.page.wait_for_function("() => window.__tones === 1")
    expect(watcher.page).to_have_title(re.compile("Your turn"))

    # the replay: steps, never seqs, and every step before this one told
    watcher.open(f"/table/{table}/replay")
    watcher.page.get_by_test_id("replay-slider").wait_for()
    shown = watcher.page.get_by_test_id("replay-seq")
    expect(shown).to_have_text(re.compile(r"^step \d+ / \d+$"))
    step = int(shown.inner_text().split()[1])
    story = watcher.page.get_by_test_id("replay-log")
    earlier = story.locator("details li")
    expect(earlier).to_have_count(min(5, step - 1))
    for line in earlier.all_inner_texts():
        assert re.match(r"^Step \d+: \S", line) and "seq" not in line.lower(), line
    expect(story).to_contain_text(TAKE_BACK)
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
    ann.context.close()
    bob.context.close()


def test_final_places_shared_and_the_score_in_parts(live: LiveGateway, browser: Browser) -> None:
    """The standings panel from a view's lines: a shared place reads "=1", and the parts
    make a table with a column per participant and the totals."""
    ann = new_person(live, browser, "Ann")
    ann.open("/")
    ann.page.locator("main").wait_for()
    shown = ann.page.evaluate(
        """async () => {
          const { standingsPanel } = await import('/components/standings.js');
          const part = (key, label, points) => ({key, label, points});
          const line = (seat, points, rank, parts, ai = false) => ({
              seat: ai ? null : seat, participant: seat, name: ai ? 'Black AI' : null,
              points, rank, ai, left: false, parts});
          const view = {viewer: 0, standing: {points: [5, 5], ranks: [1, 1]}, standings: [
              line(0, 5, 1, [part('regions', 'Regions', 3), part('objectives', 'Objectives', 2)]),
              line(1, 5, 1, [part('regions', 'Regions', 5), part('objectives', 'Objectives', 0)]),
              line(2, 4, 3, [part('regions', 'Regions and market card', 4),
                             part('objectives', 'Objectives', 0)], true)]};
          const [places, parts] = standingsPanel(view, (s) => ['Ann', 'Bob'][s], 't1');
          document.body.append(places, parts);
          const cells = (row) => [...row.children].map((c) => c.textContent);
          return {ranks: [...places.querySelectorAll('[data-testid=final-rank]')]
                      .map((e) => e.textContent),
                  rows: [...parts.querySelectorAll('[data-testid=score-breakdown] tr')]
                      .map(cells)};
        }"""
    )
    assert shown["ranks"] == ["=1", "=1", "3"]
    assert shown["rows"] == [
        ["Part", "Ann", "Bob", "Black AI (automated opponent)"],
        ["Regions", "3", "5", "4"],
        ["Objectives", "2", "0", "0"],
        ["Total", "5", "5", "4"],
    ]
    ann.context.close()


@pytest.mark.slow
def test_a_finished_game_shows_the_rules_parts(live: LiveGateway, browser: Browser) -> None:
    """A solo Fractured Sky game played to the end through the API: the page's breakdown
    is the rules' (each column adds up to the participant's points), and axe-core finds
    nothing serious on the finished page."""
    ann = new_person(live, browser, "Ann")
    ann.sign_up()
    table = ann.post(
        "/v1/tables", {"game": "fractured_sky", "seats": 1, "options": {"difficulty": "easy"}}
    )["table_id"]
    ann.post(f"/v1/tables/{table}/join", {})
    ann.post(f"/v1/tables/{table}/start")
    for _ in range(2000):
        now = view(ann, table)
        if now["phase"] == "finished":
            break
        moves = [b for b in now["legal"] if not b["type"].startswith("table.")]
        command(ann, table, ann.rng.choice(moves))
    ann.open(f"/table/{table}")
    ann.page.get_by_test_id("standings").wait_for()
    lines = view(ann, table)["standings"]
    for line in lines:
        column = ann.page.locator(
            f"[data-testid=score-breakdown] td[data-participant='{line['participant']}']"
        ).all_inner_texts()
        assert [int(n) for n in column[:-1]] == [p["points"] for p in line["parts"]]
        assert sum(int(n) for n in column[:-1]) == int(column[-1]) == line["points"]
    assert not axe_violations(ann), axe_violations(ann)
    assert not ann.errors, ann.errors
    ann.context.close()
