"""Wiring the gateway into processes: ``orrery gateway`` (the HTTP + WebSocket front
door) and ``orrery bots`` (the bot runner); see docs/gateway.md.

This is where the gateway gets what it may not import itself: replays fold a table's
log with the rules (``services.replay.fold`` + ``games.table.table_view``, the one view
function) to the end of a command, plugged into the app as its
:class:`gateway.tables.Replayer`; a table that left Redis for the archive is read from
the archive (``$ORRERY_ARCHIVE_URL``, else the data folder's), as its log, as its
lobby record (:class:`gateway.tables.ArchivedTables`) and its chat
(:class:`gateway.chat.ArchivedChats`); the games it hosts come from the rules' registry.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import signal
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import structlog

from orrery.archiving import archive_url

if TYPE_CHECKING:
    from gateway.models import ReplayStep

_json = msgspec.json.Encoder()
_log = structlog.get_logger("orrery.gateway")


class LogReplayer:
    """A seat's (or the spectator's) view after one command, folded from the log on demand.

    A command's events are appended atomically and every view is projected after the
    whole command, so nobody ever saw the table between two events of one command. Those
    in-between states are not states of the game at all (Fractured Sky's table right
    after ``table.started``, before its set-up events; Federation half-way through an
    automatic step, whose pending choice has no options), and the rules need not, and do
    not, answer for them. So this never folds to the middle of a command: a seq resolves
    to the end of the command whose events hold it, and only states at command ends
    reach ``table_view`` (the one view function).

    Caches (per process, least recently used first out): each table's decoded log,
    caught up by reading only what follows its cached end (whose entry must still carry
    the cached hash, else the log is read again: a failover may have lost events), and
    the rendered views by (table, seq, that seq's hash, viewer).
    """

    TABLES = 16  # a decoded log: up to ~1 MB (a 4-seat Federation game)
    VIEWS = 2048  # a rendered view: ~3-5 kB

    def __init__(self, client: Any, archive: ArchiveRecords | None = None) -> None:
        self.client = client  # the gateway's wire client: .redis, .partitions once connected
        self.archive = archive
        self.logs: OrderedDict[str, _Log] = OrderedDict()
        self.views: OrderedDict[tuple[str, int, str, int | None], bytes] = OrderedDict()

    async def replay(
        self, table_id: str, seat: int | None, *, at: int | None = None, step: int | None = None
    ) -> tuple[ReplayStep, bytes] | None:
        """The view after the command holding seq ``at`` (or after the ``step``-th
        command; neither: the last), with where it stands; None past the log's end or
        for a table without a log."""
        from gateway.models import ReplayStep

        log = await self._log(table_id)
        if log is None:
            return None
        ends, last = log.ends, log.entries[-1].seq
        if step is None:
            wanted = last if at is None else at
            if not 0 <= wanted <= last:
                return None
            # the step whose command holds the seq (seq 0: step 0)
            step = bisect.bisect_left(ends, wanted) + 1 if wanted else 0
        elif not 0 <= step <= len(ends):
            return None
        seq = ends[step - 1] if step else 0
        first = ends[step - 2] + 1 if step >= 2 else step
        where = ReplayStep(
            at=seq if at is None else at,
            seq=seq,
            first_seq=first,
            step=step,
            steps=len(ends),
            prev_seq=(ends[step - 2] if step >= 2 else 0) if step else None,
            next_seq=ends[step] if step < len(ends) else None,
            last_seq=last,
        )
        return where, self._view(table_id, log, seq, seat)

    def _view(self, table_id: str, log: _Log, seq: int, seat: int | None) -> bytes:
        from games.table import TableState, table_view
        from services.replay import fold

        key = (table_id, seq, log.entries[seq - 1].hash if seq else "", seat)
        view = self.views.get(key)
        if view is None:
            state = fold(log.entries, seq) if seq else TableState(table_id=table_id)
            view = _json.encode(table_view(state, seat))
            self.views[key] = view
            if len(self.views) > self.VIEWS:
                self.views.popitem(last=False)
        self.views.move_to_end(key)
        return view

    async def _log(self, table_id: str) -> _Log | None:
        from orrery_contracts import keys
        from orrery_contracts.envelope import decode_entry
        from services.replay import command_ends

        stream = keys.log_stream(keys.partition_of(table_id, self.client.partitions), table_id)
        cached = self.logs.get(table_id)
        entries: list[Any] | None = None
        if cached is not None and cached.archived:
            entries = cached.entries  # an archived log never changes
        elif cached is not None:
            top = cached.entries[-1]
            tail = await self.client.redis.xrange(stream, f"{top.seq}-0", "+")
            head = decode_entry(tail[0][1][b"e"]) if tail else None
            if head is not None and head.seq == top.seq and head.hash == top.hash:
                # a new list: a request still using the cached one keeps its own
                entries = [*cached.entries, *(decode_entry(f[b"e"]) for _, f in tail[1:])]
        archived = bool(cached and cached.archived)
        if entries is None:
            raw = await self.client.redis.xrange(stream)
            entries = [decode_entry(fields[b"e"]) for _, fields in raw]
            if not entries and self.archive is not None:
                entries = await self.archive.entries(table_id)
                archived = True
        if not entries or entries[-1].seq != len(entries):
            self.logs.pop(table_id, None)
            return None
        log = _Log(entries, command_ends(entries), archived)
        self.logs[table_id] = log
        self.logs.move_to_end(table_id)
        if len(self.logs) > self.TABLES:
            self.logs.popitem(last=False)
        return log


@dataclasses.dataclass
class _Log:
    entries: list[Any]  # the table's RawEnvelopes, seq 1 first
    ends: list[int]  # the last seq of each command
    archived: bool = False  # read from the archive (never changes)


def lobby_record(summary: Any) -> Any:
    """An archived table's summary as the lobby showed the table."""
    from orrery_contracts.lobby import LobbySeat, LobbyTable

    return LobbyTable(
        table_id=summary.table_id,
        game=summary.game,
        seats=summary.seat_count,
        players=[
            LobbySeat(seat=s.seat, name=s.name, player_id=s.player_id, bot=s.bot, left=s.left)
            for s in summary.seats
        ],
        state=summary.final_state,
        options=summary.options,
        created_at=summary.created_at,
        seq=summary.event_count,
    )


class ArchiveRecords:
    """Archived tables for the gateway: lobby records, logs and chats, from the archive
    at ``url`` (opened on first use, kept open; unreachable: as if not archived, logged)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._archive: Any = None
        self._opening = asyncio.Lock()

    async def _open(self) -> Any:
        from archive import open_archive

        async with self._opening:
            if self._archive is None:
                self._archive = await open_archive(self.url)
        return self._archive

    async def record(self, table_id: str) -> Any:
        from archive import ArchiveUnavailable

        try:
            summary = await (await self._open()).get_summary(table_id)
        except (ArchiveUnavailable, OSError) as error:
            _log.warning("archive_unreachable", error=str(error)[:200])
            return None
        if summary is None:
            return None
        return lobby_record(summary), summary.finished_at

    async def ended(
        self, game: str | None, state: str, cursor: tuple[int, str] | None, limit: int
    ) -> tuple[list[Any], bool]:
        from archive import ArchiveUnavailable

        after = f"{cursor[0]}:{cursor[1]}" if cursor else None
        try:
            page = await (await self._open()).finished_tables(game, after, limit, state)
        except (ArchiveUnavailable, OSError) as error:
            _log.warning("archive_unreachable", error=str(error)[:200])
            return [], False
        return [(lobby_record(s), s.finished_at) for s in page.tables], page.cursor is not None

    async def player_games(
        self, player_id: str, game: str | None, cursor: tuple[int, str] | None, limit: int
    ) -> tuple[list[Any], bool]:
        from archive import ArchiveUnavailable
        from gateway.models import PastSeat
        from gateway.my_games import past_game

        after = f"{cursor[0]}:{cursor[1]}" if cursor else None
        try:
            page = await (await self._open()).player_games(player_id, game, after, limit)
        except (ArchiveUnavailable, OSError) as error:
            _log.warning("archive_unreachable", error=str(error)[:200])
            return [], False
        games = []
        for summary in page.tables:
            seats = [
                PastSeat(
                    seat=s.seat,
                    name=s.name,
                    player_id=s.player_id,
                    bot=s.bot,
                    rank=s.rank,
                    score=s.score,
                )
                for s in summary.seats
            ]
            mine = next(s.seat for s in seats if s.player_id == player_id)
            games.append(
                past_game(
                    summary.table_id,
                    summary.game,
                    summary.final_state,
                    summary.finished_at,
                    mine,
                    seats,
                )
            )
        return games, page.cursor is not None

    async def chat(self, table_id: str) -> list[tuple[str, bytes]] | None:
        """The archived chat's stream entries (None: none archived, or unreachable)."""
        from archive import ArchiveUnavailable

        try:
            return await (await self._open()).get_chat(table_id)
        except (ArchiveUnavailable, OSError) as error:
            _log.warning("archive_unreachable", error=str(error)[:200])
            return None

    async def entries(self, table_id: str) -> list[Any]:
        """The archived log (empty: not archived, or changed since it was archived)."""
        from archive import ArchiveUnavailable

        try:
            stored = await (await self._open()).get_table(table_id)
        except (ArchiveUnavailable, OSError) as error:
            _log.warning("archive_unreachable", error=str(error)[:200])
            return []
        if stored is None or not stored.intact:
            return []
        return list(stored.entries)


def hosted_games() -> list[Any]:
    """The registry's games as the gateway describes them (gateway.hosted: its documents
    and its lobby's ``unknown_game``): the contract's types, the options, the seats."""
    from games.registry import all_games
    from gateway.hosted import HostedGame

    return [
        HostedGame(
            name=game.name,
            title=game.title,
            min_seats=game.min_seats,
            max_seats=game.max_seats,
            options_type=game.options_type,
            view_type=game.view_type,
            command_types=game.command_types,
        )
        for game in all_games().values()
    ]


def make_app(redis_url: str, data_dir: Path | None, cors: list[str] | None = None) -> Any:
    from gateway.app import create_app
    from gateway.settings import Settings, load_secret_key

    settings = Settings.from_env(redis_url, load_secret_key(data_dir))
    if cors:
        settings = dataclasses.replace(settings, cors_origins=tuple(cors))
    app = create_app(settings, games=hosted_games())
    gateway = app.state.gateway
    archive = ArchiveRecords(archive_url(None, data_dir.parent if data_dir else None))
    gateway.tables.replayer = LogReplayer(gateway.client, archive)
    gateway.tables.archived = archive
    gateway.chat.archived = archive
    return app


def serve_gateway(
    app: Any, host: str, port: int, on_ready: Callable[[str], None], *, reuse_port: bool = False
) -> None:
    """Serve ``app`` until SIGINT/SIGTERM; ``on_ready`` gets the base URL once it listens.
    ``reuse_port``: other gateway processes may listen on the same port."""
    from gateway.server import serve

    settings = app.state.gateway.settings
    asyncio.run(
        serve(
            app,
            host,
            port,
            max_message_bytes=settings.max_body_bytes,
            on_ready=on_ready,
            reuse_port=reuse_port,
            max_sockets=settings.max_sockets,
            max_requests=settings.max_requests,
            idle_s=settings.idle_s,
            compression=settings.ws_compression,
        )
    )


def run_bots(url: str, key: str) -> None:
    """Run the bot runner until SIGINT/SIGTERM, its bots choosing with the engine (a
    searching bot for ``ORRERY_BOT_BUDGET_MS`` a move)."""
    import functools

    from bots import choose_move
    from bots.settings import BotSettings
    from gateway.bots import BotRunner

    budget_s = BotSettings.from_env().budget_ms / 1000
    chooser = functools.partial(choose_move, budget_s=budget_s)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await BotRunner(url, key, chooser=chooser).run(stop)

    asyncio.run(run())
