"""Wiring the archive into processes: which archive a command uses, and the archiver
process (``orrery archiver``, started by ``orrery serve --archivers N``).

The archive is ``--archive-url``, else ``$ORRERY_ARCHIVE_URL``, else the embedded
default ``sqlite:///<data-dir>/data/archive.sqlite3``; ``serve`` puts the URL it uses
in the environment its children inherit, so every process of a service reads and
writes the same archive.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import structlog

from archive import ARCHIVE_URL_ENV, Archive, default_archive_url, open_archive
from archive.archiver import Archiver
from orrery.config import DATA_DIR
from orrery.errors import UserError

log = structlog.get_logger("orrery.archiver")


def archive_url(option: str | None = None, data_dir: Path | None = None) -> str:
    return (
        option
        or os.environ.get(ARCHIVE_URL_ENV)
        or default_archive_url(data_dir if data_dir is not None else Path(DATA_DIR))
    )


@contextlib.asynccontextmanager
async def opened_archive(url: str) -> AsyncIterator[Archive]:
    """The archive for one command; one that cannot be reached is a :class:`UserError`
    (one line naming it, exit 2), never a traceback."""
    from archive import ArchiveUnavailable
    from orrery.server.credentials import shown_url

    try:
        archive = await open_archive(url)
    except (ArchiveUnavailable, OSError) as error:
        raise UserError(f"cannot reach the archive {shown_url(url)}: {error}") from None
    try:
        yield archive
    except ArchiveUnavailable as error:
        raise UserError(f"the archive {shown_url(url)} failed: {error}") from None
    finally:
        await archive.close()


async def open_archive_retrying(url: str, stop: asyncio.Event) -> Archive | None:
    """The archive, waiting (with backoff) while it cannot be reached; None if stopped."""
    from archive.databases import ArchiveUnavailable

    delay = 0.5
    while not stop.is_set():
        try:
            return await open_archive(url)
        except (ArchiveUnavailable, OSError) as error:
            log.warning("archive_unreachable", error=str(error)[:200], retry_in_s=delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
            delay = min(delay * 2, 30.0)
    return None


async def run_archiver(url: str, archive: str, partitions: int | None = None) -> None:
    """Run one archiver until SIGINT/SIGTERM."""
    from orrery.config import ensure_partitions
    from orrery.server.cluster import open_redis
    from services import metrics

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    metrics.serve_metrics(None)
    redis = open_redis(url)
    try:
        p = await ensure_partitions(redis, partitions)
        store = await open_archive_retrying(archive, stop)
        if store is None:
            return
        try:
            archiver = Archiver(redis, p, store)
            metrics.name_process("archiver", archiver.name)
            log.info("archiver_started", partitions=p, archive=store.kind, after_s=archiver.after_s)
            await archiver.run(stop)
            log.info("archiver_stopped", archived=archiver.archived)
        finally:
            await store.close()
    finally:
        await redis.aclose()
