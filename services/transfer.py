"""Reading a table's log from the store, exporting it to JSON Lines and importing it.

A log file has one JSON object per event, in seq order::

    {"table_id": "...", "seq": 7, "command_id": "...", "seat": 1, "recorded_at": 1764…,
     "prev_hash": "…", "hash": "…", "event": {"type": "fs.airship_placed", …},
     "command": {"type": "fs.place_airship", …} | null, "entry": "<base64>"}

``event`` and ``command`` are for people and other tools; ``entry`` is the exact
msgpack log entry (what the hash chain covers), so a file round-trips byte for byte.
Reading a file checks that every line's readable fields are exactly what its entry
says, so neither part can be changed on its own.

A player-facing export (one seat or a spectator) holds no entries at all: one line per
seq with that viewer's view (see :mod:`services.replay`).

Import verifies the chain and folds the log before writing anything (a log that ends
inside a command is refused: its views would show a table nobody saw), refuses a table id
that exists, then writes in one script: the entries with their ids (``<seq>-0``, field
``e``), the meta hash (seq, hash, phase), the partition's table set, a finished table's
revealed seed, and a feed notification so the projectors build its views and scores.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from games.codec import codec_for
from games.table import TableState, apply_entry
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope, decode_entry, encode_entry
from services.audit import Discrepancy, verify_chain
from services.handling import TABLE_ID
from services.replay import Viewer, frames, mid_command_text, unfinished_command
from services.store import FEED_MAXLEN, EventStore

_json = msgspec.json.Encoder()

_IMPORT_LUA = (Path(__file__).parent / "transfer_import.lua").read_text()


class LogFileError(Exception):
    """A log file that cannot be read as a table's log (with the line and seq)."""

    def __init__(self, line: int, seq: int | None, detail: str) -> None:
        where = f"line {line}" + (f" (seq {seq})" if seq is not None else "")
        super().__init__(f"{where}: {detail}")
        self.line = line
        self.seq = seq
        self.detail = detail


class TableExists(Exception):
    pass


@dataclass(frozen=True)
class StoredLog:
    entries: list[RawEnvelope]
    head: tuple[int, str] | None  # (seq, hash) from the table's meta hash


# ---------------------------------------------------------------- the store


async def read_stored_log(redis: Any, partitions: int, table_id: str) -> StoredLog:
    """The log up to the head the meta hash records (read first: a live table may grow)."""
    store = EventStore(redis, partitions)
    seq, head_hash = await redis.hmget(
        keys.meta_hash(store.partition(table_id), table_id), ["seq", "hash"]
    )
    if seq is None:
        return StoredLog(await store.read_log(table_id), None)
    entries = await store.read_log(table_id, to_seq=int(seq))
    return StoredLog(entries, (int(seq), (head_hash or b"").decode()))


async def read_archived_log(archive_url: str, table_id: str) -> StoredLog:
    """The table's log from the archive (hashes recomputed) with the head hash the archive
    recorded, so a changed archived log fails the chain check; empty when not archived."""
    from archive import open_archive

    archive = await open_archive(archive_url)
    try:
        stored = await archive.get_table(table_id)
    finally:
        await archive.close()
    if stored is None:
        return StoredLog([], None)
    return StoredLog(stored.entries, (stored.summary.event_count, stored.summary.head_hash))


async def read_any_log(
    redis: Any, partitions: int, table_id: str, archive_url: str | None
) -> StoredLog:
    """The log from Redis, else (an archived table) from the archive."""
    stored = await read_stored_log(redis, partitions, table_id)
    if stored.entries or stored.head is not None or not archive_url:
        return stored
    return await read_archived_log(archive_url, table_id)


async def table_exists(redis: Any, partitions: int, table_id: str) -> bool:
    p = keys.partition_of(table_id, partitions)
    return bool(await redis.exists(keys.meta_hash(p, table_id), keys.log_stream(p, table_id)))


# ---------------------------------------------------------------- log lines


def entry_record(entry: RawEnvelope, game: str | None) -> dict[str, Any]:
    """The readable JSON object of one log entry (without the exact ``entry`` bytes)."""
    codec = codec_for(game or None)
    try:
        event = msgspec.to_builtins(codec.decode_event(entry.body))
    except (msgspec.DecodeError, msgspec.ValidationError):
        event = msgspec.to_builtins(msgspec.msgpack.decode(entry.body))
    command = None
    if entry.command is not None:
        try:
            command = msgspec.to_builtins(codec.decode_command(entry.command, False))
        except (msgspec.DecodeError, msgspec.ValidationError):
            command = msgspec.to_builtins(msgspec.msgpack.decode(entry.command))
    return {
        "table_id": entry.table_id,
        "seq": entry.seq,
        "command_id": entry.command_id,
        "seat": entry.seat,
        "recorded_at": entry.recorded_at,
        "prev_hash": entry.prev_hash,
        "hash": entry.hash,
        "event": event,
        "command": command,
    }


def _game_of(first: RawEnvelope) -> str | None:
    try:
        created = codec_for(None).decode_event(first.body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return getattr(created, "game", None)


def export_lines(entries: Sequence[RawEnvelope]) -> Iterator[bytes]:
    """The full log as JSON Lines (each line without its newline)."""
    game = _game_of(entries[0]) if entries else None
    for entry in entries:
        record = entry_record(entry, game)
        record["entry"] = base64.b64encode(encode_entry(entry)).decode()
        yield _json.encode(record)


def export_view_lines(
    entries: Sequence[RawEnvelope], viewer: Viewer, first: int = 1, last: int | None = None
) -> Iterator[bytes]:
    """A player-facing export: only what ``viewer`` saw (its view after each command).

    One line per command (its events were appended together, so the viewer saw them
    together); each view carries its seq. No event, command or hash leaves here.
    """
    for frame in frames(entries, viewer, first, last):
        yield frame.rendered


def read_log_lines(lines: Iterable[bytes | str]) -> list[RawEnvelope]:
    """Entries from a log file, checking each line's readable fields against its entry."""
    entries: list[RawEnvelope] = []
    game: str | None = None
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.strip()
        if not line:
            continue
        try:
            record = msgspec.json.decode(line)
        except msgspec.DecodeError as error:
            raise LogFileError(number, None, f"not JSON: {error}") from None
        if not isinstance(record, dict):
            raise LogFileError(number, None, "not a JSON object")
        seq = record.get("seq") if isinstance(record.get("seq"), int) else None
        if "entry" not in record:
            if "view" in record and "viewer" in record:
                raise LogFileError(
                    number, seq, "this is a player-facing export (views), not a table's log"
                )
            raise LogFileError(number, seq, "no 'entry' field")
        try:
            entry = decode_entry(base64.b64decode(record.pop("entry"), validate=True))
        except (ValueError, TypeError, msgspec.DecodeError, msgspec.ValidationError) as error:
            raise LogFileError(number, seq, f"the entry does not decode: {error}") from None
        if game is None and not entries:
            game = _game_of(entry)
        expected = msgspec.json.decode(_json.encode(entry_record(entry, game)))
        if record != expected:
            fields = [k for k in {**expected, **record} if record.get(k) != expected.get(k)]
            raise LogFileError(
                number,
                entry.seq,
                f"the readable fields {', '.join(fields)} do not match the entry they describe",
            )
        entries.append(entry)
    return entries


# ---------------------------------------------------------------- import


@dataclass(frozen=True)
class Imported:
    table_id: str
    partition: int
    events: int
    phase: str


def verified_fold(entries: Sequence[RawEnvelope]) -> TableState:
    """The table folded from a log whose chain and fold check out and that ends at the end
    of a command (else Discrepancy)."""
    if not entries:
        raise Discrepancy(0, "chain", "the log is empty")
    table_id = entries[0].table_id
    if not TABLE_ID.match(table_id):
        raise Discrepancy(1, "chain", f"{table_id!r} is not a valid table id")
    verify_chain(entries, table_id)
    state = TableState(table_id=table_id)
    for entry in entries:
        try:
            state = apply_entry(state, entry)
        except Exception as error:
            raise Discrepancy(entry.seq, "fold", f"the event does not fold: {error!r}") from None
    cut = unfinished_command(state)
    if cut is not None:  # its views would show a table nobody saw
        raise Discrepancy(entries[-1].seq, "end", mid_command_text(cut))
    return state


async def import_into_archive(
    redis: Any, partitions: int, entries: Sequence[RawEnvelope], archive_url: str
) -> Imported:
    """Verify an ended table's log, then write it straight into the archive (never into
    Redis). :class:`TableExists` when the table is live here or archived already."""
    from archive import ArchiveConflict, open_archive
    from archive.packing import NotFinished, summarize

    state = verified_fold(entries)
    if await table_exists(redis, partitions, state.table_id):
        raise TableExists(f"table {state.table_id!r} is live here; nothing was imported")
    try:
        summary = summarize(entries)
    except NotFinished as error:
        raise Discrepancy(entries[-1].seq, "archive", f"only an ended table: {error}") from None
    archive = await open_archive(archive_url)
    try:
        written = await archive.put_table(summary, entries)
    except ArchiveConflict as error:
        raise TableExists(str(error)) from None
    finally:
        await archive.close()
    if not written:
        raise TableExists(f"table {state.table_id!r} is archived already; nothing was imported")
    return Imported(
        state.table_id, keys.partition_of(state.table_id, partitions), len(entries), state.phase
    )


async def import_entries(
    redis: Any, partitions: int, entries: Sequence[RawEnvelope], *, restore: bool = False
) -> Imported:
    """Verify, then write a table's log into this store (see the module docstring).

    Raises :class:`Discrepancy` (with the seq) when the chain or the fold fails or the
    log ends inside a command, and :class:`TableExists` when the table id is taken (in
    Redis, or archived from it: ``restore`` puts an archived table back, replacing its tombstone).
    """
    state = verified_fold(entries)
    table_id = state.table_id
    p = keys.partition_of(table_id, partitions)
    script = redis.register_script(_IMPORT_LUA)
    seed = bytes.fromhex(state.seed) if state.seed else b""
    result = await script(
        keys=[
            keys.meta_hash(p, table_id),
            keys.log_stream(p, table_id),
            keys.tables_set(p),
            keys.feed_stream(p),
            keys.secret_key(p, table_id),
            keys.tombstone_key(p, table_id),
            keys.ended_zset(p),
        ],
        args=[
            table_id,
            entries[-1].seq,
            entries[-1].hash,
            state.phase,
            seed,
            FEED_MAXLEN,
            "1" if restore else "0",
            int(time.time() * 1000),
            *(encode_entry(entry) for entry in entries),
        ],
    )
    answer = result.decode() if isinstance(result, bytes) else result
    if answer == "exists":
        raise TableExists(f"table {table_id!r} already exists here; nothing was imported")
    if answer == "archived":
        raise TableExists(
            f"table {table_id!r} is archived here (`orrery archive restore` puts it back)"
        )
    return Imported(table_id, p, len(entries), state.phase)


async def restore_archived(redis: Any, partitions: int, entries: Sequence[RawEnvelope]) -> int:
    """Put an archived table back into Redis (its tombstone replaced); the number of events."""
    return (await import_entries(redis, partitions, entries, restore=True)).events
