"""``orrery bench scale``: commands/s with 1 and 2 workers, standalone and on a 3-node
local cluster, against the raw transport measured in the same run, and the memory per
event and per finished game (docs/scaling.md).

``--runs K`` repeats the whole comparison; within a run the standalone and cluster
configurations of one worker count run side by side, each with its own processes, and
their bots play in turns, one round of games at a time (A B, B A, A B: a slow moment of
the shared machine falls on both alike; one whole phase after the other made the same
code differ by up to 0.3 between two phases). Each run prints the cluster ÷ standalone
ratio of play and burst and the error lines its processes logged
(``projection_failed``, ``command_failure``, …: a healthy cluster has none). The
processes' log lines go to a file per configuration, counted after they stop.

Each target's CPU per play command is counted over its own rounds, by part: its servers
(``INFO cpu``, every node of a cluster), its workers, its projector and the bots (this
process). Where the play fills the machine's cores (the defaults do on 2), the cluster ÷
standalone play ratio follows the inverse of their CPU ratio, and the CPU table says
which part the cluster's extra cost is in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from redis.asyncio.cluster import RedisCluster

from archive.hot import table_keys as hot_table_keys
from orrery.bench.service import (
    in_turns,
    process_cpu_seconds,
    server_cpu_seconds,
    settle_collector,
)
from orrery.server.cluster import (
    LocalCluster,
    is_cluster,
    open_redis,
)
from orrery_contracts import keys
from orrery_contracts.text import as_text

log = structlog.get_logger("orrery.bench")


@dataclass(frozen=True, slots=True)
class ScaleFigures:
    target: str  # standalone | cluster-3
    workers: int
    burst_commands: int  # creates + joins enqueued at once, drained by the workers
    burst_per_s: float
    play_commands: int  # commands sent by bots playing complete games (closed loop)
    play_per_s: float
    baseline_per_s: float  # raw transport: XREADGROUP + reply XADD + XACK, no decide/append
    burst_ratio: float  # burst_per_s / baseline_per_s
    play_ratio: float
    events: int
    finished: int
    bytes_per_event: float  # MEMORY USAGE of the finished tables' keys / their events
    bytes_per_game: float
    run: int = 1
    # the servers' socket reads (round trips, every process's: the bots' too) per play
    # command, summed over the cluster's nodes
    play_round_trips: float = 0.0
    errors: int = 0  # error lines the workers and the projector logged during the run
    error_events: dict[str, int] = field(default_factory=dict)  # their events, counted
    # CPU µs per play command over the target's rounds, by part (CPU_PARTS)
    play_cpu_us: dict[str, float] = field(default_factory=dict)

    @property
    def play_cpu_total_us(self) -> float:
        return sum(self.play_cpu_us.values())


BENCH_PARTITIONS = 16
SEATS = 2  # every table of the bench (the warm-up's, the burst's, the play's)
TARGETS = ("standalone", "cluster-3")
# the parts of a target whose CPU is counted over its rounds of play
CPU_PARTS = ("servers", "workers", "projector", "bots")
# Rounds of play, one game per table slot each, the targets taking turns: one game in
# all (~3 s of play on 2 cores) made the cluster ÷ standalone ratio swing from 0.50 to
# 1.05 between runs of the same code.
GAMES_PER_TABLE = 3


def run_scale(
    data_dir: Path,
    *,
    tables: int = 12,
    game: str = "spacecraft",
    seed: int = 1,
    runs: int = 1,
    workers: tuple[int, ...] = (1, 2),
    targets: tuple[str, ...] = TARGETS,
    games: int = GAMES_PER_TABLE,
) -> list[ScaleFigures]:
    """Per run and worker count, every target (standalone embedded, a 3-master local
    cluster) with that many worker processes (and one projector), each on a fresh
    server, up side by side and played in turns (:func:`_compare`)."""
    import shutil

    shutil.rmtree(data_dir, ignore_errors=True)
    figures: list[ScaleFigures] = []
    # Fresh servers for each run and worker count: the second configuration on the same
    # server would pay for the first one's data (an AOF rewrite, a bigger keyspace).
    for run in range(1, runs + 1):
        for count in workers:
            folder = data_dir / f"{count}-run{run}"
            with contextlib.ExitStack() as servers:
                urls = [
                    servers.enter_context(_server(target, folder / f"{i}-{target}"))
                    for i, target in enumerate(targets)
                ]
                figures += _compare(
                    list(zip(targets, urls, strict=True)),
                    count,
                    tables,
                    game,
                    seed,
                    folder,
                    run,
                    games,
                )
            shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(data_dir, ignore_errors=True)
    return figures


@contextlib.contextmanager
def _server(target: str, folder: Path) -> Iterator[str]:
    """The URL of a fresh server of ``target``, stopped on the way out."""
    from orrery.server.embedded import EmbeddedServer

    if target == "standalone":
        with EmbeddedServer(folder) as server:
            yield server.url
    else:
        with LocalCluster(folder, masters=3) as cluster:
            yield cluster.url


def _compare(
    urls: list[tuple[str, str]],
    workers: int,
    tables: int,
    game: str,
    seed: int,
    folder: Path,
    run: int = 1,
    games: int = GAMES_PER_TABLE,
) -> list[ScaleFigures]:
    """Each target's figures, its processes up beside the others'. The raw baseline of
    each first, then the bursts one after the other, then the play in turns
    (:func:`_load`)."""
    from orrery.runtime import prepare, spawn, stop_processes

    baselines = []
    for _, url in urls:
        asyncio.run(_flush(url))
        asyncio.run(prepare(url, BENCH_PARTITIONS))
        baselines.append(asyncio.run(_raw_baseline(url, 2000)))
    quiet = {"ORRERY_LOG_LEVEL": "error"}
    log_paths = [folder / f"{i}-{target}" / "processes.log" for i, (target, _) in enumerate(urls)]
    processes = []
    pids: list[dict[str, list[int]]] = []  # per target: its processes by part
    with contextlib.ExitStack() as files:
        for log_path, (_, url) in zip(log_paths, urls, strict=True):
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_file = files.enter_context(log_path.open("wb"))
            deciders = [spawn("worker", url, i, quiet, log_file) for i in range(workers)]
            projector = spawn("projector", url, workers, quiet, log_file)
            processes += [*deciders, projector]
            pids.append({"workers": [d.pid for d in deciders], "projector": [projector.pid]})
        try:
            loads = asyncio.run(
                _load([url for _, url in urls], pids, tables, game, seed, workers, games)
            )
            memories = [asyncio.run(_memory(url)) for _, url in urls]
        finally:
            stop_processes(processes)
    figures = []
    for (target, _), baseline, load, memory, log_path in zip(
        urls, baselines, loads, memories, log_paths, strict=True
    ):
        events, finished, per_event, per_game = memory
        error_events = count_errors(log_path.read_bytes())
        figures.append(
            ScaleFigures(
                target=target,
                workers=workers,
                burst_commands=load.burst,
                burst_per_s=load.burst / load.burst_s,
                play_commands=load.play,
                play_per_s=load.play / load.play_s,
                baseline_per_s=baseline,
                burst_ratio=load.burst / load.burst_s / baseline,
                play_ratio=load.play / load.play_s / baseline,
                events=events,
                finished=finished,
                bytes_per_event=per_event,
                bytes_per_game=per_game,
                run=run,
                play_round_trips=load.play_reads / load.play if load.play else 0.0,
                errors=sum(error_events.values()),
                error_events=error_events,
                play_cpu_us={
                    part: seconds / load.play * 1e6 if load.play else 0.0
                    for part, seconds in load.play_cpu_s.items()
                },
            )
        )
    return figures


def count_errors(output: bytes) -> dict[str, int]:
    """The error lines in the processes' output, by event: structlog's JSON lines at
    level error or above (by their ``event``), and stdlib logging's ``ERROR:`` lines
    (FastStream's; by their logger)."""
    counted: Counter[str] = Counter()
    for line in output.splitlines():
        if line.startswith(b"{"):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("level") in ("error", "critical"):
                counted[str(record.get("event", "?"))] += 1
        elif line.startswith((b"ERROR:", b"CRITICAL:")):
            counted[line.split(b":")[1].decode(errors="replace")] += 1
    return dict(counted)


async def _flush(url: str) -> None:
    redis = open_redis(url)
    try:
        if is_cluster(url):
            await redis.flushall(target_nodes=redis.PRIMARIES)
        else:
            await redis.flushall()
    finally:
        await redis.aclose()


async def _raw_baseline(url: str, count: int) -> float:
    """Entries/s one asyncio process moves through a consumer group with a reply each
    (what a worker does per command, minus decoding, deciding and the append)."""
    redis = open_redis(url)
    stream, replies, group = "bench:{raw}:cmd", "bench:{raw}:reply", "g"
    try:
        await redis.delete(stream, replies)
        await redis.xgroup_create(stream, group, id="0", mkstream=True)
        for _ in range(count):
            await redis.xadd(stream, {"__data__": b"x" * 200})
        started = time.perf_counter()
        done = 0
        while done < count:
            batch = await redis.xreadgroup(group, "c", {stream: ">"}, count=10)
            for _, entries in batch:
                for entry_id, fields in entries:
                    await redis.xadd(replies, {"__data__": fields[b"__data__"]})
                    await redis.xack(stream, group, entry_id)
                    done += 1
        seconds = time.perf_counter() - started
        await redis.delete(stream, replies)
        return count / seconds
    finally:
        await redis.aclose()


@dataclass(slots=True)
class _Load:
    """What one target's clients sent and how long it took."""

    burst: int = 0
    burst_s: float = 0.0
    play: int = 0
    play_s: float = 0.0
    play_reads: int = 0  # the servers' socket reads over the play
    play_cpu_s: dict[str, float] = field(default_factory=dict)  # CPU seconds by part


async def _load(
    urls: list[str],
    pids: list[dict[str, list[int]]],
    tables: int,
    game: str,
    seed: int,
    workers: int = 1,
    games: int = GAMES_PER_TABLE,
) -> list[_Load]:
    """Per target: a burst of creates and joins (open loop), one target after the
    other; then bots play ``tables`` tables at once, ``games`` rounds of one complete
    game each (closed loop), the targets taking turns round by round, the first place
    alternating (A B, B A, A B, …). In turns, a slow moment of the shared machine
    falls on every target alike, where one target's whole phase after the other's makes
    the same code's play rate differ by up to 0.3 between two phases. Every target's
    tables play the same games (the same seed).
    Both start once the workers have shared out the partitions (services/assignment.py):
    every worker has beaten, and each has had a beat to follow the assignment.
    ``pids``: per target, its processes by part, whose CPU is counted over its rounds."""
    from orrery_client.sdk import OrreryClient

    loads = [_Load() for _ in urls]
    async with contextlib.AsyncExitStack() as opened:
        clients = [await opened.enter_async_context(OrreryClient(url)) for url in urls]
        for client in clients:
            await _warm_up(client, game, workers)
        for client, load in zip(clients, loads, strict=True):
            load.burst, load.burst_s = await _burst(client, tables, game)
        counted = [_CountingSubmits(client) for client in clients]
        # each table slot's games, from one seed: the same on every target
        table_rngs = [_table_rngs(seed, tables) for _ in urls]
        settle_collector()
        for round_ in range(games):
            for i in turn_order(round_, len(urls)):
                used = CpuUse(clients[i].redis, pids[i])
                await used.start()
                reads = await _server_reads(clients[i].redis)
                started = time.perf_counter()
                await _play_round(clients[i], game, table_rngs[i])
                loads[i].play_s += time.perf_counter() - started
                loads[i].play_reads += await _server_reads(clients[i].redis) - reads
                for part, seconds in (await used.since_start()).items():
                    loads[i].play_cpu_s[part] = loads[i].play_cpu_s.get(part, 0.0) + seconds
        for load, counter in zip(loads, counted, strict=True):
            load.play = counter.count
    return loads


def turn_order(round_: int, targets: int) -> list[int]:
    """The order in which the targets (by index) play round ``round_``."""
    return list(in_turns(range(targets), round_))


def _table_rngs(seed: int, tables: int) -> list[random.Random]:
    rng = random.Random(seed)
    return [random.Random(rng.getrandbits(64)) for _ in range(tables)]


async def _warm_up(client: Any, game: str, workers: int) -> None:
    """Until the workers answer and have shared out the partitions."""
    import uuid

    from services.assignment import LIVE_KEY, TICK_S

    await client.create_table(game, SEATS, table_id=f"warm-{uuid.uuid4().hex[:8]}")
    deadline = time.monotonic() + 30
    while await client.redis.hlen(LIVE_KEY) < workers and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(TICK_S * 1.5)


async def _burst(client: Any, tables: int, game: str) -> tuple[int, float]:
    """Creates, then joins, of ``tables`` × 20 tables enqueued at once: the commands and
    the seconds until every one was answered."""
    import uuid

    import msgspec

    from orrery_client.sdk import new_seat_token
    from orrery_contracts.envelope import CommandEnvelope
    from orrery_contracts.table import CreateTable, JoinRequest

    json_encoder = msgspec.json.Encoder()

    async def burst(bodies: list[tuple[str, Any]]) -> float:
        reply = client.reply_stream + ":burst"
        started = time.perf_counter()
        for table_id, body in bodies:
            envelope = CommandEnvelope(
                command_id=uuid.uuid4().hex,
                table_id=table_id,
                body=msgspec.Raw(json_encoder.encode(body)),
                token=new_seat_token() if isinstance(body, JoinRequest) else None,
                reply_to=reply,
            )
            stream = keys.command_stream(client.partition(table_id))
            await client.redis.xadd(stream, {"__data__": json_encoder.encode(envelope)})
        while int(await client.redis.xlen(reply)) < len(bodies):
            await asyncio.sleep(0.005)
        seconds = time.perf_counter() - started
        await client.redis.delete(reply)
        return seconds

    burst_tables = [f"burst-{uuid.uuid4().hex[:10]}" for _ in range(tables * 20)]
    creates = [(t, CreateTable(game=game, seats=SEATS, options={})) for t in burst_tables]
    joins = [(t, JoinRequest(name=f"p{s}")) for s in range(SEATS) for t in burst_tables]
    seconds = await burst(creates) + await burst(joins)
    return len(creates) + len(joins), seconds


async def _play_round(client: Any, game: str, table_rngs: list[random.Random]) -> None:
    """One complete game on each table slot, all at once (a bot in each seat)."""
    from orrery.demo import play_table

    await asyncio.gather(
        *(play_table(client, game, SEATS, random.Random(rng.getrandbits(64))) for rng in table_rngs)
    )


class CpuUse:
    """The CPU seconds a target's parts use between :meth:`start` and
    :meth:`since_start`: its servers (``INFO cpu``, summed over a cluster's nodes), its
    processes (``pids``, by part) and the bots (this process)."""

    def __init__(self, redis: Any, pids: dict[str, list[int]]) -> None:
        self.redis = redis
        self.pids = pids
        self._started: dict[str, float] = {}

    async def start(self) -> None:
        self._started = await self._now()

    async def since_start(self) -> dict[str, float]:
        now = await self._now()
        return {part: seconds - self._started[part] for part, seconds in now.items()}

    async def _now(self) -> dict[str, float]:
        now = {"servers": await _server_cpu_seconds(self.redis)}
        for part, pids in self.pids.items():
            now[part] = sum(process_cpu_seconds(pid) or 0.0 for pid in pids)
        now["bots"] = time.process_time()
        return now


async def _server_cpu_seconds(redis: Any) -> float:
    """The CPU seconds the server (every node of a cluster) has used since it started."""
    if isinstance(redis, RedisCluster):
        per_node = await redis.info("cpu", target_nodes=RedisCluster.PRIMARIES)
        return sum(server_cpu_seconds(info) for info in per_node.values())
    return server_cpu_seconds(await redis.info("cpu"))


async def _server_reads(redis: Any) -> int:
    """The socket reads the server (every node of a cluster) has made since it started."""
    if isinstance(redis, RedisCluster):
        per_node = await redis.info("stats", target_nodes=RedisCluster.PRIMARIES)
        return sum(int(stats["total_reads_processed"]) for stats in per_node.values())
    return int((await redis.info("stats"))["total_reads_processed"])


class _CountingSubmits:
    """Counts the client's submits (wraps the bound method on this one client)."""

    def __init__(self, client: Any) -> None:
        self.count = 0
        inner = client.submit

        async def submit(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return await inner(*args, **kwargs)

        client.submit = submit


async def _memory(url: str) -> tuple[int, int, float, float]:
    """Events, finished tables, and the bytes their keys take (MEMORY USAGE, summed)."""
    from projections.tables import read_table

    redis = open_redis(url)
    try:
        partitions = int(await redis.hget(keys.CONFIG_KEY, "partitions"))
        events = finished = used = 0
        for p in range(partitions):
            for member in await redis.smembers(keys.tables_set(p)):
                table_id = as_text(member)
                meta = await redis.hgetall(keys.meta_hash(p, table_id))
                if meta.get(b"phase") != b"finished":
                    continue
                state = await read_table(redis, partitions, table_id, to_seq=1)
                table_keys = hot_table_keys(p, table_id, state.seats)
                for key in table_keys:
                    used += int(await redis.memory_usage(key, samples=0) or 0)
                events += int(meta[b"seq"])
                finished += 1
        return events, finished, used / max(events, 1), used / max(finished, 1)
    finally:
        await redis.aclose()


def print_scale(figures: list[ScaleFigures]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=140)
    table = Table(title=f"orrery bench scale ({os.cpu_count()} cores)")
    columns = ("run", "target", "workers", "burst cmd/s", "play cmd/s", "raw baseline/s")
    more = ("burst ratio", "play ratio", "round trips/cmd", "B/event", "KiB/game")
    for column in (*columns, *more, "errors"):
        table.add_column(column, justify="right")
    for f in figures:
        table.add_row(
            str(f.run),
            f.target,
            str(f.workers),
            f"{f.burst_per_s:,.0f}",
            f"{f.play_per_s:,.0f}",
            f"{f.baseline_per_s:,.0f}",
            f"{f.burst_ratio:.3f}",
            f"{f.play_ratio:.3f}",
            f"{f.play_round_trips:.1f}",
            f"{f.bytes_per_event:,.0f}",
            f"{f.bytes_per_game / 1024:,.1f}",
            str(f.errors),
        )
    console.print(table)
    console.print(_cpu_table(figures))
    pairs = cluster_ratios(figures)
    if pairs:
        ratios = Table(title="cluster ÷ standalone, same run")
        columns = ("run", "workers", "play ratio", "target", "CPU/cmd ratio", "burst ratio")
        for column in (*columns, "errors"):
            ratios.add_column(column, justify="right")
        for pair in pairs:
            ratios.add_row(
                str(pair.run),
                str(pair.workers),
                f"{pair.play_ratio:.2f}",
                "≥ 0.80",
                f"{pair.cpu_ratio:.2f}" if pair.cpu_ratio else "-",
                f"{pair.burst_ratio:.2f}",
                f"{pair.errors} (target 0)"
                + (f": {_events(pair.error_events)}" if pair.error_events else ""),
            )
        console.print(ratios)
    print(
        "burst: creates+joins enqueued at once, drained by the workers; play: bots play "
        "complete games through views (1 projector); raw baseline: XREADGROUP+XADD+XACK "
        "per entry from one asyncio process, same server, same run; round trips/cmd: the "
        "servers' socket reads per play command (every process's, the bots' too); CPU: "
        "the target's servers, workers, projector and bots per play command, over its own "
        "rounds (CPU/cmd ratio: the cluster's ÷ the standalone's; where the play fills "
        "the cores, as the defaults do on 2, the play ratio follows its inverse); errors: "
        "error lines the workers and the projector logged."
    )


def _cpu_table(figures: list[ScaleFigures]) -> Any:
    from rich.table import Table

    table = Table(title="CPU µs per play command, by part")
    for column in ("run", "target", "workers", *CPU_PARTS, "total"):
        table.add_column(column, justify="right")
    for f in figures:
        parts = [f"{f.play_cpu_us[p]:,.0f}" if p in f.play_cpu_us else "-" for p in CPU_PARTS]
        table.add_row(str(f.run), f.target, str(f.workers), *parts, f"{f.play_cpu_total_us:,.0f}")
    return table


@dataclass(frozen=True, slots=True)
class ClusterRatio:
    run: int
    workers: int
    play_ratio: float  # cluster play cmd/s ÷ standalone play cmd/s, same run
    burst_ratio: float
    errors: int  # the cluster configuration's error lines
    error_events: dict[str, int]
    cpu_ratio: float = 0.0  # cluster CPU µs per play command ÷ standalone's (0: unknown)


def cluster_ratios(figures: list[ScaleFigures]) -> list[ClusterRatio]:
    """For each run and worker count measured on both targets, the cluster's figures
    divided by the standalone server's."""
    by_key = {(f.run, f.workers, f.target): f for f in figures}
    out = []
    for (run, workers, target), cluster in by_key.items():
        standalone = by_key.get((run, workers, "standalone"))
        if target == "standalone" or standalone is None:
            continue
        out.append(
            ClusterRatio(
                run=run,
                workers=workers,
                play_ratio=cluster.play_per_s / standalone.play_per_s,
                burst_ratio=cluster.burst_per_s / standalone.burst_per_s,
                errors=cluster.errors,
                error_events=cluster.error_events,
                cpu_ratio=(
                    cluster.play_cpu_total_us / standalone.play_cpu_total_us
                    if standalone.play_cpu_total_us
                    else 0.0
                ),
            )
        )
    return out


def _events(counted: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(counted.items()))


def _now() -> float:
    return time.monotonic()
