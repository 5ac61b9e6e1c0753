"""The claimer every consumed stream gets: a FastStream subscriber.

The claimer (``XAUTOCLAIM``) takes, one by one, the entries that sat with a consumer
longer than the claim threshold (a crashed process, or a batch its handler left pending
on purpose). The new entries are read by :class:`~streams.readers.GroupReader` s, not by
FastStream's stream subscriber: its delivery cost about a third of a worker's CPU per
command, and it reads one stream per wake-up. The claimer shares the group and this
process's consumer name with the readers, acknowledges manually, stays out of the
AsyncAPI schema, and hands its handler a :class:`~streams.batches.Batch` of one entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Self

from faststream import AckPolicy
from faststream.redis import StreamSub

from streams.batches import Batch, to_batch
from streams.consumers import claim_poll_ms

BatchHandler = Callable[[Batch], Awaitable[None]]


class StreamMember(StreamSub):
    """FastStream's ``StreamSub`` whose unprefixed copy is itself.

    FastStream asks a subscriber for its broker-prefixed ``StreamSub`` several times per
    read and per delivery, and each time ``add_prefix`` deep-copies it (~15 µs, about a
    twentieth of a worker's CPU per command). Nothing mutates the copy it hands out, and
    the brokers here have no prefix, so without one the copy is the object itself."""

    __slots__ = ()

    def add_prefix(self, prefix: str) -> Self:
        return self if not prefix else super().add_prefix(prefix)


def subscribe_claimer(
    broker: Any,
    stream: str,
    *,
    group: str,
    consumer: str,
    on_claimed: BatchHandler,
    claim_idle_ms: int,
) -> Any:
    """Subscribe ``stream``'s claimer (entries idle ``claim_idle_ms``); returns it."""
    # One group, one consumer name per process: the readers' and the claimer's entries
    # are this process's pending entries.
    member = StreamMember(
        stream,
        group=group,
        consumer=consumer,
        min_idle_time=claim_idle_ms,
        polling_interval=claim_poll_ms(claim_idle_ms),
    )
    claimer = broker.subscriber(
        stream=member, ack_policy=AckPolicy.MANUAL, include_in_schema=False, decoder=to_batch
    )
    claimer(_handler(on_claimed))
    return claimer


def _handler(handle: BatchHandler) -> Callable[[Any], Awaitable[None]]:
    # One parameter only (FastStream unpacks a body into several), typed Any: nothing
    # to validate, nothing injected.
    async def on_message(batch: Any) -> None:
        await handle(batch)

    return on_message
