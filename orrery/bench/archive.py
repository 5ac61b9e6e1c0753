"""``orrery bench archive``: what archiving costs and saves (docs/benchmarks.md).

On a fresh embedded server with one projector, N finished games (a mix of the three
games, played by random bots: :func:`services.replay.play_log`) are imported and
projected (views, scores, lobby), then archived by an in-process
:class:`~archive.archiver.Archiver`. Printed beside their targets:

* archive rate: games/s and events/s (read, write, read back and verify, delete);
* bytes per event: in the archive (compressed log), in Redis (``MEMORY USAGE`` of the
  table's keys), raw msgpack (the log's entries);
* Redis ``used_memory`` (less the clients' buffers) per game before and after archiving
  (streams trimmed, as ``orrery trim`` does), measured after a first round that is not
  counted (the allocator's caches and the clients' buffers grow once), and a
  tombstone's own ``MEMORY USAGE``;
* replay latency (p50/p99) of a whole ~1,000-event table (read and fold) from the
  archive vs from Redis;
* a projection to 1,000,000 finished games (Redis MB, archive GB on disk).

Targets: Redis ≤ 1 KiB per archived game, archive ≤ 80 bytes per event, ≥ 100 games/s
archived, replay from the archive ≤ 2× the time from Redis.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MIX = (("fractured_sky", 3), ("spacecraft", 3), ("federation", 3))
PARTITIONS = 16
REPLAY_RUNS = 30
WARM_UP = 12
MILLION = 1_000_000

TARGET_REDIS_PER_GAME = 1024
TARGET_ARCHIVE_PER_EVENT = 80
TARGET_GAMES_PER_S = 100
TARGET_REPLAY_RATIO = 2.0


@dataclass(frozen=True)
class ArchiveFigures:
    archive: str  # sqlite | postgresql
    games: int
    events: int
    archive_s: float
    games_per_s: float
    events_per_s: float
    archive_bytes_per_event: float  # the stored (compressed) logs
    archive_disk_bytes_per_game: float  # tables and indexes on disk
    redis_bytes_per_event: float  # MEMORY USAGE of the tables' keys, before archiving
    raw_bytes_per_event: float  # the log's msgpack entries
    redis_per_game_before: float  # used_memory growth per game, before archiving
    redis_per_game_after: float  # ... after archiving (tombstones and the like)
    tombstone_bytes: float  # MEMORY USAGE of one tombstone (mean)
    replay_events: int
    replay_redis_p50_ms: float
    replay_redis_p99_ms: float
    replay_archive_p50_ms: float
    replay_archive_p99_ms: float
    replay_ratio: float  # archive p50 / Redis p50
    million_redis_mb: float
    million_archive_gb: float


def run_archive_bench(scratch: Path, games: int, archive_url: str | None) -> ArchiveFigures:
    from orrery.runtime import prepare, spawn, stop_processes
    from orrery.server.embedded import EmbeddedServer

    shutil.rmtree(scratch, ignore_errors=True)
    url_of_archive = archive_url or f"sqlite:///{(scratch / 'archive.sqlite3').resolve()}"
    with EmbeddedServer(scratch / "valkey") as server:
        asyncio.run(prepare(server.url, PARTITIONS))
        projector = spawn("projector", server.url, 0, {"ORRERY_LOG_LEVEL": "warning"})
        try:
            figures = asyncio.run(_measure(server.url, url_of_archive, games))
        finally:
            stop_processes([projector])
    shutil.rmtree(scratch, ignore_errors=True)
    return figures


async def _measure(url: str, archive_url: str, games: int) -> ArchiveFigures:
    import uuid

    import redis.asyncio as aioredis

    from archive import open_archive
    from archive.archiver import Archiver
    from orrery.ops.maintenance import trim_streams
    from services.replay import play_log
    from services.transfer import import_entries

    redis = aioredis.Redis.from_url(url)
    archive = await open_archive(archive_url)
    try:
        run = uuid.uuid4().hex[:6]  # a PostgreSQL archive may hold earlier runs

        def played(first: int, count: int, kind: str) -> list[list[Any]]:
            return [
                play_log(game, seats, i, table_id=f"{kind}-{run}-{game}-{i}")[0]
                for i, (game, seats) in ((i, MIX[i % len(MIX)]) for i in range(first, count))
            ]

        archiver = Archiver(redis, PARTITIONS, archive, after_s=0)
        # a first round, not measured: scripts loaded, streams and groups made, the
        # allocator's caches and the clients' buffers grown to what a round needs
        warm = played(games, games + WARM_UP, "warm")
        for entries in warm:
            await import_entries(redis, PARTITIONS, entries)
        await _projected(redis, warm)
        while await archiver.run_once():
            pass
        await trim_streams(url)
        logs = played(0, games, "bench")
        events = sum(len(entries) for entries in logs)
        raw = sum(len(_encoded(e)) for entries in logs for e in entries)
        await _settled(redis)
        base = await _used(redis)
        for entries in logs:
            await import_entries(redis, PARTITIONS, entries)
        await _projected(redis, logs)
        await trim_streams(url)
        await _settled(redis)
        loaded = await _used(redis)
        in_redis = await _table_bytes(redis, logs)
        longest = min(logs, key=lambda e: abs(len(e) - 1000))
        replay_id = longest[0].table_id
        from_redis = await _timed(lambda: _replay_redis(redis, replay_id))
        stats_before = await archive.stats()
        disk_before = await archive.disk_bytes()
        started = time.perf_counter()
        moved = 0
        while moved < games:
            done = await archiver.run_once()
            if not done:
                break
            moved += done
        archive_s = time.perf_counter() - started
        from_archive = await _timed(lambda: _replay_archive(archive, replay_id))
        await trim_streams(url)
        await _settled(redis)
        after = await _used(redis)
        tombstones = await _tombstone_bytes(redis, logs)
        stats = await archive.stats()
        disk = await archive.disk_bytes() - disk_before
    finally:
        await archive.close()
        await redis.aclose()
    stored = stats.stored_bytes - stats_before.stored_bytes
    redis_after = (after - base) / games
    disk_per_game = disk / games
    return ArchiveFigures(
        archive=archive_url.split(":", 1)[0],
        games=moved,
        events=events,
        archive_s=round(archive_s, 3),
        games_per_s=round(moved / archive_s, 1),
        events_per_s=round(events / archive_s),
        archive_bytes_per_event=round(stored / events, 1),
        archive_disk_bytes_per_game=round(disk_per_game),
        redis_bytes_per_event=round(in_redis / events, 1),
        raw_bytes_per_event=round(raw / events, 1),
        redis_per_game_before=round((loaded - base) / games),
        redis_per_game_after=round(redis_after),
        tombstone_bytes=round(tombstones / games),
        replay_events=len(longest),
        replay_redis_p50_ms=_ms(statistics.median(from_redis)),
        replay_redis_p99_ms=_ms(_p99(from_redis)),
        replay_archive_p50_ms=_ms(statistics.median(from_archive)),
        replay_archive_p99_ms=_ms(_p99(from_archive)),
        replay_ratio=round(statistics.median(from_archive) / statistics.median(from_redis), 2),
        million_redis_mb=round(max(redis_after, 0) * MILLION / 1e6, 1),
        million_archive_gb=round(disk_per_game * MILLION / 1e9, 2),
    )


def _encoded(entry: Any) -> bytes:
    from orrery_contracts.envelope import encode_entry

    return encode_entry(entry)


async def _used(redis: Any) -> int:
    """``used_memory`` less the clients' buffers (which follow the connections open and
    their last requests, not the data)."""
    info = await redis.info("memory")
    return int(info["used_memory"]) - int(info.get("mem_clients_normal") or 0)


async def _tombstone_bytes(redis: Any, logs: list[list[Any]]) -> int:
    from orrery_contracts import keys

    used = 0
    for entries in logs:
        table_id = entries[0].table_id
        p = keys.partition_of(table_id, PARTITIONS)
        used += int(await redis.memory_usage(keys.tombstone_key(p, table_id), samples=0) or 0)
    return used


async def _settled(redis: Any) -> None:
    """The slow log emptied (it keeps up to 128 slow commands with their arguments, up to
    ~0.5 MB that say nothing of the data), then until used_memory stops moving (client
    buffers shrink a moment after a burst)."""
    await redis.slowlog_reset()
    last = -1
    for _ in range(20):
        now = await _used(redis)
        if now == last:
            return
        last = now
        await asyncio.sleep(0.5)


async def _projected(redis: Any, logs: list[list[Any]], timeout: float = 600) -> None:
    """Until the projector has written every table's spectator view at its last seq."""
    import msgspec

    from orrery_contracts import keys

    deadline = time.monotonic() + timeout
    for entries in logs:
        table_id, last = entries[0].table_id, entries[-1].seq
        key = keys.view_key(keys.partition_of(table_id, PARTITIONS), table_id, None)
        while True:
            raw = await redis.get(key)
            if raw is not None and msgspec.json.decode(raw)["seq"] >= last:
                break
            if time.monotonic() > deadline:
                raise TimeoutError("the projector did not catch up")
            await asyncio.sleep(0.05)


async def _table_bytes(redis: Any, logs: list[list[Any]]) -> int:
    from archive.hot import table_keys
    from orrery_contracts import keys

    used = 0
    for entries in logs:
        table_id = entries[0].table_id
        p = keys.partition_of(table_id, PARTITIONS)
        for key in table_keys(p, table_id, 5):
            used += int(await redis.memory_usage(key, samples=0) or 0)
    return used


async def _replay_redis(redis: Any, table_id: str) -> None:
    from services.replay import fold
    from services.transfer import read_stored_log

    fold((await read_stored_log(redis, PARTITIONS, table_id)).entries)


async def _replay_archive(archive: Any, table_id: str) -> None:
    from services.replay import fold

    stored = await archive.get_table(table_id)
    assert stored is not None and stored.intact
    fold(stored.entries)


async def _timed(work: Callable[[], Awaitable[None]]) -> list[float]:
    await work()  # warm
    times = []
    for _ in range(REPLAY_RUNS):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
    return times


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def rows(f: ArchiveFigures) -> list[tuple[str, str, str, str]]:
    """``(figure, value, target, met)`` lines of the printed table."""

    def met(ok: bool) -> str:
        return "yes" if ok else "NO"

    return [
        ("archive rate", f"{f.games_per_s} games/s, {f.events_per_s} events/s",
         f"≥ {TARGET_GAMES_PER_S} games/s", met(f.games_per_s >= TARGET_GAMES_PER_S)),
        ("archive bytes/event (stored log)", f"{f.archive_bytes_per_event}",
         f"≤ {TARGET_ARCHIVE_PER_EVENT}",
         met(f.archive_bytes_per_event <= TARGET_ARCHIVE_PER_EVENT)),
        ("archive on disk per game (rows, indexes)", f"{f.archive_disk_bytes_per_game}", "", ""),
        ("Redis bytes/event (table keys, live)", f"{f.redis_bytes_per_event}", "", ""),
        ("raw msgpack bytes/event", f"{f.raw_bytes_per_event}", "", ""),
        ("Redis used_memory per game, before archiving", f"{f.redis_per_game_before}", "", ""),
        ("Redis used_memory per game, after archiving", f"{f.redis_per_game_after}",
         f"≤ {TARGET_REDIS_PER_GAME}", met(f.redis_per_game_after <= TARGET_REDIS_PER_GAME)),
        ("  of which the tombstone (MEMORY USAGE)", f"{f.tombstone_bytes}", "≤ ~200",
         met(f.tombstone_bytes <= 200)),
        (f"replay of {f.replay_events} events from Redis p50/p99 ms",
         f"{f.replay_redis_p50_ms} / {f.replay_redis_p99_ms}", "", ""),
        (f"replay of {f.replay_events} events from the archive p50/p99 ms",
         f"{f.replay_archive_p50_ms} / {f.replay_archive_p99_ms}",
         f"≤ {TARGET_REPLAY_RATIO}× Redis ({f.replay_ratio}×)",
         met(f.replay_ratio <= TARGET_REPLAY_RATIO)),
        ("1,000,000 finished games: Redis", f"{f.million_redis_mb} MB", "", ""),
        ("1,000,000 finished games: archive on disk", f"{f.million_archive_gb} GB", "", ""),
    ]  # fmt: skip


def render(figures: ArchiveFigures) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"orrery bench archive: {figures.games} games, {figures.events} events, "
        f"{figures.archive}"
    )
    for column in ("figure", "value", "target", "met"):
        table.add_column(column)
    for row in rows(figures):
        table.add_row(*row)
    Console().print(table)


def as_dict(figures: ArchiveFigures) -> dict[str, Any]:
    return asdict(figures) | {
        "targets": {
            "redis_bytes_per_archived_game": TARGET_REDIS_PER_GAME,
            "archive_bytes_per_event": TARGET_ARCHIVE_PER_EVENT,
            "games_per_s": TARGET_GAMES_PER_S,
            "replay_ratio": TARGET_REPLAY_RATIO,
        }
    }
