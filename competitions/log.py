"""The tournaments' logs, leased logs (:mod:`streams.leased_log`) under one lease: the
organiser that holds it appends each tournament's decisions with the command cursor and
what players read. One meta hash serves them all (each tournament's seq and head under
its own fields, one shared cursor). Keys: orrery_contracts.keys (tag {mm})."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from competitions.events import TournamentEntry, entry_decoder, entry_encoder
from orrery_contracts import keys
from streams import leased_log


@dataclass(kw_only=True)
class Batch(leased_log.Batch[TournamentEntry]):
    """One append to ``tournament_id``'s log."""

    tournament_id: str


def log_keys(tournament_id: str) -> leased_log.LogKeys:
    return leased_log.LogKeys(
        log=keys.tournament_log(tournament_id),
        meta=keys.tournament_meta(),
        lease=keys.tournament_lease(),
        commands=keys.tournament_command_stream(),
        seq_field=f"seq:{tournament_id}",
        head_field=f"head:{tournament_id}",
    )


async def read_log(redis: Any, tournament_id: str) -> list[TournamentEntry]:
    return await leased_log.read_entries(
        redis, keys.tournament_log(tournament_id), entry_decoder.decode
    )


async def append(redis: Any, owner: str, batch: Batch) -> str:
    """ "ok", "lease_lost" or "conflict" (nothing written then)."""
    return await leased_log.append(
        redis, owner, log_keys(batch.tournament_id), batch, entry_encoder.encode
    )


async def cursor_of(redis: Any) -> str:
    return await leased_log.meta_field(redis, keys.tournament_meta(), "cursor", "0-0")


async def tournament_ids(redis: Any) -> list[str]:
    return [m.decode() for m in await redis.zrange(keys.tournaments_index(), 0, -1)]


async def lease(redis: Any, owner: str, ms: int) -> int:
    return await leased_log.lease(redis, keys.tournament_lease(), owner, ms)


async def release(redis: Any, owner: str) -> None:
    await leased_log.release(redis, keys.tournament_lease(), owner)
