"""The gateway's settings, from the command line and the environment, and the server key.

The server key (``ORRERY_SECRET_KEY``) signs sessions, derives every seat's secret and
signs player identities for the workers, so workers, gateways and bot runners must
share it. Without the variable, :func:`load_secret_key` keeps a generated key in the
data folder (mode 0600), which ``orrery serve`` hands to its children by environment.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from orrery_contracts.settings import GATEWAY, Setting

SECRET_KEY_ENV = "ORRERY_SECRET_KEY"
KEY_FILE = "secret.key"


def load_secret_key(data_dir: Path | None) -> str:
    """``$ORRERY_SECRET_KEY``, else the key kept in ``data_dir`` (created on first use)."""
    from_env = os.environ.get(SECRET_KEY_ENV, "")
    if from_env:
        return from_env
    if data_dir is None:
        raise RuntimeError(f"no server key: set ${SECRET_KEY_ENV}")
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def _default_web_dir() -> Path | None:
    import clients

    web = Path(clients.__file__).resolve().parent / "web"
    return web if web.is_dir() else None


def _float(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


@dataclass(frozen=True)
class Settings:
    redis_url: str
    secret_key: str
    # Origins allowed to call the API from a browser (CORS); empty: same origin only.
    cors_origins: tuple[str, ...] = ()
    # Per-player token bucket (held in Redis, shared by every gateway process).
    rate_per_s: float = 20.0
    burst: int = 60
    # Unauthenticated calls (sign-up, sign-in) per client address.
    anonymous_rate_per_s: float = 2.0
    anonymous_burst: int = 20
    max_body_bytes: int = 16 * 1024
    session_ttl_s: int = 24 * 3600
    # Outcome wait per attempt (the same command id is sent again once after it).
    command_timeout_s: float = 10.0
    # A player's presence flag lasts this long unless a live socket renews it.
    presence_ttl_s: float = 30.0
    web_dir: Path | None = field(default_factory=_default_web_dir)
    # Capacity of one gateway process (gateway/admission.py): beyond it, new sockets
    # are closed with 1013 and requests answered 503 + Retry-After.
    max_sockets: int = 10_000
    max_requests: int = 1_000
    # A WebSocket whose client reads nothing for this long is closed (gateway/server.py).
    idle_s: float = 60.0
    # permessage-deflate on WebSockets: less bandwidth, ~40 KiB more per socket.
    ws_compression: bool = False
    # Redis connections of one gateway process (a standalone server's): calls wait for
    # a free one. Blocking reads take one per group of 128 followed streams.
    redis_connections: int = 200

    @classmethod
    def from_env(cls, redis_url: str, secret_key: str) -> Settings:
        origins = os.environ.get("ORRERY_GATEWAY_CORS_ORIGINS", "")
        web = os.environ.get("ORRERY_WEB_DIR")
        return cls(
            redis_url=redis_url,
            secret_key=secret_key,
            cors_origins=tuple(o.strip() for o in origins.split(",") if o.strip()),
            rate_per_s=_float("ORRERY_GATEWAY_RATE", 20.0),
            burst=int(_float("ORRERY_GATEWAY_BURST", 60)),
            anonymous_rate_per_s=_float("ORRERY_GATEWAY_ANON_RATE", 2.0),
            anonymous_burst=int(_float("ORRERY_GATEWAY_ANON_BURST", 20)),
            max_body_bytes=int(_float("ORRERY_GATEWAY_MAX_BODY", 16 * 1024)),
            session_ttl_s=int(_float("ORRERY_SESSION_TTL_S", 24 * 3600)),
            presence_ttl_s=max(0.5, _float("ORRERY_PRESENCE_TTL_S", 30.0)),
            web_dir=Path(web) if web else _default_web_dir(),
            max_sockets=max(1, int(_float("ORRERY_GATEWAY_MAX_SOCKETS", 10_000))),
            max_requests=max(1, int(_float("ORRERY_GATEWAY_MAX_REQUESTS", 1_000))),
            idle_s=max(0.3, _float("ORRERY_GATEWAY_IDLE_S", 60.0)),
            ws_compression=os.environ.get("ORRERY_GATEWAY_WS_COMPRESSION", "") in ("1", "on"),
            redis_connections=max(8, int(_float("ORRERY_GATEWAY_REDIS_CONNECTIONS", 200))),
        )


# the gateway's variables (ORRERY_SECRET_KEY is every process's: orrery.settings_doc)
SETTINGS = (
    Setting(
        "ORRERY_GATEWAY_CORS_ORIGINS",
        "none (same origin only)",
        "gateway",
        "comma-separated browser origins allowed to call the API (`--cors-origin`)",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_RATE",
        "20",
        "gateway",
        "per-player token bucket: requests per second",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_BURST",
        "60",
        "gateway",
        "per-player token bucket: its size",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_ANON_RATE",
        "2",
        "gateway",
        "per client address, for sign-up and sign-in: requests per second",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_ANON_BURST",
        "20",
        "gateway",
        "per client address, for sign-up and sign-in: the bucket's size",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_MAX_BODY",
        "16384",
        "gateway",
        "the largest request body (and WebSocket message) in bytes; larger: 413",
        GATEWAY,
    ),
    Setting(
        "ORRERY_SESSION_TTL_S",
        "86400",
        "gateway",
        "how long a session token lasts",
        GATEWAY,
    ),
    Setting(
        "ORRERY_PRESENCE_TTL_S",
        "30",
        "gateway",
        "how long a player stays online (or away) after their last live socket closes; "
        "each socket renews its player's presence every third of it",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_MAX_SOCKETS",
        "10000",
        "gateway",
        "WebSockets one gateway process holds; beyond it a new one is closed with 1013 "
        "(try again later) and `/readyz` answers 503 (docs/scaling.md)",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_MAX_REQUESTS",
        "1000",
        "gateway",
        "HTTP requests one gateway process serves at once; beyond it 503 with Retry-After",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_IDLE_S",
        "60",
        "gateway",
        "a WebSocket whose client reads nothing for this long is closed (keepalive pings "
        "every third of it)",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_WS_COMPRESSION",
        "off",
        "gateway",
        "`on`: permessage-deflate on WebSockets (less bandwidth, ~40 KiB more memory per socket)",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_REDIS_CONNECTIONS",
        "200",
        "gateway",
        "Redis connections one gateway process opens at most (standalone server); a call "
        "waits for a free one",
        GATEWAY,
    ),
    Setting(
        "ORRERY_WEB_DIR",
        "`clients/web/`",
        "gateway",
        "the static files served at `/`",
        GATEWAY,
    ),
)
