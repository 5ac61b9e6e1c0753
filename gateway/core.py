"""What every request shares: the :class:`Gateway` (made once per process: the wire
client, accounts, sessions, rate limiter, tables and their resources, live hub), the
dependencies that hand it (``gateway``), each table resource (``lobby``, ``table_bots``,
``commands``, ``views``, ``replays``, ``my_games``, ``leaderboards``) and the session's
player (``player``) to the handlers — Litestar injects them by parameter name,
gateway.app declares them — and the small helpers the routes use to answer with raw
JSON.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.datastructures import State
from litestar.di import Provide

from gateway.accounts import Accounts
from gateway.chat import TableChat
from gateway.commands import Commands
from gateway.errors import ApiError
from gateway.hosted import HostedGames
from gateway.leaderboards import Leaderboards
from gateway.live import LiveHub
from gateway.lobby import Lobby
from gateway.my_games import MyGames
from gateway.ratelimit import RateLimiter
from gateway.replays import Replays
from gateway.sessions import Sessions, bearer
from gateway.settings import Settings
from gateway.table_bots import TableBots
from gateway.tables import Replayer, Tables
from gateway.views import Views
from gateway.wire import GatewayClient
from notify.activity import Activity
from orrery_contracts.social import erased_key

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()

# WebSocket close codes (4000 + the HTTP status they stand for)


@dataclass
class Gateway:
    """Everything a request needs, made once per process."""

    settings: Settings
    client: GatewayClient
    accounts: Accounts
    sessions: Sessions
    limiter: RateLimiter
    tables: Tables
    lobby: Lobby
    table_bots: TableBots
    commands: Commands
    views: Views
    replays: Replays
    my_games: MyGames
    leaderboards: Leaderboards
    hub: LiveHub
    chat: TableChat
    activity: Activity  # when the gateway last saw each player (notify/activity.py)
    connected: bool = False

    @classmethod
    def create(
        cls, settings: Settings, replayer: Replayer | None = None, games: HostedGames = ()
    ) -> Gateway:
        client = GatewayClient(settings.redis_url, connections=settings.redis_connections)
        accounts = Accounts(client.redis)
        tables = Tables(
            client,
            accounts,
            settings.secret_key,
            command_timeout_s=settings.command_timeout_s,
            replayer=replayer,
            games=frozenset(game.name for game in games),
        )
        return cls(
            settings=settings,
            client=client,
            accounts=accounts,
            sessions=Sessions(settings.secret_key, settings.session_ttl_s),
            limiter=RateLimiter(client.redis),
            tables=tables,
            lobby=Lobby(tables),
            table_bots=TableBots(tables),
            commands=Commands(tables),
            views=Views(tables),
            replays=Replays(tables),
            my_games=MyGames(tables),
            leaderboards=Leaderboards(tables),
            hub=LiveHub(client),
            chat=TableChat(client, accounts, tables),
            activity=Activity(client.redis),
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
        erased, _ = await asyncio.gather(  # a session outlives no erased account
            self.client.redis.exists(erased_key(player_id)),
            self.limiter.take(player_id, self.settings.rate_per_s, self.settings.burst),
        )
        if erased:
            raise ApiError(401, "unauthorized", "this account no longer exists")
        await self.activity.touch(player_id)  # present: no notification meanwhile
        return player_id, expires

    async def anonymous(self, address: str) -> None:
        self.require_connected()
        s = self.settings
        await self.limiter.take(f"ip:{address}", s.anonymous_rate_per_s, s.anonymous_burst)


def provide_gateway(state: State) -> Gateway:
    """The ``gateway`` dependency of every handler (HTTP and WebSocket): the one the app
    was made with (``app.state.gateway``, set by gateway.app)."""
    gateway: Gateway = state.gateway
    return gateway


def provide_lobby(gateway: Gateway) -> Lobby:
    return gateway.lobby


def provide_table_bots(gateway: Gateway) -> TableBots:
    return gateway.table_bots


def provide_commands(gateway: Gateway) -> Commands:
    return gateway.commands


def provide_views(gateway: Gateway) -> Views:
    return gateway.views


def provide_replays(gateway: Gateway) -> Replays:
    return gateway.replays


def provide_my_games(gateway: Gateway) -> MyGames:
    return gateway.my_games


def provide_leaderboards(gateway: Gateway) -> Leaderboards:
    return gateway.leaderboards


# each table resource by the parameter name its handlers take (gateway.app declares them
# beside ``gateway``); a handler names the one resource it uses
RESOURCE_DEPENDENCIES = {
    "lobby": Provide(provide_lobby, sync_to_thread=False),
    "table_bots": Provide(provide_table_bots, sync_to_thread=False),
    "commands": Provide(provide_commands, sync_to_thread=False),
    "views": Provide(provide_views, sync_to_thread=False),
    "replays": Provide(provide_replays, sync_to_thread=False),
    "my_games": Provide(provide_my_games, sync_to_thread=False),
    "leaderboards": Provide(provide_leaderboards, sync_to_thread=False),
}


def address_of(request: Request[Any, Any, Any]) -> str:
    return request.client.host if request.client else "unknown"


async def provide_player(request: Request[Any, Any, Any], gateway: Gateway) -> str:
    """The ``player`` dependency of the routes that need a session: the bearer token's
    player, after taking a token from its bucket."""
    player_id, _ = await gateway.player(bearer(request.headers.get("authorization")))
    return player_id


def raw_json(raw: bytes, status: int = 200) -> Response[bytes]:
    return Response(raw, status_code=status, media_type="application/json")


def document(status: int, body: Any) -> Response[bytes]:
    return Response(_json.encode(body), status_code=status, media_type="application/json")
