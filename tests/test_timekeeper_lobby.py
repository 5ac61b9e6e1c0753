"""Abandoned lobbies through the real service: a table not started within
``ORRERY_LOBBY_TTL_S`` is closed by the timekeeper (``table.closed``), refuses everything
after, audits clean and no longer counts as live; a table started in time stays."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.codec import codec_for
from orrery.ops.status import partition_status
from orrery_client.sdk import CommandRejected, OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry
from orrery_contracts.table import CreateTable, StartTable, TableClosed, close_command_id
from services.audit import audit_entries
from tests.support.service import LiveService, live_service

pytestmark = pytest.mark.service

ENV = {
    "ORRERY_LOBBY_TTL_S": "1.5",
    "ORRERY_TIMEKEEPER_POLL_MS": "50",
    "ORRERY_LOG_LEVEL": "warning",
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("lobby")), **ENV) as service:
        service.start("timekeeper", **ENV)
        yield service


async def test_a_lobby_not_started_in_time_is_closed(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        await client.accept("lobby-stale", CreateTable(game="tiny", seats=2))
        ann = await client.join("lobby-stale", "Ann")
        await client.accept("lobby-started", CreateTable(game="tiny", seats=1))
        solo = await client.join("lobby-started", "Solo")
        await client.accept("lobby-started", StartTable(), seat=solo.seat, token=solo.token)
        async with asyncio.timeout(60):
            async for view in client.watch("lobby-stale", None):
                if view["phase"] == "closed":
                    break
        # the lobby lists it as closed (and no longer as open)
        async with asyncio.timeout(30):
            while "lobby-stale" not in [t.table_id for t in await client.tables("closed")]:
                await asyncio.sleep(0.05)
        assert "lobby-stale" not in [t.table_id for t in await client.tables("open")]
        # nothing was dealt: the seed is revealed, as at a table's end, so it can be audited
        assert view["legal"] == [] and len(view["seed"]) == 64
        with pytest.raises(CommandRejected) as closed:
            await client.join("lobby-stale", "Bob")
        assert closed.value.code == "table_closed"
        with pytest.raises(CommandRejected) as again:
            await client.accept("lobby-stale", StartTable(), seat=ann.seat, token=ann.token)
        assert again.value.code == "table_closed"
        p = client.partition("lobby-stale")
        raw = await client.redis.xrange(keys.log_stream(p, "lobby-stale"))
        log = [decode_entry(fields[b"e"]) for _, fields in raw]
        last = codec_for("tiny").decode_event(log[-1].body)
        assert isinstance(last, TableClosed) and last.reason == "lobby_ttl"
        assert log[-1].command_id == close_command_id("lobby-stale")
        report = audit_entries(log)
        assert report.complete and report.finished, report.as_dict()
        # nothing is left to close, and the started table is untouched
        members = await client.redis.zrange(keys.deadlines_zset(p), 0, -1)
        assert not [m for m in members if m.startswith(b"lobby-stale|")]
        assert (await client.view("lobby-started", None) or {})["phase"] == "playing"
        # `orrery status` counts the closed table as over, not live
        row = await partition_status(client.redis, p)
        assert row.tables_live == (1 if client.partition("lobby-started") == p else 0)
