"""The command line as a user runs it: serve, demo --json (every game), schema, rebuild."""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from games.registry import BUILTIN
from orrery.server.credentials import ACL_FILE, CREDENTIALS_FILE, with_folder_password

pytestmark = pytest.mark.service


def orrery(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )


def test_serve_prints_its_url_first_and_stops_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "serve", "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        # the operator user, never its password, is printed
        assert url.startswith("redis://orrery-admin@127.0.0.1:") and url.endswith("/0")
        data = tmp_path / "data"
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        # nobody connects without the folder's credentials: the default user is off (no
        # retries: redis-py retries a refused login ten times, seconds of back-off each)
        once = Retry(NoBackoff(), 0)
        for anonymous in (
            redis.Redis.from_url(url, retry=once),
            redis.Redis(port=port, retry=once),
            redis.Redis(port=port, username="default", password="", retry=once),
            redis.Redis(port=port, username="orrery-admin", password="guess", retry=once),
        ):
            with pytest.raises(redis.exceptions.AuthenticationError):
                anonymous.get("orrery:config")
            anonymous.close()
        for private in (CREDENTIALS_FILE, ACL_FILE):
            assert stat.S_IMODE((data / private).stat().st_mode) == 0o600
        assert "password" not in (data / ACL_FILE).read_text().lower()
        operator = redis.Redis.from_url(with_folder_password(url, data))
        assert operator.ping() and operator.acl_whoami() == "orrery-admin"
        operator.close()
        assert (data / "appendonlydir").exists()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_demo_json_plays_complete_games_of_every_game(tmp_path: Path) -> None:
    result = orrery(
        "demo", "--games", "1", "--json", "--seed", "5", "--data-dir", str(tmp_path),
        cwd=Path.cwd(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    document = json.loads(result.stdout)
    assert sorted(t["game"] for t in document["tables"]) == sorted(BUILTIN)
    for table in document["tables"]:
        assert len(table["seats"]) == 3 == len(table["scores"])
        assert 1 in table["ranks"] and table["table_id"]
    # the tables stay in the data folder: a rebuild there finds them
    rebuilt = orrery("projections", "rebuild", "--data-dir", str(tmp_path), cwd=Path.cwd())
    assert rebuilt.returncode == 0, rebuilt.stderr[-3000:]
    assert f"of {len(BUILTIN)} tables" in rebuilt.stdout


def test_every_shipped_game_is_installed() -> None:
    from games.registry import all_games

    assert set(BUILTIN) <= set(all_games())


def _descendants(pid: int) -> list[int]:
    """The pids of ``pid``'s children, their children, and so on (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat_line = stat_file.read_text()
        except OSError:
            continue  # gone meanwhile
        ppid = int(stat_line.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(stat_file.parent.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def _secrets_in(doc: object) -> set[str]:
    """Every password in a credentials document (the operator's and any role's)."""
    if isinstance(doc, dict):
        found = {str(v) for k, v in doc.items() if k == "password" and v}
        return found.union(*(_secrets_in(v) for v in doc.values()))
    return set()


def test_serve_runs_each_role_as_its_own_user_with_no_password_on_a_command_line(
    tmp_path: Path,
) -> None:
    """Every process ``serve`` starts gets its URL by environment: no password (the
    operator's or a role's) in any command line, and each role's URL names its own
    Redis user, as which it is connected."""
    process = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "serve", "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path.cwd())},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("redis://orrery-admin@")
        assert process.stdout.readline().startswith("http://")  # every child started
        passwords = _secrets_in(json.loads((tmp_path / "data" / CREDENTIALS_FILE).read_text()))
        assert passwords
        roles = {
            "worker", "projector", "timekeeper", "archiver", "gateway", "bots", "matchmaker",
            "notifier",
        }  # fmt: skip
        # the notifiers' Web Push key, made in the data folder at first start
        assert stat.S_IMODE((tmp_path / "data" / "vapid.key").stat().st_mode) == 0o600
        for _ in range(50):  # a child forked a moment ago may not show its own program yet
            command_lines = {}
            for pid in [process.pid, *_descendants(process.pid)]:
                try:
                    command_lines[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
                except OSError:
                    continue
            started = {word for line in command_lines.values() for word in line.split("\0")}
            if roles <= started:
                break
            time.sleep(0.2)
        assert roles <= started, command_lines
        for pid, line in command_lines.items():
            for password in passwords:
                assert password not in line, f"a password on the command line of {pid}"
            assert "redis://" not in line and "--redis-url" not in line, line
        # each role's process has its own user's URL in its environment
        users = {}
        for pid, line in command_lines.items():
            argv = line.split("\0")
            if "orrery.cli" in argv and argv[argv.index("orrery.cli") + 1] in roles:
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                found = dict(e.decode().partition("=")[::2] for e in environ if b"=" in e)
                users[argv[argv.index("orrery.cli") + 1]] = urlsplit(found["ORRERY_REDIS_URL"])
        assert {role: url.username for role, url in users.items()} == {
            role: f"orrery-{role}" for role in roles
        }
        assert all(url.password in passwords for url in users.values())
        # and connects as it (the operator's own connection aside)
        data = tmp_path / "data"
        operator = redis.Redis.from_url(with_folder_password(url, data))
        try:
            for _ in range(100):
                connected = {c["user"] for c in operator.client_list()}
                if {f"orrery-{role}" for role in roles} <= connected:
                    break
                time.sleep(0.2)
            assert connected == {f"orrery-{role}" for role in roles} | {"orrery-admin"}
            assert [c["user"] for c in operator.client_list()].count("orrery-admin") == 1
        finally:
            operator.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


class _RecordedPopen:
    """Stands for ``subprocess.Popen``: records argv and env, starts nothing."""

    started: list[tuple[list[str], dict[str, str]]] = []

    def __init__(self, argv: list[str], env: dict[str, str], **_: object) -> None:
        self.started.append((list(argv), dict(env)))
        self.pid = 0
        self.stdout = io.BytesIO(b"http://127.0.0.1:1\n")

    def poll(self) -> int:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0


async def test_the_spawn_helpers_pass_the_url_by_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ``serve``, ``demo``, ``bench`` and the cluster drill start: the URL (and its
    password) in ``$ORRERY_REDIS_URL``, never in the command line."""
    from orrery import runtime

    async def prepared(*_: object) -> int:
        return 4

    monkeypatch.setattr(runtime.subprocess, "Popen", _RecordedPopen)
    monkeypatch.setattr(runtime, "prepare", prepared)
    _RecordedPopen.started.clear()
    url = "redis://orrery-admin:s3cret-pw@127.0.0.1:6379/0"
    runtime.spawn("worker", url, 0, {"ORRERY_LOG_LEVEL": "warning"})
    await runtime.gateway_processes(url, 0)
    async with runtime.service(url, 1, 1, None, 1, 1):
        pass
    assert len(_RecordedPopen.started) == 7
    for argv, env in _RecordedPopen.started:
        assert not any("s3cret-pw" in word or "redis://" in word for word in argv), argv
        assert "--redis-url" not in argv
        assert env["ORRERY_REDIS_URL"] == url
