"""Each module of the project stands on its own: no circle of imports (a function-level
import included: it only moves the circle to the first call), no module reaching into
another's ``_private`` names (what a module does not export it may change freely), and
no Lua inline in Python (a script lives in a ``.lua`` file beside the module that runs it,
where an editor and a linter see it as Lua).

A test keeps to public names too, but for the few private details it means to pin
down (``TESTS_MAY_REACH``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_layering import FOLDERS

pytestmark = pytest.mark.unit

# not the project's modules: build output and the web client's tooling
_SKIPPED = {"build", "node_modules", "__pycache__"}


def _modules() -> dict[str, Path]:
    """Every module of the project's packages by its dotted name."""
    found: dict[str, Path] = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            relative = path.relative_to(folder)
            if _SKIPPED & set(relative.parts):
                continue
            if package == "clients" and relative.parts[0] == "orrery_client":
                continue  # a package of its own that lives in the folder
            parts = [package, *relative.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The project module ``name`` is or is inside (a name imported from it)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str, path: Path, tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, imported module, imported name or "") of every import in ``tree``, the
    module ``module`` at ``path``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                yield node.lineno, base, alias.name


def _graph() -> dict[str, set[str]]:
    """Each project module → the project modules it imports."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets: set[str] = set()
        for _, imported, name in _imports(module, path, ast.parse(path.read_text(), str(path))):
            # ``from package import module`` imports the submodule
            target = _owner(f"{imported}.{name}") if name else None
            if target != f"{imported}.{name}":
                target = _owner(imported)
            if target is not None and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_back_through_others() -> None:
    graph = _graph()
    assert len(graph) > 100  # the walk found the project
    assert _circles(graph) == []


def _tests() -> dict[str, Path]:
    """The test modules by their dotted name."""
    root = FOLDERS["orrery"].parent
    return {
        ".".join(path.relative_to(root).with_suffix("").parts): path
        for path in (root / "tests").rglob("*.py")
        if not _SKIPPED & set(path.relative_to(root).parts)
    }


# What tests reach into on purpose: a game's dispatch tables, checked against its step
# types, and the AI's plan, checked on a hand-made state.
TESTS_MAY_REACH = {
    "games.federation.choices._OPTIONS",
    "games.federation.choices._ANSWERS",
    "games.federation.automatic._AUTOMATIC",
    "games.fractured_sky.ai._plan",
}


def _private_uses(module: str, path: Path) -> Iterator[tuple[str, str]]:
    """(where, the private name with its module) of each use of another module's
    private name in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    root = FOLDERS["orrery"].parent
    modules_here: dict[str, str] = {}  # local name → the project module it is
    for line, imported, name in _imports(module, path, tree):
        where = f"{path.relative_to(root)}:{line}"
        if name and _private(name):
            yield where, f"{imported}.{name}"
        elif name and _owner(f"{imported}.{name}") == f"{imported}.{name}":
            modules_here[name] = f"{imported}.{name}"
        elif not name and _owner(imported) == imported:
            modules_here[imported.split(".")[0]] = imported.split(".")[0]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain: list[str] = []
        value: ast.expr = node.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in modules_here:
            target = ".".join([modules_here[value.id], *chain])
            if target in MODULES and target != module:
                yield f"{path.relative_to(root)}:{node.lineno}", f"{target}.{node.attr}"


def test_no_module_uses_another_modules_private_names() -> None:
    found = [
        f"{where}: {name}"
        for module, path in sorted(MODULES.items())
        for where, name in _private_uses(module, path)
    ]
    assert found == []


def test_no_test_uses_a_private_name_but_those_it_means_to() -> None:
    found = [
        f"{where}: {name}"
        for module, path in sorted(_tests().items())
        for where, name in _private_uses(module, path)
        if name not in TESTS_MAY_REACH
    ]
    assert found == []


def test_lua_lives_in_lua_files() -> None:
    inline = [
        str(path.relative_to(FOLDERS["orrery"].parent))
        for path in MODULES.values()
        if "redis.call(" in path.read_text()
    ]
    assert inline == []
