"""The consumer-group plumbing (streams/) against a real server through a real broker:
what a reader and a claimer hand their handlers, groups, delivery counts, dead letters."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import msgspec
import pytest
import redis.asyncio as aioredis
from faststream.redis import RedisBroker

from orrery.server.embedded import EmbeddedServer
from orrery_contracts import keys
from streams.batches import Batch, Entry
from streams.consumers import consumer_name, create_group
from streams.deliveries import add_dead_letter, deliveries_left, delivery_count, failure_kind
from streams.readers import BatchCoalescer, BatchesHandler, GroupReader
from streams.subscribers import subscribe_claimer

pytestmark = pytest.mark.service

STREAM, GROUP = "test:streams", "testers"


@pytest.fixture
async def broker(server: EmbeddedServer) -> AsyncIterator[RedisBroker]:
    broker = RedisBroker(server.url)
    try:
        yield broker
    finally:
        await broker.stop()


async def _until(condition: asyncio.Event) -> None:
    await asyncio.wait_for(condition.wait(), timeout=30)


async def test_the_reader_hands_over_raw_entries_and_the_claimer_a_batch_of_one(
    redis_client: aioredis.Redis, broker: RedisBroker
) -> None:
    assert await create_group(redis_client, STREAM, GROUP)
    binary = msgspec.msgpack.encode({"not": "json", "bytes": b"\x00\xff"})
    # three entries another (crashed) consumer read and never acknowledged
    stuck = [
        await redis_client.xadd(STREAM, {"__data__": binary}),
        await redis_client.xadd(STREAM, {"other": "field"}),  # no __data__ at all
        await redis_client.xadd(STREAM, {"__data__": b'{"stuck": true}'}),
    ]
    await redis_client.xreadgroup(GROUP, "crashed", {STREAM: ">"})
    fresh = [await redis_client.xadd(STREAM, {"__data__": b"%d" % i}) for i in range(3)]

    read: list[Batch] = []
    claimed: list[Batch] = []
    done = asyncio.Event()

    async def on_batch(batch: Batch) -> None:
        read.append(batch)
        await redis_client.xack(batch.stream, GROUP, *batch.ids)

    async def on_claimed(batch: Batch) -> None:
        claimed.append(batch)
        await redis_client.xack(batch.stream, GROUP, *batch.ids)
        if len(claimed) == len(stuck):
            done.set()

    async def on_batches(batches: list[Batch]) -> None:
        for batch in batches:
            await on_batch(batch)

    redis = await broker.connect()
    subscribe_claimer(
        broker,
        STREAM,
        group=GROUP,
        consumer="alive",
        on_claimed=on_claimed,
        claim_idle_ms=1000,  # far above a reader entry's time before its ack
    )
    reader = GroupReader(
        redis, [STREAM], group=GROUP, consumer="alive", on_batches=on_batches, count=8, block_ms=100
    )
    await broker.start()
    await reader.start()
    try:
        await _until(done)
    finally:
        await reader.stop()
    assert redis is await broker.connect()  # the one client the claimers read with

    # the reader's entries as one batch, in stream order, bodies untouched
    assert read == [Batch(STREAM, tuple(Entry(i, b"%d" % n) for n, i in enumerate(fresh)))]
    # the crashed consumer's, claimed one by one, as batches of one, bodies untouched
    bodies = [binary, b"", b'{"stuck": true}']
    one_by_one = zip(stuck, bodies, strict=True)
    assert claimed == [Batch(STREAM, (Entry(entry_id, body),)) for entry_id, body in one_by_one]
    assert claimed[0].entries[0].time_ms == int(stuck[0].split(b"-")[0])
    assert (await redis_client.xpending(STREAM, GROUP))["pending"] == 0


async def test_create_group_is_idempotent_and_starts_where_told(
    redis_client: aioredis.Redis,
) -> None:
    old = await redis_client.xadd(STREAM, {"__data__": b"old"})
    assert await create_group(redis_client, STREAM, GROUP, start=old.decode())
    assert not await create_group(redis_client, STREAM, GROUP)  # exists: left alone
    new = await redis_client.xadd(STREAM, {"__data__": b"new"})
    read = await redis_client.xreadgroup(GROUP, "me", {STREAM: ">"})
    assert [entry_id for entry_id, _ in read[0][1]] == [new]


async def test_deliveries_are_counted(
    redis_client: aioredis.Redis,
) -> None:
    await create_group(redis_client, STREAM, GROUP)
    ids = [await redis_client.xadd(STREAM, {"__data__": str(i).encode()}) for i in range(3)]
    await redis_client.xreadgroup(GROUP, "me", {STREAM: ">"})
    assert await delivery_count(redis_client, STREAM, GROUP, ids[0]) == 1
    for _ in range(2):
        await redis_client.xclaim(STREAM, GROUP, "me", 0, [ids[0]])
    assert await delivery_count(redis_client, STREAM, GROUP, ids[0]) == 3
    assert await deliveries_left(redis_client, STREAM, GROUP, ids[0], 4)
    assert not await deliveries_left(redis_client, STREAM, GROUP, ids[0], 3)


async def test_a_dead_letter_keeps_the_reason_capped_and_the_data_given(
    redis_client: aioredis.Redis,
) -> None:
    await add_dead_letter(redis_client, 3, "1-0", b"scrubbed", "why " * 1000)
    pipe = redis_client.pipeline(transaction=False)
    add_dead_letter(pipe, 3, "2-0", b"also", "short")
    await pipe.execute()
    letters = await redis_client.xrange(keys.dead_letter_stream(3))
    fields = [f for _, f in letters]
    assert [f[b"entry"] for f in fields] == [b"1-0", b"2-0"]
    assert len(fields[0][b"reason"]) == 2000 and fields[1][b"reason"] == b"short"
    assert [f[b"data"] for f in fields] == [b"scrubbed", b"also"]


def test_failure_kinds_and_consumer_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    assert failure_kind(RedisConnectionError("gone")) == "infrastructure"
    assert failure_kind(KeyError("bug")) == "unexpected"
    monkeypatch.delenv("ORRERY_CONSUMER", raising=False)
    assert consumer_name("decider").startswith("decider-")
    monkeypatch.setenv("ORRERY_CONSUMER", "pod-7")
    assert consumer_name("projector") == "pod-7"


async def test_a_group_reader_reads_every_stream_at_once_and_rides_out_a_missing_group(
    redis_client: aioredis.Redis,
) -> None:
    streams = [f"{STREAM}:{n}" for n in range(3)]
    # the third stream's group does not exist yet: every read fails until it does
    for stream in streams[:2]:
        await create_group(redis_client, stream, GROUP)
    added = {
        s: [await redis_client.xadd(s, {"__data__": s.encode()}) for _ in range(2)] for s in streams
    }
    reads: list[list[Batch]] = []
    failing = True
    got = asyncio.Event()

    async def on_batches(batches: list[Batch]) -> None:
        reads.append(batches)
        if failing:
            raise RuntimeError("a handler that fails leaves its entries pending")
        got.set()

    reader = await _started_reader(redis_client, streams, on_batches)
    try:
        await asyncio.sleep(0.5)
        assert reads == []  # NOGROUP on every read so far, and the reader still runs
        await create_group(redis_client, streams[2], GROUP)
        await _until_true(lambda: bool(reads))
        # one read, one batch per stream, in stream order
        assert sorted(reads[0], key=lambda b: b.stream) == [
            Batch(s, tuple(Entry(i, s.encode()) for i in added[s])) for s in streams
        ]
        failing = False
        late = await redis_client.xadd(streams[1], {"__data__": b"late"})
        await _until(got)
        assert reads[-1] == [Batch(streams[1], (Entry(late, b"late"),))]
    finally:
        await reader.stop()
    # the failed read's entries stay pending (for the claimers); the later one too (no ack)
    pending = [(await redis_client.xpending(s, GROUP))["pending"] for s in streams]
    assert pending == [2, 3, 2]


async def _started_reader(
    redis: aioredis.Redis, streams: list[str], on_batches: BatchesHandler
) -> GroupReader:
    """A reader of ``streams`` for consumer "one" of the test group, started."""
    reader = GroupReader(
        redis, streams, group=GROUP, consumer="one", on_batches=on_batches, count=8, block_ms=50
    )
    await reader.start()
    return reader


async def _until_true(condition: Callable[[], bool]) -> None:
    for _ in range(300):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the condition never held")


async def test_a_coalescer_hands_the_batches_that_arrived_meanwhile_over_together() -> None:
    handled: list[list[str]] = []
    busy = asyncio.Event()
    release = asyncio.Event()

    async def on_batches(batches: list[Batch]) -> None:
        handled.append([b.stream for b in batches])
        if len(handled) == 1:
            busy.set()
            await release.wait()  # the first batch takes a while
        if "bad" in handled[-1]:
            raise RuntimeError("the handler failed")

    coalescer = BatchCoalescer(on_batches)
    await coalescer.start()
    try:
        first = asyncio.create_task(coalescer.submit(Batch("a", ())))
        await _until(busy)
        # three readers deliver while the first batch is handled
        later = [asyncio.create_task(coalescer.submit(Batch(s, ()))) for s in ("b", "c", "d")]
        await asyncio.sleep(0.05)
        assert not any(task.done() for task in [first, *later])  # each waits for its handling
        release.set()
        await asyncio.gather(first, *later)
        assert handled == [["a"], ["b", "c", "d"]]
        # a handler's failure reaches every submitter of that round, and the next round runs
        with pytest.raises(RuntimeError):
            await coalescer.submit(Batch("bad", ()))
        await coalescer.submit(Batch("e", ()))
        assert handled[-1] == ["e"]
    finally:
        await coalescer.stop()


async def test_a_group_reader_handles_a_new_entry_beside_a_batch_still_in_hand(
    redis_client: aioredis.Redis,
) -> None:
    await create_group(redis_client, STREAM, GROUP)
    handled: list[list[bytes]] = []
    release = asyncio.Event()

    async def on_batches(batches: list[Batch]) -> None:
        handled.append([e.data for b in batches for e in b.entries])
        await release.wait()  # every batch waits (on Redis, say) until released

    reader = await _started_reader(redis_client, [STREAM], on_batches)
    try:
        await redis_client.xadd(STREAM, {"__data__": b"first"})
        await _until_true(lambda: len(handled) == 1)
        await redis_client.xadd(STREAM, {"__data__": b"second"})
        await _until_true(lambda: len(handled) == 2)  # read and handled meanwhile
        # with both slots busy the next entries wait, and come as one batch
        await redis_client.xadd(STREAM, {"__data__": b"third"})
        await redis_client.xadd(STREAM, {"__data__": b"fourth"})
        await asyncio.sleep(0.3)
        assert len(handled) == 2
        release.set()
        await _until_true(lambda: len(handled) == 3)
        assert handled == [[b"first"], [b"second"], [b"third", b"fourth"]]
    finally:
        release.set()
        await reader.stop()


async def test_a_group_reader_follows_its_streams_switched_on_and_off(
    redis_client: aioredis.Redis,
) -> None:
    streams = [f"{STREAM}:{i}" for i in range(2)]
    for stream in streams:
        await create_group(redis_client, stream, GROUP)
    handled: list[tuple[str, bytes]] = []

    async def on_batches(batches: list[Batch]) -> None:
        handled.extend((b.stream, e.data) for b in batches for e in b.entries)
        for b in batches:
            await redis_client.xack(b.stream, GROUP, *b.ids)

    reader = await _started_reader(redis_client, streams[:1], on_batches)
    second = reader.switch(streams[1])
    try:
        assert not second.running
        await redis_client.xadd(streams[1], {"__data__": b"waits"})
        await redis_client.xadd(streams[0], {"__data__": b"read"})
        await _until_true(lambda: handled == [(streams[0], b"read")])
        await asyncio.sleep(0.2)  # (the waiting entry's stream is not read)
        assert handled == [(streams[0], b"read")]
        second.start()
        assert second.running
        await _until_true(lambda: len(handled) == 2)
        assert handled[1] == (streams[1], b"waits")
        # every stream switched off: nothing is read, and no read fails for want of one
        reader.switch(streams[0]).stop()
        second.stop()
        assert reader.streams == {}
        await asyncio.sleep(0.2)  # the read in flight (50 ms block) ends
        await redis_client.xadd(streams[0], {"__data__": b"later"})
        await asyncio.sleep(0.2)
        assert len(handled) == 2
        reader.switch(streams[0]).start()
        await _until_true(lambda: len(handled) == 3)
        assert handled[2] == (streams[0], b"later")
    finally:
        await reader.stop()
    # nothing read was left behind unhandled
    pending = [(await redis_client.xpending(s, GROUP))["pending"] for s in streams]
    assert pending == [0, 0]
