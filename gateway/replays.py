"""A table's replay (``GET /v1/tables/{id}/replay``): the view after one command of its
log, folded by the replayer ``orrery gateway`` plugs in (the gateway does not know the
rules), with where it stands among the table's commands."""

from __future__ import annotations

import msgspec

from gateway.errors import ApiError
from gateway.tables import Tables, seat_of

REPLAY_AS = ("me", "spectator")

_json = msgspec.json.Encoder()


def with_member(document: bytes, name: str, value: bytes) -> bytes:
    """A JSON object document with one more member (``value``: encoded JSON)."""
    body = document.rstrip()
    if not body.endswith(b"}"):
        raise ValueError("not a JSON object")
    body = body[:-1].rstrip()
    comma = b"" if body.endswith(b"{") else b","
    return body + comma + _json.encode(name) + b":" + value + b"}"


class Replays:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def replay(
        self,
        player_id: str,
        table_id: str,
        at: int | None = None,
        step: int | None = None,
        as_: str = "me",
    ) -> bytes:
        """The view after the command holding seq ``at`` (or after the ``step``-th
        command; neither: now), as my seat sees it (``as_="spectator"``, or when I hold
        no seat: as a spectator), with its ``replay`` member (a ReplayStep)."""
        if as_ not in REPLAY_AS:
            raise ApiError(422, "bad_viewer", "as is one of: " + ", ".join(REPLAY_AS))
        if at is not None and step is not None:
            raise ApiError(422, "bad_seq", "ask for a seq (at) or a step, not both")
        if (at is not None and at < 0) or (step is not None and step < 0):
            raise ApiError(422, "bad_seq", "seqs and steps are 0 or more")
        seat = seat_of(await self.tables.record(table_id), player_id)
        replayer = self.tables.replayer
        if replayer is None:
            raise ApiError(501, "not_available", "this gateway serves no replays")
        found = await replayer.replay(
            table_id, None if as_ == "spectator" else seat, at=at, step=step
        )
        if found is None:
            if step is not None:
                raise ApiError(404, "no_such_step", "the table has no such step")
            raise ApiError(404, "no_such_seq", "the table has no such seq")
        where, view = found
        return with_member(view, "replay", _json.encode(where))
