"""The decider intake's order across concurrent reads: two reads may be handled at once
(streams/readers.py), but a partition's batches are decided in the order they were
read, and a batch that failed does not hold up the next.
The ordering is the intake's own (no Redis involved): ``on_batch``, which decides and
settles a batch against Redis, is replaced by one that records what it was given."""

from __future__ import annotations

import asyncio

import pytest

from orrery_contracts import keys
from services.intake import Intake
from streams.batches import Batch, Entry

pytestmark = pytest.mark.unit

STREAMS = {keys.command_stream(p): p for p in range(3)}


class HandlingFailed(RuntimeError):
    pass


class RecordingIntake(Intake):
    def __init__(self) -> None:
        super().__init__(None, None, consumer="decider-test")  # type: ignore[arg-type]
        self.started: list[tuple[int, bytes]] = []
        self.ended: list[tuple[int, bytes]] = []
        self.slow: dict[bytes, asyncio.Event] = {}
        self.failing: set[bytes] = set()

    async def on_batch(self, p: int, batch: Batch) -> None:
        for entry in batch.entries:
            if entry.data in self.failing:
                raise HandlingFailed
            self.started.append((p, entry.data))
            if entry.data in self.slow:
                await self.slow[entry.data].wait()
            else:
                await asyncio.sleep(0)
            self.ended.append((p, entry.data))


def _batch(p: int, *data: bytes) -> Batch:
    return Batch(keys.command_stream(p), tuple(Entry(b"1-%d" % i, d) for i, d in enumerate(data)))


async def test_a_partitions_batches_are_decided_in_the_order_they_were_read() -> None:
    intake = RecordingIntake()
    intake.slow[b"a1"] = release = asyncio.Event()
    first = asyncio.create_task(intake.on_batches(STREAMS, [_batch(0, b"a1"), _batch(1, b"b1")]))
    await asyncio.sleep(0.01)
    # the next read: partition 0 again (waits for a1), partition 2 (does not)
    second = asyncio.create_task(intake.on_batches(STREAMS, [_batch(0, b"a2"), _batch(2, b"c1")]))
    await asyncio.sleep(0.05)
    assert (1, b"b1") in intake.ended and (2, b"c1") in intake.ended
    assert (0, b"a2") not in intake.started  # not beside a1: after it
    release.set()
    await asyncio.gather(first, second)
    assert intake.ended.index((0, b"a1")) < intake.ended.index((0, b"a2"))
    assert intake._turns == {}  # nothing is left waiting


async def test_a_failed_batch_ends_its_turn() -> None:
    intake = RecordingIntake()
    intake.failing.add(b"y")
    with pytest.raises(HandlingFailed):
        await intake.on_batches(STREAMS, [_batch(1, b"y")])
    await asyncio.wait_for(intake.on_batches(STREAMS, [_batch(1, b"z")]), timeout=5)
    assert intake.ended == [(1, b"z")]
    assert intake._turns == {}


async def test_a_batch_cancelled_while_it_waits_does_not_hold_up_the_ones_after_it() -> None:
    intake = RecordingIntake()
    intake.slow[b"first"] = release = asyncio.Event()
    first = asyncio.create_task(intake.on_batches(STREAMS, [_batch(2, b"first")]))
    await asyncio.sleep(0.01)
    waiting = asyncio.create_task(intake.on_batches(STREAMS, [_batch(2, b"cancelled")]))
    third = asyncio.create_task(intake.on_batches(STREAMS, [_batch(2, b"third")]))
    await asyncio.sleep(0.01)
    waiting.cancel()  # (a stop cancels a handling that waits for its turn)
    await asyncio.sleep(0.01)
    assert not third.done()  # still after the first batch
    release.set()
    await asyncio.wait_for(asyncio.gather(first, third), timeout=5)
    assert waiting.cancelled()
    assert [data for _, data in intake.ended] == [b"first", b"third"]
    assert intake._turns == {}
