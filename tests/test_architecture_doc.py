"""docs/architecture.md stays true: every file or folder it names exists (``<game>``
read as each of the three games), every file its skeleton table lists is in every game,
and the files hold their roles (``legal.problem`` is the check ``decide`` raises and
``legal_commands`` lists with, ``status.py`` answers whose move it is and the game's
definition uses it, one ``emit``, chance declared by the event type), so the map a
newcomer follows cannot drift from the code."""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from games.definition import GameDefinition
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


# ---------------------------------------------------------------- roles, not only files


def _module(game: str, name: str) -> ast.Module:
    return ast.parse((REPO / "games" / game / f"{name}.py").read_text())


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _calls(node: ast.AST) -> set[str]:
    """The names a function calls (``f(...)`` and ``module.f(...)`` alike)."""
    called: set[str] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            if isinstance(call.func, ast.Name):
                called.add(call.func.id)
            elif isinstance(call.func, ast.Attribute):
                called.add(call.func.attr)
    return called


def _reach(functions: dict[str, ast.FunctionDef], start: str) -> set[str]:
    """Every name ``start`` calls, directly or through the module's own functions."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        for called in _calls(functions[name]):
            if called not in seen:
                seen.add(called)
                if called in functions:
                    todo.append(called)
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_legal_py_answers_is_it_legal_and_why_not(game: str) -> None:
    """``legal.problem(state, seat, command)`` is the one check: ``decide`` raises it,
    ``legal_commands`` lists with the predicates it uses, and ``decide.py`` writes no
    rejection of its own."""
    legal = _functions(_module(game, "legal"))
    assert {"problem", "legal_commands"} <= set(legal)
    args = [a.arg for a in legal["problem"].args.args]
    assert args == ["state", "seat", "command"]
    # legal_commands asks problem, or the predicates problem is made of
    checks = {"problem"} | (_reach(legal, "problem") & set(legal))
    assert _reach(legal, "legal_commands") & checks
    decide_tree = _module(game, "decide")
    decide = _functions(decide_tree)["decide"]
    imported = {
        alias.name
        for node in decide_tree.body
        if isinstance(node, ast.ImportFrom) and node.module == f"games.{game}.legal"
        for alias in node.names
    }
    assert "problem" in imported and "problem" in _calls(decide)
    assert "Rejected" not in _calls(decide_tree)


@pytest.mark.parametrize("game", GAMES)
def test_status_py_answers_whose_move_and_the_game_definition_uses_it(game: str) -> None:
    module = importlib.import_module(f"games.{game}")
    status = importlib.import_module(f"games.{game}.status")
    legal = importlib.import_module(f"games.{game}.legal")
    decide = importlib.import_module(f"games.{game}.decide")
    assert "status" in _functions(_module(game, "status"))
    game_def = module.GAME
    assert type(game_def) is GameDefinition  # one definition form: no class per game
    assert game_def.status is status.status
    assert game_def.legal_commands is legal.legal_commands
    assert game_def.decide is decide.decide
    # status is computed in status.py only
    elsewhere = [
        path.name
        for path in (REPO / "games" / game).glob("*.py")
        if path.name != "status.py" and "status" in _functions(ast.parse(path.read_text()))
    ]
    assert elsewhere == []
    assert not any(isinstance(n, ast.ClassDef) for n in _module(game, "game").body)


def test_one_emit_for_every_game_and_chance_declared_by_the_event() -> None:
    """Appending an event and folding it is ``games.working.Working.emit``, written once;
    which events record chance, the event types say (``chance``), no game lists them."""
    emits = sorted(
        str(path.relative_to(REPO))
        for path in (REPO / "games").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name == "emit"
    )
    assert emits == ["games/working.py"]
    for game in GAMES:
        text = (REPO / "games" / game / "undo.py").read_text()
        assert "random=" not in text
    chance = {
        game: sorted(
            e.__name__
            for e in importlib.import_module(f"games.{game}").GAME.event_types
            if e.chance
        )
        for game in GAMES
    }
    assert chance == {
        "fractured_sky": ["RoundSetUp"],
        "spacecraft": [],
        "federation": ["RoundStarted"],
    }
