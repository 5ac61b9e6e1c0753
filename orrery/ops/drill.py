"""``orrery cluster drill``: a master is killed under load; what that costs is measured.

One run starts a local cluster (3 masters, one replica each, a short
``cluster-node-timeout``), worker and projector processes with ``--wait-replicas N``,
and bots playing tables back to back in several lanes through a client that records
every command and the outcome it settled on. Once the load runs, the master serving
the most tables in play gets SIGKILL; the lanes go on until commands are answered
again on the partitions it served, then each lane finishes its table. Afterwards every
table's log is checked.

Figures (docs/scaling.md, "Failover"):

- **promotion**: kill → a healthy slot map without the dead master (its replica serves);
- **RTO**: kill → the first outcome of a command for one of the dead master's
  partitions that was sent after the kill (the service answers there again);
- **in-flight settled**: kill → every command sent before the kill has its outcome
  (the client resends the same command id when an answer does not come);
- **lost answered**: commands answered ``accepted`` whose events are not in their
  table's log afterwards (the RPO: 0 is the promise of ``--wait-replicas 1``);
- tables finished, audits passed, the projections equal to their logs, every command
  answered, and whether ``orrery status`` lists the promoted node as a master.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from redis.crc import key_slot

from orrery.demo import play_table
from orrery.server.cluster import LocalCluster, Topology
from orrery_client.sdk import OrreryClient
from orrery_contracts import keys
from orrery_contracts.envelope import Accepted, Rejection, decode_entry

DRILL_PARTITIONS = 8


@dataclass
class DrillFigures:
    wait_replicas: int
    game: str
    killed: str = ""
    promoted: str = ""
    promotion_s: float | None = None
    rto_s: float | None = None
    in_flight_settled_s: float | None = None
    # the cost: one create through the command handler (decide + append + WAIT), alone,
    # with this setting and (interleaved) without WAIT
    append_no_wait_p50_ms: float = 0.0
    append_p50_ms: float = 0.0
    append_p99_ms: float = 0.0
    # and under the load, before the kill: commands answered per second, answer latency
    answered_per_s: float = 0.0
    latency_p50_ms: float = 0.0
    latency_p99_ms: float = 0.0
    commands: int = 0  # submitted (each once, however often the client resent it)
    unanswered: int = 0  # submitted, never settled
    accepted: int = 0
    lost_answered: int = 0  # accepted, but not in the log afterwards
    applied_twice: int = 0  # a command id whose events are in a log more than once
    tables: int = 0
    finished: int = 0
    audits_failed: list[str] = field(default_factory=list)
    projections_differ: list[str] = field(default_factory=list)
    lane_errors: list[str] = field(default_factory=list)
    status_shows_promoted: bool = False
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """What ``--wait-replicas 1`` promises (``0`` may lose answered commands)."""
        return (
            self.lost_answered == 0
            and self.unanswered == 0
            and self.applied_twice == 0
            and self.finished == self.tables
            and not self.audits_failed
            and not self.projections_differ
            and not self.lane_errors
            and self.status_shows_promoted
            and self.rto_s is not None
        )


@dataclass
class _Sent:
    table_id: str
    sent_at: float
    outcome: Accepted | Rejection | None = None
    answered_at: float = 0.0


class RecordingClient(OrreryClient):
    """Remembers every command it submitted, when, and the outcome it settled on."""

    def __init__(self, url: str, timeout: float, attempts: int) -> None:
        super().__init__(url, reply_prefix="drill")
        self.sent: dict[str, _Sent] = {}
        self._timeout = timeout
        self._attempts = attempts

    async def submit(
        self, table_id: str, body: Any, *, command_id: str | None = None, **kwargs: Any
    ) -> Accepted | Rejection:
        command_id = command_id or uuid.uuid4().hex
        record = _Sent(table_id, time.monotonic())
        self.sent[command_id] = record
        kwargs.setdefault("timeout", self._timeout)
        kwargs.setdefault("attempts", self._attempts)
        outcome = await super().submit(table_id, body, command_id=command_id, **kwargs)
        record.outcome, record.answered_at = outcome, time.monotonic()
        return outcome

    def answered(self) -> int:
        return sum(1 for r in self.sent.values() if r.outcome is not None)


def run_drill(
    data_dir: Path,
    *,
    wait_replicas: int = 1,
    game: str = "spacecraft",
    players: int = 2,
    lanes: int = 6,
    warmup: int = 150,
    after: int = 40,
    node_timeout_ms: int = 2000,
    claim_idle_ms: int = 3000,
    workers: int = 2,
    seed: int = 1,
    timeout: float = 120.0,
    extra_env: dict[str, str] | None = None,
) -> DrillFigures:
    """One drill on a fresh local cluster in ``data_dir`` (deleted afterwards)."""
    shutil.rmtree(data_dir, ignore_errors=True)
    figures = DrillFigures(wait_replicas=wait_replicas, game=game)
    started = time.monotonic()
    cluster = LocalCluster(data_dir, masters=3, replicas=1, node_timeout_ms=node_timeout_ms)
    cluster.start()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        from orrery.runtime import prepare, spawn

        asyncio.run(prepare(cluster.url, DRILL_PARTITIONS))
        env = {
            "ORRERY_WAIT_REPLICAS": str(wait_replicas),
            "ORRERY_CLAIM_IDLE_MS": str(claim_idle_ms),
            "ORRERY_LOG_LEVEL": os.environ.get("ORRERY_DRILL_LOG_LEVEL", "warning"),
            **(extra_env or {}),
        }
        roles = ["worker"] * workers + ["projector"]
        for i, role in enumerate(roles):
            log_file = (data_dir / f"{role}-{i}.log").open("wb")
            # (the URL in the environment, as every child gets it: orrery/runtime.py)
            processes.append(spawn(role, cluster.url, i, env, stderr=log_file, stdout=log_file))
        asyncio.run(_ready(cluster.url, workers, timeout))
        asyncio.run(_append_cost(cluster.url, figures, game, players))
        asyncio.run(_drill(cluster, figures, game, players, lanes, warmup, after, seed, timeout))
    finally:
        from orrery.runtime import stop_processes

        stop_processes(processes)
        cluster.stop()
        if not os.environ.get("ORRERY_DRILL_KEEP"):
            shutil.rmtree(data_dir, ignore_errors=True)
    figures.seconds = time.monotonic() - started
    return figures


async def _ready(url: str, workers: int, timeout: float) -> None:
    """Wait until every process reads every partition (each group lists its consumers)."""
    from orrery.ops.status import group_status
    from orrery.server.cluster import open_redis

    redis = open_redis(url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            counts = []
            for p in range(DRILL_PARTITIONS):
                deciders = (keys.DECIDERS_GROUP,)
                counts += [
                    g.consumers // workers
                    for g in await group_status(redis, keys.command_stream(p), deciders)
                ]
                counts += [
                    g.consumers
                    for g in await group_status(redis, keys.feed_stream(p), keys.PROJECTION_GROUPS)
                ]
            if min(counts) >= 1:
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the worker and projector processes did not start")
            await asyncio.sleep(0.1)
    finally:
        await redis.aclose()


async def _append_cost(url: str, figures: DrillFigures, game: str, players: int) -> None:
    """Creates handled one by one in this process before the load, alternately without
    WAIT and with this run's setting: the price of ``--wait-replicas`` per append, paired
    so the noise of a shared machine hits both alike."""
    import msgspec

    from orrery.server.cluster import open_redis
    from orrery_contracts.envelope import CommandEnvelope
    from orrery_contracts.table import CreateTable
    from services.handling import CommandHandler
    from services.store import EventStore

    redis = open_redis(url)
    encoder = msgspec.json.Encoder()
    body = msgspec.Raw(encoder.encode(CreateTable(game=game, seats=players, options={})))
    handlers = [
        CommandHandler(EventStore(redis, DRILL_PARTITIONS, wait_replicas=n))
        for n in (0, figures.wait_replicas)
    ]
    seconds: list[list[float]] = [[], []]
    try:
        for i in range(400):
            envelope = CommandEnvelope(
                command_id=uuid.uuid4().hex, table_id=f"cost-{i}-{uuid.uuid4().hex[:8]}", body=body
            )
            started = time.perf_counter()
            await handlers[i % 2].handle(encoder.encode(envelope))
            seconds[i % 2].append(time.perf_counter() - started)
    finally:
        await redis.aclose()
    (figures.append_no_wait_p50_ms, _), (figures.append_p50_ms, figures.append_p99_ms) = (
        _p50_p99(seconds[0]),
        _p50_p99(seconds[1]),
    )


def _p50_p99(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return 1000 * ordered[len(ordered) // 2], 1000 * ordered[len(ordered) * 99 // 100]


async def _drill(
    cluster: LocalCluster,
    figures: DrillFigures,
    game: str,
    players: int,
    lanes: int,
    warmup: int,
    after: int,
    seed: int,
    timeout: float,
) -> None:
    deadline = time.monotonic() + timeout
    rng = random.Random(seed)
    stop = asyncio.Event()
    client = RecordingClient(cluster.url, timeout=5.0, attempts=12)
    async with client:
        tasks = [
            asyncio.create_task(
                _lane(client, game, players, random.Random(rng.getrandbits(64)), stop, figures)
            )
            for _ in range(lanes)
        ]
        try:
            await _until(lambda: client.answered() >= warmup, deadline, "warm-up")
            before = await cluster.topology()
            victim = _busiest_master(client, before)
            affected = {
                p
                for p in range(DRILL_PARTITIONS)
                if before.master_of(key_slot(keys.command_stream(p).encode())) == victim
            }
            figures.killed = victim
            in_flight = {c for c, r in client.sent.items() if r.outcome is None}
            killed_at = time.monotonic()
            _cost(client, figures, killed_at)
            cluster.kill(int(victim.rpartition(":")[2]))
            promoted = asyncio.create_task(_promotion(cluster, victim, killed_at, deadline))

            def recovered() -> bool:
                return any(
                    r.outcome is not None
                    and r.sent_at > killed_at
                    and client.partition(r.table_id) in affected
                    for r in client.sent.values()
                )

            await _until(recovered, deadline, "an answer on the dead master's partitions")
            figures.rto_s = (
                min(
                    r.answered_at
                    for r in client.sent.values()
                    if r.outcome is not None
                    and r.sent_at > killed_at
                    and client.partition(r.table_id) in affected
                )
                - killed_at
            )
            answered_then = client.answered()
            await _until(lambda: client.answered() >= answered_then + after, deadline, "load")
            await _until(
                lambda: all(client.sent[c].outcome is not None for c in in_flight),
                deadline,
                "outcomes of the commands in flight at the kill",
            )
            figures.in_flight_settled_s = (
                max((client.sent[c].answered_at for c in in_flight), default=killed_at) - killed_at
            )
            figures.promoted, figures.promotion_s = await promoted
        except TimeoutError as error:
            figures.lane_errors.append(f"drill: {error}")
        finally:
            stop.set()
            left = max(1.0, deadline - time.monotonic())
            _, pending = await asyncio.wait(tasks, timeout=left)
            for task in pending:
                task.cancel()
                figures.lane_errors.append("a lane did not finish its table in time")
        await _verify(client, figures)
    figures.status_shows_promoted = await _status_shows(cluster, figures.promoted)


def _cost(client: RecordingClient, figures: DrillFigures, until: float) -> None:
    done = sorted((r.answered_at - r.sent_at, r.sent_at) for r in client.sent.values() if r.outcome)
    if not done:
        return
    first = min(sent for _, sent in done)
    figures.answered_per_s = len(done) / max(until - first, 1e-9)
    latencies = sorted(latency for latency, _ in done)
    figures.latency_p50_ms = 1000 * latencies[len(latencies) // 2]
    figures.latency_p99_ms = 1000 * latencies[min(len(latencies) - 1, len(latencies) * 99 // 100)]


async def _lane(
    client: RecordingClient,
    game: str,
    players: int,
    rng: random.Random,
    stop: asyncio.Event,
    figures: DrillFigures,
) -> None:
    """Tables back to back until the drill has seen enough; the last one is finished."""
    while not stop.is_set():
        try:
            await play_table(client, game, players, random.Random(rng.getrandbits(64)))
        except Exception as error:
            figures.lane_errors.append(f"{type(error).__name__}: {error}"[:300])
            return


def _busiest_master(client: RecordingClient, topology: Topology) -> str:
    """The master serving the most tables in play (a command sent in the last 2 s)."""
    counts: dict[str, int] = dict.fromkeys(topology.masters.values(), 0)
    recent = time.monotonic() - 2.0
    for table_id in {r.table_id for r in client.sent.values() if r.sent_at > recent}:
        slot = key_slot(keys.command_stream(client.partition(table_id)).encode())
        address = topology.master_of(slot)
        if address is not None:
            counts[address] += 1
    return max(counts, key=lambda a: (counts[a], a))


async def _promotion(
    cluster: LocalCluster, victim: str, killed_at: float, deadline: float
) -> tuple[str, float]:
    """Who serves the dead master's slots now, and how long it took."""
    while time.monotonic() < deadline:
        try:
            topology = await cluster.topology()
        except Exception:
            topology = None
        if topology is not None and topology.healthy and victim not in topology.masters.values():
            return _successor(topology, cluster), time.monotonic() - killed_at
        await asyncio.sleep(0.05)
    raise TimeoutError("the dead master's replica was not promoted")


def _successor(topology: Topology, cluster: LocalCluster) -> str:
    masters = set(topology.masters.values())
    original = {f"127.0.0.1:{p}" for p in cluster.ports[: cluster.masters]}
    new = sorted(masters - original)
    return new[0] if new else ""


async def _until(condition: Any, deadline: float, what: str) -> None:
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def _verify(client: RecordingClient, figures: DrillFigures) -> None:
    """Every command answered; every accepted one in its log once at its seqs; every
    table finished, audited, and projected as its log says."""
    from projections.scoreboard import table_score
    from projections.tables import read_table
    from projections.views import render_views
    from services.audit import audit_entries

    figures.commands = len(client.sent)
    figures.unanswered = sum(1 for r in client.sent.values() if r.outcome is None)
    accepted = {c: r.outcome for c, r in client.sent.items() if isinstance(r.outcome, Accepted)}
    figures.accepted = len(accepted)
    tables = sorted({r.table_id for r in client.sent.values()})
    figures.tables = len(tables)
    for table_id in tables:
        p = client.partition(table_id)
        raw = await _retrying(lambda t=table_id, p=p: client.redis.xrange(keys.log_stream(p, t)))
        log = [decode_entry(fields[b"e"]) for _, fields in raw]
        runs: dict[str, list[int]] = {}
        for entry in log:
            runs.setdefault(entry.command_id, []).append(entry.seq)
        for command_id, outcome in accepted.items():
            if outcome.table_id != table_id:
                continue
            seqs = runs.get(command_id)
            if seqs != list(range(outcome.first_seq, outcome.last_seq + 1)):
                figures.lost_answered += 1
        figures.applied_twice += sum(
            1 for seqs in runs.values() if seqs != list(range(seqs[0], seqs[0] + len(seqs)))
        )
        if not log:
            continue
        report = audit_entries(log)
        if not report.ok:
            figures.audits_failed.append(f"{table_id}: {report.failure}")
        state = await read_table(client.redis, client.partitions, table_id)
        if state.phase != "finished":
            continue
        figures.finished += 1
        if not await _projected_as_logged(client, state, render_views, table_score):
            figures.projections_differ.append(table_id)


async def _projected_as_logged(
    client: RecordingClient, state: Any, render_views: Any, table_score: Any
) -> bool:
    """The views and the score equal those rendered from the log (waiting a little for
    the projector to catch up): nothing skipped, nothing from a lost event."""
    import msgspec

    p = client.partition(state.table_id)
    expected = {seat: msgspec.json.decode(v) for seat, v in render_views(state).items()}
    score = msgspec.json.decode(msgspec.json.encode(table_score(state)))
    for _ in range(100):
        views = {
            seat: await client.view(state.table_id, seat) for seat in [None, *range(state.seats)]
        }
        stored = await client.redis.get(keys.score_key(p, state.table_id))
        if views == expected and stored is not None and msgspec.json.decode(stored) == score:
            return True
        await asyncio.sleep(0.1)
    return False


async def _retrying(read: Any) -> Any:
    for _ in range(50):
        try:
            return await read()
        except Exception:
            await asyncio.sleep(0.2)
    return await read()


async def _status_shows(cluster: LocalCluster, promoted: str) -> bool:
    """``orrery status`` lists the promoted node as a master and the groups as present."""
    from orrery.ops.status import collect_status

    if not promoted:
        return False
    status = await collect_status(cluster.url, tables=False)
    roles = {n["node"]: n["role"] for n in status.nodes}
    return roles.get(promoted) == "master" and status.ok


# --------------------------------------------------------------------------- CLI


def print_figures(results: list[DrillFigures]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"orrery cluster drill ({os.cpu_count()} cores)")
    columns = ("WAIT", "append ms", "no WAIT", "load cmd/s", "p50/p99 ms", "promotion s")
    more = ("RTO s", "in flight s", "answered", "lost answered", "tables", "passed")
    for column in (*columns, *more):
        table.add_column(column, justify="right")

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    for f in results:
        table.add_row(
            str(f.wait_replicas),
            f"{f.append_p50_ms:.2f}",
            f"{f.append_no_wait_p50_ms:.2f}",
            f"{f.answered_per_s:.0f}",
            f"{f.latency_p50_ms:.0f}/{f.latency_p99_ms:.0f}",
            seconds(f.promotion_s),
            seconds(f.rto_s),
            seconds(f.in_flight_settled_s),
            f"{f.commands - f.unanswered}/{f.commands}",
            str(f.lost_answered),
            f"{f.finished}/{f.tables}",
            "yes" if f.passed else "NO",
        )
    Console(width=150).print(table)
    print(
        "WAIT: --wait-replicas. append ms: p50 of one create at a time through the "
        "command handler before the load; no WAIT: the same, interleaved, without WAIT "
        "(the difference is what WAIT costs). load: answers per second and their latency "
        "under the bots' load before the kill. promotion: kill -> a healthy slot map "
        "without the dead master. RTO: kill -> the first answer to a command sent after "
        "the kill to one of its partitions. in flight: kill -> every command sent before "
        "it is answered. lost answered: 'accepted', but not in the log afterwards."
    )
    for f in results:
        for problem in (*f.lane_errors, *f.audits_failed):
            print(f"  wait-replicas {f.wait_replicas}: {problem}")
        if f.projections_differ:
            print(f"  wait-replicas {f.wait_replicas}: projections differ: {f.projections_differ}")


def register(cluster_app: typer.Typer) -> None:
    @cluster_app.command("drill")
    def drill(
        wait_replicas: Annotated[
            list[int] | None, typer.Option(help="WAIT setting(s) to drill (default: 0 and 1)")
        ] = None,
        runs: Annotated[int, typer.Option(help="runs per setting")] = 1,
        game: Annotated[str, typer.Option(help="game the bots play")] = "spacecraft",
        lanes: Annotated[int, typer.Option(help="tables played at once")] = 6,
        node_timeout_ms: Annotated[int, typer.Option(help="cluster-node-timeout")] = 2000,
        claim_idle_ms: Annotated[int, typer.Option(help="ORRERY_CLAIM_IDLE_MS")] = 3000,
        seed: Annotated[int, typer.Option(help="seed of the bots")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,
        data_dir: Annotated[Path, typer.Option(help="scratch folder")] = Path(".orrery") / "drill",
    ) -> None:
        """Kill -9 a master under load on a local cluster (3 masters + 1 replica each);
        prints promotion time, RTO and lost answered commands per --wait-replicas."""
        import json

        from orrery.logs import configure_logging

        configure_logging("error")
        results = []
        for setting in wait_replicas or [0, 1]:
            for run in range(runs):
                results.append(
                    run_drill(
                        data_dir,
                        wait_replicas=setting,
                        game=game,
                        lanes=lanes,
                        node_timeout_ms=node_timeout_ms,
                        claim_idle_ms=claim_idle_ms,
                        seed=seed + run,
                    )
                )
        if as_json:
            print(json.dumps([asdict(r) | {"passed": r.passed} for r in results], indent=2))
        else:
            print_figures(results)
        if not all(r.passed for r in results if r.wait_replicas >= 1):
            raise typer.Exit(1)
