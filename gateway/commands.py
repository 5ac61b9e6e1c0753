"""A player's commands to a table (``POST /v1/tables/{id}/commands``, the WebSocket's
``command`` frame and the route's fast path, gateway.fastpath, which all answer with
:func:`answer_command` or :meth:`Commands.send`).

Once a table is in play its seats are fixed, so a command's seat is remembered per
(table, player) and the lobby record is not read again for every command (a remembered
seat the worker refuses as ``unauthorized`` is forgotten and the record read).
Commands do not wait for the projection: views follow on the WebSocket.

Command ids a client chooses are scoped to the player on the wire
(``c.<player>.<id>``), so one player's id can never collide with, or fetch the
outcome of, another player's command; outcomes come back with the client's own id.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gateway.bodies import integral
from gateway.errors import ApiError
from gateway.models import CommandIn
from gateway.tables import CLIENT_COMMAND_ID, Tables, outcome_document, outcome_status
from orrery_contracts.envelope import Outcome, Rejection

GATEWAY_ONLY = {"table.create", "table.join"}
SEATS_KEPT = 50_000  # (table, player) seats of tables in play remembered per process

_json = msgspec.json.Encoder()


class Commands:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        # (table, player) -> seat, for tables in play only: a seat is fixed once a game
        # has started (leaving then concedes it), so a command there needs no read of
        # the lobby record. Wrong only if the record was (a rebuild): the worker then
        # refuses the seat's secret (unauthorized, not stored) and the record is read.
        self.seats_in_play: dict[tuple[str, str], int] = {}

    async def send(
        self, player_id: str, table_id: str, command_id: str, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        """Send a command for the player's seat: (status, outcome document)."""
        if not CLIENT_COMMAND_ID.match(command_id):
            raise ApiError(
                422, "bad_command_id", "a command id has 1-64 characters of A-Z a-z 0-9 _ . : -"
            )
        kind = body.get("type")
        if not isinstance(kind, str):
            raise ApiError(422, "malformed", 'a command body needs its "type"')
        if kind in GATEWAY_ONLY:
            raise ApiError(
                422, "use_endpoint", "create and join tables with POST /v1/tables and …/join"
            )
        body = integral(body)  # the rules decode strictly: 2.0 is the integer 2
        cached = self.seats_in_play.get((table_id, player_id))
        seat = cached if cached is not None else await self._seat_in_play(table_id, player_id)
        outcome = await self._command(table_id, body, command_id, seat, player_id)
        if cached is not None and isinstance(outcome, Rejection) and outcome.code == "unauthorized":
            del self.seats_in_play[(table_id, player_id)]  # read the record after all
            seat = await self._seat_in_play(table_id, player_id)
            outcome = await self._command(table_id, body, command_id, seat, player_id)
        return outcome_status(outcome), outcome_document(outcome, command_id)

    async def _command(
        self, table_id: str, body: dict[str, Any], command_id: str, seat: int, player_id: str
    ) -> Outcome:
        return await self.tables.send(
            table_id,
            body,
            command_id=f"c.{player_id}.{command_id}",
            seat=seat,
            token=self.tables.seat_token(table_id, seat, player_id),
        )

    async def _seat_in_play(self, table_id: str, player_id: str) -> int:
        """The player's seat from the lobby record; kept while the table is in play."""
        record, seat = await self.tables.seated(table_id, player_id)
        if record.state == "playing":
            if len(self.seats_in_play) > SEATS_KEPT:
                self.seats_in_play.clear()
            self.seats_in_play[(table_id, player_id)] = seat
        return seat


async def answer_command(
    commands: Commands, player_id: str, table_id: str, data: CommandIn
) -> tuple[int, bytes]:
    """The HTTP answer to a command request: its status and encoded body (the route
    and its fast path answer with this, so their answers cannot drift apart)."""
    status, document = await commands.send(player_id, table_id, data.command_id, data.body)
    return status, _json.encode(document)
