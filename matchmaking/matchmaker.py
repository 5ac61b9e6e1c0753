"""The matchmaker role (``orrery matchmaker``; ``orrery serve`` starts ``--matchmakers N``,
default 1; any number may run side by side).

Each game's queue is owned through a lease (``keys.queue_lease``, ``ORRERY_MATCHMAKER_
LEASE_MS``, default 10 s, renewed every loop): one matchmaker decides a game's tickets at
a time, so two never match the same ticket; one that dies leaves its lease to run out,
and the next owner folds the log and carries on where it stopped.

The owner's loop, per game:

1. decide new ticket commands from the game's queue stream (join, leave, accept, blocks;
   ratings read from the leaderboard's ``keys.ratings_key`` and recorded in the event);
2. every ``ORRERY_MATCHMAKER_CYCLE_S`` (default 1 s): note who of the realtime tickets'
   players went offline or came back (``keys.online_key``, kept by the gateway's live
   sockets), expire tickets (offline ``ORRERY_QUEUE_OFFLINE_S``, default 30 s; a party not
   all accepted within 60 s), and run the matcher (matchmaking/matcher.py);
3. append those decisions to the log in one script, with the command cursor, what the
   players read (tickets, their indexes) and the commands' answers: all or nothing;
4. make each match's table through the ordinary wire contract, with command ids fixed by
   the match (``mm.<match>.create``, ``….join.<seat>``, ``….start``), so a retry is a
   duplicate: create it with the pace's clock, seat every player (each seat's secret
   derived from the server key, as the gateway derives it, and the player's identity
   signed), seat the bots (announced to the bot runner first), start it, wait until its
   views show it; then append ``match.started`` (the tickets read ``matched``) and post
   a ``matched`` notice to each player.

Prometheus: ``orrery_matchmaker_waiting{game}``, ``orrery_matches_total{game}``,
``orrery_matches_failed_total{game}``, ``orrery_match_wait_seconds{game}`` (how long each
matched ticket waited) and ``orrery_matcher_pass_seconds{game}``.

``kill -9`` at any point loses no ticket and matches none twice: a decision is in the
log before anything acts on it, a match is made only of tickets the log shows waiting,
and a match made but not started is finished by whoever owns the queue next, with the
same command ids. ``ORRERY_FAULT_KILL_MATCHMAKER_AFTER=made|create|join|bots|start|
started`` (tests only) SIGKILLs the process right after that step of its first match.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import structlog
from prometheus_client import Counter, Gauge, Histogram
from redis.exceptions import RedisError

from matchmaking import log as mlog
from matchmaking.queue import (
    QueueState,
    decide,
    entry_hash,
    evolve,
    expiries,
    fold,
    made,
    matches,
    presence,
)
from matchmaking.settings import MatchmakerSettings
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Outcome, Rejection
from orrery_contracts.identity import seat_secret, sign_identity
from orrery_contracts.lobby import (
    BOT_LEVELS,
    BOT_PLAYER_ID,
    BOTS_ADDED_STREAM,
    BOTS_SET,
    bot_player_id,
)
from orrery_contracts.matchmaking import (
    ANSWER_TTL_MS,
    ENDED_TICKET_TTL_S,
    PACE_CLOCKS,
    JoinQueue,
    MatchFailed,
    MatchMade,
    MatchStarted,
    PartyAccepted,
    QueueAnswer,
    QueueCommand,
    QueueEntry,
    QueueEvent,
    QueueExpired,
    QueueJoined,
    QueueLeft,
    Rating,
    queue_command_decoder,
    ticket_view_decoder,
)
from orrery_contracts.notices import Matched
from orrery_contracts.table import ClockOption, CreateTable, JoinRequest, StartTable

log = structlog.get_logger("orrery.matchmaker")

FAULT_STEPS = ("made", "create", "join", "bots", "start", "started")
START_RATING = 1500.0
START_SIGMA = 500.0
READ_BLOCK_MS = 200
PLAYER_TICKETS_KEPT = 500  # a player's newest tickets listed (10 at most wait at once)

_json = msgspec.json.Encoder()

WAITING = Gauge("orrery_matchmaker_waiting", "Tickets waiting in a queue this one owns", ["game"])
MATCHES = Counter("orrery_matches", "Tables the matchmaker made and started", ["game"])
FAILED = Counter("orrery_matches_failed", "Matches the service refused a step of", ["game"])
WAITED = Histogram(
    "orrery_match_wait_seconds",
    "How long a matched ticket waited",
    ["game"],
    buckets=(1, 2, 5, 10, 20, 30, 45, 60, 90, 120, 300, 900, 3600, 86400),
)
PASS = Histogram(
    "orrery_matcher_pass_seconds",
    "One pass of the matcher over a game's queue",
    ["game"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)


class _Rating(msgspec.Struct):
    mu: float
    sigma: float = START_SIGMA


_rating = msgspec.json.Decoder(_Rating)


class TableWire(Protocol):
    """Sends table commands and waits for their outcomes (the composition root plugs in
    a client of the wire contract with its own reply streams)."""

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

    async def wait_projected(self, table_id: str, seq: int, timeout: float = 10.0) -> bool: ...


class MatchError(Exception):
    """The service refused a step of making a match's table."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Owned:
    state: QueueState
    cursor: str
    last_cycle: float = 0.0


@dataclass
class Matchmaker:
    redis: Any
    games: dict[str, tuple[int, int]]  # game -> (min seats, max seats)
    wire: TableWire
    secret_key: str
    # (unless given: the process's settings, read when the matchmaker is made)
    lease_ms: int = field(default_factory=lambda: MatchmakerSettings.from_env().lease_ms)
    cycle_s: float = field(default_factory=lambda: MatchmakerSettings.from_env().cycle_s)
    offline_s: float = field(default_factory=lambda: MatchmakerSettings.from_env().offline_s)
    name: str = field(default_factory=lambda: f"matchmaker-{socket.gethostname()}-{os.getpid()}")
    fault: str = field(default_factory=lambda: MatchmakerSettings.from_env().fault)
    owned: dict[str, Owned] = field(default_factory=dict)
    made_tables: int = 0

    # ------------------------------------------------------------ the loop

    async def run(self, stop: asyncio.Event) -> None:
        backoff = 0.0
        while not stop.is_set():
            try:
                await self.step()
                backoff = 0.0
            except (RedisError, OSError) as error:
                backoff = min(max(backoff * 2, 0.5), 10.0)
                log.warning("matchmaker_retry", error=str(error)[:200], in_s=backoff)
                self.owned.clear()  # read everything again once it is back
                await _wait(stop, backoff)
        for game in list(self.owned):
            with contextlib.suppress(RedisError, OSError):
                await mlog.release(self.redis, game, self.name)

    async def step(self) -> None:
        await self.claim()
        if not self.owned:
            await asyncio.sleep(self.lease_ms / 4000)
            return
        streams = {keys.queue_command_stream(g): o.cursor for g, o in self.owned.items()}
        rows = await self.redis.xread(streams, count=200, block=READ_BLOCK_MS)
        commands: dict[str, list[tuple[str, bytes]]] = {}
        for stream, entries in rows or []:
            game = (stream.decode() if isinstance(stream, bytes) else stream).rsplit(":", 1)[1]
            commands[game] = [(i.decode(), f.get(b"__data__", b"")) for i, f in entries]
        for game in list(self.owned):
            await self.decide_game(game, commands.get(game, []))
        for game in list(self.owned):
            await self.make_tables(game)

    async def claim(self) -> None:
        for game in self.games:
            taken = await mlog.lease(self.redis, game, self.name, self.lease_ms)
            if taken == 0:
                if self.owned.pop(game, None) is not None:
                    log.warning("matchmaker_lease_lost", game=game)
                continue
            if taken == 2 or game not in self.owned:
                await self.load(game)

    async def load(self, game: str) -> None:
        state = QueueState(game=game, seat_range=self.games[game], offline_s=self.offline_s)
        fold(state, await mlog.read_log(self.redis, game))
        self.owned[game] = Owned(state, await mlog.cursor_of(self.redis, game))
        log.info("matchmaker_owns", game=game, seq=state.seq, pending=len(state.pending))

    # ------------------------------------------------------------ deciding

    async def decide_game(self, game: str, commands: list[tuple[str, bytes]]) -> None:
        owned = self.owned[game]
        state = owned.state
        writer = Writer(state, mlog.Batch(game=game, expected_seq=state.seq))
        now = now_ms()
        for entry_id, data in commands:
            writer.batch.cursor = entry_id
            try:
                command = queue_command_decoder.decode(data)
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                log.warning("matchmaker_bad_command", game=game, error=str(error)[:200])
                continue
            try:
                events, answer = await self._decide(state, command)
            except (RedisError, OSError):
                raise
            except Exception:  # a bug must not stop the queue: refuse this one, say so
                log.exception("matchmaker_command_failed", game=game, command=command.command_id)
                events, answer = (
                    [],
                    QueueAnswer(
                        command_id=command.command_id,
                        ok=False,
                        code="bad_ticket",
                        message="the ticket could not be decided",
                    ),
                )
            for event in events:
                writer.add(event, now)
            writer.answer(answer.command_id, _json.encode(answer))
        if time.monotonic() - owned.last_cycle >= self.cycle_s:
            owned.last_cycle = time.monotonic()
            await self._cycle(writer, now)
        result = await mlog.append(self.redis, self.name, writer.batch)
        if result != "ok":
            log.warning("matchmaker_append_refused", game=game, result=result)
            self.owned.pop(game, None)
            return
        owned.cursor = writer.batch.cursor or owned.cursor
        if any(isinstance(e.event, MatchMade) for e in writer.batch.entries):
            self._fault("made")

    async def _decide(
        self, state: QueueState, command: QueueCommand
    ) -> tuple[list[QueueEvent], Any]:
        elsewhere = None
        waiting_elsewhere = 0
        if isinstance(command, JoinQueue):
            ticket_id = command.ticket.ticket_id
            if ticket_id not in state.tickets:
                raw = await self.redis.get(keys.ticket_key(ticket_id))
                elsewhere = ticket_view_decoder.decode(raw) if raw else None
            waiting_elsewhere = await self._waiting_elsewhere(state.game, command.player_id)
            ratings = await self._ratings(state.game, command.ticket.players)
            return decide(
                state,
                command,
                lambda _players: ratings,
                elsewhere=elsewhere,
                waiting_elsewhere=waiting_elsewhere,
            )
        return decide(state, command, lambda players: [])

    async def _waiting_elsewhere(self, game: str, player: str) -> int:
        ids = await self.redis.zrange(keys.player_tickets_key(player), 0, -1)
        if not ids:
            return 0
        raws = await self.redis.mget([keys.ticket_key(i.decode()) for i in ids])
        count = 0
        for raw in raws:
            if raw:
                view = ticket_view_decoder.decode(raw)
                if view.game != game and view.state == "waiting" and view.player_id == player:
                    count += 1
        return count

    async def _ratings(self, game: str, players: list[str]) -> list[Rating]:
        raws = await self.redis.hmget(keys.ratings_key(game), players)
        found = []
        for raw in raws:
            rating = _rating.decode(raw) if raw else _Rating(START_RATING, START_SIGMA)
            found.append(Rating(mu=round(rating.mu, 3), sigma=round(rating.sigma, 3)))
        return found

    async def _bot_ratings(self, game: str) -> dict[str, float]:
        """The rated bot levels' ratings on the game's leaderboard (``bot:<level>``)."""
        raws = await self.redis.hmget(
            keys.ratings_key(game), [bot_player_id(level) for level in BOT_LEVELS]
        )
        return {
            level: round(_rating.decode(raw).mu, 3)
            for level, raw in zip(BOT_LEVELS, raws, strict=True)
            if raw
        }

    async def _cycle(self, writer: Writer, now: int) -> None:
        state = writer.state
        watched = sorted(
            {p for r in state.waiting() if r.ticket.pace == "realtime" for p in r.ticket.players}
        )
        online: set[str] = set()
        if watched:
            flags = await self.redis.mget([keys.online_key(p) for p in watched])
            online = {p for p, flag in zip(watched, flags, strict=True) if flag}
        for event in presence(state, online):
            writer.add(event, now)
        for event in expiries(state, now):
            writer.add(event, now)
        started = time.perf_counter()
        groups = matches(state, now)
        PASS.labels(state.game).observe(time.perf_counter() - started)
        WAITING.labels(state.game).set(len(state.waiting_ids))
        if groups:
            cycle = state.cycle + 1
            bots = await self._bot_ratings(state.game) if any(g.bots for g in groups) else {}
            for group in groups:
                writer.add_with(
                    lambda seq, prev, g=group: made(state, g, cycle, seq, prev, bots), now
                )

    # ------------------------------------------------------------ making tables

    async def make_tables(self, game: str) -> None:
        owned = self.owned.get(game)
        if owned is None:
            return
        for match in list(owned.state.pending.values()):
            # a burst of matches may take longer than the lease: renew it as we go
            if await mlog.lease(self.redis, game, self.name, self.lease_ms) == 0:
                self.owned.pop(game, None)
                log.warning("matchmaker_lease_lost", game=game)
                return
            try:
                await self.make_table(game, match)
                event: QueueEvent = MatchStarted(match_id=match.match_id, table_id=match.table_id)
            except MatchError as error:
                log.error("match_failed", match=match.match_id, code=error.code)
                FAILED.labels(game).inc()
                event = MatchFailed(
                    match_id=match.match_id,
                    table_id=match.table_id,
                    code=error.code,
                    message=error.message,
                )
            except TimeoutError:
                log.warning("match_table_slow", match=match.match_id)
                return  # the service is slow: the next loop goes on with the same ids
            state = owned.state
            writer = Writer(state, mlog.Batch(game=game, expected_seq=state.seq))
            writer.add(event, now_ms())
            result = await mlog.append(self.redis, self.name, writer.batch)
            if result != "ok":
                self.owned.pop(game, None)
                return
            if isinstance(event, MatchStarted):
                self.made_tables += 1
                MATCHES.labels(game).inc()
                for ticket_id in match.tickets:
                    waited = state.tickets[ticket_id].joined_at
                    WAITED.labels(game).observe(max(0.0, (state.at - waited) / 1000))
                self._fault("started")
                await self.notify(match)
                log.info("match_started", match=match.match_id, table_id=match.table_id)

    async def make_table(self, game: str, match: MatchMade) -> None:
        table_id = match.table_id
        prefix = f"mm.{match.match_id}"
        clock = msgspec.convert(PACE_CLOCKS[match.pace], ClockOption)
        create = CreateTable(
            game=game, seats=match.seats, options=match.options, clock=clock, rated=match.rated
        )
        await self._send(table_id, create, command_id=f"{prefix}.create")
        self._fault("create")
        humans = [s for s in match.players if s.player_id]
        for seat in humans:
            command_id = f"{prefix}.join.{seat.seat}"
            await self._send(
                table_id,
                JoinRequest(name=seat.name, seat=seat.seat),
                command_id=command_id,
                token=seat_secret(self.secret_key, table_id, seat.seat, seat.player_id),
                identity=sign_identity(
                    self.secret_key.encode(), table_id, command_id, seat.player_id
                ),
            )
        self._fault("join")
        # a bot of the match's level (a match from before levels: the level-less bot)
        level = match.bot_level
        bot = BOT_PLAYER_ID if isinstance(level, msgspec.UnsetType) else bot_player_id(level)
        names = {s.seat: s.name for s in match.players}
        for seat_number in match.bots:
            member = f"{table_id}|{seat_number}"
            await self.redis.sadd(BOTS_SET, member)  # announced before the join
            command_id = f"{prefix}.join.{seat_number}"
            await self._send(
                table_id,
                JoinRequest(name=names[seat_number], seat=seat_number),
                command_id=command_id,
                token=seat_secret(self.secret_key, table_id, seat_number, bot),
                identity=sign_identity(self.secret_key.encode(), table_id, command_id, bot),
            )
            await self.redis.xadd(BOTS_ADDED_STREAM, {"member": member}, maxlen=1000)
        self._fault("bots")
        first = humans[0]
        started = await self._send(
            table_id,
            StartTable(),
            command_id=f"{prefix}.start",
            seat=first.seat,
            token=seat_secret(self.secret_key, table_id, first.seat, first.player_id),
        )
        self._fault("start")
        if not await self.wire.wait_projected(table_id, started.last_seq, 10.0):
            raise TimeoutError(table_id)

    async def _send(self, table_id: str, body: Any, **kwargs: Any) -> Accepted:
        try:
            outcome = await self.wire.send(table_id, body, **kwargs)
        except Exception as error:  # the wire's own timeout type: retried next loop
            if isinstance(error, RedisError | OSError):
                raise
            raise TimeoutError(str(error)) from None
        if isinstance(outcome, Duplicate):
            outcome = outcome.original
        if isinstance(outcome, Rejection):
            raise MatchError(outcome.code, outcome.message)
        return outcome

    async def notify(self, match: MatchMade) -> None:
        for seat in match.players:
            if seat.player_id:
                notice = Matched(ticket_id=seat.ticket_id, table_id=match.table_id, seat=seat.seat)
                await self.redis.xadd(
                    keys.player_notice_stream(seat.player_id),
                    {"__data__": _json.encode(notice)},
                    maxlen=1000,
                    approximate=True,
                )

    def _fault(self, step: str) -> None:
        if self.fault == step:
            log.warning("fault_kill", step=step)
            os.kill(os.getpid(), signal.SIGKILL)


class Writer:
    """Builds a batch: each event becomes the next log entry (evolving the state at once,
    so later decisions of the batch see it), plus the writes of what players read."""

    def __init__(self, state: QueueState, batch: mlog.Batch) -> None:
        self.state = state
        self.batch = batch

    def add(self, event: QueueEvent, at: int) -> None:
        self.add_with(lambda seq, prev: event, at)

    def add_with(self, make: Any, at: int) -> None:
        seq, prev = self.state.seq + 1, self.state.head
        event = make(seq, prev)
        digest = entry_hash(prev, seq, at, event)
        entry = QueueEntry(seq=seq, at=at, prev=prev, hash=digest, event=event)
        touched = _tickets_of(event, self.state)
        evolve(self.state, entry)
        self.batch.entries.append(entry)
        for ticket_id in touched:
            self._project(ticket_id)

    def answer(self, command_id: str, raw: bytes) -> None:
        self.batch.set(keys.queue_answer_key(command_id), raw, ANSWER_TTL_MS)

    def _project(self, ticket_id: str) -> None:
        record = self.state.tickets.get(ticket_id)
        if record is None:
            return
        view = record.view()
        ttl = 0 if view.state == "waiting" else ENDED_TICKET_TTL_S * 1000
        self.batch.set(keys.ticket_key(ticket_id), _json.encode(view), ttl)
        for player in record.ticket.players:
            self.batch.zadd(keys.player_tickets_key(player), ticket_id, record.joined_at)
            self.batch.zkeep(keys.player_tickets_key(player), PLAYER_TICKETS_KEPT)


def _tickets_of(event: QueueEvent, state: QueueState) -> list[str]:
    """The tickets an event changes (read before it is applied)."""
    match event:
        case QueueJoined(ticket=ticket):
            return [ticket.ticket_id]
        case QueueLeft(ticket_id=t) | PartyAccepted(ticket_id=t) | QueueExpired(ticket_id=t):
            return [t]
        case MatchStarted(match_id=match_id) | MatchFailed(match_id=match_id):
            return list(state.pending[match_id].tickets)
        case MatchMade(tickets=tickets):
            return list(tickets)
    return []


async def _wait(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
