"""What the API does with tables: create, list, one table's summary, join, bots, start,
leave, commands, views, replays; plus a player's own page and the leaderboards.

Who holds which seat is read from the projected lobby record (the ``player_id`` of
each ``SeatJoined``); once a table is in play its seats are fixed, so a command's seat is
then remembered per (table, player) and the record is not read again for every command
(a remembered seat the worker refuses as ``unauthorized`` is forgotten and the record
read); a seat's secret is derived from the server key when a command is sent for it
(:mod:`gateway.crypto`). A join
picks its seat here (the secret depends on it) and answers once the lobby shows it,
so the very next request finds the player seated; create, start and leave also answer
once the lobby and the views show them (commands do not wait: views follow on the
WebSocket).

Command ids a client chooses are scoped to the player on the wire
(``c.<player>.<id>``), so one player's id can never collide with, or fetch the
outcome of, another player's command; outcomes come back with the client's own id.
"""

from __future__ import annotations

import re
import secrets
import uuid
from typing import Any, Protocol

import msgspec

from gateway import crypto
from gateway.accounts import Accounts
from gateway.bodies import integral
from gateway.errors import ApiError
from gateway.models import (
    COMMAND_ID_PATTERN,
    CURSOR_PATTERN,
    TABLE_ID_PATTERN,
    Leaderboard,
    LeaderboardEntry,
    Me,
    MyTable,
    PastGame,
    PastGames,
    PastSeat,
    ReplayStep,
    TableDetail,
    TableList,
    TableMade,
    TableSummary,
)
from gateway.wire import GatewayClient, OutcomeTimeout
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Outcome, Rejection, decode_entry
from orrery_contracts.lobby import (
    BOT_PLAYER_ID,
    BOTS_ADDED_STREAM,
    BOTS_SET,
    LISTED_STATES,
    LobbyTable,
    gateway_table_key,
    lobby_list_key,
    lobby_table_decoder,
    lobby_table_key,
    player_tables_key,
)
from orrery_contracts.table import CreateTable, JoinRequest, LeaveTable, StartTable


def _whole(pattern: str) -> re.Pattern[str]:
    """A documented pattern (``^…$``) matched against the whole string (``$`` would
    also match before a final newline)."""
    return re.compile(pattern.removesuffix("$") + r"\Z")


TABLE_ID = _whole(TABLE_ID_PATTERN)
GAME = re.compile(r"^[a-z0-9_]{1,40}\Z")
CLIENT_COMMAND_ID = _whole(COMMAND_ID_PATTERN)
CURSOR = _whole(CURSOR_PATTERN)
# my games' cursor: <finished_at ms, 15 digits>:<table id> (the lobby's CURSOR_PATTERN)
GAMES_CURSOR = re.compile(r"^(\d{15}):([A-Za-z0-9_.:-]{1,64})\Z")
GATEWAY_ONLY = {"table.create", "table.join"}
JOIN_CONFLICTS = {"seat_taken", "table_full", "table_started"}
MAX_LIST = 100
MY_TABLES = 50
PROJECTION_WAIT_S = 10.0
SEATS_KEPT = 50_000  # (table, player) seats of tables in play remembered per process

_json = msgspec.json.Encoder()


class Replayer(Protocol):
    """The view of one seat (None: a spectator) after the command holding seq ``at`` (or
    after the ``step``-th command; neither: the last), folded from the table's log, and
    where it stands (:class:`gateway.models.ReplayStep`); None when the table's log has
    no such seq or step. The gateway does not know the rules: ``orrery gateway`` plugs
    this in."""

    async def replay(
        self, table_id: str, seat: int | None, *, at: int | None = None, step: int | None = None
    ) -> tuple[ReplayStep, bytes] | None: ...


class ArchivedTables(Protocol):
    """Tables that ended and left Redis for the archive (archive/): each as the lobby
    showed it, with the time it finished; None when not archived. ``orrery gateway``
    plugs this in (the archive's URL is the process's)."""

    async def record(self, table_id: str) -> tuple[LobbyTable, int] | None: ...

    async def player_games(
        self, player_id: str, game: str | None, cursor: tuple[int, str] | None, limit: int
    ) -> tuple[list[PastGame], bool]:
        """A page of the player's archived games before ``cursor`` (finished_at, table
        id), newest first, and whether more follow."""
        ...

    async def ended(
        self, game: str | None, state: str, cursor: tuple[int, str] | None, limit: int
    ) -> tuple[list[tuple[LobbyTable, int]], bool]:
        """A page of archived tables in ``state`` (finished or closed) before ``cursor``,
        newest finish first (with their finish times), and whether more follow."""
        ...


class _PublicStatus(msgspec.Struct):
    """What the table summary reads from the spectator's view."""

    seq: int = 0
    phase: str = ""
    game_phase: str = ""
    round: int = 0
    to_move: list[int] = []


_public_status = msgspec.json.Decoder(_PublicStatus)
_PHASES = {"open": "lobby", "playing": "playing", "finished": "finished", "closed": "closed"}
REPLAY_AS = ("me", "spectator")


def with_member(document: bytes, name: str, value: bytes) -> bytes:
    """A JSON object document with one more member (``value``: encoded JSON)."""
    body = document.rstrip()
    if not body.endswith(b"}"):
        raise ValueError("not a JSON object")
    body = body[:-1].rstrip()
    comma = b"" if body.endswith(b"{") else b","
    return body + comma + _json.encode(name) + b":" + value + b"}"


class _Rating(msgspec.Struct):
    mu: float
    games: int = 0


_rating = msgspec.json.Decoder(_Rating)


def seat_of(record: LobbyTable, player_id: str) -> int | None:
    for player in record.players:
        if player.player_id == player_id:
            return player.seat
    return None


def summary(record: LobbyTable) -> TableSummary:
    return TableSummary(
        table_id=record.table_id,
        game=record.game,
        seats=record.seats,
        players=record.players,
        state=record.state,
        options=record.options,
        created_at=record.created_at,
    )


def outcome_document(outcome: Outcome, command_id: str | None = None) -> dict[str, Any]:
    """The outcome as the API shows it (with the client's own command id)."""
    if command_id is not None:
        if isinstance(outcome, Duplicate):
            original = msgspec.structs.replace(outcome.original, command_id=command_id)
            outcome = Duplicate(command_id=command_id, table_id=outcome.table_id, original=original)
        else:
            outcome = msgspec.structs.replace(outcome, command_id=command_id)
    # every member, always: ``seat`` and ``chat_id`` are null but in a join's / a chat
    # message's outcome (the document says so: generated clients read them as present)
    document: dict[str, Any] = msgspec.to_builtins(outcome)
    if isinstance(outcome, Rejection):
        document.setdefault("detail", None)
        document = {"error": outcome.code, **document}
    return document


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


def check_table_id(table_id: str) -> str:
    if not TABLE_ID.match(table_id):
        raise ApiError(404, "no_such_table", "no such table")
    return table_id


class TableService:
    def __init__(
        self,
        client: GatewayClient,
        accounts: Accounts,
        secret_key: str,
        *,
        command_timeout_s: float = 10.0,
        replayer: Replayer | None = None,
        archived: ArchivedTables | None = None,
        games: frozenset[str] = frozenset(),
    ) -> None:
        self.client = client
        self.redis = client.redis
        self.accounts = accounts
        self.key = secret_key
        self.timeout = command_timeout_s
        self.replayer = replayer
        self.archived = archived
        # The games this gateway hosts (empty: not told; any well-formed name passes).
        self.games = games
        # (table, player) -> seat, for tables in play only: a seat is fixed once a game
        # has started (leaving then concedes it), so a command there needs no read of
        # the lobby record. Wrong only if the record was (a rebuild): the worker then
        # refuses the seat's secret (unauthorized, not stored) and the record is read.
        self.seats_in_play: dict[tuple[str, str], int] = {}

    def check_game(self, game: str) -> str:
        """``game`` if this gateway hosts it, else 422 ``unknown_game``."""
        if not GAME.match(game) or (self.games and game not in self.games):
            raise ApiError(422, "unknown_game", "no such game")
        return game

    # ------------------------------------------------------------ helpers

    async def record(self, table_id: str) -> LobbyTable:
        check_table_id(table_id)
        record = await self.client.lobby_table(table_id)
        if record is None:
            found = await self._archived(table_id)
            if found is None:
                raise ApiError(404, "no_such_table", "no such table")
            record = found[0]
        return record

    async def _archived(self, table_id: str) -> tuple[LobbyTable, int] | None:
        """The archived table's record (its private flag from the gateway's own record,
        which stays), and when it finished."""
        if self.archived is None:
            return None
        found = await self.archived.record(table_id)
        if found is None:
            return None
        record, finished_at = found
        private = await self.redis.hget(gateway_table_key(table_id), "private") == b"1"
        return msgspec.structs.replace(record, private=private), finished_at

    async def _send(self, table_id: str, body: Any, **kwargs: Any) -> Outcome:
        try:
            return await self.client.send(table_id, body, timeout=self.timeout, **kwargs)
        except OutcomeTimeout:
            raise ApiError(
                504,
                "outcome_timeout",
                "no outcome in time; send the same command id again to learn it",
            ) from None

    def _seat_token(self, table_id: str, seat: int, player_id: str) -> str:
        return crypto.seat_secret(self.key, table_id, seat, player_id)

    async def _seated(self, table_id: str, player_id: str) -> tuple[LobbyTable, int]:
        record = await self.record(table_id)
        seat = seat_of(record, player_id)
        if seat is None:
            raise ApiError(403, "not_seated", "you hold no seat at this table")
        return record, seat

    # ------------------------------------------------------------ lifecycle

    async def create(
        self, player_id: str, game: str, seats: int, options: dict[str, Any], private: bool
    ) -> TableMade:
        table_id = "t" + secrets.token_hex(8)
        invite = crypto.new_invite() if private else None
        info = {"creator": player_id, "private": "1" if private else "0"}
        if invite:
            info["invite"] = crypto.invite_hash(invite)
        # Before the create: the lobby projection reads the private flag when it folds it.
        await self.redis.hset(gateway_table_key(table_id), mapping=info)
        # (``2.0`` is an integer option as JSON Schema counts: gateway.bodies.integral)
        create = CreateTable(game=game, seats=seats, options=integral(options))
        outcome = await self._send(table_id, create)
        if isinstance(outcome, Duplicate):
            outcome = outcome.original
        if isinstance(outcome, Rejection):
            await self.redis.delete(gateway_table_key(table_id))
            raise ApiError(422, outcome.code, outcome.message, extra={"detail": outcome.detail})
        await self.client.wait_projected(table_id, outcome.last_seq, PROJECTION_WAIT_S)
        return TableMade(table_id=table_id, invite=invite)

    async def join(
        self, player_id: str, table_id: str, seat: int | None, invite: str | None
    ) -> int:
        record = await self.record(table_id)
        info = await self.redis.hgetall(gateway_table_key(table_id))
        creator = info.get(b"creator", b"").decode()
        if (
            info.get(b"private") == b"1"
            and creator != player_id
            and not crypto.same_invite(invite, info.get(b"invite", b"").decode())
        ):
            raise ApiError(403, "bad_invite", "this private table needs its invite")
        if seat_of(record, player_id) is not None:
            raise ApiError(409, "already_seated", "you already hold a seat at this table")
        lock = f"orrery:gw:joining:{table_id}:{player_id}"
        if not await self.redis.set(lock, "1", nx=True, px=30_000):
            raise ApiError(409, "busy", "another join of yours at this table is under way")
        try:
            name = await self.accounts.name_of(player_id)
            if name is None:
                raise ApiError(401, "unauthorized", "this account no longer exists")
            return await self._take_seat(record, seat, name, player_id)
        finally:
            await self.redis.delete(lock)

    async def add_bot(self, player_id: str, table_id: str, seat: int | None) -> int:
        record = await self.record(table_id)
        creator = await self.redis.hget(gateway_table_key(table_id), "creator")
        if seat_of(record, player_id) is None and (creator or b"").decode() != player_id:
            raise ApiError(
                403, "not_seated", "only a player seated here (or the creator) may add bots"
            )
        return await self._take_seat(record, seat, None, BOT_PLAYER_ID)

    async def _take_seat(
        self, record: LobbyTable, wanted: int | None, name: str | None, player_id: str
    ) -> int:
        """Join ``player_id`` (a bot when ``name`` is None) at ``wanted`` or the first
        seat open; returns the seat once the lobby shows it."""
        table_id = record.table_id
        if record.state == "finished":
            raise ApiError(409, "game_over", "the game is over")
        if record.state != "open":
            raise ApiError(409, "table_started", "seats can only be joined before the start")
        taken = {p.seat for p in record.players}
        candidates = (
            [wanted] if wanted is not None else [s for s in range(record.seats) if s not in taken]
        )
        if not candidates:
            raise ApiError(409, "table_full", "every seat is taken")
        for seat in candidates:
            bot = name is None
            member = f"{table_id}|{seat}"
            # A bot seat is announced before its join, so a runner never misses it; the
            # runner drops a seat that turns out to be someone else's.
            added = bool(await self.redis.sadd(BOTS_SET, member)) if bot else False
            command_id = uuid.uuid4().hex
            outcome = await self._send(
                table_id,
                JoinRequest(name=name or f"Bot {seat + 1}", seat=seat),
                command_id=command_id,
                token=self._seat_token(table_id, seat, player_id),
                identity=crypto.identity(self.key, table_id, command_id, player_id),
            )
            if isinstance(outcome, Duplicate):
                outcome = outcome.original
            if isinstance(outcome, Accepted):
                if bot:
                    await self.redis.xadd(
                        BOTS_ADDED_STREAM, {"member": member}, maxlen=1000, approximate=True
                    )
                await self.client.wait_projected(table_id, outcome.last_seq, PROJECTION_WAIT_S)
                return seat
            if added:
                await self.redis.srem(BOTS_SET, member)
            if outcome.code == "seat_taken" and wanted is None:
                continue
            status = 409 if outcome.code in JOIN_CONFLICTS else 422
            raise ApiError(status, outcome.code, outcome.message)
        raise ApiError(409, "table_full", "every seat is taken")

    async def lifecycle(self, player_id: str, table_id: str, body: Any) -> tuple[int, Any]:
        """Start or leave for the caller's seat: (status, outcome document), once the
        lobby and the views show it (like create and join)."""
        _, seat = await self._seated(table_id, player_id)
        outcome = await self._send(
            table_id, body, seat=seat, token=self._seat_token(table_id, seat, player_id)
        )
        applied = outcome.original if isinstance(outcome, Duplicate) else outcome
        if isinstance(applied, Accepted):
            await self.client.wait_projected(table_id, applied.last_seq, PROJECTION_WAIT_S)
        return self._status(outcome), outcome_document(outcome)

    async def start(self, player_id: str, table_id: str) -> tuple[int, Any]:
        return await self.lifecycle(player_id, table_id, StartTable())

    async def leave(self, player_id: str, table_id: str) -> tuple[int, Any]:
        return await self.lifecycle(player_id, table_id, LeaveTable())

    async def command(
        self, player_id: str, table_id: str, command_id: str, body: dict[str, Any]
    ) -> tuple[int, Any]:
        if not CLIENT_COMMAND_ID.match(command_id):
            raise ApiError(
                422, "bad_command_id", "a command id has 1-64 characters of A-Z a-z 0-9 _ . : -"
            )
        kind = body.get("type")
        if not isinstance(kind, str):
            raise ApiError(422, "malformed", 'a command body needs its "type"')
        if kind in GATEWAY_ONLY:
            raise ApiError(
                422, "use_endpoint", "create and join tables with POST /v1/tables and …/join"
            )
        body = integral(body)  # the rules decode strictly: 2.0 is the integer 2
        cached = self.seats_in_play.get((table_id, player_id))
        seat = cached if cached is not None else await self._seat_in_play(table_id, player_id)
        outcome = await self._command(table_id, body, command_id, seat, player_id)
        if cached is not None and isinstance(outcome, Rejection) and outcome.code == "unauthorized":
            del self.seats_in_play[(table_id, player_id)]  # read the record after all
            seat = await self._seat_in_play(table_id, player_id)
            outcome = await self._command(table_id, body, command_id, seat, player_id)
        return self._status(outcome), outcome_document(outcome, command_id)

    async def _command(
        self, table_id: str, body: dict[str, Any], command_id: str, seat: int, player_id: str
    ) -> Outcome:
        return await self._send(
            table_id,
            body,
            command_id=f"c.{player_id}.{command_id}",
            seat=seat,
            token=self._seat_token(table_id, seat, player_id),
        )

    async def _seat_in_play(self, table_id: str, player_id: str) -> int:
        """The player's seat from the lobby record; kept while the table is in play."""
        record, seat = await self._seated(table_id, player_id)
        if record.state == "playing":
            if len(self.seats_in_play) > SEATS_KEPT:
                self.seats_in_play.clear()
            self.seats_in_play[(table_id, player_id)] = seat
        return seat

    @staticmethod
    def _status(outcome: Outcome) -> int:
        return 422 if isinstance(outcome, Rejection) else 200

    # ------------------------------------------------------------ reading

    async def viewer(self, player_id: str, table_id: str) -> int | None:
        return seat_of(await self.record(table_id), player_id)

    async def view(self, player_id: str, table_id: str) -> bytes:
        seat = await self.viewer(player_id, table_id)
        raw = await self.client.view_raw(table_id, seat)
        if raw is None and self.replayer is not None:
            # an archived table's views are gone from Redis: its final view, folded again
            found = await self.replayer.replay(table_id, seat)
            raw = found[1] if found is not None else None
        if raw is None:
            raise ApiError(404, "no_view", "this table has no view yet")
        return raw

    async def replay(
        self,
        player_id: str,
        table_id: str,
        at: int | None = None,
        step: int | None = None,
        as_: str = "me",
    ) -> bytes:
        """The view after the command holding seq ``at`` (or after the ``step``-th
        command; neither: now), as my seat sees it (``as_="spectator"``, or when I hold
        no seat: as a spectator), with its ``replay`` member (a ReplayStep)."""
        if as_ not in REPLAY_AS:
            raise ApiError(422, "bad_viewer", "as is one of: " + ", ".join(REPLAY_AS))
        if at is not None and step is not None:
            raise ApiError(422, "bad_seq", "ask for a seq (at) or a step, not both")
        if (at is not None and at < 0) or (step is not None and step < 0):
            raise ApiError(422, "bad_seq", "seqs and steps are 0 or more")
        seat = await self.viewer(player_id, table_id)
        if self.replayer is None:
            raise ApiError(501, "not_available", "this gateway serves no replays")
        found = await self.replayer.replay(
            table_id, None if as_ == "spectator" else seat, at=at, step=step
        )
        if found is None:
            if step is not None:
                raise ApiError(404, "no_such_step", "the table has no such step")
            raise ApiError(404, "no_such_seq", "the table has no such seq")
        where, view = found
        return with_member(view, "replay", _json.encode(where))

    async def detail(self, table_id: str) -> TableDetail:
        """The table as the lobby shows it, with its public status (whose turn, …)."""
        record = await self.record(table_id)
        raw = await self.client.view_raw(table_id, None)
        status = _public_status.decode(raw) if raw is not None else _PublicStatus()
        taken = {p.seat for p in record.players}
        finished_at = None
        if record.state in ("finished", "closed"):
            p = self.client.partition(table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, table_id), count=1)
            if head:
                finished_at = decode_entry(head[0][1][b"e"]).recorded_at
            elif (archived := await self._archived(table_id)) is not None:
                finished_at = archived[1]
                if raw is None and self.replayer is not None:
                    found = await self.replayer.replay(table_id, None)
                    raw = found[1] if found is not None else None
                    if raw is not None:
                        status = _public_status.decode(raw)
        return TableDetail(
            **msgspec.structs.asdict(summary(record)),
            private=record.private,
            bots=[p.seat for p in record.players if p.bot],
            open_seats=[s for s in range(record.seats) if s not in taken],
            phase=status.phase or _PHASES[record.state],
            game_phase=status.game_phase,
            round=status.round,
            to_move=status.to_move,
            seq=status.seq if raw is not None else record.seq,
            finished_at=finished_at,
        )

    async def listing(
        self, game: str | None, state: str, limit: int, cursor: str | None
    ) -> TableList:
        if state not in LISTED_STATES:
            raise ApiError(422, "bad_state", "state is one of: " + ", ".join(LISTED_STATES))
        if game is not None:
            self.check_game(game)
        if cursor is not None and not CURSOR.match(cursor):
            raise ApiError(422, "bad_cursor", "the cursor is not one this API gave out")
        limit = max(1, min(limit, MAX_LIST))
        if state in ("finished", "closed") and self.archived is not None:
            return await self._ended_listing(game, state, limit, cursor)
        members = await self.redis.zrevrangebylex(
            lobby_list_key(state, game),
            f"({cursor}" if cursor else "+",
            "-",
            start=0,
            num=limit,
        )
        records = await self._records([m.decode().split(":", 1)[1] for m in members])
        more = len(members) == limit
        return TableList(
            tables=[summary(r) for r in records],
            next=members[-1].decode() if more else None,
        )

    async def _ended_listing(
        self, game: str | None, state: str, limit: int, cursor: str | None
    ) -> TableList:
        """Ended tables, newest finish first (cursor ``<finished_at:015d>:<table id>``):
        the archived ones from the archive (the private ones left out, as the lobby
        does), those ended less than ``ORRERY_ARCHIVE_AFTER_S`` ago from the lobby."""
        assert self.archived is not None
        after = None
        if cursor is not None:
            finished, _, table_id = cursor.partition(":")
            after = (int(finished), table_id)
        archived, more = await self.archived.ended(game, state, after, limit)
        listed = [
            (finished_at, record)
            for record, finished_at in archived
            if await self.redis.hget(gateway_table_key(record.table_id), "private") != b"1"
        ]
        seen = {record.table_id for _, record in listed}
        members = await self.redis.zrange(lobby_list_key(state, game), 0, -1)
        for record in await self._records([m.decode().split(":", 1)[1] for m in members]):
            p = self.client.partition(record.table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, record.table_id), count=1)
            if not head or record.table_id in seen:
                continue  # being archived: the archive answers for it
            finished_at = decode_entry(head[0][1][b"e"]).recorded_at
            if after is None or (finished_at, record.table_id) < after:
                listed.append((finished_at, record))
        listed.sort(key=lambda item: (item[0], item[1].table_id), reverse=True)
        more = more or len(listed) > limit
        listed = listed[:limit]
        last = listed[-1] if listed else None
        return TableList(
            tables=[summary(record) for _, record in listed],
            next=f"{last[0]:015d}:{last[1].table_id}" if more and last else None,
        )

    async def _records(self, table_ids: list[str]) -> list[LobbyTable]:
        if not table_ids:
            return []
        raws = await self.redis.mget([lobby_table_key(t) for t in table_ids])
        return [lobby_table_decoder.decode(r) for r in raws if r]

    async def me(self, player_id: str) -> Me:
        name = await self.accounts.name_of(player_id)
        if name is None:
            raise ApiError(401, "unauthorized", "this account no longer exists")
        members = await self.redis.zrevrange(player_tables_key(player_id), 0, MY_TABLES - 1)
        records = await self._records([m.decode().split(":", 1)[1] for m in members])
        tables = []
        for record in records:
            seat = seat_of(record, player_id)
            if seat is not None:
                tables.append(MyTable(**msgspec.structs.asdict(summary(record)), seat=seat))
        ratings = {}
        for game in sorted({r.game for r in records}):
            raw = await self.redis.hget(keys.ratings_key(game), player_id)
            if raw:
                ratings[game] = round(_rating.decode(raw).mu, 1)
        return Me(player_id=player_id, name=name, ratings=ratings, tables=tables)

    async def my_games(
        self, player_id: str, game: str | None, cursor: str | None, limit: int
    ) -> PastGames:
        """My finished and closed tables, newest finish first: the archived ones from the
        archive, the others (ended less than ``ORRERY_ARCHIVE_AFTER_S`` ago) from the
        lobby's index of my tables; a page at a time."""
        if game is not None:
            self.check_game(game)
        after: tuple[int, str] | None = None
        if cursor is not None:
            matched = GAMES_CURSOR.match(cursor)
            if matched is None:
                raise ApiError(422, "bad_cursor", "the cursor is not one this API gave out")
            after = (int(matched.group(1)), matched.group(2))
        limit = max(1, min(limit, MAX_LIST))
        games: list[PastGame] = []
        more = False
        if self.archived is not None:
            games, more = await self.archived.player_games(player_id, game, after, limit)
        seen = {g.table_id for g in games}
        for past in await self._live_games(player_id, game):
            key = (past.finished_at, past.table_id)
            if past.table_id not in seen and (after is None or key < after):
                games.append(past)
        games.sort(key=lambda g: (g.finished_at, g.table_id), reverse=True)
        more = more or len(games) > limit
        games = games[:limit]
        last = games[-1] if games else None
        return PastGames(
            games=games,
            next=f"{last.finished_at:015d}:{last.table_id}" if more and last else None,
        )

    async def _live_games(self, player_id: str, game: str | None) -> list[PastGame]:
        """My ended tables still in Redis (the lobby's index of my tables)."""
        members = await self.redis.zrevrange(player_tables_key(player_id), 0, -1)
        records = await self._records([m.decode().split(":", 1)[1] for m in members])
        found = []
        for record in records:
            seat = seat_of(record, player_id)
            if record.state not in ("finished", "closed") or seat is None:
                continue
            if game is not None and record.game != game:
                continue
            p = self.client.partition(record.table_id)
            head = await self.redis.xrevrange(keys.log_stream(p, record.table_id), count=1)
            if not head:
                continue  # being archived: the archive answers for it
            raw = await self.client.redis.get(keys.score_key(p, record.table_id))
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

    async def leaderboard(self, game: str, limit: int) -> Leaderboard:
        self.check_game(game)
        limit = max(1, min(limit, MAX_LIST))
        players = [
            p.decode() for p in await self.redis.zrevrange(keys.leaderboard_key(game), 0, limit - 1)
        ]
        if not players:
            return Leaderboard(entries=[])
        raws = await self.redis.hmget(keys.ratings_key(game), players)
        names = await self.accounts.names_of(players)
        entries = []
        for player, raw in zip(players, raws, strict=True):
            if raw is None:
                continue
            rating = _rating.decode(raw)
            entries.append(
                LeaderboardEntry(
                    player_id=player,
                    name=names.get(player, ""),
                    rating=round(rating.mu, 1),
                    games=rating.games,
                )
            )
        return Leaderboard(entries=entries)
