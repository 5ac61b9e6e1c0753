"""The web client's static side, without a browser: the exported catalogues are what
``orrery_contracts.<game>.catalogue`` gives today, the games it offers match the registry,
every module it imports is there, nothing is fetched from elsewhere, and the test hooks
other tools rely on exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clients import wording
from clients.web import export
from games.registry import get_game
from games.rejection import Rejected
from games.table import game_options

pytestmark = pytest.mark.unit

WEB = Path(export.__file__).resolve().parent
SOURCES = sorted(p for p in WEB.rglob("*") if p.suffix in {".js", ".html", ".css"})
IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']""")
HOOKS = [
    "signup-name",
    "signup-password",
    "signup-submit",
    "create-game",
    "create-seats",
    "create-submit",
    "join",
    "add-bot",
    "start",
    "standings",
    "table",
    "board",
    "move-log",
    "create-sit",
]


def test_the_committed_catalogues_are_up_to_date() -> None:
    stale = export.stale()
    assert not stale, (
        f"clients/web/catalogue/ is out of date ({', '.join(stale)}): "
        "regenerate it with `python -m clients.web.export` and commit the result"
    )


def test_the_export_is_deterministic() -> None:
    assert export.documents() == export.documents()
    index = msgspec.json.decode(export.documents()["index.json"])
    assert [g["name"] for g in index["games"]] == ["fractured_sky", "spacecraft", "federation"]


@pytest.mark.parametrize("offered", export.GAMES, ids=lambda g: g["name"])
def test_offered_seats_and_options_match_the_game(offered: dict[str, Any]) -> None:
    game = get_game(offered["name"])
    assert game is not None
    assert (offered["min_seats"], offered["max_seats"]) == (game.min_seats, game.max_seats)
    assert offered["min_seats"] <= offered["default_seats"] <= offered["max_seats"]
    defaults = msgspec.structs.asdict(game.options_type())
    assert {o["key"]: o["default"] for o in offered["options"]} == defaults
    for option in offered["options"]:
        for value in option["values"]:
            # every offered value is accepted where a table is created
            game_options(game, {option["key"]: value})
        with pytest.raises(Rejected) as refused:
            game_options(game, {option["key"]: "no such value"})
        assert refused.value.code == "bad_options"


def test_every_goal_card_and_effect_has_words() -> None:
    documents = {name: msgspec.json.decode(text) for name, text in export.documents().items()}
    spacecraft, federation = documents["spacecraft.json"], documents["federation.json"]
    assert {g["pattern"] for g in spacecraft["goals"]} <= set(export.GOAL_TEXT)
    assert all(c["text"].startswith("at least ") for c in spacecraft["design_cards"])
    known = set(wording.EFFECT_WORDS) | set(wording.EFFECT_PHRASES)
    for key in ("start_tiles", "deep_space", "asteroids", "alterations", "erudite", "production"):
        for item in federation[key]:
            assert item["text"], item
            unknown = {effect_key for effect_key, _ in item["effect"]} - known
            assert not unknown, f"clients/wording.py has no words for {unknown}"


def test_the_exporter_imports_contracts_only() -> None:
    tree = ast.parse((WEB / "export.py").read_text())
    imported = {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    } | {
        a.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for a in node.names
    }
    server = {"games", "streams", "services", "projections", "gateway", "orrery"}
    assert not imported & server, imported


def test_every_module_import_resolves_and_nothing_comes_from_elsewhere() -> None:
    assert (WEB / "index.html").exists() and (WEB / "app.js").exists()
    for path in SOURCES:
        # the SVG namespace is a name (createElementNS), never fetched
        text = path.read_text().replace('"http://www.w3.org/2000/svg"', "")
        assert not re.search(r"https?://", text), f"{path.name} names an outside URL"
        assert "cdn" not in text.lower(), path.name
        if path.suffix != ".js":
            continue
        for target in IMPORT.findall(text):
            assert target.startswith(("./", "../")), f"{path.name}: bare import {target!r}"
            assert (path.parent / target).resolve().is_file(), f"{path.name}: {target} missing"
    html = (WEB / "index.html").read_text()
    for reference in re.findall(r'(?:src|href)="([^"#:]+)"', html):
        if not reference.startswith("/"):
            assert (WEB / reference).is_file(), reference


def test_the_test_hooks_are_there() -> None:
    text = "\n".join(p.read_text() for p in SOURCES)
    for hook in HOOKS:
        assert f'"data-testid": "{hook}"' in text, hook
    assert '"data-command": json' in text
    assert '"data-seq"' in text or "dataset.seq" in text


def test_the_terminal_and_the_web_say_an_effect_in_the_same_words() -> None:
    """Federation's effects: one wording (clients/wording.py) for the catalogue export the
    web client shows and the terminal renderer."""
    from clients.terminal import render_federation
    from orrery_contracts.federation import catalogue as fed

    federation = msgspec.json.decode(export.documents()["federation.json"])
    for tile, shown in zip(fed.START_TILES, federation["start_tiles"], strict=True):
        assert render_federation.effect(tile) == shown["text"]


def test_the_automated_opponents_option_says_which_tables_have_them() -> None:
    """The lobby names the opponents' difficulty only where there are opponents."""
    from orrery_contracts.fractured_sky import catalogue as fs

    (option,) = next(g for g in export.GAMES if g["name"] == "fractured_sky")["options"]
    with_opponents = [n for n in range(1, 6) if fs.ai_count(n)]
    assert with_opponents == list(range(1, option["seats_up_to"] + 1))
