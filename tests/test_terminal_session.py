"""The terminal session against a live service, with the projector held still on purpose.

Pausing the projector process (SIGSTOP) makes the race behind the "stuck in a
simultaneous phase" bug certain instead of likely: the service has accepted a move, but
no view showing it exists yet. The session must not offer the old choices again until
the view that includes its move arrives, and after a rejection it must read the table
anew. Then it plays the (tiny) game to its end.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clients.terminal import Session
from clients.terminal.renderers import make_console
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient
from tests.support.service import LiveService, live_service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("terminal-session"))) as service:
        yield service


async def until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


async def test_a_move_waits_for_its_own_view_and_a_rejection_refreshes(live: LiveService) -> None:
    projector = live.processes[-1]
    out = io.StringIO()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2, table_id="term-wait")
        me = await client.join(table, "Me")
        other = await client.join(table, "Other")
        await client.start(me)
        session = Session(client, me, make_console(file=out, width=100))
        running = asyncio.create_task(session.run(lines))
        await until(lambda: session.may_choose())
        seen = session.view
        assert seen is not None
        projector.send_signal(signal.SIGSTOP)
        try:
            await lines.put("1")  # tiny.draw: accepted, but no view can show it yet
            await until(lambda: session.moves == 1)
            assert session.awaiting > seen["seq"] == session.view["seq"]  # type: ignore[index]
            assert not session.may_choose()
            assert session.prompt().startswith("waiting for the table to show your move")
            await lines.put("1")  # the old choices are not offered again
            await until(lambda: "has not shown your last move yet" in out.getvalue())
            assert session.moves == 1
        finally:
            projector.send_signal(signal.SIGCONT)
        await until(lambda: session.view is not None and session.view["seq"] >= session.awaiting)
        assert "rejected" not in out.getvalue()

        # not our turn now: a command sent anyway is refused, and the table read anew
        await until(lambda: session.view is not None and 1 in session.view["to_move"])
        await lines.put('j {"type": "tiny.stand"}')
        await until(lambda: "rejected not_your_turn" in out.getvalue())

        bot = asyncio.create_task(play_seat(client, other, random.Random(2)))
        while not running.done():
            if session.may_choose():
                await lines.put("1")
            await asyncio.sleep(0.05)
        result = await running
        await asyncio.wait_for(bot, 30)
    assert result.reason == "finished" and result.view is not None
    text = out.getvalue()
    assert "final standing" in text and "Me (you)" in text
    assert len(set(re.findall(r"rejected [^\n]*", text))) == 1
