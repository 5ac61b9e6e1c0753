"""Chat reports as the operator's tools read them (orrery/moderation.py), on a real Valkey:
the stream folds into each report's state; a resolution is refused, and nothing is
recorded, for no such report, a mute without days or without an author, a message gone
already; a mute sets the author's mute until its end; a report is resolved once."""

from __future__ import annotations

import time

import pytest
import redis.asyncio as aioredis

from orrery.moderation import DAY_MS, ModerationError, reports, resolve
from orrery_contracts.social import (
    REPORTS_STREAM,
    ReportedMessage,
    ReportFiled,
    mute_key,
    report_event_encoder,
)

pytestmark = pytest.mark.service


async def file(redis: aioredis.Redis, report_id: str, author: str | None = "pauthor") -> None:
    filed = ReportFiled(
        report_id=report_id,
        table_id="t1",
        message_id="1-0",
        reporter="preporter",
        author=author,
        reason="",
        at=1,
        messages=[ReportedMessage(id="1-0", seat=0, name="Al", text="rude", player_id=author)],
    )
    await redis.xadd(REPORTS_STREAM, {"__data__": report_event_encoder.encode(filed)})


async def test_resolutions_are_checked_then_recorded(redis_client: aioredis.Redis) -> None:
    for n in range(3):
        await file(redis_client, f"r{n}")
    await file(redis_client, "anonymous", author=None)
    assert [r.state for r in (await reports(redis_client)).values()] == ["open"] * 4

    async def gone(table_id: str, message_id: str) -> bool:
        return False

    refusals = [
        ("nothing", "dismiss", {}, "no report"),
        ("r0", "mute", {}, "1 to 3650 days"),
        ("r0", "mute", {"days": 0}, "1 to 3650 days"),
        ("anonymous", "mute", {"days": 1}, "nobody to mute"),
        ("r0", "delete", {"delete_message": gone}, "gone already"),
    ]
    for report_id, action, options, said in refusals:
        with pytest.raises(ModerationError, match=said):
            await resolve(redis_client, report_id, action, **options)  # type: ignore[arg-type]
    assert all(not r.resolutions for r in (await reports(redis_client)).values())

    before = int(time.time() * 1000)
    done = await resolve(redis_client, "r0", "mute", days=3, note="again", by="op")
    assert (done.action, done.days, done.note, done.by) == ("mute", 3, "again", "op")
    stored = await redis_client.get(mute_key("pauthor"))
    assert stored is not None
    until = int(stored)
    assert before + 3 * DAY_MS <= until <= int(time.time() * 1000) + 3 * DAY_MS
    assert 0 < await redis_client.pttl(mute_key("pauthor")) <= 3 * DAY_MS

    async def deleted(table_id: str, message_id: str) -> bool:
        return (table_id, message_id) == ("t1", "1-0")

    await resolve(redis_client, "r1", "delete", delete_message=deleted)
    await resolve(redis_client, "r2", "dismiss")
    with pytest.raises(ModerationError, match="resolved already"):
        await resolve(redis_client, "r2", "mute", days=1)
    states = {r: found.state for r, found in (await reports(redis_client)).items()}
    assert states == {"r0": "mute", "r1": "delete", "r2": "dismiss", "anonymous": "open"}
