"""Replays through the gateway, seq by seq: a finished Federation game and a finished
Fractured Sky game (both have commands whose events pass through states nobody ever
saw: Federation's automatic steps, Fractured Sky's start before its set-up), replayed
at every seq 0..last as a seat, as that seat asking for the spectator's view, and as
a spectator. Every answer is 200 and equals, byte for byte in content, the view that
viewer's projected (live) view held after the command holding that seq; the answer's
``replay`` member says where it stands. Plus steps, the refusals, the table summary.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from gateway.crypto import seat_secret
from gateway.wire import GatewayClient
from orrery_contracts import keys
from tests.support.gateway import NOT_MOVES, LiveGateway, Player, sign_up, unique

pytestmark = pytest.mark.gateway

SEATS = 2
VIEWERS: tuple[int | None, ...] = (None, *range(SEATS))


@pytest.fixture
async def client(live: LiveGateway) -> AsyncIterator[GatewayClient]:
    client = GatewayClient(live.redis_url)
    await client.connect(timeout=10)
    try:
        yield client
    finally:
        await client.close()


def error_of(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) >= {"error", "message"} and "Traceback" not in response.text, body
    code: str = body["error"]
    return code


class Recorder:
    """Every viewer's projected view after each command (only this test sends commands
    to its table, and waits for each one's views before the next)."""

    def __init__(self, client: GatewayClient, table: str) -> None:
        self.client = client
        self.table = table
        self.seen: dict[int, dict[int | None, dict[str, Any]]] = {}

    async def record(self, seq: int | None = None) -> dict[int | None, dict[str, Any]]:
        if seq is not None:
            assert await self.client.wait_projected(self.table, seq, 30)
        p = self.client.partition(self.table)
        raws = await self.client.redis.mget(
            [keys.view_key(p, self.table, viewer) for viewer in VIEWERS]
        )
        views = {viewer: json.loads(raw) for viewer, raw in zip(VIEWERS, raws, strict=True)}
        at = views[None]["seq"]
        assert seq is None or at == seq
        assert all(view["seq"] == at for view in views.values())
        self.seen[at] = views
        return views


async def play_recorded(
    players: list[Player], client: GatewayClient, game: str
) -> tuple[str, Recorder]:
    """A whole game of two accounts, every command over HTTP, every command's views kept."""
    ada, bob = players
    table = (await ada.create_table(game, SEATS))["table_id"]
    recorder = Recorder(client, table)
    await recorder.record()
    assert await ada.join(table) == 0
    await recorder.record()
    assert await bob.join(table) == 1
    await recorder.record()
    started = await ada.start(table)
    views = await recorder.record(started["last_seq"])
    rng = random.Random(f"{game}-replay")
    for _ in range(5_000):
        if views[None]["phase"] != "playing":
            break
        seat = rng.choice(views[None]["to_move"])
        moves = [c for c in views[seat]["legal"] if c["type"] not in NOT_MOVES]
        sent = await players[seat].command(table, rng.choice(moves), uuid.uuid4().hex)
        assert sent.status_code == 200, sent.text
        views = await recorder.record(sent.json()["last_seq"])
    assert views[None]["phase"] == "finished"
    return table, recorder


def without_replay(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "replay"}


@pytest.mark.parametrize("game", ["federation", "fractured_sky"])
async def test_every_seq_replays_what_each_viewer_saw_after_that_command(
    live: LiveGateway, client: GatewayClient, game: str
) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ada = await sign_up(http, unique("Ada"))
        bob = await sign_up(http, unique("Bob"))
        eve = await sign_up(http, unique("Eve"))
        table, recorder = await play_recorded([ada, bob], client, game)
        seen = recorder.seen
        ends = sorted(seen)
        last = ends[-1]
        # some commands hold several events (the case that answered 500 before)
        assert last > len(ends)
        path = f"/v1/tables/{table}/replay"
        asked: list[tuple[int, Player, dict[str, str], int | None]] = []
        for at in range(last + 1):
            asked += [(at, ada, {}, 0), (at, eve, {}, None)]
            if at in seen:  # (as the spectator: once per command)
                asked.append((at, ada, {"as": "spectator"}, None))

        async def check(at: int, who: Player, extra: dict[str, str], viewer: int | None) -> None:
            step = bisect.bisect_left(ends, at) + 1 if at else 0
            end = ends[step - 1] if step else 0
            response = await who.get(path, at=at, **extra)
            assert response.status_code == 200, (at, response.text)
            document = response.json()
            assert document["seq"] == end and document["viewer"] == viewer
            assert document["replay"] == {
                "at": at,
                "seq": end,
                "first_seq": ends[step - 2] + 1 if step >= 2 else step,
                "step": step,
                "steps": len(ends),
                "prev_seq": None if step == 0 else (ends[step - 2] if step >= 2 else 0),
                "next_seq": ends[step] if step < len(ends) else None,
                "last_seq": last,
            }, at
            if step == 0:  # seq 0: the table before its first event
                assert document["phase"] == "none" and document["view"] is None
            else:
                assert without_replay(document) == seen[end][viewer], (at, viewer)

        for i in range(0, len(asked), 8):
            await asyncio.gather(*(check(*one) for one in asked[i : i + 8]))
        # by step: each one move, the same views
        for n in (1, len(ends) // 2, len(ends)):
            by_step = (await ada.get(path, step=n)).json()
            assert by_step["seq"] == ends[n - 1] and by_step["replay"]["step"] == n
            assert without_replay(by_step) == seen[ends[n - 1]][0]
        now = (await ada.get(path)).json()
        assert now["seq"] == last and now["replay"]["at"] == last
        # refusals: stable codes, never a 500
        refusals: list[tuple[dict[str, Any], int, str]] = [
            ({"at": last + 1}, 404, "no_such_seq"),
            ({"step": len(ends) + 1}, 404, "no_such_step"),
            ({"at": -1}, 422, "bad_seq"),
            ({"step": -1}, 422, "bad_seq"),
            ({"at": 1, "step": 1}, 422, "bad_seq"),
            ({"at": 1, "as": "seat 1"}, 422, "bad_viewer"),
        ]
        for params, status, code in refusals:
            refused = await ada.get(path, **params)
            assert refused.status_code == status and error_of(refused) == code, params
        assert (await ada.get(path, at="x")).status_code in (400, 422)
        missing = await ada.get("/v1/tables/no-such-table/replay", at=1)
        assert missing.status_code == 404 and error_of(missing) == "no_such_table"
        # the summary of the finished table: public facts only
        summary = (await eve.get(f"/v1/tables/{table}")).json()
        assert summary["phase"] == "finished" and summary["state"] == "finished"
        assert summary["seq"] == last and summary["to_move"] == []
        assert summary["finished_at"] >= summary["created_at"] > 0


async def test_table_summary_follows_the_table(live: LiveGateway, client: GatewayClient) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ada = await sign_up(http, unique("Ada"))
        bob = await sign_up(http, unique("Bob"))
        eve = await sign_up(http, unique("Eve"))
        table = (await ada.create_table("fractured_sky", 3, {"difficulty": "easy"}))["table_id"]
        await ada.join(table)
        await bob.join(table, seat=2)
        summary = (await eve.get(f"/v1/tables/{table}")).json()
        assert summary == {
            "table_id": table,
            "game": "fractured_sky",
            "seats": 3,
            "players": [
                {
                    "seat": 0,
                    "name": ada.name,
                    "player_id": ada.player_id,
                    "bot": False,
                    "left": False,
                    "bot_level": None,
                    "taken_over": False,
                },
                {
                    "seat": 2,
                    "name": bob.name,
                    "player_id": bob.player_id,
                    "bot": False,
                    "left": False,
                    "bot_level": None,
                    "taken_over": False,
                },
            ],
            "state": "open",
            "options": {"difficulty": "easy"},
            "created_at": summary["created_at"],
            "private": False,
            "bots": [],
            "open_seats": [1],
            "phase": "lobby",
            "game_phase": summary["game_phase"],
            "round": 0,
            "to_move": [],
            "seq": 3,
            "finished_at": None,
        }
        # the seat secrets the gateway derives, and the table's seed, appear nowhere
        seed = bytes(await client.redis.get(keys.secret_key(client.partition(table), table)))
        text = (await eve.get(f"/v1/tables/{table}")).text
        secrets = [seat_secret(live.key, table, s, p.player_id) for s, p in ((0, ada), (2, bob))]
        assert seed and all(secret not in text for secret in [seed.hex(), *secrets])
        assert await ada.bot(table) == 1
        started = await ada.start(table)
        playing = (await eve.get(f"/v1/tables/{table}")).json()
        assert playing["state"] == "playing" and playing["phase"] == "playing"
        assert playing["bots"] == [1] and playing["open_seats"] == []
        assert playing["to_move"] and playing["seq"] == started["last_seq"]
        assert [p["player_id"] for p in playing["players"]] == [ada.player_id, None, bob.player_id]
        missing = await eve.get("/v1/tables/no-such-table")
        assert missing.status_code == 404 and error_of(missing) == "no_such_table"
        head = await http.head("/")
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-type"].startswith("text/html")
        assert int(head.headers["content-length"]) == len((await http.get("/")).content)
