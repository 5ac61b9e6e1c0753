"""One reader for many streams of a consumer group: a single ``XREADGROUP`` per wake-up.

FastStream's stream subscriber reads one stream: with one reader per partition, a
process that consumes every partition's stream wakes once per partition that has
entries, and under load each wake-up carries about one entry, so every per-batch cost
(the read, the handler's pipelines, the acknowledgement) is paid per entry. A
:class:`GroupReader` reads all its streams in one ``XREADGROUP … STREAMS s1 s2 … > > …``
and hands its handler the entries of every stream that had some, one
:class:`~streams.batches.Batch` per stream, together.

Choices:

* many streams only where one command may name them all: a standalone server. A Redis
  Cluster refuses a read across hash slots (every partition is its own slot), so there
  each stream has a reader of its own (still not FastStream's subscriber, whose delivery
  cost about a third of a worker's CPU per command), and a projector hands their batches
  over together through a :class:`BatchCoalescer`;
* the reader reads new entries only (``>``); what it leaves pending (a failed batch, a
  process stopped mid-batch) is the claimers' (the per-stream FastStream claimers);
* up to :data:`IN_FLIGHT` (2) batches are handled at once: one at a time made an entry
  that arrived during a batch's round trips wait for all of them (``orrery bench``'s
  half-rate lag p99 went from 8–15 to 20–54 ms); two bring it back under 20 ms and
  still merge what arrives under load (4 merged too little: more CPU per command);
* a failed read (the server restarting, a group lost with the data and not yet
  recreated by the watchdog) is logged and retried after a short pause, never ends the
  reader; a failed handler is logged, its entries stay pending;
* the streams read can change while it runs (:meth:`GroupReader.switch`: the decider
  worker's partitions follow their assignment, services/assignment.py); the change
  takes effect at the next read. A read in flight is not cancelled: the server would
  keep the cancelled read blocked on its streams until it noticed the closed
  connection, and hand what arrives meanwhile to this consumer as pending entries that
  no reader asks for again; so a stream added waits for the block time at most, and what
  a read in flight brings of a stream taken out is handled as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog

from orrery_contracts.text import as_text
from streams.batches import Batch

log = structlog.get_logger("orrery.streams")

BatchesHandler = Callable[[list[Batch]], Awaitable[None]]
# Reads handled at once: an entry that arrives while a batch waits on Redis is read
# and handled beside it, not after it; a handler must therefore take batches
# concurrently (the projector's writes are guarded by seq, as for two projectors).
IN_FLIGHT = 2
# Pauses after consecutive failed reads (the last one repeats): short, so that after a
# failover a reader resumes soon after its client's refreshed slot map (docs/scaling.md).
READ_RETRY_PAUSES_S = (0.1, 0.25, 0.5)


class GroupReader:
    """Reads ``streams`` for ``consumer`` of ``group``; hands each read's batches to
    ``on_batches``. :meth:`start` and :meth:`stop` run and end its task."""

    def __init__(
        self,
        redis: Any,
        streams: Sequence[str],
        *,
        group: str,
        consumer: str,
        on_batches: BatchesHandler,
        count: int,
        block_ms: int,
        in_flight: int = IN_FLIGHT,
    ) -> None:
        self.redis = redis
        self.streams = {stream: ">" for stream in streams}
        self.group = group
        self.consumer = consumer
        self.on_batches = on_batches
        self.count = count
        self.block_ms = block_ms
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()  # the streams changed since the last read began
        self._slots = asyncio.Semaphore(in_flight)
        self._handling: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        # (async: FastStream runs a plain function hook in a worker thread)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"reader:{self.group}")

    async def stop(self) -> None:
        """End the reader (a batch in hand stays pending for the claimers)."""
        task, self._task = self._task, None
        for running in [task, *self._handling]:
            if running is not None:
                await stop_task(running)

    def switch(self, stream: str) -> StreamSwitch:
        """A handle that adds ``stream`` to the streams read and takes it out again."""
        return StreamSwitch(self, stream)

    def add(self, stream: str) -> None:
        if stream not in self.streams:
            self.streams[stream] = ">"
            self._changed.set()

    def remove(self, stream: str) -> None:
        if self.streams.pop(stream, None) is not None:
            self._changed.set()

    async def read(self) -> list[Batch]:
        """One ``XREADGROUP`` over every stream: a batch per stream that had entries."""
        read = await self.redis.xreadgroup(
            self.group, self.consumer, self.streams, count=self.count, block=self.block_ms
        )
        rows = read.items() if isinstance(read, dict) else (read or ())
        return [Batch.of(as_text(stream), entries) for stream, entries in rows if entries]

    async def _run(self) -> None:
        failures = 0
        while True:
            # A read waits for a free slot: while every slot is busy the entries pile
            # up and the next read takes them all (the batches grow with the load).
            await self._slots.acquire()
            try:
                batches = await self._read_current()
            except asyncio.CancelledError:
                self._slots.release()  # (a reader started again finds every slot)
                raise
            except Exception as error:
                self._slots.release()
                pause = READ_RETRY_PAUSES_S[min(failures, len(READ_RETRY_PAUSES_S) - 1)]
                if failures == 0:
                    log.warning("stream_read_failed", group=self.group, error=repr(error))
                failures += 1
                await asyncio.sleep(pause)
                continue
            if failures:
                log.info("stream_read_resumed", group=self.group, failed_reads=failures)
                failures = 0
            if not batches:
                self._slots.release()
                continue
            task = asyncio.create_task(self._handle(batches))
            self._handling.add(task)
            task.add_done_callback(self._handling.discard)

    async def _read_current(self) -> list[Batch]:
        """One read over the streams of now; none while there are none."""
        self._changed.clear()
        if not self.streams:
            await self._changed.wait()
            return []
        return await self.read()

    async def _handle(self, batches: list[Batch]) -> None:
        try:
            await self.on_batches(batches)
        except Exception:
            log.exception("stream_batches_failed", group=self.group)
        finally:
            self._slots.release()


def add_readers(
    app: Any,
    redis: Any,
    streams: Sequence[str],
    *,
    one_per_stream: bool,
    group: str,
    consumer: str,
    on_batches: BatchesHandler,
    count: int,
    block_ms: int,
) -> dict[str, GroupReader]:
    """The readers of ``streams`` for ``app`` (started after its start-up, stopped at its
    shutdown): one over them all, or one per stream where one read cannot name several
    (``one_per_stream``: a Redis Cluster). Returns each stream's reader."""
    groups = [[stream] for stream in streams] if one_per_stream else [list(streams)]
    readers: dict[str, GroupReader] = {}
    for read_together in groups:
        reader = GroupReader(
            redis,
            read_together,
            group=group,
            consumer=consumer,
            on_batches=on_batches,
            count=count,
            block_ms=block_ms,
        )
        app.after_startup(reader.start)
        app.on_shutdown(reader.stop)
        readers.update(dict.fromkeys(read_together, reader))
    return readers


async def stop_task(task: asyncio.Task[Any], timeout: float = 10.0) -> None:
    """Cancel ``task`` and wait until it ends. A cancellation can be lost inside a library
    (Python 3.11's ``wait_for`` drops one that arrives as its inner call completes, as in
    redis-py's reads), so it is repeated until the task ends, and a task that never ends
    is left behind after ``timeout`` rather than holding the process forever."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.5)
        if loop.time() > deadline:
            log.warning("task_did_not_stop", task=task.get_name())
            return
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()


class StreamSwitch:
    """One stream of a :class:`GroupReader`, read or not: what the partition assignment
    starts and stops (services/assignment.py)."""

    def __init__(self, reader: GroupReader, stream: str) -> None:
        self.reader = reader
        self.stream = stream

    @property
    def running(self) -> bool:
        return self.stream in self.reader.streams

    def start(self) -> None:
        self.reader.add(self.stream)

    def stop(self) -> None:
        """Read it no longer (a batch of it in hand is still handled)."""
        self.reader.remove(self.stream)


class BatchCoalescer:
    """Where one read cannot name every stream (a Redis Cluster: a reader per stream),
    the batches that the per-stream readers deliver while a previous one is handled are
    handed to ``on_batches`` together: the per-batch work (catch-up reads, write
    pipelines, acknowledgements) is paid once per wake-up, as with a
    :class:`GroupReader`. :meth:`submit` returns once its batch was handled (so a
    reader takes its next batch only then) and raises what the handler raised."""

    def __init__(self, on_batches: BatchesHandler) -> None:
        self.on_batches = on_batches
        self._waiting: list[tuple[Batch, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="coalescer")

    async def stop(self) -> None:
        """End the handling task (batches still waiting stay pending, unacknowledged)."""
        task, self._task = self._task, None
        if task is not None:
            await stop_task(task)
        for _, done in self._waiting:
            done.cancel()
        self._waiting = []

    async def submit_all(self, batches: list[Batch]) -> None:
        """:meth:`submit` for a reader's batches (a :class:`GroupReader`'s handler)."""
        await asyncio.gather(*(self.submit(batch) for batch in batches))

    async def submit(self, batch: Batch) -> None:
        done = asyncio.get_running_loop().create_future()
        self._waiting.append((batch, done))
        self._wake.set()
        await done

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            taken, self._waiting = self._waiting, []
            if not taken:
                continue
            try:
                await self.on_batches([batch for batch, _ in taken])
            except Exception as error:
                for _, done in taken:
                    if not done.done():
                        done.set_exception(error)
                continue
            for _, done in taken:
                if not done.done():
                    done.set_result(None)
