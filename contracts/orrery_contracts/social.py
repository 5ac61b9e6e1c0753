"""Players among players: presence, friends, blocks, chat reports, mutes and erased
accounts: the keys the gateway keeps them in and the records an operator reads.

Every key here is the gateway's own (``orrery:gw:``): no decider, projector or
matchmaker reads them (a matchmaker learns a player's blocks through its queue
commands, ``orrery_contracts.matchmaking.SetBlocks``). None carries a hash tag: each
key belongs to one player (or to the one reports stream), and no script touches two.

Choices:

* presence is two expiring flags per player, renewed by each of the player's live
  sockets: ``online`` while a socket's page is in use, ``away`` while it is hidden or
  idle; neither flag set is ``offline``. A closed socket renews nothing, so its player
  goes offline when the flag expires (``ORRERY_PRESENCE_TTL_S``);
* a friendship is symmetric (both sets hold the other); a request waits in the
  asker's *sent* set and the other's *received* set until it is accepted or withdrawn;
* a block is kept in the blocker's set (:func:`orrery_contracts.keys.blocks_key`) and,
  reversed, in the blocked player's *blocked by* set, so one read tells whom a player
  must not see in either direction;
* a chat report is an event in one stream (:data:`REPORTS_STREAM`): filing and every
  resolution are appended, never changed; the operator's view folds them;
* an erased account leaves only :func:`erased_key` (no name, no contact), so listings
  of finished games show its seats as :data:`ERASED_NAME`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

PresenceState = Literal["online", "away", "offline"]
ERASED_NAME = "deleted player"
REPORT_MESSAGES = 20  # the chat messages a report carries (the newest, up to its own)
MAX_FRIENDS = 500
MAX_PENDING = 100  # friend requests waiting, each way


def presence_key(player_id: str) -> str:
    """Set (with a short expiry, renewed) while a socket of the player is in use."""
    return f"orrery:gw:presence:{player_id}"


def away_key(player_id: str) -> str:
    """Set (with a short expiry, renewed) while a socket of the player is open but its
    page hidden or idle."""
    return f"orrery:gw:away:{player_id}"


def friends_key(player_id: str) -> str:
    """The player's friends (a set of player ids)."""
    return f"orrery:gw:friends:{player_id}"


def requests_sent_key(player_id: str) -> str:
    """Players the player asked to be friends, still waiting."""
    return f"orrery:gw:friends:sent:{player_id}"


def requests_received_key(player_id: str) -> str:
    """Players who asked the player to be friends, still waiting."""
    return f"orrery:gw:friends:received:{player_id}"


def blocked_by_key(player_id: str) -> str:
    """The players who blocked this player (the reverse of ``keys.blocks_key``)."""
    return f"orrery:gw:blocked-by:{player_id}"


def mute_key(player_id: str) -> str:
    """Set, until the end of an operator's mute, to that time (unix ms): the gateway
    refuses the player's chat messages meanwhile (``muted``)."""
    return f"orrery:gw:mute:{player_id}"


def erased_key(player_id: str) -> str:
    """Kept for ever once the player's account is erased: their seats in listings show
    :data:`ERASED_NAME`, and their sessions no longer pass."""
    return f"orrery:gw:erased:{player_id}"


def reported_key(table_id: str, message_id: str, reporter: str) -> str:
    """Set once a player reported a message (a second report of it is refused)."""
    return f"orrery:gw:reported:{table_id}:{message_id}:{reporter}"


REPORTS_STREAM = "orrery:gw:reports"  # field __data__: a ReportEvent as JSON; never trimmed


class ReportedMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A chat message as a report keeps it: what the table showed, and its author's
    player id (null: not known, such as a seat taken without an account)."""

    id: str
    seat: int | None = None
    spectator: bool = False
    name: str = ""
    text: str = ""
    at: int = 0
    deleted: bool = False
    player_id: str | None = None


class ReportFiled(msgspec.Struct, frozen=True, kw_only=True, tag="report.filed"):
    """A player reported message ``message_id`` of ``table_id``'s chat; ``messages``:
    the chat's newest :data:`REPORT_MESSAGES` messages then (oldest first), with the
    reported one among them."""

    report_id: str
    table_id: str
    message_id: str
    reporter: str
    author: str | None
    reason: str
    at: int
    messages: list[ReportedMessage]


ResolveAction = Literal["delete", "mute", "dismiss"]


class ReportResolved(msgspec.Struct, frozen=True, kw_only=True, tag="report.resolved"):
    """An operator resolved a report: deleted the message, muted its author for
    ``days`` or dismissed it (``note``: why, in their words)."""

    report_id: str
    action: ResolveAction
    days: int | None = None
    note: str = ""
    by: str = ""
    at: int


ReportEvent = ReportFiled | ReportResolved
report_event_encoder = msgspec.json.Encoder()
report_event_decoder = msgspec.json.Decoder(ReportEvent)
