"""The baseline worker of ``orrery bench``: the service's Redis round trips, nothing else.

Run as ``ORRERY_REDIS_URL=<redis-url> python -m orrery.bench.baseline <partitions>``
(``orrery bench`` starts it against a separate, empty logical database; the URL travels
in the environment, as the service's processes' does: it may hold a password, and argv
is readable by every local user). Per partition, one loop does
what the decider worker does around a command, minus the Python work: ``XREADGROUP``
the command entry, decode the envelope, a no-op "decide" producing one small event,
the same Lua append script through :class:`services.store.EventStore`, ``XADD`` the
outcome to the client's reply stream, ``XACK``. The client side is the real SDK.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import time
from typing import Any

import msgspec
import redis.asyncio as aioredis

from orrery_contracts import keys
from orrery_contracts.envelope import (
    GENESIS_HASH,
    Accepted,
    CommandEnvelope,
    EventEnvelope,
    encode_entry,
    seal,
)
from services.store import EventStore, PendingAppend

NOOP_EVENT = msgspec.msgpack.encode({"type": "bench.noop"})
_envelope = msgspec.json.Decoder(CommandEnvelope[msgspec.Raw])
_json = msgspec.json.Encoder()
_msgpack = msgspec.msgpack.Encoder()


async def partition_loop(
    redis: Any, store: EventStore, p: int, heads: dict[str, tuple[int, str]], stop: asyncio.Event
) -> None:
    stream = keys.command_stream(p)
    consumer = f"bench-baseline-{os.getpid()}"
    while not stop.is_set():
        replies = await redis.xreadgroup(
            keys.DECIDERS_GROUP, consumer, {stream: ">"}, count=100, block=100
        )
        for _, entries in replies or ():
            for entry_id, fields in entries:
                await handle(redis, store, stream, entry_id, fields[b"__data__"], heads)


async def handle(
    redis: Any,
    store: EventStore,
    stream: str,
    entry_id: bytes,
    data: bytes,
    heads: dict[str, tuple[int, str]],
) -> None:
    envelope = _envelope.decode(data)
    seq, head = heads.get(envelope.table_id, (0, GENESIS_HASH))
    now = int(time.time() * 1000)
    sealed = seal(
        EventEnvelope(
            table_id=envelope.table_id,
            seq=seq + 1,
            command_id=envelope.command_id,
            seat=envelope.seat,
            recorded_at=now,
            prev_hash=head,
            body=msgspec.Raw(NOOP_EVENT),
            command=bytes(envelope.body),
        )
    )
    accepted = Accepted(
        command_id=envelope.command_id,
        table_id=envelope.table_id,
        first_seq=seq + 1,
        last_seq=seq + 1,
    )
    result = await store.append(
        PendingAppend(
            table_id=envelope.table_id,
            command_id=envelope.command_id,
            expected_seq=seq,
            expected_hash=head,
            phase="playing",
            outcome=_msgpack.encode(accepted),
            digest="",
            entries=[(sealed.hash, encode_entry(sealed))],
            recorded_at=now,
        )
    )
    if result.status == "ok":
        heads[envelope.table_id] = (seq + 1, sealed.hash)
    if envelope.reply_to:
        await redis.xadd(
            envelope.reply_to, {"__data__": _json.encode(accepted)}, maxlen=10_000, approximate=True
        )
    await redis.xack(stream, keys.DECIDERS_GROUP, entry_id)


async def main(url: str, partitions: int) -> None:
    redis: Any = aioredis.Redis.from_url(url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    store = EventStore(redis, partitions)
    heads: dict[str, tuple[int, str]] = {}
    gc.freeze()  # as the service's processes do once started (orrery/runtime.py)
    try:
        await asyncio.gather(
            *(partition_loop(redis, store, p, heads, stop) for p in range(partitions))
        )
    finally:
        await redis.aclose()


if __name__ == "__main__":
    asyncio.run(main(os.environ["ORRERY_REDIS_URL"], int(sys.argv[1])))
