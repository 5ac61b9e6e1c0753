"""Running the arena's seasons (``orrery season show|rollover``): the current season in
Redis (``keys.season_key``), the ratings (the leaderboard's ``keys.ratings_key``, their
uncertainty widened at a rollover), and the past seasons' final tables in the archive.

A rollover writes the archive first (a second write of the same season changes nothing),
then the next season, then the widened ratings (each its own key slot): a rollover cut
short before the season is written runs again whole; one cut short after it leaves the
ratings as they were (never widened twice). The scoreboard projection rates games with a
transaction that watches the ratings, so a game finishing meanwhile is rated on the
widened ratings or before them, never half."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from competitions.seasons import Rating, first_season, rollover
from competitions.settings import SeasonSettings
from orrery_contracts import keys
from orrery_contracts.tournaments import SeasonTable, SeasonView, season_view_decoder


class _Stored(msgspec.Struct):
    mu: float
    sigma: float
    games: int = 0


_stored = msgspec.json.Decoder(_Stored)
_json = msgspec.json.Encoder()


async def ratings_of(redis: Any, game: str) -> dict[str, Rating]:
    raw = await redis.hgetall(keys.ratings_key(game))
    found = {}
    for player, value in raw.items():
        name = player.decode()
        if name.startswith("bot:"):
            continue  # the bot levels are rated, but play in no league
        r = _stored.decode(value)
        found[name] = Rating(r.mu, r.sigma, r.games)
    return found


async def current(redis: Any, game: str) -> SeasonView | None:
    raw = await redis.get(keys.season_key(game))
    return season_view_decoder.decode(raw) if raw else None


async def roll(
    redis: Any, archive: Any, game: str, force: bool, settings: SeasonSettings
) -> tuple[SeasonTable | None, SeasonView]:
    """Start the game's first season, or end the current one when it is over (``force``:
    now) and begin the next. Returns the ended season's final table (None: none ended)."""
    from archive.seasons import put_season

    now = int(time.time() * 1000)
    season = await current(redis, game)
    ratings = await ratings_of(redis, game)
    if season is None:
        started = first_season(game, ratings, now, settings)
        await redis.set(keys.season_key(game), _json.encode(started))
        return None, started
    if now < season.ends_at and not force:
        return None, season
    table, following, reset = rollover(season, ratings, now, settings)
    await put_season(archive, table)
    await redis.set(keys.season_key(game), _json.encode(following))
    if reset:
        await redis.hset(
            keys.ratings_key(game),
            mapping={
                p: _json.encode({"mu": r.mu, "sigma": r.sigma, "games": r.games})
                for p, r in reset.items()
            },
        )
    return table, following
