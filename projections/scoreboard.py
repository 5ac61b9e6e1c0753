"""The scoreboard projection: live and final scores per table, the list of finished
tables, and a per-game leaderboard with a multiplayer rating.

Ratings follow Board Game Arena's idea (everyone starts at 1500, the final rank is
what counts) computed with openskill's Plackett-Luce model. A player is identified by
the verified player id their join carried (``SeatJoined.player_id``: only a trusted
gateway can vouch for one, see ``orrery_contracts.identity``), never by a display name:
anonymous seats and the gateway's bots are not rated, and a table is rated among its
verified players only, when it has at least two (their ranks keep their order). A table
created unrated (``table.create``'s ``rated``: false) rates nobody: it is recorded with
the finished tables, and no rating moves, live or in a recompute.

A finished table is rated exactly once: the rating write, the leaderboard and the
finished-tables record change in one MULTI on keys of one hash slot. Finished games are
rated in (finish time, table id) order; a finish that arrives out of that order makes
the game's ratings be recomputed from the record, so a rebuild always gives the same
ratings as the live run.

The record of finished tables holds live tables only: the archiver takes a table's
entry out when it moves the table to the archive (archive/archiver.py). A recompute
therefore reads the archived finishes too (``$ORRERY_ARCHIVE_URL``, which ``orrery
serve`` and every role process set), and :func:`rebuild_ratings` (``orrery ratings
rebuild GAME``) recomputes a game's ratings from both.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from openskill.models import PlackettLuce
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import WatchError

from archive import ARCHIVE_URL_ENV, Archive, TableSummary, open_archive
from games.table import TableState, standing_lines, table_status
from orrery_contracts import keys
from orrery_contracts.lobby import BOT_PLAYER_ID
from orrery_contracts.views import RatingLine, ScoreLine, TableScore
from projections.writes import ScoreWrite

START_RATING = 1500.0
_model = PlackettLuce(mu=START_RATING, sigma=START_RATING / 3, beta=START_RATING / 6, tau=5.0)
_json = msgspec.json.Encoder()


class FinishedTable(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    game: str
    finished_at: int
    # per seat: the verified player id, "" for an anonymous or bot seat (not rated)
    players: list[str]
    ranks: list[int]
    points: list[int]
    names: list[str] = []
    rated: bool = True  # false: an unrated table (it rates nobody)


class PlayerRating(msgspec.Struct, kw_only=True):
    mu: float
    sigma: float
    games: int = 0


_finished_decoder = msgspec.json.Decoder(FinishedTable)
_rating_decoder = msgspec.json.Decoder(PlayerRating)


def table_score(state: TableState) -> TableScore:
    """The table's scoreboard record: a line per seat (seat order), then a line per
    built-in opponent (participant order), from the standings every view carries."""
    status = table_status(state)
    standings = standing_lines(state)
    by_seat = {line.seat: line for line in standings if line.seat is not None}
    if by_seat:
        points = [by_seat[s].points for s in range(state.seats)]
        ranks = [by_seat[s].rank for s in range(state.seats)]
    elif state.standing is not None:
        points, ranks = state.standing.points, state.standing.ranks
    else:
        points, ranks = [0] * state.seats, [1] * state.seats
    lines = [
        ScoreLine(
            seat=seat,
            participant=seat,
            name=state.names[seat],
            points=points[seat],
            rank=ranks[seat],
            left=state.left[seat],
        )
        for seat in range(state.seats)
    ]
    lines += [
        ScoreLine(
            seat=line.participant,
            participant=line.participant,
            name=line.name,
            points=line.points,
            rank=line.rank,
            ai=True,
        )
        for line in sorted(standings, key=lambda line: line.participant)
        if line.ai
    ]
    return TableScore(
        table_id=state.table_id,
        game=state.game,
        seq=state.seq,
        phase=state.phase,
        round=status.round,
        lines=lines,
    )


def rated_player(player_id: str) -> bool:
    return bool(player_id) and player_id != BOT_PLAYER_ID


def rate(ratings: dict[str, PlayerRating], finished: FinishedTable) -> dict[str, PlayerRating]:
    """The new ratings of the table's verified players after this game (none after an
    unrated one)."""
    if not finished.rated:
        return {}
    seats = [
        s
        for s, player in enumerate(finished.players)
        if rated_player(player) and player not in finished.players[:s]
    ]
    if len(seats) < 2:
        return {}
    players = [finished.players[s] for s in seats]
    teams = [
        [_model.rating(mu=r.mu, sigma=r.sigma)]
        for r in (
            ratings.get(player) or PlayerRating(mu=START_RATING, sigma=START_RATING / 3)
            for player in players
        )
    ]
    rated = _model.rate(teams, ranks=[float(finished.ranks[s]) for s in seats])
    out = {}
    for player, team in zip(players, rated, strict=True):
        games = ratings[player].games if player in ratings else 0
        out[player] = PlayerRating(mu=team[0].mu, sigma=team[0].sigma, games=games + 1)
    return out


# Write a table's score unless a newer one is there (two projectors, stale caches).
_GUARDED_SET = (Path(__file__).parent / "scoreboard_set.lua").read_text()


class SlotTransactions:
    """The client that runs the transactions (``WATCH`` … ``MULTI``/``EXEC``) on the
    keys of one hash slot. On a standalone server it is the client itself. On a Redis
    Cluster it is a plain client of the node that holds the slot: redis-py's cluster
    transactions run each command of one in a thread of its own with an event loop of its
    own, and the caller's loop waits for that thread (redis/asyncio/cluster.py
    ``TransactionStrategy.execute_command``; ~1.3 ms of a stopped projector per finished
    game in ``bench scale``). After a failed transaction the cluster's slot map is read
    again and the node looked up in it (a failover or a resharding moves the slot; the
    cluster client refreshes its map only on an error of its own, and this client's
    errors are not its own)."""

    def __init__(self, redis: Any, key: str) -> None:
        self.redis = redis
        self.key = key
        self._node: aioredis.Redis | None = None

    def client(self) -> Any:
        if not isinstance(self.redis, RedisCluster):
            return self.redis
        if self._node is None:
            node = self.redis.get_node_from_key(self.key)
            if node is None:
                raise RuntimeError(f"no node holds the slot of {self.key}")
            pool = aioredis.ConnectionPool(
                connection_class=node.connection_class, **node.connection_kwargs
            )
            self._node = aioredis.Redis(connection_pool=pool)
        return self._node

    async def forget(self) -> None:
        node, self._node = self._node, None
        if node is not None:
            await node.aclose(close_connection_pool=True)

    async def failed(self) -> None:
        """After a failed transaction: the next one looks the slot's node up again, in a
        slot map read anew (if the cluster answers now; else the map at hand)."""
        await self.forget()
        if isinstance(self.redis, RedisCluster):
            with contextlib.suppress(Exception):
                await self.redis.nodes_manager.initialize()


class ScoreboardWriter:
    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self.guarded_set = redis.register_script(_GUARDED_SET)
        # (the finished tables and every game's ratings share the leaderboard's slot)
        self.transactions = SlotTransactions(redis, keys.FINISHED_TABLES)

    async def close(self) -> None:
        await self.transactions.forget()

    async def write(self, state: TableState) -> None:
        # Rate a finished game before its final score appears, so a client that sees
        # "finished" on the scoreboard also sees the new ratings.
        await self.before(state)
        await self.call(state).run()

    async def before(self, state: TableState) -> None:
        """What must be written before the table's score: a finished game's rating."""
        if state.phase == "finished" and state.standing is not None:
            await self.record_finish(state)

    def call(self, state: TableState) -> ScoreWrite:
        """The guarded score write."""
        p = keys.partition_of(state.table_id, self.partitions)
        return ScoreWrite(
            state.table_id,
            self.guarded_set,
            [
                keys.projection_seq_key(p, state.table_id, keys.SCOREBOARD_GROUP),
                keys.score_key(p, state.table_id),
            ],
            [state.seq, _json.encode(table_score(state))],
        )

    async def record_finish(self, state: TableState) -> None:
        assert state.standing is not None
        finished = FinishedTable(
            table_id=state.table_id,
            game=state.game,
            finished_at=state.finished_at,
            players=[p if rated_player(p) else "" for p in state.player_ids],
            ranks=list(state.standing.ranks),
            points=list(state.standing.points),
            names=[name or f"seat {s}" for s, name in enumerate(state.names)],
            rated=state.rated,
        )
        order = f"{finished.finished_at:015d}:{finished.table_id}"
        try:
            await self._record_finish(finished, order)
        except Exception:
            await self.transactions.failed()
            raise

    async def _record_finish(self, finished: FinishedTable, order: str) -> None:
        async with self.transactions.client().pipeline(transaction=True) as pipe:
            for _ in range(100):
                try:
                    await pipe.watch(keys.FINISHED_TABLES, keys.ratings_key(finished.game))
                    if await pipe.hexists(keys.FINISHED_TABLES, finished.table_id):
                        return
                    latest = await pipe.hget(keys.FINISHED_TABLES, "__latest__:" + finished.game)
                    in_order = latest is None or latest.decode() < order
                    if in_order:
                        ratings = {
                            k.decode(): _rating_decoder.decode(v)
                            for k, v in (
                                await pipe.hgetall(keys.ratings_key(finished.game))
                            ).items()
                        }
                        changed = rate(ratings, finished)
                        replace = False
                    else:
                        # a restored table's finish is in the archive already: once
                        history = merge_finishes(
                            [finished], await self._finished_of(pipe, finished.game)
                        )
                        changed = recompute_ratings(history)
                        replace = True
                    pipe.multi()
                    pipe.hset(keys.FINISHED_TABLES, finished.table_id, _json.encode(finished))
                    if in_order:
                        pipe.hset(keys.FINISHED_TABLES, "__latest__:" + finished.game, order)
                    if replace:
                        pipe.delete(
                            keys.ratings_key(finished.game), keys.leaderboard_key(finished.game)
                        )
                    if changed:
                        pipe.hset(
                            keys.ratings_key(finished.game),
                            mapping={n: _json.encode(r) for n, r in changed.items()},
                        )
                        pipe.zadd(
                            keys.leaderboard_key(finished.game),
                            {n: r.mu for n, r in changed.items()},
                        )
                    await pipe.execute()
                    return
                except WatchError:
                    continue
        raise RuntimeError("the leaderboard kept changing; giving up this time")

    async def _finished_of(self, redis: Any, game: str) -> list[FinishedTable]:
        live = await live_finishes(redis, game)
        archive_url = os.environ.get(ARCHIVE_URL_ENV)
        if not archive_url:
            return live
        archive = await open_archive(archive_url)
        try:
            return merge_finishes(live, await archived_finishes(archive, game))
        finally:
            await archive.close()


async def live_finishes(redis: Any, game: str) -> list[FinishedTable]:
    """The finished-tables record's tables of ``game`` (those still in Redis)."""
    rows = await redis.hgetall(keys.FINISHED_TABLES)
    found = []
    for k, v in rows.items():
        if k.startswith(b"__latest__:"):
            continue
        finished = _finished_decoder.decode(v)
        if finished.game == game:
            found.append(finished)
    return found


def finished_from_summary(summary: TableSummary) -> FinishedTable:
    """An archived table as the finished-tables record held it."""
    by_seat = {seat.seat: seat for seat in summary.seats}
    seats = range(summary.seat_count)
    return FinishedTable(
        table_id=summary.table_id,
        game=summary.game,
        finished_at=summary.finished_at,
        players=[(by_seat[s].player_id or "") if s in by_seat else "" for s in seats],
        ranks=[(by_seat[s].rank or 0) if s in by_seat else 0 for s in seats],
        points=[(by_seat[s].score or 0) if s in by_seat else 0 for s in seats],
        names=[by_seat[s].name if s in by_seat else f"seat {s}" for s in seats],
        rated=summary.rated,
    )


async def archived_finishes(archive: Archive, game: str) -> list[FinishedTable]:
    """Every archived game of ``game`` that ended with a standing, in finish order."""
    return [finished_from_summary(s) async for s in archive.in_finish_order(game)]


def merge_finishes(live: list[FinishedTable], archived: list[FinishedTable]) -> list[FinishedTable]:
    """Both lists, each table once (a table being archived may be in both)."""
    seen = {f.table_id for f in live}
    return live + [f for f in archived if f.table_id not in seen]


async def rebuild_ratings(redis: Any, game: str, archive: Archive | None) -> int:
    """Recompute ``game``'s ratings and leaderboard from every finished table, live and
    archived, in finish order (what the live scoreboard computed); returns how many
    tables were rated from."""
    history = await live_finishes(redis, game)
    if archive is not None:
        history = merge_finishes(history, await archived_finishes(archive, game))
    ratings = recompute_ratings(history)
    latest = max((f"{f.finished_at:015d}:{f.table_id}" for f in history), default=None)
    transactions = SlotTransactions(redis, keys.FINISHED_TABLES)
    try:
        async with transactions.client().pipeline(transaction=True) as pipe:
            pipe.delete(keys.ratings_key(game), keys.leaderboard_key(game))
            if ratings:
                mapping = {n: _json.encode(r) for n, r in ratings.items()}
                pipe.hset(keys.ratings_key(game), mapping=mapping)
                pipe.zadd(keys.leaderboard_key(game), {n: r.mu for n, r in ratings.items()})
            if latest is not None:
                pipe.hset(keys.FINISHED_TABLES, "__latest__:" + game, latest)
            await pipe.execute()
    finally:
        await transactions.forget()
    return len(history)


def recompute_ratings(history: list[FinishedTable]) -> dict[str, PlayerRating]:
    ratings: dict[str, PlayerRating] = {}
    for finished in sorted(history, key=lambda f: (f.finished_at, f.table_id)):
        ratings.update(rate(ratings, finished))
    return ratings


async def leaderboard(redis: Any, game: str, top: int = 20) -> list[RatingLine]:
    """The top players by rating (``player``: the player id)."""
    players = await redis.zrevrange(keys.leaderboard_key(game), 0, top - 1)
    lines = []
    for player in players:
        raw = await redis.hget(keys.ratings_key(game), player)
        rating = _rating_decoder.decode(raw)
        lines.append(
            RatingLine(player=player.decode(), rating=round(rating.mu, 1), games=rating.games)
        )
    return lines
