"""The partition feed: one entry per append, telling projectors which seqs are new."""

from __future__ import annotations

import msgspec


class FeedEntry(
    msgspec.Struct, frozen=True, kw_only=True, rename={"from_seq": "from", "to_seq": "to"}
):
    table: str
    from_seq: int
    to_seq: int


feed_decoder = msgspec.json.Decoder(FeedEntry)
