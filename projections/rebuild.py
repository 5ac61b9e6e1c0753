"""Rebuild every read model (views, lobby, scores, finished tables, ratings, the clocks'
deadlines index) from the logs; archived tables keep their tombstones and count for the
ratings through the archive.

The result equals what the live projectors wrote: views and scores come from the same
functions over the same folded states, and finished games are rated in the same
(finish time, table id) order the live scoreboard keeps. Notice streams and the record
of notified turns are kept, so a rebuild notifies no turn twice (only turns never
notified, e.g. of tables that were never projected).
"""

from __future__ import annotations

from typing import Any

from archive import Archive
from games.registry import BUILTIN, all_games
from orrery_contracts import keys
from projections.lobby import LobbyWriter, lobby_keys
from projections.notices import NoticeWriter
from projections.scoreboard import ScoreboardWriter, rebuild_ratings
from projections.tables import read_table
from projections.views import ViewWriter


async def all_table_ids(redis: Any, partitions: int) -> list[str]:
    ids: list[str] = []
    for p in range(partitions):
        ids += sorted(m.decode() for m in await redis.smembers(keys.tables_set(p)))
    return ids


async def read_model_keys(redis: Any, partitions: int) -> list[str]:
    """Every key the projections own (for deletion, and for comparing two runs)."""
    found: list[str] = [keys.FINISHED_TABLES]
    found += [keys.deadlines_zset(p) for p in range(partitions)]
    games = {*BUILTIN, *all_games()}
    for game in sorted(games):
        found += [keys.leaderboard_key(game), keys.ratings_key(game)]
    table_ids = await all_table_ids(redis, partitions)
    found += await lobby_keys(redis, table_ids, games)
    for table_id in table_ids:
        p = keys.partition_of(table_id, partitions)
        meta = await redis.hget(keys.meta_hash(p, table_id), "seq")
        state_seats = await _seat_count(redis, partitions, table_id) if meta else 0
        found += [keys.view_key(p, table_id, None), keys.score_key(p, table_id)]
        found += [keys.view_key(p, table_id, s) for s in range(state_seats)]
        found += [keys.projection_seq_key(p, table_id, g) for g in keys.PROJECTIONS]
        found += [
            keys.projection_seq_key(p, table_id, keys.NOTICES),
            keys.table_deadlines_key(p, table_id),
        ]
    return found


async def _seat_count(redis: Any, partitions: int, table_id: str) -> int:
    return (await read_table(redis, partitions, table_id, to_seq=1)).seats


async def rebuild(redis: Any, partitions: int, archive: Archive | None = None) -> int:
    """Delete and recompute every read model; returns the number of tables.

    Archived tables are left alone (they are in no partition's table set); their
    finishes still count for the ratings, which are recomputed last from the live and
    the archived finished tables (``archive``)."""
    doomed = await read_model_keys(redis, partitions)
    for key in doomed:
        await redis.delete(key)
    views = ViewWriter(redis, partitions)
    notices = NoticeWriter(redis, partitions)
    lobby = LobbyWriter(redis, partitions)
    scores = ScoreboardWriter(redis, partitions)
    table_ids = await all_table_ids(redis, partitions)
    for table_id in table_ids:
        state = await read_table(redis, partitions, table_id)
        await lobby.write(state)
        await views.write(state)
        await notices.write(state)
        await scores.write(state)
    await scores.close()
    if archive is not None:
        for game in sorted({*BUILTIN, *all_games()}):
            await rebuild_ratings(redis, game, archive)
    return len(table_ids)
