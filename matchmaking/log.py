"""The matchmaking log of each game, a leased log (:mod:`streams.leased_log`): one
matchmaker at a time holds a game's lease and appends its decisions with everything they
change (the command cursor, what players read, the answers). Keys:
orrery_contracts.keys (tag {mm})."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orrery_contracts import keys
from orrery_contracts.matchmaking import QueueEntry, queue_entry_decoder, queue_entry_encoder
from streams import leased_log


@dataclass(kw_only=True)
class Batch(leased_log.Batch[QueueEntry]):
    """One append to ``game``'s log."""

    game: str


def log_keys(game: str) -> leased_log.LogKeys:
    return leased_log.LogKeys(
        log=keys.queue_log(game),
        meta=keys.queue_meta(game),
        lease=keys.queue_lease(game),
        commands=keys.queue_command_stream(game),
    )


async def read_log(redis: Any, game: str, after: int = 0) -> list[QueueEntry]:
    """The game's log entries after seq ``after``, in order."""
    return await leased_log.read_entries(
        redis, keys.queue_log(game), queue_entry_decoder.decode, after
    )


async def append(redis: Any, owner: str, batch: Batch) -> str:
    """Append ``batch``: "ok", "lease_lost" or "conflict" (nothing written then)."""
    return await leased_log.append(
        redis, owner, log_keys(batch.game), batch, queue_entry_encoder.encode
    )


async def cursor_of(redis: Any, game: str) -> str:
    return await leased_log.meta_field(redis, keys.queue_meta(game), "cursor", "0-0")


async def lease(redis: Any, game: str, owner: str, ms: int) -> int:
    return await leased_log.lease(redis, keys.queue_lease(game), owner, ms)


async def release(redis: Any, game: str, owner: str) -> None:
    await leased_log.release(redis, keys.queue_lease(game), owner)
