"""docs/architecture.md stays true: every file or folder it names exists (``<game>``
read as each of the three games), and every file its skeleton table lists is in every
game, so the map a newcomer follows cannot drift from the code."""

from __future__ import annotations

import re

import pytest

from tests.support.service import REPO

pytestmark = pytest.mark.unit

DOC = (REPO / "docs" / "architecture.md").read_text()
GAMES = ("fractured_sky", "spacecraft", "federation")
PATH = re.compile(r"`([A-Za-z_<>./-]+/[A-Za-z_<>./*-]*)`")


def _named_paths() -> set[str]:
    paths: set[str] = set()
    for raw in PATH.findall(DOC):
        if raw.startswith(("/v1", "orrery:", "http")) or "*" in raw or "{" in raw:
            continue
        for game in GAMES if "<game>" in raw else ("",):
            paths.add(raw.replace("<game>", game))
    return paths


def test_every_path_the_map_names_exists() -> None:
    names = _named_paths()
    assert len(names) > 30  # the map names the house's rooms, not a handful
    missing = sorted(p for p in names if not (REPO / p.split("<")[0].rstrip("/")).exists())
    assert missing == []


def test_every_game_has_every_file_of_the_skeleton_table() -> None:
    table = DOC.split("## The skeleton of a game", 1)[1].split("\n## ", 1)[0]
    files = re.findall(r"^\| `([a-z_]+\.(?:py|md))` \|", table, flags=re.MULTILINE)
    assert {"game.py", "state.py", "decide.py", "evolve.py", "legal.py", "views.py"} <= set(files)
    missing = [
        f"games/{game}/{name}"
        for game in GAMES
        for name in files
        if not (REPO / "games" / game / name).exists()
    ]
    assert missing == []
