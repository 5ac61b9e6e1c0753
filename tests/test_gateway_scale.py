"""Several gateway processes on one port (``orrery serve --gateways N``: SO_REUSEPORT),
and what a gateway does at and past its limits: against real processes.

* sockets spread over the gateways, and every socket, whichever gateway holds it, gets
  each table's views once and in order (each gateway has its own table watchers);
* a gateway killed with -9 loses no command: the client sends the same command id
  again through the other gateway, and its socket reconnects there and resumes after
  the last seq it saw; the pool starts the dead gateway again;
* beyond its sockets, a gateway closes a new one with 1013 and says so on /readyz (503,
  Retry-After), and takes sockets again once one closed;
* a socket whose client stops reading is closed (keepalive pings unanswered), while a
  reading one stays.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import websockets

from gateway.sockets import auth_frame
from orrery.runtime import GatewayPool, stop_processes
from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry
from tests.support.gateway import (
    ORRERY,
    Frames,
    Player,
    choose,
    sign_up,
    unique,
    wait_ready,
)
from tests.support.service import PARTITIONS, REPO, live_service

pytestmark = [pytest.mark.gateway, pytest.mark.slow]

ROOMY = {
    "ORRERY_GATEWAY_RATE": "1000",
    "ORRERY_GATEWAY_BURST": "1000",
    "ORRERY_GATEWAY_ANON_RATE": "1000",
    "ORRERY_GATEWAY_ANON_BURST": "1000",
    "ORRERY_LOG_LEVEL": "warning",
    "PYTHONPATH": str(REPO),
}
SMALL = {"ORRERY_GATEWAY_MAX_SOCKETS": "2", "ORRERY_GATEWAY_IDLE_S": "2"}


class Stack:
    def __init__(self, redis_url: str, pool: GatewayPool, small: str, small_pid: int) -> None:
        self.redis_url = redis_url
        self.pool = pool
        self.url = pool.base
        self.small = small  # a gateway of its own: two sockets, 2 s of idleness
        self.small_pid = small_pid


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    key = secrets.token_urlsafe(32)
    data = Path(tmp_path_factory.mktemp("gw-scale"))
    with live_service(data, ORRERY_SECRET_KEY=key) as service, pytest.MonkeyPatch.context() as mp:
        for name, value in {**ROOMY, "ORRERY_SECRET_KEY": key}.items():
            mp.setenv(name, value)
        small = subprocess.Popen(
            [*ORRERY, "gateway", "--redis-url", service.url, "--port", "0"],
            env={**os.environ, **SMALL},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        pool = GatewayPool(service.url, "127.0.0.1", 2)
        try:
            asyncio.run(pool.start(0))
            assert small.stdout is not None
            small_url = small.stdout.readline().decode().strip()
            for url in (pool.base, small_url):
                wait_ready(url)
            yield Stack(service.url, pool, small_url, small.pid)
        finally:
            stop_processes([*pool.processes, small])


def holder(pids: list[int], local_port: int) -> int | None:
    """The gateway process holding the connection from ``local_port`` (None: none)."""
    for pid in pids:
        try:
            connections = psutil.Process(pid).net_connections(kind="tcp")
        except psutil.NoSuchProcess:
            continue
        for c in connections:
            if c.raddr and c.raddr.port == local_port and c.status == psutil.CONN_ESTABLISHED:
                return pid
    return None


def local_port(ws: Any) -> int:
    port: int = ws.transport.get_extra_info("sockname")[1]
    return port


async def one_seat_table(player: Player) -> str:
    made = await player.create_table("fractured_sky", 1)
    table_id: str = made["table_id"]
    await player.join(table_id)
    await player.start(table_id)
    return table_id


async def my_turn(frames: Frames, after: int) -> dict[str, Any]:
    """The first view frame past ``after`` asking my seat to move."""
    while True:
        frame = await frames.view()
        view = frame["view"]
        if (
            frame["seq"] > after
            and view["phase"] == "playing"
            and view["viewer"] in view["to_move"]
        ):
            return frame


async def views(ws: Any, until: int, timeout: float = 60) -> list[int]:
    """The seqs of the view frames ``ws`` receives, up to the first at ``until``."""
    seqs: list[int] = []
    async with asyncio.timeout(timeout):
        while not seqs or seqs[-1] < until:
            frame = json.loads(await ws.recv())
            if frame["type"] == "view":
                seqs.append(frame["seq"])
    return seqs


async def test_sockets_spread_over_the_gateways_and_each_gets_every_view_once_in_order(
    stack: Stack,
) -> None:
    pids = [p.pid for p in stack.pool.processes]
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
        ann = await sign_up(http, unique("ann"))
        table_id = await one_seat_table(ann)
        url = f"{ann.ws_base}/v1/tables/{table_id}/live"
        sockets: list[Any] = []
        where: dict[int, int] = {}
        try:
            # the kernel spreads connections: open until each gateway holds two
            while min(list(where.values()) + [0] * (2 - len(where))) < 2:
                assert len(sockets) < 60, where
                ws = await websockets.connect(url, max_size=2**22)
                await ws.send(auth_frame(ann.token))
                sockets.append(ws)
                pid = holder(pids, local_port(ws))
                assert pid is not None
                where[pid] = where.get(pid, 0) + 1
            async with ann.live(table_id) as driver:
                frames = Frames(driver)
                frame = await my_turn(frames, -1)
                for _ in range(4):  # moves, each sent over HTTP
                    move = choose(frame["view"], ann.rng)
                    assert move is not None
                    response = await ann.command(table_id, move)
                    assert response.status_code == 200, response.text
                    frame = await my_turn(frames, frame["seq"])
                seq = frame["seq"]
            for ws in sockets:
                seqs = await views(ws, seq)
                assert seqs == sorted(set(seqs)), seqs  # once each, in order
                assert seqs[-1] == seq
        finally:
            for ws in sockets:
                await ws.close()


async def _reconnect(url: str) -> Any:
    """Connect as a client does after a drop: again a moment later when the kernel handed
    the connection to the killed gateway's listening socket before it was closed."""
    for _ in range(25):
        try:
            return await websockets.connect(url, max_size=2**22)
        except (websockets.InvalidHandshake, OSError):
            await asyncio.sleep(0.2)
    return await websockets.connect(url, max_size=2**22)


def _command_ids(redis_url: str, table_id: str) -> set[str]:
    import redis

    with redis.Redis.from_url(redis_url) as r:
        stream = keys.log_stream(keys.partition_of(table_id, PARTITIONS), table_id)
        return {decode_entry(f[b"e"]).command_id for _, f in r.xrange(stream)}


async def test_a_gateway_killed_loses_no_command_and_its_sockets_resume_on_another(
    stack: Stack,
) -> None:
    pool = stack.pool
    pids = [p.pid for p in pool.processes]
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as http:
        ben = await sign_up(http, unique("ben"))
        table_id = await one_seat_table(ben)
        url = f"{ben.ws_base}/v1/tables/{table_id}/live"
        ws = await websockets.connect(url, max_size=2**22)
        await ws.send(auth_frame(ben.token))
        first = json.loads(await ws.recv())
        last_seq, view = first["seq"], first["view"]
        victim = holder(pids, local_port(ws))
        assert victim is not None
        before = _command_ids(stack.redis_url, table_id)
        command_id = uuid.uuid4().hex
        move = choose(view, ben.rng)
        await ws.send(json.dumps({"type": "command", "command_id": command_id, "body": move}))
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(websockets.ConnectionClosed):
            async with asyncio.timeout(30):
                while True:  # whatever arrived before the kill, then the drop
                    frame = json.loads(await ws.recv())
                    if frame["type"] == "view":
                        last_seq = frame["seq"]
        keeping = asyncio.create_task(pool.keep_up())
        try:
            # the client reconnects (to the gateway still listening) after its last seq,
            # and sends the same command again: applied once, whatever the kill cut short
            async with await _reconnect(f"{url}?after={last_seq}") as again:
                await again.send(auth_frame(ben.token))
                retry = {"type": "command", "command_id": command_id, "body": move}
                await again.send(json.dumps(retry))
                outcome = None
                seqs = []
                async with asyncio.timeout(30):
                    while outcome is None or not seqs:
                        frame = json.loads(await again.recv())
                        if frame["type"] == "view":
                            seqs.append(frame["seq"])
                        elif frame["type"] in ("outcome", "error"):
                            outcome = frame
                assert outcome["type"] == "outcome", outcome
                assert outcome["outcome"] in ("accepted", "duplicate"), outcome
                assert outcome["command_id"] == command_id
                assert all(s > last_seq for s in seqs), (last_seq, seqs)
            after = _command_ids(stack.redis_url, table_id)
            assert len(after - before) == 1  # the move, once
            # the pool starts the killed gateway again, on the same port
            async with asyncio.timeout(60):
                while victim in [p.pid for p in pool.processes] or any(
                    p.poll() is not None for p in pool.processes
                ):
                    await asyncio.sleep(0.2)
            await asyncio.to_thread(wait_ready, stack.url)
        finally:
            keeping.cancel()


async def test_beyond_its_sockets_a_gateway_closes_new_ones_with_1013_and_is_not_ready(
    stack: Stack,
) -> None:
    async with httpx.AsyncClient(base_url=stack.small, timeout=30) as http:
        cid = await sign_up(http, unique("cid"))
        url = f"{cid.ws_base}/v1/players/me/live"
        held = [await websockets.connect(url) for _ in range(2)]
        for ws in held:
            await ws.send(auth_frame(cid.token))
        try:
            async with websockets.connect(url) as refused:
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(refused.recv(), 30)
            assert closed.value.rcvd is not None
            assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1013, "at_capacity")
            ready = await http.get("/readyz")
            assert ready.status_code == 503 and ready.json()["error"] == "at_capacity"
            assert ready.headers["retry-after"] == "5"
            assert (await http.get("/healthz")).status_code == 200
            # the held sockets still work: a presence frame is answered
            await held[0].send(json.dumps({"type": "presence", "state": "nonsense"}))
            async with asyncio.timeout(30):
                while json.loads(await held[0].recv())["type"] != "error":
                    pass
        finally:
            await held.pop().close()
        async with asyncio.timeout(30):
            while (await http.get("/readyz")).status_code != 200:
                await asyncio.sleep(0.05)
        async with websockets.connect(url) as welcome:
            await welcome.send(auth_frame(cid.token))
            await welcome.send(json.dumps({"type": "presence", "state": "nonsense"}))
            async with asyncio.timeout(30):
                while json.loads(await welcome.recv())["type"] != "error":
                    pass
        for ws in held:
            await ws.close()


def _handshake(host: str, port: int, path: str) -> socket.socket:
    """A WebSocket opened by hand, whose reader then never reads (a small receive
    buffer, so what the server sends backs up at once)."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((host, port))
    nonce = base64.b64encode(secrets.token_bytes(16)).decode()
    raw.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {nonce}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += raw.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return raw


def _text_frame(text: str) -> bytes:
    data = text.encode()
    mask = secrets.token_bytes(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    assert len(data) < 1 << 16
    size = bytes([0x80 | len(data)]) if len(data) < 126 else bytes([0xFE]) + len(data).to_bytes(2)
    return bytes([0x81]) + size + mask + masked


async def test_a_socket_that_stops_reading_is_closed_and_a_reading_one_stays(
    stack: Stack,
) -> None:
    host, port = stack.small.removeprefix("http://").rsplit(":", 1)
    async with httpx.AsyncClient(base_url=stack.small, timeout=30) as http:
        dan = await sign_up(http, unique("dan"))
    async with websockets.connect(f"ws://{host}:{port}/v1/players/me/live") as reading:
        await reading.send(auth_frame(dan.token))
        silent = _handshake(host, int(port), "/v1/players/me/live")
        try:
            silent.sendall(_text_frame(auth_frame(dan.token)))
            silent_port = silent.getsockname()[1]
            assert holder([stack.small_pid], silent_port) == stack.small_pid
            deadline = time.monotonic() + 30
            while holder([stack.small_pid], silent_port) is not None:
                assert time.monotonic() < deadline, "the silent socket is still open"
                await asyncio.sleep(0.1)
            # the reading socket answered every ping meanwhile: still served
            await reading.send(json.dumps({"type": "presence", "state": "nonsense"}))
            async with asyncio.timeout(30):
                while json.loads(await reading.recv())["type"] != "error":
                    pass
        finally:
            silent.close()
