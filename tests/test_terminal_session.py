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
import json
import random
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clients.terminal import Session
from clients.terminal.renderers import make_console
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts import keys
from orrery_contracts.chat import ChatMessage
from orrery_contracts.envelope import Accepted, Rejection
from tests.support.service import LiveService, live_service

pytestmark = pytest.mark.service


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
        started = await client.start(me)
        session = Session(client, me, make_console(file=out, width=100))
        running = asyncio.create_task(session.run(lines))
        # my turn in the started game (the lobby's menu is live too, and the session may
        # still show the lobby when the projector is stopped)
        await until(
            lambda: session.may_choose() and session.view["seq"] >= started.last_seq  # type: ignore[index]
        )
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


async def leave_junkyard(
    client: OrreryClient, seats: list[SeatCredentials], seq: int
) -> SeatCredentials:
    """Play a SPACEcraft table through the SDK until a seat may leave the junkyard."""
    view = await client.wait_view(seats[0].table_id, None, seq)
    while True:
        seat = seats[view["to_move"][0]]
        view = await client.wait_view(seat.table_id, seat.seat, view["seq"])
        kinds = {c["type"]: c for c in view["legal"]}
        if "sc.leave" in kinds:
            return seat
        kind = next(k for k in ("sc.choose_goal", "sc.visit", "sc.search") if k in kinds)
        played = await client.play_and_view(seat, kinds[kind])
        assert isinstance(played.outcome, Accepted), played.outcome
        view = played.view


async def test_undo_through_the_sdk_and_the_u_key_and_chat_with_c(live: LiveService) -> None:
    out = io.StringIO()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    async with OrreryClient(live.url) as client:
        table = await client.create_table("spacecraft", 2, table_id="term-undo")
        seats = [await client.join(table, "Ann"), await client.join(table, "Ben")]
        started = await client.start(seats[0])
        me = await leave_junkyard(client, seats, started.last_seq)
        before = await client.view(table, me.seat)
        assert before is not None
        # the SDK: leave, undo (the view is the one before), then nothing is left to undo
        left = await client.play_and_view(me, {"type": "sc.leave"})
        assert {"type": "table.undo", "to_seq": None} in left.view["legal"]
        undone = await client.undo(me)
        assert isinstance(undone, Accepted)
        after = await client.wait_view(table, me.seat, undone.last_seq)
        # the same view but for what tells the latest command (the undo, not the move)
        told = ("seq", "actor", "undone_by")
        assert {k: v for k, v in after.items() if k not in told} == {
            k: v for k, v in before.items() if k not in told
        }
        refused = await client.undo(me)
        assert isinstance(refused, Rejection) and refused.code == "undo_blocked"
        assert refused.detail == {"reason": "nothing_to_undo"}

        # the terminal: u takes the move back, c says something, the chat shows as text
        session = Session(client, me, make_console(file=out, width=100))
        running = asyncio.create_task(session.run(lines))
        await until(lambda: session.may_choose())
        await lines.put('j {"type": "sc.leave"}')
        await until(lambda: session.moves == 1 and not session.waiting_for_own_move)
        await lines.put("u")
        await until(lambda: "take back your last move" in out.getvalue())
        await until(lambda: session.moves == 2 and not session.waiting_for_own_move)
        assert session.view is not None and {"type": "sc.leave"} in session.view["legal"]
        await lines.put("c [bold]gg[/bold] <b>all</b>")
        await until(lambda: len(session.chat) == 1)
        other = seats[1 - me.seat]
        await client.say(other, "thanks Ann")
        await until(lambda: len(session.chat) == 2)
        await lines.put("r")
        await until(lambda: "thanks Ann" in out.getvalue())
        assert "[bold]gg[/bold] <b>all</b>" in out.getvalue()  # as typed, never markup
        await lines.put("u")  # nothing left to take back this turn: the answer says why
        await until(lambda: "rejected undo_blocked" in out.getvalue())
        await lines.put("q")
        result = await running
    assert result.reason == "quit"
    messages = await client_chat(live, table)
    assert [m.text for m in messages] == ["[bold]gg[/bold] <b>all</b>", "thanks Ann"]


async def client_chat(live: LiveService, table: str) -> list[ChatMessage]:
    async with OrreryClient(live.url) as client:
        return await client.chat(table)


HOSTILE = [
    "\x1b[2J",  # clear the screen
    "\x1b]0;owned\x07",  # set the window title
    "\x1b[5m",  # blink
    "\x1bP+q\x1b\\",  # a device control string
    "\x9b31m",  # an 8-bit CSI
    "\x1bc",  # reset the terminal
]


async def test_text_written_past_intake_reaches_the_terminal_as_text_only(
    live: LiveService,
) -> None:
    """A chat entry written into the stream directly (the intake refuses such text; the
    client does not rely on it) shows its words, and no escape sequence or control
    character of it reaches the terminal."""
    out = io.StringIO()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2, table_id="term-escapes")
        me = await client.join(table, "Me")
        other = await client.join(table, "Eve")
        await client.start(me)
        text = "hello " + " ".join(f"{seq}w{i}" for i, seq in enumerate(HOSTILE))
        entry = {"seat": other.seat, "name": "Eve\x1b]0;x\x07", "text": text, "at": 1}
        stream = keys.chat_stream(client.partition(table), table)
        await client.redis.xadd(stream, {"__data__": json.dumps(entry)})
        # styles the client draws itself still reach the terminal
        session = Session(client, me, make_console(file=out, width=100, force_terminal=True))
        running = asyncio.create_task(session.run(lines))
        await until(lambda: "hello" in out.getvalue())
        await lines.put("q")
        await running
    shown = out.getvalue()
    assert "Eve: hello w0 w1 w2 w3 w4 w5" in re.sub(r"\x1b\[[0-9;]*m", "", shown)
    for i, sequence in enumerate(HOSTILE):  # the client clears the screen itself, too
        assert f"{sequence}w{i}" not in shown and f"{sequence[1:]}w{i}" not in shown, sequence
    assert "\x1b]" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert re.search(r"\x1b\[[0-9;]*m", shown)  # the client's own styles


def test_printable_removes_every_escape_and_control_but_the_clients_own_lines() -> None:
    from clients.terminal.printable import printable

    assert printable("a\x1b[2Jb\x1b]0;t\x07c\x1b[5md\x00e\x7ff\x9b1mg\x1bch") == "abcdefgh"
    assert printable("one\ntwo\tthree\rfour") == "one two three four"
    assert printable("one\ntwo", keep_lines=True) == "one\ntwo"
    assert printable("unterminated \x1b]0;title") == "unterminated "
    assert printable("Zoë 🚀 名前") == "Zoë 🚀 名前"
