"""``orrery repair`` and ``orrery trim``: recreate missing consumer groups (``deciders``
at ``0``: settled commands are deleted and commands are deduplicated; a projection group
where its projection stands, ``projections.runner.feed_resume_id``), and trim command
streams and feeds to what their groups still need."""

from __future__ import annotations

from typing import Any

import structlog
from redis.exceptions import ResponseError

from orrery.server.cluster import (
    open_redis,
)
from orrery_contracts import keys
from orrery_contracts.text import as_text

log = structlog.get_logger("orrery.maintenance")


async def repair_groups(url: str, partitions: int | None = None) -> list[str]:
    """Recreate every missing consumer group (at 0); returns what was created. Records
    ``partitions`` as P when the data is new (a different P than the stored one fails)."""
    from orrery.config import ensure_partitions
    from projections.runner import ensure_feed_groups
    from services.intake import ensure_command_groups

    redis = open_redis(url)
    try:
        p = await ensure_partitions(redis, partitions)
        created = await ensure_command_groups(redis, p)
        created = [f"{stream} {keys.DECIDERS_GROUP}" for stream in created]
        created += await ensure_feed_groups(redis, p)
        return created
    finally:
        await redis.aclose()


async def trim_streams(url: str) -> dict[str, int]:
    """Trim each command stream and feed to the oldest entry one of its groups still needs
    (pending, or not yet delivered); returns entries removed per stream. Never touches logs.
    """
    redis = open_redis(url)
    removed: dict[str, int] = {}
    try:
        stored = await redis.hget(keys.CONFIG_KEY, "partitions")
        for p in range(int(stored or 0)):
            streams = [
                (keys.command_stream(p), (keys.DECIDERS_GROUP,)),
                (keys.feed_stream(p), keys.PROJECTION_GROUPS),
            ]
            for stream, groups in streams:
                keep = await _oldest_needed(redis, stream, groups)
                if keep is None:
                    continue
                count = int(await redis.xtrim(stream, minid=keep, approximate=False))
                if count:
                    removed[stream] = count
        return removed
    finally:
        await redis.aclose()


async def _oldest_needed(redis: Any, stream: str, groups: tuple[str, ...]) -> str | None:
    """The smallest id any group still needs; None when a group is missing (keep all)."""
    try:
        infos = {as_text(i["name"]): i for i in await redis.xinfo_groups(stream)}
    except ResponseError:
        return None
    candidates: list[tuple[int, int]] = []
    # A feed not yet migrated from the per-projection groups keeps what those still need.
    legacy = [g for g in keys.LEGACY_PROJECTION_GROUPS if g in infos and g not in groups]
    if stream.endswith(":feed"):
        groups = (*groups, *legacy)
    for group in groups:
        info = infos.get(group)
        if info is None:
            return None
        last = _id(as_text(info["last-delivered-id"]))
        candidates.append((last[0], last[1] + 1))  # the next undelivered entry
        pending = await redis.xpending(stream, group)
        if pending and pending.get("pending"):
            candidates.append(_id(as_text(pending["min"])))
    ms, seq = min(candidates)
    return f"{ms}-{seq}"


def _id(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)
