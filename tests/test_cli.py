"""The command line as a user runs it: serve, demo --json (every game), schema, rebuild."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from games.registry import BUILTIN
from orrery.server.credentials import ACL_FILE, CREDENTIALS_FILE, with_folder_password


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
