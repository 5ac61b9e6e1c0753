"""Shared settings: where Redis is, the partition count recorded in ``orrery:config``, and
how the user runs orrery (``$ORRERY_PROG``, for the commands a line tells them to type).

``P`` is fixed when the data is first initialised: every table's keys carry its
partition, so changing ``P`` later would move tables (it needs a migration).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from redis.exceptions import NoPermissionError

from orrery.errors import UserError
from orrery.server.credentials import with_folder_password
from orrery_contracts import keys

ENV_URL = "ORRERY_REDIS_URL"
ENV_USERNAME = "ORRERY_REDIS_USERNAME"
ENV_PASSWORD = "ORRERY_REDIS_PASSWORD"
DATA_DIR = ".orrery"
# How the user runs the command line, when not as ``orrery``: dev.py sets it to what was
# typed (``python3 dev.py orrery``), so "come back with …" names a command that works.
ENV_PROG = "ORRERY_PROG"
CONFIG_WAIT_S = 60.0


def program() -> str:
    """The command line as the user runs it: ``orrery``, or ``$ORRERY_PROG``."""
    return os.environ.get(ENV_PROG) or "orrery"


class PartitionMismatch(UserError):
    """The data was initialised with another partition count."""


async def ensure_partitions(
    redis: Any, requested: int | None = None, wait_s: float = CONFIG_WAIT_S
) -> int:
    """The partition count in force, recording ``requested`` (or the default) if none is.

    A role whose Redis user may only read ``orrery:config`` (a projector, docs/security.md)
    waits up to ``wait_s`` for a worker or ``orrery repair`` to record it."""
    wanted = requested or keys.DEFAULT_PARTITIONS
    found = await redis.hget(keys.CONFIG_KEY, "partitions")
    deadline = time.monotonic() + wait_s
    while found is None:
        try:
            await redis.hsetnx(keys.CONFIG_KEY, "partitions", wanted)
        except NoPermissionError:
            if time.monotonic() > deadline:
                raise PartitionMismatch(
                    "orrery:config has no partition count and this Redis user may not "
                    "record one: run `orrery repair --partitions P` (or start a worker) first"
                ) from None
            await asyncio.sleep(0.5)
        found = await redis.hget(keys.CONFIG_KEY, "partitions")
    stored = int(found)
    if requested is not None and stored != requested:
        raise PartitionMismatch(
            f"this data was initialised with {stored} partitions, not {requested}; "
            "changing it needs a migration"
        )
    return stored


def redis_url_from_env(explicit: str | None) -> str | None:
    """The server URL (``--redis-url`` or ``$ORRERY_REDIS_URL``), with the credentials of
    ``$ORRERY_REDIS_USERNAME`` / ``$ORRERY_REDIS_PASSWORD`` when the URL names none."""
    url = explicit or os.environ.get(ENV_URL) or None
    return with_credentials(url) if url else None


def command_url(explicit: str | None, data_dir: Path) -> str | None:
    """The server URL a command was given (:func:`redis_url_from_env`), with the password
    of the data folder's user filled in when it names that user without one (the URL
    ``orrery serve`` printed); None without a URL. ``data_dir``: where the folder's
    ``credentials.json`` is (``<--data-dir>/data``)."""
    url = redis_url_from_env(explicit)
    return with_folder_password(url, data_dir) if url else None


def with_credentials(url: str) -> str:
    """``url`` with the environment's Redis user and password, unless it has its own."""
    password = os.environ.get(ENV_PASSWORD, "")
    if not password:
        return url
    scheme, sep, rest = url.partition("://")
    if not sep or "@" in rest.split("/", 1)[0]:
        return url
    user = quote(os.environ.get(ENV_USERNAME, ""), safe="")
    return f"{scheme}://{user}:{quote(password, safe='')}@{rest}"
