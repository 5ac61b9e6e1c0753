"""A finished table's chat in the archive: its stored form, and an operator's delete there.

Chat is not game state (``orrery_contracts/chat.py``): it is kept apart from the
hash-chained log, in its own row (``archived_chats``), so archiving it changes no head
hash and no audit. The row holds the chat stream's entries exactly as Redis held them,
``(entry id, __data__ JSON)`` oldest first, deletion entries included, so a deleted
message stays its "deleted" marker and ``orrery_contracts.chat.history`` reads an
archived chat as it reads the stream. Stored form: a zstd frame of one msgpack array of
``[id, data]`` pairs (``chat_format`` 1).

:func:`without_message` is ``services/chat_delete.lua`` for an archived chat: the message
goes, a deletion entry with a newer id takes the end, the cap is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import zstandard

from archive.model import ChatEntries
from archive.packing import ZSTD_LEVEL
from orrery_contracts.chat import CHAT_CAP, ChatEntry, entry_encoder, id_key

# The stored chat's version (the rows' ``chat_format``): a new form gets a new number and
# the reader keeps reading the old ones.
CHAT_FORMAT = 1

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(list[tuple[str, bytes]])
_entry = msgspec.json.Decoder(ChatEntry)


def pack_chat(entries: Sequence[tuple[str, bytes]]) -> bytes:
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(_encoder.encode(list(entries)))


def unpack_chat(data: bytes, chat_format: int = CHAT_FORMAT) -> ChatEntries:
    if chat_format != CHAT_FORMAT:
        raise ValueError(f"unknown archived chat format {chat_format}")
    return _decoder.decode(zstandard.ZstdDecompressor().decompress(data))


def _is_message(data: bytes) -> bool:
    try:
        return _entry.decode(data).deleted is None
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False


def without_message(entries: ChatEntries, message_id: str, now_ms: int) -> ChatEntries | None:
    """The chat with message ``message_id`` replaced by a deletion entry at its end (an id
    after every other, as ``XADD *`` gives), or None when there is no such message."""
    if not any(i == message_id and _is_message(data) for i, data in entries):
        return None
    kept = [(i, data) for i, data in entries if i != message_id]
    last_ms, last_n = id_key(kept[-1][0]) if kept else (0, 0)
    new_id = f"{now_ms}-0" if now_ms > last_ms else f"{last_ms}-{last_n + 1}"
    marker = entry_encoder.encode(ChatEntry(deleted=message_id))
    return [*kept, (new_id, marker)][-CHAT_CAP:]
