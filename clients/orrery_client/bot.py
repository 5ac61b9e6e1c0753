"""A bot that plays any game from its own view's legal commands: uniformly at random, or
with a chooser given (e.g. the server's bot engine, ``bots.choose_move``, run in a worker
thread since a search is CPU work)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts.table import NOT_MOVES

# (the seat's view, an rng) -> the command to send, or None
Chooser = Callable[[dict[str, Any], random.Random], dict[str, Any] | None]


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    moves = [c for c in view["legal"] if c.get("type") not in NOT_MOVES]
    return rng.choice(moves) if moves else None


async def play_seat(
    client: OrreryClient,
    seat: SeatCredentials,
    rng: random.Random,
    *,
    max_moves: int = 100_000,
    chooser: Chooser = choose,
    in_thread: bool = False,
) -> dict[str, Any]:
    """Play ``seat`` until the table is finished; returns the last view. ``in_thread``:
    call ``chooser`` in a worker thread (a chooser that takes time)."""
    moves = 0
    async for view in client.watch(seat.table_id, seat.seat):
        if view["phase"] == "finished":
            return view
        if view["phase"] != "playing" or seat.seat not in view["to_move"]:
            continue
        if in_thread:
            move = await asyncio.to_thread(chooser, view, random.Random(rng.random()))
        else:
            move = chooser(view, rng)
        if move is None:
            continue
        outcome = await client.play(seat, move)
        moves += 1
        if moves > max_moves:
            raise RuntimeError(f"table {seat.table_id}: seat {seat.seat} made {moves} moves")
        # A rejection here means the view was already stale (another seat moved):
        # the next view is on its way, so just wait for it.
        del outcome
    raise AssertionError("unreachable")
