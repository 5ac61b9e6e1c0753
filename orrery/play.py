"""``orrery play``: a person plays one seat in the terminal; bots take the other seats."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path
from typing import Annotated

import typer

from orrery.config import DATA_DIR, redis_url_from_env


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    app.command()(play)


def play(
    game: Annotated[str, typer.Option(help="game to play")],
    seat: Annotated[int, typer.Option(help="your seat (0-based)")] = 0,
    players: Annotated[int | None, typer.Option(help="seats at the table")] = None,
    name: Annotated[str, typer.Option(help="your name")] = "You",
    redis_url: Annotated[
        str | None, typer.Option("--redis-url", help="a running service (default: embedded)")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the bots' choices")] = None,
    data_dir: Annotated[Path, typer.Option("--data-dir")] = Path(DATA_DIR),
) -> None:
    """Play a seat in the terminal against random bots, through the real service."""
    from rich.console import Console

    from clients.bot import play_seat
    from clients.sdk import OrreryClient
    from clients.terminal import play_terminal
    from orrery.cli import _players_for
    from orrery.logs import configure_logging
    from orrery.runtime import server_for, service

    configure_logging("warning")
    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")
    seats = _players_for(game, players)
    if not 0 <= seat < seats:
        raise typer.BadParameter(f"seat must be 0 to {seats - 1}")
    rng = random.Random(seed)
    console = Console()

    async def read_line(prompt: str) -> str:
        return await asyncio.to_thread(console.input, prompt)

    async def run(url: str, start_service: bool) -> None:
        async def table() -> None:
            async with OrreryClient(url) as client:
                table_id = await client.create_table(game, seats)
                console.print(f"table {table_id} ({game}, {seats} seats)")
                creds = []
                for s in range(seats):
                    creds.append(await client.join(table_id, name if s == seat else f"bot{s}", s))
                await client.start(creds[0])
                bots = [
                    asyncio.create_task(play_seat(client, c, random.Random(rng.random())))
                    for c in creds
                    if c.seat != seat
                ]
                await play_terminal(client, creds[seat], read_line, console)
                for bot in bots:
                    bot.cancel()

        if start_service:
            async with service(url, 1, 1):
                await table()
        else:
            await table()

    explicit = redis_url_from_env(redis_url)
    with server_for(explicit, data_dir / "data") as url:
        asyncio.run(run(url, start_service=explicit is None))
