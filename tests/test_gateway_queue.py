"""Quick play over HTTP and the WebSocket, against a real service, a real gateway and a
real matchmaker process: queued players land on started tables of rating neighbours,
blocked players never share one, a lone ticket that welcomes bots gets them, a party
sits together, a ticket can be cancelled, a realtime ticket expires once its player's
socket is gone, a resubmitted ticket is the same ticket, each bad request gets its
refusal, and the matchmaking log's audit re-derives every decision."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest

from orrery_contracts import keys
from tests.support.gateway import LiveGateway, Player, error_of, live_gateway, sign_up
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

GAME = "fractured_sky"
FAST = {
    "ORRERY_MATCHMAKER_LEASE_MS": "2000",
    "ORRERY_MATCHMAKER_CYCLE_S": "0.2",
    "ORRERY_QUEUE_OFFLINE_S": "2",
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    # presence lasting 3 s: a closed socket's player is offline within seconds
    with live_gateway(tmp_path_factory.mktemp("queue"), ORRERY_PRESENCE_TTL_S="3") as live:
        live.service.start("matchmaker", ORRERY_SECRET_KEY=live.key, **FAST)
        yield live


async def players(stack: LiveGateway, http: httpx.AsyncClient, count: int) -> list[Player]:
    run = uuid.uuid4().hex[:6]
    return [await sign_up(http, f"q{run}{i}") for i in range(count)]


def rate(stack: LiveGateway, player: Player, mu: float, sigma: float = 50.0) -> None:
    stack.service.sync_redis().hset(
        keys.ratings_key(GAME),
        player.player_id,
        json.dumps({"mu": mu, "sigma": sigma, "games": 5}),
    )


async def queue(player: Player, **body: Any) -> dict[str, Any]:
    answer = await player.post(
        "/v1/queue", {"game": GAME, "seats": 3, "pace": "turn_based", **body}
    )
    assert answer.status_code == 201, answer.text
    ticket: dict[str, Any] = answer.json()
    assert ticket["state"] in ("waiting", "matched") and ticket["estimated_wait_s"] >= 0
    return ticket


async def settled(player: Player, ticket_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """The ticket once it is no longer waiting."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await player.get(f"/v1/queue/{ticket_id}")
        assert answer.status_code == 200, answer.text
        ticket: dict[str, Any] = answer.json()
        if ticket["state"] != "waiting":
            return ticket
        assert time.monotonic() < deadline, f"ticket {ticket_id} still waiting"
        await asyncio.sleep(0.1)


async def matched_frame(socket: Any) -> dict[str, Any]:
    """The first ``matched`` notice on a player's live socket (a "your turn" may come
    too: the table is running)."""
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if frame["type"] == "matched":
            return frame


def client(stack: LiveGateway) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=stack.url, timeout=30.0)


async def test_twelve_players_land_on_four_started_tables_of_rating_neighbours(
    stack: LiveGateway,
) -> None:
    async with client(stack) as http:
        people = await players(stack, http, 12)
        # four groups of three neighbours, each group far beyond the others' bands for
        # longer than any test waits: whichever tickets a pass sees first (they arrive
        # one by one), it can only seat a group together
        for i, player in enumerate(people):
            rate(stack, player, 1000 + 500 * (i // 3) + 10 * (i % 3))
        async with people[0].notices() as socket:
            tickets = await asyncio.gather(*(queue(p) for p in reversed(people)))
            frame = await matched_frame(socket)
        mine = {t["ticket_id"]: p for t, p in zip(tickets, reversed(people), strict=True)}
        tables: dict[str, list[int]] = {}
        for ticket_id, player in mine.items():
            done = await settled(player, ticket_id)
            assert done["state"] == "matched" and done["seat"] is not None
            tables.setdefault(done["table_id"], []).append(people.index(player))
            # the player lands on a running table, in the seat the ticket names
            view = (await player.get(f"/v1/tables/{done['table_id']}/view")).json()
            assert view["phase"] == "playing" and view["viewer"] == done["seat"]
        assert sorted(sorted(ranks) for ranks in tables.values()) == [
            [0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]
        ]  # fmt: skip
        first = await settled(people[0], tickets[-1]["ticket_id"])
        assert frame == {
            "type": "matched",
            "ticket_id": first["ticket_id"],
            "table_id": first["table_id"],
            "seat": first["seat"],
        }
        listed = (await people[0].get("/v1/queue")).json()["tickets"]
        assert [t["ticket_id"] for t in listed] == [first["ticket_id"]]


async def test_a_blocked_pair_never_shares_a_table(stack: LiveGateway) -> None:
    async with client(stack) as http:
        a, b, c, d = await players(stack, http, 4)
        blocked = await a.post("/v1/players/me/blocks", {"player_id": b.player_id})
        assert blocked.status_code == 200 and blocked.json() == {"blocks": [b.player_id]}
        assert (await a.get("/v1/players/me/blocks")).json() == {"blocks": [b.player_id]}
        for p in (a, b, c, d):
            rate(stack, p, 1500)
        tickets = [await queue(p, seats=2) for p in (a, b, c, d)]
        tables = {}
        for p, t in zip((a, b, c, d), tickets, strict=True):
            tables[p.player_id] = (await settled(p, t["ticket_id"]))["table_id"]
        assert tables[a.player_id] != tables[b.player_id]
        assert len(set(tables.values())) == 2
        unblocked = await a.http.delete(f"/v1/players/me/blocks/{b.player_id}", headers=a.headers)
        assert unblocked.status_code == 204
        assert (await a.get("/v1/players/me/blocks")).json() == {"blocks": []}


async def test_a_lone_ticket_that_welcomes_bots_gets_them_after_its_wait(
    stack: LiveGateway,
) -> None:
    async with client(stack) as http:
        (player,) = await players(stack, http, 1)
        started = time.monotonic()
        ticket = await queue(player, seats=4, bots_ok=True, bots_after_s=1)
        done = await settled(player, ticket["ticket_id"])
        assert time.monotonic() - started >= 1.0
        assert done["state"] == "matched"
        detail = (await player.get(f"/v1/tables/{done['table_id']}")).json()
        assert detail["state"] == "playing" and detail["seats"] == 4
        assert sorted(detail["bots"]) == sorted(set(range(4)) - {done["seat"]})


async def test_a_party_is_seated_together(stack: LiveGateway) -> None:
    async with client(stack) as http:
        owner, friend, stranger = await players(stack, http, 3)
        ticket = await queue(owner, party=[friend.player_id])
        # the friend sees the ticket and confirms it; until then it cannot be matched
        seen = (await friend.get(f"/v1/queue/{ticket['ticket_id']}")).json()
        assert seen["owner"] == owner.player_id and seen["accepted"] == [owner.player_id]
        other = await queue(stranger)
        await asyncio.sleep(1.0)
        assert (await owner.get(f"/v1/queue/{ticket['ticket_id']}")).json()["state"] == "waiting"
        accepted = await friend.post(f"/v1/queue/{ticket['ticket_id']}/accept")
        assert accepted.status_code == 200, accepted.text
        mine = await settled(owner, ticket["ticket_id"])
        theirs = await settled(friend, ticket["ticket_id"])
        assert mine["table_id"] == theirs["table_id"] and mine["seat"] != theirs["seat"]
        assert (await settled(stranger, other["ticket_id"]))["table_id"] == mine["table_id"]
        refused = await stranger.post(f"/v1/queue/{ticket['ticket_id']}/accept")
        assert refused.status_code == 404 and error_of(refused) == "no_such_ticket"


async def test_a_cancelled_ticket_is_gone(stack: LiveGateway) -> None:
    async with client(stack) as http:
        (player,) = await players(stack, http, 1)
        ticket = await queue(player, seats=5)
        gone = await player.http.delete(f"/v1/queue/{ticket['ticket_id']}", headers=player.headers)
        assert gone.status_code == 204, gone.text
        missing = await player.get(f"/v1/queue/{ticket['ticket_id']}")
        assert missing.status_code == 404 and error_of(missing) == "no_such_ticket"
        assert (await player.get("/v1/queue")).json() == {"tickets": []}


async def test_a_realtime_ticket_expires_after_its_socket_closes(stack: LiveGateway) -> None:
    async with client(stack) as http:
        (player,) = await players(stack, http, 1)
        async with player.notices():
            ticket = await queue(player, seats=5, pace="realtime")
            await asyncio.sleep(3.0)  # the socket is open: past the 2 s it still waits
            assert (await player.get(f"/v1/queue/{ticket['ticket_id']}")).json()[
                "state"
            ] == "waiting"
        done = await settled(player, ticket["ticket_id"], timeout=20)
        assert done["state"] == "expired" and done["table_id"] is None


async def test_the_same_ticket_id_is_the_same_ticket(stack: LiveGateway) -> None:
    async with client(stack) as http:
        player, other = await players(stack, http, 2)
        ticket_id = "again-" + uuid.uuid4().hex[:8]
        first = await queue(player, seats=5, ticket_id=ticket_id)
        second = await queue(player, seats=5, ticket_id=ticket_id)
        assert first["ticket_id"] == second["ticket_id"] == ticket_id
        assert [t["ticket_id"] for t in (await player.get("/v1/queue")).json()["tickets"]] == [
            ticket_id
        ]
        taken = await other.post(
            "/v1/queue", {"game": GAME, "seats": 5, "pace": "turn_based", "ticket_id": ticket_id}
        )
        assert taken.status_code == 409 and error_of(taken) == "ticket_taken"


async def test_each_bad_ticket_gets_its_refusal(stack: LiveGateway) -> None:
    async with client(stack) as http:
        (player,) = await players(stack, http, 1)

        async def refused(body: dict[str, Any]) -> tuple[int, str]:
            answer = await player.post("/v1/queue", {"pace": "turn_based", **body})
            return answer.status_code, error_of(answer)

        assert await refused({"game": "chess", "seats": 2}) == (422, "unknown_game")
        assert await refused({"game": GAME, "seats": 3, "options": {"difficulty": "x"}}) == (
            422,
            "bad_options",
        )
        assert await refused({"game": GAME, "seats": 9}) == (422, "bad_seats")
        assert await refused({"game": GAME, "seats": 3, "bots_after_s": 0}) == (422, "malformed")
        assert await refused({"game": GAME, "seats": 3, "pace": "blitz"}) == (422, "malformed")
        assert await refused({"game": GAME, "seats": {"min": 4, "max": 3}}) == (422, "bad_seats")
        assert await refused({"game": GAME, "seats": 3, "party": ["nobody"]}) == (
            422,
            "bad_party",
        )
        for _ in range(10):
            await queue(player, seats=5, options={"difficulty": "hard"})
        assert await refused({"game": GAME, "seats": 5}) == (409, "too_many_tickets")
        assert (
            await player.post("/v1/players/me/blocks", {"player_id": "nobody"})
        ).status_code == 404


def test_the_matchmaking_log_replays_to_the_same_decisions(stack: LiveGateway) -> None:
    result = subprocess.run(
        # (each offline expiry records the window it ran with: no --offline-s needed)
        [sys.executable, "-m", "orrery.cli", "matchmaking", "audit", GAME, "--json"],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "ORRERY_REDIS_URL": stack.redis_url},
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    report = msgspec.json.decode(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["ok"] and report["problems"] == []
    assert report["matches"] >= 1 and report["entries"] > report["matches"]


async def test_a_party_ticket_cancelled_by_its_owner_reads_cancelled_to_the_others(
    stack: LiveGateway,
) -> None:
    async with client(stack) as http:
        owner, friend = await players(stack, http, 2)
        ticket = await queue(owner, seats=5, party=[friend.player_id])
        gone = await owner.http.delete(f"/v1/queue/{ticket['ticket_id']}", headers=owner.headers)
        assert gone.status_code == 204
        assert (await owner.get(f"/v1/queue/{ticket['ticket_id']}")).status_code == 404
        seen = await settled(friend, ticket["ticket_id"])
        assert seen["state"] == "cancelled" and seen["owner"] == owner.player_id
        late = await friend.post(f"/v1/queue/{ticket['ticket_id']}/accept")
        assert late.status_code == 200 and late.json()["state"] == "cancelled"
