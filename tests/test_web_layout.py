"""The web client's pages as a player judges them, in real Chromium against the real
service: accessible (axe-core reports no serious or critical violation on the lobby, each
game's table while playing and at the end, the replay and my games), and every game's
board legible at 1280×900 (and 1024×768) and on a 390×844 phone: no two board texts
overlap, no drawn button or clickable shape covers part of a text that is not its own,
none is cut by the box it is written in or by the board's edge, none is fainter than 3:1
against the shape it is drawn on, none is smaller than 11 CSS px once the board is drawn
for the screen (at every size), and the board is never wider than the screen (no inner
sideways scroll), Fractured Sky's with four and five players too; on
the phone the page does not scroll sideways and each link of the navigation keeps to one
line. axe-core also checks that a control's accessible name holds the words it shows.
Also: every card, tile or objective a player may choose is an element of the board with
its content written on it, and equal scores share a rank ("=1", "1 pt"). The default run
checks one table (a solo Fractured Sky game, on the run's shared gateway: no bot runner)
at both sizes with axe-core; the other games (at the start, in play and at their end),
the other pages and the games played by clicks are `slow`.

axe-core comes from tests/axe/ (its package-lock.json; ``python3 dev.py test`` installs
it). It is evaluated in the page through the DevTools protocol, so the page's strict
Content-Security-Policy stays as it is.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.browser import (
    Person,
    Site,
    WebStack,
    connected,
    new_person,
    play_until_finished,
    web_stack,
)

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
# a narrower window: the side column still beside the board, the board packed narrower
SMALL_DESKTOP: ViewportSize = {"width": 1024, "height": 768}
SMALLEST_PX = 11
# A board text's colour against what it is drawn on: at least WCAG's ratio for large text
# and for the parts of a picture that must be seen.
LEAST_CONTRAST = 3

# The board's texts (visible ones): boxes that overlap another, boxes cut by the smallest
# drawn shape holding their middle or by the board's edge, colours too faint against the
# shape they are drawn on, sizes after the fit, and the board's width against the screen's.
BOARD_PROBLEMS = """() => {
  const svg = document.querySelector('[data-testid=board]');
  if (!svg) return {missing: true};
  const frame = svg.getBoundingClientRect();
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
      && getComputedStyle(e).visibility !== 'hidden' && getComputedStyle(e).display !== 'none'; };
  const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t));
  const boxes = [...svg.querySelectorAll('rect, circle, polygon, ellipse')]
    .filter((r) => !r.closest('.hot') && !r.classList.contains('band') && shown(r))
    .map((r) => r.getBoundingClientRect());
  const name = (t) => `"${t.textContent.trim().slice(0, 40)}"`;
  const rects = texts.map((t) => t.getBoundingClientRect());
  // glyph boxes include the line's leading: 1 px each way is not an overlap
  const slack = 1.5;
  const overlaps = [];
  for (let i = 0; i < rects.length; i += 1) {
    for (let j = i + 1; j < rects.length; j += 1) {
      const a = rects[i], b = rects[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const hgt = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > slack && hgt > slack * 2) overlaps.push(`${name(texts[i])} × ${name(texts[j])}`);
    }
  }
  // a drawn button or clickable shape painted over part of a text that is not its own
  // (one drawn later; a text wholly on a shape is written on the thing that is clicked)
  const hits = [...svg.querySelectorAll('.hot .hit')].filter(shown)
    .map((r) => [r.closest('.hot'), r.getBoundingClientRect()]);
  const later = (t, hot) => t.compareDocumentPosition(hot) & Node.DOCUMENT_POSITION_FOLLOWING;
  const covered = [];
  texts.forEach((t, i) => {
    const a = rects[i];
    for (const [hot, b] of hits) {
      if (hot.contains(t) || !later(t, hot)) continue;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const hgt = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      const inside = a.left >= b.left - slack && a.right <= b.right + slack
          && a.top >= b.top - slack && a.bottom <= b.bottom + slack;
      if (w > slack && hgt > slack * 2 && !inside) {
        const button = (hot.getAttribute('aria-label') || '').slice(0, 40);
        covered.push(`${name(t)} × the button "${button}"`);
        break;
      }
    }
  });
  const clipped = [];
  texts.forEach((t, i) => {
    const r = rects[i];
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    if (r.left < frame.left - slack || r.right > frame.right + slack
        || r.top < frame.top - slack || r.bottom > frame.bottom + slack) {
      clipped.push(`${name(t)} leaves the board`);
      return;
    }
    const holders = boxes.filter((b) => b.left <= cx && cx <= b.right && b.top <= cy
        && cy <= b.bottom && b.width * b.height > r.width * r.height * 0.5);
    if (!holders.length) return;
    const box = holders.reduce((m, b) => (b.width * b.height < m.width * m.height ? b : m));
    if (r.left < box.left - slack || r.right > box.right + slack) {
      const sizes = `${Math.round(r.width)} / ${Math.round(box.width)}`;
      clipped.push(`${name(t)} is cut by its box (${sizes})`);
    }
  });
  const small = texts
    .map((t) => [t, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])
    .filter(([, px]) => px < %(smallest)s - 0.05)
    .map(([t, px]) => `${name(t)} ${px.toFixed(1)}px`);
  // each text's colour against the smallest filled shape under its middle (or the board)
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const paint = canvas.getContext('2d', {willReadFrequently: true});
  const rgba = (css) => {
    paint.clearRect(0, 0, 1, 1); paint.fillStyle = '#000'; paint.fillStyle = css;
    paint.fillRect(0, 0, 1, 1);
    const d = paint.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3]));
  const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const weights = [0.2126, 0.7152, 0.0722];
  const lum = (rgb) => rgb.map(linear).reduce((sum, v, i) => sum + v * weights[i], 0);
  const ground = over(rgba(getComputedStyle(svg).backgroundColor), [255, 255, 255]);
  const filled = [...svg.querySelectorAll('rect, circle, polygon, ellipse')]
    .filter((r) => shown(r) && !r.classList.contains('hit') && getComputedStyle(r).fill !== 'none');
  const faint = [];
  texts.forEach((t, i) => {
    const r = rects[i];
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    let under = null, area = Infinity;
    for (const shape of filled) {
      const b = shape.getBoundingClientRect();
      const holds = b.left <= cx && cx <= b.right && b.top <= cy && cy <= b.bottom;
      if (holds && b.width * b.height < area) {
        under = shape; area = b.width * b.height;
      }
    }
    let back = ground;
    if (under) {
      const style = getComputedStyle(under), fill = rgba(style.fill);
      const alpha = fill[3] * Number(style.fillOpacity) * Number(style.opacity);
      back = over([...fill.slice(0, 3), alpha], ground);
    }
    const ink = over(rgba(getComputedStyle(t).fill), back);
    const [a, b] = [lum(ink), lum(back)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const on = under ? `${under.tagName}.${under.classList.value || '-'}` : 'the board';
    if (ratio < %(contrast)s) faint.push(`${name(t)} ${ratio.toFixed(2)}:1 on ${on}`);
  });
  const wrap = svg.parentElement;
  return {
    faint: faint.slice(0, 12),
    overlaps: overlaps.slice(0, 12), covered: covered.slice(0, 12),
    clipped: clipped.slice(0, 12), small: small.slice(0, 12),
    smallCount: small.length, width: frame.width, viewport: innerWidth,
    innerScroll: wrap.scrollWidth - wrap.clientWidth,
  };
}""".replace("%(smallest)s", str(SMALLEST_PX)).replace("%(contrast)s", str(LEAST_CONTRAST))


# The board on the page, packed for the phone's width (arg true) or for the desktop's
# board column, and never wider than the screen.
NARROW_BOARD = """(phone) => { const b = document.querySelector('[data-testid=board]');
    return !!b && (b.dataset.flowWidth === '320') === phone
        && b.getBoundingClientRect().width <= innerWidth; }"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebStack]:
    """A stack with a bot runner, for the (slow) tables with bot seats."""
    with web_stack(Path(tmp_path_factory.mktemp("web-layout"))) as started:
        yield started


def axe_violations(person: Person) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, with the
    check that a control's accessible name holds the words it shows (axe-core's
    label-content-name-mismatch, off by default)."""
    page = person.page
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(AXE.read_text() + "\n;0")
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations'], rules: {
                'label-content-name-mismatch': {enabled: true}}})).violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => ({id: v.id, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))"""
    )
    return [f"{v['id']}: {v['nodes']}" for v in found]


def board_problems(person: Person) -> list[str]:
    found: dict[str, Any] = person.page.evaluate(BOARD_PROBLEMS)
    assert not found.get("missing"), "no board on the page"
    problems = [f"overlap {o}" for o in found["overlaps"]] + [f"cut {c}" for c in found["clipped"]]
    problems += [f"covered {c}" for c in found["covered"]]
    problems += [f"faint {f}" for f in found["faint"]]
    problems += [f"small {s}" for s in found["small"]]
    if found["smallCount"] > len(found["small"]):
        problems.append(f"... {found['smallCount']} small texts in all")
    if found["width"] > found["viewport"] + 0.5:
        problems.append(f"the board is {found['width']}px wide on a {found['viewport']}px screen")
    if found["innerScroll"] > 1:
        problems.append(f"the board scrolls sideways by {found['innerScroll']}px")
    return problems


# The page on a phone: its width against the screen's, and each navigation link's lines.
PAGE_PROBLEMS = """() => {
  const wide = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  const links = [...document.querySelectorAll('header nav a')];
  const tops = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)));
  return [
    ...(wide > 1 ? [`the page scrolls sideways by ${wide}px`] : []),
    ...links.filter((a) => a.getClientRects().length > 1 || a.getBoundingClientRect().height > 40)
      .map((a) => `the link "${a.textContent.trim()}" wraps`),
    ...(tops.size > 1 ? ['the navigation takes more than one line'] : []),
  ];
}"""


def page_problems(person: Person) -> list[str]:
    found: list[str] = person.page.evaluate(PAGE_PROBLEMS)
    return found


# The board drawn again after the window's width changed (arg: its packing width before).
REPACKED = """(flow) => { const b = document.querySelector('[data-testid=board]');
    return !!b && b.dataset.flowWidth !== flow
        && b.getBoundingClientRect().width <= innerWidth; }"""


def check_board(person: Person, where: str) -> None:
    """The board at 1280×900, at 1024×768 (packed again for its narrower column), then at
    390×844 (back to 1280×900 after)."""
    page = person.page
    problems = [f"1280: {p}" for p in board_problems(person)]
    flow = page.evaluate("() => document.querySelector('[data-testid=board]').dataset.flowWidth")
    page.set_viewport_size(SMALL_DESKTOP)
    page.wait_for_function(REPACKED, arg=flow)
    problems += [f"1024: {p}" for p in board_problems(person)]
    page.set_viewport_size(PHONE)
    try:
        # the board drawn again for the phone (the desktop's, shrunk to the screen until
        # then, fits too: its text is tiny)
        page.wait_for_function(NARROW_BOARD, arg=True)
        problems += [f"390: {p}" for p in board_problems(person)]
        problems += [f"390: {p}" for p in page_problems(person)]
    finally:
        page.set_viewport_size(DESKTOP)
        page.wait_for_function(NARROW_BOARD, arg=False)
    assert not problems, f"{where}:\n" + "\n".join(problems)


def sit_with_bots(
    stack: Site, browser: Browser, game: str, seats: int, options: dict[str, str]
) -> tuple[Person, str]:
    ann = new_person(stack, browser, "Ann")
    ann.sign_up()
    table = ann.create_table(game, seats, options)
    for bots in range(1, seats):
        ann.page.get_by_test_id("add-bot").click()
        ann.page.locator(f"[data-testid=seats] li:nth-child({bots + 1}) .name").filter(
            has_text="Bot"
        ).wait_for()
    ann.page.get_by_test_id("start").click()
    ann.wait_phase("playing")
    ann.page.locator("[data-testid=table][data-my-turn]").wait_for()
    return ann, table


GAMES = {
    "fractured_sky": (1, {}),
    "spacecraft": (2, {"variant": "basic"}),
    "federation": (3, {}),
}


def equal_scores_share_a_rank(person: Person) -> None:
    """The seat strip: participants with equal points show one rank, marked "=" ("=1")."""
    shown: list[list[Any]] = person.page.evaluate(
        """() => [...document.querySelectorAll('[data-testid=seats] [data-testid^=score-]')]
            .map((e) => [e.textContent, Number(e.dataset.points)])"""
    )
    by_points: dict[int, set[str]] = {}
    for words, points in shown:
        by_points.setdefault(points, set()).add(words.split("·")[-1].strip())
    for points, ranks in by_points.items():
        assert len(ranks) == 1, (points, shown)
        count = sum(1 for _, p in shown if p == points)
        assert (count > 1) == next(iter(ranks)).startswith("="), shown
    for words, points in shown:
        assert words.startswith(f"{points} pt{'' if points == 1 else 's'} "), shown


# The drawn cards, tiles and objectives (Federation's stall spots are places on a stall,
# whose drawing says what it costs and gives).
CARDS = ", ".join(
    f"[data-testid=board] [{a}]"
    for a in ("data-card", "data-objective", "data-start-tile", "data-tile", "data-structure")
)


def cards_on_the_board(person: Person, game: str) -> None:
    """Every card, tile or objective a legal move chooses is drawn on the board, its
    content written on it, and the move is a click on it."""
    chosen = {
        "spacecraft": ("sc.choose_goal", "sc.fulfil", "sc.reserve", "sc.mark"),
        "fractured_sky": ("fs.peek", "fs.objective"),
        "federation": ("fed.start_tile", "fed.stall", "fed.erudite", "fed.build"),
    }[game]
    offered = person.page.evaluate(
        """(types) => [...document.querySelectorAll('[data-testid=table] [data-command]')]
            .map((e) => [JSON.parse(e.dataset.command).type, !!e.closest('[data-testid=board]'),
                         e.closest('[data-card], [data-objective]') ? 1 : 0])
            .filter(([type]) => types.includes(type))""",
        list(chosen),
    )
    off_board = [o for o in offered if not o[1]]
    assert not off_board, f"card moves offered off the board: {off_board}"
    cards = person.page.locator(CARDS)
    for card in cards.all()[:40]:
        words = card.evaluate(
            "e => [...e.querySelectorAll('text')].map(t => t.textContent).join(' ')"
        )
        assert len(words.strip()) > 3, card.evaluate("e => e.outerHTML.slice(0, 200)")


def check_table(person: Person, game: str, when: str) -> None:
    check_board(person, f"{game} {when}")
    violations = axe_violations(person)
    assert not violations, f"{game} {when}: " + "\n".join(violations)


def other_pages_are_accessible(person: Person, table: str) -> None:
    for path, ready in [
        ("/", "lobby"),
        ("/games", "my-games-page"),
        (f"/table/{table}/replay", "replay-slider"),
    ]:
        person.open(path)
        person.page.get_by_test_id(ready).first.wait_for()
        # the pages' boxes are named once their data came
        titles = {"/": ["#mine-title", "#board-title"], "/games": ["#games-title"]}
        for title in titles.get(path, []):
            person.page.locator(title).wait_for()
        violations = axe_violations(person)
        assert not violations, f"{path}: " + "\n".join(violations)


def test_a_table_is_legible_on_a_desktop_and_a_phone_and_accessible(
    live: Site, chromium_endpoint: str
) -> None:
    """The default run's check: a solo Fractured Sky table (no bot runner needed) at its
    start, at both sizes, with axe-core; every game's table in play, its other pages and
    more seats are checked under `slow` below. (Its own connection to the run's Chromium,
    closed at its end: the module's stack with bots starts after it, outside Playwright.)"""
    with connected(chromium_endpoint) as browser:
        ann, _table = sit_with_bots(live, browser, "fractured_sky", 1, {})
        equal_scores_share_a_rank(ann)
        check_table(ann, "fractured_sky", "at the start")
        assert not ann.errors, ann.errors


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("fractured_sky", 1),
        ("spacecraft", 2),
        ("federation", 3),
        # four and five players: the wider turn track and all ten regions on a phone
        ("fractured_sky", 4),
        ("fractured_sky", 5),
    ],
)
def test_each_table_in_play_is_legible_and_accessible(
    stack: WebStack, browser: Browser, game: str, seats: int
) -> None:
    options = GAMES[game][1]
    ann, table = sit_with_bots(stack, browser, game, seats, options)
    equal_scores_share_a_rank(ann)
    cards_on_the_board(ann, game)
    check_table(ann, game, "at the start")
    play_until_finished([ann], moves=6)
    cards_on_the_board(ann, game)
    check_table(ann, game, "after six moves")
    if (game, seats) == ("fractured_sky", 1):  # the other pages, once
        other_pages_are_accessible(ann, table)
    assert not ann.errors, ann.errors
    ann.context.close()


# A fortress or a market offered as a click on the board (beside a platform).
BUILDS = "[data-command*='\"fs.build_fortress\"'], [data-command*='\"fs.build_market\"']"


class BuildOffered(Exception):
    """A fortress or a market is on offer on the board: the game stops there."""


def stop_at_a_build(person: Person) -> bool:
    if person.board_controls().and_(person.page.locator(BUILDS)).count():
        raise BuildOffered
    return False


@pytest.mark.slow
def test_fractured_sky_platform_buttons_cover_no_words(stack: WebStack, browser: Browser) -> None:
    """A platform's Fortress and Market buttons (on the phone's map, a platform between its
    two columns of regions) cover no region's name nor any other word: the board at both
    sizes the first time a build is on offer in a solo game."""
    ann, _table = sit_with_bots(stack, browser, "fractured_sky", 1, {})
    with pytest.raises(BuildOffered):
        play_until_finished([ann], before=stop_at_a_build, limit_s=400)
    check_board(ann, "fractured_sky with a build on offer")
    assert not ann.errors, ann.errors
    ann.context.close()


def play_through_the_api(people: list[Person], table: str) -> None:
    """Random legal moves for whoever is to move, through the API, until the end."""
    for _ in range(5000):
        moved = False
        for person in people:
            now = person.api(f"/v1/tables/{table}/view")
            if now["phase"] == "finished":
                return
            moves = [b for b in now["legal"] if not b["type"].startswith("table.")]
            if now["viewer"] in now["to_move"] and moves:
                body = {"command_id": uuid.uuid4().hex, "body": person.rng.choice(moves)}
                # a view a moment old may offer a move gone by now: refused, looked at again
                person.post(f"/v1/tables/{table}/commands", body)
                moved = True
        if not moved:
            time.sleep(0.05)
    raise AssertionError(f"no end: {people[0].api(f'/v1/tables/{table}/view')['to_move']}")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        ("fractured_sky", 1, {"difficulty": "easy"}),
        ("spacecraft", 2, {"variant": "basic"}),
        ("federation", 2, {}),
    ],
    ids=["fractured_sky", "spacecraft", "federation"],
)
def test_each_game_at_its_end_is_legible_and_accessible(
    stack: WebStack, browser: Browser, game: str, seats: int, options: dict[str, str]
) -> None:
    """A game played to its end through the API (two people, or one against Fractured
    Sky's automated opponents), then its finished page: the board at both sizes, the final
    places with the score in parts, axe-core."""
    people = [new_person(stack, browser, name) for name in ("Ann", "Bob")[:seats]]
    for person in people:
        person.sign_up()
    ann = people[0]
    table = ann.post("/v1/tables", {"game": game, "seats": seats, "options": options})["table_id"]
    for person in people:
        person.post(f"/v1/tables/{table}/join", {})
    ann.post(f"/v1/tables/{table}/start")
    play_through_the_api(people, table)
    ann.open(f"/table/{table}")
    ann.page.get_by_test_id("standings").wait_for()
    ann.page.get_by_test_id("score-breakdown").wait_for()
    check_table(ann, game, "at the end")
    assert not ann.errors, ann.errors
    for person in people:
        person.context.close()


def play_on_the_board_only(person: Person, moves: int | None) -> tuple[int, int]:
    """SPACEcraft by clicking only on the board, plus the one payment after a part is
    picked there; (board clicks, payment clicks). Stops after ``moves`` moves, or at the end."""
    page = person.page
    board_clicks = payments = 0
    while moves is None or board_clicks < moves:
        if person.phase() == "finished":
            break
        page.wait_for_function(
            """() => { const t = document.querySelector('[data-testid=table]:not([data-replay])');
                return t.dataset.phase === 'finished'
                    || (t.dataset.myTurn === '1' && !t.dataset.busy); }""",
            timeout=120_000,
        )
        if person.phase() == "finished":
            break
        hot = person.board_controls()
        picks = person.table().locator("[data-testid=board] [data-pick]:not([aria-disabled=true])")
        assert hot.count() or picks.count(), "my turn, and nothing to click on the board"
        if picks.count() and (not hot.count() or person.rng.random() < 0.5):
            picks.nth(person.rng.randrange(picks.count())).click()
            board_clicks += 1
            payment = page.get_by_test_id("payment").locator("button[data-command]")
            assert payment.count() == 1, "one payment choice per build"
            person.click_control(payment.first)
            payments += 1
        else:
            # taking piles and building before ending the turn (the rest: at random)
            ends = hot.and_(page.locator("[data-command*='\"sc.end_turn\"']"))
            choices = hot if hot.count() == ends.count() or person.rng.random() < 0.2 else None
            if choices is None:
                choices = hot.and_(page.locator(":not([data-command*='\"sc.end_turn\"'])"))
            try:
                person.click_control(choices.nth(person.rng.randrange(choices.count())))
            except PlaywrightTimeoutError:  # the board was drawn again meanwhile: look again
                continue
            board_clicks += 1
    return board_clicks, payments


@pytest.mark.slow
@pytest.mark.parametrize(
    "moves",
    [pytest.param(12, id="first-moves"), pytest.param(None, id="to-the-end")],
)
def test_spacecraft_against_a_bot_by_clicking_on_the_board(
    stack: WebStack, browser: Browser, moves: int | None
) -> None:
    ann, _table = sit_with_bots(stack, browser, "spacecraft", 2, {"variant": "basic"})
    clicks, payments = play_on_the_board_only(ann, moves)
    assert clicks >= (moves or 10)
    if moves is None:
        assert payments, "no part built"
        ann.page.get_by_test_id("standings").wait_for()
        check_table(ann, "spacecraft", "at the end")
    assert not ann.errors, ann.errors
    ann.context.close()
