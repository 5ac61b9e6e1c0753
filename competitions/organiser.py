"""The tournament organiser: it runs inside each matchmaker process (``orrery
matchmaker``, started by ``orrery serve``) beside the queues, because it needs what the
matchmaker has (the table wire with its reply streams, the server key that derives seat
secrets and signs identities, the ratings, a lease) and nothing more, so it adds no
role, no Redis user and no process to deploy.

One organiser at a time decides every tournament: it holds ``keys.tournament_lease``
(``ORRERY_TOURNAMENT_LEASE_MS``, renewed every loop); another matchmaker's organiser
waits and takes over when a lease runs out, folding the logs again. Its loop:

1. decide the commands on ``keys.tournament_command_stream`` one by one: each command's
   events, the command cursor, its answer and the tournament's view in one script;
2. every ``ORRERY_TOURNAMENT_CYCLE_S``: note the tables that finished (the scoreboard's
   ``keys.FINISHED_TABLES``); once a round's deadline has passed, end each of its tables
   still playing through the service (``table.end``, command id ``tn.<table>.end``:
   the table's log says it ended at its end time, which it was created with, and its
   standing comes back through the scoreboard like any finish); then what falls due (a
   start, the next round's pairing, the finish, and after ``ORRERY_TOURNAMENT_END_GRACE_S``
   the tables whose standing never came, ended in the tournament alone), appended the
   same way;
3. make every paired table that is not yet started through the wire contract, with
   command ids fixed by the table (``tn.<table>.create``, ``….join.<seat>``,
   ``….start``), so a retry is a duplicate; then append ``tn.table_started`` and post a
   ``tournament`` notice to each player, on their notice stream (the live socket) and
   to the notifiers (e-mail and Web Push for a player who is away).

4. every ``ORRERY_TOURNAMENT_CYCLE_S`` too: roll over each game's arena season whose end
   has passed (competitions/season_roll.py: its final table to the archive, promotion and
   relegation, the soft reset, the next season; exactly once per season, by its
   number). Each hosted game's first season begins by itself too (or, with
   ``ORRERY_SEASON_BEGIN=0``, when an operator runs ``orrery season rollover GAME``).

``kill -9`` at any point loses and duplicates nothing: a pairing is in the log before a
table is made, a table is made only from the log, and whoever holds the lease next
finishes it with the same command ids; a rollover cut short is finished by the next.
``ORRERY_FAULT_KILL_ORGANISER_AFTER=paired|create|join|start|season`` (tests only)
SIGKILLs the process right after that step (``season``: the next season written, its
soft reset not yet).
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import structlog
from redis.exceptions import RedisError

from competitions import log as tlog
from competitions.events import (
    RoundPaired,
    TableStarted,
    TournamentEntry,
    TournamentEvent,
    entry_hash,
)
from competitions.season_roll import roll
from competitions.settings import OrganiserSettings, SeasonSettings
from competitions.state import TournamentState, evolve, fold
from competitions.tournament import Refused, decide, due, result_event, view
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Outcome, Rejection
from orrery_contracts.identity import seat_secret, sign_identity
from orrery_contracts.matchmaking import PACE_CLOCKS
from orrery_contracts.notices import TournamentPaired
from orrery_contracts.table import ClockOption, CreateTable, EndRequest, JoinRequest, StartTable
from orrery_contracts.tournaments import (
    ANSWER_TTL_MS,
    CreateTournament,
    RegisterPlayer,
    TournamentAnswer,
    TournamentCommand,
    tournament_command_decoder,
)

log = structlog.get_logger("orrery.organiser")

FAULT_STEPS = ("paired", "create", "join", "start", "season")
NOTIFY_MAXLEN = 100_000  # the notifiers' input, as the projector caps it
SEASON_RETRY_S = 60.0  # after a failed rollover (the archive unreachable, say)
START_RATING = 1500.0
_json = msgspec.json.Encoder()


class _Rating(msgspec.Struct):
    mu: float


class _Finished(msgspec.Struct):
    ranks: list[int]


_rating = msgspec.json.Decoder(_Rating)
_finished = msgspec.json.Decoder(_Finished)


class TableWire(Protocol):
    async def send(
        self,
        table_id: str,
        body: Any,
        *,
        command_id: str | None = None,
        seat: int | None = None,
        token: str | None = None,
        identity: str | None = None,
        timeout: float = 10.0,
        attempts: int = 2,
    ) -> Outcome: ...


class TableRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Organiser:
    redis: Any
    games: dict[str, tuple[int, int]]  # game -> (min seats, max seats)
    wire: TableWire
    secret_key: str
    name: str
    settings: OrganiserSettings = field(default_factory=OrganiserSettings.from_env)
    states: dict[str, TournamentState] = field(default_factory=dict)
    cursor: str = ""
    owned: bool = False
    last_cycle: float = 0.0
    ended: set[str] = field(default_factory=set)  # tables this process ended (table.end)
    season_games: tuple[str, ...] = ()  # the games whose seasons it rolls over
    archive_url: str = ""  # where the ended seasons' final tables go
    season_settings: SeasonSettings = field(default_factory=SeasonSettings.from_env)
    next_seasons: float = 0.0  # monotonic time of the next look at the seasons

    async def step(self) -> None:
        """One loop (the matchmaker calls it between its own)."""
        taken = await tlog.lease(self.redis, self.name, self.settings.lease_ms)
        if taken == 0:
            self.owned = False
            return
        if taken == 2 or not self.owned:
            await self.load()
        rows = await self.redis.xread(
            {keys.tournament_command_stream(): self.cursor}, count=100, block=None
        )
        for _, entries in rows or []:
            for entry_id, fields in entries:
                await self.command(entry_id.decode(), fields.get(b"__data__", b""))
                if not self.owned:
                    return
        if time.monotonic() - self.last_cycle >= self.settings.cycle_s:
            self.last_cycle = time.monotonic()
            for tid in list(self.states):
                await self.tend(tid)
                if not self.owned:
                    return
            await self.seasons()

    async def seasons(self) -> None:
        """Begin each game's first season (unless ``ORRERY_SEASON_BEGIN=0``), and roll
        over each one whose end has passed."""
        if not self.season_games or time.monotonic() < self.next_seasons:
            return
        for game in self.season_games:
            try:
                ended, season = await roll(
                    self.redis,
                    self._put_season,
                    game,
                    self.season_settings,
                    start=self.season_settings.begin,
                    now=now_ms(),
                    swapped=lambda: self._fault("season"),
                )
            except Exception as error:  # the tournaments go on; the seasons wait a while
                log.warning("season_rollover_failed", game=game, error=str(error)[:200])
                self.next_seasons = time.monotonic() + SEASON_RETRY_S
                return
            if ended is not None and season is not None:
                log.info("season_rolled_over", game=game, ended=ended.number, now=season.number)

    async def _put_season(self, table: Any) -> None:
        from archive import open_archive
        from archive.seasons import put_season

        archive = await open_archive(self.archive_url)
        try:
            await put_season(archive, table)
        finally:
            await archive.close()

    async def release(self) -> None:
        await tlog.release(self.redis, self.name)

    async def load(self) -> None:
        self.states = {}
        for tid in await tlog.tournament_ids(self.redis):
            entries = await tlog.read_log(self.redis, tid)
            if entries:  # (an archived tournament's log has left: it is over)
                self.states[tid] = fold(entries)
        self.cursor = await tlog.cursor_of(self.redis)
        self.owned = True
        log.info("organiser_owns", tournaments=len(self.states))

    # ------------------------------------------------------------ commands

    async def command(self, entry_id: str, data: bytes) -> None:
        try:
            command = tournament_command_decoder.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            log.warning("organiser_bad_command", error=str(error)[:200])
            await self.commit(TournamentState(), [], cursor=entry_id, tid="_")
            return
        tid = command.tournament_id
        state = self.states.get(tid) or TournamentState()
        try:
            events = await self.decide(state, command)
            answer = TournamentAnswer(command_id=command.command_id, ok=True)
        except Refused as refused:
            events = []
            answer = TournamentAnswer(
                command_id=command.command_id, ok=False, code=refused.code, message=refused.message
            )
        try:
            committed = await self.commit(state, events, cursor=entry_id, tid=tid, answer=answer)
        except (RedisError, OSError):
            raise  # the loop tries again: the command is still unread
        except Exception:
            # the same command fails the same way on every delivery (its events cannot be
            # encoded): refused and passed over, so the stream moves on; nothing was
            # appended, and the states are read again from the logs
            log.exception("organiser_command_failed", tournament=tid, kind=type(command).__name__)
            await self.commit(
                TournamentState(),
                [],
                cursor=entry_id,
                tid="_",
                answer=TournamentAnswer(
                    command_id=command.command_id,
                    ok=False,
                    code="cannot_record",
                    message="the organiser could not record this command",
                ),
            )
            self.owned = False
            return
        if committed and events:
            self.last_cycle = 0.0  # what the command made due (a start's round) comes at once

    async def decide(
        self, state: TournamentState, command: TournamentCommand
    ) -> list[TournamentEvent]:
        rating = START_RATING
        min_seats = 2
        if isinstance(command, CreateTournament):
            seat_range = self.games.get(command.spec.game)
            if seat_range is None:
                raise Refused("no_such_game", "no such game")
            low, high = seat_range
            if not max(low, 2) <= command.spec.seats <= high:
                raise Refused("bad_seats", f"seats are {max(low, 2)} to {high} at this game")
            min_seats = max(low, 2)
        if isinstance(command, RegisterPlayer) and state.spec is not None:
            raw = await self.redis.hget(keys.ratings_key(state.spec.game), command.player_id)
            rating = _rating.decode(raw).mu if raw else START_RATING
        return decide(
            state, command, seed=secrets.token_hex(16), rating=rating, min_seats=min_seats
        )

    async def commit(
        self,
        state: TournamentState,
        events: list[TournamentEvent],
        *,
        tid: str,
        cursor: str = "",
        answer: TournamentAnswer | None = None,
    ) -> bool:
        """Append ``events`` to the tournament's log with what players read; False when
        the lease was lost or the log moved (everything is read again)."""
        batch = tlog.Batch(tournament_id=tid, expected_seq=state.seq, cursor=cursor)
        working = state
        now = now_ms()
        for event in events:
            seq, prev = working.seq + 1, working.head
            entry = TournamentEntry(
                seq=seq, at=now, prev=prev, hash=entry_hash(prev, seq, now, event), event=event
            )
            evolve(working, entry)
            batch.entries.append(entry)
        if answer is not None:
            batch.set(
                keys.tournament_answer_key(answer.command_id), _json.encode(answer), ANSWER_TTL_MS
            )
        if events:
            batch.set(keys.tournament_key(tid), _json.encode(view(working)))
            if working.seq == len(events):  # created just now
                batch.zadd(keys.tournaments_index(), tid, working.created_at)
        result = await tlog.append(self.redis, self.name, batch)
        if result != "ok":
            log.warning("organiser_append_refused", tournament=tid, result=result)
            self.owned = False
            self.states.clear()
            return False
        if cursor:
            self.cursor = cursor
        if events:
            self.states[tid] = working
        return True

    # ------------------------------------------------------------ time and tables

    async def tend(self, tid: str) -> None:
        state = self.states[tid]
        if state.state in ("finished", "cancelled"):
            return
        if state.state == "running":
            await self.results(state)
            if not self.owned:
                return
            await self.end_tables(self.states[tid])
        state = self.states[tid]
        grace_ms = int(self.settings.end_grace_s * 1000)
        for _ in range(64):  # a start, adjudications, a pairing, a finish
            events = due(state, now_ms(), self.settings.dutch_max, grace_ms)
            if not events:
                break
            if not await self.commit(state, events, tid=tid):
                return
            state = self.states[tid]
            if any(isinstance(e, RoundPaired) for e in events):
                self._fault("paired")
        await self.make_tables(state)

    async def results(self, state: TournamentState) -> None:
        waiting = [
            t for t, record in state.tables.items() if record.started and record.finished is None
        ]
        if not waiting:
            return
        raws = await self.redis.hmget(keys.FINISHED_TABLES, waiting)
        events: list[TournamentEvent] = []
        for table_id, raw in zip(waiting, raws, strict=True):
            if raw:
                event = result_event(state, table_id, _finished.decode(raw).ranks)
                if event is not None:
                    events.append(event)
        if events:
            await self.commit(state, events, tid=state.tournament_id)

    async def end_tables(self, state: TournamentState) -> None:
        """Past the round's deadline: end each of its tables still playing through the
        service; the standing the table ends with comes back with the next results."""
        paired = state.current()
        if paired is None or now_ms() < paired.deadline:
            return
        for table in paired.tables:
            record = state.tables[table.table_id]
            if not record.started or record.finished is not None or table.table_id in self.ended:
                continue
            try:
                await self._send(
                    table.table_id, EndRequest(), command_id=f"tn.{table.table_id}.end"
                )
            except TableRefused as refused:
                if refused.code != "game_over":  # not_expired: the worker's clock is behind
                    log.info("tournament_table_not_ended", table=table.table_id, error=str(refused))
                    continue
            except TimeoutError:
                log.warning("tournament_table_slow", table=table.table_id)
                return
            self.ended.add(table.table_id)
            log.info("tournament_table_ended", table=table.table_id, round=paired.round)

    async def make_tables(self, state: TournamentState) -> None:
        paired = state.current()
        if paired is None or state.state != "running":
            return
        for table in paired.tables:
            record = state.tables[table.table_id]
            if record.started or record.finished is not None:
                continue
            try:
                await self.make_table(state, table.table_id, table.players, paired.deadline)
            except TableRefused as refused:
                log.error("tournament_table_refused", table=table.table_id, error=str(refused))
                continue
            except TimeoutError:
                log.warning("tournament_table_slow", table=table.table_id)
                return
            event = TableStarted(round=paired.round, table_id=table.table_id)
            if not await self.commit(state, [event], tid=state.tournament_id):
                return
            state = self.states[state.tournament_id]
            await self.notify(state.tournament_id, paired.round, table.table_id, table.players)

    async def make_table(
        self, state: TournamentState, table_id: str, players: list[str], ends_at: int
    ) -> None:
        assert state.spec is not None
        spec = state.spec
        prefix = f"tn.{table_id}"
        clock = spec.clock or msgspec.convert(PACE_CLOCKS["turn_based"], ClockOption)
        create = CreateTable(
            game=spec.game,
            seats=len(players),
            options=dict(spec.options),
            clock=clock,
            ends_at=ends_at,  # the round's deadline: table.end ends it then
        )
        await self._send(table_id, create, command_id=f"{prefix}.create")
        self._fault("create")
        key = self.secret_key
        for seat, player in enumerate(players):
            command_id = f"{prefix}.join.{seat}"
            await self._send(
                table_id,
                JoinRequest(name=state.entrants[player].name, seat=seat),
                command_id=command_id,
                token=seat_secret(key, table_id, seat, player),
                identity=sign_identity(key.encode(), table_id, command_id, player),
            )
        self._fault("join")
        await self._send(
            table_id,
            StartTable(),
            command_id=f"{prefix}.start",
            seat=0,
            token=seat_secret(key, table_id, 0, players[0]),
        )
        self._fault("start")

    async def _send(self, table_id: str, body: Any, **kwargs: Any) -> Accepted:
        try:
            outcome = await self.wire.send(table_id, body, **kwargs)
        except Exception as error:
            if isinstance(error, OSError):
                raise
            raise TimeoutError(str(error)) from None
        if isinstance(outcome, Duplicate):
            outcome = outcome.original
        if isinstance(outcome, Rejection):
            raise TableRefused(outcome.code, outcome.message)
        return outcome

    async def notify(self, tid: str, round_number: int, table_id: str, players: list[str]) -> None:
        for seat, player in enumerate(players):
            notice = TournamentPaired(
                tournament_id=tid, round=round_number, table_id=table_id, seat=seat
            )
            data = _json.encode(notice)
            await self.redis.xadd(
                keys.player_notice_stream(player),
                {"__data__": data},
                maxlen=1000,
                approximate=True,
            )
            # the notifiers tell a player who is away (by their preferences, quiet hours
            # and hourly limit): "your tournament table is ready"
            await self.redis.xadd(
                keys.NOTIFY_STREAM,
                {"__data__": data, "player": player},
                maxlen=NOTIFY_MAXLEN,
                approximate=True,
            )

    def _fault(self, step: str) -> None:
        if self.settings.fault == step:
            log.warning("fault_kill", step=step)
            os.kill(os.getpid(), signal.SIGKILL)
