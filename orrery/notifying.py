"""Wiring the notifier into a process: ``orrery notifier`` (started by ``orrery serve
--notifiers N``; any number may run).

The notifier (notify/notifier.py) signs its links with the server key
(``$ORRERY_SECRET_KEY``, which ``orrery serve`` shares with every process it starts) and
Web Push requests with the VAPID key (``$ORRERY_VAPID_PRIVATE_KEY``, else the data
folder's, shared the same way).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import structlog

log = structlog.get_logger("orrery.notifier")


def share_vapid_key(data_dir: Path) -> None:
    """``$ORRERY_VAPID_PRIVATE_KEY``, else the key kept in the data folder (made at first
    start), in the environment every child inherits (gateways and notifiers share it)."""
    from notify.settings import VAPID_KEY_ENV
    from notify.vapid import load_private_key

    os.environ[VAPID_KEY_ENV] = load_private_key(data_dir)


async def run_notifier(url: str, data_dir: Path) -> None:
    """Run one notifier until SIGINT/SIGTERM."""
    from gateway.settings import SECRET_KEY_ENV
    from notify.notifier import Notifier
    from notify.settings import NotifierSettings
    from notify.vapid import load_private_key
    from orrery.config import ensure_partitions
    from orrery.errors import UserError
    from orrery.server.cluster import open_redis
    from services import metrics
    from streams.consumers import consumer_name

    key = os.environ.get(SECRET_KEY_ENV, "")
    if not key:
        raise UserError(f"a notifier needs the server key in ${SECRET_KEY_ENV}")
    settings = NotifierSettings.from_env()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    metrics.serve_metrics(None)
    redis = open_redis(url)
    try:
        partitions = await ensure_partitions(redis)
        name = consumer_name("notifier")
        notifier = Notifier(redis, settings, key, load_private_key(data_dir), name, partitions)
        metrics.name_process("notifier", name)
        structlog.contextvars.bind_contextvars(role="notifier", consumer=name)
        log.info("notifier_started", email=notifier.smtp is not None)
        await notifier.run(stop)
        log.info("notifier_stopped", delivered=notifier.delivered)
    finally:
        await redis.aclose()
