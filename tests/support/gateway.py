"""A live gateway for tests: an embedded server, worker and projector processes, the
gateway under uvicorn (``orrery gateway --port 0``, its URL read from its first stdout
line) and the bot runner, all real processes sharing one server key; plus a small
HTTP/WebSocket client that plays games through the API alone (httpx + websockets).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import websockets

from gateway.crypto import identity
from gateway.sockets import auth_frame
from gateway.wire import GatewayClient
from orrery.runtime import stop_processes
from orrery_client.sdk import SeatCredentials, new_seat_token
from orrery_contracts.envelope import Accepted
from orrery_contracts.table import NOT_MOVES, JoinRequest
from tests.support.service import REPO, LiveService, live_service

ORRERY = (sys.executable, "-m", "orrery.cli")
TIMEOUT = 30.0


def spawn_gateway(
    redis_url: str, env: dict[str, str], log: IO[bytes], port: int = 0
) -> tuple[subprocess.Popen[bytes], str]:
    """``orrery gateway`` as a process (its log lines to ``log``) and the base URL it
    prints on its first stdout line once it listens."""
    process = subprocess.Popen(
        [*ORRERY, "gateway", "--redis-url", redis_url, "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode().strip()
    if not line.startswith("http://"):
        process.kill()
        log.flush()
        raise RuntimeError(f"the gateway did not start: {line!r}")
    return process, line


def wait_ready(url: str, timeout: float = 30.0) -> None:
    """Until the gateway at ``url`` says it is connected to the service (/readyz)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the gateway at {url} is not ready")
        time.sleep(0.05)


class LiveGateway:
    def __init__(self, service: LiveService, key: str) -> None:
        self.service = service
        self.key = key
        self.redis_url = service.url
        self.gateways: list[subprocess.Popen[bytes]] = []
        self.urls: list[str] = []
        self.bots: subprocess.Popen[bytes] | None = None
        # Every gateway's and bot runner's log lines (checked for secrets by the tests).
        self.log_path = Path(service.server.data_dir).parent / f"gateway-{uuid.uuid4().hex[:6]}.log"
        self.log = self.log_path.open("ab")

    @property
    def url(self) -> str:
        return self.urls[0]

    def env(self, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "ORRERY_SECRET_KEY": self.key,
            "ORRERY_LOG_LEVEL": "info",
            **extra,
        }

    def start_gateway(self, redis_url: str | None = None, *, ready: bool = True, **env: str) -> str:
        """Another gateway process on the same Redis (its base URL), once its /readyz
        says it is connected to the service (``ready``): it prints its URL when it
        listens, and connects to the service after that."""
        process, line = spawn_gateway(redis_url or self.redis_url, self.env(**env), self.log)
        self.gateways.append(process)
        self.urls.append(line)
        if ready:
            wait_ready(line)
        return line

    def start_bots(self, redis_url: str | None = None) -> subprocess.Popen[bytes]:
        self.bots = subprocess.Popen(
            [*ORRERY, "bots", "--redis-url", redis_url or self.redis_url],
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stderr=self.log,
        )
        return self.bots

    def stop_bots(self) -> int | None:
        """Stop the bot runner (SIGTERM, killed after 10 s); its exit code."""
        code = None
        if self.bots is not None:
            stop_processes([self.bots])
            code = self.bots.returncode
            self.bots = None
        return code

    def logs(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_processes([*self.gateways, *([self.bots] if self.bots else [])])
        self.log.close()


@contextmanager
def live_gateway(data_dir: Path, *, bots: bool = True, **gateway_env: str) -> Iterator[LiveGateway]:
    key = secrets.token_urlsafe(32)
    with live_service(data_dir, ORRERY_SECRET_KEY=key) as service:
        live = LiveGateway(service, key)
        try:
            # Tests sign up many accounts from one address and play fast: the limits
            # are tested on gateways of their own (tests/test_gateway.py).
            roomy = {
                "ORRERY_GATEWAY_RATE": "1000",
                "ORRERY_GATEWAY_BURST": "1000",
                "ORRERY_GATEWAY_ANON_RATE": "1000",
                "ORRERY_GATEWAY_ANON_BURST": "1000",
            }
            live.start_gateway(None, ready=True, **{**roomy, **gateway_env})
            if bots:
                live.start_bots()
            yield live
        finally:
            live.stop()


async def verified_join(
    client: GatewayClient, key: str, table_id: str, name: str, player_id: str
) -> SeatCredentials:
    """A join carrying a signed identity, as the gateway sends it (over Redis)."""
    command_id = uuid.uuid4().hex
    token = new_seat_token()
    outcome = await client.send(
        table_id,
        JoinRequest(name=name),
        command_id=command_id,
        token=token,
        identity=identity(key, table_id, command_id, player_id),
    )
    assert isinstance(outcome, Accepted) and outcome.seat is not None, outcome
    return SeatCredentials(table_id, outcome.seat, token)


# ---------------------------------------------------------------- an API client


@dataclass
class Player:
    """One account signed in on one gateway."""

    http: httpx.AsyncClient
    name: str
    player_id: str
    token: str
    rng: random.Random = field(default_factory=random.Random)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def ws_base(self) -> str:
        return str(self.http.base_url).replace("http://", "ws://").rstrip("/")

    async def get(self, path: str, **params: Any) -> httpx.Response:
        return await self.http.get(path, headers=self.headers, params=params or None)

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.http.post(path, headers=self.headers, json=body)

    async def create_table(
        self, game: str, seats: int, options: dict[str, Any] | None = None, private: bool = False
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"game": game, "seats": seats}
        if options:
            body["options"] = options
        if private:
            body["private"] = True
        response = await self.post("/v1/tables", body)
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        return made

    async def join(self, table_id: str, **body: Any) -> int:
        response = await self.post(f"/v1/tables/{table_id}/join", body)
        assert response.status_code == 200, response.text
        return int(response.json()["seat"])

    async def bot(self, table_id: str, **body: Any) -> int:
        response = await self.post(f"/v1/tables/{table_id}/bots", body)
        assert response.status_code == 200, response.text
        return int(response.json()["seat"])

    async def start(self, table_id: str) -> dict[str, Any]:
        response = await self.post(f"/v1/tables/{table_id}/start")
        assert response.status_code == 200, response.text
        outcome: dict[str, Any] = response.json()
        return outcome

    async def command(
        self, table_id: str, body: Any, command_id: str | None = None
    ) -> httpx.Response:
        return await self.post(
            f"/v1/tables/{table_id}/commands",
            {"command_id": command_id or uuid.uuid4().hex, "body": body},
        )

    async def view(self, table_id: str) -> dict[str, Any]:
        response = await self.get(f"/v1/tables/{table_id}/view")
        assert response.status_code == 200, response.text
        view: dict[str, Any] = response.json()
        return view

    @asynccontextmanager
    async def live(self, table_id: str, after: int | None = None) -> AsyncIterator[Any]:
        url = f"{self.ws_base}/v1/tables/{table_id}/live"
        if after is not None:
            url += f"?after={after}"
        async with websockets.connect(url, max_size=2**22) as socket:
            await socket.send(auth_frame(self.token))
            yield socket

    @asynccontextmanager
    async def notices(self, after: str | None = None) -> AsyncIterator[Any]:
        url = f"{self.ws_base}/v1/players/me/live" + (f"?after={after}" if after else "")
        async with websockets.connect(url) as socket:
            await socket.send(auth_frame(self.token))
            yield socket


async def sign_up(http: httpx.AsyncClient, name: str, password: str = "a good password") -> Player:
    created = await http.post("/v1/players", json={"name": name, "password": password})
    assert created.status_code == 201, created.text
    session = await http.post("/v1/sessions", json={"name": name, "password": password})
    assert session.status_code == 200, session.text
    body = session.json()
    return Player(http=http, name=name, player_id=body["player_id"], token=body["token"])


def error_of(response: httpx.Response) -> str:
    """The stable error code of a refusal (which carries a message and no stack trace)."""
    body = response.json()
    assert set(body) >= {"error", "message"}, body
    assert "Traceback" not in response.text
    code: str = body["error"]
    return code


def deleted_marker(message_id: str, at: int) -> dict[str, Any]:
    """A deleted chat message as the API shows it: every member there, only ``id``, ``at``
    and ``deleted`` telling anything."""
    return {
        "id": message_id,
        "seat": None,
        "spectator": False,
        "name": "",
        "text": "",
        "at": at,
        "deleted": True,
    }


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


async def next_frame(socket: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), timeout))
    return frame


async def frame_at(socket: Any, seq: int, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The first view frame showing at least ``seq``."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await next_frame(socket)
            if frame["type"] == "view" and frame["seq"] >= seq:
                return frame


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    moves = [c for c in view["legal"] if c.get("type") not in NOT_MOVES]
    return rng.choice(moves) if moves else None


class Frames:
    """A WebSocket's frames, with view frames that arrive while waiting for an outcome
    kept for later."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.views: list[dict[str, Any]] = []

    async def view(self) -> dict[str, Any]:
        while not self.views:
            frame = await next_frame(self.socket)
            if frame["type"] == "view":
                return frame
        return self.views.pop(0)

    async def view_at(self, seq: int, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first view frame showing at least ``seq``, kept or still to come (a view
        may arrive before the outcome of the command that made it)."""
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.view()
                if frame["seq"] >= seq:
                    return frame

    async def outcome(self) -> dict[str, Any]:
        while True:
            frame = await next_frame(self.socket)
            if frame["type"] == "view":
                self.views.append(frame)
            elif frame["type"] == "error":
                raise AssertionError(frame)
            else:
                return frame


async def play_to_end(player: Player, table_id: str, *, via: str) -> dict[str, Any]:
    """Play my seat with random legal moves until the table is finished, waiting on
    the WebSocket's view frames and sending each command over ``via`` ("http" or "ws").
    Returns the final view with the number of moves made in ``"moves"``."""
    moves = 0
    async with player.live(table_id) as socket, asyncio.timeout(120):
        frames = Frames(socket)
        while True:
            view: dict[str, Any] = (await frames.view())["view"]
            if view["phase"] == "finished":
                return {**view, "moves": moves}
            while view["phase"] == "playing" and view["viewer"] in view["to_move"]:
                move = choose(view, player.rng)
                if move is None:
                    break
                moves += 1
                if via == "http":
                    response = await player.command(table_id, move)
                    assert response.status_code in (200, 422), response.text
                    accepted = response.status_code == 200
                else:
                    command = {"type": "command", "command_id": uuid.uuid4().hex, "body": move}
                    await socket.send(json.dumps(command))
                    outcome = await frames.outcome()
                    accepted = outcome["outcome"] in ("accepted", "duplicate")
                if accepted:
                    break
                # Rejected: the view I chose from was stale; read the current one.
                view = await player.view(table_id)
