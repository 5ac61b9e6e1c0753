"""``orrery chat delete TABLE ID``: an operator removes a chat message, leaving a
"deleted" marker in its place for every reader and live client (services/chat.py).

A table archived with its chat (archive/chat.py) has it in the archive, not in Redis:
the message is deleted there (``Archive.delete_chat_message``), leaving the same marker
for ``GET …/chat`` and for a restore. Redis is asked first: a live or restored table's
chat, and a chat left in Redis by an archiver that did not move chats yet, are there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from orrery.archiving import archive_url
from orrery.config import DATA_DIR, redis_url_from_env
from orrery.errors import UserError


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    chat_app = typer.Typer(no_args_is_help=True, help="Table chats (moderation).")
    app.add_typer(chat_app, name="chat")
    chat_app.command("delete")(chat_delete)


def chat_delete(
    table_id: Annotated[str, typer.Argument(help="the table")],
    message_id: Annotated[str, typer.Argument(help="the message id (as GET …/chat shows)")],
    redis_url: Annotated[
        str | None,
        typer.Option("--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL)"),
    ] = None,
    archive_url_option: Annotated[
        str | None,
        typer.Option(
            "--archive-url",
            help="the archive, for an archived table's chat (default: "
            "$ORRERY_ARCHIVE_URL, else <data-dir>/data/archive.sqlite3)",
        ),
    ] = None,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="embedded server's data folder")
    ] = Path(DATA_DIR),
) -> None:
    """Delete a chat message (a "deleted" marker stays in its place), in Redis or,
    for an archived table, in the archive."""
    from orrery.logs import configure_logging
    from orrery.runtime import server_for

    configure_logging("warning")
    store = archive_url(archive_url_option, data_dir)
    with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
        where = asyncio.run(delete_message(url, store, table_id, message_id))
    if not where:
        raise UserError(f"table {table_id!r} has no chat message {message_id!r}")
    suffix = " (in the archive)" if where == "archive" else ""
    print(f"deleted chat message {message_id} of table {table_id}{suffix}")


async def delete_message(url: str, store: str, table_id: str, message_id: str) -> str:
    """Where the message was deleted: ``redis``, ``archive`` or ``""`` (nowhere)."""
    import redis.asyncio as aioredis

    from orrery.archiving import opened_archive
    from orrery.config import ensure_partitions
    from orrery_contracts import keys
    from services.chat import ChatDesk

    redis = aioredis.Redis.from_url(url)
    try:
        partitions = await ensure_partitions(redis)
        if await ChatDesk(redis, partitions).delete(table_id, message_id):
            return "redis"
        tombstone = keys.tombstone_key(keys.partition_of(table_id, partitions), table_id)
        if not await redis.exists(tombstone):
            return ""
    finally:
        await redis.aclose()
    async with opened_archive(store) as archive:
        found = await archive.delete_chat_message(table_id, message_id)
    return "archive" if found else ""
