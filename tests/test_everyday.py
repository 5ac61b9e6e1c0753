"""Everyday use of the command line: one server per data folder (a running `serve` is
used by later commands; a stale record is replaced), a second demo with the same seed
plays new tables, user errors are one line without a traceback, and help shows flags
bare."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from orrery.arguments import parse_options
from orrery.errors import UserError
from orrery.server.credentials import with_folder_password
from orrery.server.folder import RECORD

pytestmark = pytest.mark.service

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "ORRERY_LOG_LEVEL": "warning"}


def orrery(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
    )


def _tables(url: str) -> set[str]:
    client = redis.Redis.from_url(url)
    try:
        found: set[str] = set()
        for key in client.scan_iter("orrery:{*}:tables"):
            found |= {m.decode() for m in client.smembers(key)}
        return found
    finally:
        client.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """``orrery serve`` in a data folder: the folder and the URL it printed; stopped with
    SIGTERM (exit 0), after which its record is gone."""
    serve = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "serve", "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    try:
        assert serve.stdout is not None
        url = serve.stdout.readline().strip()
        record = json.loads((tmp_path / "data" / RECORD).read_text())
        assert record["url"] == url and record["owner_pid"] == serve.pid
        yield tmp_path, url
        # the record names the running server only while it runs
        assert (tmp_path / "data" / RECORD).exists()
    finally:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=30) == 0
    assert not (tmp_path / "data" / RECORD).exists()


def demo_twice(folder: Path) -> None:
    """Two demos in the folder with one seed: both play, on the running server."""
    for _ in range(2):
        demo = orrery(
            "demo", "--game", "tiny", "--players", "2", "--seed", "11", "--json",
            "--data-dir", str(folder),
        )  # fmt: skip
        assert demo.returncode == 0, demo.stderr[-2000:]


def test_commands_in_a_folder_use_its_running_server(served: tuple[Path, str]) -> None:
    folder, url = served
    demo_twice(folder)
    assert len(_tables(with_folder_password(url, folder / "data"))) == 2
    # status without a URL: the folder's running server
    status = orrery("status", "--json", "--data-dir", str(folder))
    assert status.returncode == 0, status.stderr[-2000:]
    doc = json.loads(status.stdout)
    assert doc["url"] == url and sum(r["tables_finished"] for r in doc["rows"]) == 2
    # the URL serve printed names the user without its password: a command given it in
    # the same folder fills the password in
    archived = orrery(
        "archive", "run", "--older-than", "0", "--redis-url", url, "--data-dir", str(folder)
    )
    assert archived.returncode == 0, archived.stderr[-2000:]
    archived = orrery("archive", "status", "--json", "--redis-url", url, "--data-dir", str(folder))
    assert json.loads(archived.stdout)["tables"] == 2, archived.stdout


@pytest.mark.slow
def test_every_folder_command_uses_its_running_server(served: tuple[Path, str]) -> None:
    folder, url = served
    demo_twice(folder)
    # repair and trim without a URL: the folder's running server too
    for command in ("repair", "trim"):
        assert orrery(command, "--data-dir", str(folder)).returncode == 0
    # every command given the printed URL in the same folder fills the password in
    given = ("--redis-url", url, "--data-dir", str(folder))
    for command in (
        ("status", "--json"),
        ("repair",),
        ("trim",),
        ("archive", "status"),
        ("archive", "run", "--older-than", "0"),
        ("ratings", "rebuild", "tiny"),
    ):
        done = orrery(*command, *given)
        assert done.returncode == 0, (command, done.stderr[-2000:])
    archived = orrery("archive", "status", "--json", *given)
    assert json.loads(archived.stdout)["tables"] == 2, archived.stdout
    # an archive that cannot be reached: one line naming it, exit 2
    down = "postgresql://postgres@127.0.0.1:1/x"
    for command in (("archive", "run"), ("archive", "status")):
        done = orrery(*command, "--archive-url", down, *given, timeout=60)
        assert done.returncode == 2, (command, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "127.0.0.1:1" in done.stdout + done.stderr


def test_a_stale_record_is_replaced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    # a record left by an owner that is gone (its lock is free), naming nothing that runs
    (data / RECORD).write_text(
        json.dumps({"url": "redis://127.0.0.1:1/0", "owner_pid": 1, "server_pid": 0})
    )
    demo = orrery("demo", "--game", "tiny", "--players", "2", "--json", "--data-dir", str(tmp_path))
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert json.loads(demo.stdout)["tables"][0]["table_id"].startswith("tiny-")
    assert not (data / RECORD).exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("demo", "--game", "chess"), "unknown game 'chess'; choose --game "),
        (("demo", "--game", "tiny", "--players", "9"), "tiny seats 1-4 players, not 9"),
        (("demo", "--game", "tiny", "--options", "nope"), "--options takes key=value"),
        (("cluster", "up", "--nodes", "2"), "a cluster needs at least 3 masters, not 2"),
    ],
)
def test_user_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    folder = "--state-dir" if args[0] == "cluster" else "--data-dir"
    done = orrery(*args, folder, str(tmp_path), timeout=60)
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_partition_mismatch_is_one_line(tmp_path: Path) -> None:
    from orrery.server.embedded import EmbeddedServer

    with EmbeddedServer(tmp_path) as server:
        assert orrery("repair", "--redis-url", server.url, "--partitions", "8").returncode == 0
        done = orrery("worker", "--redis-url", server.url, "--partitions", "16", timeout=60)
    assert done.returncode == 2
    assert "initialised with 8 partitions, not 16" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_shows_flags_bare() -> None:
    done = orrery("demo", "--help", timeout=60)
    assert "--json" in done.stdout and "<bool>" not in done.stdout


def test_options_parse_pairs_and_json() -> None:
    assert parse_options(["difficulty=hard", "max_cards=3"]) == {
        "difficulty": "hard",
        "max_cards": 3,
    }
    assert parse_options(['{"variant": "advanced"}']) == {"variant": "advanced"}
    with pytest.raises(UserError):
        parse_options(["[1]"])


def test_a_worker_logs_one_line_at_start_and_at_stop(tmp_path: Path) -> None:
    from orrery.server.credentials import shown_url
    from orrery.server.embedded import EmbeddedServer

    assert shown_url("redis://app:s3cret@h:6379/0") == "redis://app@h:6379/0"
    assert shown_url("redis://h:6379/0") == "redis://h:6379/0"
    with EmbeddedServer(tmp_path) as server:
        worker = subprocess.Popen(
            [sys.executable, "-m", "orrery.cli", "worker", "--redis-url", server.url],
            stderr=subprocess.PIPE,
            text=True,
            env={**ENV, "ORRERY_LOG_LEVEL": "info", "ORRERY_CONSUMER": "w-test"},
        )
        assert worker.stderr is not None
        started = json.loads(worker.stderr.readline())
        worker.send_signal(signal.SIGTERM)
        _, rest = worker.communicate(timeout=30)
    assert started["event"] == "process_started"
    assert started["role"] == "worker" and started["consumer"] == "w-test"
    assert started["partitions"] == 16 and started["redis"] == server.url
    lines = [json.loads(line) for line in rest.splitlines() if line.startswith("{")]
    assert lines[-1]["event"] == "process_stopped" and lines[-1]["consumer"] == "w-test"


def test_a_worker_started_before_the_init_job_records_the_configured_partitions(
    tmp_path: Path,
) -> None:
    """The Kubernetes race: workers and the init Job read P from one ConfigMap."""
    import time

    from orrery.server.embedded import EmbeddedServer

    with EmbeddedServer(tmp_path) as server:
        env = {**ENV, "ORRERY_PARTITIONS": "64", "ORRERY_REDIS_URL": server.url}
        worker = subprocess.Popen(
            [sys.executable, "-m", "orrery.cli", "worker"], stderr=subprocess.DEVNULL, env=env
        )
        try:
            client = redis.Redis.from_url(server.url)
            deadline = time.monotonic() + 60
            while client.hget("orrery:config", "partitions") is None:
                assert time.monotonic() < deadline and worker.poll() is None
                time.sleep(0.1)
            assert client.hget("orrery:config", "partitions") == b"64"
            client.close()
            job = orrery("repair", "--redis-url", server.url, "--partitions", "64", timeout=60)
            assert job.returncode == 0, job.stderr
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(30)


def _servers_of(folder: Path) -> list[int]:
    """Pids of the embedded servers working in ``folder`` (a server's working directory is
    its ``--dir``; its command line is rewritten to a title once it runs)."""
    inside = str(folder.resolve())
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes()
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue  # gone, or not ours to read
        if b"valkey-server" in args and cwd.startswith(inside):
            found.append(int(proc.name))
    return found


@pytest.mark.parametrize("moment", ["server_started", "url_printed"])
def test_sigterm_while_serve_starts_leaves_no_server_running(tmp_path: Path, moment: str) -> None:
    """SIGTERM the moment the embedded server exists (serve still waits for it to answer,
    or starts the workers), or the moment its URL is printed: serve exits and stops it."""
    import time

    data = tmp_path / "data"
    args = ["serve", "--no-gateway", "--archivers", "0", "--data-dir", str(data)]
    serve = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    try:
        deadline = time.monotonic() + 120
        if moment == "server_started":
            while not _servers_of(data) and serve.poll() is None:
                assert time.monotonic() < deadline, "no embedded server started"
                time.sleep(0.005)
        else:
            assert serve.stdout is not None
            assert serve.stdout.readline().startswith(b"redis://")
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=120)
    finally:
        serve.kill()
        serve.wait()
    deadline = time.monotonic() + 15
    while _servers_of(data):
        assert time.monotonic() < deadline, f"left running: {_servers_of(data)}"
        time.sleep(0.1)
