"""The web client plays every game in real Chromium against the real service (embedded
Valkey, worker, projector, gateway, bot runner).

For each game: a person plays a complete game against server bots by clicking legal-move
controls (SPACEcraft's and Federation's first 20 moves only, unless ``pytest -m slow``);
two people play a 2-seat game in two browser contexts while a third (on a
phone-sized screen) watches and sees every update (SPACEcraft's and Federation's marked
slow: ``pytest -m slow``); the replay slider shows the right
seq, as a spectator and as a seat; the standings show at the end. Seat B's page never
holds seat A's private values (every WebSocket frame and the DOM), and each frame is
exactly B's own view. Screenshots of each table page are written for docs/ (see
tests/support/browser.py, ORRERY_WEB_SCREENSHOTS).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from orrery_contracts import keys
from tests.support.browser import (
    Person,
    WebStack,
    new_person,
    play_until_finished,
    screenshot_dir,
    web_stack,
)
from tests.support.service import PARTITIONS

pytestmark = pytest.mark.browser

CATALOGUE = Path(__file__).resolve().parents[1] / "clients" / "web" / "catalogue"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    with web_stack(Path(tmp_path_factory.mktemp("web-games"))) as started:
        yield started


def seated(person: Person) -> None:
    person.page.get_by_test_id("join").click()
    person.page.locator("[data-testid=table]:not([data-viewer=spectator])").wait_for()


def start(person: Person) -> None:
    person.page.get_by_test_id("start").click()
    person.wait_phase("playing")


def check_standings(person: Person, table: str) -> dict[str, Any]:
    view: dict[str, Any] = person.api(f"/v1/tables/{table}/view")
    assert view["phase"] == "finished" and view["standing"]
    box = person.page.get_by_test_id("standings")
    box.wait_for()
    rows = box.locator("tbody tr")
    assert rows.count() == len(view["standings"]) >= len(view["seats"])
    text = box.inner_text()
    for seat, points in enumerate(view["standing"]["points"]):
        assert str(points) in text, (seat, points, text)
    return view


def no_page_errors(*people: Person) -> None:
    for person in people:
        assert not person.errors, person.errors


def no_horizontal_scroll(person: Person) -> None:
    overflow = person.page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    wide = person.page.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > innerWidth + 1).slice(0, 5)
            .map(e => `${e.tagName}.${e.className} ${e.getBoundingClientRect().right}`)"""
    )
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px on a phone: {wide}"


def shoot(person: Person, name: str, fallback: Path) -> None:
    """The first screen, as a person sees it on opening the page."""
    person.page.evaluate("window.scrollTo(0, 0)")
    path = screenshot_dir(fallback) / f"{name}.png"
    person.page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


def shoot_both(person: Person, name: str) -> None:
    """The page as it is (1280×900, first screen) and on a phone (390 px wide, whole page,
    which must not scroll sideways); each saved as a test artefact (screenshot_dir)."""
    page = person.page
    page.evaluate("window.scrollTo(0, 0)")
    path = screenshot_dir() / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
    page.set_viewport_size(PHONE)
    try:
        person.table().wait_for()
        no_horizontal_scroll(person)
        path = screenshot_dir() / f"{name}-390.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000
    finally:
        page.set_viewport_size(DESKTOP)


def first_screen(person: Person) -> None:
    """At 1280×900 the board, my hand and my moves begin in the first screen."""
    tops = person.page.evaluate(
        """() => ['[data-testid=board]', '[data-testid=private]', '[data-testid=side]']
            .map(s => document.querySelector(s))
            .map(e => e ? e.getBoundingClientRect().top + scrollY : null)"""
    )
    board, hand, side = tops
    assert board is not None and board < 400, tops
    assert side is not None and side < 400, tops
    assert hand is None or hand < 900, tops


# Every control has an accessible name: buttons, links, fields, and the drawn board's
# elements (each an image or a button with an aria-label).
UNNAMED = """() => [...document.querySelectorAll(
    'button, a[href], input, select, textarea, [role=button], [role=img], [tabindex]')]
  .filter(e => !e.closest('[hidden]'))
  .filter(e => {
    const name = (e.getAttribute('aria-label') || (e.tagName === 'svg' || e.closest('svg') ? ''
                  : e.textContent) || e.title || '').trim();
    const labelled = e.labels && [...e.labels].some(l => l.textContent.trim());
    const by = e.getAttribute('aria-labelledby');
    return !(name || labelled || (by && document.getElementById(by)));
  })
  .map(e => e.outerHTML.slice(0, 120))"""


def named_everywhere(person: Person) -> None:
    unnamed = person.page.evaluate(UNNAMED)
    assert not unnamed, unnamed
    board = person.page.get_by_test_id("board")
    assert board.get_attribute("aria-label"), "the board has no accessible name"
    for control in person.board_controls().all()[:40]:
        assert control.get_attribute("role") == "button"
        assert control.get_attribute("tabindex") == "0"


SCORE_LINES = """() => [...document.querySelectorAll('[data-testid=seats] [data-testid^=score-]')]
  .map(e => [Number(e.dataset.testid.split('-')[1]), e.textContent])"""


def scores_match_the_scoreboard(person: Person, table: str) -> bool:
    """The points each seat shows equal the scoreboard projection's at the seq shown
    (False when the scoreboard is at another seq: nothing to compare)."""
    seq = person.seq()
    shown = dict(person.page.evaluate(SCORE_LINES))
    if person.seq() != seq:
        return False
    key = keys.score_key(keys.partition_of(table, PARTITIONS), table)
    raw = person.stack.service.sync_redis().get(key)
    if raw is None:
        return False
    board = json.loads(raw)
    if board["seq"] != seq:
        return False
    for line in board["lines"]:
        assert shown[line["seat"]].startswith(f"{line['points']} pt"), (seq, shown, board)
    return True


# ---------------------------------------------------------------- against bots


def spacecraft_order(person: Person) -> bool:
    """The multi-step workshop order: choose a part, a payment and a cell. A cell touching
    nothing is refused with the service's message; with automatic placement it builds."""
    page = person.page
    order = page.get_by_test_id("assembly")
    offered = person.table().locator("button[data-command*='\"sc.build\"']:not([data-composed])")
    if not order.count() or not offered.count():
        return False
    body = json.loads(offered.first.get_attribute("data-command") or "{}")
    order.locator("#sc-order-part").select_option(str(body["slot"]))
    for junk in sorted(set(body["pay"])):
        order.get_by_label(junk, exact=False).fill(str(body["pay"].count(junk)))
        order.get_by_label(junk, exact=False).dispatch_event("change")
    cells = order.locator("button.cell:not(.part)[aria-label^='Put the new']")
    far = cells.first  # the top-left corner of the padded grid: touches no part
    far.click()
    build = order.locator("button[data-composed][data-command*='\"sc.build\"']")
    composed = json.loads(build.get_attribute("data-command") or "{}")
    assert composed["slot"] == body["slot"] and sorted(composed["pay"]) == sorted(body["pay"])
    assert composed["layout"], composed
    seq = person.seq()
    build.click()
    person.table().and_(page.locator("[data-outcome=rejected]")).wait_for()
    assert page.get_by_test_id("message").inner_text().strip()
    assert person.seq() == seq
    # The same order with automatic placement (click the chosen cell again to clear it).
    order.locator("button.cell.selected").click()
    build = order.locator("button[data-composed][data-command*='\"sc.build\"']")
    assert json.loads(build.get_attribute("data-command") or "{}")["layout"] is None
    build.click()
    person.table().and_(page.locator("[data-outcome=accepted]")).wait_for()
    person.wait_seq(seq + 1)
    return True


LOOKS = "[data-command*='\"fs.scout\"'], [data-command*='\"fs.peek\"']"


def fs_look_on_the_board(person: Person, looked: dict[str, int]) -> bool:
    """Fractured Sky: the first time the board offers a scout or a peek (a secret
    stardust card or an objective drawn under the track), click it; then finish the scout
    on the board too (the scouted card's region offers what to take)."""
    board = person.board_controls()
    takes = board.and_(person.page.locator("[data-command*='\"fs.scout_take\"']"))
    if looked["made"] == 1 and takes.count():
        assert takes.first.get_attribute("data-region") is not None
        looked["made"] += 1
        person.click_control(takes.first)
        return True
    looks = board.and_(person.page.locator(LOOKS))
    # an objective with more than one way to pay: a click on it, then on a payment
    picks = person.table().locator("[data-testid=board] [data-pick][data-objective]")
    if not looks.count() and not picks.count():
        return False
    looked["offered"] += 1
    if looked["made"]:
        return False
    # a peek turn's first screen: the board, my moves and my hand, no list of objective ×
    # payment buttons beside the board
    first_screen(person)
    off_board = person.table().locator("button[data-command*='\"fs.peek\"']")
    assert not off_board.count(), off_board.first.get_attribute("aria-label")
    looked["made"] += 1
    if not looks.count():
        picks.first.click()
        person.click_control(person.page.get_by_test_id("payment").locator("button").first)
        return True
    control = looks.first
    assert control.get_attribute("data-secret") or control.get_attribute("data-objective")
    person.click_control(control)
    return True


def overflowing_structure_labels(person: Person) -> list[str]:
    """Federation's structure boxes: the labels drawn wider than their box."""
    found: list[str] = person.page.evaluate(
        """() => [...document.querySelectorAll('.board [data-structure]')].flatMap((g) => {
            const box = g.querySelector('rect').getBBox();
            return [...g.querySelectorAll('text')]
              .filter((t) => { const b = t.getBBox(); return b.x + b.width > box.x + box.width; })
              .map((t) => t.textContent);
        })"""
    )
    return found


# SPACEcraft's and Federation's whole games take 20–31 s each: the default run plays
# SPACEcraft's first MOVES_BY_DEFAULT moves (10–13 s: the board, the keyboard, its refused
# order and its scores, the mid-game screenshot), the slow one both games' first moves and
# whole games (the standings, the move log's last entry, the end screenshot; Federation's
# board in play is also test_web_layout's); Fractured Sky's plays to the end in both.
MOVES_BY_DEFAULT = 20
SPACECRAFT = ("spacecraft", 3, {"variant": "advanced"})
FEDERATION = ("federation", 3, {"law_effect": "majority"})


@pytest.mark.parametrize(
    ("game", "seats", "options", "moves"),
    [
        # solo, against two AIs
        pytest.param("fractured_sky", 1, {"difficulty": "medium"}, None, id="fractured_sky"),
        pytest.param(*SPACECRAFT, MOVES_BY_DEFAULT, id="spacecraft-first-moves"),
        pytest.param(
            *FEDERATION, MOVES_BY_DEFAULT, id="federation-first-moves", marks=pytest.mark.slow
        ),
        pytest.param(*SPACECRAFT, None, id="spacecraft", marks=pytest.mark.slow),
        pytest.param(*FEDERATION, None, id="federation", marks=pytest.mark.slow),
    ],
)
def test_a_person_plays_a_whole_game_against_bots(
    stack: WebStack,
    browser: Browser,
    game: str,
    seats: int,
    options: dict[str, str],
    moves: int | None,
) -> None:
    ann = new_person(stack, browser, "Ann")
    ann.sign_up()
    table = ann.create_table(game, seats, options)
    assert ann.attr("data-viewer") == "0"  # the creator is seated
    ann.page.get_by_test_id("seated-notice").wait_for()
    for bots in range(1, seats):
        ann.page.get_by_test_id("add-bot").click()
        ann.page.locator(f"[data-testid=seats] li:nth-child({bots + 1}) .name").filter(
            has_text="Bot"
        ).wait_for()
    start(ann)
    assert not ann.page.get_by_test_id("seated-notice").count()  # gone after the start
    if game == "fractured_sky":  # the AIs sit in the seat bar with their scores
        ais = ann.page.locator("[data-testid=seats] li[data-ai]")
        assert ais.count() == 2 and "Black AI" in ais.first.inner_text()
    ann.page.locator("[data-testid=table][data-my-turn]").wait_for()
    first_screen(ann)
    named_everywhere(ann)
    shoot_both(ann, f"{game}-start")
    shot = {"taken": False, "ordered": game != "spacecraft", "compared": 0}
    looked = {"offered": 0, "made": 0}  # Fractured Sky's scouts / peeks on the board

    def before_click(person: Person) -> bool:
        if not shot["ordered"] and spacecraft_order(person):
            shot["ordered"] = True
            return True
        return game == "fractured_sky" and fs_look_on_the_board(person, looked)

    def after_click(person: Person, clicks: int) -> None:
        if game == "spacecraft":
            # the score the page shows is the scoreboard's, at every step
            shot["compared"] += scores_match_the_scoreboard(person, table)
        if clicks == 14 and not shot["taken"]:
            named_everywhere(person)
            shoot_both(person, game)
            shot["taken"] = True

    if game == "federation":
        assert overflowing_structure_labels(ann) == []
    clicks = play_until_finished([ann], before=before_click, after=after_click, moves=moves)
    assert clicks > 5 and shot["taken"]
    # played on the board wherever it offered the move (the rest: choices beside it)
    assert ann.board_clicks >= 5, (ann.board_clicks, clicks)
    assert ann.board_keys == 1  # one of them with the keyboard (Enter on the focused element)
    assert game != "spacecraft" or shot["ordered"], "no build step reached to try an order"
    assert game != "spacecraft" or shot["compared"] > 5, shot
    assert looked["made"] or not looked["offered"], looked  # scouted / peeked on the board
    if moves is not None:  # the first moves only
        assert clicks == moves and ann.phase() == "playing"
        no_page_errors(ann)
        ann.context.close()
        return
    final = check_standings(ann, table)
    shoot_both(ann, f"{game}-end")
    if game == "spacecraft":
        assert scores_match_the_scoreboard(ann, table)
    # the move log: one entry per update, in words, newest at the bottom
    log = ann.page.get_by_test_id("move-log").locator(":scope > *")
    assert log.count() > clicks // 2
    assert "The game is over." in log.last.inner_text()
    assert ann.page.get_by_test_id("move-log").evaluate(
        "e => e.scrollHeight - e.scrollTop - e.clientHeight < 30"
    ), "the move log does not show its newest entry"
    assert final["standings"][0]["rank"] == 1
    if game == "fractured_sky":  # the final standings rank the AIs too
        rows = ann.page.get_by_test_id("standings").locator("tbody tr")
        for row, line in zip(rows.all(), final["standings"], strict=True):
            assert row.locator("td").first.inner_text().lstrip("=") == str(line["rank"])
            assert (line["name"] or "") in row.inner_text()
        assert ann.page.get_by_test_id("standings").locator("tr[data-ai]").count() == 2
    no_page_errors(ann)
    ann.context.close()


# ---------------------------------------------------------------- two people, one watching


def _branches(a: Any, s: Any) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """(path, A's value, spectator's value) at the deepest level where both still have
    the same shape."""
    if isinstance(a, dict) and isinstance(s, dict) and a.keys() == s.keys():
        for key in a:
            for path, x, y in _branches(a[key], s[key]):
                yield (key, *path), x, y
    elif isinstance(a, list) and isinstance(s, list) and len(a) == len(s):
        for i, (x, y) in enumerate(zip(a, s, strict=True)):
            for path, xx, yy in _branches(x, y):
                yield (i, *path), xx, yy
    else:
        yield (), a, s


def _at(view: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        try:
            view = view[step]
        except (KeyError, IndexError, TypeError):
            return KeyError
    return view


def _own_knowledge(game: str, path: tuple[Any, ...], b_game: dict[str, Any], b: int) -> bool:
    """B knows this itself: B's own hand (a field named for the viewer), or a card B
    scouted / an objective B peeked too."""
    if game != "fractured_sky" or not path:
        return False
    if path[0] in ("my_chips", "my_drawn", "my_choices", "scouting", "seat"):
        return True
    if path[0] == "secret_cards" and path[-1] == "region":
        return any(m["seat"] == b for m in b_game["secret_cards"][path[1]]["scouts"])
    if path[0] == "objectives" and path[-1] == "card":
        return b in b_game["objectives"][path[1]]["peeked_by"]
    return False


def private_leaks(
    game: str, a_view: dict[str, Any], s_view: dict[str, Any], b_view: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """Paths where A's view knows more than a spectator and B's view shows A's value."""
    if a_view["view"] is None:
        return []
    b = b_view["viewer"]
    leaks = []
    for path, mine, public in _branches(a_view["view"], s_view["view"]):
        if mine == public or mine is None:
            continue
        if _at(b_view["view"], path) == mine and not _own_knowledge(game, path, b_view["view"], b):
            leaks.append(path)
    return leaks


def a_private_count(a_view: dict[str, Any], s_view: dict[str, Any]) -> int:
    if a_view["view"] is None:
        return 0
    return sum(
        1
        for path, mine, public in _branches(a_view["view"], s_view["view"])
        if mine != public and mine is not None and path[:1] != ("seat",)
    )


def dom_secrets(
    game: str, a: int, a_view: dict[str, Any], s_view: dict[str, Any]
) -> list[tuple[str, str]]:
    """(CSS scope, pattern) pairs: a page showing the pattern there shows one of A's
    private values."""
    out: list[tuple[str, str]] = []
    mine, public = a_view["view"], s_view["view"]
    if mine is None:
        return out
    if game == "fractured_sky":
        for region, region_public in zip(mine["regions"], public["regions"], strict=True):
            ships = zip(region["airships"], region_public["airships"], strict=True)
            for i, (ship, ship_public) in enumerate(ships):
                if ship["seat"] == a and ship["chip"] is not None and ship_public["chip"] is None:
                    scope = f"[data-region='{region['index']}'] .airships li:nth-child({i + 1})"
                    out.append((scope, rf"\bchip {ship['chip']}\b"))
    elif game == "spacecraft":
        goals = {
            g["id"]: g["text"]
            for g in json.loads((CATALOGUE / "spacecraft.json").read_text())["goals"]
        }
        seat, seat_public = mine["seats"][a], public["seats"][a]
        if seat_public["goal"] is None:
            for goal in [seat["goal"], *(seat["goal_options"] or [])]:
                if goal is not None:
                    out.append(("body", re.escape(goals[goal])))
        if seat["reserved"] is not None and seat_public["reserved"] is None:
            out.append((f".seat-card[data-seat='{a}']", rf"\bcard {seat['reserved']}\b"))
    # Federation: a seat's view holds nothing the spectator's does not (only `seat` and
    # the legal moves differ), so there is no private value to look for.
    return out


def view_only(document: dict[str, Any]) -> dict[str, Any]:
    """A replay answer without its ``replay`` member: the TableView itself."""
    return {k: v for k, v in document.items() if k != "replay"}


@pytest.mark.parametrize(
    ("game", "options"),
    [
        # 30-40 s each on 2 cores: `pytest -m slow`. The default run keeps a whole game
        # against bots above and the table's story (tests/test_web_table_story.py); each
        # game's seat views hide what they must in tests/<game>/ (test_hidden.py,
        # test_properties.py), every channel of the gateway in test_gateway_hidden.py.
        pytest.param("fractured_sky", {"difficulty": "hard"}, marks=pytest.mark.slow),
        pytest.param("spacecraft", {}, marks=pytest.mark.slow),
        pytest.param("federation", {}, marks=pytest.mark.slow),
    ],
)
def test_two_people_play_while_a_third_watches_on_a_phone(
    stack: WebStack, browser: Browser, tmp_path: Path, game: str, options: dict[str, str]
) -> None:
    ann = new_person(stack, browser, "Ann")
    bob = new_person(stack, browser, "Bob")
    cat = new_person(stack, browser, "Cat", viewport=PHONE, mobile=True)
    for person in (ann, bob, cat):
        person.sign_up()
    table = ann.create_table(game, 2, options)
    # Bob finds the table in the lobby and joins from its page.
    bob.open("/")
    bob.page.locator(f"[data-testid=table-list] [data-table='{table}'] a").click()
    bob.table().wait_for()
    seated(bob)
    # Cat opens the table page to watch, before the start.
    cat.open(f"/table/{table}")
    cat.page.get_by_test_id("spectating").wait_for()
    start(ann)
    for person in (bob, cat):
        person.wait_phase("playing")
    a = int(ann.attr("data-viewer") or -1)
    b = int(bob.attr("data-viewer") or -1)
    assert {a, b} == {0, 1}

    checked_dom = {"n": 0, "secrets": 0}

    def after_click(person: Person, clicks: int) -> None:
        # Bob's page, right after each of his moves: none of Ann's private values.
        if person is not bob or bob.phase() != "playing":
            return
        seq = bob.seq()
        a_view, s_view = ann.view_at(table, seq), cat.view_at(table, seq)
        for scope, pattern in dom_secrets(game, a, a_view, s_view):
            checked_dom["secrets"] += 1
            shown = bob.page.locator(scope)
            if shown.count():
                assert not re.search(pattern, shown.first.inner_text()), (scope, pattern)
        checked_dom["n"] += 1

    play_until_finished([ann, bob], after=after_click)
    assert checked_dom["n"] > 0
    final = check_standings(ann, table)
    check_standings(bob, table)
    check_standings(cat, table)
    last = final["seq"]

    # Every frame Bob received is Bob's own view, with none of Ann's private values.
    private_seen = 0
    bob_views = bob.views()
    assert bob_views and bob_views[-1]["seq"] == last
    for i, frame in enumerate(bob_views):
        seq = frame["seq"]
        assert frame["view"]["seq"] == seq
        if frame["view"]["phase"] == "lobby":
            continue  # before his join Bob watched the lobby as a spectator
        assert frame["view"]["viewer"] == b
        if frame["view"]["phase"] != "playing":
            continue
        a_view, s_view = ann.view_at(table, seq), cat.view_at(table, seq)
        if i % 8 == 0:
            assert frame["view"] == view_only(bob.replay(table, seq)), seq
        private_seen += a_private_count(a_view, s_view)
        assert not private_leaks(game, a_view, s_view, frame["view"]), seq
    if game != "federation":
        assert private_seen > 0 and checked_dom["secrets"] > 0  # there was something to hide

    # The spectator saw every update: increasing seqs, each one drawn, up to the end.
    cat_views = cat.views()
    seqs = [f["seq"] for f in cat_views]
    assert seqs == sorted(set(seqs)) and seqs[-1] == last
    drawn = set(cat.rendered())
    assert set(seqs) <= drawn, sorted(set(seqs) - drawn)[:10]
    assert all(f["view"]["viewer"] is None for f in cat_views)
    for frame in cat_views[:: max(1, len(cat_views) // 8)]:
        assert frame["view"] == view_only(cat.replay(table, frame["seq"]))
    assert len(seqs) >= 10
    no_horizontal_scroll(cat)
    shoot(cat, f"{game}-phone", tmp_path)

    # Replay as the spectator: the slider (one step per command), the step buttons and
    # the keyboard; the page shows the seq the gateway answered.
    cat.page.get_by_test_id("replay-link").click()
    replay = cat.page.locator("[data-testid=table][data-replay]")
    slider = cat.page.get_by_test_id("replay-slider")
    replay.and_(cat.page.locator(f"[data-seq='{last}']")).wait_for()
    middle = cat.replay(table, last // 2, fresh=True)["replay"]  # the command holding that seq
    assert middle["first_seq"] <= last // 2 <= middle["seq"]
    assert slider.get_attribute("max") == str(middle["steps"])
    slider.fill(str(middle["step"]))
    replay.and_(cat.page.locator(f"[data-seq='{middle['seq']}']")).wait_for()
    assert cat.page.get_by_test_id("replay-log").inner_text().startswith(f"Step {middle['step']}")
    assert replay.get_attribute("data-phase") == cat.replay(table, middle["seq"])["phase"]
    cat.page.get_by_test_id("replay-next").click()
    replay.and_(cat.page.locator(f"[data-seq='{middle['next_seq']}']")).wait_for()
    slider.focus()
    slider.press("ArrowLeft")
    replay.and_(cat.page.locator(f"[data-seq='{middle['seq']}']")).wait_for()
    cat.page.get_by_test_id("replay-prev").click()
    replay.and_(cat.page.locator(f"[data-seq='{middle['prev_seq']}']")).wait_for()
    assert replay.get_attribute("data-viewer") == "spectator"
    assert not cat.page.get_by_test_id("private").count()

    # Replay as Ann's seat, from a link to a seq inside one command's events (common in
    # Federation: its automatic steps; elsewhere the start): the table after that
    # command, her private panel, a note saying so.
    step = ann.replay(table, last // 2)["replay"]
    while step["first_seq"] == step["seq"]:  # back one command at a time
        assert step["prev_seq"], "no command with several events"
        step = ann.replay(table, step["prev_seq"])["replay"]
    inside = step["first_seq"]
    after = ann.replay(table, inside)
    ann.open(f"/table/{table}/replay?at={inside}")
    ann_replay = ann.page.locator(f"[data-testid=table][data-replay][data-seq='{after['seq']}']")
    ann_replay.wait_for()
    assert ann_replay.get_attribute("data-viewer") == str(a)
    assert ann.page.get_by_test_id("replay-slider").input_value() == str(after["replay"]["step"])
    expect(ann.page.get_by_role("alert")).to_contain_text("into the middle of a move")
    if after["view"] is not None:
        ann_replay.get_by_test_id("private").wait_for()

    # Both were rated (verified players, bots of a level too): the lobby's
    # leaderboard of the game lists them.
    ann.open("/")
    ann.page.get_by_test_id("leaderboard-game").select_option(game)
    for name in (ann.name, bob.name):
        ann.page.get_by_test_id("leaderboard").filter(has_text=name).wait_for()
    no_page_errors(ann, bob, cat)
    for person in (ann, bob, cat):
        person.context.close()
