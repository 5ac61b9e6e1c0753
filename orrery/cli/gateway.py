"""``orrery gateway`` (the HTTP + WebSocket front door), ``orrery bots`` (the bot runner)
and ``orrery bench gateway``; see docs/gateway.md.

This is where the gateway gets what it may not import itself: replays fold a table's
log with the rules (``projections.tables.read_table`` + ``games.table.table_view``, the
one view function), plugged into the app as its :class:`gateway.tables.Replayer`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery.logs import configure_logging

_json = msgspec.json.Encoder()


class LogReplayer:
    """A seat's (or the spectator's) view at a seq, folded from the log on demand."""

    def __init__(self, client: Any) -> None:
        self.client = client  # the gateway's wire client: .redis, .partitions once connected

    async def view_at(self, table_id: str, seat: int | None, seq: int) -> bytes | None:
        from games.table import table_view
        from projections.tables import read_table

        if seq < 1:
            return None
        state = await read_table(self.client.redis, self.client.partitions, table_id, seq)
        if state.seq != seq or (seat is not None and seat >= state.seats):
            return None
        return _json.encode(table_view(state, seat))


def make_app(redis_url: str, data_dir: Path | None, cors: list[str] | None = None) -> Any:
    from gateway.app import create_app
    from gateway.settings import Settings, load_secret_key

    settings = Settings.from_env(redis_url, load_secret_key(data_dir))
    if cors:
        settings = dataclasses.replace(settings, cors_origins=tuple(cors))
    app = create_app(settings)
    gateway = app.state.gateway
    gateway.tables.replayer = LogReplayer(gateway.client)
    return app


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("gateway")(gateway_command)
    app.command("bots")(bots_command)
    bench_app.command("gateway")(bench_gateway_command)


RedisUrl = Annotated[
    str | None,
    typer.Option("--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL)"),
]
DataDir = Annotated[
    Path,
    typer.Option(
        "--data-dir", help="where the generated server key is kept without $ORRERY_SECRET_KEY"
    ),
]


def _url(redis_url: str | None) -> str:
    url = redis_url_from_env(redis_url)
    if not url:
        raise typer.BadParameter("the gateway needs --redis-url or ORRERY_REDIS_URL")
    return url


def gateway_command(
    redis_url: RedisUrl = None,
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: a free one)")] = 0,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option("--cors-origin", help="a browser origin allowed to call the API (repeat)"),
    ] = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Run the HTTP + WebSocket gateway; the first stdout line is its base URL."""
    from gateway.server import serve

    configure_logging()
    url = _url(redis_url)
    app = make_app(url, data_dir / "data", cors_origin)
    max_bytes = app.state.gateway.settings.max_body_bytes

    def ready(base: str) -> None:
        print(base, flush=True)

    asyncio.run(serve(app, host, port, max_message_bytes=max_bytes, on_ready=ready))


def bots_command(redis_url: RedisUrl = None, data_dir: DataDir = Path(DATA_DIR)) -> None:
    """Run the bot runner: plays every seat the gateway gave to a server-side bot."""
    from gateway.bots import BotRunner
    from gateway.settings import load_secret_key

    configure_logging()
    url = _url(redis_url)
    key = load_secret_key(data_dir / "data")

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await BotRunner(url, key).run(stop)

    asyncio.run(run())


def bench_gateway_command(
    commands: Annotated[int, typer.Option(help="commands per client kind")] = 400,
    spectators: Annotated[int, typer.Option(help="WebSocket spectators on one table")] = 100,
    updates: Annotated[int, typer.Option(help="updates the spectators watch")] = 60,
    tables: Annotated[int, typer.Option(help="tables (one driver each) per client kind")] = 8,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Commands/s and outcome p50/p99 through HTTP, the WebSocket and the Python SDK over
    Redis, and append-to-push latency to many spectators."""
    from orrery.bench.gateway import render, run_bench

    configure_logging("warning")
    result = run_bench(commands=commands, spectators=spectators, updates=updates, tables=tables)
    typer.echo(json.dumps(result, indent=2) if as_json else render(result))
    sys.stdout.flush()
