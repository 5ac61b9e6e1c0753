"""Two worker processes, a crashed worker, and projection rebuilds, against a real server."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gateway.wire import GatewayClient
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient, new_seat_token
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Rejection, decode_entry
from orrery_contracts.table import CreateTable, JoinRequest, StartTable
from projections.rebuild import read_model_keys, rebuild
from tests.support.gateway import verified_join
from tests.support.service import PARTITIONS, LiveService, live_service
from tests.support.tinygame import Draw, Stand

pytestmark = pytest.mark.service

SECRET_KEY = "two-workers-test-key"


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(
        Path(tmp_path_factory.mktemp("two")),
        workers=2,
        ORRERY_CLAIM_IDLE_MS="1000",
        ORRERY_SECRET_KEY=SECRET_KEY,
    ) as service:
        yield service


async def _log(client: OrreryClient, table_id: str) -> list[Any]:
    stream = keys.log_stream(client.partition(table_id), table_id)
    return [(i, decode_entry(f[b"e"])) for i, f in await client.redis.xrange(stream)]


def _check_exactly_once(log: list[Any], accepted: dict[str, Accepted]) -> None:
    """Seqs are 1..n without gaps; every accepted command owns exactly its seq range."""
    assert [i for i, _ in log] == [f"{n}-0".encode() for n in range(1, len(log) + 1)]
    runs: dict[str, list[int]] = defaultdict(list)
    for _, entry in log:
        runs[entry.command_id].append(entry.seq)
    for command_id, seqs in runs.items():
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), command_id
    for command_id, outcome in accepted.items():
        assert runs[command_id] == list(range(outcome.first_seq, outcome.last_seq + 1))
    assert set(runs) == set(accepted)


async def test_concurrent_commands_on_one_table_apply_once(two_workers: LiveService) -> None:
    async with OrreryClient(two_workers.url) as client, OrreryClient(two_workers.url) as other:
        for t in range(6):
            table = f"race-{t}"
            accepted: dict[str, Accepted] = {}
            create = await client.accept(table, CreateTable(game="tiny", seats=4))
            accepted[create.command_id] = create
            # Four joins at once, each also retried at once through a second client:
            # both workers race on the same table and the same command ids.
            ids = [uuid.uuid4().hex for _ in range(4)]
            secrets = [new_seat_token() for _ in range(4)]
            sends = [
                c.submit(table, JoinRequest(name=f"p{i}"), command_id=ids[i], token=secrets[i])
                for i in range(4)
                for c in (client, other)
            ]
            outcomes = await asyncio.gather(*sends)
            for outcome in outcomes:
                assert isinstance(outcome, Accepted), outcome
                accepted[outcome.command_id] = outcome
            tokens = {o.seat: secrets[ids.index(o.command_id)] for o in outcomes}
            assert sorted(tokens) == [0, 1, 2, 3]
            # Everyone tries to move at once, every turn; only the seat to move succeeds.
            start = await client.accept(table, StartTable(), seat=0, token=tokens[0])
            accepted[start.command_id] = start
            for _ in range(30):
                moves = [
                    client.submit(table, random.choice([Draw(), Stand()]), seat=s, token=tokens[s])
                    for s in range(4)
                ]
                results = await asyncio.gather(*moves)
                for outcome in results:
                    if isinstance(outcome, Accepted):
                        accepted[outcome.command_id] = outcome
                    else:
                        assert isinstance(outcome, Rejection)
                        assert outcome.code in {"not_your_turn", "game_over"}
                if all(isinstance(r, Rejection) and r.code == "game_over" for r in results):
                    break
            _check_exactly_once(await _log(client, table), accepted)


@pytest.fixture
def crashing(tmp_path: Path) -> Iterator[LiveService]:
    """Two workers that SIGKILL themselves after appending a command id starting "crash-",
    confirming each append's fsync (WAITAOF): with a durability option the append does
    not settle its entry, so the crash comes between the append and the answer."""
    with live_service(
        tmp_path,
        workers=2,
        ORRERY_CLAIM_IDLE_MS="800",
        ORRERY_FAULT_KILL_AFTER_APPEND="crash-",
        ORRERY_WAIT_AOF_MS="2000",
    ) as service:
        yield service


@pytest.fixture
def crashing_settled(tmp_path: Path) -> Iterator[LiveService]:
    """The same crash with the defaults: the append answers and acks the entry itself."""
    with live_service(
        tmp_path, workers=2, ORRERY_CLAIM_IDLE_MS="800", ORRERY_FAULT_KILL_AFTER_APPEND="crash-"
    ) as service:
        yield service


async def _join_once(client: OrreryClient) -> tuple[str, JoinRequest, str, Accepted]:
    """A join sent once ("crash-join": the worker that appends it kills itself)."""
    table = await client.create_table("tiny", 2, table_id="crash-table")
    secret = new_seat_token()
    join = JoinRequest(name="Ann")
    outcome = await client.submit(
        table, join, command_id="crash-join", attempts=1, timeout=30, token=secret
    )
    assert isinstance(outcome, Accepted) and outcome.seat == 0
    return table, join, secret, outcome


async def _carries_on(
    client: OrreryClient, table: str, join: JoinRequest, secret: str, outcome: Accepted
) -> None:
    """Applied once; the survivor carries on, and a retry of the same id is a duplicate."""
    log = await _log(client, table)
    assert [e.command_id for _, e in log].count("crash-join") == 1
    again = await client.submit(table, join, command_id="crash-join", token=secret)
    assert again == outcome
    raw = await client.redis.hget(keys.outcomes_hash(client.partition(table), table), "crash-join")
    assert raw is not None
    bob = await client.join(table, "Bob")
    assert bob.seat == 1


async def test_worker_killed_after_a_settling_append(crashing_settled: LiveService) -> None:
    live = crashing_settled
    async with OrreryClient(live.url) as client:
        # One attempt only, and no claimer needed: the append itself answered.
        table, join, secret, outcome = await _join_once(client)
        workers = live.processes[:2]
        for _ in range(100):  # the worker dies right after its append answered
            if any(p.poll() is not None for p in workers):
                break
            await asyncio.sleep(0.1)
        assert sum(p.poll() is not None for p in workers) == 1
        stream = keys.command_stream(client.partition(table))
        # answered, acked and deleted with the append: nothing left for a claimer
        assert (await client.redis.xpending(stream, keys.DECIDERS_GROUP))["pending"] == 0
        assert await client.redis.xlen(stream) == 0
        await _carries_on(client, table, join, secret, outcome)


async def test_worker_killed_between_append_and_ack(crashing: LiveService) -> None:
    live = crashing
    async with OrreryClient(live.url) as client:
        # One attempt only: the outcome can come from nowhere but the claimer.
        table, join, secret, outcome = await _join_once(client)
        workers = live.processes[:2]
        assert sum(p.poll() is not None for p in workers) == 1
        await _carries_on(client, table, join, secret, outcome)


async def _read_models(redis: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in await read_model_keys(redis, PARTITIONS):
        kind = (await redis.type(key)).decode()
        if kind == "string":
            found[key] = await redis.get(key)
        elif kind == "hash":
            found[key] = await redis.hgetall(key)
        elif kind == "zset":
            found[key] = await redis.zrange(key, 0, -1, withscores=True)
        elif kind != "none":
            raise AssertionError(f"{key} is a {kind}")
    return found


async def test_rebuild_equals_live_projection(two_workers: LiveService) -> None:
    async with GatewayClient(two_workers.url) as client:
        rng = random.Random(3)

        async def one(i: int) -> None:
            # Ratings follow verified players only: these joins carry signed identities.
            table = await client.create_table("tiny", 3, table_id=f"rb-{i}")
            seats = [
                await verified_join(client, SECRET_KEY, table, f"P{(i + s) % 5}", f"p{(i + s) % 5}")
                for s in range(3)
            ]
            await client.start(seats[0])
            bots = (play_seat(client, s, random.Random(rng.random())) for s in seats)
            await asyncio.gather(*bots)

        for batch in range(3):
            await asyncio.gather(*(one(batch * 4 + i) for i in range(4)))
        # wait until the scoreboard shows every table finished
        for _ in range(200):
            scores = [await client.score(f"rb-{i}") for i in range(12)]
            if all(s and s["phase"] == "finished" for s in scores):
                break
            await asyncio.sleep(0.05)
        live_models = await _read_models(client.redis)
        assert any(k.startswith("orrery:{lb}:rating:tiny") for k in live_models)
        assert any(k.startswith("orrery:{lobby}:table:rb-") for k in live_models)
        assert any(k.startswith("orrery:{lobby}:player:p") for k in live_models)
        await rebuild(client.redis, PARTITIONS)
        assert await _read_models(client.redis) == live_models


def test_the_partitions_are_shared_out_once() -> None:
    from services.assignment import assigned

    for n in range(1, 6):
        live = [f"worker-{i}" for i in range(n)]
        owned = [assigned(16, live, me) for me in live]
        assert sorted(p for mine in owned for p in mine) == list(range(16))
        assert max(map(len, owned)) - min(map(len, owned)) <= 1
    # a worker not yet in the list counts itself in
    assert assigned(4, ["a"], "b") == {1, 3}


def test_a_killed_workers_partitions_are_taken_over(tmp_path: Path) -> None:
    """Two workers read half the partitions each; when one is killed (no goodbye), the
    other reads its partitions too once its beat is too old: every partition answers."""
    with live_service(tmp_path, workers=2, ORRERY_WORKER_TTL_S="2") as live:
        asyncio.run(_take_over(live))


async def _take_over(live: LiveService) -> None:
    from services.assignment import LIVE_KEY

    async with OrreryClient(live.url) as client:
        tables: dict[int, str] = {}
        for i in range(200):
            tables.setdefault(client.partition(f"take-{i}"), f"take-{i}")
            if len(tables) == PARTITIONS:
                break
        for table_id in tables.values():
            await client.create_table("tiny", 2, table_id=table_id)
        for _ in range(300):
            if await client.redis.hlen(LIVE_KEY) == 2:
                break
            await asyncio.sleep(0.05)
        assert await client.redis.hlen(LIVE_KEY) == 2
        killed = live.processes[0]
        killed.kill()
        killed.wait()
        # every partition answers (the dead worker's ones after the takeover)
        for table_id in tables.values():
            outcome = await client.submit(
                table_id, JoinRequest(name="Ann"), token=new_seat_token(), timeout=60
            )
            assert isinstance(outcome, Accepted)
        for _ in range(300):
            if await client.redis.hlen(LIVE_KEY) == 1:
                break
            await asyncio.sleep(0.05)
        assert await client.redis.hlen(LIVE_KEY) == 1
