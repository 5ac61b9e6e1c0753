"""The AsyncAPI 3 document of the gateway's WebSockets (``/v1/asyncapi.json``).

It describes the gateway (the application): on a table's socket it *sends* view,
outcome and error frames and *receives* command frames; on a player's socket it sends
notices. Frame schemas reference the OpenAPI document's components (same names, same
``#/components/schemas/…`` addresses), so a view frame's ``view`` is exactly what
``GET …/view`` answers and a command frame's ``body`` what ``POST …/commands`` takes:
one source, :class:`gateway.openapi.Schemas`, built from the contract's types.
"""

from __future__ import annotations

from typing import Any

import msgspec

from gateway.models import COMMAND_ID_PATTERN
from gateway.openapi import REF
from orrery_contracts.notices import Notice


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(name=name)}


def _frame(kind: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"enum": [kind]}, **properties},
        "required": ["type", *required],
    }


FRAMES: dict[str, dict[str, Any]] = {
    "ViewFrame": _frame(
        "view", {"seq": {"type": "integer"}, "view": _ref("TableView")}, ["seq", "view"]
    ),
    "CommandFrame": _frame(
        "command",
        {"command_id": {"type": "string", "pattern": COMMAND_ID_PATTERN}, "body": _ref("Command")},
        ["command_id", "body"],
    ),
    # the outcome document of POST …/commands (a rejection as its 422 body), typed "outcome"
    "OutcomeFrame": {
        "allOf": [
            _frame("outcome", {}, []),
            {"oneOf": [_ref("Accepted"), _ref("Duplicate"), _ref("ErrorBody")]},
        ]
    },
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

MESSAGES = {
    "view": ("ViewFrame", "the table's newest view for my seat (or the spectator's)"),
    "outcome": ("OutcomeFrame", "the outcome of a command frame I sent"),
    "error": ("ErrorFrame", "a refused frame, or the socket's refusal before it closes"),
    "command": ("CommandFrame", "a command for my seat"),
    "notice": ("Notice", "a notice: one of my seats is to move"),
}

CLOSE_CODES = (
    "A refused socket gets an error frame, then a close code 4000 + the HTTP status it "
    "stands for: 4401 no valid session, 4404 no such table, 4429 rate limited, 4503 "
    "unavailable."
)


def _query(after: dict[str, Any]) -> dict[str, Any]:
    return {
        "ws": {
            "query": {
                "type": "object",
                "properties": {"token": {"type": "string"}, "after": after},
                "required": ["token"],
            }
        }
    }


def asyncapi_document(openapi: dict[str, Any]) -> dict[str, Any]:
    """The WebSockets' AsyncAPI 3 document, on the OpenAPI document's schemas."""
    (notice,), notice_components = msgspec.json.schema_components([Notice], ref_template=REF)
    schemas = {
        **openapi["components"]["schemas"],
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

    def operation(action: str, channel: str, *names: str) -> dict[str, Any]:
        return {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel}"},
            "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in names],
        }

    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Orrery gateway WebSockets",
            "version": openapi.get("info", {}).get("version", "1"),
            "description": "The live views of a table (with commands sent back on the same "
            "socket) and a player's notices. The HTTP API: /v1/openapi.json. " + CLOSE_CODES,
        },
        "defaultContentType": "application/json",
        "channels": {
            "tableLive": {
                "address": "/v1/tables/{table_id}/live",
                "title": "a table's live views",
                "parameters": {"table_id": {"description": "the table"}},
                "messages": channel_messages("view", "outcome", "error", "command"),
                "bindings": _query(
                    {"type": "integer", "description": "send views newer than this seq"}
                ),
            },
            "playerLive": {
                "address": "/v1/players/me/live",
                "title": "my notices",
                "messages": channel_messages("notice", "error"),
                "bindings": _query(
                    {"type": "string", "description": "notices after this stream id"}
                ),
            },
        },
        "operations": {
            "sendTableFrames": operation("send", "tableLive", "view", "outcome", "error"),
            "receiveCommands": operation("receive", "tableLive", "command"),
            "sendNotices": operation("send", "playerLive", "notice", "error"),
        },
        "components": {"schemas": schemas, "messages": messages},
    }
