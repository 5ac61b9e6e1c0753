"""Helpers for the tiny game in tests: command envelopes, a table id in a chosen
partition, a table played to its end through the SDK."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import CommandEnvelope
from tests.support.tinygame import Stand

_json = msgspec.json.Encoder()


def envelope(
    table_id: str,
    body: Any,
    *,
    seat: int | None = None,
    token: str | None = None,
    reply_to: str | None = None,
    command_id: str | None = None,
) -> bytes:
    return _json.encode(
        CommandEnvelope(
            command_id=command_id or uuid.uuid4().hex,
            table_id=table_id,
            body=msgspec.Raw(_json.encode(body)),
            seat=seat,
            token=token,
            reply_to=reply_to,
        )
    )


def table_in(partition: int, prefix: str, partitions: int) -> str:
    """A table id of ``partition`` (of ``partitions``), starting with ``prefix``."""
    for i in range(1000):
        if keys.partition_of(f"{prefix}-{i}", partitions) == partition:
            return f"{prefix}-{i}"
    raise AssertionError("unreachable")


async def play_tiny(client: OrreryClient, table_id: str) -> int:
    """Create, seat, start and finish a 2-seat tiny table; its last seq."""
    await client.create_table("tiny", 2, table_id=table_id)
    a = await client.join(table_id, "Ann")
    b = await client.join(table_id, "Bob")
    await client.start(a)
    await client.accept(table_id, Stand(), seat=a.seat, token=a.token)
    last = await client.accept(table_id, Stand(), seat=b.seat, token=b.token)
    return last.last_seq
