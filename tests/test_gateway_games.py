"""Complete games of every game through the gateway alone: two accounts against each
other and a server-side bot, one player sending its commands over HTTP, the other over
the WebSocket; then ratings by player id and the leaderboard."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from games.registry import BUILTIN
from tests.support.gateway import LiveGateway, live_gateway, play_to_end, sign_up, unique

pytestmark = pytest.mark.gateway


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveGateway]:
    with live_gateway(Path(tmp_path_factory.mktemp("gw-games"))) as gateway:
        yield gateway


async def _leaderboard(http: httpx.AsyncClient, headers: dict[str, str], game: str, n: int) -> list:
    async with asyncio.timeout(30):
        while True:
            response = await http.get(f"/v1/leaderboard/{game}", headers=headers)
            assert response.status_code == 200, response.text
            entries = response.json()["entries"]
            if len(entries) >= n:
                return entries
            await asyncio.sleep(0.1)


@pytest.mark.parametrize("game", sorted(BUILTIN))
async def test_two_players_and_a_bot_play_a_whole_game(live: LiveGateway, game: str) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        ada = await sign_up(http, unique("Ada"))
        bob = await sign_up(http, unique("Bob"))
        ada.rng, bob.rng = random.Random(1), random.Random(2)
        table = (await ada.create_table(game, 3))["table_id"]
        assert await ada.join(table) == 0
        assert await bob.join(table) == 1
        assert await ada.bot(table) == 2
        listed = (await bob.get("/v1/tables", game=game, state="open")).json()["tables"]
        mine = next(t for t in listed if t["table_id"] == table)
        assert [(p["name"], p["bot"]) for p in mine["players"]] == [
            (ada.name, False),
            (bob.name, False),
            ("Bot (greedy)", True),
        ]
        assert [p["player_id"] for p in mine["players"]] == [ada.player_id, bob.player_id, None]
        started = await ada.start(table)
        assert started["outcome"] == "accepted"
        finals = await asyncio.gather(
            play_to_end(ada, table, via="http"), play_to_end(bob, table, via="ws")
        )
        for final in finals:
            assert final["phase"] == "finished" and final["standing"] is not None
        assert finals[0]["moves"] > 0 and finals[1]["moves"] > 0
        # rated by player id (the bot by its level); names from the accounts
        entries = await _leaderboard(http, ada.headers, game, 2)
        rated = {e["player_id"]: e for e in entries}
        assert {ada.player_id, bob.player_id} <= set(rated)
        assert rated[ada.player_id]["name"] == ada.name and rated[ada.player_id]["games"] == 1
        me = (await ada.get("/v1/players/me")).json()
        assert me["ratings"][game] == rated[ada.player_id]["rating"]
        assert any(t["table_id"] == table and t["state"] == "finished" for t in me["tables"])
