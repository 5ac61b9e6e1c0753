"""Running the service: decider workers and projectors, in this process or as children.

``serve`` starts ``--workers`` decider processes and ``--projectors`` projector
processes (each ``python -m orrery.cli worker|projector``), so they use every core and
each has its own consumer name, plus ``--timekeepers`` timekeeper processes
(orrery/timekeeper.py; any number is safe) and ``--archivers`` archiver processes
(archive/archiver.py; any number is safe) and ``--matchmakers`` matchmaker processes
(matchmaking/matchmaker.py; any number is safe), and after the gateway ``--notifiers``
notifier processes (notify/notifier.py; any number is safe); ``demo`` and the tests use
the same processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import IO

import structlog
from faststream.redis import RedisBroker

from orrery.config import ENV_URL, ensure_partitions
from orrery.errors import UserError
from orrery.server.cluster import open_redis
from orrery.server.credentials import shown_url, with_folder_password
from orrery.server.folder import folder_server
from orrery_client.cluster import read_stream_keys_locally
from projections.runner import build_projector_app, ensure_feed_groups
from services.assignment import Assignment
from services.intake import build_decider_app, ensure_command_groups
from streams.consumers import consumer_name
from streams.readers import stop_task

log = structlog.get_logger("orrery.process")


def make_broker(url: str) -> RedisBroker:
    """A broker whose own per-message INFO lines are muted (structlog says what matters);
    a ``RedisClusterBroker`` when the URL names a cluster (orrery/server/cluster.py)."""
    from orrery.server.cluster import make_broker as cluster_aware_broker

    broker: RedisBroker = cluster_aware_broker(url)
    return broker


async def prepare(
    url: str, partitions: int | None, roles: tuple[str, ...] = ("worker", "projector")
) -> int:
    """Record P and pre-create the consumer groups of ``roles`` at 0 (each role's Redis
    user may touch only its own streams)."""
    redis = open_redis(url)
    try:
        p = await ensure_partitions(redis, partitions)
        if "worker" in roles:
            await ensure_command_groups(redis, p)
        if "projector" in roles:
            await ensure_feed_groups(redis, p)
        return p
    finally:
        await redis.aclose()


async def run_role(role: str, url: str, partitions: int | None, consumer: str | None) -> None:
    """Run one worker or projector until SIGINT/SIGTERM. The process's settings are read
    here, once (services.settings, projections.settings, streams.settings,
    orrery.settings)."""
    from orrery.ops.watchdog import group_watchdog
    from orrery.settings import WatchdogSettings
    from projections.settings import ProjectorSettings
    from services import metrics
    from services.settings import WorkerSettings
    from streams.settings import ConsumerSettings

    claims = ConsumerSettings.from_env()
    watchdog_settings = WatchdogSettings.from_env()

    consumer = consumer or consumer_name("decider" if role == "worker" else role)
    # every line of this process names its role and consumer
    structlog.contextvars.bind_contextvars(role=role, consumer=consumer)
    p = await prepare(url, partitions, (role,))
    broker = make_broker(url)
    # The broker's own client (FastStream's public connect(): the one connection the
    # subscribers read with), handed to the handlers and the partition assignment.
    redis = await broker.connect()
    assignment = None
    if role == "worker":
        # Each partition is read by one live worker at a time (services/assignment.py).
        settings = WorkerSettings.from_env()
        assignment = Assignment(p, consumer, settings.worker_ttl_s)
        app = build_decider_app(
            broker,
            redis,
            p,
            consumer=consumer,
            assignment=assignment,
            settings=settings,
            claims=claims,
        )
    else:
        app = build_projector_app(
            broker,
            redis,
            p,
            consumer=consumer,
            on_applied=metrics.observe_projection_lag,
            settings=ProjectorSettings.from_env(),
            claims=claims,
        )
    metrics.serve_metrics(None)
    metrics.name_process(role, consumer)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    read_stream_keys_locally(redis)  # (a cluster client; else untouched)
    await app.start()  # the broker's subscribers, then the app's own readers
    # What start-up built (modules, the app, the clients) lives as long as the process:
    # frozen out of the collector's walks, an oldest-generation collection no longer
    # pauses the event loop for ~100 ms.
    gc.freeze()
    log.info("process_started", partitions=p, redis=shown_url(url))
    # Recreates consumer groups lost with the server's data (FastStream would log
    # NOGROUP forever) and refreshes the backlog gauges.
    watchdog = asyncio.create_task(
        group_watchdog(
            url,
            p,
            role,
            broker,
            consumer=consumer,
            settings=watchdog_settings,
        )
    )
    sharing = asyncio.create_task(assignment.run(redis)) if assignment else None
    try:
        await stop.wait()
    finally:
        if assignment is not None:
            assignment.stop()
        for task in (watchdog, sharing):
            if task is not None:
                await stop_task(task)
        await app.stop()  # the app's readers, then the broker
        log.info("process_stopped")


def child_argv(role: str, *args: str) -> list[str]:
    """The command line of a child ``orrery ROLE ARGS``. Never a URL: it may hold a
    password, and every local user reads a process's command line (``ps``)."""
    return [sys.executable, "-m", "orrery.cli", role, *args]


def child_env(url: str, extra_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child: this process's, the server's URL in
    ``$ORRERY_REDIS_URL`` (readable by the same user only) and ``extra_env``."""
    return {**os.environ, ENV_URL: url, **(extra_env or {})}


def spawn(
    role: str,
    url: str,
    index: int,
    extra_env: Mapping[str, str] | None = None,
    stderr: IO[bytes] | int | None = None,
    *,
    args: tuple[str, ...] = (),
    stdout: IO[bytes] | int | None = None,
) -> subprocess.Popen[bytes]:
    """``orrery ROLE ARGS`` as a child process, the URL in its environment (never in its
    argv); ``stderr`` / ``stdout``: where its output goes (default: this process's)."""
    return subprocess.Popen(
        child_argv(role, *args),
        env=child_env(url, extra_env),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
    )


def stop_processes(processes: list[subprocess.Popen[bytes]], timeout: float = 10.0) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def share_secret_key(data_dir: Path) -> None:
    """``$ORRERY_SECRET_KEY``, else the key kept in the data folder, in the environment
    every child inherits (workers verify what the gateway signs with it)."""
    from gateway.settings import SECRET_KEY_ENV, load_secret_key

    os.environ[SECRET_KEY_ENV] = load_secret_key(data_dir)


def default_gateways() -> int:
    """One gateway process per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not Linux)
        return max(1, os.cpu_count() or 1)


async def _start_gateway(
    url: str, host: str, port: int, reuse_port: bool
) -> tuple[str, subprocess.Popen[bytes]]:
    args = ("--host", host, "--port", str(port), *(("--reuse-port",) if reuse_port else ()))
    gateway = spawn("gateway", url, 0, args=args, stdout=subprocess.PIPE)
    assert gateway.stdout is not None
    line = await asyncio.to_thread(gateway.stdout.readline)
    if not line:
        stop_processes([gateway])
        # its own one line (a port taken since serve checked it, …) is printed above
        raise UserError("the gateway did not start (its message is above)")
    return line.decode().strip(), gateway


class GatewayPool:
    """``count`` gateway processes listening on one port (``SO_REUSEPORT`` when more
    than one: the kernel spreads new connections among them). Each has its own table
    watchers; a gateway that dies is started again by :meth:`keep_up`."""

    def __init__(self, url: str, host: str, count: int) -> None:
        self.url = url
        self.host = host
        self.count = max(1, count)
        self.port = 0
        self.base = ""
        self.processes: list[subprocess.Popen[bytes]] = []

    async def start(self, port: int) -> str:
        reuse = self.count > 1
        self.base, first = await _start_gateway(self.url, self.host, port, reuse)
        self.port = int(self.base.rsplit(":", 1)[1])
        self.processes = [first]
        try:
            for _ in range(self.count - 1):
                _, other = await _start_gateway(self.url, self.host, self.port, reuse)
                self.processes.append(other)
        except BaseException:
            stop_processes(self.processes)
            raise
        return self.base

    async def keep_up(self) -> None:
        """Start again each gateway that died (killed, out of memory), on the same
        port: until cancelled."""
        while True:
            await asyncio.sleep(1.0)
            for i, process in enumerate(self.processes):
                if process.poll() is None:
                    continue
                log.warning("gateway_restarted", pid=process.pid, code=process.returncode)
                with contextlib.suppress(UserError):  # (tried again in a second)
                    _, self.processes[i] = await _start_gateway(
                        self.url, self.host, self.port, self.count > 1
                    )


async def gateway_processes(
    url: str,
    port: int = 0,
    host: str = "127.0.0.1",
    role_urls: Mapping[str, str] | None = None,
    gateways: int = 1,
) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """Start ``gateways`` ``orrery gateway`` processes on one port and ``orrery bots``;
    the gateways' base URL once they listen. ``role_urls``: a role's own URL (its Redis
    user), else ``url``."""
    pool, bots = await gateway_pool(url, port, host, role_urls, gateways)
    return pool.base, [*pool.processes, bots]


async def gateway_pool(
    url: str,
    port: int = 0,
    host: str = "127.0.0.1",
    role_urls: Mapping[str, str] | None = None,
    gateways: int = 1,
) -> tuple[GatewayPool, subprocess.Popen[bytes]]:
    """The gateways (:class:`GatewayPool`, started) and the bot runner."""
    urls = role_urls or {}
    pool = GatewayPool(urls.get("gateway", url), host, gateways)
    await pool.start(port)
    return pool, spawn("bots", urls.get("bots", url), 0)


def notifier_processes(
    url: str, count: int, public_url: str | None, role_urls: Mapping[str, str] | None = None
) -> list[subprocess.Popen[bytes]]:
    """Start ``count`` ``orrery notifier`` processes; ``public_url``: the gateway's URL,
    where their links point unless ``$ORRERY_PUBLIC_URL`` says otherwise."""
    from notify.settings import PUBLIC_URL_ENV

    env = {PUBLIC_URL_ENV: public_url} if public_url and not os.environ.get(PUBLIC_URL_ENV) else {}
    notifier_url = (role_urls or {}).get("notifier", url)
    return [spawn("notifier", notifier_url, i, env) for i in range(count)]


@contextlib.contextmanager
def server_for(
    url: str | None, data_dir: Path, port: int | None = None, appendfsync: str = "everysec"
) -> Iterator[str]:
    """The given server, else the data folder's embedded one: the running one (another
    orrery process's), or one started for the duration of the block."""
    if url:
        yield with_folder_password(url, data_dir)
        return
    with folder_server(data_dir, port, appendfsync) as folder_url:
        yield folder_url


@contextlib.asynccontextmanager
async def service(
    url: str,
    workers: int,
    projectors: int,
    partitions: int | None = None,
    timekeepers: int = 0,
    archivers: int = 0,
    role_urls: Mapping[str, str] | None = None,
    matchmakers: int = 0,
) -> AsyncIterator[list[subprocess.Popen[bytes]]]:
    """The processes of the service, each role's connecting with its URL in
    ``role_urls`` (its own Redis user), else with ``url`` (which records P and creates
    the consumer groups first)."""
    await prepare(url, partitions)
    # With ORRERY_METRICS_PORT=N, child i serves /metrics on N + i.
    base = int(os.environ.get("ORRERY_METRICS_PORT") or 0)
    roles = ["worker"] * workers + ["projector"] * projectors
    roles += ["timekeeper"] * timekeepers + ["archiver"] * archivers
    roles += ["matchmaker"] * matchmakers
    urls = role_urls or {}
    processes = [
        spawn(
            role,
            urls.get(role, url),
            i,
            {"ORRERY_METRICS_PORT": str(base + i)} if base else None,
        )
        for i, role in enumerate(roles)
    ]
    try:
        yield processes
    finally:
        stop_processes(processes)
