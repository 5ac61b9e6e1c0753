"""The demo: random bots play complete games through the real service.

Tables are created, joined and started through the command streams; each bot reads
only its own seat's view (legal commands included) from the projections; the final
scores come from the scoreboard projection.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from clients.bot import play_seat
from clients.sdk import OrreryClient

BOT_NAMES = ["Ada", "Brahe", "Cassini", "Dyson", "Encke", "Fleming", "Galle", "Halley"]


@dataclass
class PlayedTable:
    game: str
    table_id: str
    seats: list[str]
    points: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    seq: int = 0
    done: bool = False


async def play_table(
    client: OrreryClient,
    game: str,
    players: int,
    rng: random.Random,
    progress: PlayedTable | None = None,
) -> PlayedTable:
    names = BOT_NAMES[:players]
    table_id = await client.create_table(
        game, players, table_id=f"{game}-{rng.getrandbits(40):010x}"
    )
    played = progress or PlayedTable(game=game, table_id=table_id, seats=names)
    played.table_id = table_id
    played.seats = names
    seats = [await client.join(table_id, name) for name in names]
    await client.start(seats[0])
    bots = [play_seat(client, seat, random.Random(rng.getrandbits(64))) for seat in seats]
    views = await asyncio.gather(*bots)
    final = views[0]["standing"]
    score = await _final_score(client, table_id, views[0]["seq"])
    played.points = list(final["points"])
    played.ranks = list(final["ranks"])
    played.seq = score["seq"] if score else views[0]["seq"]
    played.done = True
    return played


async def _final_score(client: OrreryClient, table_id: str, seq: int) -> dict[str, Any] | None:
    for _ in range(200):
        score = await client.score(table_id)
        if score is not None and score["seq"] >= seq:
            return score
        await asyncio.sleep(0.05)
    return None
