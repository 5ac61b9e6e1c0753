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
  One lax step is taken, because JSON Schema takes it: a number with no fraction is an
  ``integer`` whatever its spelling, so ``2.0`` (or ``2e0``) where an integer goes is
  ``2`` (:func:`integral`); ``2.5`` and ``"2"`` stay refused.

A route that needs a session checks its signature first (no Redis: the bucket is taken
later, by the ``player`` dependency), so a caller without one still gets 401, whatever
the body.

The handlers keep their typed ``data`` parameters, so the OpenAPI document is unchanged;
Litestar's own lax conversion then only ever sees bodies that already fit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

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


def integral(value: Any) -> Any:
    """``value`` (decoded JSON) with every finite float that has no fraction made an
    ``int``, at any depth: JSON Schema's ``integer`` is a number that is a whole number,
    so ``2.0`` is one. A float a type declares stays a float where it goes (msgspec
    takes an ``int`` for a ``float``), and a float with a fraction stays what it was."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [integral(v) for v in value]
    return value


def too_deep_error() -> ApiError:
    return ApiError(400, "malformed", f"JSON nested deeper than {MAX_DEPTH} levels")


class _Handler(NamedTuple):
    """What the hook needs to know of a route handler."""

    decoder: msgspec.json.Decoder[Any] | None  # strict, for its ``data`` (None: no body)
    data: Any  # the type of its ``data``
    needs_session: bool


_handlers: dict[int, _Handler] = {}


def _handler_of(request: Request[Any, Any, Any]) -> _Handler:
    handler = request.route_handler
    key = id(handler)
    if key not in _handlers:
        parameters = handler.parsed_fn_signature.parameters
        data = parameters.get("data")
        annotation = data.annotation if data is not None else None
        decoder = msgspec.json.Decoder(annotation) if data is not None else None
        _handlers[key] = _Handler(decoder, annotation, "player" in parameters)
    return _handlers[key]


def decode_strictly(body: bytes, decoder: msgspec.json.Decoder[Any], data: Any) -> Any:
    """``body`` decoded strictly as ``data``, integral floats taken as integers
    (:func:`integral`; tried only when the plain strict decode fails, so a body that
    fits costs one decode). Raises msgspec's DecodeError or ValidationError."""
    try:
        return decoder.decode(body)
    except msgspec.ValidationError as error:
        try:
            return msgspec.convert(integral(msgspec.json.decode(body)), data, strict=True)
        except msgspec.ValidationError:
            raise error from None


async def strict_body(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` hook: refuse a body that is too deep, not JSON, or not
    exactly the handler's ``data`` type."""
    if request.scope["type"] != "http" or request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if request.route_handler.opt.get("form_body"):  # a form's POST (RFC 8058 unsubscribe)
        return None
    body = await request.body()
    if not body:
        return None
    handler = _handler_of(request)
    if handler.needs_session:
        sessions: Sessions = request.app.state.gateway.sessions
        sessions.player(bearer(request.headers.get("authorization")))
    if too_deep(body):
        raise too_deep_error()
    try:
        if handler.decoder is None:
            msgspec.json.decode(body)
        else:
            decode_strictly(body, handler.decoder, handler.data)
    except msgspec.ValidationError as error:
        raise ApiError(
            422, "malformed", f"the request does not fit the API ({error})"[:300]
        ) from None
    except msgspec.DecodeError:
        raise ApiError(400, "malformed", "the request body is not JSON") from None
    return None
