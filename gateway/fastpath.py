"""The command route's fast path: ``POST /v1/tables/{table_id}/commands`` answered
without Litestar's request cycle, with the same answers.

A command is the one request a player sends many times a minute, and Litestar's cycle
around it (routing, the hooks, dependency injection, its own JSON parse of a body the
strict check had decoded already and a lax conversion of it, the response object)
cost the gateway more CPU than the command's own work (a profile of ``orrery bench
gateway``). So the app (:class:`gateway.app.GatewayApp`) hands such a
request here first, and this does what the route would: the session (its signature
checked once per process: gateway.sessions), the body read under the size cap and
decoded strictly once (depth first: gateway.bodies), the player's bucket, the command,
one encode of the outcome, the security headers (gateway.headers).

The rule that keeps the answers the same: anything this path does not expect — no or a
bad session, a body too large, too deep, not JSON or not a ``CommandIn``, a query
string, a browser origin when CORS is on, a repeated header — is *deferred* before any
side effect to the full app, with the body read so far handed back to it unchanged,
so every refusal is the one the route (and gateway.app's hooks) gives. From the
bucket on, errors are answered here by the same functions the app's exception handlers
use (gateway.errors). The route stays declared in Litestar for the OpenAPI document and
answers every request this path defers.
"""

from __future__ import annotations

import contextlib
import re
from typing import cast

import msgspec
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    HTTPScope,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)
from redis.exceptions import RedisError

from gateway.bodies import too_deep
from gateway.commands import answer_command
from gateway.core import Gateway
from gateway.errors import ApiError, api_error_body, internal_error_body, redis_error_body
from gateway.headers import headers_for
from gateway.models import CommandIn
from gateway.sessions import bearer

COMMAND_PATH = re.compile(r"/v1/tables/([^/]+)/commands\Z")
# the request headers read here (another header given twice is not this path's business)
_READ = frozenset((b"authorization", b"content-length", b"origin"))
_command_in = msgspec.json.Decoder(CommandIn)
_JSON_TYPE = (b"content-type", b"application/json")


def command_table(scope: Scope) -> str | None:
    """The table id when ``scope`` is a command request this path may take."""
    if scope["type"] != "http" or cast("HTTPScope", scope)["method"] != "POST":
        return None
    if scope["query_string"]:
        return None
    if scope.get("root_path"):
        return None
    matched = COMMAND_PATH.match(scope["path"])
    return matched.group(1) if matched else None


def _replaying(messages: list[ReceiveMessage], receive: Receive) -> Receive:
    """``receive`` that first hands back the messages already read."""
    pending = list(messages)

    async def replay() -> ReceiveMessage:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


class CommandPath:
    def __init__(self, gateway: Gateway, *, cors: bool) -> None:
        self.gateway = gateway
        self.max_body = gateway.settings.max_body_bytes
        self.cors = cors

    async def __call__(
        self, scope: Scope, receive: Receive, send: Send, table_id: str, app: ASGIApp
    ) -> None:
        read: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name in _READ:
                if name in read:
                    return await app(scope, receive, send)
                read[name] = value
        if self.cors and b"origin" in read:
            return await app(scope, receive, send)
        token = bearer(read.get(b"authorization", b"").decode("latin-1"))
        try:
            self.gateway.sessions.player(token)
            declared = int(read.get(b"content-length", b"0"))
        except (ApiError, ValueError):
            return await app(scope, receive, send)
        if declared > self.max_body:
            return await app(scope, receive, send)
        messages: list[ReceiveMessage] = []
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return await app(scope, _replaying(messages, receive), send)
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body:
                return await app(scope, _replaying(messages, receive), send)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        data: CommandIn | None = None
        if body and not too_deep(body):
            with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                data = _command_in.decode(body)
        if data is None:
            return await app(scope, _replaying(messages, receive), send)
        await self._answer(scope, send, token, table_id, data)

    async def _answer(
        self, scope: Scope, send: Send, token: str | None, table_id: str, data: CommandIn
    ) -> None:
        extra: dict[str, str] = {}
        try:
            player, _ = await self.gateway.player(token)
            status, body = await answer_command(self.gateway.commands, player, table_id, data)
        except ApiError as error:
            status, body, extra = api_error_body(error)
        except RedisError as error:
            status, body = redis_error_body(error, scope["path"])
        except Exception as error:
            status, body = internal_error_body(error, scope["path"])
        headers = [_JSON_TYPE, (b"content-length", str(len(body)).encode())]
        headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]
        headers += headers_for(scope["path"])
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": status,
            "headers": headers,
        }
        await send(start)
        whole: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": body,
            "more_body": False,
        }
        await send(whole)
