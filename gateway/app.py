"""The gateway's ASGI application (Litestar): routes, auth, limits, errors, OpenAPI.

Every route under ``/v1`` but sign-up, sign-in and the OpenAPI document needs a
session (``Authorization: Bearer <token>``; WebSockets: ``?token=``) and takes a token
from the player's bucket. Bodies are capped (413), errors are
``{"error", "message"}`` with no stack trace, the OpenAPI 3.1 document is generated
from the msgspec models at ``/v1/openapi.json``, and ``/`` serves the static web client
from ``clients/web/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
import structlog
from litestar import Litestar, Request, Response, Router, WebSocket, get, post, route, websocket
from litestar.config.cors import CORSConfig
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import Parameter
from litestar.static_files import create_static_files_router

from contracts import keys
from contracts.lobby import LISTED_STATES
from contracts.table import LeaveTable, StartTable
from gateway.accounts import Accounts
from gateway.errors import EXCEPTION_HANDLERS, ApiError
from gateway.live import LiveHub
from gateway.models import (
    BotIn,
    CommandIn,
    Credentials,
    ErrorBody,
    Health,
    JoinIn,
    Leaderboard,
    Me,
    NewPlayer,
    NewTable,
    PlayerCreated,
    SeatOut,
    Session,
    TableList,
    TableMade,
)
from gateway.ratelimit import RateLimiter
from gateway.sessions import Sessions, bearer
from gateway.settings import Settings
from gateway.tables import Replayer, TableService, seat_of
from gateway.wire import GatewayClient

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()

# WebSocket close codes (4000 + the HTTP status they stand for)
WS_UNAUTHORIZED = 4401
WS_NOT_FOUND = 4404
WS_RATE_LIMITED = 4429
WS_UNAVAILABLE = 4503


@dataclass
class Gateway:
    """Everything a request needs, made once per process."""

    settings: Settings
    client: GatewayClient
    accounts: Accounts
    sessions: Sessions
    limiter: RateLimiter
    tables: TableService
    hub: LiveHub
    connected: bool = False

    @classmethod
    def create(cls, settings: Settings, replayer: Replayer | None = None) -> Gateway:
        client = GatewayClient(settings.redis_url)
        accounts = Accounts(client.redis)
        return cls(
            settings=settings,
            client=client,
            accounts=accounts,
            sessions=Sessions(settings.secret_key, settings.session_ttl_s),
            limiter=RateLimiter(client.redis),
            tables=TableService(
                client,
                accounts,
                settings.secret_key,
                command_timeout_s=settings.command_timeout_s,
                replayer=replayer,
            ),
            hub=LiveHub(client),
        )

    async def connect(self) -> None:
        """Connect to the service, retrying until it is there (the process serves
        /healthz meanwhile, and /readyz says why it is not ready)."""
        while True:
            try:
                await self.client.connect(timeout=2.0)
                self.connected = True
                return
            except Exception as error:
                log.warning("gateway_not_connected", error=type(error).__name__)
                await asyncio.sleep(1.0)

    def require_connected(self) -> None:
        if not self.connected:
            raise ApiError(503, "unavailable", "the gateway is not connected to the service yet")

    async def player(self, token: str | None) -> tuple[str, int]:
        """The session's player (and its expiry), after taking a token from its bucket."""
        self.require_connected()
        player_id, expires = self.sessions.player(token)
        await self.limiter.take(player_id, self.settings.rate_per_s, self.settings.burst)
        return player_id, expires

    async def anonymous(self, address: str) -> None:
        self.require_connected()
        s = self.settings
        await self.limiter.take(f"ip:{address}", s.anonymous_rate_per_s, s.anonymous_burst)


def gateway_of(connection: Request[Any, Any, Any] | WebSocket[Any, Any, Any]) -> Gateway:
    gateway: Gateway = connection.app.state.gateway
    return gateway


def address_of(request: Request[Any, Any, Any]) -> str:
    return request.client.host if request.client else "unknown"


async def provide_player(request: Request[Any, Any, Any]) -> str:
    gateway = gateway_of(request)
    player_id, _ = await gateway.player(bearer(request.headers.get("authorization")))
    return player_id


def raw_json(raw: bytes, status: int = 200) -> Response[bytes]:
    return Response(raw, status_code=status, media_type="application/json")


def document(status: int, body: Any) -> Response[bytes]:
    return Response(_json.encode(body), status_code=status, media_type="application/json")


ERRORS = {
    401: ResponseSpec(ErrorBody, description="no valid session", generate_examples=False),
    429: ResponseSpec(ErrorBody, description="rate limited", generate_examples=False),
}


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    described = {
        403: "not allowed",
        404: "no such table",
        409: "conflict (taken, full, started, exists)",
        413: "body too large",
        422: "refused input, or the command's rejection",
    }
    specs = dict(ERRORS)
    for status in statuses:
        specs[status] = ResponseSpec(
            ErrorBody, description=described.get(status, "error"), generate_examples=False
        )
    return specs


OUTCOME = ResponseSpec(dict[str, Any], description="the outcome document", generate_examples=False)
VIEW = ResponseSpec(
    dict[str, Any], description="the stored TableView JSON", generate_examples=False
)

STATE_HELP = "one of: " + ", ".join(LISTED_STATES)

# ---------------------------------------------------------------- public routes


@post("/players", status_code=201, responses=_errors(409, 422))
async def create_player(data: NewPlayer, request: Request[Any, Any, Any]) -> PlayerCreated:
    """Create an account."""
    gateway = gateway_of(request)
    await gateway.anonymous(address_of(request))
    account = await gateway.accounts.create(data.name, data.password)
    log.info("player_created", player_id=account.player_id)
    return PlayerCreated(player_id=account.player_id, name=account.name)


@post("/sessions", status_code=200, responses=_errors())
async def create_session(data: Credentials, request: Request[Any, Any, Any]) -> Session:
    """Sign in: a bearer token for the other endpoints."""
    gateway = gateway_of(request)
    await gateway.anonymous(address_of(request))
    account = await gateway.accounts.verify(data.name, data.password)
    token, expires_at = gateway.sessions.issue(account.player_id)
    return Session(token=token, player_id=account.player_id, expires_at=expires_at)


@get("/v1/openapi.json", include_in_schema=False)
async def openapi_document(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The OpenAPI 3.1 document of this API."""
    return raw_json(_json.encode(request.app.openapi_schema.to_schema()))


@get("/healthz", include_in_schema=True)
async def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@get("/readyz", responses={503: ResponseSpec(ErrorBody, description="not ready")})
async def readyz(request: Request[Any, Any, Any]) -> Response[bytes]:
    """Redis is reachable and the consumer groups the service needs exist."""
    gateway = gateway_of(request)
    redis = gateway.client.redis
    try:
        await redis.ping()
        if not gateway.connected:
            raise ApiError(503, "not_ready", "the gateway has not connected to the service yet")
        stored = await redis.hget(keys.CONFIG_KEY, "partitions")
        if stored is None:
            raise ApiError(503, "not_ready", "the service has not initialised orrery:config")
        for p in range(int(stored)):
            for stream, wanted in (
                (keys.command_stream(p), {keys.DECIDERS_GROUP}),
                (keys.feed_stream(p), set(keys.PROJECTION_GROUPS)),
            ):
                groups = {g["name"].decode() for g in await redis.xinfo_groups(stream)}
                if not wanted <= groups:
                    raise ApiError(503, "not_ready", f"consumer groups missing on {stream}")
    except ApiError:
        raise
    except Exception as error:
        raise ApiError(503, "not_ready", f"Redis: {type(error).__name__}") from None
    return document(200, Health(status="ready"))


# ---------------------------------------------------------------- with a session


@get("/players/me", responses=_errors())
async def me(player: str, request: Request[Any, Any, Any]) -> Me:
    """My account, ratings and the tables where I hold a seat."""
    return await gateway_of(request).tables.me(player)


@post("/tables", status_code=201, responses=_errors(422))
async def create_table(data: NewTable, player: str, request: Request[Any, Any, Any]) -> TableMade:
    """Create a table (a private one gets an invite and is never listed)."""
    return await gateway_of(request).tables.create(
        player, data.game, data.seats, data.options, data.private
    )


@get("/tables", responses=_errors(422))
async def list_tables(
    player: str,
    request: Request[Any, Any, Any],
    game: str | None = None,
    table_state: Annotated[str, Parameter(query="state", description=STATE_HELP)] = "open",
    limit: int = 20,
    cursor: str | None = None,
) -> TableList:
    """The lobby: public tables by state (newest first), a page at a time."""
    return await gateway_of(request).tables.listing(game, table_state, limit, cursor)


@post("/tables/{table_id:str}/join", status_code=200, responses=_errors(403, 404, 409, 422))
async def join_table(
    table_id: str, player: str, request: Request[Any, Any, Any], data: JoinIn | None = None
) -> SeatOut:
    """Take a seat (``seat``: that one; ``invite``: a private table's)."""
    data = data or JoinIn()
    seat = await gateway_of(request).tables.join(player, table_id, data.seat, data.invite)
    return SeatOut(seat=seat)


@post("/tables/{table_id:str}/bots", status_code=200, responses=_errors(403, 404, 409, 422))
async def add_bot(
    table_id: str, player: str, request: Request[Any, Any, Any], data: BotIn | None = None
) -> SeatOut:
    """A server-side bot takes an open seat and plays it."""
    data = data or BotIn()
    seat = await gateway_of(request).tables.add_bot(player, table_id, data.seat)
    return SeatOut(seat=seat)


@post(
    "/tables/{table_id:str}/start",
    status_code=200,
    responses={**_errors(403, 404, 422), 200: OUTCOME},
)
async def start_table(
    table_id: str, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """Start the table (every seat taken)."""
    status, body = await gateway_of(request).tables.lifecycle(player, table_id, StartTable())
    return document(status, body)


@post(
    "/tables/{table_id:str}/leave",
    status_code=200,
    responses={**_errors(403, 404, 422), 200: OUTCOME},
)
async def leave_table(
    table_id: str, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """Leave: before the start the seat opens again; after it, the seat concedes."""
    status, body = await gateway_of(request).tables.lifecycle(player, table_id, LeaveTable())
    return document(status, body)


@post(
    "/tables/{table_id:str}/commands",
    status_code=200,
    responses={**_errors(403, 404, 422), 200: OUTCOME},
)
async def send_command(
    table_id: str, data: CommandIn, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """Send a command for my seat: 200 accepted or duplicate, 422 rejected."""
    status, body = await gateway_of(request).tables.command(
        player, table_id, data.command_id, data.body
    )
    return document(status, body)


@get("/tables/{table_id:str}/view", responses={**_errors(404), 200: VIEW})
async def table_view(
    table_id: str, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """My seat's view, or the spectator's when I hold no seat."""
    return raw_json(await gateway_of(request).tables.view(player, table_id))


@get("/tables/{table_id:str}/replay", responses={**_errors(404, 422), 200: VIEW})
async def table_replay(
    table_id: str, at: int, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """My view (a seat's only as itself, else the spectator's) at seq ``at``."""
    return raw_json(await gateway_of(request).tables.replay(player, table_id, at))


@get("/leaderboard/{game:str}", responses=_errors(404))
async def leaderboard(
    game: str, player: str, request: Request[Any, Any, Any], limit: int = 20
) -> Leaderboard:
    """The top rated players of a game (verified players only)."""
    return await gateway_of(request).tables.leaderboard(game, limit)


@route(
    "/{rest:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def no_such_route(rest: str) -> None:
    """Unknown API paths answer in the API's error format (not the web client's 404)."""
    raise ApiError(404, "not_found", "no such resource")


# ---------------------------------------------------------------- WebSockets


class _Frame(msgspec.Struct):
    type: str
    command_id: str | None = None
    body: dict[str, Any] | None = None


_frame = msgspec.json.Decoder(_Frame)


class _Phase(msgspec.Struct):
    seq: int = 0
    phase: str = ""


_phase = msgspec.json.Decoder(_Phase)


def _int_param(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


async def _refuse(socket: WebSocket[Any, Any, Any], error: ApiError) -> None:
    close = {401: WS_UNAUTHORIZED, 404: WS_NOT_FOUND, 429: WS_RATE_LIMITED}.get(
        error.status, WS_UNAVAILABLE
    )
    with contextlib.suppress(Exception):
        await socket.send_text(
            json.dumps({"type": "error", "error": error.code, "message": error.message})
        )
        await socket.close(code=close, reason=error.code)


class _Connection:
    """One WebSocket: pushes views, runs the commands the client sends."""

    def __init__(
        self, socket: WebSocket[Any, Any, Any], gateway: Gateway, player: str, expires: int
    ) -> None:
        self.socket = socket
        self.gateway = gateway
        self.player = player
        self.expires = expires
        self.send_lock = asyncio.Lock()

    async def send(self, text: str | bytes) -> None:
        async with self.send_lock:
            await self.socket.send_text(text if isinstance(text, str) else text.decode())

    def expired(self) -> bool:
        return time.time() >= self.expires

    async def receive_commands(self, table_id: str) -> None:
        while True:
            text = await self.socket.receive_text()
            if self.expired():
                raise ApiError(401, "session_expired", "the session has expired; sign in again")
            try:
                frame = _frame.decode(text)
            except (msgspec.DecodeError, msgspec.ValidationError):
                await self.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": "malformed",
                            "message": 'a frame is JSON: {"type": "command", "command_id", "body"}',
                        }
                    )
                )
                continue
            if frame.type != "command" or frame.command_id is None or frame.body is None:
                await self.send(
                    json.dumps(
                        {
                            "type": "error",
                            "error": "malformed",
                            "message": 'a frame is {"type": "command", "command_id", "body"}',
                        }
                    )
                )
                continue
            try:
                await self.gateway.limiter.take(
                    self.player, self.gateway.settings.rate_per_s, self.gateway.settings.burst
                )
                _, body = await self.gateway.tables.command(
                    self.player, table_id, frame.command_id, frame.body
                )
                await self.send(_json.encode({"type": "outcome", **body}))
            except ApiError as error:
                await self.send(
                    _json.encode(
                        {
                            "type": "error",
                            "error": error.code,
                            "message": error.message,
                            "command_id": frame.command_id,
                        }
                    )
                )


@websocket("/tables/{table_id:str}/live")
async def table_live(socket: WebSocket[Any, Any, Any], table_id: str) -> None:
    """Views pushed as ``{"type": "view", "seq", "view"}`` after ``after``; send
    ``{"type": "command", "command_id", "body"}`` to act (answer: ``{"type": "outcome"}``)."""
    gateway = gateway_of(socket)
    await socket.accept()
    try:
        player, expires = await gateway.player(socket.query_params.get("token"))
        record = await gateway.tables.record(table_id)
    except ApiError as error:
        await _refuse(socket, error)
        return
    after = _int_param(socket.query_params.get("after"), -1)
    connection = _Connection(socket, gateway, player, expires)
    viewer = seat_of(record, player)
    async with gateway.hub.subscribe(table_id, viewer, after) as subscriber:

        async def push() -> None:
            while True:
                seq, raw = await subscriber.next()
                if connection.expired():
                    raise ApiError(401, "session_expired", "the session has expired; sign in again")
                if _phase.decode(raw).phase == "lobby":
                    # Seats change hands only in the lobby: follow my seat if I just took one.
                    current = await gateway.tables.record(table_id)
                    seat = seat_of(current, player)
                    if seat != subscriber.viewer:
                        subscriber.viewer = seat
                        raw = await gateway.client.view_raw(table_id, seat) or raw
                        seq = _phase.decode(raw).seq
                        subscriber.sent = max(subscriber.sent, seq)
                await connection.send(b'{"type":"view","seq":%d,"view":%s}' % (seq, raw))

        tasks = [
            asyncio.create_task(push()),
            asyncio.create_task(connection.receive_commands(table_id)),
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                failure = task.exception()
                if isinstance(failure, ApiError):
                    await _refuse(socket, failure)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task


@websocket("/players/me/live")
async def player_live(socket: WebSocket[Any, Any, Any]) -> None:
    """My notices ("your turn" at any of my tables), one JSON frame per entry."""
    gateway = gateway_of(socket)
    await socket.accept()
    try:
        player, expires = await gateway.player(socket.query_params.get("token"))
    except ApiError as error:
        await _refuse(socket, error)
        return
    redis = gateway.client.redis
    stream = keys.player_notice_stream(player)
    after = socket.query_params.get("after")
    if not after or not all(part.isdigit() for part in after.split("-", 1)):
        newest = await redis.xrevrange(stream, count=1)
        after = newest[0][0].decode() if newest else "0-0"

    async def forward(last: str) -> None:
        while True:
            if time.time() >= expires:
                raise ApiError(401, "session_expired", "the session has expired; sign in again")
            entries = await redis.xread({stream: last}, block=1000, count=100)
            for _, rows in entries:
                for entry_id, fields in rows:
                    last = entry_id.decode()
                    data = fields.get(b"__data__")
                    if data:
                        await socket.send_text(data.decode())

    async def drain() -> None:
        while True:
            await socket.receive_text()

    tasks = [asyncio.create_task(forward(after)), asyncio.create_task(drain())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            failure = task.exception()
            if isinstance(failure, ApiError):
                await _refuse(socket, failure)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


# ---------------------------------------------------------------- the app


def create_app(settings: Settings, replayer: Replayer | None = None) -> Litestar:
    gateway = Gateway.create(settings, replayer)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        connecting = asyncio.create_task(gateway.connect())
        try:
            yield
        finally:
            connecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await connecting
            await gateway.client.close()

    bearer_only: list[dict[str, list[str]]] = [{"bearer": []}]
    protected = Router(
        path="/v1",
        route_handlers=[
            me,
            create_table,
            list_tables,
            join_table,
            add_bot,
            start_table,
            leave_table,
            send_command,
            table_view,
            table_replay,
            leaderboard,
        ],
        dependencies={"player": Provide(provide_player)},
        security=bearer_only,
    )
    public = Router(
        path="/v1",
        route_handlers=[create_player, create_session, table_live, player_live, no_such_route],
    )
    handlers: list[Any] = [healthz, readyz, openapi_document, public, protected]
    if settings.web_dir is not None and settings.web_dir.is_dir():
        handlers.append(
            create_static_files_router(
                path="/", directories=[settings.web_dir], html_mode=True, include_in_schema=False
            )
        )
    cors = (
        CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type"],
            max_age=600,
        )
        if settings.cors_origins
        else None
    )
    app = Litestar(
        route_handlers=handlers,
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors,
        logging_config=None,
        debug=False,
        openapi_config=OpenAPIConfig(
            title="Orrery gateway",
            version="1",
            description="Accounts, sessions, a lobby, tables, bots, views and live pushes.",
            # Swagger UI at /v1/docs; the document itself at /v1/openapi.json (below: the
            # plugin's own router would answer every unknown /v1 path with an HTML 404).
            path="/v1/docs",
            render_plugins=[SwaggerRenderPlugin(path="/")],
            components=Components(
                security_schemes={
                    "bearer": SecurityScheme(type="http", scheme="bearer", bearer_format="JWT")
                }
            ),
        ),
    )
    app.state.gateway = gateway
    return app
