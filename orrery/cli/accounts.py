"""``orrery accounts check``: the one-off look-alike check over existing accounts.

Names are unique by their confusable skeleton since accounts got look-alike keys
(gateway/names.py); accounts made before may already share one (``Alice`` and ``Аlice``
with a Cyrillic А). This command gives every account the keys still free and lists the
groups that collide, so an operator can rename or contact them. Nothing is renamed or
locked: every existing account keeps signing in. Exit code 1 when a group is found.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer

from orrery.cli import DataDir, RedisUrl
from orrery.config import DATA_DIR, redis_url_from_env

accounts_app = typer.Typer(no_args_is_help=True, help="Player accounts (the gateway's).")


@accounts_app.command("check")
def accounts_check(
    redis_url: RedisUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
) -> None:
    """Report accounts whose names look the same (UTS #39 skeleton); register the
    look-alike keys of accounts made before they existed."""
    from gateway.accounts import LookalikeReport, check_lookalikes
    from orrery.logs import configure_logging
    from orrery.runtime import server_for
    from orrery.server.cluster import open_redis

    configure_logging("warning")

    async def run(url: str) -> LookalikeReport:
        redis = open_redis(url)
        try:
            return await check_lookalikes(redis)
        finally:
            await redis.aclose()

    with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
        report = asyncio.run(run(url))
    groups = [[{"player_id": a.player_id, "name": a.name} for a in g] for g in report.collisions]
    if as_json:
        print(json.dumps({"accounts": report.accounts, "collisions": groups}, indent=2))
    else:
        print(f"{report.accounts} accounts, {len(groups)} groups of look-alike names")
        for group in groups:
            print("  " + " | ".join(f"{m['name']!r} ({m['player_id']})" for m in group))
    if groups:
        raise typer.Exit(1)


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.add_typer(accounts_app, name="accounts")
