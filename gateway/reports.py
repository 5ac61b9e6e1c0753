"""Chat reports: ``POST /v1/tables/{id}/chat/{msg}/report`` files one for an operator.

A report carries the chat as it stood: its newest
:data:`orrery_contracts.social.REPORT_MESSAGES` messages (or, for an older message,
the ones ending with it), each with its author's player id, so the operator judges what
the players saw even after the chat moves on or the table is archived. Each player
reports a message once (409 ``already_reported``); nobody reports their own (403
``bad_report``). Reports are events appended to one stream
(``orrery_contracts.social.REPORTS_STREAM``), never changed; ``orrery reports``
lists, shows and resolves them (orrery/cli/reports.py).
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated

import msgspec
from litestar import post
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from gateway.chat import author_of, entry_of
from gateway.core import Gateway
from gateway.errors import ApiError
from gateway.models import ErrorBody, Struct
from orrery_contracts import keys
from orrery_contracts.chat import MAX_HISTORY, history
from orrery_contracts.social import (
    REPORT_MESSAGES,
    REPORTS_STREAM,
    ReportedMessage,
    ReportFiled,
    report_event_encoder,
    reported_key,
)

MAX_REASON = 500
REPORTED_KEPT_MS = 90 * 24 * 3600 * 1000  # how long "already reported" is remembered


class ReportIn(Struct, frozen=True, kw_only=True):
    """Why the message is reported (optional, in the reporter's words)."""

    reason: Annotated[str, msgspec.Meta(max_length=MAX_REASON)] = ""


class ReportOut(msgspec.Struct, frozen=True, kw_only=True):
    report_id: str
    messages: int  # how many messages of the chat the report carries


async def file_report(
    gateway: Gateway, player: str, table_id: str, message_id: str, reason: str
) -> ReportOut:
    record = await gateway.tables.record(table_id)
    redis = gateway.client.redis
    stream = keys.chat_stream(gateway.client.partition(table_id), table_id)
    entries = await redis.xrange(stream, count=MAX_HISTORY * 2)
    if not entries and gateway.chat.archived is not None:
        archived = await gateway.chat.archived.chat(table_id) or []
        entries = [(entry_id, {b"__data__": data}) for entry_id, data in archived]
    authors: dict[str, str | None] = {}
    for raw_id, fields in entries:
        entry = entry_of(fields.get(b"__data__", b""))
        if entry is not None and entry.deleted is None:
            entry_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
            authors[entry_id] = author_of(record, entry.seat, entry.player)
    messages = [m for m in history(entries, None, MAX_HISTORY) if not m.deleted]
    place = next((i for i, m in enumerate(messages) if m.id == message_id), None)
    if place is None:
        raise ApiError(404, "no_such_message", "no such message in this table's chat")
    author = authors.get(message_id)
    if author == player:
        raise ApiError(403, "bad_report", "you cannot report your own message")
    end = len(messages) if place >= len(messages) - REPORT_MESSAGES else place + 1
    kept = messages[max(0, end - REPORT_MESSAGES) : end]
    if not await redis.set(
        reported_key(table_id, message_id, player), "1", nx=True, px=REPORTED_KEPT_MS
    ):
        raise ApiError(409, "already_reported", "you reported this message already")
    report = ReportFiled(
        report_id="r" + secrets.token_hex(8),
        table_id=table_id,
        message_id=message_id,
        reporter=player,
        author=author,
        reason=reason.strip(),
        at=int(time.time() * 1000),
        messages=[
            ReportedMessage(**msgspec.structs.asdict(m), player_id=authors.get(m.id)) for m in kept
        ],
    )
    await redis.xadd(REPORTS_STREAM, {"__data__": report_event_encoder.encode(report)})
    return ReportOut(report_id=report.report_id, messages=len(kept))


@post(
    "/tables/{table_id:str}/chat/{message_id:str}/report",
    status_code=201,
    responses={
        403: ResponseSpec(ErrorBody, description="my own message", generate_examples=False),
        404: ResponseSpec(
            ErrorBody, description="no such table or message", generate_examples=False
        ),
        409: ResponseSpec(ErrorBody, description="reported already", generate_examples=False),
    },
    operation_id="reportChat",
    tags=["reports"],
)
async def report_chat(
    table_id: str,
    message_id: Annotated[
        str, Parameter(description="the message's id", pattern=r"^[0-9]{1,20}-[0-9]{1,20}$")
    ],
    player: str,
    gateway: Gateway,
    data: ReportIn | None = None,
) -> ReportOut:
    """Report a chat message to the operators: the report carries the chat's last 20
    messages (or the 20 ending with this one) with their authors."""
    return await file_report(gateway, player, table_id, message_id, (data or ReportIn()).reason)


REPORT_ROUTES = [report_chat]
