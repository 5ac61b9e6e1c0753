"""What every request shares: the :class:`Gateway` (made once per process: the wire
client, accounts, sessions, rate limiter, tables, live hub), the dependencies that hand
it (``gateway``) and the session's player (``player``) to the handlers — Litestar
injects them by parameter name, gateway.app declares them — and the small helpers the
routes use to answer with raw JSON.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.datastructures import State

from gateway.accounts import Accounts
from gateway.chat import TableChat
from gateway.errors import ApiError
from gateway.hosted import HostedGames
from gateway.live import LiveHub
from gateway.ratelimit import RateLimiter
from gateway.sessions import Sessions, bearer
from gateway.settings import Settings
from gateway.tables import Replayer, TableService
from gateway.wire import GatewayClient

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
    tables: TableService
    hub: LiveHub
    chat: TableChat
    connected: bool = False

    @classmethod
    def create(
        cls, settings: Settings, replayer: Replayer | None = None, games: HostedGames = ()
    ) -> Gateway:
        client = GatewayClient(settings.redis_url)
        accounts = Accounts(client.redis)
        tables = TableService(
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
            hub=LiveHub(client),
            chat=TableChat(client, accounts, tables),
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


def provide_gateway(state: State) -> Gateway:
    """The ``gateway`` dependency of every handler (HTTP and WebSocket): the one the app
    was made with (``app.state.gateway``, set by gateway.app)."""
    gateway: Gateway = state.gateway
    return gateway


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
