"""Blocks as a resource of the blocked player: ``POST`` and ``DELETE
/v1/players/{id}/block`` (the same as ``/v1/players/me/blocks``, gateway.queue, which
also lists them).

A block works both ways: neither player sees the other's chat (gateway.chat) or
presence, neither can ask the other to be friends or invite them, a friendship between
them ends, and the matchmakers never seat them at one table.
"""

from __future__ import annotations

from litestar import delete, post
from litestar.openapi import ResponseSpec

from gateway.core import Gateway
from gateway.models import ErrorBody
from gateway.queue import Blocks, service


@post(
    "/players/{player_id:str}/block",
    status_code=200,
    responses={
        404: ResponseSpec(ErrorBody, description="no such player", generate_examples=False),
        409: ResponseSpec(ErrorBody, description="too many blocks", generate_examples=False),
    },
    operation_id="blockPlayerById",
    tags=["players"],
)
async def block_by_id(player_id: str, player: str, gateway: Gateway) -> Blocks:
    """Block this player: our chats hidden from each other both ways, no friendship,
    requests or invitations between us, never at one matched table. My blocks."""
    return await service(gateway).block(player, player_id)


@delete(
    "/players/{player_id:str}/block",
    status_code=204,
    operation_id="unblockPlayerById",
    tags=["players"],
)
async def unblock_by_id(player_id: str, player: str, gateway: Gateway) -> None:
    """Unblock this player (done already if they were not blocked)."""
    await service(gateway).unblock(player, player_id)


BLOCK_ROUTES = [block_by_id, unblock_by_id]
