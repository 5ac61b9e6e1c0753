"""The HTTP routes under ``/v1`` (and the health checks): thin handlers over
:class:`gateway.tables.TableService`, documented in the OpenAPI document by their
msgspec models and the error bodies each may answer with.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import structlog
from litestar import Request, Response, get, post, route
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from gateway.chat import ChatHistory
from gateway.core import address_of, document, gateway_of, raw_json
from gateway.errors import ApiError
from gateway.models import (
    BotIn,
    ChatIn,
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
    TableDetail,
    TableList,
    TableMade,
)
from orrery_contracts import keys
from orrery_contracts.chat import ChatMessage
from orrery_contracts.lobby import LISTED_STATES
from orrery_contracts.table import LeaveTable, StartTable

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()

# WebSocket close codes (4000 + the HTTP status they stand for)

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
REPLAY = ResponseSpec(
    dict[str, Any],
    description="the TableView JSON after one command, with a `replay` member (ReplayStep)",
    generate_examples=False,
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


@post("/tables/{table_id:str}/chat", status_code=201, responses=_errors(403, 404, 422))
async def post_chat(
    table_id: str, data: ChatIn, player: str, request: Request[Any, Any, Any]
) -> ChatMessage:
    """Say something in the table's chat (as my seat, or as a spectator): the message.
    1-500 characters, no control characters; 429 ``rate_limited`` when I say too much."""
    return await gateway_of(request).chat.post(player, table_id, data.text)


@get("/tables/{table_id:str}/chat", responses=_errors(404, 422))
async def read_chat(
    table_id: str,
    player: str,
    request: Request[Any, Any, Any],
    after: Annotated[str | None, Parameter(description="a message id: only newer ones")] = None,
    limit: int = 100,
) -> ChatHistory:
    """The table's chat, oldest first (a deleted message is a marker: ``deleted``)."""
    return await gateway_of(request).chat.read(table_id, after, limit)


@get("/tables/{table_id:str}/view", responses={**_errors(404), 200: VIEW})
async def table_view(
    table_id: str, player: str, request: Request[Any, Any, Any]
) -> Response[bytes]:
    """My seat's view, or the spectator's when I hold no seat."""
    return raw_json(await gateway_of(request).tables.view(player, table_id))


@get("/tables/{table_id:str}", responses=_errors(404))
async def table_detail(table_id: str, player: str, request: Request[Any, Any, Any]) -> TableDetail:
    """One table: game, options, seats and players as the lobby shows them, bots, open
    seats, phase, whose turn, its last seq, when it was created and finished."""
    return await gateway_of(request).tables.detail(table_id)


@get("/tables/{table_id:str}/replay", responses={**_errors(404, 422), 200: REPLAY})
async def table_replay(
    table_id: str,
    player: str,
    request: Request[Any, Any, Any],
    at: Annotated[
        int | None, Parameter(description="a seq: the view after the command holding it")
    ] = None,
    step: Annotated[
        int | None, Parameter(description="a step: the view after the table's n-th command")
    ] = None,
    viewer: Annotated[
        str, Parameter(query="as", description="me (my seat, if I hold one) or spectator")
    ] = "me",
) -> Response[bytes]:
    """My view (a seat's only as itself, else the spectator's) after the command holding
    seq ``at`` (or after the ``step``-th command; neither: now), with ``replay``: where
    it stands (``seq`` shown, ``at`` asked, the step, the steps around it)."""
    return raw_json(await gateway_of(request).tables.replay(player, table_id, at, step, viewer))


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
