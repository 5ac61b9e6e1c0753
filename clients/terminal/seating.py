"""Taking seats for ``orrery play``: a new table with bots, an open seat, or a resume.

The bots' seat secrets are derived from the person's own secret (HMAC-SHA256 over the
table id and the seat), so the person's secret alone brings the whole table back after
a restart: nothing but that one secret has to be kept, and nothing is written to disk.
A bot secret reveals nothing about the person's (HMAC is one-way). On a resume every
other seat is tried with its derived secret by sending ``table.start``: a seat that takes
it is one of ours (the service checks the secret before anything else and then either
starts a full lobby, which is what we want, or answers ``table_started``); any other
seat answers ``unauthorized``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from orrery_client.sdk import OrreryClient, SeatCredentials, new_seat_token
from orrery_contracts.envelope import Accepted, Rejection
from orrery_contracts.table import CreateTable, JoinRequest, StartTable


class SeatingError(Exception):
    """A seat could not be taken; the message says why and what to do."""


def bot_token(owner_token: str, table_id: str, seat: int) -> str:
    """The secret of a bot seat owned by the holder of ``owner_token``."""
    digest = hmac.new(
        owner_token.encode(), f"orrery-play-bot:{table_id}:{seat}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


@dataclass(frozen=True)
class Seating:
    me: SeatCredentials
    bots: list[SeatCredentials]


_JOIN_ADVICE = {
    "no_such_table": "check the id (orrery play prints it when it creates a table)",
    "table_started": "the game has started: resume your own seat with --seat N --token T",
    "game_over": "the game is over: `orrery replay` shows how it went",
    "table_full": "every seat is taken",
    "seat_taken": "leave out --seat to take any open seat",
    "no_such_seat": "leave out --seat to take any open seat",
    "bad_name": "choose another --name",
}


async def new_table(
    client: OrreryClient,
    game: str,
    seats: int,
    options: dict[str, object],
    *,
    seat: int,
    name: str,
    open_seats: int = 0,
) -> tuple[str, Seating]:
    """Create a table, take ``seat``, seat bots everywhere but ``open_seats`` seats (the
    last ones), and start it when no seat is left open."""
    table_id = f"{game}-{secrets.token_hex(5)}"
    outcome = await client.submit(
        table_id, CreateTable(game=game, seats=seats, options=dict(options))
    )
    if isinstance(outcome, Rejection):
        raise SeatingError(f"the service refused the table: {outcome.message} ({outcome.code})")
    token = new_seat_token()
    me = await _join(client, table_id, name, seat, token)
    others = [s for s in range(seats) if s != seat]
    bot_seats = others[: len(others) - open_seats]
    bots = [
        await _join(client, table_id, f"bot{s}", s, bot_token(token, table_id, s))
        for s in bot_seats
    ]
    if open_seats == 0:
        await start_if_full(client, me)
    return table_id, Seating(me, bots)


async def _join(
    client: OrreryClient, table_id: str, name: str, seat: int | None, token: str
) -> SeatCredentials:
    outcome = await client.submit(table_id, JoinRequest(name=name, seat=seat), token=token)
    if isinstance(outcome, Rejection):
        advice = _JOIN_ADVICE.get(outcome.code, "")
        raise SeatingError(
            f"could not join table {table_id}: {outcome.message} ({outcome.code})"
            + (f"; {advice}" if advice else "")
        )
    assert isinstance(outcome, Accepted) and outcome.seat is not None
    return SeatCredentials(table_id, outcome.seat, token)


async def join_open_seat(
    client: OrreryClient, table_id: str, name: str, seat: int | None
) -> Seating:
    """Take an open seat (``seat``, or any) of someone else's table; start it if full."""
    me = await _join(client, table_id, name, seat, new_seat_token())
    await start_if_full(client, me)
    return Seating(me, [])


async def resume(client: OrreryClient, me: SeatCredentials) -> Seating:
    """Check ``me`` against the table and find the bot seats that belong to it."""
    outcome = await client.play(me, StartTable())
    if isinstance(outcome, Rejection) and outcome.code == "no_such_table":
        raise SeatingError(f"there is no table {me.table_id}; check the id")
    if isinstance(outcome, Rejection) and outcome.code == "unauthorized":
        raise SeatingError(
            f"seat {me.seat} of table {me.table_id} does not take this token; "
            "give the --seat and --token printed when you joined"
        )
    view = await client.view(me.table_id, me.seat)
    seats = len(view["seats"]) if view else 0
    bots = []
    for s in range(seats):
        if s != me.seat:
            candidate = SeatCredentials(me.table_id, s, bot_token(me.token, me.table_id, s))
            if await _takes_token(client, candidate):
                bots.append(candidate)
    return Seating(me, bots)


async def _takes_token(client: OrreryClient, seat: SeatCredentials) -> bool:
    outcome = await client.play(seat, StartTable())
    return not (
        isinstance(outcome, Rejection) and outcome.code in ("unauthorized", "no_such_table")
    )


async def start_if_full(client: OrreryClient, seat: SeatCredentials) -> None:
    """Start the table if every seat is taken (someone else may have started it)."""
    await client.play(seat, StartTable())
