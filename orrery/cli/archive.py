"""The archive's commands: ``orrery archiver`` (the process), ``orrery archive status |
run | restore`` and ``orrery ratings rebuild GAME`` (docs/archive.md)."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from orrery.archiving import archive_url, opened_archive, run_archiver
from orrery.cli.ops import command_server
from orrery.config import DATA_DIR, redis_url_from_env
from orrery.errors import UserError
from orrery.logs import configure_logging

RedisUrl = Annotated[
    str | None,
    typer.Option(
        "--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL, else embedded)"
    ),
]
ArchiveUrl = Annotated[
    str | None,
    typer.Option(
        "--archive-url",
        help="sqlite:///PATH or postgresql://… (default: $ORRERY_ARCHIVE_URL, else "
        "<data-dir>/data/archive.sqlite3)",
    ),
]
DataDir = Annotated[Path, typer.Option("--data-dir", help="the data folder")]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Wire the commands into the CLI (their order is the order ``--help`` lists them)."""
    archive_app = typer.Typer(no_args_is_help=True, help="Finished tables in the archive.")
    app.add_typer(archive_app, name="archive")
    app.command()(archiver)
    archive_app.command("status")(archive_status_command)
    archive_app.command("run")(archive_run)
    archive_app.command("restore")(archive_restore)
    ratings_app = typer.Typer(no_args_is_help=True, help="Ratings of verified players.")
    app.add_typer(ratings_app, name="ratings")
    ratings_app.command("rebuild")(ratings_rebuild)
    bench_app.command("archive")(bench_archive)


def archiver(
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    partitions: Annotated[int | None, typer.Option(envvar="ORRERY_PARTITIONS")] = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Run one archiver: moves ended tables from Redis to the archive.

    Tables that ended more than $ORRERY_ARCHIVE_AFTER_S ago (default 600); any number
    of archivers may run side by side."""
    from orrery.runtime import server_for

    configure_logging()
    store = archive_url(archive_url_option, data_dir)
    with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
        asyncio.run(run_archiver(url, store, partitions))


def archive_status_command(
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
) -> None:
    """The archive's reachability and size, and the tables not archived yet.

    Exits 2 when the archive cannot be reached."""
    from orrery.ops.status import ArchiveStatus, archive_status, print_archive_status
    from orrery.server.cluster import open_redis

    configure_logging("warning")
    store = archive_url(archive_url_option, data_dir)

    async def collect() -> ArchiveStatus:
        redis = open_redis(url)
        try:
            partitions = int(await redis.hget("orrery:config", "partitions") or 16)
            return await archive_status(redis, partitions, store)
        finally:
            await redis.aclose()

    with command_server(redis_url, data_dir) as url:
        found = asyncio.run(collect())
    if as_json:
        print(json.dumps(asdict(found), indent=2))
    else:
        print_archive_status(found)
    if not found.reachable:
        raise typer.Exit(2)


def archive_run(
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
    older_than: Annotated[
        float | None,
        typer.Option(
            "--older-than",
            help="archive tables that ended more than S seconds ago "
            "(default: $ORRERY_ARCHIVE_AFTER_S, else 600; 0: every ended table)",
        ),
    ] = None,
) -> None:
    """Archive the ended tables now (once), then exit."""
    configure_logging("warning")
    store = archive_url(archive_url_option, data_dir)
    with command_server(redis_url, data_dir) as url:
        moved, left = asyncio.run(_run_once(url, store, older_than))
    print(f"{moved} tables archived; {left} ended tables left in Redis")


def archive_restore(
    table: Annotated[str, typer.Argument(help="the table id")],
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Put an archived table back into Redis (e.g. for inspection), its chat too.

    The archiver moves it out again once it is due; its archived copy stays."""
    configure_logging("warning")
    store = archive_url(archive_url_option, data_dir)
    with command_server(redis_url, data_dir) as url:
        events = asyncio.run(_restore(url, store, table))
    print(f"{table}: {events} events restored to Redis")


def ratings_rebuild(
    game: Annotated[str, typer.Argument(help="the game whose ratings are recomputed")],
    redis_url: RedisUrl = None,
    archive_url_option: ArchiveUrl = None,
    data_dir: DataDir = Path(DATA_DIR),
) -> None:
    """Recompute every player's rating at GAME from the archive plus the live finished
    tables, in finish order (the result equals the live leaderboard)."""
    from games.registry import all_games
    from orrery.arguments import check_game

    configure_logging("warning")
    check_game(game, list(all_games()))
    store = archive_url(archive_url_option, data_dir)
    with command_server(redis_url, data_dir) as url:
        tables = asyncio.run(_rebuild_ratings(url, store, game))
    print(f"{game}: ratings recomputed from {tables} finished tables")


def bench_archive(
    games: Annotated[int, typer.Option("--games", min=3, help="finished games")] = 200,
    archive_url_option: Annotated[
        str | None,
        typer.Option("--archive-url", help="the archive to write (default: a scratch SQLite file)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
    scratch: Annotated[Path, typer.Option(help="scratch folder")] = Path(DATA_DIR)
    / "bench-archive",
) -> None:
    """Archive rate, bytes per event, Redis memory per game before and after, replay
    latency from the archive vs Redis, with their targets."""
    from orrery.bench.archive import as_dict, render, run_archive_bench

    configure_logging("error")
    figures = run_archive_bench(scratch, games, archive_url_option)
    if as_json:
        print(json.dumps(as_dict(figures), indent=2))
    else:
        render(figures)


async def _rebuild_ratings(url: str, store: str, game: str) -> int:
    from orrery.server.cluster import open_redis
    from projections.scoreboard import rebuild_ratings

    redis = open_redis(url)
    try:
        async with opened_archive(store) as archive:
            return await rebuild_ratings(redis, game, archive)
    finally:
        await redis.aclose()


async def _run_once(url: str, store: str, older_than: float | None) -> tuple[int, int]:
    from archive.archiver import Archiver
    from archive.hot import HotKeys
    from orrery.config import ensure_partitions
    from orrery.server.cluster import open_redis

    redis = open_redis(url)
    try:
        partitions = await ensure_partitions(redis)
        async with opened_archive(store) as archive:
            archiver = Archiver(redis, partitions, archive)
            if older_than is not None:
                archiver.after_s = older_than
            await HotKeys(redis, partitions).sweep(_now_ms())
            moved = 0
            while True:
                done = await archiver.run_once()
                moved += done
                if not done:
                    break
            cutoff = _now_ms() - int(archiver.after_s * 1000)
            left = 0
            for p in range(partitions):
                left += len(await archiver.hot.due(p, cutoff, 10_000))
            return moved, left
    finally:
        await redis.aclose()


async def _restore(url: str, store: str, table_id: str) -> int:
    from archive.hot import ALREADY_CHATTING, HotKeys
    from orrery.config import ensure_partitions
    from orrery.server.cluster import open_redis
    from services.transfer import TableExists, restore_archived

    redis = open_redis(url)
    try:
        partitions = await ensure_partitions(redis)
        async with opened_archive(store) as archive:
            stored = await archive.get_table(table_id)
            chat = await archive.get_chat(table_id) or []
        if stored is None:
            raise UserError(f"{table_id} is not in the archive")
        if not stored.intact:
            print(f"warning: {table_id}'s archived log does not reach its head", file=sys.stderr)
        # the chat before the log: once the log is back an archiver may take the table
        # (chat and all) at once; until then readers take the chat from the archive
        restored = await HotKeys(redis, partitions).restore_chat(table_id, chat)
        if restored == ALREADY_CHATTING:
            print(f"warning: {table_id} has a chat in Redis already; kept", file=sys.stderr)
        try:
            return await restore_archived(redis, partitions, stored.entries)
        except TableExists:
            raise UserError(f"{table_id} is in Redis already") from None
    finally:
        await redis.aclose()


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)
