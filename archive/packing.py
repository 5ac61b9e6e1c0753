"""A table's log as the archive stores it, and the summary row read from the log.

Stored form: a zstd frame of one msgpack array with one short array per event,
``[command_id, seat, recorded_at - previous recorded_at, body, command]``. What can be
recomputed is left out: the table id and seq (the row and the position say them), the
command id of an event after the first of its command (``""``: the previous one's) and
both hashes of every envelope (64 hex characters each, incompressible, ~140 of the ~200
bytes an envelope takes). Reading rebuilds each envelope and seals it again
(``prev_hash`` of seq 1 is the genesis hash, each next one the hash before), exactly as
the audit verifies a chain; the row keeps the head hash, so a log that reads back to a
different head was changed (:attr:`archive.model.ArchivedTable.intact`).

The summary decodes only the ``table.*`` lifecycle events (the contract's
:data:`orrery_contracts.table.TableEvent`); a game's own events are never decoded here,
so the archive needs no game's rules.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import zstandard

from archive.model import ArchivedSeat, FinalState, TableSummary
from orrery_contracts.envelope import GENESIS_HASH, EventEnvelope, RawEnvelope, encode_entry, seal
from orrery_contracts.lobby import BOT_PLAYER_ID, is_bot_player
from orrery_contracts.table import (
    SeatJoined,
    SeatLeft,
    TableClosed,
    TableCreated,
    TableEvent,
    TableFinished,
    TableStarted,
    created_rated,
)

# The stored form's version (the rows' ``log_format``): a new form gets a new number and
# the reader keeps reading the old ones.
LOG_FORMAT = 1
# zstd level 3 (the library's default) compresses a 1,000-event log in about a millisecond.
ZSTD_LEVEL = 3

StoredEvent = tuple[str, int | None, int, msgspec.Raw, bytes | None]

_encoder = msgspec.msgpack.Encoder()
_events_decoder = msgspec.msgpack.Decoder(list[StoredEvent])


class _Tagged(msgspec.Struct):
    type: str = ""


_tag_decoder = msgspec.msgpack.Decoder(_Tagged)
_table_event_decoder = msgspec.msgpack.Decoder(TableEvent)


class NotFinished(ValueError):
    """The log does not end a table (no ``table.finished`` / ``table.closed``)."""


def pack(entries: Sequence[RawEnvelope]) -> bytes:
    rows: list[StoredEvent] = []
    previous_command, previous_at = "", 0
    for entry in entries:
        command_id = "" if entry.command_id == previous_command else entry.command_id
        rows.append(
            (command_id, entry.seat, entry.recorded_at - previous_at, entry.body, entry.command)
        )
        previous_command, previous_at = entry.command_id, entry.recorded_at
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(_encoder.encode(rows))


def unpack(table_id: str, data: bytes, log_format: int = LOG_FORMAT) -> list[RawEnvelope]:
    """The envelopes, sealed again in order (hashes recomputed from the contents)."""
    if log_format != LOG_FORMAT:
        raise ValueError(f"unknown archived log format {log_format}")
    rows = _events_decoder.decode(zstandard.ZstdDecompressor().decompress(data))
    entries: list[RawEnvelope] = []
    prev_hash, command_id, recorded_at = GENESIS_HASH, "", 0
    for seq, (stored_command, seat, delta, body, command) in enumerate(rows, start=1):
        command_id = stored_command or command_id
        recorded_at += delta
        entry: RawEnvelope = EventEnvelope(
            table_id=table_id,
            seq=seq,
            command_id=command_id,
            seat=seat,
            recorded_at=recorded_at,
            prev_hash=prev_hash,
            body=body,
            command=command,
        )
        entry = seal(entry)
        entries.append(entry)
        prev_hash = entry.hash
    return entries


def raw_size(entries: Sequence[RawEnvelope]) -> int:
    """Bytes of the entries as the Redis log holds them (msgpack envelopes)."""
    return sum(len(encode_entry(entry)) for entry in entries)


def table_event(entry: RawEnvelope) -> TableEvent | None:
    """The entry's lifecycle event, or None for a game's own event."""
    if not _tag_decoder.decode(entry.body).type.startswith("table."):
        return None
    return _table_event_decoder.decode(entry.body)


def summarize(entries: Sequence[RawEnvelope], archived_at: int = 0) -> TableSummary:
    """The summary row of a finished or closed table's log (NotFinished otherwise)."""
    if not entries:
        raise NotFinished("an empty log")
    created: TableCreated | None = None
    started_at: int | None = None
    end: TableFinished | TableClosed | None = None
    finished_at = 0
    seats: dict[int, ArchivedSeat] = {}
    for entry in entries:
        event = table_event(entry)
        if isinstance(event, TableCreated):
            created = event
        elif isinstance(event, SeatJoined):
            bot = is_bot_player(event.player_id)
            # a bot of a level keeps its id (``bot:<level>``: it is rated); the level-less one not
            player_id = None if event.player_id == BOT_PLAYER_ID else event.player_id or None
            seats[event.seat] = ArchivedSeat(
                seat=event.seat, name=event.name, player_id=player_id, bot=bot
            )
        elif isinstance(event, SeatLeft):
            if event.conceded and event.seat in seats:
                seats[event.seat] = msgspec.structs.replace(seats[event.seat], left=True)
            elif not event.conceded:
                seats.pop(event.seat, None)  # before the start: the seat is open again
        elif isinstance(event, TableStarted):
            started_at = entry.recorded_at
        elif isinstance(event, TableFinished | TableClosed):
            end, finished_at = event, entry.recorded_at
    if created is None:
        raise NotFinished("the log has no table.created")
    if end is None:
        raise NotFinished("the table has not ended")
    final_state: FinalState = "finished"
    if isinstance(end, TableClosed) or end.reason == "abandoned":
        final_state = "closed"
    if isinstance(end, TableFinished):
        points, ranks = end.standing.points, end.standing.ranks
        seats = {
            s: msgspec.structs.replace(
                seat,
                rank=ranks[s] if s < len(ranks) else None,
                score=points[s] if s < len(points) else None,
            )
            for s, seat in seats.items()
        }
    return TableSummary(
        table_id=entries[0].table_id,
        game=created.game,
        rules_version=created.rules_version,
        options=dict(created.options),
        seats=[seats[s] for s in sorted(seats)],
        seat_count=created.seats,
        created_at=entries[0].recorded_at,
        started_at=started_at,
        finished_at=finished_at,
        final_state=final_state,
        reason=end.reason,
        event_count=len(entries),
        head_hash=entries[-1].hash,
        seed_commitment=created.seed_commitment,
        archived_at=archived_at,
        rated=created_rated(created),
    )
