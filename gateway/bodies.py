"""Request bodies decoded strictly, and nesting bounded, before Litestar sees them.

Litestar converts a handler's ``data`` with msgspec in *lax* mode (``"2"`` becomes
``2``), and its untyped JSON parse recurses until Python's recursion limit (a body
nested thousands deep was a 500). So one app-wide ``before_request`` hook, run before
any parameter is parsed, checks every request body:

* nested deeper than :data:`MAX_DEPTH` arrays/objects → 400 ``malformed``, without
  building anything (a byte scan that skips strings; the same check guards WebSocket
  frames, :func:`too_deep`);
* not JSON → 400 ``malformed``;
* not the handler's declared ``data`` type, decoded strictly (no string → number or
  number → string coercion, unknown fields refused) → 422 ``malformed`` naming where.

A route that needs a session checks its signature first (no Redis: the bucket is taken
later, by the ``player`` dependency), so a caller without one still gets 401, whatever
the body.

The handlers keep their typed ``data`` parameters, so the OpenAPI document is unchanged;
Litestar's own lax conversion then only ever sees bodies that already fit.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from gateway.errors import ApiError
from gateway.sessions import Sessions, bearer

MAX_DEPTH = 32
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_QUOTE = ord('"')
_BACKSLASH = ord("\\")


def too_deep(raw: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text opens more than ``limit`` arrays/objects inside one another
    (strings skipped; an unclosed text counts as deep as it got)."""
    data = raw.encode() if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > limit:
                return True
        elif byte in _CLOSE:
            depth -= 1
    return False


def too_deep_error() -> ApiError:
    return ApiError(400, "malformed", f"JSON nested deeper than {MAX_DEPTH} levels")


# per route handler: (the strict decoder of its ``data``, whether it needs a session)
_handlers: dict[int, tuple[msgspec.json.Decoder[Any] | None, bool]] = {}


def _handler_of(request: Request[Any, Any, Any]) -> tuple[msgspec.json.Decoder[Any] | None, bool]:
    handler = request.route_handler
    key = id(handler)
    if key not in _handlers:
        parameters = handler.parsed_fn_signature.parameters
        data = parameters.get("data")
        decoder = msgspec.json.Decoder(data.annotation) if data is not None else None
        _handlers[key] = (decoder, "player" in parameters)
    return _handlers[key]


async def strict_body(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` hook: refuse a body that is too deep, not JSON, or not
    exactly the handler's ``data`` type."""
    if request.scope["type"] != "http" or request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    body = await request.body()
    if not body:
        return None
    decoder, needs_session = _handler_of(request)
    if needs_session:
        sessions: Sessions = request.app.state.gateway.sessions
        sessions.player(bearer(request.headers.get("authorization")))
    if too_deep(body):
        raise too_deep_error()
    try:
        if decoder is None:
            msgspec.json.decode(body)
        else:
            decoder.decode(body)
    except msgspec.ValidationError as error:
        raise ApiError(
            422, "malformed", f"the request does not fit the API ({error})"[:300]
        ) from None
    except msgspec.DecodeError:
        raise ApiError(400, "malformed", "the request body is not JSON") from None
    return None
