"""The two subscribers every consumed stream gets: a reader and a claimer.

The reader (``XREADGROUP >``) takes new entries in batches; the claimer
(``XAUTOCLAIM``) takes, one by one, the entries that sat with a consumer longer than
the claim threshold (a crashed process, or a batch its handler left pending on
purpose). Both share the group and this process's consumer name, acknowledge
manually, stay out of the AsyncAPI schema, and hand their handler a
:class:`~streams.batches.Batch` (a claimer's holds one entry).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Self

from faststream import AckPolicy
from faststream.redis import StreamSub

from streams.batches import Batch, raw_batch_parser, to_batch
from streams.consumers import CLAIM_IDLE_MS, claim_poll_ms

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


def subscribe_stream(
    broker: Any,
    stream: str,
    *,
    group: str,
    consumer: str,
    on_batch: BatchHandler,
    on_claimed: BatchHandler,
    batch: int,
    polling_ms: int,
    claim_idle_ms: int = CLAIM_IDLE_MS,
) -> Any:
    """Subscribe ``stream``'s reader (batches of up to ``batch`` entries, blocking
    ``polling_ms`` at most) and claimer (entries idle ``claim_idle_ms``); returns the
    reader's subscriber, for whoever starts and stops it (services/assignment.py)."""
    member = _member(stream, group, consumer)
    reader = broker.subscriber(
        stream=member(polling_interval=polling_ms, batch=True, max_records=batch),
        parser=raw_batch_parser,
        **_COMMON,
    )
    reader(_handler(on_batch))
    subscribe_claimer(
        broker,
        stream,
        group=group,
        consumer=consumer,
        on_claimed=on_claimed,
        claim_idle_ms=claim_idle_ms,
    )
    return reader


def subscribe_claimer(
    broker: Any,
    stream: str,
    *,
    group: str,
    consumer: str,
    on_claimed: BatchHandler,
    claim_idle_ms: int = CLAIM_IDLE_MS,
) -> Any:
    """Subscribe ``stream``'s claimer alone (its reader is a
    :class:`~streams.readers.GroupReader` over several streams); returns it."""
    member = _member(stream, group, consumer)
    claimer = broker.subscriber(
        stream=member(min_idle_time=claim_idle_ms, polling_interval=claim_poll_ms(claim_idle_ms)),
        **_COMMON,
    )
    claimer(_handler(on_claimed))
    return claimer


_COMMON: dict[str, Any] = {
    "ack_policy": AckPolicy.MANUAL,
    "include_in_schema": False,
    "decoder": to_batch,
}


def _member(stream: str, group: str, consumer: str) -> Callable[..., StreamMember]:
    # One group, one consumer name per process: the reader's and the claimer's entries
    # are this process's pending entries.
    return functools.partial(StreamMember, stream, group=group, consumer=consumer)


def _handler(handle: BatchHandler) -> Callable[[Any], Awaitable[None]]:
    # One parameter only (FastStream unpacks a body into several), typed Any: nothing
    # to validate, nothing injected.
    async def on_message(batch: Any) -> None:
        await handle(batch)

    return on_message
