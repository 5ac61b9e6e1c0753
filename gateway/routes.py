"""The HTTP routes under ``/v1`` (and the health checks): thin handlers over the table
resources (gateway.lobby, gateway.table_bots, gateway.commands, gateway.views,
gateway.replays, gateway.my_games, gateway.leaderboards), documented in the OpenAPI
document by their msgspec models and the error bodies each may answer with.

Each operation has a short ``operationId`` and one tag (its resource), so a generated
client gets one module per resource and functions named ``get_view``, ``send_command``.
The statuses listed here are the operation's own; :mod:`gateway.openapi` adds those
every operation may answer (400, 401, 413, 422, 429, 503) and the typed play bodies.

Handlers name what they need and Litestar injects it (gateway.app declares the
dependencies): ``gateway`` (the process's :class:`gateway.core.Gateway`), the table
resource it serves (``lobby``, ``commands``, ...: gateway.core) and, under the session
router, ``player`` (the bearer token's player id). Injected parameters are not
request parameters: they never appear in the OpenAPI document.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import structlog
from litestar import Litestar, Request, Response, get, post, route
from litestar.openapi import ResponseSpec
from litestar.params import Parameter

from gateway.chat import ChatHistory
from gateway.commands import Commands, answer_command
from gateway.core import Gateway, address_of, document, raw_json
from gateway.errors import ApiError
from gateway.leaderboards import Leaderboards
from gateway.lobby import Lobby
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
    PastGames,
    PlayerCreated,
    Readiness,
    SeatOut,
    Session,
    TableDetail,
    TableList,
    TableMade,
)
from gateway.my_games import MyGames
from gateway.openapi import ASYNCAPI_PATH
from gateway.relations import hidden_from
from gateway.replays import Replays
from gateway.table_bots import TableBots
from gateway.tables import MAX_LIST
from gateway.views import Views
from orrery_contracts import keys
from orrery_contracts.chat import ChatMessage
from orrery_contracts.lobby import LISTED_STATES

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    """The error answers particular to an operation (the common ones: gateway.openapi)."""
    described = {
        401: "wrong name or password",
        403: "not allowed",
        404: "no such table (or seq, step, view)",
        409: "conflict (taken, full, started, exists)",
        501: "this gateway serves no replays",
        504: "no outcome in time: send the same command id again",
    }
    specs = {}
    for status in statuses:
        specs[status] = ResponseSpec(
            ErrorBody, description=described.get(status, "error"), generate_examples=False
        )
    return specs


# Placeholders: gateway.openapi puts the contract's types here (by operationId).
OUTCOME = ResponseSpec(
    dict[str, Any], description="the outcome: accepted or duplicate", generate_examples=False
)
VIEW = ResponseSpec(dict[str, Any], description="the table's view", generate_examples=False)
REPLAY = ResponseSpec(
    dict[str, Any],
    description="the view after one command, with a `replay` member (ReplayStep)",
    generate_examples=False,
)

STATE_HELP = "one of: " + ", ".join(LISTED_STATES)
Limit = Annotated[int, Parameter(ge=1, le=MAX_LIST, description=f"1 to {MAX_LIST}")]

# ---------------------------------------------------------------- public routes


@post(
    "/players",
    status_code=201,
    responses=_errors(409),
    operation_id="createPlayer",
    tags=["players"],
)
async def create_player(
    data: NewPlayer, request: Request[Any, Any, Any], gateway: Gateway
) -> PlayerCreated:
    """Create an account."""
    await gateway.anonymous(address_of(request))
    account = await gateway.accounts.create(data.name, data.password)
    log.info("player_created", player_id=account.player_id)
    return PlayerCreated(player_id=account.player_id, name=account.name)


@post(
    "/sessions",
    status_code=200,
    responses=_errors(401),
    operation_id="createSession",
    tags=["sessions"],
)
async def create_session(
    data: Credentials, request: Request[Any, Any, Any], gateway: Gateway
) -> Session:
    """Sign in: a bearer token for the other endpoints."""
    await gateway.anonymous(address_of(request))
    account = await gateway.accounts.verify(data.name, data.password)
    token, expires_at = gateway.sessions.issue(account.player_id)
    return Session(token=token, player_id=account.player_id, expires_at=expires_at)


def _documents(app: Litestar) -> tuple[bytes, bytes]:
    """The OpenAPI and AsyncAPI documents (built with the app: gateway.app)."""
    documents: tuple[bytes, bytes] = app.state.documents
    return documents


@get("/v1/openapi.json", include_in_schema=False)
async def serve_openapi(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The OpenAPI 3.1 document of this API."""
    return raw_json(_documents(request.app)[0])


@get(ASYNCAPI_PATH, include_in_schema=False)
async def serve_asyncapi(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The AsyncAPI 3 document of the WebSockets (their frames)."""
    return raw_json(_documents(request.app)[1])


@get("/healthz", operation_id="getHealth", tags=["health"])
async def healthz() -> Health:
    """The process is up."""
    return Health(status="ok")


@get(
    "/readyz",
    responses={503: ResponseSpec(ErrorBody, description="not ready", generate_examples=False)},
    operation_id="getReadiness",
    tags=["health"],
)
async def readyz(gateway: Gateway) -> Readiness:
    """Redis is reachable and the consumer groups the service needs exist."""
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
    return Readiness(status="ready")


# ---------------------------------------------------------------- with a session


@get("/players/me", operation_id="getMe", tags=["players"])
async def me(player: str, my_games: MyGames) -> Me:
    """My account, ratings and the tables where I hold a seat."""
    return await my_games.me(player)


@get(
    "/players/me/games",
    responses=_errors(422),
    operation_id="myGames",
    tags=["players"],
)
async def my_games(
    player: str,
    my_games: MyGames,
    game: Annotated[str | None, Parameter(description="only this game's tables")] = None,
    cursor: Annotated[str | None, Parameter(description="the `next` of the page before")] = None,
    limit: Annotated[int, Parameter(ge=1, le=100, description="tables per page")] = 20,
) -> PastGames:
    """My finished (and closed) games, newest finish first, live and archived: game,
    every seat with its name, rank and score, my seat, when it finished; a page at a
    time."""
    return await my_games.games(player, game, cursor, limit)


@post(
    "/tables", status_code=201, responses=_errors(504), operation_id="createTable", tags=["tables"]
)
async def create_table(data: NewTable, player: str, lobby: Lobby) -> TableMade:
    """Create a table (a private one gets an invite and is never listed)."""
    return await lobby.create(
        player,
        data.game,
        data.seats,
        data.options,
        data.private,
        rated=data.rated,
        on_abandon=data.on_abandon,
        bot_level=data.bot_level,
    )


@get("/tables", operation_id="listTables", tags=["tables"])
async def list_tables(
    player: str,
    lobby: Lobby,
    game: str | None = None,
    table_state: Annotated[str, Parameter(query="state", description=STATE_HELP)] = "open",
    limit: Limit = 20,
    cursor: str | None = None,
) -> TableList:
    """The lobby: public tables by state (newest first), a page at a time."""
    return await lobby.listing(game, table_state, limit, cursor)


@post(
    "/tables/{table_id:str}/join",
    status_code=200,
    responses=_errors(403, 404, 409, 504),
    operation_id="joinTable",
    tags=["tables"],
)
async def join_table(
    table_id: str, player: str, lobby: Lobby, data: JoinIn | None = None
) -> SeatOut:
    """Take a seat (``seat``: that one; ``invite``: a private table's)."""
    data = data or JoinIn()
    seat = await lobby.join(player, table_id, data.seat, data.invite)
    return SeatOut(seat=seat)


@post(
    "/tables/{table_id:str}/bots",
    status_code=200,
    responses=_errors(403, 404, 409, 422, 504),
    operation_id="addBot",
    tags=["tables"],
)
async def add_bot(
    table_id: str, player: str, table_bots: TableBots, data: BotIn | None = None
) -> SeatOut:
    """A server-side bot of ``level`` (random, greedy or ismcts; none: greedy) takes an
    open seat and plays it."""
    data = data or BotIn()
    seat = await table_bots.add(player, table_id, data.seat, data.level)
    return SeatOut(seat=seat)


@post(
    "/tables/{table_id:str}/start",
    status_code=200,
    responses={**_errors(403, 404, 504), 200: OUTCOME},
    operation_id="startTable",
    tags=["tables"],
)
async def start_table(table_id: str, player: str, lobby: Lobby) -> Response[bytes]:
    """Start the table (every seat taken)."""
    status, body = await lobby.start(player, table_id)
    return document(status, body)


@post(
    "/tables/{table_id:str}/leave",
    status_code=200,
    responses={**_errors(403, 404, 504), 200: OUTCOME},
    operation_id="leaveTable",
    tags=["tables"],
)
async def leave_table(table_id: str, player: str, lobby: Lobby) -> Response[bytes]:
    """Leave: before the start the seat opens again; after it, the seat concedes."""
    status, body = await lobby.leave(player, table_id)
    return document(status, body)


@post(
    "/tables/{table_id:str}/commands",
    status_code=200,
    responses={**_errors(403, 404, 504), 200: OUTCOME},
    operation_id="sendCommand",
    tags=["play"],
)
async def send_command(
    table_id: str, data: CommandIn, player: str, commands: Commands
) -> Response[bytes]:
    """Send a command for my seat: 200 accepted or duplicate, 422 rejected."""
    status, body = await answer_command(commands, player, table_id, data)
    return raw_json(body, status)


@post(
    "/tables/{table_id:str}/chat",
    status_code=201,
    responses=_errors(403, 404, 422),
    operation_id="postChat",
    tags=["chat"],
)
async def post_chat(table_id: str, data: ChatIn, player: str, gateway: Gateway) -> ChatMessage:
    """Say something in the table's chat (as my seat, or as a spectator): the message.
    1-500 characters, no control characters; 429 ``rate_limited`` when I say too much."""
    return await gateway.chat.post(player, table_id, data.text)


@get(
    "/tables/{table_id:str}/chat",
    responses=_errors(404, 422),
    operation_id="readChat",
    tags=["chat"],
)
async def read_chat(
    table_id: str,
    player: str,
    gateway: Gateway,
    after: Annotated[
        str | None,
        Parameter(
            description="a message id: only newer ones", pattern=r"^[0-9]{1,20}(-[0-9]{1,20})?$"
        ),
    ] = None,
    limit: Annotated[int, Parameter(ge=1, le=1000, description="messages per page")] = 100,
) -> ChatHistory:
    """The table's chat, oldest first (a deleted message is a marker: ``deleted``);
    the messages of a player I blocked, or who blocked me, left out."""
    hidden = await hidden_from(gateway.client.redis, player)
    return await gateway.chat.read(table_id, after, limit, hidden)


@get(
    "/tables/{table_id:str}/view",
    responses={**_errors(404), 200: VIEW},
    operation_id="getView",
    tags=["play"],
)
async def table_view(table_id: str, player: str, views: Views) -> Response[bytes]:
    """My seat's view, or the spectator's when I hold no seat."""
    return raw_json(await views.view(player, table_id))


@get("/tables/{table_id:str}", responses=_errors(404), operation_id="getTable", tags=["tables"])
async def table_detail(table_id: str, player: str, lobby: Lobby) -> TableDetail:
    """One table: game, options, seats and players as the lobby shows them, bots, open
    seats, phase, whose turn, its last seq, when it was created and finished."""
    return await lobby.detail(table_id)


@get(
    "/tables/{table_id:str}/replay",
    responses={**_errors(404, 501), 200: REPLAY},
    operation_id="getReplay",
    tags=["replay"],
)
async def table_replay(
    table_id: str,
    player: str,
    replays: Replays,
    at: Annotated[
        int | None,
        Parameter(
            description="a seq: the view after the command holding it "
            "(not with `step`: 422 `bad_seq`)"
        ),
    ] = None,
    step: Annotated[
        int | None,
        Parameter(
            description="a step: the view after the table's n-th command "
            "(not with `at`: 422 `bad_seq`)"
        ),
    ] = None,
    viewer: Annotated[
        str, Parameter(query="as", description="me (my seat, if I hold one) or spectator")
    ] = "me",
) -> Response[bytes]:
    """My view (a seat's only as itself, else the spectator's) after the command holding
    seq ``at`` (or after the ``step``-th command; neither: now), with ``replay``: where
    it stands (``seq`` shown, ``at`` asked, the step, the steps around it)."""
    return raw_json(await replays.replay(player, table_id, at, step, viewer))


@get("/leaderboard/{game:str}", operation_id="getLeaderboard", tags=["leaderboard"])
async def leaderboard(
    game: str, player: str, leaderboards: Leaderboards, limit: Limit = 20
) -> Leaderboard:
    """The top rated players of a game (verified players only)."""
    return await leaderboards.top(game, limit)


@route(
    "/{rest:path}",
    http_method=["GET", "POST", "PUT", "PATCH", "DELETE"],
    include_in_schema=False,
)
async def no_such_route(rest: str) -> None:
    """Unknown API paths answer in the API's error format (not the web client's 404)."""
    raise ApiError(404, "not_found", "no such resource")
