"""The terminal client plays a seat to the end through the real service."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from clients.bot import play_seat
from clients.sdk import OrreryClient
from clients.terminal import play_terminal
from tests.support.service import LiveService, live_service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("terminal"))) as service:
        yield service


async def test_a_person_plays_a_seat_to_the_end(live: LiveService) -> None:
    out = io.StringIO()
    console = Console(file=out, width=120)
    answers = iter(["nonsense", "j {bad", "1", 'j {"type": "tiny.stand"}'] + ["1"] * 50)
    prompts: list[str] = []

    async def read_line(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2, table_id="term-1")
        me = await client.join(table, "Me")
        bot = await client.join(table, "Bot")
        await client.start(me)
        bot_task = asyncio.create_task(play_seat(client, bot, random.Random(1)))
        final = await asyncio.wait_for(play_terminal(client, me, read_line, console), 60)
        await asyncio.wait_for(bot_task, 30)
    text = out.getvalue()
    assert final["phase"] == "finished"
    assert prompts and "type a number from the list" in text
    assert "tiny.draw" in text and "final standing" in text
    # the screen shows this seat's cards, never the other seat's before the end
    assert "Me (you)" in text
