"""``orrery chat delete TABLE ID``: an operator removes a chat message, leaving a
"deleted" marker in its place for every reader and live client (services/chat.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from orrery.config import DATA_DIR, redis_url_from_env
from orrery.errors import UserError


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    chat_app = typer.Typer(no_args_is_help=True, help="Table chats (moderation).")
    app.add_typer(chat_app, name="chat")

    @chat_app.command("delete")
    def chat_delete(
        table_id: Annotated[str, typer.Argument(help="the table")],
        message_id: Annotated[str, typer.Argument(help="the message id (as GET …/chat shows)")],
        redis_url: Annotated[
            str | None,
            typer.Option("--redis-url", help="Redis/Valkey URL (default: $ORRERY_REDIS_URL)"),
        ] = None,
        data_dir: Annotated[
            Path, typer.Option("--data-dir", help="embedded server's data folder")
        ] = Path(DATA_DIR),
    ) -> None:
        """Delete a chat message (a "deleted" marker stays in its place)."""
        import redis.asyncio as aioredis

        from orrery.config import ensure_partitions
        from orrery.logs import configure_logging
        from orrery.runtime import server_for
        from services.chat import ChatDesk

        configure_logging("warning")

        async def run(url: str) -> bool:
            redis = aioredis.Redis.from_url(url)
            try:
                desk = ChatDesk(redis, await ensure_partitions(redis))
                return await desk.delete(table_id, message_id)
            finally:
                await redis.aclose()

        with server_for(redis_url_from_env(redis_url), data_dir / "data") as url:
            if not asyncio.run(run(url)):
                raise UserError(f"table {table_id!r} has no chat message {message_id!r}")
        print(f"deleted chat message {message_id} of table {table_id}")
