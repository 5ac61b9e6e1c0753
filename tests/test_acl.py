"""The shipped ACL file on the embedded server: each role runs with its own Redis user,
a trusted app plays a table (and chats as its seats) through the wire contract, and may
read nothing it should not (logs, seeds, snapshots, stored outcomes, command streams,
other apps' replies)."""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError, NoPermissionError, ResponseError

from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.credentials import (
    CREDENTIALS_FILE,
    ROLES,
    ensure_users,
    load_role_credentials,
    role_urls,
)
from orrery.server.embedded import EmbeddedServer
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Rejection
from projections.reverts import ViewCounts, tables_behind
from services.assignment import LIVE_KEY, Assignment
from tests.support.service import PARTITIONS, REPO

pytestmark = pytest.mark.service

DEPLOY = REPO / "deploy" / "valkey"
USERS = (*ROLES, "app", "admin", "replication")


class AclServer:
    def __init__(self, server: EmbeddedServer, passwords: dict[str, str]) -> None:
        self.server = server
        self.passwords = passwords

    def url(self, role: str) -> str:
        return f"redis://orrery-{role}:{self.passwords[role]}@127.0.0.1:{self.server.port}/0"


@pytest.fixture(scope="module")
def acl_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclServer]:
    folder = Path(tmp_path_factory.mktemp("acl"))
    passwords = {role: secrets.token_hex(16) for role in USERS}
    env = {**os.environ, **{f"ORRERY_{r.upper()}_PASSWORD": pw for r, pw in passwords.items()}}
    users = folder / "users.acl"
    subprocess.run(
        ["sh", str(DEPLOY / "render-acl.sh"), str(DEPLOY / "users.acl.template"), str(users)],
        env=env,
        check=True,
    )
    with EmbeddedServer(folder / "data", extra_args=["--aclfile", str(users)]) as server:
        yield AclServer(server, passwords)


def test_render_refuses_a_missing_password(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PASSWORD")}
    done = subprocess.run(
        ["sh", str(DEPLOY / "render-acl.sh"), str(DEPLOY / "users.acl.template"),
         str(tmp_path / "users.acl")],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode != 0 and "is not set" in done.stderr
    assert not (tmp_path / "users.acl").exists()


async def _refused(call: object) -> bool:
    try:
        await call  # type: ignore[misc]
    except NoPermissionError:
        return True
    except ResponseError as error:
        return str(error).startswith("NOPERM")
    return False


async def test_an_app_plays_through_the_wire_contract_and_reads_nothing_else(
    acl_server: AclServer,
) -> None:
    # nobody gets in without a user (one attempt: redis-py retries a refused login with
    # seconds of back-off)
    anonymous = aioredis.Redis(port=acl_server.server.port, retry=Retry(NoBackoff(), 0))
    with pytest.raises((ResponseError, AuthenticationError)):
        await anonymous.get(keys.CONFIG_KEY)
    await anonymous.aclose()

    await prepare(acl_server.url("admin"), PARTITIONS)
    env = {"PYTHONPATH": str(REPO), "ORRERY_LOG_LEVEL": "warning"}
    processes = [
        spawn("worker", acl_server.url("worker"), 0, env),
        spawn("projector", acl_server.url("projector"), 1, env),
    ]
    try:
        async with OrreryClient(acl_server.url("app"), reply_prefix="app") as app:
            table = await app.create_table("tiny", 2, table_id="acl-table")
            a = await app.join(table, "Ann")
            b = await app.join(table, "Bob")
            await app.start(a)
            rng = random.Random(3)
            finals = await asyncio.wait_for(
                asyncio.gather(play_seat(app, a, rng), play_seat(app, b, rng)), 60
            )
            assert all(view["phase"] == "finished" for view in finals)
            assert (await app.score(table) or {}).get("phase") in {"finished", "playing"}
            # the lobby and the leaderboard through the SDK, as the app user
            for _ in range(100):
                listed = await app.tables("finished", "tiny")
                if listed:
                    break
                await asyncio.sleep(0.1)
            assert [t.table_id for t in listed] == [table]
            assert [s.name for s in listed[0].players] == ["Ann", "Bob"]
            assert await app.leaderboard("tiny") == []  # anonymous seats are not rated
            # the table's chat: post as a seat (its secret, like any command), read it
            said = await app.say(a, "well played <b>Bob</b>")
            assert isinstance(said, Accepted) and said.chat_id
            messages = await app.chat(table)
            assert [(m.id, m.seat, m.name, m.text) for m in messages] == [
                (said.chat_id, a.seat, "Ann", "well played <b>Bob</b>")
            ]
            stolen = SeatCredentials(table, b.seat, a.token)  # another seat's secret
            refused_say = await app.say(stolen, "I am Bob")
            assert isinstance(refused_say, Rejection) and refused_say.code == "unauthorized"

            p = app.partition(table)
            r = app.redis
            refused = {
                "log": r.xrange(keys.log_stream(p, table)),
                "seed": r.get(keys.secret_key(p, table)),
                "snapshot": r.get(keys.snapshot_key(p, table)),
                "outcomes": r.hgetall(keys.outcomes_hash(p, table)),
                "meta": r.hgetall(keys.meta_hash(p, table)),
                "command stream": r.xrange(keys.command_stream(p)),
                "command stream read": r.xread({keys.command_stream(p): 0}),
                "feed": r.xrange(keys.feed_stream(p)),
                "dead letters": r.xrange(keys.dead_letter_stream(p)),
                "another app's replies": r.xrange("orrery:reply:other:1"),
                "a view, written": r.set(keys.view_key(p, table, 0), b"{}"),
                "a log, written": r.xadd(keys.log_stream(p, table), {"e": b"x"}),
                "a chat, written past the worker": r.xadd(
                    keys.chat_stream(p, table), {"__data__": b'{"seat": 1, "text": "x"}'}
                ),
                "scan": r.scan(0),
                "flushall": r.flushall(),
            }
            for what, call in refused.items():
                assert await _refused(call), f"the app user could {what}"
            # what it may do: views of any seat, the spectator, the leaderboard
            assert await r.get(keys.view_key(p, table, 0)) is not None
            assert await r.get(keys.view_key(p, table, None)) is not None

        # the projector may not read seeds, stored outcomes or commands either
        projector = aioredis.Redis.from_url(acl_server.url("projector"))
        p = keys.partition_of("acl-table", PARTITIONS)
        try:
            for call in (
                projector.get(keys.secret_key(p, "acl-table")),
                projector.xrange(keys.command_stream(p)),
                projector.hgetall(keys.outcomes_hash(p, "acl-table")),
            ):
                assert await _refused(call)
            # it may read what shows views that went back (projections/reverts.py;
            # a refusal raises)
            assert await ViewCounts(PARTITIONS).went_back(projector) == []
            assert set(await tables_behind(projector, p)) <= {"acl-table"}
        finally:
            await projector.aclose()
        assert all(process.poll() is None for process in processes)
    finally:
        stop_processes(processes)


async def test_the_worker_user_may_beat_for_the_partition_assignment(
    acl_server: AclServer,
) -> None:
    # The beat script reads the server's clock (TIME): without it the workers never
    # share the partitions out (each would read every one).
    redis = aioredis.Redis.from_url(acl_server.url("worker"))
    try:
        assignment = Assignment(PARTITIONS, "decider-acl-test")
        assert await assignment.beat(redis) == set(range(PARTITIONS))
        assert await redis.hexists(LIVE_KEY, "decider-acl-test")
    finally:
        await redis.hdel(LIVE_KEY, "decider-acl-test")
        await redis.aclose()


# ----------------------------------------------------------- the embedded server's users


@pytest.fixture(scope="module")
def folder_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The embedded server as ``orrery serve`` starts it: the folder's ACL users."""
    folder = Path(tmp_path_factory.mktemp("folder"))
    with EmbeddedServer(folder, users=ensure_users(folder)) as server:
        yield server.url, folder


async def _allowed(call: object) -> bool:
    try:
        await call  # type: ignore[misc]
    except ResponseError:
        return False
    return True


async def test_each_role_of_serve_has_its_own_user_that_may_do_only_its_part(
    folder_server: tuple[str, Path],
) -> None:
    operator_url, folder = folder_server
    urls = role_urls(operator_url, folder)
    assert set(urls) == set(ROLES)
    p, table = 0, "x"
    log, seed = keys.log_stream(p, table), keys.secret_key(p, table)
    meta, view = keys.meta_hash(p, table), keys.view_key(p, table, 0)
    admin = aioredis.Redis.from_url(operator_url)
    await prepare(operator_url, PARTITIONS)
    await admin.xadd(log, {"__data__": b"{}"}, id="1-0")
    await admin.set(seed, b"the seed")
    await admin.hset(meta, mapping={"seq": 1, "phase": "finished"})
    await admin.set(view, b"{}")
    append = await admin.script_load((REPO / "services" / "append.lua").read_text())
    clients = {
        role: aioredis.Redis.from_url(url, retry=Retry(NoBackoff(), 0))
        for role, url in urls.items()
    }
    try:
        for role, client in clients.items():  # each signs in as its own user
            assert urls[role].startswith(f"redis://orrery-{role}:") and await client.ping()
        gateway, projector = clients["gateway"], clients["projector"]
        refused = {
            "gateway": {
                "FLUSHALL": gateway.flushall(),
                "CONFIG GET": gateway.config_get("*"),
                "XADD to a log": gateway.xadd(log, {"__data__": b"{}"}),
                "EVALSHA of the append script": gateway.evalsha(
                    append,
                    6,
                    meta,
                    log,
                    keys.outcomes_hash(p, table),
                    keys.feed_stream(p),
                    keys.tables_set(p),
                    keys.ended_zset(p),
                ),
                "EVAL": gateway.eval("return 1", 0),
                "FCALL": gateway.fcall("append", 1, log),
                "GET a seed": gateway.get(seed),
                "a table's meta": gateway.hgetall(meta),
                "the bots' replies": gateway.xrange("orrery:reply:bots:1"),
            },
            "projector": {
                "XADD to a log": projector.xadd(log, {"__data__": b"{}"}),
                "GET a seed": projector.get(seed),
                "a command stream": projector.xrange(keys.command_stream(p)),
            },
            "worker": {
                "GET a view": clients["worker"].get(view),
                "FLUSHALL": clients["worker"].flushall(),
            },
            "timekeeper": {
                "a log": clients["timekeeper"].xrange(log),
                "GET a seed": clients["timekeeper"].get(seed),
            },
            "archiver": {
                "a command stream": clients["archiver"].xadd(keys.command_stream(p), {"a": 1}),
                "an account": clients["archiver"].get("orrery:{acct}:name:ann"),
                "FLUSHALL": clients["archiver"].flushall(),
            },
            "bots": {
                "a log": clients["bots"].xrange(log),
                "GET a seed": clients["bots"].get(seed),
                "an account": clients["bots"].get("orrery:{acct}:name:ann"),
                "the gateway's replies": clients["bots"].xrange("orrery:reply:gw:1"),
                "the spectator view": clients["bots"].get(keys.view_key(p, table, None)),
            },
        }
        for role, calls in refused.items():
            for what, call in calls.items():
                assert await _refused(call), f"the {role} user could {what}"
        allowed = {
            "worker": [
                clients["worker"].xrange(log),
                clients["worker"].get(seed),
                clients["worker"].xadd("orrery:reply:gw:1", {"__data__": b"{}"}),
            ],
            "projector": [projector.xrange(log), projector.set(view, b"{}")],
            "timekeeper": [
                clients["timekeeper"].zrangebyscore(keys.deadlines_zset(p), 0, 1),
                clients["timekeeper"].xadd(keys.command_stream(p), {"__data__": b"{}"}),
            ],
            "archiver": [
                clients["archiver"].xrange(log),
                clients["archiver"].hgetall(meta),
                clients["archiver"].zrange(keys.ended_zset(p), 0, -1),
                clients["archiver"].delete(keys.snapshot_key(p, table)),
            ],
            "gateway": [
                gateway.get(view),
                gateway.xrange(log),  # replays, folded in the process
                gateway.set("orrery:{acct}:name:ann", b"1"),
                gateway.smembers("orrery:bots"),
            ],
            "bots": [
                clients["bots"].get(view),
                clients["bots"].smembers("orrery:bots"),
                clients["bots"].set("orrery:bots:lease:x|0", b"me", px=1000),
                clients["bots"].xadd(keys.command_stream(p), {"__data__": b"{}"}),
            ],
        }
        for role, oks in allowed.items():
            for call in oks:
                assert await _allowed(call), f"the {role} user was refused"
        assert await admin.get(seed) == b"the seed"
    finally:
        for client in [admin, *clients.values()]:
            await client.aclose()


def test_a_folder_from_before_role_users_gets_them_at_its_next_start(tmp_path: Path) -> None:
    import json

    import redis as sync_redis

    operator, acl = ensure_users(tmp_path)
    with EmbeddedServer(tmp_path, users=(operator, acl)) as server:
        sync_redis.Redis.from_url(server.url).set("orrery:kept", b"1")
    # the folder as it was before: the operator alone
    credentials = tmp_path / CREDENTIALS_FILE
    credentials.write_text(
        json.dumps({"username": operator.username, "password": operator.password})
    )
    admin = f"user {operator.username} on >{operator.password} ~* &* +@all"
    acl.write_text(f"user default off ~* &* +@all\n{admin}\n")
    again, acl = ensure_users(tmp_path)
    assert again == operator
    assert set(load_role_credentials(tmp_path)) == set(ROLES)
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    with EmbeddedServer(tmp_path, users=(again, acl)) as server:
        assert sync_redis.Redis.from_url(server.url).get("orrery:kept") == b"1"
        for role, url in role_urls(server.url, tmp_path).items():
            assert url.startswith(f"redis://orrery-{role}:")
            assert sync_redis.Redis.from_url(url).ping()
    # its next start keeps them
    roles = load_role_credentials(tmp_path)
    assert ensure_users(tmp_path)[0] == operator
    assert load_role_credentials(tmp_path) == roles
