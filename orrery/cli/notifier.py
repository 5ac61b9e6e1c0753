"""The notifier's command: ``orrery notifier`` (the process)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery.logs import configure_logging

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]


def register(app: typer.Typer, _bench: typer.Typer) -> None:
    app.command()(notifier)


def notifier(redis_url: RedisUrl = None) -> None:
    """Run one notifier: tells players who are away that tables wait for them (Web Push,
    e-mail). Any number may run side by side."""
    from orrery.errors import UserError
    from orrery.notifying import run_notifier
    from orrery.runtime import server_for

    configure_logging()
    data = Path(DATA_DIR) / "data"
    with server_for(redis_url_from_env(redis_url), data) as url:
        try:
            asyncio.run(run_notifier(url, data))
        except ValueError as error:  # a bad ORRERY_SMTP_URL, said in one line
            raise UserError(str(error)) from None
