"""The AsyncAPI 3 document of the gateway's WebSockets (``/v1/asyncapi.json``).

It describes the gateway (the application): on a table's socket it *receives* the
``auth`` frame, command frames and ``say`` frames, and *sends* view, outcome, chat and
error frames; on a player's socket it receives the ``auth`` frame and sends notices.
Frame schemas reference the OpenAPI document's components (same names, same
``#/components/schemas/…`` addresses), so a view frame's ``view`` is exactly what
``GET …/view`` answers and a command frame's ``body`` what ``POST …/commands`` takes:
one source, :class:`gateway.openapi.Schemas`, built from the contract's types.

Its schemas are AsyncAPI Schema Objects (JSON Schema draft 07 and a few keywords of its
own), not OpenAPI's: an AsyncAPI ``discriminator`` is the name of the property that
tells a union's members apart, where OpenAPI's is an object (``propertyName`` and a
``mapping``). So each OpenAPI discriminator becomes its ``propertyName``; every member
of such a union still fixes that property to its own value (an ``enum`` of one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from gateway.models import CHAT_TEXT_PATTERN, COMMAND_ID_PATTERN
from gateway.openapi import LICENSE, REF
from orrery_contracts.chat import MAX_CHAT_TEXT
from orrery_contracts.notices import Notice

if TYPE_CHECKING:
    from gateway.openapi import Schemas


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(name=name)}


def _frame(
    kind: str, properties: dict[str, Any], required: list[str], **extra: Any
) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"enum": [kind]}, **properties},
        "required": ["type", *required],
        **extra,
    }


FRAMES: dict[str, dict[str, Any]] = {
    "AuthFrame": _frame(
        "auth",
        {"token": {"type": "string", "description": "a session token (POST /v1/sessions)"}},
        ["token"],
        additionalProperties=False,
        description="The first frame a client sends, within 10 s of opening the socket: "
        "its session. Never put the session in the URL (`?token=` is refused).",
    ),
    "ViewFrame": _frame(
        "view", {"seq": {"type": "integer"}, "view": _ref("TableView")}, ["seq", "view"]
    ),
    "CommandFrame": _frame(
        "command",
        {"command_id": {"type": "string", "pattern": COMMAND_ID_PATTERN}, "body": _ref("Command")},
        ["command_id", "body"],
    ),
    "SayFrame": _frame(
        "say",
        {
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_CHAT_TEXT,
                "pattern": CHAT_TEXT_PATTERN,
                "description": "the chat line: no control or invisible characters, 1 to "
                f"{MAX_CHAT_TEXT} characters once NFC-normalised and stripped",
            }
        },
        ["text"],
    ),
    # the outcome document of POST …/commands (a rejection as its 422 body), typed "outcome"
    "OutcomeFrame": {
        "allOf": [
            _frame("outcome", {}, []),
            {"oneOf": [_ref("Accepted"), _ref("Duplicate"), _ref("ErrorBody")]},
        ]
    },
    # a message as GET …/chat lists it, typed "chat"
    "ChatFrame": {"allOf": [_frame("chat", {}, []), _ref("ChatMessage")]},
    "PresenceFrame": _frame(
        "presence",
        {
            "player_id": {"type": "string"},
            "presence": {"enum": ["online", "away", "offline"]},
        },
        ["player_id", "presence"],
        description="A friend's presence: each friend's when the socket opens, then each "
        "change (online: a page of theirs in use; away: open but hidden or idle; offline: "
        "no live socket).",
    ),
    "PresenceStateFrame": _frame(
        "presence",
        {"state": {"enum": ["online", "away"]}},
        ["state"],
        additionalProperties=False,
        description="My page is hidden or idle (away), or in use again (online); a socket "
        "counts as online until it says otherwise.",
    ),
    "ErrorFrame": _frame(
        "error",
        {
            "error": {"type": "string"},
            "message": {"type": "string"},
            "command_id": {"type": "string"},
        },
        ["error", "message"],
    ),
}

# name: (schema, summary)
MESSAGES = {
    "auth": ("AuthFrame", "my session: the first frame I send on either socket"),
    "view": ("ViewFrame", "the table's newest view for my seat (or the spectator's)"),
    "outcome": ("OutcomeFrame", "the outcome of a command frame I sent"),
    "chat": ("ChatFrame", "a chat message said after the socket opened (or its deletion)"),
    "error": ("ErrorFrame", "a refused frame, or the socket's refusal before it closes"),
    "command": ("CommandFrame", "a command for my seat"),
    "say": ("SayFrame", "a chat line to say (only a refusal is answered: an error frame)"),
    "notice": (
        "Notice",
        "a notice: one of my seats is to move, a ticket of mine is matched, a tournament "
        "round of mine is paired, a friend "
        "request or its acceptance, an invitation to a table or a party",
    ),
    "presence": ("PresenceFrame", "a friend's presence, when the socket opens and as it changes"),
    "presenceState": ("PresenceStateFrame", "my page is hidden or idle (away), or in use"),
}

CLOSE_CODES = (
    "A refused socket gets an error frame, then a close code 4000 + the HTTP status it "
    "stands for: 4401 no valid session (no auth frame within 10 s, a bad or expired "
    "session, or `?token=` in the URL), 4404 no such table, 4429 rate limited, 4503 "
    "unavailable."
)

SERVERS = {
    "gateway": {
        "host": "{host}",
        "protocol": "wss",
        "title": "the gateway behind TLS",
        "description": "The host (and port) of the gateway's HTTPS base URL: the sockets "
        "are on the same host as the HTTP API.",
        "variables": {"host": {"default": "localhost:8443"}},
    },
    "gatewayPlain": {
        "host": "{host}",
        "protocol": "ws",
        "title": "the gateway without TLS (local or behind a proxy)",
        "description": "The host and port `orrery gateway` prints in its base URL "
        "(`http://HOST:PORT`).",
        "variables": {"host": {"default": "localhost:8080"}},
    },
}


def _query(after: dict[str, Any]) -> dict[str, Any]:
    """A socket's query string: only ``after`` (a session is never in the URL)."""
    return {
        "ws": {
            "query": {
                "type": "object",
                "properties": {"after": after},
                "additionalProperties": False,
            },
            "bindingVersion": "0.1.0",
        }
    }


def asyncapi_schema(value: Any) -> Any:
    """An OpenAPI 3.1 schema as an AsyncAPI Schema Object: every ``discriminator``
    object becomes its ``propertyName``."""
    if isinstance(value, dict):
        out = {k: asyncapi_schema(v) for k, v in value.items()}
        discriminator = out.get("discriminator")
        if isinstance(discriminator, dict):
            out["discriminator"] = discriminator["propertyName"]
        return out
    if isinstance(value, list):
        return [asyncapi_schema(v) for v in value]
    return value


def asyncapi_document(openapi: dict[str, Any], schemas: Schemas) -> dict[str, Any]:
    """The WebSockets' AsyncAPI 3 document, on the OpenAPI document's schemas (all of
    them: the frames use some no HTTP operation does, ``Command`` for one)."""
    (notice,), notice_components = msgspec.json.schema_components([Notice], ref_template=REF)
    components = {
        **schemas.components,
        **notice_components,
        **FRAMES,
        "Notice": notice,
    }
    messages = {
        name: {"name": name, "summary": summary, "payload": _ref(schema)}
        for name, (schema, summary) in MESSAGES.items()
    }

    def channel_messages(*names: str) -> dict[str, Any]:
        return {name: {"$ref": f"#/components/messages/{name}"} for name in names}

    def operation(
        action: str, channel: str, summary: str, *names: str, reply: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        found: dict[str, Any] = {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel}"},
            "summary": summary,
            "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in names],
        }
        if reply:
            found["reply"] = {
                "channel": {"$ref": f"#/channels/{channel}"},
                "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in reply],
            }
        return found

    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Orrery gateway WebSockets",
            "version": openapi.get("info", {}).get("version", "1"),
            "description": "The live views of a table (with commands and chat sent back on "
            "the same socket) and a player's notices. Open the socket, then send the `auth` "
            "frame first. The HTTP API: /v1/openapi.json. " + CLOSE_CODES,
            "license": LICENSE,
        },
        "servers": SERVERS,
        "defaultContentType": "application/json",
        "channels": {
            "tableLive": {
                "address": "/v1/tables/{table_id}/live",
                "title": "a table's live views",
                "parameters": {"table_id": {"description": "the table"}},
                "messages": channel_messages(
                    "auth", "view", "outcome", "chat", "error", "command", "say", "presenceState"
                ),
                "bindings": _query(
                    {"type": "integer", "description": "send views newer than this seq"}
                ),
            },
            "playerLive": {
                "address": "/v1/players/me/live",
                "title": "my notices",
                "messages": channel_messages(
                    "auth", "notice", "presence", "error", "presenceState"
                ),
                "bindings": _query(
                    {"type": "string", "description": "notices after this stream id"}
                ),
            },
        },
        "operations": {
            "receiveTableAuth": operation(
                "receive", "tableLive", "the session, in the first frame", "auth"
            ),
            "sendTableFrames": operation(
                "send", "tableLive", "views as they change; refusals", "view", "outcome", "error"
            ),
            "receiveCommands": operation(
                "receive",
                "tableLive",
                "a command for my seat, answered by its outcome",
                "command",
                reply=("outcome", "error"),
            ),
            "receiveSay": operation(
                "receive", "tableLive", "a chat line; only a refusal is answered", "say"
            ),
            "sendChat": operation(
                "send", "tableLive", "chat messages said after the socket opened", "chat"
            ),
            "receivePlayerAuth": operation(
                "receive", "playerLive", "the session, in the first frame", "auth"
            ),
            "sendNotices": operation(
                "send",
                "playerLive",
                "my notices (your turn, matched, friends, invitations); refusals",
                "notice",
                "error",
            ),
            "sendPresence": operation(
                "send", "playerLive", "my friends' presence as it changes", "presence"
            ),
            "receiveTablePresence": operation(
                "receive", "tableLive", "my page hidden or idle, or in use", "presenceState"
            ),
            "receivePlayerPresence": operation(
                "receive", "playerLive", "my page hidden or idle, or in use", "presenceState"
            ),
        },
        "components": {"schemas": asyncapi_schema(components), "messages": messages},
    }
