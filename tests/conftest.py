"""Shared fixtures: a real embedded Valkey server on a free loopback port, per test run."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import redis.asyncio as aioredis

from orrery.server.embedded import EmbeddedServer
from tests.support.postgres import PostgresServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from tests.support.gateway import LiveGateway

# The platform tests plug in a tiny game of their own (also in worker subprocesses).
os.environ.setdefault("ORRERY_EXTRA_GAMES", "tests.support.tinygame:GAME")
# pytest-xdist's workers run with COLUMNS=80 and LINES=24 of their own; the processes the
# tests start must size their output as in a serial run (from their terminal, if any).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

# A test's tier is its module's ``pytestmark`` (pyproject.toml lists them); the rules'
# own folders are ``unit``, and a module that names none counts as ``service``. A module
# whose long runs sit beside their short twins names its tier as ``TIER`` instead: its
# ``slow`` and ``bench`` tests are of those tiers only, so ``pytest -m unit`` stays the
# quick loop.
TIERS = ("unit", "service", "gateway", "browser", "cluster", "bench")
LONG_TIERS = ("slow", "bench")
RULES_FOLDERS = {"fractured_sky", "spacecraft", "federation"}


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by tier
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        # ``slow_for("postgresql")``: the test's runs with that parameter id are slow runs
        # (the other parameters' runs are their default twins)
        wanted = item.get_closest_marker("slow_for")
        callspec = getattr(item, "callspec", None)
        if wanted and callspec and set(wanted.args) & set(callspec.id.split("-")):
            item.add_marker(pytest.mark.slow)
        declared = getattr(getattr(item, "module", None), "TIER", None)
        if declared is not None:
            if not any(item.get_closest_marker(long) for long in LONG_TIERS):
                item.add_marker(getattr(pytest.mark, declared))
            continue
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            unit = item.path.parent.name in RULES_FOLDERS
            item.add_marker(pytest.mark.unit if unit else pytest.mark.service)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    with EmbeddedServer(Path(tmp_path_factory.mktemp("valkey"))) as started:
        yield started


@pytest.fixture
async def redis_client(server: EmbeddedServer) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(server.url)
    await client.flushall()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A private PostgreSQL (Debian's package), started once per run by the tests that use
    it (the archive's)."""
    with PostgresServer() as started:
        yield started


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    """The run's gateway stack with default settings and no bot runner (an embedded
    server, a worker, a projector and the gateway), for every module that needs nothing
    else; a module that does (bots, other limits, more gateways) defines its own
    ``live``."""
    from tests.support.gateway import live_gateway

    with live_gateway(Path(tmp_path_factory.mktemp("gw-shared")), bots=False) as gateway:
        yield gateway


@pytest.fixture
async def http(live: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the module's ``live`` gateway (a module's fixture with a ``url``)."""
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def chromium_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Chromium for every browser test of the run (its DevTools endpoint)."""
    from tests.support.browser import chromium_process

    with chromium_process(tmp_path_factory.mktemp("chromium")) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def browser(chromium_endpoint: str) -> Iterator[Browser]:
    """The run's Chromium, connected for one module (each test opens its own contexts)."""
    from tests.support.browser import connected

    with connected(chromium_endpoint) as started:
        yield started
