"""Chat reports for an operator: read them from their stream and resolve them.

Reports are events (``orrery_contracts.social``): the gateway appends ``report.filed``,
a resolution appends ``report.resolved``; nothing is changed or removed, so the stream
is the record of every report and of what was done about it. :func:`reports` folds the
stream into each report's state. :func:`resolve` acts, then records:

* ``delete``: the reported message is deleted (``orrery chat delete``'s way: a
  "deleted" marker stays, in Redis or the archive);
* ``mute``: its author may not chat for ``days`` days (the gateway refuses their
  messages with ``muted`` until then);
* ``dismiss``: nothing is done.

A report is resolved once; a second resolution is refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from orrery_contracts.social import (
    REPORTS_STREAM,
    ReportFiled,
    ReportResolved,
    ResolveAction,
    mute_key,
    report_event_decoder,
    report_event_encoder,
)

DAY_MS = 24 * 3600 * 1000
MAX_MUTE_DAYS = 3650


class ModerationError(Exception):
    """An operator's request that cannot be done (no such report, resolved already)."""


@dataclass
class Report:
    filed: ReportFiled
    resolutions: list[ReportResolved] = field(default_factory=list)

    @property
    def state(self) -> str:
        return self.resolutions[-1].action if self.resolutions else "open"


async def reports(redis: Any) -> dict[str, Report]:
    """Every report by id, oldest first."""
    found: dict[str, Report] = {}
    start = "-"
    while True:
        rows = await redis.xrange(REPORTS_STREAM, min=start, count=1000)
        if not rows:
            return found
        for entry_id, fields in rows:
            last = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
            start = f"({last}"  # after it (exclusive)
            event = report_event_decoder.decode(fields[b"__data__"])
            if isinstance(event, ReportFiled):
                found[event.report_id] = Report(event)
            elif event.report_id in found:
                found[event.report_id].resolutions.append(event)


async def resolve(
    redis: Any,
    report_id: str,
    action: ResolveAction,
    *,
    days: int | None = None,
    note: str = "",
    by: str = "",
    delete_message: Any = None,
) -> ReportResolved:
    """Resolve a report (``delete_message(table_id, message_id) -> bool`` deletes a
    chat message, for ``delete``)."""
    found = (await reports(redis)).get(report_id)
    if found is None:
        raise ModerationError(f"no report {report_id!r}")
    if found.resolutions:
        raise ModerationError(f"report {report_id} is resolved already ({found.state})")
    filed = found.filed
    if action == "delete":
        if delete_message is None or not await delete_message(filed.table_id, filed.message_id):
            raise ModerationError(
                f"message {filed.message_id} of table {filed.table_id} is gone already"
            )
    elif action == "mute":
        if days is None or not 1 <= days <= MAX_MUTE_DAYS:
            raise ModerationError(f"a mute lasts 1 to {MAX_MUTE_DAYS} days")
        if filed.author is None:
            raise ModerationError("the message's author has no account: nobody to mute")
        until = int(time.time() * 1000) + days * DAY_MS
        await redis.set(mute_key(filed.author), str(until), px=days * DAY_MS)
    resolved = ReportResolved(
        report_id=report_id,
        action=action,
        days=days if action == "mute" else None,
        note=note,
        by=by,
        at=int(time.time() * 1000),
    )
    await redis.xadd(REPORTS_STREAM, {"__data__": report_event_encoder.encode(resolved)})
    return resolved
