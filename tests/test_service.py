"""End to end through the real service: streams in, worker and projector processes,
views and scoreboard out (tiny test game)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from orrery_client.bot import play_seat
from orrery_client.sdk import CommandRejected, OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import Rejection
from tests.support.service import LiveService, live_service
from tests.support.tinygame import Draw, Stand

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("live"))) as service:
        yield service


async def test_create_join_start_play_views_and_scoreboard(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2, table_id="e2e-1")
        a = await client.join(table, "Ann")
        b = await client.join(table, "Bob")
        started = await client.start(a)
        view_a = await client.wait_view(table, 0, started.last_seq)
        view_b = await client.wait_view(table, 1, started.last_seq)
        spectator = await client.wait_view(table, None, started.last_seq)
        assert view_a["phase"] == "playing" and view_a["to_move"] == [0]
        assert {c["type"] for c in view_a["legal"]} >= {"tiny.draw", "tiny.stand"}
        assert view_b["legal"] == [{"type": "table.leave"}]
        # each seat sees its own card and only the count of the other's
        assert view_a["view"]["seats"][0]["cards"] and view_a["view"]["seats"][1]["cards"] is None
        assert view_b["view"]["seats"][1]["cards"] and view_b["view"]["seats"][0]["cards"] is None
        assert all(s["cards"] is None for s in spectator["view"]["seats"])
        await client.accept(table, Stand(), seat=a.seat, token=a.token)
        last = await client.accept(table, Stand(), seat=b.seat, token=b.token)
        final = await client.wait_view(table, None, last.last_seq)
        assert final["phase"] == "finished" and final["standing"] is not None
        assert final["seed"] and len(final["seed"]) == 64
        score = None
        for _ in range(100):
            score = await client.score(table)
            if score and score["phase"] == "finished":
                break
            await asyncio.sleep(0.05)
        assert score and [line["name"] for line in score["lines"]] == ["Ann", "Bob"]
        assert [line["rank"] for line in score["lines"]] == final["standing"]["ranks"]
        # Anonymous (Redis-level) joins are not rated: ratings follow verified player
        # ids only (tests/test_gateway_ratings.py, tests/test_workers.py).
        ratings = await client.redis.zrange(keys.leaderboard_key("tiny"), 0, -1)
        assert ratings == []


async def test_bad_commands_get_codes_and_the_worker_survives(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2, table_id="e2e-2")
        a = await client.join(table, "Ann")
        b = await client.join(table, "Bob")
        with pytest.raises(CommandRejected) as no_seats:
            await client.join(table, "Cy")
        assert no_seats.value.code == "table_full"
        await client.start(a)
        cases = [
            ("e2e-2", Draw(), b.seat, b.token, "not_your_turn"),
            ("e2e-2", Draw(), a.seat, "forged", "unauthorized"),
            ("e2e-2", Draw(), None, None, "unauthorized"),
            ("missing", Draw(), 0, "x", "no_such_table"),
        ]
        for table_id, body, seat, token, code in cases:
            outcome = await client.submit(table_id, body, seat=seat, token=token)
            assert isinstance(outcome, Rejection) and outcome.code == code
        # raw garbage straight onto the stream: answered where possible, dead-lettered
        p = client.partition("e2e-2")
        reply = client.reply_stream
        await client.redis.xadd(keys.command_stream(p), {"__data__": b"\x00garbage"})
        await client.redis.xadd(
            keys.command_stream(p),
            {
                "__data__": b'{"command_id":"g1","table_id":"e2e-2","reply_to":"%s"}'
                % reply.encode()
            },
        )
        unknown = b'{"command_id":"g2","table_id":"e2e-2","seat":0,"token":"%s",' % a.token.encode()
        await client.redis.xadd(
            keys.command_stream(p),
            {
                "__data__": unknown
                + b'"reply_to":"%s","body":{"type":"chess.move"}}' % reply.encode()
            },
        )
        for _ in range(100):
            dead = await client.redis.xlen(keys.dead_letter_stream(p))
            if dead >= 2:
                break
            await asyncio.sleep(0.05)
        assert dead >= 2
        # the worker is alive and still deciding
        assert all(live.alive(p) for p in live.processes)
        outcome = await client.play(a, Draw())
        assert not isinstance(outcome, Rejection), outcome


async def test_bots_play_many_tables_to_the_end(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        rng = random.Random(7)

        async def one(i: int) -> dict:
            table = await client.create_table("tiny", 3, table_id=f"bots-{i}")
            seats = [await client.join(table, f"bot{s}") for s in range(3)]
            await client.start(seats[0])
            views = await asyncio.gather(
                *(play_seat(client, s, random.Random(rng.random())) for s in seats)
            )
            return views[0]

        finals = await asyncio.gather(*(one(i) for i in range(8)))
        assert all(v["phase"] == "finished" for v in finals)


def test_schema_command_writes_every_game(tmp_path: Path) -> None:
    from orrery.schemas import write_schemas

    written = {p.name for p in write_schemas(tmp_path)}
    assert {"orrery.schema.json", "tiny.schema.json"} <= written
    doc = msgspec.json.decode((tmp_path / "tiny.schema.json").read_bytes())
    assert {"command_envelope", "outcome", "event_envelope", "view"} <= set(doc["properties"])
    assert "tiny.draw" in (tmp_path / "tiny.schema.json").read_text()
