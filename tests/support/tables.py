"""Helpers to build command envelopes for the tiny game in tests."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from orrery_contracts.envelope import CommandEnvelope

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
