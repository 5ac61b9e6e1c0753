"""The demo: bots play complete games through the real service.

Tables are created, joined and started through the command streams; each bot reads
only its own seat's view (legal commands included) from the projections and chooses at
its level (``random``: uniform legal moves, in the event loop; another: the bot engine,
``bots.choose_move``, in a worker thread); the final
scores are the last view's standing, the built-in opponents' from the scoreboard
projection (its lines after the seats').
"""

from __future__ import annotations

import asyncio
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from orrery_client.bot import Chooser, choose, play_seat
from orrery_client.sdk import OrreryClient

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
    ais: list[str] = field(default_factory=list)  # built-in opponents (Fractured Sky 1-2)
    # the built-in opponents' final points and ranks (the scoreboard's lines for them)
    ai_points: list[int] = field(default_factory=list)
    ai_ranks: list[int] = field(default_factory=list)


async def play_table(
    client: OrreryClient,
    game: str,
    players: int,
    rng: random.Random,
    progress: PlayedTable | None = None,
    options: dict[str, Any] | None = None,
    level: str = "random",
) -> PlayedTable:
    names = BOT_NAMES[:players]
    # Fresh ids: --seed fixes the bots' choices, not the tables (a second run with the same
    # seed in the same folder plays new tables).
    table_id = await client.create_table(
        game, players, options or {}, table_id=f"{game}-{uuid.uuid4().hex[:10]}"
    )
    played = progress or PlayedTable(game=game, table_id=table_id, seats=names)
    played.table_id = table_id
    played.seats = names
    seats = [await client.join(table_id, name) for name in names]
    await client.start(seats[0])
    chooser = level_chooser(level)
    bots = [
        play_seat(
            client,
            seat,
            random.Random(rng.getrandbits(64)),
            chooser=chooser,
            in_thread=chooser is not choose,
        )
        for seat in seats
    ]
    views = await asyncio.gather(*bots)
    played.ais = [str(ai.get("name")) for ai in _ais(views[0])]
    final = views[0]["standing"]
    score = await _final_score(client, table_id, views[0]["seq"])
    played.points = list(final["points"])
    played.ranks = list(final["ranks"])
    played.seq = score["seq"] if score else views[0]["seq"]
    others = [line for line in (score["lines"] if score else []) if line.get("ai")]
    played.ai_points = [line["points"] for line in others]
    played.ai_ranks = [line["rank"] for line in others]
    played.done = True
    return played


def level_chooser(level: str) -> Chooser:
    """How a bot of ``level`` chooses from its seat's view (the game and seat are the
    view's own)."""
    if level == "random":
        return choose
    from bots import choose_move

    def chooser(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        return choose_move(view["game"], view, view["viewer"], level, rng)

    return chooser


async def _final_score(client: OrreryClient, table_id: str, seq: int) -> dict[str, Any] | None:
    for _ in range(200):
        score = await client.score(table_id)
        if score is not None and score["seq"] >= seq:
            return score
        await asyncio.sleep(0.05)
    return None


def _ais(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The built-in opponents a game's view lists (Fractured Sky's solo and 2-player AIs)."""
    game_view = view.get("view") or {}
    ais = game_view.get("ais") if isinstance(game_view, dict) else None
    return list(ais) if isinstance(ais, list) else []
