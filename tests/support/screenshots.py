"""The README's screenshots, taken again: each game's table a few moves into a game
against bots, and the lobby, at 1280×900 (the first screen) and on a 390×844 phone (the
board's screen, as a phone shows it), in Chromium against a service of its own.

    python3 dev.py screenshots [FOLDER]   # FOLDER: docs/img unless told

Names: ``<game>.png`` and ``<game>-phone.png`` per game, ``lobby.png``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import ViewportSize

from tests.support.browser import Person, chromium, new_person, play_until_finished, web_stack
from tests.support.service import REPO

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
# game, seats (the others bots), options, moves played before the picture
TABLES: list[tuple[str, int, dict[str, str], int]] = [
    ("fractured_sky", 3, {}, 8),
    ("spacecraft", 2, {"variant": "basic"}, 8),
    ("federation", 3, {}, 6),
]


def seated_with_bots(person: Person, game: str, seats: int, options: dict[str, str]) -> str:
    table = person.create_table(game, seats, options)
    for bots in range(1, seats):
        person.page.get_by_test_id("add-bot").click()
        person.page.locator(f"[data-testid=seats] li:nth-child({bots + 1}) .name").filter(
            has_text="Bot"
        ).wait_for()
    person.page.get_by_test_id("start").click()
    person.wait_phase("playing")
    return table


def at_my_turn(person: Person) -> None:
    person.page.locator("[data-testid=table][data-my-turn]:not([data-busy])").wait_for(
        timeout=120_000
    )
    person.page.wait_for_timeout(600)  # the last move's pulse is over


def take(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    taken: list[Path] = []
    with (
        tempfile.TemporaryDirectory() as data,
        web_stack(Path(data)) as stack,
        chromium() as (_, browser),
    ):
        ann = new_person(stack, browser, "Ann", viewport=DESKTOP)
        ann.sign_up()
        # the offer of push notifications is answered: the pictures show the table alone
        ann.page.evaluate("localStorage.setItem('orrery.push-asked', '1')")
        for game, seats, options, moves in TABLES:
            seated_with_bots(ann, game, seats, options)
            play_until_finished([ann], moves=moves)
            at_my_turn(ann)
            ann.page.evaluate("window.scrollTo(0, 0)")
            taken.append(folder / f"{game}.png")
            ann.page.screenshot(path=str(taken[-1]))
            ann.page.set_viewport_size(PHONE)
            board = ann.page.get_by_test_id("board")
            board.scroll_into_view_if_needed()
            taken.append(folder / f"{game}-phone.png")
            ann.page.screenshot(path=str(taken[-1]))
            ann.page.set_viewport_size(DESKTOP)
        ann.open("/")
        for title in ("#board-title", "#mine-title"):  # the leaderboard and my tables came
            ann.page.locator(title).wait_for()
        taken.append(folder / "lobby.png")
        ann.page.screenshot(path=str(taken[-1]))
        ann.context.close()
    return taken


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else REPO / "docs" / "img"
    for path in take(folder):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
