"""The gateway and the bot runner work as the Redis users orrery-gateway and orrery-bots
of deploy/valkey/users.acl.template, with nothing more: a whole game, bots, replays, the
lobby, notices and readiness through a gateway connected as ``orrery-gateway`` and a bot
runner connected as ``orrery-bots``."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from typer.testing import CliRunner

from orrery.cli import app
from orrery_contracts import keys
from tests.support.gateway import (
    LiveGateway,
    live_gateway,
    next_frame,
    play_to_end,
    sign_up,
    unique,
)
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

PASSWORD = "gateway-test-password"


def acl_rules(user: str) -> list[str]:
    lines = (REPO / "deploy" / "valkey" / "users.acl.template").read_text().splitlines()
    (line,) = [line for line in lines if line.startswith(f"user {user} ")]
    # words, and selectors "( ... )" as one argument each
    rules = re.findall(r"\([^)]*\)|\S+", line)[2:]
    return [f">{PASSWORD}" if rule.startswith(">") else rule for rule in rules]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveGateway, str]]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-acl")), bots=False) as gateway:
        admin = redis.Redis.from_url(gateway.redis_url)
        for user in ("orrery-gateway", "orrery-bots"):
            admin.execute_command("ACL", "SETUSER", user, *acl_rules(user))
        admin.close()
        url = gateway.redis_url.replace("redis://", f"redis://orrery-gateway:{PASSWORD}@")
        gateway.start_bots(
            gateway.redis_url.replace("redis://", f"redis://orrery-bots:{PASSWORD}@")
        )
        yield gateway, gateway.start_gateway(redis_url=url)


async def test_the_gateway_needs_nothing_beyond_its_acl(live: tuple[LiveGateway, str]) -> None:
    gateway, url = live
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        assert (await http.get("/readyz")).status_code == 200
        ann = await sign_up(http, unique("Ann"))
        ben = await sign_up(http, unique("Ben"))
        # look-alike keys, the back-off after failed sign-ins: within the ACL too
        look_alike = {"name": ann.name.replace("A", "\u0410", 1), "password": "a good password"}
        assert (await http.post("/v1/players", json=look_alike)).status_code == 409
        wrong = {"name": ben.name, "password": "not the password"}
        for _ in range(6):
            assert (await http.post("/v1/sessions", json=wrong)).status_code == 401
        assert (await http.post("/v1/sessions", json=wrong)).status_code == 429
        table = (await ann.create_table("tiny", 3))["table_id"]
        private = await ann.create_table("tiny", 2, private=True)
        assert await ben.join(private["table_id"], invite=private["invite"]) == 0
        await ann.join(table)
        await ben.join(table)
        await ann.bot(table)
        assert (await ann.get("/v1/tables", game="tiny")).status_code == 200
        await ann.start(table)
        finals = await asyncio.gather(
            play_to_end(ann, table, via="http"), play_to_end(ben, table, via="ws")
        )
        assert all(f["phase"] == "finished" for f in finals)
        replay = await ben.get(f"/v1/tables/{table}/replay", at=3)
        assert replay.status_code == 200, replay.text
        by_step = await ben.get(f"/v1/tables/{table}/replay", step=2, **{"as": "spectator"})
        assert by_step.status_code == 200, by_step.text
        summary = await ben.get(f"/v1/tables/{table}")
        assert summary.status_code == 200 and summary.json()["finished_at"], summary.text
        # the table's chat: posted through the worker, read and pushed live by the gateway
        async with ben.live(table) as socket:
            await next_frame(socket)
            said = await ann.post(f"/v1/tables/{table}/chat", {"text": "gg"})
            assert said.status_code == 201, said.text
            while (frame := await next_frame(socket))["type"] != "chat":
                pass
            assert frame["text"] == "gg" and frame["seat"] == 0
        history = await ben.get(f"/v1/tables/{table}/chat")
        assert [m["text"] for m in history.json()["messages"]] == ["gg"]
        me = await ann.get("/v1/players/me")
        assert me.status_code == 200, me.text
        board = await ann.get("/v1/leaderboard/tiny")
        assert board.status_code == 200
        # the command line shows the same board, by the players' account names
        cli = await asyncio.to_thread(
            CliRunner().invoke,
            app,
            ["leaderboard", "tiny", "--json", "--redis-url", gateway.redis_url],
        )
        assert cli.exit_code == 0, cli.output
        shown = json.loads(cli.output)["entries"]
        assert [(e["player_id"], e["name"]) for e in shown] == [
            (e["player_id"], e["name"]) for e in board.json()["entries"]
        ]
        # the bot, of the default level, is rated beside them
        assert {e["player_id"] for e in shown} == {ann.player_id, ben.player_id, "bot:greedy"}
        notices = redis.Redis.from_url(gateway.redis_url)
        notices.xadd(keys.player_notice_stream(ann.player_id), {"__data__": json.dumps({"n": 1})})
        notices.close()
        async with ann.notices(after="0-0") as socket:
            # the projectors' own "your turn" notices of Ann's table come first, then ours
            first = await next_frame(socket)
            assert first["type"] == "your_turn" and first["table_id"] == table, first
            for _ in range(1000):
                if await next_frame(socket) == {"n": 1}:
                    break
            else:
                raise AssertionError("the notice written last never arrived")
    assert "NOPERM" not in gateway.logs()
