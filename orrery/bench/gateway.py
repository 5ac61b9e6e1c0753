"""``orrery bench gateway``: the gateway's cost, next to the Python SDK over Redis in the
same run (docs/benchmarks.md, "Gateway").

Everything runs here on a temporary embedded server: one worker, one projector, one
gateway process. The client kinds play the same workload: tables of Fractured Sky with
one seat (the built-in AIs play the others), each driven by one client that waits for
its seat's view, picks a random legal move and sends it. They take turns, ``rounds``
rounds of ``commands / rounds`` commands each, the order reversed every other round
(sdk http ws httpx, httpx ws http sdk, …), and each kind's figures pool its rounds: one
whole phase after the other's, a slow moment of a shared machine would fall on one kind
only, and the same code's ratios would swing by a third between runs.

* ``sdk`` — ``orrery_client.sdk.OrreryClient`` over Redis (views by ``wait_view``);
* ``http`` — commands by ``POST /v1/tables/{id}/commands``, views from the WebSocket;
* ``ws`` — commands and views over the WebSocket;
* ``httpx`` — the ``http`` phase again with httpx as the HTTP client, for scale.

The ``http`` and ``ws`` drivers send their HTTP requests on one kept-alive connection
each (:class:`KeptAlive`, as a browser keeps one per origin) and sign in before the
phase's clock starts (the SDK's drivers have no sign-in; its cost is the last figure).
httpx is a fine client but spends more CPU per request than the gateway does per
command, and here every process shares two cores with the gateway: the ``httpx`` row
shows what that client alone costs the ``http`` figure.

Figures: commands/s over the phase, the outcome latency (command sent → outcome
received) p50/p99, and the CPU per command of the gateway process (``/proc``) and of
this process (the clients). Then the push figure: ``--spectators`` WebSockets watch a
one-seat table while a driver plays it, table after table until ``--updates`` moves
were made; for each view frame a spectator receives, the latency from the append (the
event's ``recorded_at`` in the log) to the frame's arrival.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from gateway.sockets import auth_frame
from orrery.bench.service import in_turns, process_cpu_seconds, rounds_text
from orrery.server.embedded import EmbeddedServer
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts import keys
from orrery_contracts.envelope import Rejection, decode_entry
from orrery_contracts.table import NOT_MOVES

GAME = "fractured_sky"
TABLES = 8
GATEWAY_KINDS = ("http", "ws", "httpx")
KINDS = ("sdk", *GATEWAY_KINDS)
TARGETED = ("http", "ws")  # the rows the targets are for
ROUNDS = 3
# HTTP and WebSocket commands/s at least 0.6 of the SDK's, p99 at most twice its
TARGET_RATIO_TO_SDK = 0.6
TARGET_P99_TIMES_SDK = 2.0
PHASE_TIMEOUT_S = 600


def _met(ok: bool) -> str:
    return "(met)" if ok else "(not met)"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class CpuClock:
    """CPU seconds used by the gateway process and by this one over a phase."""

    def __init__(self, gateway_pid: int | None) -> None:
        self.pid = gateway_pid
        self.gateway = self._gateway()
        self.client = time.process_time()

    def _gateway(self) -> float | None:
        return process_cpu_seconds(self.pid) if self.pid is not None else None

    def used(self) -> tuple[float | None, float]:
        now = self._gateway()
        gateway = now - self.gateway if now is not None and self.gateway is not None else None
        return gateway, time.process_time() - self.client


@dataclass
class Phase:
    """What one client kind measured, over one round or pooled over all of them."""

    latencies: list[float] = field(default_factory=list)  # command sent -> outcome, s
    seconds: float = 0.0
    gateway_s: float | None = 0.0  # the gateway's CPU (None: not known)
    client_s: float = 0.0  # this process's CPU (the clients)

    def ended(self, started: float, clock: CpuClock) -> Phase:
        self.seconds = time.perf_counter() - started
        self.gateway_s, self.client_s = clock.used()
        return self

    def add(self, other: Phase) -> None:
        self.latencies += other.latencies
        self.seconds += other.seconds
        if self.gateway_s is None or other.gateway_s is None:
            self.gateway_s = None
        else:
            self.gateway_s += other.gateway_s
        self.client_s += other.client_s


def _figures(kind: str, phase: Phase) -> dict[str, Any]:
    n = len(phase.latencies)
    gateway_s = phase.gateway_s
    return {
        "kind": kind,
        "commands": n,
        "commands_per_s": round(n / phase.seconds, 1) if phase.seconds else 0.0,
        "p50_ms": round(_pct(phase.latencies, 0.5) * 1000, 2),
        "p99_ms": round(_pct(phase.latencies, 0.99) * 1000, 2),
        "gateway_cpu_us": round(gateway_s / n * 1e6) if n and gateway_s is not None else None,
        "client_cpu_us": round(phase.client_s / n * 1e6) if n else None,
    }


def turn_order(round_: int) -> tuple[str, ...]:
    """The kinds in the order they play round ``round_``."""
    return in_turns(KINDS, round_)


def _move(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    if view["phase"] != "playing" or view["viewer"] not in view["to_move"]:
        return None
    moves = [c for c in view["legal"] if c.get("type") not in NOT_MOVES]
    return rng.choice(moves) if moves else None


# ---------------------------------------------------------------- the SDK over Redis


async def _drive(
    client: OrreryClient,
    seat: SeatCredentials,
    rng: random.Random,
    more: Callable[[], bool],
    on_play: Callable[[float], None],
) -> int:
    """Start the seat's table and play random legal moves while ``more()`` and the game
    last; ``on_play`` gets each move's round trip (s). Returns the seq of the table after
    the last move."""
    started = await client.start(seat)
    seq = started.last_seq
    while more():
        view = await client.wait_view(seat.table_id, seat.seat, seq)
        if view["phase"] == "finished":
            break
        move = _move(view, rng)
        if move is None:
            seq = view["seq"] + 1
            continue
        sent = time.perf_counter()
        outcome = await client.play(seat, move)
        on_play(time.perf_counter() - sent)
        # a rejection: read the view again (it is current)
        seq = view["seq"] if isinstance(outcome, Rejection) else outcome.last_seq
    return seq


async def _sdk_phase(url: str, commands: int, tables: int, gateway_pid: int | None = None) -> Phase:
    phase = Phase()
    latencies = phase.latencies
    async with OrreryClient(url) as client:

        async def driver(i: int) -> None:
            rng = random.Random(i)
            while len(latencies) < commands:
                table = await client.create_table(GAME, 1)
                seat = await client.join(table, f"sdk{i}")
                await _drive(client, seat, rng, lambda: len(latencies) < commands, latencies.append)

        clock = CpuClock(gateway_pid)
        started = time.perf_counter()
        await asyncio.gather(*(driver(i) for i in range(tables)))
        return phase.ended(started, clock)


# ---------------------------------------------------------------- through the gateway


class KeptAlive:
    """JSON requests on one HTTP/1.1 connection kept open (answers carry a
    ``content-length``: the gateway's API always does), and the same calls on httpx
    for the ``httpx`` row: ``request`` answers the status and the decoded body."""

    def __init__(self, base: str, http: httpx.AsyncClient | None = None) -> None:
        host, _, port = base.removeprefix("http://").rpartition(":")
        self.host, self.port = host.strip("[]"), int(port)
        self.http = http
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if self.http is not None:
            response = await self.http.request(method, path, json=body, headers=headers)
            return response.status_code, response.json()
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        head += f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n"
        self.writer.write(head.encode() + payload)
        lines = (await self.reader.readuntil(b"\r\n\r\n")).split(b"\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in lines
            if line.lower().startswith(b"content-length:")
        )
        return int(lines[0].split()[1]), json.loads(await self.reader.readexactly(length))

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()


async def _account(http: KeptAlive, name: str) -> str:
    password = "bench password"
    await http.request("POST", "/v1/players", {"name": name, "password": password})
    status, session = await http.request(
        "POST", "/v1/sessions", {"name": name, "password": password}
    )
    if status != 200:
        raise RuntimeError(f"sign-in refused: {status} {session}")
    token: str = session["token"]
    return token


async def _gateway_phase(
    base: str, commands: int, kind: str, tables: int, gateway_pid: int | None = None
) -> Phase:
    """``kind``: ``http`` or ``ws`` (commands on the kept-alive connection or on the
    socket), ``httpx`` (``http`` with httpx as the client)."""
    phase = Phase()
    latencies = phase.latencies
    ws_base = base.replace("http://", "ws://")
    async with httpx.AsyncClient(base_url=base, timeout=60) as pool:
        clients = [KeptAlive(base, pool if kind == "httpx" else None) for _ in range(tables)]
        tokens = await asyncio.gather(
            *(_account(c, f"{kind}-{i}-{uuid.uuid4().hex[:6]}") for i, c in enumerate(clients))
        )

        async def driver(i: int) -> None:
            rng = random.Random(i)
            http, token = clients[i], tokens[i]
            while len(latencies) < commands:
                _, made = await http.request(
                    "POST", "/v1/tables", {"game": GAME, "seats": 1}, token
                )
                table = made["table_id"]
                await http.request("POST", f"/v1/tables/{table}/join", {}, token)
                url = f"{ws_base}/v1/tables/{table}/live"
                async with websockets.connect(url, max_size=2**24) as socket:
                    await socket.send(auth_frame(token))
                    start = f"/v1/tables/{table}/start"
                    _, started = await http.request("POST", start, None, token)
                    seq = started["last_seq"]
                    view: dict[str, Any] | None = None
                    while len(latencies) < commands:
                        if view is None or view["seq"] < seq:
                            frame = json.loads(await socket.recv())
                            if frame["type"] == "view":
                                view = frame["view"]
                            continue
                        if view["phase"] == "finished":
                            break
                        move = _move(view, rng)
                        if move is None:
                            seq = view["seq"] + 1
                            continue
                        body = {"command_id": uuid.uuid4().hex, "body": move}
                        sent = time.perf_counter()
                        if kind == "ws":
                            await socket.send(json.dumps({"type": "command", **body}))
                            while True:
                                frame = json.loads(await socket.recv())
                                if frame["type"] == "outcome":
                                    outcome = frame
                                    break
                                if frame["type"] == "view":
                                    view = frame["view"]
                        else:
                            _, outcome = await http.request(
                                "POST", f"/v1/tables/{table}/commands", body, token
                            )
                        latencies.append(time.perf_counter() - sent)
                        if outcome.get("outcome") == "accepted":
                            seq = outcome["last_seq"]
                        else:  # the view was stale: read the current one
                            _, view = await http.request(
                                "GET", f"/v1/tables/{table}/view", None, token
                            )
                            assert view is not None
                            seq = view["seq"]

        clock = CpuClock(gateway_pid)
        started = time.perf_counter()
        try:
            await asyncio.gather(*(driver(i) for i in range(tables)))
        finally:
            for client in clients:
                await client.close()
        return phase.ended(started, clock)


async def _push_phase(base: str, url: str, spectators: int, updates: int) -> dict[str, Any]:
    """``spectators`` WebSockets watch a one-seat table while an SDK driver plays on it,
    one table after another until ``updates`` moves were made (a one-seat game of
    Fractured Sky ends after ~30 moves); per view frame, the latency from the append."""
    latencies: list[float] = []
    made = frames = tables = 0
    rng = random.Random(1)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http, OrreryClient(url) as client:
        token = await _account(KeptAlive(base, http), f"watcher-{uuid.uuid4().hex[:6]}")
        while made < updates:
            table = await client.create_table(GAME, 1)
            received = await _watched_table(
                base, http, client, token, table, spectators, updates - made, rng
            )
            tables += 1
            made += received.moves
            frames += len(received.frames)
            log = await client.redis.xrange(keys.log_stream(client.partition(table), table))
            appended = {e.seq: e.recorded_at for e in (decode_entry(f[b"e"]) for _, f in log)}
            latencies += [at - appended[seq] for seq, at in received.frames if seq in appended]
            if not received.moves:  # (a game that ends before any move: no more to play)
                break
    return {
        "spectators": spectators,
        "tables": tables,
        "updates": made,
        "frames": frames,
        "p50_ms": round(_pct(latencies, 0.5), 1),
        "p99_ms": round(_pct(latencies, 0.99), 1),
        "mean_ms": round(statistics.fmean(latencies), 1) if latencies else 0.0,
    }


@dataclass
class Watched:
    moves: int
    frames: list[tuple[int, float]]  # (seq, unix ms received), every spectator's


async def _watched_table(
    base: str,
    http: httpx.AsyncClient,
    client: OrreryClient,
    token: str,
    table: str,
    spectators: int,
    moves: int,
    rng: random.Random,
) -> Watched:
    """Up to ``moves`` moves on ``table`` (fewer if its game ends first), watched by
    ``spectators`` WebSockets connected before the start; every view frame they got."""
    ws_base = base.replace("http://", "ws://")
    received: list[tuple[int, float]] = []
    seat = await client.join(table, "driver")
    # the gateway knows a table once the lobby projection lists it: wait for that
    # before 100 spectators connect (else some are refused no_such_table)
    auth = {"Authorization": f"Bearer {token}"}
    while (await http.get(f"/v1/tables/{table}", headers=auth)).status_code != 200:
        await asyncio.sleep(0.05)
    done = asyncio.Event()
    live = f"{ws_base}/v1/tables/{table}/live"
    gate = asyncio.Semaphore(10)

    async def connect() -> Any:
        async with gate:
            socket = await websockets.connect(live, max_size=2**24, open_timeout=60)
            await socket.send(auth_frame(token))
            await socket.recv()  # the current view
            return socket

    async def spectator(socket: Any) -> None:
        async with socket:
            while not done.is_set():
                try:
                    text = await asyncio.wait_for(socket.recv(), 0.5)
                except TimeoutError:
                    continue
                frame = json.loads(text)
                if frame["type"] == "view":
                    received.append((frame["seq"], time.time() * 1000))

    sockets = await asyncio.gather(*(connect() for _ in range(spectators)))
    watchers = [asyncio.create_task(spectator(s)) for s in sockets]
    plays: list[float] = []
    seq = await _drive(client, seat, rng, lambda: len(plays) < moves, plays.append)
    await client.wait_view(table, None, seq - 1)
    await asyncio.sleep(1.0)  # the last frames in flight
    done.set()
    await asyncio.gather(*watchers)
    return Watched(len(plays), received)


def sign_in_cost() -> dict[str, Any]:
    """The measured CPU cost of one sign-in's password check, with the parameters in
    force and, for scale, argon2-cffi's defaults (what the gateway used before)."""
    from argon2 import PasswordHasher

    from gateway import passwords

    return {
        "memory_kib": passwords.ARGON2_MEMORY_KIB,
        "time_cost": passwords.ARGON2_TIME_COST,
        "parallelism": passwords.ARGON2_PARALLELISM,
        "ms": round(passwords.cost_per_sign_in() * 1000, 1),
        "library_default_ms": round(passwords.cost_per_sign_in(PasswordHasher()) * 1000, 1),
    }


def run_bench(
    commands: int = 1200,
    spectators: int = 100,
    updates: int = 60,
    tables: int = TABLES,
    rounds: int = ROUNDS,
) -> dict[str, Any]:
    from orrery.runtime import gateway_processes, service, stop_processes

    os.environ.setdefault("ORRERY_SECRET_KEY", uuid.uuid4().hex)
    os.environ["ORRERY_GATEWAY_RATE"] = "100000"
    os.environ["ORRERY_GATEWAY_BURST"] = "100000"
    os.environ["ORRERY_GATEWAY_ANON_RATE"] = "1000"
    os.environ["ORRERY_GATEWAY_ANON_BURST"] = "1000"
    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")

    async def run(url: str) -> dict[str, Any]:
        async with service(url, 1, 1) as processes:
            base, started = await gateway_processes(url)
            processes.extend(started)
            pid = started[0].pid
            try:
                pooled = {kind: Phase() for kind in KINDS}
                per_round = max(1, -(-commands // rounds))  # (rounded up)
                for round_ in range(rounds):
                    for kind in turn_order(round_):
                        async with asyncio.timeout(PHASE_TIMEOUT_S):
                            if kind == "sdk":
                                done = await _sdk_phase(url, per_round, tables, pid)
                            else:
                                done = await _gateway_phase(base, per_round, kind, tables, pid)
                        pooled[kind].add(done)
                async with asyncio.timeout(PHASE_TIMEOUT_S):
                    push = await _push_phase(base, url, spectators, updates)
            finally:
                stop_processes(started)
        return {
            "game": GAME,
            "tables": tables,
            "rounds": rounds,
            "phases": [_figures(kind, phase) for kind, phase in pooled.items()],
            "push": push,
            "sign_in": sign_in_cost(),
        }

    with tempfile.TemporaryDirectory() as folder, EmbeddedServer(Path(folder)) as server:
        return asyncio.run(run(server.url))


def render(result: dict[str, Any]) -> str:
    sdk = result["phases"][0]
    lines = [
        f"gateway bench: {result['tables']} tables of {result['game']} (1 seat), one driver "
        f"each; the client kinds in turns, {rounds_text(result.get('rounds', 1))}",
        f"{'client':8} {'commands':>9} {'cmd/s':>8} {'÷ sdk':>6} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'gw µs/cmd':>10} {'client µs/cmd':>14}  target",
    ]
    for phase in result["phases"]:
        ratio = phase["commands_per_s"] / sdk["commands_per_s"] if sdk["commands_per_s"] else 0
        target = ""
        if phase["kind"] in TARGETED:
            p99_limit = TARGET_P99_TIMES_SDK * sdk["p99_ms"]
            target = (
                f"  ÷ sdk ≥ {TARGET_RATIO_TO_SDK:.2f} {_met(ratio >= TARGET_RATIO_TO_SDK)}, "
                f"p99 ≤ {p99_limit:.1f} {_met(phase['p99_ms'] <= p99_limit)}"
            )
        elif phase is not sdk:
            target = "  (for scale: the http phase with httpx as its client)"
        gateway_cpu = phase.get("gateway_cpu_us")
        client_cpu = phase.get("client_cpu_us")
        lines.append(
            f"{phase['kind']:8} {phase['commands']:>9} {phase['commands_per_s']:>8} "
            f"{ratio:>6.2f} {phase['p50_ms']:>8} {phase['p99_ms']:>8} "
            f"{'-' if gateway_cpu is None else gateway_cpu:>10} "
            f"{'-' if client_cpu is None else client_cpu:>14}{target}"
        )
    push = result["push"]
    lines.append(
        f"append → push to {push['spectators']} spectators: {push['frames']} frames for "
        f"{push['updates']} updates on {push['tables']} table(s), "
        f"p50 {push['p50_ms']} ms, p99 {push['p99_ms']} ms"
    )
    cost = result["sign_in"]
    ratio = cost["ms"] / cost["library_default_ms"] if cost["library_default_ms"] else 0
    lines.append(
        f"sign-in: argon2id m={cost['memory_kib']} KiB t={cost['time_cost']} "
        f"p={cost['parallelism']}: {cost['ms']} ms of CPU per sign-in "
        f"(argon2-cffi's defaults: {cost['library_default_ms']} ms, ×{ratio:.2f})"
    )
    return "\n".join(lines)
