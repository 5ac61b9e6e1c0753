"""The gateway's ASGI application (Litestar): routes, auth, limits, errors, OpenAPI.

Every route under ``/v1`` but sign-up, sign-in and the OpenAPI document needs a
session (``Authorization: Bearer <token>``; WebSockets: an ``auth`` first frame, never
the URL) and takes a token from the player's bucket. Bodies are capped (413), decoded
strictly and bounded in depth (gateway/bodies.py), every response carries the security
headers (gateway/headers.py), errors are
``{"error", "message"}`` with no stack trace, the OpenAPI 3.1 document is generated
from the msgspec models at ``/v1/openapi.json``, and ``/`` serves the static web client
from ``clients/web/``. A command (``POST /v1/tables/{id}/commands``, the request sent
most) goes to its fast path first (gateway.fastpath): the same answers without
Litestar's request cycle, and anything it does not expect is handed back to the route.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, Router, head
from litestar.config.cors import CORSConfig
from litestar.di import Provide
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.response.file import ASGIFileResponse
from litestar.static_files import StaticFiles, create_static_files_router
from litestar.types import Receive, Scope, Send

from gateway.asyncapi import asyncapi_document
from gateway.blocks import BLOCK_ROUTES
from gateway.bodies import strict_body
from gateway.core import RESOURCE_DEPENDENCIES, Gateway, provide_gateway, provide_player
from gateway.erasure import ERASE_ROUTES
from gateway.errors import EXCEPTION_HANDLERS
from gateway.fastpath import CommandPath, command_table
from gateway.friends import FRIEND_ROUTES
from gateway.headers import security_headers
from gateway.hosted import HostedGames
from gateway.methods import check_request
from gateway.notify_routes import LINK_ROUTES, NOTIFY_ROUTES
from gateway.openapi import Schemas, openapi_document
from gateway.presence import get_presence
from gateway.queue import QUEUE_ROUTES, install
from gateway.reports import REPORT_ROUTES
from gateway.routes import (
    add_bot,
    create_player,
    create_session,
    create_table,
    healthz,
    join_table,
    leaderboard,
    leave_table,
    list_tables,
    me,
    my_games,
    no_such_route,
    post_chat,
    read_chat,
    readyz,
    send_command,
    serve_asyncapi,
    serve_openapi,
    start_table,
    table_detail,
    table_replay,
    table_view,
)
from gateway.settings import Settings
from gateway.sockets import live_handler, player_live, table_live
from gateway.static import WebFileSystem
from gateway.tables import Replayer
from gateway.tournaments import TOURNAMENT_ROUTES

_json = msgspec.json.Encoder()

# ---------------------------------------------------------------- the app


def index_head(web_dir: Path) -> HTTPRouteHandler:
    """``HEAD /`` like ``GET /`` without the body (Litestar's static router answers HEAD
    on files, without their type, but not on its index: a 405)."""
    files = StaticFiles(is_html_mode=True, directories=[web_dir], file_system=WebFileSystem())

    @head("/", include_in_schema=False, name="static/index-head")
    async def handler() -> ASGIFileResponse:
        response = await files.handle(path="/", is_head_response=True)
        # (Litestar leaves the type out of HEAD answers; GET / sends this one)
        response.headers["content-type"] = "text/html; charset=utf-8"
        return response

    return handler


async def before_request(request: Request[Any, Any, Any]) -> Response[None] | None:
    """Every HTTP request, before its handler: the method and query checks
    (gateway.methods), then the body's (gateway.bodies)."""
    answer = await check_request(request)
    if answer is None:
        await strict_body(request)
    return answer


class GatewayApp(Litestar):
    """Litestar with the command route's fast path in front of it (gateway.fastpath):
    a command request goes there first, and whatever it defers comes back here."""

    commands: CommandPath | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            live = live_handler(scope, self.state.gateway)  # (skipping Litestar's cycle)
            if live is not None:
                return await live(scope, receive, send)
            return await super().__call__(scope, receive, send)
        table_id = command_table(scope) if self.commands is not None else None
        if table_id is None or self.commands is None:
            return await super().__call__(scope, receive, send)
        await self.commands(scope, receive, send, table_id, self._full)

    async def _full(self, scope: Scope, receive: Receive, send: Send) -> None:
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings, replayer: Replayer | None = None, games: HostedGames = ()
) -> Litestar:
    gateway = Gateway.create(settings, replayer, games)
    install(gateway, games)  # the matchmaking queue (gateway/queue.py)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        connecting = asyncio.create_task(gateway.connect())
        try:
            yield
        finally:
            connecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await connecting
            await gateway.hub.close()
            await gateway.chat.hub.close()
            await gateway.client.close()

    bearer_only: list[dict[str, list[str]]] = [{"bearer": []}]
    protected = Router(
        path="/v1",
        route_handlers=[
            me,
            my_games,
            create_table,
            list_tables,
            join_table,
            add_bot,
            start_table,
            leave_table,
            send_command,
            table_detail,
            table_view,
            table_replay,
            post_chat,
            read_chat,
            leaderboard,
            *QUEUE_ROUTES,
            *TOURNAMENT_ROUTES,  # tournaments: gateway/tournaments.py
            *NOTIFY_ROUTES,  # notifications: gateway/notify_routes.py
            get_presence,  # presence, friends, blocks: gateway/presence.py, friends.py, blocks.py
            *FRIEND_ROUTES,
            *BLOCK_ROUTES,
            *REPORT_ROUTES,
            *ERASE_ROUTES,
        ],
        dependencies={"player": Provide(provide_player)},
        security=bearer_only,
    )
    public = Router(
        path="/v1",
        route_handlers=[
            create_player,
            create_session,
            table_live,
            player_live,
            *LINK_ROUTES,
            no_such_route,
        ],
    )
    handlers: list[Any] = [healthz, readyz, serve_openapi, serve_asyncapi, public, protected]
    if settings.web_dir is not None and settings.web_dir.is_dir():
        handlers.append(
            create_static_files_router(
                path="/",
                directories=[settings.web_dir],
                html_mode=True,
                include_in_schema=False,
                file_system=WebFileSystem(),
            )
        )
        handlers.append(index_head(settings.web_dir))
    cors = (
        CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type"],
            max_age=600,
        )
        if settings.cors_origins
        else None
    )
    app = GatewayApp(
        route_handlers=handlers,
        # handlers take these by name (gateway/routes.py); "player" needs a session, so it
        # is declared on the protected router; the table resources: gateway.core
        dependencies={
            "gateway": Provide(provide_gateway, sync_to_thread=False),
            **RESOURCE_DEPENDENCIES,
        },
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        before_request=before_request,
        before_send=[security_headers],
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors,
        logging_config=None,
        debug=False,
        openapi_config=OpenAPIConfig(
            title="Orrery gateway",
            version="1",
            description="Accounts, sessions, a lobby, tables, bots, views and live pushes.",
            # short ids from the handlers (createTable, getView): gateway/routes.py
            use_handler_docstrings=True,
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
    app.state.documents = documents(app, games)
    app.commands = CommandPath(gateway, cors=cors is not None)
    return app


def documents(app: Litestar, games: HostedGames) -> tuple[bytes, bytes]:
    """The OpenAPI document (Litestar's, finished by gateway.openapi) and the AsyncAPI
    one, encoded once. Swagger UI at /v1/docs shows the same document: the OpenAPI
    plugin serves the schema it keeps, so it keeps this one."""
    plugin: Any = app.plugins.get("OpenAPIPlugin")  # (its class is not public)
    litestar = msgspec.json.decode(_json.encode(plugin.provide_openapi_schema()))
    schemas = Schemas(games)
    openapi = openapi_document(litestar, schemas)
    plugin._openapi_schema = openapi
    return _json.encode(openapi), _json.encode(asyncapi_document(openapi, schemas))
