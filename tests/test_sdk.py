"""The Python SDK as a client developer uses it: typed views, the view that includes a
command's outcome, and types a type checker holds them to."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from mypy import api as mypy_api

from orrery_client.sdk import OrreryClient
from orrery_client.table_watch import TableWatch, WatchClosed
from orrery_contracts.envelope import Accepted, Rejection
from orrery_contracts.table import CreateTable
from tests.support.service import REPO, LiveService, live_service
from tests.support.tinygame import Draw, Stand, TinyView

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("sdk"))) as service:
        yield service


async def test_play_and_view_returns_the_view_that_includes_the_move(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2)
        a = await client.join(table, "Ann")
        b = await client.join(table, "Bob")
        await client.start(a)
        played = await client.play_and_view(a, Draw())
        assert isinstance(played.outcome, Accepted)
        assert played.view["seq"] >= played.outcome.last_seq  # never the view before it
        refused = await client.play_and_view(a, Stand())  # not a's turn any more
        assert isinstance(refused.outcome, Rejection) and refused.view["seq"] >= 1
        typed = await client.typed_view(table, b.seat, TinyView)
        assert typed is not None and isinstance(typed.view, TinyView)
        assert typed.view.seats[b.seat].cards is not None  # b's own cards, as a Struct
        assert typed.view.seats[a.seat].cards is None


def test_the_sdk_is_typed_for_its_users(tmp_path: Path) -> None:
    assert (REPO / "clients" / "orrery_client" / "py.typed").exists()
    assert (REPO / "contracts" / "orrery_contracts" / "py.typed").exists()
    snippet = (
        "from orrery_client.sdk import OrreryClient\n"
        "from orrery_contracts.fractured_sky.commands import PlaceAirship\n"
        "from tests.support.tinygame import TinyView\n"
        "async def f(c: OrreryClient) -> None:\n"
        "    v = await c.typed_view('t', 0, TinyView)\n"
        "    assert v is not None and v.view is not None\n"
        "    v.view.seatz\n"  # a typo: an error
        "    PlaceAirship(region=7, chp=7)\n"  # a misspelt field of a command: an error
    )
    (tmp_path / "client_app.py").write_text(snippet)
    # an editable install maps the two packages' folders with an import hook mypy does not
    # run: point it at them, as an installed orrery-client would be found in site-packages
    folders = f"{REPO / 'contracts'}:{REPO / 'clients'}"
    (tmp_path / "mypy.ini").write_text(f"[mypy]\nmypy_path = {folders}\n")
    out, _, code = mypy_api.run(
        ["--config-file", str(tmp_path / "mypy.ini"), "--no-incremental",
         str(tmp_path / "client_app.py")]
    )  # fmt: skip
    assert code == 1
    assert '"TinyView" has no attribute "seatz"' in out
    assert 'Unexpected keyword argument "chp" for "PlaceAirship"' in out


def _named(url: str, name: str) -> OrreryClient:
    """A client whose connections carry ``name`` (CLIENT LIST shows what each last did)."""
    client = OrreryClient(url)
    client.redis.connection_pool.connection_kwargs["client_name"] = name
    return client


async def _connections(url: str, name: str) -> list[dict[str, str]]:
    admin = aioredis.Redis.from_url(url)
    try:
        return [c for c in await admin.client_list() if c.get("name") == name]
    finally:
        await admin.aclose()


async def test_a_command_and_the_read_of_its_answer_share_one_round_trip(
    live: LiveService,
) -> None:
    """A client whose commands follow each other sends each command together with the
    read that brings its answer (one round trip, not an XADD and then a reader's read),
    and keeps no read blocked on the server between commands."""
    async with _named(live.url, "sdk-one-trip") as client:
        table = await client.create_table("tiny", 2)
        a = await client.join(table, "Ann")
        await client.join(table, "Bob")
        await client.start(a)
        assert isinstance(await client.play(a, Draw()), Accepted)
        connections = await _connections(live.url, "sdk-one-trip")
        assert connections
        # every XADD was followed on its connection by the read of the answer
        assert {c["cmd"] for c in connections} == {"xread"}
        # and nothing reads the reply stream while no command waits for an answer
        assert not any("b" in c["flags"] for c in connections)


async def test_answers_reach_every_command_sent_at_once(live: LiveService) -> None:
    """Commands sent together share the reply stream: the one read in flight (or the
    reader it hands over to) brings every answer, each to its own command."""
    async with _named(live.url, "sdk-at-once") as client:
        tables = [f"at-once-{i}" for i in range(12)]
        outcomes = await asyncio.gather(
            *(client.submit(t, CreateTable(game="tiny", seats=2, options={})) for t in tables)
        )
        assert all(isinstance(o, Accepted) for o in outcomes)
        assert [o.table_id for o in outcomes if isinstance(o, Accepted)] == tables
        connections = await _connections(live.url, "sdk-at-once")
        assert not any("b" in c["flags"] for c in connections)


async def test_an_answer_later_than_the_first_read_still_arrives(live: LiveService) -> None:
    """The read sent with a command blocks 0.2 s at most; an answer that takes longer
    (here the worker is paused) is brought by a reader that goes on reading."""
    worker = live.processes[0]
    async with OrreryClient(live.url) as client:
        await client.create_table("tiny", 2)  # the worker is up
        os.kill(worker.pid, signal.SIGSTOP)
        try:
            sent = asyncio.create_task(client.create_table("tiny", 2, table_id="late-answer"))
            await asyncio.sleep(0.6)
            assert not sent.done()
        finally:
            os.kill(worker.pid, signal.SIGCONT)
        assert await asyncio.wait_for(sent, 10) == "late-answer"


async def test_the_seats_a_client_watches_on_one_table_share_one_read(
    live: LiveService,
) -> None:
    """Two seats of one table watched by one client: one blocking read of the table's
    updates (one connection), whose views reach each seat, its own view each; a seat that
    starts watching while that read waits gets the next update too."""
    async with _named(live.url, "sdk-shared-watch") as client, OrreryClient(live.url) as mover:
        table = await client.create_table("tiny", 2)
        ann = await client.join(table, "Ann")
        bob = await client.join(table, "Bob")
        started = await client.start(ann)
        for seat in (ann, bob):  # the views of the start first
            await client.wait_view(table, seat.seat, started.last_seq)
        anns = client.watch(table, ann.seat)
        assert (await anext(anns))["seq"] >= started.last_seq
        ann_next = asyncio.ensure_future(anext(anns))
        await _until_blocked(live.url, "sdk-shared-watch")
        bobs = client.watch(table, bob.seat)  # joins while Ann's read waits on the server
        assert (await anext(bobs))["seq"] >= started.last_seq
        bob_next = asyncio.ensure_future(anext(bobs))
        await asyncio.sleep(0.1)
        blocked = [c for c in await _connections(live.url, "sdk-shared-watch") if "b" in c["flags"]]
        assert [c["cmd"] for c in blocked] == ["xread"]  # one read for both seats
        played = await mover.play(ann, Draw())  # (the credentials work from any client)
        assert isinstance(played, Accepted)
        ann_view, bob_view = await asyncio.wait_for(asyncio.gather(ann_next, bob_next), 10)
        # the next view each seat sees is the move's (the start's came before the watches)
        assert ann_view["seq"] >= played.last_seq and bob_view["seq"] >= played.last_seq
        assert (ann_view["viewer"], bob_view["viewer"]) == (ann.seat, bob.seat)
        await anns.aclose()
        await bobs.aclose()
    # the read ended with the client: nothing of it is left blocked on the server
    assert not await _connections(live.url, "sdk-shared-watch")


async def _until_blocked(url: str, name: str) -> None:
    for _ in range(100):
        if any("b" in c["flags"] for c in await _connections(url, name)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"no read of {name} blocked on the server")


async def test_a_watch_waiting_when_its_client_closes_ends_with_watch_closed(
    live: LiveService,
) -> None:
    client = OrreryClient(live.url)
    await client.connect()
    table = await client.create_table("tiny", 2)
    views = client.watch(table, None)
    await anext(views)
    waiting = asyncio.ensure_future(anext(views))
    await asyncio.sleep(0.05)
    await client.close()  # the read ends at its next return (0.5 s at most)
    with pytest.raises(WatchClosed):
        await asyncio.wait_for(waiting, 5)


async def test_a_reader_started_from_a_later_end_tells_a_follower_to_look_again() -> None:
    """Two first looks race: the one that starts the reader found the stream's end at
    5-0, the other at 3-7. The updates in between were read by neither reader nor look,
    so the second follower is told to read its view once more."""
    watch = TableWatch(
        None, 0, "t", transient=(), pause_s=0.0, closing=lambda: False, ended=lambda w: None
    )
    assert watch.start("5-0") is False  # the reader starts there
    assert watch.start("3-7") is True
    assert watch.start("5-0") is False and watch.start("12-0") is False
