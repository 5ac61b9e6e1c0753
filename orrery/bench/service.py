"""``orrery bench``: the whole service under load, against a Redis-only baseline.

Three phases, each ``seconds`` of measurement after a short warm-up:

1. **baseline** — the SDK client sends no-op commands from ``tables`` concurrent loops
   to a worker that does only the service's Redis round trips per command
   (:mod:`orrery.bench.baseline`: XREADGROUP, the Lua append via EventStore, XADD reply,
   XACK), in a separate, empty logical database of the same server;
2. **saturation** — ``tables`` tables played by random bots (``orrery_client.bot.choose``)
   through the real service (worker and projector processes), closed loop: each seat
   moves as soon as its view says so. Outcome latency is submit → outcome; projection
   lag is outcome → the seat's view showing the accepted seq (both client side);
3. **half rate** — the same, open loop: commands are paced at half the saturation
   rate and their latency runs from the *scheduled* send time (no coordinated omission);
   the delay between a slot and its actual send (no ready bot, busy client) is shown too.

The baseline and the saturation, whose ratios are the figures, take turns: ``rounds``
windows each, the first place alternating (baseline, service; service, baseline; …), and
each side's figures pool its windows. One whole phase after the other, a slow moment of
a shared machine would fall on one side only (the same method in ``bench scale`` and
``bench gateway``). The half rate follows, in one window.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import msgspec
import redis.asyncio as aioredis

from orrery_client.bot import choose
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted

# The targets printed beside the figures: what the service must reach against the
# baseline on a 2-core machine, where the server, the processes and the bots share it.
TARGET_RATIO = 0.30
TARGET_HALF_RATE_P99_MS = 10.0
TARGET_HALF_RATE_LAG_P99_MS = 20.0
# service CPU per command (workers + projectors + server) ÷ the baseline's (worker + server)
TARGET_CPU_RATIO = 3.5
AOF_SAMPLE_S = 0.25  # how often a window samples the AOF's size
GAMES = ("fractured_sky", "spacecraft", "federation")
NOOP = {"type": "bench.noop"}


class BenchError(RuntimeError):
    pass


# ---------------------------------------------------------------- recording


def settle_collector() -> None:
    """Collect now and freeze what lives, before a measured window: the bench client's
    own oldest-generation collections (~50-65 ms each, its heap of imports, tables and
    views) otherwise paused the client inside the windows, and every command in flight
    or due then was counted that much late. The service's processes do the same once
    started (orrery/runtime.py), the baseline worker too."""
    gc.collect()
    gc.freeze()


@dataclass
class Recorder:
    """Samples of one phase; only commands scheduled inside the window count."""

    start: float
    end: float
    latencies: list[float] = field(default_factory=list)  # scheduled -> outcome
    from_send: list[float] = field(default_factory=list)  # sent -> outcome
    send_delays: list[float] = field(default_factory=list)  # scheduled -> sent
    lags: list[float] = field(default_factory=list)
    answered: int = 0
    accepted: int = 0
    rejected: int = 0

    def inside(self, t: float) -> bool:
        return self.start <= t < self.end

    def outcome(self, scheduled: float, sent: float, received: float, accepted: bool) -> None:
        if self.inside(received):
            self.answered += 1
        if not self.inside(scheduled):
            return
        self.latencies.append(received - scheduled)
        self.from_send.append(received - sent)
        self.send_delays.append(sent - scheduled)
        if accepted:
            self.accepted += 1
        else:
            self.rejected += 1

    def lag(self, answered: float, seen: float) -> None:
        if self.inside(answered):
            self.lags.append(seen - answered)

    @property
    def rate(self) -> float:
        return self.answered / (self.end - self.start)

    @classmethod
    def pooled(cls, windows: list[Recorder]) -> Recorder:
        """The samples of several windows as one recorder, whose span (``start`` 0,
        ``end`` their summed length) is the time they measured together."""
        out = cls(start=0.0, end=sum(w.end - w.start for w in windows))
        for w in windows:
            out.latencies += w.latencies
            out.from_send += w.from_send
            out.send_delays += w.send_delays
            out.lags += w.lags
            out.answered += w.answered
            out.accepted += w.accepted
            out.rejected += w.rejected
        return out


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile in milliseconds (0 when there are no samples)."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank] * 1000


SIDES = ("baseline", "service")
T = TypeVar("T")
# a window's samples, and the CPU and server figures its probe took (CpuProbe.percent
# and counts)
Window = tuple[Recorder, dict[str, float | None]]


# ---------------------------------------------------------------- bots


Gate = Callable[[], Awaitable[float]]


async def closed_gate() -> float:
    return time.perf_counter()


class Pacer:
    """Open-loop send slots at a fixed rate; a ready seat takes the oldest slot."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.slots: asyncio.Queue[float] = asyncio.Queue()
        self.stopped = False

    async def run(self, until: float) -> None:
        t = time.perf_counter()
        while t < until and not self.stopped:
            now = time.perf_counter()
            while t <= now:
                self.slots.put_nowait(t)
                t += self.interval
            await asyncio.sleep(max(0.0, t - time.perf_counter()))

    async def gate(self) -> float:
        return await self.slots.get()

    def release(self, waiters: int) -> None:
        self.stopped = True
        for _ in range(waiters):
            self.slots.put_nowait(-1.0)


@dataclass
class Run:
    client: OrreryClient
    recorder: Recorder
    gate: Gate
    stopping: bool = False


async def set_up_table(client: OrreryClient, game: str, seats: int) -> list[SeatCredentials]:
    table_id = await client.create_table(game, seats, table_id=f"bench-{uuid.uuid4().hex[:12]}")
    creds = [await client.join(table_id, f"bot{i}") for i in range(seats)]
    await client.start(creds[0])
    return creds


class ViewHead(msgspec.Struct):
    """What a table's reader needs from the first seat's view (the rest is skipped)."""

    seq: int
    phase: str
    to_move: list[int] = msgspec.field(default_factory=list)


class ViewMoves(msgspec.Struct):
    """What a bot to move needs from its own view."""

    seq: int
    legal: list[dict[str, Any]] = msgspec.field(default_factory=list)


_heads = msgspec.json.Decoder(ViewHead)
_moves = msgspec.json.Decoder(ViewMoves)


async def drive_table(run: Run, creds: list[SeatCredentials], rng: random.Random) -> None:
    """The table's bots: on each view update, every seat to move picks a random legal
    command from its own view; measures outcome latency and the view's lag behind it.

    The bench client shares the 2 cores with the service, so it keeps its own work small:
    one reader per table (not per seat) waits for the table's updates and reads all seat
    views in the same round trip (a pipeline of the blocking ``XREAD`` and an ``MGET``,
    which the server runs as soon as the read returns), and decodes only the fields it
    uses (msgspec skips the rest).
    """
    client = run.client
    table_id = creds[0].table_id
    p = client.partition(table_id)
    stream = keys.updates_stream(p, table_id)
    view_keys = [keys.view_key(p, table_id, seat.seat) for seat in creds]
    newest = await client.redis.xrevrange(stream, count=1)
    last_id = newest[0][0] if newest else "0-0"
    raws = await client.redis.mget(view_keys)
    seen = -1
    waiting: list[tuple[int, float]] = []  # (seq the view must reach, outcome time)
    while not run.stopping:
        first = _heads.decode(raws[0]) if raws[0] is not None else None
        if first is not None and first.seq > seen:
            seen = first.seq
            now = time.perf_counter()
            for _seq, answered in [w for w in waiting if w[0] <= seen]:
                run.recorder.lag(answered, now)
            waiting = [w for w in waiting if w[0] > seen]
            if first.phase == "finished":
                return
            if first.phase == "playing" and not waiting:
                moves = []
                for i, seat in enumerate(creds):
                    if seat.seat in first.to_move:
                        view = _moves.decode(raws[i])
                        move = choose({"legal": view.legal}, rng) if view.seq == seen else None
                        if move is not None:
                            moves.append(play(run, seat, move))
                if moves:
                    for outcome in await asyncio.gather(*moves):
                        if outcome is not None:
                            waiting.append(outcome)
        # A long block costs no latency (an update ends it at once) and keeps the bench's
        # own polling off the server and the 2 cores the service runs on.
        pipe = client.redis.pipeline(transaction=False)
        pipe.xread({stream: last_id}, block=1000)
        pipe.mget(view_keys)
        updates, raws = await pipe.execute()
        if updates:
            last_id = updates[0][1][-1][0]
        else:  # a second without news (after a rejection): look again
            seen = -1


async def play(run: Run, seat: SeatCredentials, move: dict[str, Any]) -> tuple[int, float] | None:
    """Send one move when the gate allows; (seq to see, outcome time) if accepted."""
    scheduled = await run.gate()
    if run.stopping or scheduled < 0:
        return None
    sent = time.perf_counter()
    outcome = await run.client.play(seat, move)
    received = time.perf_counter()
    accepted = isinstance(outcome, Accepted)
    run.recorder.outcome(scheduled, sent, received, accepted)
    return (outcome.last_seq, received) if isinstance(outcome, Accepted) else None


async def drive_tables(run: Run, game: str, seats: int, first: list[SeatCredentials]) -> None:
    """Keep one table slot busy: play the table, then set up the next one."""
    rng = random.Random(first[0].table_id)
    creds = first
    while not run.stopping:
        await drive_table(run, creds, random.Random(rng.getrandbits(64)))
        if run.stopping:
            return
        creds = await set_up_table(run.client, game, seats)


async def play_phase(
    client: OrreryClient,
    games: list[str],
    seats: int,
    seconds: float,
    warmup: float,
    rate: float | None,
    probe: CpuProbe | None = None,
) -> Recorder:
    tables = await asyncio.gather(*(set_up_table(client, g, seats) for g in games))
    settle_collector()
    now = time.perf_counter()
    recorder = Recorder(start=now + warmup, end=now + warmup + seconds)
    pacer = Pacer(rate) if rate else None
    run = Run(client, recorder, pacer.gate if pacer else closed_gate)
    tasks = [
        asyncio.create_task(drive_tables(run, g, seats, creds))
        for g, creds in zip(games, tables, strict=True)
    ]
    pacing = asyncio.create_task(pacer.run(recorder.end)) if pacer else None
    sampling = asyncio.create_task(_sample_window(probe, recorder)) if probe else None
    await asyncio.sleep(recorder.end - time.perf_counter())
    run.stopping = True
    if pacer is not None:
        pacer.release(len(games) * seats)
    await asyncio.gather(*tasks)
    if pacing is not None:
        await pacing
    if sampling is not None:
        await sampling
    return recorder


# ---------------------------------------------------------------- CPU use


def server_cpu_seconds(info: dict[str, Any]) -> float:
    """The CPU seconds a server has used since it started, from its ``INFO cpu``."""
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc; None elsewhere)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuProbe:
    """CPU seconds used by each part of the run between two samples."""

    def __init__(self, redis: Any, pids: dict[str, list[int]]) -> None:
        self.redis = redis
        self.pids = pids
        self.samples: list[tuple[float, dict[str, float | None]]] = []
        self.calls: list[int | None] = []  # the server's commands executed, per sample
        # the server's socket reads (a pipeline is one, however many commands it holds)
        self.reads: list[int | None] = []
        # (when, the AOF's size, its rewrites so far), sampled through the window too
        self.aof: list[tuple[float, int, int]] = []

    async def sample(self) -> None:
        used: dict[str, float | None] = {}
        for role, pids in self.pids.items():
            seconds = [process_cpu_seconds(pid) for pid in pids]
            used[role] = None if None in seconds else sum(s or 0.0 for s in seconds)
        try:
            used["server"] = server_cpu_seconds(await self.redis.info("cpu"))
        except Exception:
            used["server"] = None
        try:
            stats = await self.redis.info("commandstats")
            self.calls.append(sum(int(v["calls"]) for v in stats.values()))
        except Exception:
            self.calls.append(None)
        try:
            self.reads.append(int((await self.redis.info("stats"))["total_reads_processed"]))
        except Exception:
            self.reads.append(None)
        await self.sample_aof()
        self.samples.append((time.perf_counter(), used))

    def server_calls(self) -> int | None:
        """Commands the server executed between the first and the last sample (every
        client's: the bench client's too)."""
        return _between(self.calls)

    def server_reads(self) -> int | None:
        """Socket reads the server made between the first and the last sample, i.e. the
        round trips of every client (the bench client's too)."""
        return _between(self.reads)

    async def sample_aof(self) -> None:
        try:
            persistence = await self.redis.info("persistence")
        except Exception:
            return
        if int(persistence.get("aof_enabled", 0)):
            size, rewrites = persistence["aof_current_size"], persistence["aof_rewrites"]
            self.aof.append((time.perf_counter(), int(size), int(rewrites)))

    def aof_rewrites(self) -> int | None:
        """AOF rewrites the server finished between the first and the last sample."""
        if len(self.aof) < 2:
            return None
        return self.aof[-1][2] - self.aof[0][2]

    def aof_per_s(self) -> float | None:
        """Bytes per second the server appended to its AOF (every client's writes), over
        the sampled intervals in which it was not rewritten (a rewrite starts the file
        over); None without AOF."""
        grown = seconds = 0.0
        for (t0, size0, rewrites0), (t1, size1, rewrites1) in itertools.pairwise(self.aof):
            if rewrites1 == rewrites0 and size1 >= size0:
                grown += size1 - size0
                seconds += t1 - t0
        return grown / seconds if seconds else None

    def counts(self) -> dict[str, float | None]:
        return {
            "server calls": self.server_calls(),
            "server reads": self.server_reads(),
            "aof bytes/s": self.aof_per_s(),
        }

    def percent(self) -> dict[str, float | None]:
        """Per part: CPU use over the sampled interval, in % of one core."""
        if len(self.samples) < 2:
            return {}
        (t0, first), (t1, last) = self.samples[0], self.samples[-1]
        out: dict[str, float | None] = {}
        for role, end in last.items():
            start = first.get(role)
            out[role] = None if end is None or start is None else 100 * (end - start) / (t1 - t0)
        return out


_SUMMED = ("server calls", "server reads")  # counts over a window, not rates


def pooled_use(windows: list[tuple[float, dict[str, float | None]]]) -> dict[str, float | None]:
    """One side's CPU and server figures (``CpuProbe.percent`` and ``counts``) over
    several windows of the given lengths: a part's % of a core and the AOF's bytes/s
    weighted by length, the server's calls and reads summed (None where a window lacks
    one)."""
    total = sum(seconds for seconds, _ in windows)
    out: dict[str, float | None] = {}
    for name in dict.fromkeys(name for _, use in windows for name in use):
        values = [(seconds, use.get(name)) for seconds, use in windows]
        if total <= 0 or any(value is None for _, value in values):
            out[name] = None
        elif name in _SUMMED:
            out[name] = sum(value or 0.0 for _, value in values)
        else:
            out[name] = sum(seconds * (value or 0.0) for seconds, value in values) / total
    return out


def _between(counts: list[int | None]) -> int | None:
    if len(counts) < 2 or counts[0] is None or counts[-1] is None:
        return None
    return counts[-1] - counts[0]


async def _sample_window(probe: CpuProbe, recorder: Recorder) -> None:
    await asyncio.sleep(max(0.0, recorder.start - time.perf_counter()))
    await probe.sample()
    # the AOF's growth between rewrites (a busy server rewrites every few seconds)
    while recorder.end - time.perf_counter() > AOF_SAMPLE_S:
        await asyncio.sleep(AOF_SAMPLE_S)
        await probe.sample_aof()
    await asyncio.sleep(max(0.0, recorder.end - time.perf_counter()))
    await probe.sample()


# ---------------------------------------------------------------- baseline


def baseline_url(url: str, db: int | None) -> str:
    parts = urlsplit(url)
    current = int(parts.path.strip("/") or 0)
    chosen = db if db is not None else (current + 1) % 16
    if chosen == current:
        raise BenchError("the baseline needs a logical database of its own")
    return urlunsplit(parts._replace(path=f"/{chosen}"))


async def check_empty(url: str) -> None:
    redis: Any = aioredis.Redis.from_url(url)
    try:
        used = await redis.dbsize()
    finally:
        await redis.aclose()
    if used:
        raise BenchError(f"the baseline database {url} is not empty (see --baseline-db)")


async def baseline_phase(
    url: str, partitions: int, loops: int, seconds: float, warmup: float
) -> Window:
    from services.intake import ensure_command_groups

    redis: Any = aioredis.Redis.from_url(url)
    if await redis.dbsize():
        await redis.aclose()
        raise BenchError(f"the baseline database {url} is not empty (see --baseline-db)")
    try:
        await redis.hset(keys.CONFIG_KEY, "partitions", partitions)
        await ensure_command_groups(redis, partitions)
        worker = subprocess.Popen(
            [sys.executable, "-m", "orrery.bench.baseline", str(partitions)],
            env={**os.environ, "ORRERY_REDIS_URL": url},
            stdin=subprocess.DEVNULL,
        )
        probe = CpuProbe(redis, {"workers": [worker.pid], "bench client": [os.getpid()]})
        try:
            async with OrreryClient(url) as client:
                recorder = await _baseline_loops(client, loops, seconds, warmup, probe)
                return recorder, {**probe.percent(), **probe.counts()}
        finally:
            worker.terminate()
            try:
                worker.wait(10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    finally:
        # The database was empty before: everything in it is the baseline's.
        async for key in redis.scan_iter(count=1000):
            await redis.unlink(key)
        await redis.aclose()


async def _baseline_loops(
    client: OrreryClient, loops: int, seconds: float, warmup: float, probe: CpuProbe
) -> Recorder:
    table_ids = [f"bench-base-{i}" for i in range(loops)]
    # One command per loop first: the worker process is up once they are answered.
    await asyncio.gather(*(client.submit(t, NOOP) for t in table_ids))
    settle_collector()
    now = time.perf_counter()
    recorder = Recorder(start=now + warmup, end=now + warmup + seconds)

    async def loop(table_id: str) -> None:
        while time.perf_counter() < recorder.end:
            sent = time.perf_counter()
            outcome = await client.submit(table_id, NOOP)
            recorder.outcome(sent, sent, time.perf_counter(), isinstance(outcome, Accepted))

    await asyncio.gather(_sample_window(probe, recorder), *(loop(t) for t in table_ids))
    return recorder


# ---------------------------------------------------------------- the whole run


@dataclass(frozen=True, slots=True)
class BenchConfig:
    tables: int = 16
    seconds: float = 8.0
    rounds: int = 3  # windows of the baseline and of the saturation, taken in turns
    game: str = "fractured_sky"
    seats: int = 4
    workers: int = 1
    projectors: int = 1
    redis_url: str | None = None
    baseline_db: int | None = None
    seed: int = 1


def plan_games(config: BenchConfig) -> list[str]:
    if config.game == "mix":
        return [GAMES[i % len(GAMES)] for i in range(config.tables)]
    return [config.game] * config.tables


def seats_for(game: str, wanted: int) -> int:
    from games.registry import get_game

    found = get_game(game)
    if found is None:
        raise BenchError(f"unknown game {game!r}")
    return max(found.min_seats, min(wanted, found.max_seats))


def in_turns(items: Sequence[T], round_: int) -> tuple[T, ...]:
    """``items`` in the order they take round ``round_`` (the turns of ``orrery bench``,
    ``bench scale`` and ``bench gateway``): reversed every other round, so none always
    goes first, or right after the same other one."""
    return tuple(items) if round_ % 2 == 0 else tuple(reversed(items))


def turn_order(round_: int) -> tuple[str, ...]:
    """The sides in the order they measure round ``round_``."""
    return in_turns(SIDES, round_)


def _warm_up_s(window: float) -> float:
    return min(1.0, window / 4)


def _pool(windows: list[Window]) -> Window:
    """One side's windows as one recorder, with its CPU and server figures."""
    recorders = [recorder for recorder, _ in windows]
    use = [(recorder.end - recorder.start, used) for recorder, used in windows]
    return Recorder.pooled(recorders), pooled_use(use)


async def _measure(url: str, config: BenchConfig) -> dict[str, Any]:
    from orrery.runtime import service

    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    games = plan_games(config)
    seats = min(seats_for(g, config.seats) for g in set(games))
    window = config.seconds / config.rounds
    await check_empty(baseline_url(url, config.baseline_db))
    async with (
        service(url, config.workers, config.projectors) as processes,
        OrreryClient(url) as client,
    ):
        partitions = client.partitions
        pids = [process.pid for process in processes]
        parts = {
            "workers": pids[: config.workers],
            "projectors": pids[config.workers :],
            "bench client": [os.getpid()],
        }

        async def measure(side: str) -> Window:
            """One window of ``side``: its samples, with its CPU and server figures."""
            if side == "baseline":
                return await baseline_phase(
                    baseline_url(url, config.baseline_db),
                    partitions,
                    config.tables,
                    window,
                    _warm_up_s(window),
                )
            probe = CpuProbe(client.redis, parts)
            recorder = await play_phase(
                client, games, seats, window, _warm_up_s(window), None, probe
            )
            return recorder, {**probe.percent(), **probe.counts()}

        windows: dict[str, list[Window]] = {side: [] for side in SIDES}
        for round_ in range(config.rounds):
            for side in turn_order(round_):
                windows[side].append(await measure(side))
        base, base_cpu = _pool(windows["baseline"])
        saturated, service_cpu = _pool(windows["service"])
        half = max(saturated.rate / 2, 1.0)
        # Twice the tables at half the rate, so a ready bot is there when a slot comes.
        paced_games = games * 2
        # (its AOF samples say whether the server rewrote its AOF in the window: a rewrite
        # stalls the server at its end, docs/scaling.md)
        paced_probe = CpuProbe(client.redis, {})
        paced = await play_phase(
            client,
            paced_games,
            seats,
            config.seconds,
            _warm_up_s(config.seconds),
            half,
            paced_probe,
        )
    return figures(
        config,
        games,
        seats,
        partitions,
        base,
        saturated,
        paced,
        half,
        {"service": service_cpu, "baseline": base_cpu},
        load_before,
        half_rate_rewrites=paced_probe.aof_rewrites(),
        ratio_per_round=[
            service.rate / baseline.rate if baseline.rate else 0.0
            for (baseline, _), (service, _) in zip(
                windows["baseline"], windows["service"], strict=True
            )
        ],
    )


def figures(
    config: BenchConfig,
    games: list[str],
    seats: int,
    partitions: int,
    base: Recorder,
    saturated: Recorder,
    paced: Recorder,
    half: float,
    cpu: dict[str, dict[str, float | None]],
    load_before: float | None = None,
    *,
    half_rate_rewrites: int | None = None,
    ratio_per_round: list[float] | None = None,
) -> dict[str, Any]:
    ratio = saturated.rate / base.rate if base.rate else 0.0
    cpu = {side: dict(parts) for side, parts in cpu.items()}
    calls = {side: cpu[side].pop("server calls", None) for side in cpu}
    reads = {side: cpu[side].pop("server reads", None) for side in cpu}
    aof = {side: cpu[side].pop("aof bytes/s", None) for side in cpu}
    windows = {"service": saturated, "baseline": base}
    per_cmd = {side: per_command(cpu[side], windows[side].rate) for side in cpu}
    return {
        "config": {
            "games": sorted(set(games)),
            "tables": config.tables,
            "seats": seats,
            "seconds": config.seconds,
            "rounds": config.rounds,
            "workers": config.workers,
            "projectors": config.projectors,
            "partitions": partitions,
            "server": "external" if config.redis_url else "embedded",
            "cores": os.cpu_count(),
            "load_before": load_before,
        },
        "service_commands_per_s": saturated.rate,
        "baseline_commands_per_s": base.rate,
        "ratio": ratio,
        # each round's service window ÷ its baseline window: how much the machine swung
        "ratio_per_round": ratio_per_round or [],
        "outcome_ms": {
            "p50": percentile(saturated.latencies, 50),
            "p99": percentile(saturated.latencies, 99),
        },
        "lag_ms": {"p50": percentile(saturated.lags, 50), "p99": percentile(saturated.lags, 99)},
        "baseline_ms": {
            "p50": percentile(base.latencies, 50),
            "p99": percentile(base.latencies, 99),
        },
        "accepted": saturated.accepted,
        "rejected": saturated.rejected,
        "half_rate": {
            "offered_per_s": half,
            "answered_per_s": paced.rate,
            "outcome_ms": {
                "p50": percentile(paced.latencies, 50),
                "p99": percentile(paced.latencies, 99),
            },
            "lag_ms": {"p50": percentile(paced.lags, 50), "p99": percentile(paced.lags, 99)},
            "from_send_ms": {
                "p50": percentile(paced.from_send, 50),
                "p99": percentile(paced.from_send, 99),
            },
            "send_delay_ms": {
                "p50": percentile(paced.send_delays, 50),
                "p99": percentile(paced.send_delays, 99),
            },
            "commands": len(paced.latencies),
            # AOF rewrites the server finished in the window (each ends with a stall; None:
            # no AOF)
            "aof_rewrites": half_rate_rewrites,
        },
        # % of one core during the closed-loop (service) and baseline windows
        "cpu_percent": cpu,
        "cpu_us_per_command": per_cmd,
        "cpu_ratio": cpu_ratio(per_cmd),
        # Redis commands the server executed per answered command (every client's)
        "server_calls_per_command": {
            side: calls_per_command(calls.get(side), windows[side]) for side in windows
        },
        # the server's socket reads (round trips) per answered command (every client's)
        "server_reads_per_command": {
            side: calls_per_command(reads.get(side), windows[side]) for side in windows
        },
        # bytes the server appended to its AOF per answered command (what the disk takes;
        # every client's writes; None without AOF)
        "aof_bytes_per_command": {
            side: None
            if aof.get(side) is None or not windows[side].rate
            # (bytes/s over the window's commands/s)
            else (aof[side] or 0.0) / windows[side].rate
            for side in windows
        },
        "targets": {
            "ratio_min": TARGET_RATIO,
            "half_rate_p99_ms_max": TARGET_HALF_RATE_P99_MS,
            "half_rate_lag_p99_ms_max": TARGET_HALF_RATE_LAG_P99_MS,
            "cpu_ratio_max": TARGET_CPU_RATIO,
        },
    }


def calls_per_command(calls: float | None, window: Recorder) -> float | None:
    return None if calls is None or not window.answered else calls / window.answered


def cpu_ratio(per_cmd: dict[str, dict[str, float | None]]) -> float | None:
    """Service CPU per command (workers + projectors + server) ÷ the baseline's
    (worker + server); None when a part was not measured."""
    service = [per_cmd["service"].get(part) for part in ("workers", "projectors", "server")]
    baseline = [per_cmd["baseline"].get(part) for part in ("workers", "server")]
    if None in service or None in baseline or not sum(b or 0.0 for b in baseline):
        return None
    return sum(s or 0.0 for s in service) / sum(b or 0.0 for b in baseline)


def per_command(percent: dict[str, float | None], rate: float) -> dict[str, float | None]:
    """CPU µs per answered command of each part, from its % of a core."""
    return {
        part: None if used is None or not rate else used / 100 * 1e6 / rate
        for part, used in percent.items()
    }


def run_bench(config: BenchConfig) -> dict[str, Any]:
    from orrery.runtime import server_for

    os.environ.setdefault("ORRERY_LOG_LEVEL", "warning")
    with contextlib.ExitStack() as stack:
        data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="orrery-bench-")))
        url = stack.enter_context(server_for(config.redis_url, data_dir))
        return asyncio.run(_measure(url, config))


COLUMNS = ("metric", "value", "target")


def render(result: dict[str, Any]) -> str:
    c = result["config"]
    h = result["half_rate"]
    rows: list[tuple[str, str, str]] = [
        ("service commands/s (closed loop)", f"{result['service_commands_per_s']:,.0f}", ""),
        ("baseline commands/s (Redis only)", f"{result['baseline_commands_per_s']:,.0f}", ""),
        ("service ÷ baseline", f"{result['ratio']:.2f}", f"≥ {TARGET_RATIO:.2f}"),
        (
            "each round: service ÷ baseline",
            " ".join(f"{r:.2f}" for r in result.get("ratio_per_round", [])) or "-",
            "",
        ),
        ("outcome latency p50 ms", f"{result['outcome_ms']['p50']:.2f}", ""),
        ("outcome latency p99 ms", f"{result['outcome_ms']['p99']:.2f}", ""),
        ("projection lag p50 ms", f"{result['lag_ms']['p50']:.2f}", ""),
        ("projection lag p99 ms", f"{result['lag_ms']['p99']:.2f}", ""),
        ("baseline latency p50 ms", f"{result['baseline_ms']['p50']:.2f}", ""),
        ("baseline latency p99 ms", f"{result['baseline_ms']['p99']:.2f}", ""),
        ("rejected (stale view) / accepted", f"{result['rejected']} / {result['accepted']}", ""),
        ("half rate: offered commands/s", f"{h['offered_per_s']:,.0f}", ""),
        ("half rate: answered commands/s", f"{h['answered_per_s']:,.0f}", ""),
        ("half rate: outcome latency p50 ms", f"{h['outcome_ms']['p50']:.2f}", ""),
        (
            "half rate: outcome latency p99 ms",
            f"{h['outcome_ms']['p99']:.2f}",
            f"≤ {TARGET_HALF_RATE_P99_MS:.0f}",
        ),
        (
            "half rate: projection lag p99 ms",
            f"{h['lag_ms']['p99']:.2f}",
            f"≤ {TARGET_HALF_RATE_LAG_P99_MS:.0f}",
        ),
        ("half rate: outcome p99 ms from the actual send", f"{h['from_send_ms']['p99']:.2f}", ""),
        ("half rate: send delay p99 ms (bench client)", f"{h['send_delay_ms']['p99']:.2f}", ""),
        ("half rate: commands measured", f"{h['commands']}", ""),
        (
            "half rate: AOF rewrites in the window",
            "-" if h.get("aof_rewrites") is None else f"{h['aof_rewrites']}",
            "",
        ),
        (
            "per-command CPU: service ÷ baseline",
            "-" if result["cpu_ratio"] is None else f"{result['cpu_ratio']:.1f}",
            f"≤ {TARGET_CPU_RATIO:.1f}",
        ),
        (
            "server commands per command: service / baseline",
            " / ".join(
                "-" if calls is None else f"{calls:.1f}"
                for calls in result["server_calls_per_command"].values()
            ),
            "",
        ),
        (
            "server round trips per command: service / baseline",
            " / ".join(
                "-" if reads is None else f"{reads:.1f}"
                for reads in result.get("server_reads_per_command", {}).values()
            ),
            "",
        ),
        (
            "AOF KB appended per command: service / baseline",
            " / ".join(
                "-" if written is None else f"{written / 1000:.1f}"
                for written in result.get("aof_bytes_per_command", {}).values()
            ),
            "",
        ),
    ]
    head = (
        f"orrery bench: {', '.join(c['games'])}; {c['tables']} tables x {c['seats']} seats; "
        f"{c['seconds']:g} s per phase (baseline and service in turns, "
        f"{rounds_text(c.get('rounds', 1))}); {c['workers']} worker(s), {c['projectors']} "
        f"projector(s); P={c['partitions']}; {c['server']} server; {c['cores']} cores, "
        f"load average {c['load_before'] or 0:.2f} before the run"
    )
    table = [COLUMNS, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    lines = [head, ""]
    for n, row in enumerate(table):
        lines.append(
            "  ".join(
                [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].ljust(widths[2])]
            ).rstrip()
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines += ["", *render_cpu(result), ""]
    lines.append(
        "half rate: twice the tables, commands paced at half the closed-loop rate; "
        "latency from the scheduled send."
    )
    lines.append(
        "CPU: % of one core during the closed-loop / baseline window, and CPU µs per "
        "answered command."
    )
    return "\n".join(lines)


def rounds_text(n: int) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


CPU_COLUMNS = ("CPU", "service % core", "service µs/cmd", "baseline % core", "baseline µs/cmd")


def render_cpu(result: dict[str, Any]) -> list[str]:
    """Where the CPU went: each part's share of a core and CPU µs per command."""
    percent, per_cmd = result["cpu_percent"], result["cpu_us_per_command"]
    parts = list(percent["service"])

    def cell(table: dict[str, dict[str, float | None]], side: str, part: str) -> str:
        used = table[side].get(part)
        return "-" if used is None else f"{used:,.0f}"

    rows = [CPU_COLUMNS] + [
        (
            part,
            cell(percent, "service", part),
            cell(per_cmd, "service", part),
            cell(percent, "baseline", part),
            cell(per_cmd, "baseline", part),
        )
        for part in parts
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(CPU_COLUMNS))]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(cells))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines
