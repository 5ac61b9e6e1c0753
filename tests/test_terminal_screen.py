"""The terminal client's screen as a player reads it, from real views of every game (no
server needed): phases in words (the same words the web client's catalogue holds, from
``clients.wording``), never the rules' names for them; and a redraw that does not reprint
the whole board: on a terminal it is written over the old screen in place, without one
only the lines that changed are printed.
"""

from __future__ import annotations

import copy
import io
import json
import re
from typing import Any, cast

import pytest

from clients.terminal.renderers import make_console
from clients.terminal.session import Session, changed_lines
from clients.web import export
from clients.wording import PHASE_WORDS, phase_text
from orrery_client.sdk import OrreryClient, SeatCredentials
from tests.test_terminal_render import GAMES, draw, views_of

pytestmark = pytest.mark.unit

RULES_NAME = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+\.[a-z]+\b")  # start_pick, play.action


def own_phases(view: dict[str, Any]) -> list[str]:
    """The rules' names of where this view stands: the table's game phase and the game
    view's own phase, step or pending choice."""
    game = view.get("view") or {}
    names = [view.get("game_phase", ""), game.get("phase", ""), game.get("pending", "")]
    if game.get("step"):
        names.append(game["step"])
    return [n for n in names if isinstance(n, str) and ("_" in n or "." in n)]


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_phases_are_said_in_words(game: str, players: int, options: dict[str, Any]) -> None:
    seen = 0
    # a view of each phase (with step or pending choice) the game came to
    told: set[tuple[str, ...]] = set()
    for view in views_of(game, players, options):
        phases = (view.get("game_phase", ""), *own_phases(view))
        if phases in told:
            continue
        told.add(phases)
        shown = draw(view)
        for name in own_phases(view):
            assert name not in shown, (name, shown[:400])
            seen += 1
        if view["phase"] == "playing" and view.get("game_phase"):
            assert phase_text(game, view["game_phase"]) in shown
    if game in ("spacecraft", "federation"):
        assert seen, "no phase name with a separator came up: the test proves nothing"


def test_the_web_and_the_terminal_say_a_phase_alike() -> None:
    documents = export.documents()
    for game, words in PHASE_WORDS.items():
        assert json.loads(documents[f"{game}.json"])["phases"] == words
        for key, text in words.items():
            assert not RULES_NAME.fullmatch(text), (game, key)
    assert phase_text("federation", "start_pick") == "pick a start tile"
    assert phase_text("spacecraft", "play.build") == "Turns · build step"
    assert phase_text("federation", "mission_checks") == "mission checks"


def session_drawing(view: dict[str, Any], *, terminal: bool) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    console = make_console(file=out, width=120, force_terminal=terminal)
    seat = SeatCredentials(table_id=view["table_id"], seat=view["viewer"], token="t" * 22)
    return Session(cast(OrreryClient, None), seat, console), out


def two_views(game: str, players: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Two views of seat 0, some moves apart, both in play."""
    mine = [
        v for v in views_of(game, players, options) if v["viewer"] == 0 and v["phase"] == "playing"
    ]
    return [mine[1], mine[2]]


@pytest.mark.parametrize(("game", "players", "options"), GAMES[:5])
def test_without_a_terminal_a_redraw_prints_only_what_changed(
    game: str, players: int, options: dict[str, Any]
) -> None:
    before, after = two_views(game, players, options)
    session, out = session_drawing(before, terminal=False)
    session.view = before
    session.draw()
    first = out.getvalue().splitlines()
    assert len(first) > 20  # the whole screen, once
    out.seek(0)
    out.truncate()
    session.view = after
    session.draw()
    again = out.getvalue().splitlines()
    fresh = session_drawing(after, terminal=False)
    fresh[0].view = after
    fresh[0].draw()
    whole = fresh[1].getvalue().splitlines()
    assert again[0] == whole[0]  # where the table stands, always
    assert set(again) <= set(whole) and len(again) < len(whole), (len(again), len(whole))
    # the same view again: its first line and the prompt only
    out.seek(0)
    out.truncate()
    session.draw()
    assert len(out.getvalue().splitlines()) <= 2


def test_on_a_terminal_a_redraw_overwrites_the_screen_in_place() -> None:
    before, after = two_views("fractured_sky", 4, {})
    session, out = session_drawing(before, terminal=True)
    session.view = before
    session.draw()
    assert "\x1b[2J" in out.getvalue()  # the first screen clears the terminal once
    out.seek(0)
    out.truncate()
    session.view = after
    session.draw()
    shown = out.getvalue()
    assert shown.startswith("\x1b[H") and "\x1b[2J" not in shown
    assert shown.count("\x1b[K\n") == len(session.shown)
    assert "\x1b[J" in shown  # what the old screen had below is cleared


def test_changed_lines_keep_the_first_and_the_new() -> None:
    assert changed_lines([], ["a", "b"]) == ["a", "b"]
    assert changed_lines(["h1", "x", "y", "z"], ["h2", "x", "Y", "z", "w"]) == ["h2", "Y", "w"]
    assert changed_lines(["h", "x"], ["h", "x"]) == ["h"]


def test_the_final_standing_shares_places_and_shows_the_parts() -> None:
    end = next(v for v in reversed(views_of("spacecraft", 3, {})) if v["phase"] == "finished")
    text = draw(end)
    for label in ("Countdown bonus", "Blueprint", "Personal goal", "Design cards"):
        assert label in text
    tied = copy.deepcopy(end)
    for line in tied["standings"][:2]:
        line["rank"] = 1
    assert len(re.findall(r"=1\b", draw(tied))) == 2
