"""The shipped deployment files keep Redis closed: protected mode and an ACL file in every
server config (and those configs start the real server), no Redis port published by the
compose file, and every Orrery role connecting as its own user."""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from pathlib import Path

import pytest
import redis
import yaml
from redis.backoff import NoBackoff
from redis.retry import Retry

from orrery.server.credentials import ROLES
from orrery.server.embedded import (
    AOF_REWRITE_ARGS,
    STREAM_NODE_ARGS,
    EmbeddedServer,
    free_port,
    server_binary,
)
from tests.support.service import REPO

pytestmark = pytest.mark.service

DEPLOY = REPO / "deploy"
CONFIGS = [
    DEPLOY / "valkey" / "valkey.conf",
    DEPLOY / "valkey" / "valkey-cluster.conf",
    DEPLOY / "redis" / "redis.conf",
    DEPLOY / "redis" / "redis-cluster.conf",
]
# One attempt per call: redis-py retries a refused connection or login ten times with
# back-off (seconds in all); the loops here poll on their own.
ONCE = Retry(NoBackoff(), 0)
USERS = (*ROLES, "app", "admin", "replication")


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_server_configs_are_closed(config: Path) -> None:
    lines = [line.split("#")[0].split() for line in config.read_text().splitlines()]
    settings = {words[0]: words[1:] for words in lines if words}
    assert settings["protected-mode"] == ["yes"]
    assert settings["aclfile"] == ["/data/users.acl"]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_the_embedded_server_rewrites_its_aof_as_the_shipped_configs(
    tmp_path: Path, config: Path
) -> None:
    """``orrery serve``'s server and ``orrery cluster up``'s nodes take the deploy
    configs' rewrite thresholds and stream node size, and the server runs with them."""
    lines = [line.split("#")[0].split() for line in config.read_text().splitlines()]
    settings = {words[0]: words[1:] for words in lines if words}
    args = (*AOF_REWRITE_ARGS, *STREAM_NODE_ARGS)
    pairs = dict(zip(args[::2], args[1::2], strict=True))
    for name, value in pairs.items():
        assert settings[name.removeprefix("--")] == [value]
    if config == CONFIGS[0]:
        with EmbeddedServer(tmp_path / "data") as server, redis.Redis.from_url(server.url) as r:
            running = r.config_get("auto-aof-rewrite-*")
            nodes = r.config_get("stream-node-max-bytes")
            r.xadd("small", {"__data__": b"x" * 60})
            small = r.memory_usage("small", samples=0)
        assert running["auto-aof-rewrite-min-size"] == str(256 * 2**20)
        assert running["auto-aof-rewrite-percentage"] == "100"
        assert nodes["stream-node-max-bytes"] == "512"
        assert small is not None and small < 2048  # (a 4 KiB node when not set)


def _rendered(folder: Path) -> tuple[Path, dict[str, str]]:
    passwords = {user: secrets.token_hex(16) for user in USERS}
    env = {**os.environ, **{f"ORRERY_{u.upper()}_PASSWORD": pw for u, pw in passwords.items()}}
    out = folder / "users.acl"
    script = DEPLOY / "valkey" / "render-acl.sh"
    template = DEPLOY / "valkey" / "users.acl.template"
    subprocess.run(["sh", str(script), str(template), str(out)], env=env, check=True)
    return out, passwords


@pytest.mark.parametrize("config", CONFIGS[:2], ids=lambda p: p.name)
def test_the_shipped_valkey_configs_start_closed(tmp_path: Path, config: Path) -> None:
    users, passwords = _rendered(tmp_path)
    # the file as shipped, but for where it keeps its data (read while the file is parsed)
    local = tmp_path / config.name
    text = config.read_text().replace("dir /data", f"dir {tmp_path}")
    local.write_text(text.replace("aclfile /data/users.acl", f"aclfile {users}"))
    overrides = ["--logfile", "server.log"]
    if "cluster" in config.name:  # the bus port: its own free port, not port + 10000
        overrides += ["--cluster-port", str(free_port())]
    with _StartedWithConfig(local, overrides) as port:
        anonymous = redis.Redis(port=port, socket_connect_timeout=2, retry=ONCE)
        with pytest.raises((redis.exceptions.AuthenticationError, redis.exceptions.ResponseError)):
            anonymous.get("orrery:config")
        anonymous.close()
        admin = redis.Redis(port=port, username="orrery-admin", password=passwords["admin"])
        assert admin.ping()
        assert admin.config_get("protected-mode") == {"protected-mode": "yes"}
        admin.close()


class _StartedWithConfig:
    """``valkey-server CONFIG --port P --bind 127.0.0.1 [overrides]``: the file as shipped
    (only where it writes and listens changes)."""

    def __init__(self, config: Path, overrides: list[str]) -> None:
        self.port = free_port()
        self.args = [
            server_binary(), str(config), "--port", str(self.port), "--bind", "127.0.0.1",
            "--daemonize", "no", *overrides,
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> int:
        self.process = subprocess.Popen(
            self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, retry=ONCE)
        deadline = time.monotonic() + 15
        while True:
            assert self.process.poll() is None, "the server refused the shipped config"
            try:
                client.ping()
                break
            except (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError):
                break
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        client.close()
        return self.port

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(10)


def test_compose_publishes_no_redis_port_and_gives_each_role_its_user() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert "ports" not in services["valkey"]
    users = {
        name: service.get("environment", {}).get("ORRERY_REDIS_USERNAME")
        for name, service in services.items()
        if name not in ("valkey", "postgres")  # (the archive's database)
    }
    for role in ROLES:
        assert users[role] == f"orrery-{role}"
    assert all(user for user in users.values())


def test_kubernetes_roles_use_their_own_users() -> None:
    docs = list(yaml.safe_load_all((DEPLOY / "k8s" / "orrery.yaml").read_text()))
    found = {}
    for doc in docs:
        if doc and doc["kind"] in {"Deployment", "Job"}:
            container = doc["spec"]["template"]["spec"]["containers"][0]
            env = {e["name"]: e for e in container.get("env", [])}
            found[doc["metadata"]["name"]] = env["ORRERY_REDIS_USERNAME"]["value"]
            secret = env["ORRERY_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
            assert secret["name"] == "orrery-redis"
    for role in ("worker", "projector", "timekeeper", "archiver", "matchmaker"):
        assert found[f"orrery-{role}"] == f"orrery-{role}"
    cluster = (DEPLOY / "k8s" / "valkey-cluster.yaml").read_text()
    assert "protected-mode no" not in cluster and "aclfile /acl/users.acl" in cluster


def test_kubernetes_images_are_pinned_and_every_process_has_its_own_probes() -> None:
    docs = list(yaml.safe_load_all((DEPLOY / "k8s" / "orrery.yaml").read_text()))
    for doc in docs:
        if not doc or doc["kind"] not in {"Deployment", "Job"}:
            continue
        container = doc["spec"]["template"]["spec"]["containers"][0]
        assert not container["image"].endswith(":latest") and ":" in container["image"]
        assert container["imagePullPolicy"] == "IfNotPresent"
        if doc["kind"] == "Deployment":
            probe = container["livenessProbe"]
            assert probe["httpGet"]["port"] == "metrics"  # this process, not `orrery status`
            env = {e["name"] for e in container.get("env", [])}
            assert "ORRERY_CONSUMER" in env
    config = yaml.safe_load((DEPLOY / "k8s" / "config.yaml").read_text())
    assert config["data"]["ORRERY_PARTITIONS"]


def test_the_image_copies_every_folder_the_package_is_built_from() -> None:
    """``pip install .`` in the image builds from the folders it copied: each top-level
    package's folder (the client's two live in contracts/ and clients/) must be there."""
    copied = {
        line.split()[1]
        for line in (DEPLOY / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    }
    folders = {p.parent.name for p in REPO.glob("*/__init__.py")} | {"contracts"}
    assert folders - {"tests"} <= copied, folders - copied
    ignored = (REPO / ".dockerignore").read_text().split()
    assert "**/node_modules" in ignored and ".venv" in ignored


def test_the_gateway_scales_out_behind_its_readiness_probe() -> None:
    """Several gateway pods behind one Service, each leaving it (readiness 503) once it
    holds all the sockets it may, and more pods on CPU."""
    docs = list(yaml.safe_load_all((DEPLOY / "k8s" / "gateway.yaml").read_text()))
    by_kind = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    deployment = by_kind[("Deployment", "orrery-gateway")]
    assert deployment["spec"]["replicas"] >= 2
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert int(env["ORRERY_GATEWAY_MAX_SOCKETS"]) > 0
    autoscaler = by_kind[("HorizontalPodAutoscaler", "orrery-gateway")]
    target = autoscaler["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "orrery-gateway")
    assert autoscaler["spec"]["maxReplicas"] > autoscaler["spec"]["minReplicas"] >= 2
    assert ("Service", "orrery-gateway") in by_kind
