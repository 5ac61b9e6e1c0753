"""The event store and command handling against a real server (no transport)."""

from __future__ import annotations

import dataclasses
import hashlib

import msgspec
import pytest
import redis.asyncio as aioredis

from games.table import TableState, apply_entry
from orrery_client.sdk import new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Rejection, chain_hash, decode_entry
from orrery_contracts.table import CreateTable, JoinRequest, StartTable
from services.handling import CommandHandler
from services.intake import Intake
from services.store import (
    NOT_SETTLED,
    REPLY_REFUSED,
    REPLY_TTL_S,
    SETTLED,
    EventStore,
    PendingAppend,
    Settle,
    outcome_record,
    read_outcome_record,
)
from streams.batches import Batch
from tests.support.tables import envelope
from tests.support.tinygame import Draw, Stand

pytestmark = pytest.mark.service

P = 4


async def _seated_table(handler: CommandHandler, table: str, seats: int = 2) -> list[str]:
    created = await handler.handle(envelope(table, CreateTable(game="tiny", seats=seats)))
    assert isinstance(created.outcome, Accepted)
    tokens = []
    for s in range(seats):
        token = new_seat_token()
        joined = await handler.handle(envelope(table, JoinRequest(name=f"p{s}"), token=token))
        assert isinstance(joined.outcome, Accepted)
        assert joined.outcome.seat == s
        tokens.append(token)
    started = await handler.handle(envelope(table, StartTable(), seat=0, token=tokens[0]))
    assert isinstance(started.outcome, Accepted), started.outcome
    return tokens


async def test_append_semantics(redis_client: aioredis.Redis) -> None:
    store = EventStore(redis_client, P)
    handler = CommandHandler(store)
    await _seated_table(handler, "t1")
    state = await store.load("t1", use_snapshot=False)
    log = await store.read_log("t1")
    # explicit ids are the versions 1..n
    p = store.partition("t1")
    ids = [i for i, _ in await redis_client.xrange(keys.log_stream(p, "t1"))]
    assert ids == [f"{n}-0".encode() for n in range(1, len(log) + 1)]
    # hash chain
    prev = "0" * 64
    for entry in log:
        assert entry.prev_hash == prev
        assert entry.hash == chain_hash(entry)
        prev = entry.hash
    assert state.head_hash == prev
    # a stale expected version conflicts and writes nothing
    stale = PendingAppend(
        table_id="t1",
        command_id="x",
        expected_seq=state.seq - 1,
        expected_hash=state.head_hash,
        phase="playing",
        outcome=b"",
        digest="",
        entries=[("h", b"e")],
    )
    result = await store.append(stale)
    assert result.status == "conflict" and result.last_seq == state.seq
    assert len(await store.read_log("t1")) == len(log)


async def test_duplicate_command_id_returns_first_outcome(redis_client: aioredis.Redis) -> None:
    handler = CommandHandler(EventStore(redis_client, P))
    tokens = await _seated_table(handler, "t2")
    data = envelope("t2", Stand(), seat=0, token=tokens[0], command_id="same")
    first = await handler.handle(data)
    again = await handler.handle(data)
    assert isinstance(first.outcome, Accepted)
    assert isinstance(again.outcome, Duplicate) and again.outcome.original == first.outcome
    # a fresh handler (another worker) answers the same from Redis
    other = await CommandHandler(EventStore(redis_client, P)).handle(data)
    assert isinstance(other.outcome, Duplicate) and other.outcome.original == first.outcome
    # reusing the id for a different command is refused without the first outcome
    other_command = envelope("t2", Draw(), seat=1, token=tokens[1], command_id="same")
    reused = await handler.handle(other_command)
    assert isinstance(reused.outcome, Rejection) and reused.outcome.code == "command_id_reused"
    # one field per command: the outcome and its command's digest together
    stored = await redis_client.hgetall(keys.outcomes_hash(keys.partition_of("t2", P), "t2"))
    assert not [field for field in stored if field.endswith(b":digest")]
    outcome, digest = read_outcome_record(stored[b"same"])
    assert msgspec.msgpack.decode(outcome)["outcome"] == "accepted"
    assert len(digest) == 64 and int(digest, 16) >= 0


async def test_an_outcome_stored_with_a_separate_digest_is_still_read(
    redis_client: aioredis.Redis,
) -> None:
    """An outcome stored as its msgpack alone, its digest in ``<id>:digest``, answers a
    retry as the first outcome and refuses the id's reuse for another command."""
    handler = CommandHandler(EventStore(redis_client, P))
    tokens = await _seated_table(handler, "t5")
    data = envelope("t5", Stand(), seat=0, token=tokens[0], command_id="old")
    first = await handler.handle(data)
    assert isinstance(first.outcome, Accepted)
    key = keys.outcomes_hash(keys.partition_of("t5", P), "t5")
    outcome, digest = read_outcome_record(bytes(await redis_client.hget(key, "old")))
    assert len(digest) == 64
    await redis_client.hset(key, mapping={"old": outcome, "old:digest": digest})
    fresh = CommandHandler(EventStore(redis_client, P))
    again = await fresh.handle(data)
    assert isinstance(again.outcome, Duplicate) and again.outcome.original == first.outcome
    other = envelope("t5", Draw(), seat=1, token=tokens[1], command_id="old")
    reused = await fresh.handle(other)
    assert isinstance(reused.outcome, Rejection) and reused.outcome.code == "command_id_reused"


def test_outcome_records_round_trip() -> None:
    digest = hashlib.sha256(b"a command").hexdigest()
    assert read_outcome_record(outcome_record(b"\x81\xa1a\x01", digest)) == (
        b"\x81\xa1a\x01",
        digest,
    )
    assert read_outcome_record(outcome_record(b"\x80", "")) == (b"\x80", "")
    assert read_outcome_record(b"\x80", b"ab" * 32) == (b"\x80", "ab" * 32)


async def test_rejections(redis_client: aioredis.Redis) -> None:
    handler = CommandHandler(EventStore(redis_client, P))
    tokens = await _seated_table(handler, "t3")

    async def code(data: bytes) -> str:
        handled = await handler.handle(data)
        assert isinstance(handled.outcome, Rejection), handled.outcome
        return handled.outcome.code

    assert await code(b"{not json") == "malformed"
    # a broken envelope whose reply stream is readable still gets its answer there
    broken = b'{"command_id":"c9","table_id":"t3","reply_to":"orrery:reply:r1","body":1,"seat":"x"}'
    assert await code(broken) == "malformed"
    ((_, [(_, fields)]),) = await redis_client.xread({"orrery:reply:r1": 0})
    assert msgspec.json.decode(fields[b"__data__"])["code"] == "malformed"
    assert await code(envelope("nope", Stand(), seat=0, token="x")) == "no_such_table"
    assert await code(envelope("t3", Stand(), seat=0, token="wrong")) == "unauthorized"
    assert await code(envelope("t3", Stand(), seat=1, token=tokens[1])) == "not_your_turn"
    assert await code(envelope("bad id{", Stand())) == "bad_table_id"
    assert await code(envelope("t4", CreateTable(game="chess", seats=2))) == "unknown_game"
    assert await code(envelope("t4", CreateTable(game="tiny", seats=9))) == "bad_seats"
    assert await code(envelope("t3", CreateTable(game="tiny", seats=2))) == "table_exists"
    bad_body = b'{"command_id":"c","table_id":"t3","seat":0,"token":"%s","body":{"type":"x"}}'
    assert await code(bad_body % tokens[0].encode()) == "unknown_command"
    # nothing was written for the unknown table
    assert not await redis_client.exists(keys.meta_hash(keys.partition_of("nope", P), "nope"))


async def test_snapshot_plus_tail_equals_full_fold(redis_client: aioredis.Redis) -> None:
    store = EventStore(redis_client, P, snapshot_every=8)
    handler = CommandHandler(store)
    tables = [f"s{i}" for i in range(12)]
    for table in tables:
        tokens = await _seated_table(handler, table, seats=3)
        for _ in range(40):
            state = await store.load(table)
            if state.phase != "playing":
                break
            turn = state.game_state.turn
            await handler.handle(envelope(table, Draw(), seat=turn, token=tokens[turn]))
    for table in tables:
        full = TableState(table_id=table)
        for entry in await store.read_log(table):
            full = apply_entry(full, entry)
        assert await store.load(table) == full
        assert await store.load(table, use_snapshot=False) == full
    # snapshots exist exactly when some table grew past a snapshot boundary
    longest = max([(await store.load(t)).seq for t in tables])
    snaps = [await redis_client.exists(keys.snapshot_key(store.partition(t), t)) for t in tables]
    assert longest >= 8 and any(snaps)
    seqs = [(await store.load(t)).seq for t in tables]
    assert [bool(snap) for snap in snaps] == [seq >= 8 for seq in seqs]


async def test_log_entries_are_msgpack_envelopes(redis_client: aioredis.Redis) -> None:
    store = EventStore(redis_client, P)
    await _seated_table(CommandHandler(store), "t5")
    p = store.partition("t5")
    _, fields = (await redis_client.xrange(keys.log_stream(p, "t5"), count=1))[0]
    entry = decode_entry(fields[b"e"])
    assert entry.seq == 1 and entry.command is not None
    body = msgspec.msgpack.decode(entry.body)
    assert body["type"] == "table.created" and len(body["seed_commitment"]) == 64


async def test_an_append_settles_its_command_entry(redis_client: aioredis.Redis) -> None:
    """On a standalone server the append answers, acks and deletes the command entry in
    its script; a reply key that is not a stream is refused without undoing the append."""
    store = EventStore(redis_client, P)
    assert store.settles
    assert not EventStore(redis_client, P, wait_aof_ms=100).settles
    p = store.partition("s1")
    stream = keys.command_stream(p)
    await redis_client.xgroup_create(stream, keys.DECIDERS_GROUP, id="0", mkstream=True)

    async def read_entry() -> bytes:
        await redis_client.xadd(stream, {"__data__": b"{}"})
        read = await redis_client.xreadgroup(keys.DECIDERS_GROUP, "c", {stream: ">"}, count=1)
        return bytes(read[0][1][0][0])

    def pending(seq: int, reply_to: str | None, entry_id: bytes) -> PendingAppend:
        settle = Settle(stream, entry_id, reply_to, f"outcome {seq}".encode())
        return PendingAppend(
            table_id="s1",
            command_id=f"c{seq}",
            expected_seq=seq - 1,
            expected_hash="" if seq == 1 else f"h{seq - 1}",
            phase="playing",
            outcome=b"stored",
            digest="",
            entries=[(f"h{seq}", b"e")],
            settle=settle,
        )

    reply_to = "orrery:reply:test:settle"
    result = await store.append(pending(1, reply_to, await read_entry()))
    assert (result.status, result.settled) == ("ok", SETTLED)
    assert [f[b"__data__"] for _, f in await redis_client.xrange(reply_to)] == [b"outcome 1"]
    assert 0 < await redis_client.ttl(reply_to) <= REPLY_TTL_S
    assert await redis_client.xlen(stream) == 0
    assert (await redis_client.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0

    await redis_client.set("orrery:reply:test:not-a-stream", "x")
    refused = pending(2, "orrery:reply:test:not-a-stream", await read_entry())
    result = await store.append(refused)
    assert (result.status, result.settled) == ("ok", REPLY_REFUSED)
    assert await redis_client.xlen(keys.log_stream(p, "s1")) == 2  # the append stands
    assert (await redis_client.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0

    # a conflicting append settles nothing: the entry stays pending for a decision
    entry_id = await read_entry()
    stale = dataclasses.replace(pending(2, reply_to, entry_id), command_id="c-stale")
    result = await store.append(stale)
    assert (result.status, result.settled) == ("conflict", NOT_SETTLED)
    assert (await redis_client.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 1


async def test_intake_settles_through_the_append(redis_client: aioredis.Redis) -> None:
    """The intake's batch: an accepted command is answered by its append (no entry left),
    one whose reply key is not a stream is dead-lettered after it, with its token gone."""
    handler = CommandHandler(EventStore(redis_client, P))
    intake = Intake(redis_client, handler, consumer="c")
    await handler.handle(envelope("s2", CreateTable(game="tiny", seats=2)))
    stream = keys.command_stream(handler.store.partition("s2"))
    await redis_client.xgroup_create(stream, keys.DECIDERS_GROUP, id="0", mkstream=True)
    reply_to, refused_to = "orrery:reply:test:intake", "orrery:reply:test:intake-string"
    await redis_client.set(refused_to, "x")
    ann, bob = new_seat_token(), new_seat_token()
    for data in (
        envelope("s2", JoinRequest(name="Ann"), token=ann, reply_to=reply_to),
        envelope("s2", JoinRequest(name="Bob"), token=bob, reply_to=refused_to),
    ):
        await redis_client.xadd(stream, {"__data__": data})
    read = await redis_client.xreadgroup(keys.DECIDERS_GROUP, "c", {stream: ">"}, count=10)
    await intake.on_batch(handler.store.partition("s2"), Batch.of(stream, read[0][1]))
    replies = [msgspec.json.decode(f[b"__data__"]) for _, f in await redis_client.xrange(reply_to)]
    assert [(r["outcome"], r["seat"]) for r in replies] == [("accepted", 0)]
    assert await redis_client.xlen(stream) == 0
    assert (await redis_client.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0
    dead = await redis_client.xrange(keys.dead_letter_stream(handler.store.partition("s2")))
    assert [f[b"reason"] for _, f in dead] == [
        b"outcome accepted not delivered: reply_to is not a stream"
    ]
    assert bob.encode() not in dead[0][1][b"data"]
    state = await handler.store.load("s2")
    assert state.seq == 3  # both joins stand
