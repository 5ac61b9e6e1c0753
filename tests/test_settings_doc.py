"""docs/configuration.md lists every ``ORRERY_*`` variable, and only those: the page is
what orrery/settings_doc.py renders, every variable a tracked file names is in that
registry, and every variable in the registry is still named somewhere outside it."""

from __future__ import annotations

import re
import subprocess

import pytest

from orrery.settings_doc import PAGE, SETTINGS, main, render
from tests.support.service import REPO

pytestmark = pytest.mark.unit

NAME = re.compile(r"ORRERY_[A-Z0-9_]+")
# the registry and the page made from it name every variable by construction
SOURCES = {"orrery/settings_doc.py", "docs/configuration.md"}


def _named() -> tuple[set[str], set[str]]:
    """The variables the tracked files name: outside the docs, and in them."""
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    code: set[str] = set()
    docs: set[str] = set()
    for name in files:
        path = REPO / name
        if not name or name in SOURCES or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        # a name cut by a line break ends with "_": it is the start of one, not one
        found = {n for n in NAME.findall(text) if not n.endswith("_")}
        (docs if name.endswith(".md") else code).update(found)
    return code, docs


def test_the_page_is_the_registry() -> None:
    assert PAGE.read_text() == render(), "python -m orrery.settings_doc --write"
    assert main(["--check"]) == 0


def test_every_variable_named_is_registered_and_every_registered_one_is_named() -> None:
    registered = [s.name for s in SETTINGS]
    assert len(registered) == len(set(registered))
    code, docs = _named()
    assert sorted(code - set(registered)) == [], "add them to orrery/settings_doc.py"
    assert sorted(set(registered) - code) == [], "nothing reads them: remove them"
    assert sorted(docs - set(registered)) == [], "the docs name a variable nothing reads"


def test_every_setting_says_what_it_does() -> None:
    for s in SETTINGS:
        assert s.default and s.readers and s.what, s.name
