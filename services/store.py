"""The event store: a table's append-only, hash-chained log in Redis Streams.

One Lua script appends atomically (command-id dedupe, expected-version check against
the table's meta hash, events XADDed with ids ``<seq>-0``, outcome stored, partition
feed notified). Loading reads the latest snapshot, then the log's tail. The log is
never trimmed.

Durability options confirm an append before it counts as done: ``WAITAOF`` (the
master's fsync) and ``WAIT n`` (n replicas have it). ``n`` is an upper bound: a master
with fewer replicas online (just after a failover promoted its only replica) waits for
those it has, so the partitions it serves keep answering; it logs
``wait_replicas_degraded`` meanwhile (docs/scaling.md, "Failover").

Without durability options the append also *settles* the command entry
(:class:`Settle`). On a standalone server it writes the outcome to the client's reply
stream and acks and deletes the entry in the same script, one round trip less per
command, and no crash can come between the append and the answer. On a cluster a script
touches one slot: the script acks and deletes the entry (its stream shares the table's
slot), and it answers too when the reply stream carries the partition's hash tag (the
SDK's ``<reply stream>:{p}``, :meth:`EventStore.answers`); for any other reply stream the
intake answers after it (``ACKED``), one single-node write. A crash
between the two loses that answer, not the command: the client's resend of the same
command id (the SDK resends after its timeout) is answered with the stored outcome.
With ``WAITAOF``/``WAIT`` (an outcome may be sent only once the append is confirmed)
the append settles nothing: the intake answers and acks after the confirmation.

Appends made in one turn of the event loop (the concurrently decided entries of one
read) go to the server in one pipeline (services/script_turns.py); durable appends go
one by one, each confirmed on its own connection.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

import structlog
from redis.exceptions import RedisError

from games.table import TableState, apply_entry, decode_snapshot, encode_snapshot
from orrery_contracts import keys
from orrery_contracts.envelope import RawEnvelope, decode_entry
from services import metrics
from services.script_turns import ScriptTurns
from services.settings import REPLY_TTL_S as REPLY_TTL_S
from services.settings import WorkerSettings

FEED_MAXLEN = 100_000
SNAPSHOT_EVERY = 64
# Reply streams: capped, and gone after a while without a write (refreshed per reply:
# the worker's reply_ttl_s, by default REPLY_TTL_S).
REPLY_MAXLEN = 10_000
# A command's stored outcome is one field of its table's outcomes hash: a byte saying
# what follows (1: the command's SHA-256 digest, 32 bytes; 0: no digest), then the
# outcome's msgpack. One field per command, not an outcome field and a hex digest field:
# ~40 % less memory per command for every live table. An outcome stored as the msgpack
# map alone (it starts with 0x80-0x8f or 0xde/0xdf, never 0 or 1) has its digest in the
# field ``<command id>:digest``, which is still read.
_WITH_DIGEST = b"\x01"
_NO_DIGEST = b"\x00"

_APPEND_LUA = (Path(__file__).parent / "append.lua").read_text()
log = structlog.get_logger("orrery.store")
# How long a master's count of online replicas is trusted before it is asked again.
REPLICAS_CHECK_S = 1.0


class DurabilityTimeout(RedisError):
    """WAITAOF did not confirm the fsync in time: the command stays pending and is retried
    (the retry finds the stored outcome and waits for the fsync again)."""


class Settled(IntEnum):
    """What became of an appended command's entry: the script's third "ok" value, but
    ACKED, the store's reading of SETTLED when the script was not given the answer."""

    # the entry is still the intake's to answer, acknowledge and delete
    NOT_SETTLED = 0
    # answered, acknowledged and deleted by the append
    SETTLED = 1
    # acknowledged and deleted, but the reply stream refused the answer (the caller
    # dead-letters it)
    REPLY_REFUSED = 2
    # acknowledged and deleted, the answer is the caller's to send (a cluster)
    ACKED = 3


NOT_SETTLED = Settled.NOT_SETTLED
SETTLED = Settled.SETTLED
REPLY_REFUSED = Settled.REPLY_REFUSED
ACKED = Settled.ACKED


@dataclass(frozen=True, slots=True)
class AppendResult:
    status: Literal["ok", "dup", "conflict"]
    last_seq: int = 0
    stored_outcome: bytes = b""
    stored_digest: str = ""
    settled: Settled = NOT_SETTLED


@dataclass(frozen=True, slots=True)
class Settle:
    """The command entry an append settles when it can (:attr:`EventStore.settles`): its
    stream and id, its reply stream (None: nobody to answer), and the answer the append
    writes there; empty where the append does not answer (:meth:`EventStore.answers`:
    on a cluster, a reply stream in another slot), and then the intake answers."""

    stream: str
    entry_id: bytes
    reply_to: str | None
    reply: bytes


def outcome_record(outcome: bytes, digest: str) -> bytes:
    """The stored form of a command's outcome and its digest (hex, or '' for none)."""
    return _WITH_DIGEST + bytes.fromhex(digest) + outcome if digest else _NO_DIGEST + outcome


def read_outcome_record(stored: bytes, digest_field: bytes | None = None) -> tuple[bytes, str]:
    """A stored outcome and its digest (hex, '' for none); ``digest_field``: the
    ``<command id>:digest`` field, read for an outcome stored without its digest."""
    if stored[:1] == _WITH_DIGEST:
        return stored[33:], stored[1:33].hex()
    if stored[:1] == _NO_DIGEST:
        return stored[1:], ""
    return stored, (digest_field or b"").decode()


@dataclass(frozen=True, slots=True)
class PendingAppend:
    """Everything one command adds to a table, ready for the script."""

    table_id: str
    command_id: str
    expected_seq: int
    expected_hash: str
    phase: str
    outcome: bytes
    digest: str
    entries: list[tuple[str, bytes]]  # (hash, encoded envelope), in seq order
    recorded_at: int = 0
    settle: Settle | None = None  # used only when the store settles (EventStore.settles)


class EventStore:
    def __init__(
        self,
        redis: Any,
        partitions: int,
        snapshot_every: int = SNAPSHOT_EVERY,
        wait_aof_ms: int | None = None,
        wait_replicas: int | None = None,
        settings: WorkerSettings | None = None,
    ) -> None:
        settings = settings or WorkerSettings.from_env()
        # redis-py's reply types are unions of everything; the store knows each reply.
        self.redis: Any = redis
        self.partitions = partitions
        self.snapshot_every = snapshot_every
        self.wait_aof_ms = settings.wait_aof_ms if wait_aof_ms is None else wait_aof_ms
        self.wait_replicas = settings.wait_replicas if wait_replicas is None else wait_replicas
        self.wait_replicas_ms = settings.wait_replicas_ms
        self.reply_ttl_s = settings.reply_ttl_s
        self._append = redis.register_script(_APPEND_LUA)
        # the appends of one turn of the event loop (a read's entries) in one pipeline
        self._appends = ScriptTurns(redis, self._append)
        # Whether an append may settle its command entry (see the module's docstring).
        self.settles = not (self.wait_aof_ms or self.wait_replicas)
        self.cluster = hasattr(redis, "get_node_from_key")
        # node name -> (replicas online, when asked): see _replicas_to_wait_for
        self._online: dict[str, tuple[int, float]] = {}

    def partition(self, table_id: str) -> int:
        return keys.partition_of(table_id, self.partitions)

    def answers(self, table_id: str, reply_to: str | None) -> bool:
        """Whether the append writes the answer itself (when it settles): always on one
        server; on a cluster when the reply stream is in the table's slot, i.e. carries
        its partition's hash tag (the SDK's ``<reply stream>:{p}``)."""
        if not self.settles:
            return False
        if not self.cluster:
            return True
        return reply_to is not None and keys.hash_tag(reply_to) == str(self.partition(table_id))

    async def append(self, pending: PendingAppend) -> AppendResult:
        p = self.partition(pending.table_id)
        t = pending.table_id
        argv: list[Any] = [
            pending.command_id,
            pending.expected_seq,
            pending.expected_hash,
            outcome_record(pending.outcome, pending.digest),
            t,
            pending.phase,
            FEED_MAXLEN,
            pending.recorded_at,
        ]
        script_keys = [
            keys.meta_hash(p, t),
            keys.log_stream(p, t),
            keys.outcomes_hash(p, t),
            keys.feed_stream(p),
            keys.tables_set(p),
            keys.ended_zset(p),
        ]
        settle = pending.settle if self.settles else None
        answers = settle is not None and bool(settle.reply)
        if settle is None:
            argv += ["", "", "", "", 0, 0]
        else:
            script_keys.append(settle.stream)
            # the reply stream goes in ARGV: a worker may write it, not read it (append.lua);
            # none is given when it is in another slot: the script acks, the intake answers
            reply_to = (settle.reply_to or "") if answers else ""
            argv += [settle.entry_id, keys.DECIDERS_GROUP, reply_to, settle.reply]
            argv += [REPLY_MAXLEN, self.reply_ttl_s]
        for entry_hash, entry in pending.entries:
            argv += [entry_hash, entry]
        started = time.perf_counter()
        if self.wait_aof_ms or self.wait_replicas:
            reply = await self._append_durably(script_keys, argv)
        else:
            reply = await self._appends(script_keys, argv)
        metrics.observe_append(time.perf_counter() - started)
        status = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
        if status == "ok":
            settled = Settled(int(reply[2]))
            if settled == SETTLED and not answers:
                settled = ACKED
            return AppendResult("ok", last_seq=int(reply[1]), settled=settled)
        if status == "dup":
            outcome, digest = read_outcome_record(bytes(reply[1]), reply[2] or None)
            return AppendResult("dup", stored_outcome=outcome, stored_digest=digest)
        return AppendResult("conflict", last_seq=int(reply[1]))

    async def before_rejecting(
        self, table_id: str, command_id: str
    ) -> tuple[int, str, tuple[bytes, str] | None]:
        """The table's head (seq and hash) and the command id's stored outcome, in one
        round trip."""
        p = self.partition(table_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(keys.meta_hash(p, table_id), ["seq", "hash"])
        pipe.hmget(keys.outcomes_hash(p, table_id), [command_id, f"{command_id}:digest"])
        (seq, head), (outcome, digest) = await pipe.execute()
        stored = None if outcome is None else read_outcome_record(bytes(outcome), digest)
        return int(seq or 0), (head or b"").decode(), stored

    async def _append_durably(self, script_keys: list[str], argv: list[Any]) -> Any:
        """The script, then ``WAITAOF 1 0 <ms>`` and/or ``WAIT <replicas> <ms>``, on one
        connection (one pipeline, one node): they confirm this connection's writes."""
        target: dict[str, Any] = {}
        node: Any = None
        if hasattr(self.redis, "get_node_from_key"):  # a cluster: the slot's master
            await self.redis.initialize()  # (a no-op once the slot map is loaded)
            node = self.redis.get_node_from_key(script_keys[0])
            target["target_nodes"] = node
        replicas = await self._replicas_to_wait_for(node) if self.wait_replicas else 0
        pipe = self.redis.pipeline(transaction=False)
        pipe.eval(_APPEND_LUA, len(script_keys), *script_keys, *argv)
        if self.wait_aof_ms:
            pipe.execute_command("WAITAOF", 1, 0, self.wait_aof_ms, **target)
        if replicas:
            pipe.execute_command("WAIT", replicas, self.wait_replicas_ms, **target)
        reply, *confirmations = await pipe.execute()
        if node is not None and self.redis.get_node_from_key(script_keys[0]) is not node:
            # The slot moved while the pipeline ran (MOVED, a failover): the script ran
            # on another node than the confirmations, which then prove nothing.
            raise DurabilityTimeout("the slot moved during the append; not confirmed")
        if self.wait_aof_ms:
            fsynced_local, _replicas = confirmations.pop(0)
            if int(fsynced_local) < 1:
                raise DurabilityTimeout(f"WAITAOF: no local fsync within {self.wait_aof_ms} ms")
        if replicas and int(confirmations[0]) < replicas:
            # A replica may just have gone (a failover, a crash): ask again, and accept
            # when every replica still online has the append.
            online = await self._replicas_to_wait_for(node, fresh=True)
            if int(confirmations[0]) < online:
                raise DurabilityTimeout(
                    f"WAIT: {confirmations[0]} of {replicas} replicas within "
                    f"{self.wait_replicas_ms} ms"
                )
        return reply

    async def _replicas_to_wait_for(self, node: Any, fresh: bool = False) -> int:
        """``wait_replicas``, or fewer when the master has fewer replicas online (its
        ``INFO replication``, asked at most once a second per node)."""
        name = getattr(node, "name", "server")
        known = self._online.get(name)
        now = time.monotonic()
        if fresh or known is None or now - known[1] > REPLICAS_CHECK_S:
            target = {"target_nodes": node} if node is not None else {}
            info = await self.redis.info("replication", **target)
            online = sum(
                1
                for key, value in info.items()
                if key.startswith("slave")
                and isinstance(value, dict)
                and value.get("state") == "online"
            )
            if online < self.wait_replicas and (known is None or known[0] != online):
                log.warning(
                    "wait_replicas_degraded", node=name, online=online, wanted=self.wait_replicas
                )
            known = (online, now)
            self._online[name] = known
        return min(self.wait_replicas, known[0])

    async def store_rejection(
        self, table_id: str, command_id: str, outcome: bytes, digest: str
    ) -> None:
        """Remember a rejection so a retry of the same command id gets the same answer.

        Only for tables that exist: a rejection must not create keys for a table id
        nobody created.
        """
        p = self.partition(table_id)
        key = keys.outcomes_hash(p, table_id)
        await self.redis.hsetnx(key, command_id, outcome_record(outcome, digest))

    async def read_log(
        self, table_id: str, after_seq: int = 0, to_seq: int | None = None
    ) -> list[RawEnvelope]:
        p = self.partition(table_id)
        end = f"{to_seq}-0" if to_seq is not None else "+"
        entries = await self.redis.xrange(keys.log_stream(p, table_id), f"({after_seq}-0", end)
        return [decode_entry(fields[b"e"]) for _, fields in entries]

    async def load(self, table_id: str, *, use_snapshot: bool = True) -> TableState:
        """The table's current state: latest snapshot plus the log's tail."""
        state: TableState | None = None
        if use_snapshot:
            data = await self.redis.get(keys.snapshot_key(self.partition(table_id), table_id))
            if data is not None:
                state = decode_snapshot(data)
        if state is None:
            state = TableState(table_id=table_id)
        return await self.catch_up(state)

    async def catch_up(self, state: TableState) -> TableState:
        for envelope in await self.read_log(state.table_id, after_seq=state.seq):
            state = apply_entry(state, envelope)
        return state

    async def save_snapshot(self, state: TableState) -> None:
        p = self.partition(state.table_id)
        await self.redis.set(keys.snapshot_key(p, state.table_id), encode_snapshot(state))

    async def put_seed(self, table_id: str, seed: bytes) -> bytes:
        """Store a new table's secret seed unless one exists; returns the one in force."""
        key = keys.secret_key(self.partition(table_id), table_id)
        await self.redis.set(key, seed, nx=True)
        stored = await self.redis.get(key)
        return bytes(stored)

    async def archived(self, table_id: str) -> bool:
        """Whether the table was moved to the archive (its tombstone is here)."""
        return bool(await self.redis.exists(keys.tombstone_key(self.partition(table_id), table_id)))

    async def get_seed(self, table_id: str) -> bytes | None:
        stored = await self.redis.get(keys.secret_key(self.partition(table_id), table_id))
        return bytes(stored) if stored is not None else None
