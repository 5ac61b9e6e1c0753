"""A terminal client: a person plays one seat from that seat's view.

The screen shows the table (whose turn, seats, the game's view of this seat) and the
seat's legal commands, numbered. The person types a number, ``j {json}`` to send any
command body (e.g. a rocket layout), ``v`` to show the raw view again, or ``q`` to leave
the client (the seat stays in the game).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console
from rich.pretty import Pretty
from rich.table import Table

from clients.sdk import OrreryClient, SeatCredentials
from contracts.envelope import Rejection


def describe(command: dict[str, Any]) -> str:
    fields = ", ".join(f"{k}={v}" for k, v in command.items() if k != "type")
    return f"{command['type']}({fields})" if fields else command["type"]


def render(console: Console, view: dict[str, Any]) -> None:
    seats = Table(title=f"{view['game']} · table {view['table_id']} · seq {view['seq']}")
    for column in ("seat", "player", "state"):
        seats.add_column(column)
    for seat in view["seats"]:
        mark = "to move" if seat["seat"] in view["to_move"] else ""
        if seat["left"]:
            mark = "left (bot)"
        you = " (you)" if seat["seat"] == view["viewer"] else ""
        seats.add_row(str(seat["seat"]), f"{seat['name']}{you}", mark)
    console.print(seats)
    console.print(f"phase: {view['phase']} / {view['game_phase']}, round {view['round']}")
    if view["view"] is not None:
        console.print(Pretty(view["view"], max_length=12, max_depth=4))


async def play_terminal(
    client: OrreryClient,
    seat: SeatCredentials,
    read_line: Callable[[str], Awaitable[str]],
    console: Console,
) -> dict[str, Any]:
    """Play until the table is finished (returns the last view) or the person quits."""
    async for view in client.watch(seat.table_id, seat.seat):
        render(console, view)
        if view["phase"] == "finished":
            console.print(f"final standing: {view['standing']}")
            return view
        moves = [c for c in view["legal"] if c["type"] != "table.start"]
        if seat.seat not in view["to_move"] or view["phase"] != "playing":
            console.print("waiting for the other players…")
            continue
        while True:
            for number, command in enumerate(moves, 1):
                console.print(f"  {number:>3}. {describe(command)}")
            answer = (await read_line("your move> ")).strip()
            if answer == "q":
                return view
            if answer == "v":
                render(console, view)
                continue
            body = _parse(answer, moves)
            if body is None:
                console.print("type a number from the list, j {json}, v or q")
                continue
            outcome = await client.play(seat, body)
            if isinstance(outcome, Rejection):
                console.print(f"[red]rejected[/red] {outcome.code}: {outcome.message}")
                continue
            break
    raise AssertionError("unreachable")


def _parse(answer: str, moves: list[dict[str, Any]]) -> dict[str, Any] | None:
    if answer.isdigit() and 1 <= int(answer) <= len(moves):
        return moves[int(answer) - 1]
    if answer.startswith("j "):
        try:
            body = json.loads(answer[2:])
        except json.JSONDecodeError:
            return None
        return body if isinstance(body, dict) and "type" in body else None
    return None
