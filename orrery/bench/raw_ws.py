"""The baseline of ``orrery bench capacity``: a minimal WebSocket server on the same
library as the gateway (uvicorn with its websockets protocol, the same keepalive, the
same listening socket), holding the same connections and broadcasting a frame of the
gateway's view size to the same subscribers per move. What it holds with push p99 ≤
250 ms is the transport's limit on this machine.

A table socket (``/raw/tables/{id}?seat=S&seats=K``) gets the table's newest frame when
it opens and after every move; a move is any frame its seat sends on its turn: the
server answers ``outcome``, counts the move, and pushes ``{"type": "view", "seq", "at",
"view": {"phase", "to_move", "pad"}}`` (``at``: when it made the frame) to every socket
on the table, the newest only to a slow one, and a notice to the next seat's notice
socket (``/raw/notices?table=T&seat=S``). One process keeps its tables in memory; with
``redis`` (several processes on one port), a move is counted with ``INCR`` and told to
every process by ``PUBLISH``, the least a multi-process server needs.

Run as ``python -m orrery.bench.raw_ws '{"port", "reuse", "frame_bytes", "redis"}'``;
its first stdout line is its base URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections import defaultdict
from typing import Any
from urllib.parse import parse_qs

import uvicorn

from gateway.gc_tuning import tune_gc
from gateway.server import bind, idle_protocol, raise_open_files

CHANNEL = "orrery-bench-raw"


class Socket:
    """One socket's pusher: the newest frame not yet sent, sent when the socket can."""

    def __init__(self, send: Any) -> None:
        self.send = send
        self.pending: str | None = None
        self.ready = asyncio.Event()

    def offer(self, frame: str) -> None:
        self.pending = frame
        self.ready.set()

    async def push(self) -> None:
        while True:
            await self.ready.wait()
            self.ready.clear()
            frame, self.pending = self.pending, None
            if frame is not None:
                await self.send({"type": "websocket.send", "text": frame})


class Raw:
    def __init__(self, frame_bytes: int, redis_url: str | None) -> None:
        self.frame_bytes = frame_bytes
        self.tables: dict[str, set[Socket]] = defaultdict(set)
        self.notices: dict[tuple[str, int], set[Socket]] = defaultdict(set)
        self.seqs: dict[str, int] = defaultdict(int)
        self.redis: Any = None
        self.redis_url = redis_url

    def frame(self, seq: int, turn: int) -> str:
        head = {"type": "view", "seq": seq, "at": time.time()}
        view = {"phase": "playing", "to_move": [turn], "pad": ""}
        size = len(json.dumps({**head, "view": view}))
        view["pad"] = "x" * max(0, self.frame_bytes - size)
        return json.dumps({**head, "view": view})

    def moved(self, table: str, seq: int, seats: int) -> None:
        """Tell this process's sockets of ``table`` about move ``seq``."""
        self.seqs[table] = max(self.seqs[table], seq)
        turn = seq % seats
        frame = self.frame(seq, turn)
        for socket in self.tables.get(table, ()):
            socket.offer(frame)
        notice = json.dumps({"type": "your_turn", "table_id": table, "seq": seq})
        for socket in self.notices.get((table, turn), ()):
            socket.offer(notice)

    async def move(self, table: str, seats: int) -> None:
        if self.redis is None:
            seq = self.seqs[table] + 1
            self.moved(table, seq, seats)
            return
        seq = int(await self.redis.incr(f"{CHANNEL}:{table}"))
        await self.redis.publish(CHANNEL, f"{table} {seq} {seats}")

    async def listen(self) -> None:
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(CHANNEL)
        async for message in pubsub.listen():
            if message.get("type") == "message":
                table, seq, seats = message["data"].decode().split()
                self.moved(table, int(seq), int(seats))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "websocket":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        query = {k: v[0] for k, v in parse_qs(scope["query_string"].decode()).items()}
        path: str = scope["path"]
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        socket = Socket(send)
        pusher = asyncio.create_task(socket.push())
        try:
            if path.startswith("/raw/tables/"):
                await self.table_socket(path.removeprefix("/raw/tables/"), query, socket, receive)
            else:
                await self.notice_socket(query, socket, receive)
        finally:
            pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pusher

    async def table_socket(
        self, table: str, query: dict[str, str], socket: Socket, receive: Any
    ) -> None:
        seat = int(query["seat"]) if query.get("seat") else None
        seats = int(query.get("seats") or 1)
        self.tables[table].add(socket)
        try:
            if self.redis is not None:
                self.seqs[table] = max(
                    self.seqs[table], int(await self.redis.get(f"{CHANNEL}:{table}") or 0)
                )
            seq = self.seqs[table]
            socket.offer(self.frame(seq, seq % seats))
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    return
                command = json.loads(message.get("text") or "{}")
                turn = self.seqs[table] % seats
                accepted = seat == turn
                if accepted:
                    await self.move(table, seats)
                answer = {
                    "type": "outcome",
                    "command_id": command.get("command_id"),
                    "outcome": "accepted" if accepted else "rejected",
                }
                await socket.send({"type": "websocket.send", "text": json.dumps(answer)})
        finally:
            self.tables[table].discard(socket)
            if not self.tables[table]:
                del self.tables[table]

    async def notice_socket(self, query: dict[str, str], socket: Socket, receive: Any) -> None:
        key = (query.get("table", ""), int(query["seat"]) if query.get("seat") else -1)
        self.notices[key].add(socket)
        try:
            while (await receive())["type"] != "websocket.disconnect":
                pass
        finally:
            self.notices[key].discard(socket)
            if not self.notices[key]:
                del self.notices[key]

    async def lifespan(self, receive: Any, send: Any) -> None:
        listening = None
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if self.redis_url:
                    from redis import asyncio as aioredis

                    # (a bounded pool a call waits on, as the gateway's)
                    pool = aioredis.BlockingConnectionPool.from_url(
                        self.redis_url, max_connections=64, timeout=20
                    )
                    self.redis = aioredis.Redis(connection_pool=pool)
                    listening = asyncio.create_task(self.listen())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if listening is not None:
                    listening.cancel()
                if self.redis is not None:
                    await self.redis.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def serve(port: int, reuse: bool, frame_bytes: int, redis_url: str | None) -> None:
    from gateway.server import Server, base_url

    raise_open_files()
    tune_gc()  # (as the gateway does)
    sock = bind("127.0.0.1", port, reuse_port=reuse)
    idle_s = 60.0  # the gateway's keepalive and idle closing, as it runs by default
    config = uvicorn.Config(
        Raw(frame_bytes, redis_url),
        lifespan="on",
        log_level="warning",
        access_log=False,
        ws=idle_protocol(idle_s),
        ws_max_size=16 * 1024,
        ws_ping_interval=idle_s / 3,
        ws_ping_timeout=idle_s * 2 / 3,
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=2,
    )
    server = Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.02)
    print(base_url("127.0.0.1", sock.getsockname()[1]), flush=True)
    await task


if __name__ == "__main__":
    arguments = json.loads(sys.argv[1])
    asyncio.run(
        serve(
            arguments["port"],
            arguments["reuse"],
            arguments["frame_bytes"],
            arguments.get("redis"),
        )
    )
