"""Wiring the matchmaker into processes: ``orrery matchmaker`` (started by ``orrery serve
--matchmakers N``) and ``orrery matchmaking audit``.

The matchmaker (matchmaking/matchmaker.py) gets the games' seat ranges from the rules'
registry and sends table commands through a client of the wire contract with its own
reply streams (``orrery:reply:mm:*``), signing joins with the server key
(``$ORRERY_SECRET_KEY``, which ``orrery serve`` shares with every process it starts).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any

import structlog

log = structlog.get_logger("orrery.matchmaker")


def seat_ranges() -> dict[str, tuple[int, int]]:
    from games.registry import all_games

    return {name: (g.min_seats, g.max_seats) for name, g in all_games().items()}


async def run_matchmaker(url: str) -> None:
    """Run one matchmaker until SIGINT/SIGTERM."""
    from competitions.organiser import Organiser
    from gateway.settings import SECRET_KEY_ENV
    from gateway.wire import GatewayClient
    from matchmaking.matchmaker import Matchmaker
    from orrery.archiving import archive_url
    from orrery.errors import UserError
    from orrery.server.cluster import open_redis
    from services import metrics

    key = os.environ.get(SECRET_KEY_ENV, "")
    if not key:
        raise UserError(f"a matchmaker needs the server key in ${SECRET_KEY_ENV}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    metrics.serve_metrics(None)
    redis = open_redis(url)
    wire = GatewayClient(url, reply_prefix="mm")
    try:
        await wire.connect(timeout=10.0)
        matchmaker = Matchmaker(redis, seat_ranges(), wire, key)
        metrics.name_process("matchmaker", matchmaker.name)
        log.info("matchmaker_started", games=sorted(matchmaker.games))
        organiser = Organiser(
            redis,
            tournament_seats(),
            wire,
            key,
            matchmaker.name,
            season_games=tuple(sorted(seat_ranges())),
            archive_url=archive_url(),
        )
        organising = asyncio.create_task(run_organiser(organiser, stop))
        await matchmaker.run(stop)
        await organising
        log.info("matchmaker_stopped", tables=matchmaker.made_tables)
    finally:
        await wire.close()
        await redis.aclose()


def tournament_seats() -> dict[str, tuple[int, int]]:
    """Each game's seat range; a tournament table has two seats at least."""
    return {name: (max(low, 2), high) for name, (low, high) in seat_ranges().items() if high >= 2}


async def run_organiser(organiser: Any, stop: asyncio.Event) -> None:
    """The tournament organiser's loop, beside the matchmaker's in the same process
    (competitions/organiser.py says why)."""
    from redis.exceptions import RedisError

    backoff = 0.0
    while not stop.is_set():
        try:
            await organiser.step()
            backoff = 0.0
            pause = 0.05 if organiser.owned else organiser.settings.lease_ms / 4000
        except (RedisError, OSError) as error:
            backoff = min(max(backoff * 2, 0.5), 10.0)
            log.warning("organiser_retry", error=str(error)[:200], in_s=backoff)
            organiser.owned = False
            pause = backoff
        except Exception:  # a bug must not stop the tournaments: read everything again
            log.exception("organiser_failed")
            organiser.owned = False
            pause = 1.0
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=pause)
    with contextlib.suppress(RedisError, OSError):
        await organiser.release()


async def audit_tournament(url: str, tournament_id: str, archive: str | None = None) -> Any:
    """The audit of a tournament's log: from Redis, else (once archived) from the
    archive at ``archive``."""
    from competitions.audit import audit
    from competitions.events import entry_decoder
    from competitions.log import read_log
    from competitions.settings import OrganiserSettings
    from orrery.server.cluster import open_redis

    redis = open_redis(url)
    try:
        entries = await read_log(redis, tournament_id)
    finally:
        await redis.aclose()
    if not entries and archive is not None:
        from archive.tournaments import get_tournament
        from orrery.archiving import opened_archive

        async with opened_archive(archive) as store:
            found = await get_tournament(store, tournament_id)
        if found is not None:
            entries = [entry_decoder.decode(raw) for raw in found.entries]
    return audit(tournament_id, entries, OrganiserSettings.from_env().dutch_max)


async def archive_tournaments(url: str, archive: str, older_than_s: float) -> list[str]:
    """Move the logs of tournaments finished (or cancelled) at least ``older_than_s``
    ago to the archive: written, read back and compared, then deleted from Redis. Each
    one's view stays readable where it was (``GET /v1/tournaments/{id}``)."""
    import time

    from archive.tournaments import get_tournament, put_tournament
    from competitions.events import entry_decoder
    from competitions.log import tournament_ids
    from orrery.archiving import opened_archive
    from orrery.server.cluster import open_redis
    from orrery_contracts import keys
    from orrery_contracts.tournaments import tournament_view_decoder

    moved: list[str] = []
    now = time.time() * 1000
    redis = open_redis(url)
    try:
        async with opened_archive(archive) as store:
            for tid in await tournament_ids(redis):
                raw_view = await redis.get(keys.tournament_key(tid))
                if raw_view is None:
                    continue
                shown = tournament_view_decoder.decode(raw_view)
                if shown.state not in ("finished", "cancelled"):
                    continue
                rows = await redis.xrange(keys.tournament_log(tid))
                if not rows:
                    continue  # archived already
                entries = [fields[b"e"] for _, fields in rows]
                last = entry_decoder.decode(entries[-1])
                if now - last.at < older_than_s * 1000:
                    continue
                await put_tournament(
                    store, tid, shown.game, last.at, last.hash, raw_view.decode(), entries
                )
                stored = await get_tournament(store, tid)
                if stored is None or stored.entries != entries:
                    raise RuntimeError(f"tournament {tid}: the archive holds another log")
                await redis.delete(keys.tournament_log(tid))
                moved.append(tid)
    finally:
        await redis.aclose()
    return moved


async def audit_queue(url: str, game: str, offline_s: float | None = None) -> Any:
    from matchmaking.audit import audit
    from matchmaking.log import read_log
    from matchmaking.settings import MatchmakerSettings
    from orrery.server.cluster import open_redis

    if offline_s is None:
        offline_s = MatchmakerSettings.from_env().offline_s
    redis = open_redis(url)
    try:
        entries = await read_log(redis, game)
    finally:
        await redis.aclose()
    return audit(game, seat_ranges()[game], entries, offline_s)
