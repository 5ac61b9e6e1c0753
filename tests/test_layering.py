"""The folder layout is the architecture: imports point one way (docs/architecture.md).

``orrery_contracts ← games ← services, projections ← orrery`` and
``orrery_contracts ← streams ← services, projections`` (the consumer-group plumbing) and
``orrery_contracts ← orrery_client ← clients, gateway ← orrery`` and
``orrery_contracts ← archive ← services, projections, gateway, orrery`` and
``orrery_contracts ← notify ← gateway, orrery`` (turn notifications) and
``orrery_contracts ← games ← bots ← orrery`` (the bots plan with the rules): the rules never
see I/O,
``services`` and ``projections`` never import each other, no client imports the rules,
and the client's own distribution (``orrery_client`` + ``orrery_contracts``) needs
nothing but redis and msgspec.
"""

from __future__ import annotations

import ast
import sys

import pytest

from tests.support.service import REPO

pytestmark = pytest.mark.unit

FOLDERS = {
    "orrery_contracts": REPO / "contracts" / "orrery_contracts",
    "orrery_client": REPO / "clients" / "orrery_client",
    "games": REPO / "games",
    "streams": REPO / "streams",
    "services": REPO / "services",
    "projections": REPO / "projections",
    "clients": REPO / "clients",
    "gateway": REPO / "gateway",
    "orrery": REPO / "orrery",
    "archive": REPO / "archive",
    "matchmaking": REPO / "matchmaking",
    "notify": REPO / "notify",
    "bots": REPO / "bots",
    "competitions": REPO / "competitions",
}
# what each package may import, of the project's packages and of the third-party ones
OURS = {
    "orrery_contracts": set(),
    "games": {"orrery_contracts"},
    "archive": {"orrery_contracts"},
    "streams": {"orrery_contracts"},
    "services": {"orrery_contracts", "games", "archive", "streams"},
    "projections": {"orrery_contracts", "games", "archive", "streams"},
    "orrery_client": {"orrery_contracts"},
    "clients": {"orrery_contracts", "orrery_client"},
    "gateway": {"orrery_contracts", "orrery_client", "clients", "archive", "notify"},
    "matchmaking": {"orrery_contracts", "archive", "streams"},
    "notify": {"orrery_contracts"},
    # the bots plan with the rules; they never reach the service's processes
    "bots": {"orrery_contracts", "games"},
    # tournaments and seasons: the wire contract, and the archive for past seasons
    "competitions": {"orrery_contracts", "archive", "streams"},
    "orrery": set(FOLDERS) - {"orrery"},
}
THIRD_PARTY = {
    "orrery_contracts": {"msgspec"},
    "orrery_client": {"msgspec", "redis"},
    "games": {"msgspec"},
    "bots": {"msgspec"},
    # the consumer-group plumbing: FastStream's subscribers over redis-py, and the
    # service's logger (a reader's failed reads)
    "streams": {"faststream", "redis", "structlog"},
    # the archive: its databases' drivers, zstd, and what the archiver process uses
    "archive": {
        "msgspec",
        "zstandard",
        "psycopg",
        "psycopg_pool",
        "redis",
        "structlog",
        "prometheus_client",
    },
    # the matchmaker: networkx's matching, and what its role process uses
    "matchmaking": {"msgspec", "networkx", "redis", "structlog", "prometheus_client"},
    # tournaments: the Dutch pairing engine, and what the organiser's process uses
    "competitions": {"msgspec", "py4swiss", "redis", "structlog", "prometheus_client"},
    # the notifier: Web Push (VAPID, RFC 8291 encryption, HTTP) and SMTP
    "notify": {
        "msgspec",
        "redis",
        "structlog",
        "prometheus_client",
        "httpx",
        "http_ece",
        "py_vapid",
        "cryptography",
        "aiosmtplib",
    },
}


def _imports(package: str) -> dict[str, set[str]]:
    """Top-level module name → the files of ``package`` that import it."""
    found: dict[str, set[str]] = {}
    for path in FOLDERS[package].rglob("*.py"):
        if package == "clients" and FOLDERS["orrery_client"] in path.parents:
            continue  # a package of its own that lives in the folder
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(REPO)))
    return found


@pytest.mark.parametrize("package", sorted(FOLDERS))
def test_imports_point_one_way(package: str) -> None:
    imported = _imports(package)
    ours = {name: files for name, files in imported.items() if name in FOLDERS}
    wrong = {name: files for name, files in ours.items() if name not in OURS[package] | {package}}
    assert not wrong, f"{package} must not import {wrong}"


@pytest.mark.parametrize("package", sorted(THIRD_PARTY))
def test_the_inner_packages_need_only_their_libraries(package: str) -> None:
    imported = _imports(package)
    foreign = {
        name: files
        for name, files in imported.items()
        if name not in sys.stdlib_module_names and name not in FOLDERS
    }
    assert set(foreign) <= THIRD_PARTY[package], foreign
    if package == "games":  # pure rules: no I/O, no event loop
        assert not {"asyncio", "socket", "redis"} & set(imported)
