"""A differential test of the gateway's hidden-information promise: two tables that
differ only in a hidden fact of player A (A's secret opening card) give player B the
very same response, byte for byte but the table id, on every channel B can use: views,
replays at every seq, the lobby, B's page, B's command outcomes and rejections, and
the WebSocket's frames.

The tables are logs written here (tiny test game, same seed commitment, same times),
imported, then played on live through the gateway with the same stored seed, so every
later random draw is the same on both tables too.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from games.codec import msgpack_encoder
from gateway.crypto import seat_secret
from orrery_contracts import keys
from orrery_contracts.envelope import GENESIS_HASH, EventEnvelope, RawEnvelope, seal
from orrery_contracts.table import SeatJoined, TableCreated, TableStarted
from services.transfer import import_entries
from tests.support.gateway import LiveGateway, Player, frame_at, sign_up, unique
from tests.support.service import PARTITIONS
from tests.support.tinygame import Dealt

pytestmark = pytest.mark.gateway

SEED = bytes(range(32))


def crafted_log(table_id: str, key: str, a: Player, b: Player, a_card: int) -> list[RawEnvelope]:
    def joined(seat: int, player: Player) -> SeatJoined:
        secret = seat_secret(key, table_id, seat, player.player_id)
        return SeatJoined(
            seat=seat,
            name=player.name,
            token_hash=hashlib.sha256(secret.encode()).hexdigest(),
            player_id=player.player_id,
        )

    events = [
        TableCreated(
            game="tiny",
            seats=2,
            options={"max_cards": 8},
            rules_version="1",
            seed_commitment=hashlib.sha256(SEED).hexdigest(),
        ),
        joined(0, a),
        joined(1, b),
        TableStarted(),
        Dealt(seat=0, card=a_card),  # the only difference: A's secret card
        Dealt(seat=1, card=3),
    ]
    entries: list[RawEnvelope] = []
    prev = GENESIS_HASH
    for seq, event in enumerate(events, start=1):
        sealed = seal(
            EventEnvelope(
                table_id=table_id,
                seq=seq,
                command_id=f"setup-{seq}",
                seat=None,
                recorded_at=1_700_000_000_000 + seq,
                prev_hash=prev,
                body=msgspec.Raw(msgpack_encoder.encode(event)),
            )
        )
        entries.append(sealed)
        prev = sealed.hash
    return entries


class Transcript:
    """Everything B receives, with the table id replaced."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.lines: list[str] = []

    def add(self, label: str, status: int, body: Any) -> None:
        text = body if isinstance(body, str) else msgspec.json.encode(body).decode()
        self.lines.append(f"{label} {status} {text.replace(self.table_id, 'TABLE')}")

    def response(self, label: str, response: httpx.Response) -> None:
        self.add(label, response.status_code, response.text)


async def b_transcript(
    live: LiveGateway, a: Player, b: Player, a_card: int
) -> tuple[str, list[str]]:
    table = f"diff-{uuid.uuid4().hex[:10]}"
    redis = aioredis.Redis.from_url(live.redis_url)
    try:
        p = keys.partition_of(table, PARTITIONS)
        await redis.set(keys.secret_key(p, table), SEED)
        await import_entries(redis, PARTITIONS, crafted_log(table, live.key, a, b, a_card))
    finally:
        await redis.aclose()
    async with asyncio.timeout(30):  # until the projector has folded the imported log
        while (await b.get(f"/v1/tables/{table}/view")).status_code != 200:
            await asyncio.sleep(0.05)
    log = Transcript(table)

    async def everything(label: str, seq: int) -> None:
        log.response(f"{label} view", await b.get(f"/v1/tables/{table}/view"))
        for at in range(1, seq + 1):
            log.response(f"{label} replay {at}", await b.get(f"/v1/tables/{table}/replay", at=at))
        me = (await b.get("/v1/players/me")).json()
        log.add(f"{label} me", 200, [t for t in me["tables"] if t["table_id"] == table])
        listed = (await b.get("/v1/tables", state="playing", game="tiny", limit=100)).json()
        log.add(f"{label} lobby", 200, [t for t in listed["tables"] if t["table_id"] == table])

    async with b.live(table) as socket:
        frame = await frame_at(socket, 6)
        log.add("frame", 200, frame)
        await everything("start", 6)
        # A draws (a hidden card for A, the same draw on both tables)
        drawn = await a.command(table, {"type": "tiny.draw"}, "a1")
        assert drawn.status_code == 200, drawn.text
        seq = drawn.json()["last_seq"]
        log.add("frame", 200, await frame_at(socket, seq))
        await everything("after A drew", seq)
        # B draws, then tries to move out of turn
        mine = await b.command(table, {"type": "tiny.draw"}, "b1")
        log.response("B draws", mine)
        seq = mine.json()["last_seq"]
        log.add("frame", 200, await frame_at(socket, seq))
        log.response("B again", await b.command(table, {"type": "tiny.stand"}, "b2"))
        log.response("B repeats", await b.command(table, {"type": "tiny.draw"}, "b1"))
        await everything("after B drew", seq)
        # A stands: B's turn again (the table is not over, so nothing is revealed yet)
        stood = await a.command(table, {"type": "tiny.stand"}, "a2")
        seq = stood.json()["last_seq"]
        log.add("frame", 200, await frame_at(socket, seq))
        await everything("after A stood", seq)
    return table, log.lines


async def test_b_sees_the_same_whatever_a_holds(live: LiveGateway) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        a = await sign_up(http, unique("Ann"))
        b = await sign_up(http, unique("Ben"))
        table_low, low = await b_transcript(live, a, b, a_card=1)
        table_high, high = await b_transcript(live, a, b, a_card=6)
        # A's own view does differ between the two (else this test would prove nothing)
        a_low, a_high = await a.view(table_low), await a.view(table_high)
        assert a_low["view"]["seats"][0]["cards"][0] == 1
        assert a_high["view"]["seats"][0]["cards"][0] == 6
    assert len(low) == len(high) > 40
    for line_low, line_high in zip(low, high, strict=True):
        assert line_low == line_high
