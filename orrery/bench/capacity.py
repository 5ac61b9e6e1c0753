"""``orrery bench capacity``: how many connected players one machine holds
(docs/benchmarks.md, "Capacity"; docs/scaling.md for the sizing rule drawn from it).

A ramp of concurrent clients in steps. Every client signs up and signs in over HTTP and
holds two WebSockets: its notice socket and its table's live socket. Four in five are
players, seated 2-5 to a table of Fractured Sky, each moving when its view says it is
its turn after a think time drawn from ``think`` (2-20 s); one in five is a spectator,
on the busiest tables (the most seats, at most :data:`SPECTATORS_PER_TABLE` each). The
clients run in load-generator processes of their own (orrery/bench/capacity_load.py),
many asyncio connections each; the service is one decider, one projector and
``gateways`` gateway processes on one port (``SO_REUSEPORT``), on a temporary embedded
server. Every process here raises its open-file limit to the hard limit.

Each step adds clients up to its size, waits until the projectors have folded every
command of the setup and lets them settle, then measures for ``window``
seconds: push latency from the append (the event's ``recorded_at`` in the table's log)
to the view frame's arrival p50/p99, command answer p99 (sent on the table's socket,
answered on it), errors (transport, refusals, unanswered commands) and dropped
sockets, gateway RSS per connection (what the step added, divided), Redis memory per
live table two ways: the table's own keys (its log, outcomes, views, notices, updates,
meta, score and lobby records: ``MEMORY USAGE`` of each, :data:`TABLE_KEYS`) ÷ the live
tables, the figure held against the target; and everything Redis holds more than at
the start of the ramp ÷ the live tables (the players' accounts, sessions, presence and
notices, the reply streams and feeds too: a player's keys are the player's, not a
table's, but they are there); CPU per process (percent of one core over the window).
A step is held with push p99 ≤ 250 ms, no error and no dropped socket; the ramp stops
after the first step not held.

The baseline runs in the same run on the same port: a minimal WebSocket server of the
same library (orrery/bench/raw_ws.py) with as many processes, holding the same
connections and broadcasting a frame of the measured view size to the same
subscribers per move, under the same ramp. The figure is Orrery's largest held step ÷
the baseline's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from orrery_contracts import keys
from orrery_contracts.envelope import decode_entry

STEPS = (1000, 2000, 5000, 10000, 20000)
WINDOW_S = 60.0
THINK_S = (2.0, 20.0)
SPECTATOR_SHARE = 0.2
SPECTATORS_PER_TABLE = 10
SEATS = (2, 5)
SETTLE_S = 5.0
GENERATORS = 2
PARTITIONS = 16
# A live table's own keys: those of its partition (log, outcomes, views, notices,
# updates, meta, score, seed), its lobby record and its seats' gateway record.
TABLE_KEYS = ("orrery:{*}:t:*", "orrery:{lobby}:table:*", "orrery:{lobby}:gw:*")
# targets (a 2-core machine)
PUSH_P99_MS = 250.0
TARGET_CONNECTIONS = 10_000
TARGET_RATIO = 0.5
TARGET_GATEWAY_KIB = 32.0
TARGET_REDIS_KIB = 64.0
SETUP_TIMEOUT_S = 3600.0
DEFAULT_FRAME_BYTES = 3000


def plan_tables(clients: int, rng: random.Random) -> list[dict[str, int]]:
    """``clients`` as tables: players 2-5 to a table, spectators (one in five) on the
    tables with the most seats."""
    spectators = round(clients * SPECTATOR_SHARE)
    players = clients - spectators
    sizes: list[int] = []
    while sum(sizes) < players:
        sizes.append(rng.randint(*SEATS))
    excess = sum(sizes) - players
    while excess > 0:  # trim the last tables, never below two seats
        for i in range(len(sizes) - 1, -1, -1):
            if excess and sizes[i] > SEATS[0]:
                sizes[i] -= 1
                excess -= 1
        if excess and all(s == SEATS[0] for s in sizes):
            sizes.pop()
            excess -= SEATS[0]
    if excess < 0:
        spectators -= excess  # (fewer than two players left: they watch)
    tables = [{"seats": s, "spectators": 0} for s in sizes]
    busiest = sorted(range(len(tables)), key=lambda i: -tables[i]["seats"])
    for n in range(spectators):
        i = busiest[(n // SPECTATORS_PER_TABLE) % len(busiest)] if busiest else 0
        if tables:
            tables[i]["spectators"] += 1
    return tables


def _merged(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for count in counts:
        for key, n in count.items():
            out[key] = out.get(key, 0) + n
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Generator:
    """One load-generator process and its request / answer lines."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, base: str, raw: bool, think: tuple[float, float], seed: int) -> Generator:
        arguments = json.dumps({"base": base, "raw": raw, "think": list(think), "seed": seed})
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "orrery.bench.capacity_load",
            arguments,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**28,
        )
        return cls(process)

    async def ask(self, request: dict[str, Any], timeout: float = 120.0) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("a load generator stopped")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(
                RuntimeError, TimeoutError, BrokenPipeError, ConnectionResetError
            ):
                await self.ask({"op": "stop"}, timeout=60)
        if self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


class Probe:
    """CPU seconds of named processes between two samples; RSS of some."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.processes = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.before: dict[str, float] = {}
        self.started = 0.0

    def _cpu(self) -> dict[str, float]:
        out = {}
        for name, process in self.processes.items():
            try:
                times = process.cpu_times()
                out[name] = times.user + times.system
            except psutil.Error:
                out[name] = 0.0
        return out

    def start(self) -> None:
        self.before = self._cpu()
        self.started = time.perf_counter()

    def percent(self) -> dict[str, float]:
        elapsed = time.perf_counter() - self.started
        now = self._cpu()
        return {
            name: round(100 * (now[name] - self.before.get(name, 0.0)) / elapsed, 1) for name in now
        }

    def rss(self, prefix: str) -> int:
        total = 0
        for name, process in self.processes.items():
            if name.startswith(prefix):
                with contextlib.suppress(psutil.Error):
                    total += process.memory_info().rss
        return total


async def _caught_up(redis: Any, timeout: float = SETUP_TIMEOUT_S) -> None:
    """Until the projectors have folded every command so far (no feed entry waiting)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waiting = 0
        for p in range(PARTITIONS):
            for group in await redis.xinfo_groups(keys.feed_stream(p)):
                waiting += int(group.get("lag") or 0) + int(group.get("pending") or 0)
        if not waiting:
            return
        await asyncio.sleep(0.5)


async def _table_keys_memory(redis: Any) -> int:
    """What every live table's own keys take in Redis (``MEMORY USAGE``, bytes)."""
    total = 0
    batch: list[bytes] = []

    async def measure() -> int:
        pipe = redis.pipeline(transaction=False)
        for key in batch:
            pipe.memory_usage(key, samples=0)
        return sum(size or 0 for size in await pipe.execute())

    for pattern in TABLE_KEYS:
        async for key in redis.scan_iter(match=pattern, count=1000):
            batch.append(key)
            if len(batch) >= 500:
                total += await measure()
                batch.clear()
    if batch:
        total += await measure()
    return total


async def _appended_at(redis: Any, frames: list[tuple[str, int, float]]) -> list[float]:
    """Append → frame latency of each frame, the append time from the table's log."""
    wanted: dict[str, set[int]] = {}
    for table, seq, _ in frames:
        wanted.setdefault(table, set()).add(seq)
    pipe = redis.pipeline(transaction=False)
    tables = list(wanted)
    for table in tables:
        stream = keys.log_stream(keys.partition_of(table, PARTITIONS), table)
        pipe.xrange(stream, f"{min(wanted[table])}-0", f"{max(wanted[table])}-0")
    appended: dict[tuple[str, int], float] = {}
    for table, rows in zip(tables, await pipe.execute(), strict=True):
        for _, fields in rows:
            entry = decode_entry(fields[b"e"])
            appended[(table, entry.seq)] = entry.recorded_at / 1000
    return [at - appended[(t, s)] for t, s, at in frames if (t, s) in appended]


@dataclass
class Before:
    """Where the previous step left the servers: their RSS, Redis's memory, the
    connections and tables held."""

    rss: int
    memory: int  # Redis's used memory at the start of the ramp
    connections: int = 0


async def _step(
    clients: int,
    added: list[dict[str, int]],
    generators: list[Generator],
    probe: Probe,
    window: float,
    redis: Any,
    before: Before,
    tables_so_far: int,
    raw: bool,
) -> dict[str, Any]:
    shares: list[list[dict[str, int]]] = [[] for _ in generators]
    for i, table in enumerate(added):
        shares[i % len(generators)].append(table)
    started = time.perf_counter()
    answers = await asyncio.gather(
        *(
            g.ask({"op": "add", "tables": share}, SETUP_TIMEOUT_S)
            for g, share in zip(generators, shares, strict=True)
        )
    )
    setup_s = time.perf_counter() - started
    if not raw:
        await _caught_up(redis)  # the setup's commands all projected
    await asyncio.sleep(SETTLE_S)
    await asyncio.gather(*(g.ask({"op": "measure"}) for g in generators))
    probe.start()
    await asyncio.sleep(window)
    reports = await asyncio.gather(*(g.ask({"op": "report"}, 600) for g in generators))
    cpu = probe.percent()
    frames = [(str(t), int(q), float(a)) for r in reports for t, q, a in r["frames"]]
    if raw:
        latencies = [x for r in reports for x in r["latencies"]]
    else:
        latencies = await _appended_at(redis, frames)
    answer_times = [x for r in reports for x in r["answers"]]
    sockets = sum(r["sockets"] for r in reports)
    errors = sum(r["errors"] for r in reports)
    dropped = sum(r["dropped"] for r in reports)
    setup_errors = sum(a["errors"] for a in answers)
    sizes = [r["frame_bytes"] for r in reports if r["frame_bytes"]]
    push_p99 = _pct(latencies, 0.99) * 1000
    rss = probe.rss("server")
    memory = int((await redis.info("memory"))["used_memory"])
    own = 0 if raw else await _table_keys_memory(redis)
    lost = sum(r["dropped_total"] for r in reports) + setup_errors
    held = push_p99 <= PUSH_P99_MS and errors + dropped + lost == 0
    return {
        "clients": clients,
        "connections": sockets,
        "tables": tables_so_far,
        "setup_s": round(setup_s, 1),
        "setup_errors": setup_errors,
        # why a table's setup failed (each generator's first few)
        "setup_failures": [f for a in answers for f in a.get("failures", [])],
        "frames": len(latencies),
        "frame_bytes": round(statistics.mean(sizes)) if sizes else 0,
        "push_p50_ms": round(_pct(latencies, 0.5) * 1000, 1),
        "push_p99_ms": round(push_p99, 1),
        "answers": len(answer_times),
        "answer_p99_ms": round(_pct(answer_times, 0.99) * 1000, 1),
        "errors": errors,
        "rejected": sum(r["rejected"] for r in reports),
        "dropped": dropped,
        "dropped_total": sum(r["dropped_total"] for r in reports),
        "close_codes": _merged([r["closes"] for r in reports]),
        "server_rss": rss,  # bytes, every server process
        "redis_used": memory,  # bytes (INFO used_memory)
        # what this step added over the previous one (the first: over the idle start)
        "server_kib_per_connection": round(
            (rss - before.rss) / 1024 / max(1, sockets - before.connections), 1
        ),
        "redis_kib_per_table": round((memory - before.memory) / 1024 / max(1, tables_so_far), 1),
        "redis_table_keys_kib": round(own / 1024 / max(1, tables_so_far), 1),
        "cpu_percent": cpu,
        "held": held,
    }


async def _ramp(
    base: str,
    pids: dict[str, int],
    redis: Any,
    steps: tuple[int, ...],
    window: float,
    think: tuple[float, float],
    generators: int,
    raw: bool,
    seed: int,
) -> dict[str, Any]:
    rng = random.Random(seed)
    started = [await Generator.start(base, raw, think, seed + i) for i in range(generators)]
    probe = Probe({**pids, **{f"load-{i + 1}": g.process.pid for i, g in enumerate(started)}})
    await asyncio.sleep(1.0)
    before = Before(probe.rss("server"), int((await redis.info("memory"))["used_memory"]))
    results: list[dict[str, Any]] = []
    have = 0
    tables = 0
    try:
        for size in steps:
            added = plan_tables(size - have, rng) if size > have else []
            tables += len(added)
            have = size
            step = await _step(size, added, started, probe, window, redis, before, tables, raw)
            results.append(step)
            before = Before(step["server_rss"], before.memory, step["connections"])
            if not step["held"]:
                break
    finally:
        await asyncio.gather(*(g.stop() for g in started))
    held = [s for s in results if s["held"]]
    return {
        "steps": results,
        "held_clients": held[-1]["clients"] if held else 0,
        "held_connections": held[-1]["connections"] if held else 0,
    }


def _environment(gateways: int, window: float, think: tuple[float, float]) -> None:
    os.environ.setdefault("ORRERY_SECRET_KEY", uuid.uuid4().hex)
    for name, value in {
        "ORRERY_GATEWAY_RATE": "100000",
        "ORRERY_GATEWAY_BURST": "100000",
        "ORRERY_GATEWAY_ANON_RATE": "100000",
        "ORRERY_GATEWAY_ANON_BURST": "100000",
        # the ramp finds the limit; admission would refuse at its own
        "ORRERY_GATEWAY_MAX_SOCKETS": "1000000",
        "ORRERY_GATEWAY_MAX_REQUESTS": "100000",
        "ORRERY_PARTITIONS": str(PARTITIONS),
    }.items():
        os.environ[name] = value
    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")


def run_bench(
    gateways: int,
    steps: tuple[int, ...] = STEPS,
    window: float = WINDOW_S,
    think: tuple[float, float] = THINK_S,
    generators: int = GENERATORS,
    seed: int = 1,
) -> dict[str, Any]:
    from gateway.server import raise_open_files
    from orrery.runtime import GatewayPool, prepare, service, stop_processes
    from orrery.server.embedded import EmbeddedServer

    limit = raise_open_files()
    _environment(gateways, window, think)
    load = os.getloadavg()[0]

    async def run(server: EmbeddedServer) -> dict[str, Any]:
        from redis import asyncio as aioredis

        url = server.url
        await prepare(url, PARTITIONS)
        redis = aioredis.Redis.from_url(url)
        assert server.process is not None
        try:
            async with service(url, 1, 1, PARTITIONS) as processes:
                pool = GatewayPool(url, "127.0.0.1", gateways)
                await pool.start(0)
                try:
                    pids = {"redis": server.process.pid}
                    pids |= {"worker": processes[0].pid, "projector": processes[1].pid}
                    pids |= {f"server-{i + 1}": p.pid for i, p in enumerate(pool.processes)}
                    orrery = await _ramp(
                        pool.base, pids, redis, steps, window, think, generators, False, seed
                    )
                finally:
                    stop_processes(pool.processes)
            sizes = [s["frame_bytes"] for s in orrery["steps"] if s["frame_bytes"]]
            frame_bytes = round(statistics.mean(sizes)) if sizes else DEFAULT_FRAME_BYTES
            raw_servers = []
            for _ in range(gateways):
                arguments = {
                    "port": pool.port,
                    "reuse": gateways > 1,
                    "frame_bytes": frame_bytes,
                    "redis": url if gateways > 1 else None,
                }
                raw_servers.append(await _raw_server(arguments))
            try:
                pids = {"redis": server.process.pid}
                pids |= {f"server-{i + 1}": p.pid for i, p in enumerate(raw_servers)}
                baseline = await _ramp(
                    pool.base, pids, redis, steps, window, think, generators, True, seed
                )
            finally:
                stop_processes(raw_servers)
        finally:
            await redis.aclose()
        return {
            "gateways": gateways,
            "generators": generators,
            "window_s": window,
            "think_s": list(think),
            "spectator_share": SPECTATOR_SHARE,
            "frame_bytes": frame_bytes,
            "open_files": limit,
            "load_average": round(load, 2),
            "cores": os.cpu_count(),
            "orrery": orrery,
            "raw": baseline,
            "ratio": round(orrery["held_clients"] / baseline["held_clients"], 2)
            if baseline["held_clients"]
            else None,
        }

    with tempfile.TemporaryDirectory() as folder, EmbeddedServer(Path(folder)) as server:
        return asyncio.run(run(server))


async def _raw_server(arguments: dict[str, Any]) -> Any:
    import subprocess

    process = subprocess.Popen(
        [sys.executable, "-m", "orrery.bench.raw_ws", json.dumps(arguments)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    assert process.stdout is not None
    line = await asyncio.to_thread(process.stdout.readline)
    if not line.startswith(b"http://"):
        process.kill()
        raise RuntimeError("the baseline server did not start")
    return process


def _met(ok: bool) -> str:
    return "(met)" if ok else "(not met)"


def render(result: dict[str, Any]) -> str:
    lines = [
        f"capacity bench: {result['gateways']} gateway process(es) on one port, "
        f"{result['generators']} load generators; every client signed in over HTTP with "
        f"its notice and table sockets; players 2-5 a table thinking "
        f"{result['think_s'][0]:g}-{result['think_s'][1]:g} s, "
        f"{round(result['spectator_share'] * 100)} % spectators on the busiest tables; "
        f"{result['window_s']:g} s per step (load average {result['load_average']} on "
        f"{result['cores']} cores at the start; open files {result['open_files']})",
        f"{'server':7} {'clients':>7} {'conns':>6} {'push p50':>8} {'p99 ms':>7} "
        f"{'cmd p99':>7} {'frames':>7} {'err':>4} {'drop':>4} {'KiB/conn':>8} "
        f"{'Redis KiB/table':>15} {'(all)':>5}  cpu % (one core = 100)",
    ]
    for kind in ("orrery", "raw"):
        for step in result[kind]["steps"]:
            cpu = " ".join(f"{k} {v:g}" for k, v in step["cpu_percent"].items())
            redis_kib = "-" if kind == "raw" else step["redis_kib_per_table"]
            own_kib = "-" if kind == "raw" else step.get("redis_table_keys_kib", "-")
            lines.append(
                f"{kind:7} {step['clients']:>7} {step['connections']:>6} "
                f"{step['push_p50_ms']:>8} {step['push_p99_ms']:>7} "
                f"{step['answer_p99_ms']:>7} {step['frames']:>7} "
                f"{step['errors'] + step['setup_errors']:>4} {step['dropped']:>4} "
                f"{step['server_kib_per_connection']:>8} {own_kib:>15} {redis_kib:>5}  {cpu}"
                f"{'' if step['held'] else '  (not held)'}"
            )
    for kind in ("orrery", "raw"):
        for step in result[kind]["steps"]:
            for failure in step.get("setup_failures", []):
                lines.append(f"{kind} {step['clients']}: a table's setup failed: {failure}")
    orrery, raw = result["orrery"], result["raw"]
    ratio = result["ratio"]
    # per connection and per table: what the largest held step added (the first step
    # also carries the processes' first-use costs: caches, pools, imports; a step not
    # held, sockets refused and retried, only when no later one was held)
    later = orrery["steps"][1:] or orrery["steps"]
    held_later = [s for s in later if s["held"]]
    measured = held_later[-1:] or later[-1:]
    which = "the largest held step's" if held_later else "the last step's"
    idle = [s["server_kib_per_connection"] for s in measured]
    per_table = [s["redis_kib_per_table"] for s in measured]
    own = [s.get("redis_table_keys_kib", 0.0) for s in measured]
    lines += [
        f"largest step held (push p99 ≤ {PUSH_P99_MS:g} ms, no error, no drop): orrery "
        f"{orrery['held_clients']} clients = {orrery['held_connections']} connections, "
        f"target ≥ {TARGET_CONNECTIONS} connections "
        f"{_met(orrery['held_connections'] >= TARGET_CONNECTIONS)}; "
        f"raw server {raw['held_clients']} clients",
        f"orrery ÷ raw: {'-' if ratio is None else ratio} "
        f"(target ≥ {TARGET_RATIO} {_met(ratio is not None and ratio >= TARGET_RATIO)})",
        f"gateway memory per connection: {max(idle) if idle else '-'} KiB ({which}) "
        f"(target ≤ {TARGET_GATEWAY_KIB:g} "
        f"{_met(bool(idle) and max(idle) <= TARGET_GATEWAY_KIB)}); "
        f"Redis per live table: its own keys {max(own) if own else '-'} KiB "
        f"(target ≤ {TARGET_REDIS_KIB:g} {_met(bool(own) and max(own) <= TARGET_REDIS_KIB)}); "
        f"all Redis holds more ÷ live tables {max(per_table) if per_table else '-'} KiB "
        f"(its players' accounts, sessions and notices, the reply streams and feeds too)",
    ]
    return "\n".join(lines)
