"""Running the arena's seasons from the command line (``orrery season show|rollover``):
the current season in Redis (``keys.season_key``), the ratings (the leaderboard's
``keys.ratings_key``, their uncertainty widened at a rollover), and the past seasons'
final tables in the archive. The rollover itself is competitions/season_roll.py's, the
one the tournament organiser runs when a season's end has passed: exactly once per
season, whoever runs it and however it is cut short."""

from __future__ import annotations

import time
from typing import Any

from competitions.season_roll import current
from competitions.season_roll import roll as roll_season
from competitions.settings import SeasonSettings
from orrery_contracts.tournaments import SeasonTable, SeasonView

__all__ = ["current", "roll"]


async def roll(
    redis: Any, archive: Any, game: str, force: bool, settings: SeasonSettings
) -> tuple[SeasonTable | None, SeasonView]:
    """Start the game's first season, or end the current one when it is over (``force``:
    now) and begin the next. Returns the ended season's final table (None: none ended)."""
    from archive.seasons import put_season

    async def put(table: SeasonTable) -> None:
        await put_season(archive, table)

    now = int(time.time() * 1000)
    ended, season = await roll_season(redis, put, game, settings, force=force, now=now)
    assert season is not None  # started when there was none
    return ended, season
