"""Handling one command entry: decode, authenticate, decide, append, answer.

Read top to bottom, one entry goes: :meth:`CommandHandler.decide_entry` decodes the
envelope and checks what needs no table (size, reply stream, table id, command id) →
:meth:`~CommandHandler._decide_and_append` takes the table (cached, else snapshot + log)
→ :meth:`~CommandHandler._decide` decodes the body and hands it, with the caller's seat
and secret, to the table's decider (``games.table.decide_command``: authentication,
seat-less routing, every table rule), which returns a ``Decision`` — the events *and*
the table after them, each event folded once → :meth:`~CommandHandler._pending` seals
the events into the hash chain → the append script → the decided state becomes the
cached one → the outcome (rejections: :meth:`~CommandHandler._rejected`).

This is the decider worker's whole job for one stream entry, independent of the
transport (the intake's batch reader calls :meth:`CommandHandler.decide_entry` and
answers a batch at once with :func:`add_reply`, but for the entries an append settled
itself — services/store.py's ``Settle``; :meth:`CommandHandler.handle` decides and
answers one entry). It never raises on bad input: every problem becomes a rejection with
a stable code, or (when there is nowhere safe to answer) a dead letter with the reason.
Only infrastructure failures (Redis down) propagate, so the entry stays pending and is
claimed again.

Choices that keep a hostile client from harming anyone but itself:

* an entry over :data:`MAX_ENTRY_BYTES` is refused unread (``too_large``); decoding
  errors of any kind, nesting too deep included, are ``malformed``;
* outcomes are written only to a ``reply_to`` under ``orrery:reply:`` (capped and
  expiring when idle); any other ``reply_to`` is never written to: the entry is
  dead-lettered, undecided;
* a join's seat secret is the envelope's ``token``, chosen by the client (at least 128
  bits, else ``weak_token``); only its SHA-256 is kept, and no outcome carries it;
* dead letters keep the entry with its ``token`` removed;
* ``table.expire``, ``table.close`` (the timekeeper's) and ``table.end`` (a tournament
  organiser's) are system commands: no seat is authenticated or recorded for them; the
  decider accepts them only when the log's times say so, deciding with the recorded-at
  time this append will carry.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import signal
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import msgspec
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games.codec import codec_for, msgpack_encoder
from games.rejection import Rejected
from games.rng import new_seed
from games.table import (
    Caller,
    Decision,
    TableState,
    decide_command,
    takeover_seat,
    token_hash,
    token_matches,
)
from orrery_contracts.base import CommandBody
from orrery_contracts.chat import SAY_TAG
from orrery_contracts.envelope import (
    REPLY_TO,
    Accepted,
    CommandEnvelope,
    Duplicate,
    EventEnvelope,
    Outcome,
    Rejection,
    encode_entry,
    seal,
)
from orrery_contracts.identity import seat_secret, verified_player
from orrery_contracts.inputs import excerpt
from orrery_contracts.lobby import bot_player_id
from orrery_contracts.table import (
    CloseTable,
    CreateTable,
    ExpireClock,
    ExpireSeat,
    JoinSeat,
    LeaveSeat,
    LeaveTable,
)
from services.chat import ChatDesk
from services.log_context import bound as log_context
from services.settings import WorkerSettings
from services.store import (
    NOT_SETTLED,
    REPLY_MAXLEN,
    REPLY_REFUSED,
    EventStore,
    PendingAppend,
    Settle,
    Settled,
)

log = structlog.get_logger("orrery.decider")

TABLE_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
MAX_COMMAND_ID = 128
MAX_CONFLICT_RETRIES = 20
CACHE_SIZE = 5_000
MAX_ENTRY_BYTES = 64 * 1024
MAX_HEADER_SCAN = 8 * 1024 * 1024  # a refused entry this small is still read for its reply_to
# Decoding can fail in more ways than DecodeError: msgspec raises RecursionError on
# input nested deeper than the interpreter's limit.
DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError, ValueError)

_envelope_json = msgspec.json.Decoder(CommandEnvelope[msgspec.Raw])
_envelope_msgpack = msgspec.msgpack.Decoder(CommandEnvelope[msgspec.Raw])
_json = msgspec.json.Encoder()
_outcome_msgpack = msgspec.msgpack.Decoder(Outcome)


class _Header(msgspec.Struct):
    """What can be read of an envelope that failed to decode, to answer it."""

    command_id: str | None = None
    table_id: str | None = None
    reply_to: str | None = None


class _Tag(msgspec.Struct):
    type: str | None = None


_header_json = msgspec.json.Decoder(_Header)
_header_msgpack = msgspec.msgpack.Decoder(_Header)
_tag_json = msgspec.json.Decoder(_Tag)
_tag_msgpack = msgspec.msgpack.Decoder(_Tag)


_SYSTEM_TAGS = frozenset({"table.expire", "table.close", "table.end"})


def _tag_of(body: Any, as_json: bool) -> str | None:
    try:
        return (_tag_json if as_json else _tag_msgpack).decode(body).type
    except DECODE_ERRORS:
        return None


def is_json(data: bytes) -> bool:
    return data.lstrip()[:1] == b"{"


def encode_outcome(outcome: Outcome, as_json: bool) -> bytes:
    return _json.encode(outcome) if as_json else msgpack_encoder.encode(outcome)


@dataclass(slots=True)
class Handled:
    """What became of one entry (for the transport, metrics and tests).

    ``reply_to`` is set only when the outcome may be written there (a valid reply
    stream); ``as_json`` says how the answer is encoded (as the command was)."""

    outcome: Outcome | None
    reply_to: str | None
    dead_letter_reason: str | None = None
    as_json: bool = True
    # what the append settled (services/store.py's Settled): SETTLED or REPLY_REFUSED, the
    # entry is answered, acked and deleted (nothing is left to write for it but, with
    # REPLY_REFUSED, its dead letter); ACKED, acked and deleted, the answer is left
    settled: Settled = NOT_SETTLED


class CommandHandler:
    def __init__(
        self,
        store: EventStore,
        identity_key: bytes | None = None,
        settings: WorkerSettings | None = None,
    ) -> None:
        settings = settings or WorkerSettings.from_env()
        self.store = store
        self.settings = settings
        # The key a gateway signs player identities with (orrery_contracts.identity); without
        # it every join is anonymous.
        self.identity_key = identity_key or settings.secret_key.encode() or None
        # Fault injection for the crash tests: SIGKILL this process right after the
        # append of a command whose id starts with this prefix (before reply and ack).
        self.kill_after_append = settings.kill_after_append
        self.cache: OrderedDict[str, TableState] = OrderedDict()
        self.locks: dict[str, asyncio.Lock] = {}
        self.lock_users: Counter[str] = Counter()
        # Taken inside a table's lock (so a table's commands keep their order).
        # Commands decided at once per process (each holds a Redis connection while it
        # appends): a burst over every partition would otherwise exhaust the client's pool
        # of 100 connections, fail its batch and wait for the claimer.
        self.busy = asyncio.Semaphore(settings.intake_concurrency)
        # A table's seed never changes: one GET per table and process.
        self.seeds: OrderedDict[str, bytes] = OrderedDict()
        # table.say: chat messages, written to the table's chat stream, never to its log
        self.chat = ChatDesk(
            store.redis, store.partitions, settings.chat_rate, settings.chat_window_s
        )

    # ------------------------------------------------------------ entry point

    async def handle(self, data: bytes) -> Handled:
        """Decide the entry and write its outcome to its reply stream."""
        handled = await self.decide_entry(data)
        if handled.reply_to and handled.outcome is not None:
            pipe = self.store.redis.pipeline(transaction=False)
            add_reply(pipe, handled, self.store.reply_ttl_s)
            try:
                await pipe.execute()
            except (RedisConnectionError, RedisTimeoutError):
                raise
            except ResponseError as error:
                reason = undeliverable(handled, error)
                handled.dead_letter_reason = handled.dead_letter_reason or reason
        return handled

    async def decide_entry(
        self, data: bytes, stream: str | None = None, entry_id: bytes | None = None
    ) -> Handled:
        """Decide the entry; its answer is left to the caller (:func:`add_reply`), so a
        batch of entries can be answered and acknowledged in one round trip — unless the
        append settled it (given the entry's ``stream`` and ``entry_id``, on a store that
        settles: ``Handled.settled``)."""
        as_json = is_json(data)
        if len(data) > MAX_ENTRY_BYTES:
            return await self._unreadable(
                data, as_json, "too_large", f"a command entry has at most {MAX_ENTRY_BYTES} bytes"
            )
        try:
            envelope = (_envelope_json if as_json else _envelope_msgpack).decode(data)
        except DECODE_ERRORS as error:
            return await self._unreadable(
                data, as_json, "malformed", f"unreadable command envelope: {_reason(error)}"
            )
        if envelope.reply_to is not None and not REPLY_TO.match(envelope.reply_to):
            # Nowhere safe to answer: writing there could damage another key.
            log.warning("command_bad_reply_to", reply_to=excerpt(envelope.reply_to))
            return Handled(None, None, dead_letter_reason=_BAD_REPLY_TO, as_json=as_json)
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
            with log_context(table_id=table_id, command_id=envelope.command_id, seat=envelope.seat):
                async with lock, self.busy:
                    handled = await self._settle(envelope, as_json, stream, entry_id)
        finally:
            self.lock_users[table_id] -= 1
            if not self.lock_users[table_id]:
                # Nobody holds or awaits it: drop it, so ids of missing tables never pile up.
                del self.lock_users[table_id]
                self.locks.pop(table_id, None)
        return handled

    # ------------------------------------------------------------ the work

    async def _settle(
        self,
        envelope: CommandEnvelope[Any],
        as_json: bool,
        stream: str | None,
        entry_id: bytes | None,
    ) -> Handled:
        """The outcome, with a dead-letter reason when the server itself failed."""
        entry = Settle(stream, entry_id, envelope.reply_to, b"") if stream and entry_id else None
        try:
            outcome, settled = await self._decide_and_append(envelope, as_json, entry)
            if settled == REPLY_REFUSED:
                log.warning("reply_undeliverable", reason="reply_to is not a stream")
                reason = _undeliverable(outcome)
                return Handled(outcome, envelope.reply_to, reason, as_json, settled)
            return Handled(outcome, envelope.reply_to, None, as_json, settled)
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
            return Handled(outcome, envelope.reply_to, f"internal error: {error!r}", as_json)

    async def _decide_and_append(
        self, envelope: CommandEnvelope[Any], as_json: bool, entry: Settle | None = None
    ) -> tuple[Outcome, Settled]:
        """Decide on the table as this process knows it, append, answer; on a version
        conflict (another worker appended first) decide again on the table as it is.
        With ``entry`` (its reply still empty) the append settles it when the store can;
        returns the outcome and what the append settled (``services.store``'s values).

        No dedupe look-up on the way in: the append script refuses a known command id
        (returning its outcome), and a rejection looks for one before it is given. A
        system command's outcome is nobody's: its digest ignores seat and token, and its
        rejections are never stored (a seat must not pre-empt its own expiry's id)."""
        tag = _tag_of(envelope.body, as_json)
        if tag == SAY_TAG:
            return await self._say(envelope, as_json), NOT_SETTLED
        system = tag in _SYSTEM_TAGS
        credentials = "" if system else f"|{envelope.seat}|{envelope.token}"
        digest = hashlib.sha256(bytes(envelope.body) + credentials.encode()).hexdigest()
        for _ in range(MAX_CONFLICT_RETRIES):
            state = await self._state(envelope.table_id)
            # The log's times never go back (clocks of several workers' hosts may disagree).
            now = max(int(time.time() * 1000), state.at_ms)
            try:
                decision = await self._decide(state, envelope, as_json, now)
            except Rejected as rejected:
                outcome = await self._rejected(state, envelope, rejected, system, digest)
                if outcome is None:
                    continue  # decided on a stale copy: decide again
                return outcome, NOT_SETTLED
            accepted, pending = self._pending(state, envelope, decision, now, digest)
            if entry is not None and self.store.settles:
                # (where the append acks only, the intake encodes the answer)
                answers = self.store.answers(envelope.table_id, envelope.reply_to)
                reply = encode_outcome(accepted, as_json) if answers else b""
                pending = replace(pending, settle=replace(entry, reply=reply))
            result = await self.store.append(pending)
            if result.status == "ok":
                if self.kill_after_append and envelope.command_id.startswith(
                    self.kill_after_append
                ):
                    os.kill(os.getpid(), signal.SIGKILL)
                await self._keep(state, decision.state)
                log.info("command_accepted", seq=accepted.last_seq, events=len(decision.events))
                return accepted, result.settled
            if result.status == "dup":
                duplicate = self._duplicate(
                    envelope, result.stored_outcome, result.stored_digest, digest
                )
                return duplicate, NOT_SETTLED
            # Another worker appended first: forget the cached state and decide again.
            self.cache.pop(envelope.table_id, None)
            log.info("version_conflict", seq=state.seq, head=result.last_seq)
        busy = Rejection(
            command_id=envelope.command_id,
            table_id=envelope.table_id,
            code="busy",
            message="the table is changing too fast; retry with the same command id",
        )
        return busy, NOT_SETTLED

    async def _say(self, envelope: CommandEnvelope[Any], as_json: bool) -> Outcome:
        """A chat message (services/chat.py): not decided, not logged."""
        state = await self._state(envelope.table_id)
        try:
            return await self.chat.say(state, envelope, as_json, self.identity_key)
        except Rejected as rejected:
            log.info("chat_rejected", code=rejected.code)
            return Rejection(
                command_id=envelope.command_id,
                table_id=envelope.table_id,
                code=rejected.code,
                message=rejected.message,
                detail=rejected.detail,
            )

    async def _rejected(
        self,
        state: TableState,
        envelope: CommandEnvelope[Any],
        rejected: Rejected,
        system: bool,
        digest: str,
    ) -> Outcome | None:
        """The answer to a rejected command: the stored outcome of its id if it has one,
        else the rejection (stored for a seat's own retries); None when the rejection was
        decided on a copy of the table that is no longer the log's head."""
        head, head_hash, stored = await self.store.before_rejecting(
            envelope.table_id, envelope.command_id
        )
        if stored is not None:
            return self._duplicate(envelope, *stored, digest)
        if state.phase != "none" and (head, head_hash) != (state.seq, state.head_hash):
            # Decided on a cached state another worker has moved past (or one a failover
            # lost): a rejection has no version check, so decide again on the current state.
            self.cache.pop(envelope.table_id, None)
            return None
        outcome = Rejection(
            command_id=envelope.command_id,
            table_id=envelope.table_id,
            code=rejected.code,
            message=rejected.message,
            detail=rejected.detail,
        )
        if (
            not system
            and state.phase != "none"
            and token_matches(state, envelope.seat, envelope.token)
        ):
            # Stored for retries, but only for a seat's own commands: a client without a
            # seat's secret must not be able to write into a table.
            await self.store.store_rejection(
                envelope.table_id, envelope.command_id, msgpack_encoder.encode(outcome), digest
            )
        log.info("command_rejected", code=rejected.code, seq=state.seq)
        return outcome

    async def _decide(
        self, state: TableState, envelope: CommandEnvelope[Any], as_json: bool, now: int
    ) -> Decision:
        """Decode the body, gather what the table's decider needs (the seed, the player a
        gateway vouched for), and decide (games/table/decide.py: authentication, seat-less
        routing and every table rule live there)."""
        if state.phase == "none" and await self.store.archived(envelope.table_id):
            # moved to the archive (archive/archiver.py): only its tombstone is left here
            raise Rejected("game_over", "the game is over (the table is archived)")
        codec = codec_for(state.game or None)
        try:
            body = codec.decode_command(envelope.body, as_json)
        except DECODE_ERRORS as error:
            raise self._undecodable_body(state, envelope, as_json, error) from None
        if isinstance(body, CloseTable):  # the service's setting, not the sender's
            lobby_ttl_ms = round(self.settings.lobby_ttl_s * 1000)
            body = msgspec.structs.replace(body, lobby_ttl_ms=lobby_ttl_ms)
        body = self._bot_token(state, envelope, body)
        player = ""
        if isinstance(body, JoinSeat):
            player = verified_player(
                self.identity_key, envelope.table_id, envelope.command_id, envelope.identity
            )
        caller = Caller(seat=envelope.seat, token=envelope.token, player_id=player)
        if isinstance(body, CreateTable):
            seed = new_seed()
            decision = decide_command(state, body, caller, seed, now)
            stored = await self.store.put_seed(envelope.table_id, seed)
            if stored != seed:
                # A concurrent create of the same id stored its seed first; decide with it
                # so the commitment matches (the append will then conflict and reject).
                decision = decide_command(state, body, caller, stored, now)
            return decision
        # A table that does not exist has no seed (the decider says no_such_table).
        seed = await self._seed(envelope.table_id) if state.phase != "none" else b""
        return decide_command(state, body, caller, seed, now)

    def _bot_token(
        self, state: TableState, envelope: CommandEnvelope[Any], body: CommandBody
    ) -> CommandBody:
        """A leave or an expiry that gives the seat to a bot carries the hash of the bot's
        seat secret, derived from the server key (the bot runner derives the secret
        itself); whatever a client sent there is overwritten. Without the key no bot
        could authenticate: the worker then moves for the seat as for a table from
        before takeovers."""
        if not isinstance(body, LeaveTable | ExpireClock):
            return body
        seat = takeover_seat(state, body, envelope.seat)
        hashed: str | msgspec.UnsetType = msgspec.UNSET
        if seat is not None and self.identity_key is not None:
            level = bot_player_id(state.bot_level)
            secret = seat_secret(self.identity_key.decode(), envelope.table_id, seat, level)
            hashed = token_hash(secret)
        if isinstance(body, ExpireClock):
            return ExpireSeat(seat=body.seat, turn=body.turn, bot_token_hash=hashed)
        return LeaveSeat(bot_token_hash=hashed)

    def _undecodable_body(
        self, state: TableState, envelope: CommandEnvelope[Any], as_json: bool, error: Exception
    ) -> Rejected:
        """``malformed`` for a known command with wrong fields, ``unknown_command`` for a
        tag this table does not know, ``no_such_table`` for a game move to a missing table."""
        tag = _tag_of(envelope.body, as_json)
        if tag is not None and tag in codec_for(state.game or None).command_tags:
            return Rejected("malformed", f"unreadable command body: {_reason(error)}")
        if state.phase == "none" and tag is not None and tag in _every_command_tag():
            return Rejected("no_such_table", f"table {envelope.table_id!r} does not exist")
        if tag is None:
            return Rejected("malformed", f"unreadable command body: {_reason(error)}")
        return Rejected(
            "unknown_command", f"{excerpt(tag)!r} is not a command of this table's game"
        )

    def _pending(
        self,
        state: TableState,
        envelope: CommandEnvelope[Any],
        decision: Decision,
        now: int,
        digest: str,
    ) -> tuple[Accepted, PendingAppend]:
        """The decision's entries sealed into the hash chain, ready for the append; the
        decided state gets the chain's new head."""
        events = decision.events
        prev = state.head_hash
        entries: list[tuple[str, bytes]] = []
        command_bytes = msgpack_encoder.encode(decision.command)
        for i, event in enumerate(events):
            sealed = seal(
                EventEnvelope(
                    table_id=envelope.table_id,
                    seq=state.seq + 1 + i,
                    command_id=envelope.command_id,
                    seat=decision.seat,
                    recorded_at=now,
                    prev_hash=prev,
                    body=msgspec.Raw(msgpack_encoder.encode(event)),
                    command=command_bytes if i == 0 else None,
                )
            )
            entries.append((sealed.hash, encode_entry(sealed)))
            prev = sealed.hash
        decision.state.head_hash = prev
        accepted = Accepted(
            command_id=envelope.command_id,
            table_id=envelope.table_id,
            first_seq=state.seq + 1,
            last_seq=state.seq + len(events),
            seat=decision.joined_seat,
        )
        pending = PendingAppend(
            table_id=envelope.table_id,
            command_id=envelope.command_id,
            expected_seq=state.seq,
            expected_hash=state.head_hash,
            phase=decision.state.phase,
            outcome=msgpack_encoder.encode(accepted),
            digest=digest,
            entries=entries,
            recorded_at=now,
        )
        return accepted, pending

    async def _keep(self, before: TableState, after: TableState) -> None:
        """Cache the appended table (the decider's state: its events are folded once),
        and snapshot it when it crossed a multiple of the snapshot interval."""
        self._cache(after)
        every = self.store.snapshot_every
        if after.seq // every != before.seq // every:
            await self.store.save_snapshot(after)

    # ------------------------------------------------------------ state and seeds

    async def _state(self, table_id: str) -> TableState:
        state = self.cache.get(table_id)
        if state is None:
            state = await self.store.load(table_id)
            if state.phase != "none":
                self._cache(state)
        else:
            self.cache.move_to_end(table_id)
        return state

    def _cache(self, state: TableState) -> None:
        self.cache[state.table_id] = state
        self.cache.move_to_end(state.table_id)
        if len(self.cache) > CACHE_SIZE:
            self.cache.popitem(last=False)

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

    async def _reject_unstored(
        self, envelope: CommandEnvelope[Any], as_json: bool, code: str, message: str
    ) -> Handled:
        outcome = Rejection(
            command_id=envelope.command_id, table_id=envelope.table_id, code=code, message=message
        )
        return Handled(outcome, envelope.reply_to, as_json=as_json)

    async def _unreadable(self, data: bytes, as_json: bool, code: str, reason: str) -> Handled:
        """Answer what can be read of a broken envelope (if it names a safe reply stream),
        and dead-letter it."""
        header = _Header()
        if len(data) <= MAX_HEADER_SCAN:
            with contextlib.suppress(*DECODE_ERRORS):
                header = (_header_json if as_json else _header_msgpack).decode(data)
        reply_to = header.reply_to if header.reply_to and REPLY_TO.match(header.reply_to) else None
        outcome = Rejection(
            command_id=(header.command_id or "")[:MAX_COMMAND_ID],
            table_id=(header.table_id or "")[:64],
            code=code,
            message=reason,
        )
        log.warning("command_unreadable", code=code, reason=reason)
        return Handled(outcome, reply_to, dead_letter_reason=f"{code}: {reason}", as_json=as_json)


def add_reply(pipe: Any, handled: Handled, ttl_s: int) -> None:
    """Queue the outcome's write to the client's reply stream on a pipeline: capped, and
    its idle TTL (``ttl_s``) refreshed (two commands: XADD, EXPIRE)."""
    assert handled.reply_to and handled.outcome is not None
    pipe.xadd(
        handled.reply_to,
        {"__data__": encode_outcome(handled.outcome, handled.as_json)},
        maxlen=REPLY_MAXLEN,
        approximate=True,
    )
    pipe.expire(handled.reply_to, ttl_s)


def undeliverable(handled: Handled, error: Exception) -> str:
    """The dead-letter reason for an outcome its reply stream refused (a client made the
    key something else): the outcome stays stored for a retry with the same command id."""
    log.warning("reply_undeliverable", reason=excerpt(str(error), 80))
    return _undeliverable(handled.outcome)


def _undeliverable(outcome: Outcome | None) -> str:
    kind = outcome.__struct_config__.tag if outcome is not None else "none"
    return f"outcome {kind} not delivered: reply_to is not a stream"


_BAD_REPLY_TO = (
    "bad_reply_to: reply_to must name a stream orrery:reply:<1-100 of A-Za-z0-9_.:->; "
    "nothing was decided and nothing answered"
)


def without_token(data: bytes) -> bytes:
    """An entry as a dead letter may keep it: re-encoded without its ``token``. An entry
    that cannot be decoded as a map is not kept at all (a token could hide in it); the
    dead letter then holds only its size and SHA-256."""
    as_json = is_json(data)
    decoded: Any = None
    if len(data) <= MAX_HEADER_SCAN:
        try:
            decoded = msgspec.json.decode(data) if as_json else msgspec.msgpack.decode(data)
        except DECODE_ERRORS:
            decoded = None
    if not isinstance(decoded, dict):
        digest = hashlib.sha256(data).hexdigest()
        return _json.encode({"unreadable": True, "size": len(data), "sha256": digest})
    decoded.pop("token", None)
    try:
        return _json.encode(decoded) if as_json else msgpack_encoder.encode(decoded)
    except (TypeError, ValueError, RecursionError, OverflowError):
        return _json.encode({"unreadable": True, "size": len(data)})


def _reason(error: Exception) -> str:
    """A decoding error in a few words (never the offending input itself)."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return excerpt(str(error), 120)


@cache
def _every_command_tag() -> frozenset[str]:
    from games.registry import all_games

    tags: set[str] = set()
    for name in all_games():
        tags |= codec_for(name).command_tags
    return frozenset(tags)
