"""The load generator of ``orrery bench capacity``: one process holding many clients on
asyncio, told what to do by the bench over its stdin and answering on its stdout (one
JSON document a line).

Requests (the bench's lines):

* ``{"op": "add", "tables": [{"seats": k, "spectators": s}, ...]}`` — new clients: for
  Orrery, each signs up and signs in over HTTP, the table's first player creates a
  Fractured Sky table of ``k`` seats, the others join, the first starts it; then every
  client opens its notice socket and its table's live socket. For the raw server, the
  clients only open the two sockets. Answer: ``{"ok": true, "clients", "sockets",
  "errors", "setup_s"}``.
* ``{"op": "measure"}`` — from now on, record each view frame's arrival (Orrery: the
  table, its seq, the time; the bench asks the log when it was appended. Raw: the frame
  carries the time the server made it) and each command's answer time. Answer:
  ``{"ok": true}``.
* ``{"op": "report"}`` — what was recorded since ``measure`` (``frames``, ``answers``,
  ``errors``, ``dropped``, ``rejected``, ``frame_bytes``), and recording stops.
* ``{"op": "stop"}`` — close everything and exit.

A player moves when its view says it is its turn, after a think time drawn uniformly
from ``think`` (default 2-20 s), with a random legal command of that view, sent over
its table's socket; it waits for the answer before it may move again. Spectators and
players not on turn only hold their sockets and read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from orrery_contracts.table import NOT_MOVES

GAME = "fractured_sky"
PASSWORD = "capacity bench passphrase 7"  # (zxcvbn: strong enough)
CONNECTS_AT_ONCE = 64
SIGN_INS_AT_ONCE = 16
ANSWER_TIMEOUT_S = 30.0


@dataclass
class Record:
    """What the clients of this process saw while measuring."""

    on: bool = False
    frames: list[tuple[str, int, float]] = field(default_factory=list)  # table, seq, at
    latencies: list[float] = field(default_factory=list)  # raw: append → frame, s
    answers: list[float] = field(default_factory=list)  # command → answer, s
    frame_bytes: int = 0
    frame_count: int = 0
    errors: int = 0
    rejected: int = 0
    dropped: int = 0

    def start(self) -> None:
        self.__init__()  # type: ignore[misc]
        self.on = True


class Load:
    def __init__(self, base: str, raw: bool, think: tuple[float, float], seed: int) -> None:
        self.base = base.rstrip("/")
        self.ws_base = self.base.replace("http://", "ws://")
        self.raw = raw
        self.think = think
        self.rng = random.Random(seed)
        self.record = Record()
        self.clients: list[Client] = []
        self.setup_errors = 0
        self.setup_failures: list[str] = []  # why a table's setup failed (the first few)
        self.dropped = 0  # sockets lost since the start
        self.closes: dict[str, int] = {}  # their close codes
        self.closing = False
        self.connecting = asyncio.Semaphore(CONNECTS_AT_ONCE)
        self.signing = asyncio.Semaphore(SIGN_INS_AT_ONCE)
        self.http = httpx.AsyncClient(
            base_url=self.base,
            timeout=120,
            limits=httpx.Limits(max_connections=SIGN_INS_AT_ONCE * 2),
        )

    def error(self, during_setup: bool = False) -> None:
        if during_setup:
            self.setup_errors += 1
        elif self.record.on:
            self.record.errors += 1

    async def add(self, tables: list[dict[str, int]]) -> dict[str, Any]:
        started = time.perf_counter()
        self.setup_errors = 0
        self.setup_failures = []
        made = await asyncio.gather(*(self._table(t["seats"], t["spectators"]) for t in tables))
        new = [c for clients in made for c in clients]
        self.clients += new
        await asyncio.gather(*(c.open() for c in new))
        return {
            "ok": True,
            "clients": len(self.clients),
            "sockets": sum(c.sockets() for c in self.clients),
            "errors": self.setup_errors,
            "failures": self.setup_failures,
            "setup_s": round(time.perf_counter() - started, 2),
        }

    async def _table(self, seats: int, spectators: int) -> list[Client]:
        table_id = uuid.uuid4().hex[:16]
        players = [Client(self, table_id, seat, seats) for seat in range(seats)]
        watchers = [Client(self, table_id, None, seats) for _ in range(spectators)]
        if self.raw:
            return players + watchers
        try:
            await asyncio.gather(*(c.sign_in() for c in players + watchers))
            first = players[0]
            made = await first.post("/v1/tables", {"game": GAME, "seats": seats})
            table_id = made["table_id"]
            for client in players + watchers:
                client.table_id = table_id
            for client in players:
                joined = await client.post(f"/v1/tables/{table_id}/join", {})
                client.seat = int(joined["seat"])
            await first.post(f"/v1/tables/{table_id}/start", None)
        except (httpx.HTTPError, RuntimeError, KeyError) as failure:
            self.error(during_setup=True)
            if len(self.setup_failures) < 5:
                self.setup_failures.append(f"{type(failure).__name__}: {failure}"[:200])
            return []
        return players + watchers

    def report(self) -> dict[str, Any]:
        record, self.record = self.record, Record()
        live = sum(c.sockets() for c in self.clients)
        return {
            "ok": True,
            "frames": record.frames,
            "latencies": record.latencies,
            "answers": record.answers,
            "errors": record.errors,
            "rejected": record.rejected,
            "dropped": record.dropped,
            "frame_bytes": record.frame_bytes // max(1, record.frame_count),
            "sockets": live,
            "dropped_total": self.dropped,
            "closes": self.closes,
        }

    async def stop(self) -> None:
        self.closing = True
        await asyncio.gather(*(c.close() for c in self.clients), return_exceptions=True)
        await self.http.aclose()


class Client:
    """One signed-in person: a player of ``seat``, or a spectator (``seat`` None)."""

    def __init__(self, load: Load, table_id: str, seat: int | None, seats: int) -> None:
        self.load = load
        self.table_id = table_id
        self.seat = seat
        self.seats = seats
        self.player_id = uuid.uuid4().hex[:12]
        self.token = ""
        self.table: ClientConnection | None = None
        self.notices: ClientConnection | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.changed = asyncio.Event()
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def sockets(self) -> int:
        return sum(
            1 for s in (self.table, self.notices) if s is not None and s.state.name == "OPEN"
        )

    async def sign_in(self) -> None:
        name = f"cap{self.player_id}"
        async with self.load.signing:
            created = await self.load.http.post(
                "/v1/players", json={"name": name, "password": PASSWORD}
            )
            if created.status_code != 201:
                raise RuntimeError(created.text[:200])
            session = await self.load.http.post(
                "/v1/sessions", json={"name": name, "password": PASSWORD}
            )
            if session.status_code != 200:
                raise RuntimeError(session.text[:200])
        self.token = session.json()["token"]

    async def post(self, path: str, body: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        response = await self.load.http.post(path, json=body, headers=headers)
        if response.status_code >= 300:
            raise RuntimeError(response.text[:200])
        answer: dict[str, Any] = response.json()
        return answer

    def _urls(self) -> tuple[str, str]:
        base = self.load.ws_base
        if self.load.raw:
            seat = "" if self.seat is None else str(self.seat)
            return (
                f"{base}/raw/notices?table={self.table_id}&seat={seat}",
                f"{base}/raw/tables/{self.table_id}?seat={seat}&seats={self.seats}",
            )
        return f"{base}/v1/players/me/live", f"{base}/v1/tables/{self.table_id}/live"

    async def _connect(self, url: str) -> ClientConnection:
        async with self.load.connecting:
            socket = await connect(
                url, max_size=2**22, compression=None, ping_interval=None, open_timeout=120
            )
        if not self.load.raw:
            await socket.send(json.dumps({"type": "auth", "token": self.token}))
        return socket

    async def open(self) -> None:
        notices, table = self._urls()
        try:
            self.notices = await self._connect(notices)
            self.table = await self._connect(table)
        except (OSError, TimeoutError, ConnectionClosed, httpx.HTTPError):
            self.load.error(during_setup=True)
            return
        self.tasks = [
            asyncio.create_task(self._read_notices(self.notices)),
            asyncio.create_task(self._read_table(self.table)),
        ]
        if self.seat is not None:
            self.tasks.append(asyncio.create_task(self._play()))

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for socket in (self.table, self.notices):
            if socket is not None:
                await socket.close()

    def _dropped(self, socket: ClientConnection) -> None:
        """A socket the server closed or lost (never one this process closes)."""
        if not self.load.closing:
            self.load.dropped += 1
            code = str(socket.close_code)
            self.load.closes[code] = self.load.closes.get(code, 0) + 1
            if self.load.record.on:
                self.load.record.dropped += 1

    async def _read_notices(self, socket: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in socket:
                pass
        self._dropped(socket)

    async def _read_table(self, socket: ClientConnection) -> None:
        record = self.load.record
        try:
            async for data in socket:
                now = time.time()
                frame = json.loads(data)
                kind = frame.get("type")
                if kind == "view":
                    record = self.load.record
                    if record.on:
                        record.frame_count += 1
                        record.frame_bytes += len(data)
                        if self.load.raw:
                            record.latencies.append(now - frame["at"])
                        else:
                            record.frames.append((self.table_id, frame["seq"], now))
                    if frame["seq"] > self.seq:
                        self.seq, self.view = frame["seq"], frame["view"]
                        self.changed.set()
                elif kind in ("outcome", "error"):
                    waiting = self.answers.pop(frame.get("command_id") or "", None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(frame)
                    elif kind == "error":
                        self.load.error()
        except ConnectionClosed:
            pass
        self._dropped(socket)

    def _my_move(self) -> dict[str, Any] | None:
        view = self.view
        if view is None or view.get("phase") != "playing":
            return None
        if self.seat not in view.get("to_move", ()):
            return None
        if self.load.raw:
            return {"type": "raw.move"}
        moves = [c for c in view.get("legal", ()) if c.get("type") not in NOT_MOVES]
        return self.load.rng.choice(moves) if moves else None

    async def _play(self) -> None:
        acted = -1
        low, high = self.load.think
        while True:
            while self.seq <= acted or self._my_move() is None:
                self.changed.clear()
                await self.changed.wait()
            await asyncio.sleep(self.load.rng.uniform(low, high))
            move = self._my_move()  # the newest view, after thinking
            if move is None:
                continue
            acted = self.seq
            await self._send(move)

    async def _send(self, move: dict[str, Any]) -> None:
        assert self.table is not None
        command_id = uuid.uuid4().hex
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.answers[command_id] = answer
        sent = time.perf_counter()
        try:
            await self.table.send(
                json.dumps({"type": "command", "command_id": command_id, "body": move})
            )
            frame = await asyncio.wait_for(answer, ANSWER_TIMEOUT_S)
        except (TimeoutError, ConnectionClosed):
            self.answers.pop(command_id, None)
            self.load.error()
            return
        record = self.load.record
        if not record.on:
            return
        record.answers.append(time.perf_counter() - sent)
        if frame.get("type") == "error":
            record.errors += 1
        elif frame.get("outcome") == "rejected":
            record.rejected += 1  # chosen from a view another seat's move had overtaken


async def main(base: str, raw: bool, think: tuple[float, float], seed: int) -> None:
    load = Load(base, raw, think, seed)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def answer(document: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(document) + "\n")
        sys.stdout.flush()

    while line := await reader.readline():
        request = json.loads(line)
        op = request["op"]
        if op == "add":
            answer(await load.add(request["tables"]))
        elif op == "measure":
            load.record.start()
            answer({"ok": True})
        elif op == "report":
            answer(load.report())
        elif op == "stop":
            break
    await load.stop()
    answer({"ok": True})


if __name__ == "__main__":
    import resource

    from gateway.gc_tuning import tune_gc

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # its thousands of connections' objects, as a server's: a full collection would stop
    # the generator, and date every frame it then reads late
    tune_gc()
    arguments = json.loads(sys.argv[1])
    asyncio.run(
        main(
            arguments["base"],
            arguments["raw"],
            (arguments["think"][0], arguments["think"][1]),
            arguments["seed"],
        )
    )
