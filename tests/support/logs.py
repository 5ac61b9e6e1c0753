"""Helpers to build and tamper with table logs in tests (replay, audit, transfer)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from games.codec import codec_for, msgpack_encoder
from orrery_contracts.envelope import GENESIS_HASH, RawEnvelope, seal
from services.replay import play_log

Entries = list[RawEnvelope]

_cache: dict[tuple[str, int, int], tuple[Entries, list[str]]] = {}


def game_log(game: str, seats: int, seed: int = 1) -> tuple[Entries, list[str]]:
    """A complete log (and seat tokens), made once per test run."""
    key = (game, seats, seed)
    if key not in _cache:
        _cache[key] = play_log(game, seats, seed)
    entries, tokens = _cache[key]
    return list(entries), list(tokens)


def reseal(entries: Sequence[RawEnvelope], start: int = 0) -> Entries:
    """Re-chain the entries from index ``start`` on (what a forger with write access does)."""
    out = list(entries[:start])
    prev = out[-1].hash if out else GENESIS_HASH
    for entry in entries[start:]:
        sealed = seal(msgspec.structs.replace(entry, prev_hash=prev, hash=""))
        out.append(sealed)
        prev = sealed.hash
    return out


def event_of(entry: RawEnvelope, game: str | None) -> Any:
    return codec_for(game).decode_event(entry.body)


def find(entries: Sequence[RawEnvelope], game: str, tag: str, start: int = 0) -> int:
    """Index of the first entry from ``start`` whose event has this tag."""
    for index in range(start, len(entries)):
        if msgspec.msgpack.decode(entries[index].body).get("type") == tag:
            return index
    raise LookupError(tag)


def rewrite(
    entries: Sequence[RawEnvelope], index: int, game: str, change: Callable[[Any], Any]
) -> Entries:
    """Replace one event by ``change(event)`` and re-seal the chain after it."""
    event = event_of(entries[index], game)
    body = msgspec.Raw(msgpack_encoder.encode(change(event)))
    changed = list(entries)
    changed[index] = msgspec.structs.replace(entries[index], body=body)
    return reseal(changed, index)


def with_players(entries: Sequence[RawEnvelope], players: dict[int, str]) -> Entries:
    """The log with these verified players (seat → player id) in its joins, re-sealed."""
    from orrery_contracts.table import SeatJoined

    changed = list(entries)
    for index, entry in enumerate(entries):
        if msgspec.msgpack.decode(entry.body).get("type") != "table.seat_joined":
            continue
        joined = msgspec.msgpack.decode(entry.body, type=SeatJoined)
        if joined.seat in players:
            player = msgspec.structs.replace(joined, player_id=players[joined.seat])
            changed[index] = msgspec.structs.replace(
                entry, body=msgspec.Raw(msgpack_encoder.encode(player))
            )
    return reseal(changed)
