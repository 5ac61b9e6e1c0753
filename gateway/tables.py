"""What every table resource of the API shares: a table's lobby record (live, or
archived), the seats in it, sending a table command and taking a seat. The resources
themselves each have their module and a Litestar dependency (gateway.providers):
the lobby (create, list, one table, join, start, leave: gateway/lobby.py), bots
(gateway/table_bots.py), commands (gateway/commands.py), views (gateway/views.py),
replays (gateway/replays.py), my games (gateway/my_games.py) and the leaderboards
(gateway/leaderboards.py).

Who holds which seat is read from the projected lobby record (the ``player_id`` of
each ``SeatJoined``); a seat's secret is derived from the server key when a command is
sent for it (:mod:`gateway.crypto`). A join picks its seat here (the secret depends on
it) and answers once the lobby shows it, so the very next request finds the player
seated.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Protocol

import msgspec

from gateway import crypto
from gateway.accounts import Accounts
from gateway.errors import ApiError
from gateway.models import (
    COMMAND_ID_PATTERN,
    CURSOR_PATTERN,
    TABLE_ID_PATTERN,
    PastGame,
    ReplayStep,
    TableSummary,
)
from gateway.wire import GatewayClient, OutcomeTimeout
from orrery_contracts.envelope import Accepted, Duplicate, Outcome, Rejection
from orrery_contracts.lobby import (
    BOTS_ADDED_STREAM,
    BOTS_SET,
    LobbyTable,
    gateway_table_key,
    lobby_table_decoder,
    lobby_table_key,
)
from orrery_contracts.table import JoinRequest


def _whole(pattern: str) -> re.Pattern[str]:
    """A documented pattern (``^…$``) matched against the whole string (``$`` would
    also match before a final newline)."""
    return re.compile(pattern.removesuffix("$") + r"\Z")


TABLE_ID = _whole(TABLE_ID_PATTERN)
GAME = re.compile(r"^[a-z0-9_]{1,40}\Z")
CLIENT_COMMAND_ID = _whole(COMMAND_ID_PATTERN)
CURSOR = _whole(CURSOR_PATTERN)
JOIN_CONFLICTS = {"seat_taken", "table_full", "table_started"}
MAX_LIST = 100
PROJECTION_WAIT_S = 10.0


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


class Rating(msgspec.Struct):
    """A player's rating as the projector keeps it (``keys.ratings_key``)."""

    mu: float
    games: int = 0


rating_decoder = msgspec.json.Decoder(Rating)


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


def outcome_status(outcome: Outcome) -> int:
    """The HTTP status of a table command's outcome: 422 refused, else 200."""
    return 422 if isinstance(outcome, Rejection) else 200


def check_table_id(table_id: str) -> str:
    if not TABLE_ID.match(table_id):
        raise ApiError(404, "no_such_table", "no such table")
    return table_id


class Tables:
    """The tables as every resource reads them, and the one way a command is sent."""

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

    def check_game(self, game: str) -> str:
        """``game`` if this gateway hosts it, else 422 ``unknown_game``."""
        if not GAME.match(game) or (self.games and game not in self.games):
            raise ApiError(422, "unknown_game", "no such game")
        return game

    async def record(self, table_id: str) -> LobbyTable:
        check_table_id(table_id)
        record = await self.client.lobby_table(table_id)
        if record is None:
            found = await self.archived_record(table_id)
            if found is None:
                raise ApiError(404, "no_such_table", "no such table")
            record = found[0]
        return record

    async def archived_record(self, table_id: str) -> tuple[LobbyTable, int] | None:
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

    async def records(self, table_ids: list[str]) -> list[LobbyTable]:
        """The live lobby records of ``table_ids`` (those that have one), in order."""
        if not table_ids:
            return []
        raws = await self.redis.mget([lobby_table_key(t) for t in table_ids])
        return [lobby_table_decoder.decode(r) for r in raws if r]

    async def send(self, table_id: str, body: Any, **kwargs: Any) -> Outcome:
        """Send a table command and wait for its outcome (504 when none comes in time)."""
        try:
            return await self.client.send(table_id, body, timeout=self.timeout, **kwargs)
        except OutcomeTimeout:
            raise ApiError(
                504,
                "outcome_timeout",
                "no outcome in time; send the same command id again to learn it",
            ) from None

    def seat_token(self, table_id: str, seat: int, player_id: str) -> str:
        return crypto.seat_secret(self.key, table_id, seat, player_id)

    async def seated(self, table_id: str, player_id: str) -> tuple[LobbyTable, int]:
        """The table's record and the player's seat in it (403 ``not_seated``: none)."""
        record = await self.record(table_id)
        seat = seat_of(record, player_id)
        if seat is None:
            raise ApiError(403, "not_seated", "you hold no seat at this table")
        return record, seat

    async def take_seat(
        self,
        record: LobbyTable,
        wanted: int | None,
        name: str,
        player_id: str,
        *,
        bot: bool = False,
    ) -> int:
        """Join ``player_id`` (a server-side bot's when ``bot``) as ``name`` at ``wanted``
        or the first seat open; returns the seat once the lobby shows it."""
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
            member = f"{table_id}|{seat}"
            # A bot seat is announced before its join, so a runner never misses it; the
            # runner drops a seat that turns out to be someone else's.
            added = bool(await self.redis.sadd(BOTS_SET, member)) if bot else False
            command_id = uuid.uuid4().hex
            outcome = await self.send(
                table_id,
                JoinRequest(name=name, seat=seat),
                command_id=command_id,
                token=self.seat_token(table_id, seat, player_id),
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
