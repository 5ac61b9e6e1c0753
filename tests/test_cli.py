"""The command line as a user runs it: serve, demo --json (every game), schema, rebuild."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import redis

from games.registry import BUILTIN


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
        assert url.startswith("redis://127.0.0.1:") and url.endswith("/0")
        assert redis.Redis.from_url(url).ping()
        assert (tmp_path / "data" / "appendonlydir").exists()
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
