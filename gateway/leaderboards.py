"""A game's leaderboard (``GET /v1/leaderboard/{game}``): its top rated players, as the
projector ranks them (verified players only), the bots of each level among them
(``bot:<level>``, marked ``bot``: what beating one means)."""

from __future__ import annotations

from gateway.models import Leaderboard, LeaderboardEntry
from gateway.table_bots import bot_name
from gateway.tables import MAX_LIST, Tables, rating_decoder
from orrery_contracts import keys
from orrery_contracts.lobby import bot_level_of
from orrery_contracts.social import ERASED_NAME


class Leaderboards:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def top(self, game: str, limit: int) -> Leaderboard:
        self.tables.check_game(game)
        limit = max(1, min(limit, MAX_LIST))
        redis = self.tables.redis
        top = await redis.zrevrange(keys.leaderboard_key(game), 0, limit - 1)
        players = [p.decode() for p in top]
        if not players:
            return Leaderboard(entries=[])
        raws = await redis.hmget(keys.ratings_key(game), players)
        names = await self.tables.accounts.names_of(players)
        entries = []
        for player, raw in zip(players, raws, strict=True):
            if raw is None:
                continue
            rating = rating_decoder.decode(raw)
            level = bot_level_of(player)
            entries.append(
                LeaderboardEntry(
                    player_id=player,
                    # no account behind a rated player id: an erased one
                    name=bot_name(level) if level else names.get(player, ERASED_NAME),
                    rating=round(rating.mu, 1),
                    games=rating.games,
                    bot=level is not None,
                )
            )
        return Leaderboard(entries=entries)
