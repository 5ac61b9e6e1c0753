"""The event store and command handling against a real server (no transport)."""

from __future__ import annotations

import msgspec
import redis.asyncio as aioredis

from games.table import TableState, apply_entry
from orrery_client.sdk import new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Duplicate, Rejection, chain_hash, decode_entry
from orrery_contracts.table import CreateTable, JoinRequest, StartTable
from services.handling import CommandHandler
from services.store import EventStore, PendingAppend
from tests.support.tables import envelope
from tests.support.tinygame import Draw, Stand

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
