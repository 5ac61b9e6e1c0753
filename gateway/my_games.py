"""A player's own pages: ``GET /v1/players/me`` (my account, ratings and the tables
where I hold a seat) and ``GET /v1/players/me/games`` (my ended games, live and
archived, newest finish first)."""

from __future__ import annotations

import re

import msgspec

from gateway.erased import shown_games, shown_records
from gateway.errors import ApiError
from gateway.models import Me, MyTable, PastGame, PastGames, PastSeat
from gateway.tables import MAX_LIST, Tables, rating_decoder, seat_of, summary
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry
from orrery_contracts.lobby import player_tables_key

# my games' cursor: <finished_at ms, 15 digits>:<table id> (the lobby's CURSOR_PATTERN)
GAMES_CURSOR = re.compile(r"^(\d{15}):([A-Za-z0-9_.:-]{1,64})\Z")
MY_TABLES = 50


def past_game(
    table_id: str, game: str, state: str, finished_at: int, seat: int, seats: list[PastSeat]
) -> PastGame:
    """One of my ended games (``seat``: mine, its rank and score picked from ``seats``)."""
    mine = next(s for s in seats if s.seat == seat)
    return PastGame(
        table_id=table_id,
        game=game,
        state=state,
        finished_at=finished_at,
        seat=seat,
        rank=mine.rank,
        score=mine.score,
        seats=seats,
    )


class MyGames:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.redis = tables.redis

    async def me(self, player_id: str) -> Me:
        name = await self.tables.accounts.name_of(player_id)
        if name is None:
            raise ApiError(401, "unauthorized", "this account no longer exists")
        members = await self.redis.zrevrange(player_tables_key(player_id), 0, MY_TABLES - 1)
        records = await self.tables.records([m.decode().split(":", 1)[1] for m in members])
        records = await shown_records(self.redis, records)
        tables = []
        for record in records:
            seat = seat_of(record, player_id)
            if seat is not None:
                tables.append(MyTable(**msgspec.structs.asdict(summary(record)), seat=seat))
        ratings = {}
        for game in sorted({r.game for r in records}):
            raw = await self.redis.hget(keys.ratings_key(game), player_id)
            if raw:
                ratings[game] = round(rating_decoder.decode(raw).mu, 1)
        return Me(player_id=player_id, name=name, ratings=ratings, tables=tables)

    async def games(
        self, player_id: str, game: str | None, cursor: str | None, limit: int
    ) -> PastGames:
        """My finished and closed tables, newest finish first: the archived ones from the
        archive, the others (ended less than ``ORRERY_ARCHIVE_AFTER_S`` ago) from the
        lobby's index of my tables; a page at a time."""
        if game is not None:
            self.tables.check_game(game)
        after: tuple[int, str] | None = None
        if cursor is not None:
            matched = GAMES_CURSOR.match(cursor)
            if matched is None:
                raise ApiError(422, "bad_cursor", "the cursor is not one this API gave out")
            after = (int(matched.group(1)), matched.group(2))
        limit = max(1, min(limit, MAX_LIST))
        games: list[PastGame] = []
        more = False
        if self.tables.archived is not None:
            games, more = await self.tables.archived.player_games(player_id, game, after, limit)
        seen = {g.table_id for g in games}
        for past in await self._live_games(player_id, game):
            key = (past.finished_at, past.table_id)
            if past.table_id not in seen and (after is None or key < after):
                games.append(past)
        games.sort(key=lambda g: (g.finished_at, g.table_id), reverse=True)
        more = more or len(games) > limit
        games = await shown_games(self.redis, games[:limit])
        last = games[-1] if games else None
        return PastGames(
            games=games,
            next=f"{last.finished_at:015d}:{last.table_id}" if more and last else None,
        )

    async def _live_games(self, player_id: str, game: str | None) -> list[PastGame]:
        """My ended tables still in Redis (the lobby's index of my tables)."""
        members = await self.redis.zrevrange(player_tables_key(player_id), 0, -1)
        records = await self.tables.records([m.decode().split(":", 1)[1] for m in members])
        client = self.tables.client
        found = []
        for record in records:
            seat = seat_of(record, player_id)
            if record.state not in ("finished", "closed") or seat is None:
                continue
            if game is not None and record.game != game:
                continue
            p = client.partition(record.table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, record.table_id), count=1)
            if not head:
                continue  # being archived: the archive answers for it
            raw = await client.redis.get(keys.score_key(p, record.table_id))
            lines = (
                {line["seat"]: line for line in msgspec.json.decode(raw)["lines"]} if raw else {}
            )
            seats = [
                PastSeat(
                    seat=s.seat,
                    name=s.name,
                    player_id=s.player_id,
                    bot=s.bot,
                    rank=lines.get(s.seat, {}).get("rank"),
                    score=lines.get(s.seat, {}).get("points"),
                )
                for s in record.players
            ]
            finished_at = decode_entry(head[0][1][b"e"]).recorded_at
            found.append(
                past_game(record.table_id, record.game, record.state, finished_at, seat, seats)
            )
        return found
