"""Envelopes: what travels around a command or an event.

* :class:`CommandEnvelope` — a stream entry on ``orrery:{p}:cmd`` (field ``__data__``,
  JSON or msgpack). ``command_id`` is chosen by the client (a UUID) and makes retries
  safe: the same id is applied at most once. ``token`` is the seat's secret: chosen by
  the client in its ``table.join`` (at least 128 bits), sent with every later command.
  ``reply_to`` must name a stream under ``orrery:reply:`` (:data:`REPLY_TO`), which may
  end in a partition's hash tag ``:{p}``: on a cluster the append answers such a stream
  in its own script when ``p`` is the command's partition (services/store.py).
* :data:`Outcome` — the answer XADDed to the client's ``reply_to`` stream, in the
  command's own encoding: accepted (new seq range), rejected (stable code + message),
  or duplicate (the first outcome of that command id).
* :class:`EventEnvelope` — one entry of a table's log (msgpack, entry id ``<seq>-0``),
  SHA-256 hash-chained: ``hash = sha256(prev_hash || msgpack(envelope with hash=""))``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Generic, TypeVar

import msgspec

B = TypeVar("B")

# Where outcomes may be written: a reply stream in its own namespace, so a command can
# never make the worker write into a log, feed, view or another command stream.
REPLY_PREFIX = "orrery:reply:"
REPLY_TO = re.compile(r"^orrery:reply:[A-Za-z0-9_.:-]{1,100}(:\{[0-9]{1,5}\})?\Z")
# A seat secret: at least 128 bits as URL-safe base64 (22 characters), at most 128.
SEAT_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22,128}\Z")


class CommandEnvelope(msgspec.Struct, Generic[B], frozen=True, kw_only=True):
    command_id: str
    table_id: str
    body: B
    seat: int | None = None
    token: str | None = None
    reply_to: str | None = None
    # A gateway's signed assertion of the player behind a join (orrery_contracts.identity).
    identity: str | None = None


class Accepted(msgspec.Struct, frozen=True, kw_only=True, tag="accepted", tag_field="outcome"):
    command_id: str
    table_id: str
    first_seq: int
    last_seq: int
    # Only a join's outcome carries this: the seat taken. (Never the seat's secret: the
    # client chose it, and no outcome, stored or sent, carries one.)
    seat: int | None = None
    # Only a ``table.say``'s outcome carries this: the chat message's id (its seq range
    # is empty: first_seq = last_seq + 1; chat never enters the log).
    chat_id: str | None = None


class Rejection(msgspec.Struct, frozen=True, kw_only=True, tag="rejected", tag_field="outcome"):
    command_id: str
    table_id: str
    code: str
    message: str
    detail: dict[str, Any] | None = None


class Duplicate(msgspec.Struct, frozen=True, kw_only=True, tag="duplicate", tag_field="outcome"):
    command_id: str
    table_id: str
    original: Accepted | Rejection


Outcome = Accepted | Rejection | Duplicate


class EventEnvelope(msgspec.Struct, Generic[B], frozen=True, kw_only=True):
    table_id: str
    seq: int
    command_id: str
    seat: int | None
    recorded_at: int  # unix milliseconds; entry ids are versions, not times
    prev_hash: str
    body: B
    # The accepted command's body (msgpack), kept with its first event (for audits).
    command: bytes | None = None
    hash: str = ""


GENESIS_HASH = "0" * 64

RawEnvelope = EventEnvelope[msgspec.Raw]

_encoder = msgspec.msgpack.Encoder()
_raw_decoder = msgspec.msgpack.Decoder(RawEnvelope)


def chain_hash(envelope: RawEnvelope) -> str:
    """The hash an envelope must carry, given its prev_hash and contents."""
    unsigned = msgspec.structs.replace(envelope, hash="")
    return hashlib.sha256(envelope.prev_hash.encode() + _encoder.encode(unsigned)).hexdigest()


def seal(envelope: RawEnvelope) -> RawEnvelope:
    return msgspec.structs.replace(envelope, hash=chain_hash(envelope))


def encode_entry(envelope: RawEnvelope) -> bytes:
    return _encoder.encode(envelope)


def decode_entry(data: bytes) -> RawEnvelope:
    return _raw_decoder.decode(data)
