"""Table chat: the command that posts, the message clients receive, the stream format.

Chat is not game state: it never enters a table's log, never changes a view, and is kept
per table in one capped Redis stream (``keys.chat_stream``). Choices:

* a message is posted with the command ``table.say {text}`` on the partition's command
  stream, so a seat authenticates with its secret like any command (trusted apps on the
  Redis wire included); the worker writes it to the chat stream, never to the log, and
  answers ``accepted`` with ``chat_id`` and an empty seq range. A spectator's message
  comes only from the gateway, which signs the spectator's player id into the envelope's
  ``identity`` (``orrery_contracts.identity``) and names them in ``name``;
* text: NFC, stripped, 1-500 characters, no control or invisible characters
  (``inputs.normalise_text``); clients show it as text, never as HTML;
* per author (a seat, or a spectator's player id) at most :data:`CHAT_RATE` messages per
  :data:`CHAT_WINDOW_S` seconds (``rate_limited`` beyond); the last :data:`CHAT_CAP`
  stream entries are kept;
* an operator's delete (``orrery chat delete TABLE ID``) removes the entry and appends a
  deletion entry, so history and live clients show a "deleted" marker in its place.

Stream entry ``__data__`` (JSON): a message ``{"seat": N | "spectator": true, "name",
"text", "at"}`` (``at``: unix ms), or ``{"deleted": "<id>"}``. The message id is the
entry id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from orrery_contracts.base import CommandBody
from orrery_contracts.inputs import normalise_text

SAY_TAG = "table.say"
MAX_CHAT_TEXT = 500
CHAT_CAP = 1_000
# per author at most CHAT_RATE messages per CHAT_WINDOW_S seconds, unless the workers
# are told otherwise (``ORRERY_CHAT_RATE``: services.settings)
CHAT_RATE, CHAT_WINDOW_S = 5, 10
MAX_HISTORY = CHAT_CAP


class SayChat(CommandBody, frozen=True, tag="table.say"):
    """Post ``text`` to the table's chat (as the envelope's seat; ``name`` is read only
    from a gateway-signed spectator)."""

    text: str
    name: str = ""


class ChatEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a chat stream entry holds (``__data__``)."""

    seat: int | None = None
    spectator: bool = False
    name: str = ""
    text: str = ""
    at: int = 0
    deleted: str | None = None  # a deletion: the id of the message it removed
    # a spectator's player id (a seat's player is the lobby record's): kept for the
    # gateway, which hides blocked authors and files reports; never sent to clients
    player: str | None = None


class ChatMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A message as clients get it (``GET …/chat``, the WebSocket's ``chat`` frame, the
    SDK), every member always there: ``seat`` for a seated author (null otherwise),
    ``spectator: true`` otherwise; a deleted message keeps only its ``id``, ``at`` and
    ``deleted: true`` (``seat`` null, ``name`` and ``text`` empty)."""

    id: str
    seat: int | None = None
    spectator: bool = False
    name: str = ""
    text: str = ""
    at: int = 0
    deleted: bool = False


_entry_json = msgspec.json.Decoder(ChatEntry)
entry_encoder = msgspec.json.Encoder()


def normalise_chat_text(raw: str) -> str | None:
    return normalise_text(raw, MAX_CHAT_TEXT)


def entry_id_ms(entry_id: str) -> int:
    head, _, _ = entry_id.partition("-")
    return int(head) if head.isdigit() else 0


def id_key(entry_id: str) -> tuple[int, int]:
    """A stream id's order (``ms-n``)."""
    head, _, tail = entry_id.partition("-")
    return (int(head or 0), int(tail or 0))


def read_entry(entry_id: str, data: bytes | str) -> ChatMessage | None:
    """One stream entry as a message (a deletion becomes its message's marker)."""
    try:
        entry = _entry_json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if entry.deleted is not None:
        return ChatMessage(id=entry.deleted, at=entry_id_ms(entry.deleted), deleted=True)
    return ChatMessage(
        id=entry_id,
        seat=entry.seat,
        spectator=entry.spectator,
        name=entry.name,
        text=entry.text,
        at=entry.at,
    )


def history(
    entries: Iterable[tuple[Any, Any]], after: str | None = None, limit: int = 100
) -> list[ChatMessage]:
    """The messages of stream entries (``(id, fields)`` as XRANGE gives them), oldest
    first, after message ``after``, at most ``limit``; a deleted message shows as its
    marker where it was."""
    messages: dict[str, ChatMessage] = {}
    for raw_id, fields in entries:
        entry_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
        data = fields.get(b"__data__", fields.get("__data__")) if isinstance(fields, dict) else None
        if data is None:
            continue
        message = read_entry(entry_id, data)
        if message is not None:
            messages[message.id] = message
    floor = id_key(after) if after else (-1, -1)
    ordered = sorted(
        (m for m in messages.values() if id_key(m.id) > floor), key=lambda m: id_key(m.id)
    )
    return ordered[: max(0, limit)]
