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
        organiser = Organiser(redis, tournament_seats(), wire, key, matchmaker.name)
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


async def audit_tournament(url: str, tournament_id: str) -> Any:
    from competitions.audit import audit
    from competitions.log import read_log
    from competitions.settings import OrganiserSettings
    from orrery.server.cluster import open_redis

    redis = open_redis(url)
    try:
        entries = await read_log(redis, tournament_id)
    finally:
        await redis.aclose()
    return audit(tournament_id, entries, OrganiserSettings.from_env().dutch_max)


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
