"""The documentation holds together: every link between the README and the pages of
docs/ reaches a file that exists and, with an anchor, a heading of that page; and no
tracked file tells development history ("session N", "issue N") instead of saying why."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.service import REPO

pytestmark = pytest.mark.unit

PAGES = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# "session" or "issue" followed by a number, with a space, "_", "-" or nothing between
HISTORY = r"(session|issue)s?[ _-]?[0-9]+"


def _slugs(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    slugs: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n, unique = 0, slug
        while unique in slugs:
            n += 1
            unique = f"{slug}-{n}"
        slugs.add(unique)
    return slugs


def test_every_link_between_the_pages_arrives() -> None:
    broken = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
        for target in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and where.suffix == ".md" and anchor not in _slugs(where):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_no_tracked_file_tells_development_history() -> None:
    """Comments, docstrings and docs say why, never in which session or for which issue
    something was measured or changed: that is what git's history is for."""
    found = subprocess.run(
        ["git", "grep", "-nEi", HISTORY], cwd=REPO, capture_output=True, text=True
    )
    assert found.returncode in (0, 1), found.stderr
    assert found.stdout.splitlines() == []


def _commands() -> list[str]:
    """Every command of the ``orrery`` command line, groups' subcommands by their path."""
    import typer.main

    from orrery.cli import app

    found: list[str] = []

    def walk(command: object, path: list[str]) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            found.append(" ".join(path))
            return
        for name, sub in subcommands.items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), ["orrery"])
    return found


def test_every_command_has_its_row_in_the_cli_page() -> None:
    page = (REPO / "docs" / "cli.md").read_text()
    commands = _commands()
    assert len(commands) > 30
    missing = [c for c in commands if not re.search(rf"`{re.escape(c)}[` \[]", page)]
    assert missing == [], "add them to docs/cli.md's command table"
