"""``orrery gateway`` (the HTTP + WebSocket front door), ``orrery bots`` (the bot runner)
and ``orrery bench gateway``: their arguments; the processes are wired in
orrery/gateway.py. See docs/gateway.md.
"""

from __future__ import annotations

import errno
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from orrery.arguments import port_problem
from orrery.config import DATA_DIR, command_url
from orrery.errors import UserError
from orrery.logs import configure_logging


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command("gateway")(gateway_command)
    app.command("bots")(bots_command)
    bench_app.command("gateway")(bench_gateway_command)
    bench_app.command("capacity")(bench_capacity_command)


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


def _url(redis_url: str | None, data_dir: Path) -> str:
    url = command_url(redis_url, data_dir / "data")
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
    reuse_port: Annotated[
        bool,
        typer.Option(
            "--reuse-port", help="share the port with other gateway processes (SO_REUSEPORT)"
        ),
    ] = False,
) -> None:
    """Run the HTTP + WebSocket gateway; the first stdout line is its base URL."""
    from orrery.gateway import make_app, serve_gateway

    configure_logging()
    url = _url(redis_url, data_dir)
    app = make_app(url, data_dir / "data", cors_origin)

    def ready(base: str) -> None:
        print(base, flush=True)

    try:
        serve_gateway(app, host, port, ready, reuse_port=reuse_port)
    except OSError as error:
        if error.errno not in (errno.EADDRINUSE, errno.EACCES):
            raise
        raise UserError(port_problem(port, "--port", error)) from None


def bots_command(redis_url: RedisUrl = None, data_dir: DataDir = Path(DATA_DIR)) -> None:
    """Run the bot runner: plays every seat the gateway gave to a server-side bot."""
    from gateway.settings import load_secret_key
    from orrery.gateway import run_bots

    configure_logging()
    run_bots(_url(redis_url, data_dir), load_secret_key(data_dir / "data"))


def bench_gateway_command(
    commands: Annotated[int, typer.Option(help="commands per client kind")] = 1200,
    spectators: Annotated[int, typer.Option(help="WebSocket spectators on one table")] = 100,
    updates: Annotated[
        int,
        typer.Option(help="moves the spectators watch (on as many one-seat tables as that takes)"),
    ] = 60,
    tables: Annotated[int, typer.Option(help="tables (one driver each) per client kind")] = 8,
    rounds: Annotated[
        int, typer.Option(min=1, help="rounds the client kinds take turns in")
    ] = 3,  # (orrery.bench.gateway.ROUNDS: the bench module loads only when run)
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Commands/s and outcome p50/p99 through HTTP, the WebSocket and the Python SDK over
    Redis, and append-to-push latency to many spectators."""
    from orrery.bench.gateway import render, run_bench

    configure_logging("warning")
    result = run_bench(
        commands=commands, spectators=spectators, updates=updates, tables=tables, rounds=rounds
    )
    typer.echo(json.dumps(result, indent=2) if as_json else render(result))
    sys.stdout.flush()


def _numbers(text: str, name: str) -> tuple[float, ...]:
    try:
        numbers = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        numbers = ()
    if not numbers or any(n < 0 for n in numbers):
        raise typer.BadParameter(f"{name}: comma-separated numbers, e.g. 1000,2000")
    return numbers


def bench_capacity_command(
    gateways: Annotated[
        int | None,
        typer.Option(min=1, help="gateway processes on the one port (default: one per core)"),
    ] = None,
    steps: Annotated[
        str, typer.Option(help="the ramp: concurrent clients per step (two sockets each)")
    ] = "1000,2000,5000,10000,20000",
    window: Annotated[float, typer.Option(min=1.0, help="seconds measured per step")] = 60.0,
    think: Annotated[str, typer.Option(help="a player's think time: MIN,MAX seconds")] = "2,20",
    generators: Annotated[int, typer.Option(min=1, help="load-generator processes")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Concurrent players one machine holds (each signed in, with a notice socket and a
    table socket) with push p99 ≤ 250 ms, beside a raw WebSocket server of the same
    library on the same port."""
    from orrery.bench.capacity import render, run_bench
    from orrery.runtime import default_gateways

    ramp = tuple(int(n) for n in _numbers(steps, "--steps"))
    low_high = _numbers(think, "--think")
    if len(low_high) != 2 or low_high[0] > low_high[1]:
        raise typer.BadParameter("--think: MIN,MAX seconds, e.g. 2,20")
    configure_logging("warning")
    result = run_bench(
        gateways or default_gateways(),
        steps=ramp,
        window=window,
        think=(low_high[0], low_high[1]),
        generators=generators,
    )
    typer.echo(json.dumps(result, indent=2) if as_json else render(result))
    sys.stdout.flush()
