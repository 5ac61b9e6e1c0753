"""The models of the players-among-players resources (presence, friends, blocks,
chat reports, erasing my account), for the OpenAPI document (gateway.openapi) and
the tags they are listed under."""

from __future__ import annotations

import msgspec

from gateway.erasure import EraseIn
from gateway.friends import Friends, Friendship, InviteIn, PlayerCard
from gateway.presence import PresenceList
from gateway.reports import ReportIn, ReportOut

SOCIAL_MODELS: tuple[type[msgspec.Struct], ...] = (
    PresenceList,
    Friendship,
    Friends,
    PlayerCard,
    InviteIn,
    ReportIn,
    ReportOut,
    EraseIn,
)

SOCIAL_TAGS = [
    {"name": "friends", "description": "friend requests, my friends and their presence, invites"},
    {"name": "reports", "description": "report a chat message to the operators"},
]
