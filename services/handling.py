"""Handling one command entry: decode, authenticate, decide, append, answer.

This is the decider worker's whole job for one stream entry, independent of the
transport (FastStream calls :meth:`CommandHandler.handle`). It never raises on bad
input: every problem becomes a rejection with a stable code. Only infrastructure
failures (Redis down) propagate, so the entry stays pending and is claimed again.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import secrets
import signal
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from redis.exceptions import RedisError

from contracts.envelope import (
    Accepted,
    CommandEnvelope,
    Duplicate,
    EventEnvelope,
    Outcome,
    Rejection,
    encode_entry,
    seal,
)
from contracts.table import CreateTable, JoinSeat
from games.codec import codec_for, msgpack_encoder
from games.rejection import Rejected
from games.rng import new_seed
from games.table import TableState, advance, decide_table, token_hash
from services.store import EventStore, PendingAppend

log = structlog.get_logger("orrery.decider")

TABLE_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
MAX_COMMAND_ID = 128
MAX_CONFLICT_RETRIES = 20
CACHE_SIZE = 5_000

_envelope_json = msgspec.json.Decoder(CommandEnvelope[msgspec.Raw])
_envelope_msgpack = msgspec.msgpack.Decoder(CommandEnvelope[msgspec.Raw])
_json = msgspec.json.Encoder()
_outcome_msgpack = msgspec.msgpack.Decoder(Outcome)


def is_json(data: bytes) -> bool:
    return data.lstrip()[:1] == b"{"


def encode_outcome(outcome: Outcome, as_json: bool) -> bytes:
    return _json.encode(outcome) if as_json else msgpack_encoder.encode(outcome)


@dataclass(frozen=True, slots=True)
class Decision:
    body: Any
    events: list[Any]
    token: str | None  # a join's newly issued seat token


@dataclass(slots=True)
class Handled:
    """What became of one entry (for the transport, metrics and tests)."""

    outcome: Outcome | None
    reply_to: str | None
    dead_letter_reason: str | None = None


class CommandHandler:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        # Fault injection for the crash tests: SIGKILL this process right after the
        # append of a command whose id starts with this prefix (before reply and ack).
        self.kill_after_append = os.environ.get("ORRERY_FAULT_KILL_AFTER_APPEND", "")
        self.cache: OrderedDict[str, TableState] = OrderedDict()
        self.locks: dict[str, asyncio.Lock] = {}
        self.lock_users: Counter[str] = Counter()
        # A table's seed never changes: one GET per table and process.
        self.seeds: OrderedDict[str, bytes] = OrderedDict()

    # ------------------------------------------------------------ entry point

    async def handle(self, data: bytes) -> Handled:
        as_json = is_json(data)
        try:
            envelope = (_envelope_json if as_json else _envelope_msgpack).decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            return await self._malformed(data, as_json, f"unreadable command envelope: {error}")
        if not TABLE_ID.match(envelope.table_id):
            return await self._reject_unstored(
                envelope,
                as_json,
                "bad_table_id",
                "a table id has 1-64 characters from A-Z a-z 0-9 _ . : -",
            )
        if not envelope.command_id or len(envelope.command_id) > MAX_COMMAND_ID:
            return await self._reject_unstored(
                envelope, as_json, "malformed", "command_id must have 1-128 characters"
            )
        table_id = envelope.table_id
        lock = self.locks.setdefault(table_id, asyncio.Lock())
        self.lock_users[table_id] += 1
        try:
            with structlog.contextvars.bound_contextvars(
                table_id=table_id, command_id=envelope.command_id, seat=envelope.seat
            ):
                async with lock:
                    outcome, dead_letter_reason = await self._settle(envelope, as_json)
                await self._reply(envelope.reply_to, outcome, as_json)
        finally:
            self.lock_users[table_id] -= 1
            if not self.lock_users[table_id]:
                # Nobody holds or awaits it: drop it, so ids of missing tables never pile up.
                del self.lock_users[table_id]
                self.locks.pop(table_id, None)
        return Handled(outcome, envelope.reply_to, dead_letter_reason)

    # ------------------------------------------------------------ the work

    async def _settle(
        self, envelope: CommandEnvelope[Any], as_json: bool
    ) -> tuple[Outcome, str | None]:
        """The outcome, and a dead-letter reason when the server itself failed."""
        try:
            return await self._decide_and_append(envelope, as_json), None
        except RedisError:
            raise
        except Exception as error:
            # A bug, not bad input: answer, keep the entry for inspection, go on.
            log.exception("command_failed")
            self.cache.pop(envelope.table_id, None)
            outcome = Rejection(
                command_id=envelope.command_id,
                table_id=envelope.table_id,
                code="internal_error",
                message="the server failed on this command; nothing was applied",
            )
            return outcome, f"internal error: {error!r}"

    async def _decide_and_append(self, envelope: CommandEnvelope[Any], as_json: bool) -> Outcome:
        # No dedupe look-up on the way in: the append script refuses a known command id
        # (returning its outcome), and a rejection looks for one before it is given.
        digest = hashlib.sha256(
            bytes(envelope.body) + f"|{envelope.seat}|{envelope.token}".encode()
        ).hexdigest()
        for _ in range(MAX_CONFLICT_RETRIES):
            state = await self._state(envelope.table_id)
            try:
                decision = await self._decide(state, envelope, as_json)
            except Rejected as rejected:
                head, stored = await self.store.before_rejecting(
                    envelope.table_id, envelope.command_id
                )
                if stored is not None:
                    return self._duplicate(envelope, *stored, digest)
                if state.phase != "none" and head != state.seq:
                    # Decided on a cached state another worker has moved past: a rejection
                    # has no version check, so decide again on the current state.
                    self.cache.pop(envelope.table_id, None)
                    continue
                outcome = Rejection(
                    command_id=envelope.command_id,
                    table_id=envelope.table_id,
                    code=rejected.code,
                    message=rejected.message,
                    detail=rejected.detail,
                )
                if state.phase != "none":
                    await self.store.store_rejection(
                        envelope.table_id,
                        envelope.command_id,
                        msgpack_encoder.encode(outcome),
                        digest,
                    )
                log.info("command_rejected", code=rejected.code, seq=state.seq)
                return outcome
            accepted, pending = self._pending(state, envelope, decision, digest)
            result = await self.store.append(pending)
            if result.status == "ok":
                if self.kill_after_append and envelope.command_id.startswith(
                    self.kill_after_append
                ):
                    os.kill(os.getpid(), signal.SIGKILL)
                await self._apply(state, pending, decision.events)
                log.info("command_accepted", seq=accepted.last_seq, events=len(decision.events))
                return accepted
            if result.status == "dup":
                return self._duplicate(
                    envelope, result.stored_outcome, result.stored_digest, digest
                )
            # Another worker appended first: forget the cached state and decide again.
            self.cache.pop(envelope.table_id, None)
            log.info("version_conflict", seq=state.seq, head=result.last_seq)
        return Rejection(
            command_id=envelope.command_id,
            table_id=envelope.table_id,
            code="busy",
            message="the table is changing too fast; retry with the same command id",
        )

    async def _decide(
        self, state: TableState, envelope: CommandEnvelope[Any], as_json: bool
    ) -> Decision:
        codec = codec_for(state.game or None)
        try:
            body = codec.decode_command(envelope.body, as_json)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            if state.phase == "none":
                raise Rejected(
                    "no_such_table", f"table {envelope.table_id!r} does not exist"
                ) from None
            raise Rejected("malformed", f"unreadable command body: {error}") from None
        seat = envelope.seat
        token = None
        if isinstance(body, CreateTable):
            seed = new_seed()
            seat = None
        else:
            if state.phase == "none":
                raise Rejected("no_such_table", f"table {envelope.table_id!r} does not exist")
            seed = await self._seed(envelope.table_id)
            if isinstance(body, JoinSeat):
                seat = None
                token = secrets.token_urlsafe(24)
                body = msgspec.structs.replace(body, token_hash=token_hash(token))
            else:
                self._authenticate(state, seat, envelope.token)
        events = decide_table(state, body, seat, seed)
        if isinstance(body, CreateTable):
            stored = await self.store.put_seed(envelope.table_id, seed)
            if stored != seed:
                # A concurrent create of the same id stored its seed first; decide with it
                # so the commitment matches (the append will then conflict and reject).
                seed = stored
                events = decide_table(state, body, seat, seed)
        return Decision(body, events, token)

    def _authenticate(self, state: TableState, seat: int | None, token: str | None) -> None:
        if (
            seat is None
            or token is None
            or not 0 <= seat < state.seats
            or state.token_hashes[seat] is None
            or not secrets.compare_digest(str(state.token_hashes[seat]), token_hash(token))
        ):
            raise Rejected("unauthorized", "seat and token do not match a joined seat")

    def _pending(
        self,
        state: TableState,
        envelope: CommandEnvelope[Any],
        decision: Decision,
        digest: str,
    ) -> tuple[Accepted, PendingAppend]:
        body, events = decision.body, decision.events
        now = int(time.time() * 1000)
        prev = state.head_hash
        entries: list[tuple[str, bytes]] = []
        command_bytes = msgpack_encoder.encode(body)
        for i, event in enumerate(events):
            sealed = seal(
                EventEnvelope(
                    table_id=envelope.table_id,
                    seq=state.seq + 1 + i,
                    command_id=envelope.command_id,
                    seat=envelope.seat if not isinstance(body, CreateTable | JoinSeat) else None,
                    recorded_at=now,
                    prev_hash=prev,
                    body=msgspec.Raw(msgpack_encoder.encode(event)),
                    command=command_bytes if i == 0 else None,
                )
            )
            entries.append((sealed.hash, encode_entry(sealed)))
            prev = sealed.hash
        joined = events[0] if isinstance(body, JoinSeat) else None
        accepted = Accepted(
            command_id=envelope.command_id,
            table_id=envelope.table_id,
            first_seq=state.seq + 1,
            last_seq=state.seq + len(events),
            seat=getattr(joined, "seat", None),
            token=decision.token,
        )
        phase = _phase_after(state, events)
        pending = PendingAppend(
            table_id=envelope.table_id,
            command_id=envelope.command_id,
            expected_seq=state.seq,
            expected_hash=state.head_hash,
            phase=phase,
            outcome=msgpack_encoder.encode(accepted),
            digest=digest,
            entries=entries,
            recorded_at=now,
        )
        return accepted, pending

    async def _apply(self, state: TableState, pending: PendingAppend, events: list[Any]) -> None:
        try:
            before = state.seq
            for event, (entry_hash, _) in zip(events, pending.entries, strict=True):
                state = advance(state, event, state.seq + 1, entry_hash, pending.recorded_at)
        except Exception:
            # Appended already: the log is right, only this cached copy is suspect.
            log.exception("cached_state_failed")
            self.cache.pop(pending.table_id, None)
            return
        every = self.store.snapshot_every
        if state.seq // every != before // every:
            await self.store.save_snapshot(state)

    # ------------------------------------------------------------ state and seeds

    async def _state(self, table_id: str) -> TableState:
        state = self.cache.get(table_id)
        if state is None:
            state = await self.store.load(table_id)
            if state.phase != "none":
                self.cache[table_id] = state
                if len(self.cache) > CACHE_SIZE:
                    self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(table_id)
        return state

    async def _seed(self, table_id: str) -> bytes:
        seed = self.seeds.get(table_id)
        if seed is None:
            seed = await self.store.get_seed(table_id)
            if seed is None:
                raise Rejected("no_such_table", f"table {table_id!r} has no seed")
            self.seeds[table_id] = seed
            if len(self.seeds) > CACHE_SIZE:
                self.seeds.popitem(last=False)
        return seed

    # ------------------------------------------------------------ answers

    def _duplicate(
        self, envelope: CommandEnvelope[Any], stored: bytes, stored_digest: str, digest: str
    ) -> Outcome:
        """The first outcome of this command id, unless the id now names another command."""
        if stored_digest and stored_digest != digest:
            return Rejection(
                command_id=envelope.command_id,
                table_id=envelope.table_id,
                code="command_id_reused",
                message="this command id was used for a different command",
            )
        original = _outcome_msgpack.decode(stored)
        if isinstance(original, Duplicate):
            original = original.original
        return Duplicate(
            command_id=envelope.command_id, table_id=envelope.table_id, original=original
        )

    async def _reply(self, reply_to: str | None, outcome: Outcome, as_json: bool) -> None:
        if reply_to:
            await self.store.redis.xadd(
                reply_to,
                {"__data__": encode_outcome(outcome, as_json)},
                maxlen=10_000,
                approximate=True,
            )

    async def _reject_unstored(
        self, envelope: CommandEnvelope[Any], as_json: bool, code: str, message: str
    ) -> Handled:
        outcome = Rejection(
            command_id=envelope.command_id, table_id=envelope.table_id, code=code, message=message
        )
        await self._reply(envelope.reply_to, outcome, as_json)
        return Handled(outcome, envelope.reply_to)

    async def _malformed(self, data: bytes, as_json: bool, reason: str) -> Handled:
        """Answer what can be read of a broken envelope, and dead-letter it."""
        loose: dict[str, Any] = {}
        try:
            decoded = msgspec.json.decode(data) if as_json else msgspec.msgpack.decode(data)
            if isinstance(decoded, dict):
                loose = decoded
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass
        command_id = loose.get("command_id")
        table_id = loose.get("table_id")
        reply_to = loose.get("reply_to")
        outcome = Rejection(
            command_id=command_id if isinstance(command_id, str) else "",
            table_id=table_id if isinstance(table_id, str) else "",
            code="malformed",
            message=reason[:500],
        )
        if not (isinstance(reply_to, str) and reply_to):
            reply_to = None
        await self._reply(reply_to, outcome, as_json)
        log.warning("command_malformed", reason=reason[:200])
        return Handled(outcome, reply_to, dead_letter_reason=reason[:500])


def _phase_after(state: TableState, events: list[Any]) -> str:
    from contracts.table import TableCreated, TableFinished, TableStarted

    phase = state.phase
    for event in events:
        if isinstance(event, TableCreated):
            phase = "lobby"
        elif isinstance(event, TableStarted):
            phase = "playing"
        elif isinstance(event, TableFinished):
            phase = "finished"
    return phase
