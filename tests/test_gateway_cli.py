"""``orrery serve`` starts a gateway and a bot runner too: its second stdout line is the
gateway's URL; the server key is generated once and kept in the data folder."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from gateway.settings import load_secret_key

pytestmark = pytest.mark.gateway


def test_serve_prints_the_gateway_url_second(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    env.pop("ORRERY_SECRET_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "serve", "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("redis://orrery-admin@127.0.0.1:")
        base = process.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:")
        assert httpx.get(f"{base}/healthz", timeout=10).json() == {"status": "ok"}
        key = tmp_path / "data" / "secret.key"
        assert len(key.read_text().strip()) >= 32
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_the_generated_key_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORRERY_SECRET_KEY", raising=False)
    first = load_secret_key(tmp_path)
    assert load_secret_key(tmp_path) == first
    monkeypatch.setenv("ORRERY_SECRET_KEY", "from-the-environment")
    assert load_secret_key(tmp_path) == "from-the-environment"


def test_serve_plays_archives_and_replays_a_game_each_role_as_its_own_user(
    tmp_path: Path,
) -> None:
    """Through ``orrery serve``, whose every process connects as its role's Redis user: a
    player signs up, gets a bot for the other seat (the bot runner), chats and plays to
    the end; the archiver moves the table to the archive, whose replay and chat the
    gateway then shows; no process was refused anything."""
    import asyncio
    import json as json_module

    import redis

    from orrery.server.credentials import with_folder_password
    from orrery_contracts import keys
    from tests.support.gateway import play_to_end, sign_up, unique

    log = tmp_path / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "ORRERY_ARCHIVE_AFTER_S": "1"}
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "orrery.cli", "serve", "--data-dir", str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
        )
    try:
        assert process.stdout is not None
        url = with_folder_password(process.stdout.readline().strip(), tmp_path / "data")
        base = process.stdout.readline().strip()

        async def play() -> str:
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                ann = await sign_up(http, unique("Ann"))
                table = (await ann.create_table("tiny", 2))["table_id"]
                assert await ann.join(table) == 0 and await ann.bot(table) == 1
                await ann.start(table)
                said = await ann.post(f"/v1/tables/{table}/chat", {"text": "good luck"})
                assert said.status_code == 201, said.text
                final = await play_to_end(ann, table, via="http")
                assert final["phase"] == "finished"
                return str(table)

        table = asyncio.run(play())
        operator = redis.Redis.from_url(url)
        tombstone = keys.tombstone_key(keys.partition_of(table, 16), table)
        for _ in range(600):
            if operator.exists(tombstone):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the archiver did not archive the finished table")
        operator.close()

        async def read_back() -> None:
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                reader = await sign_up(http, unique("Reader"))
                replay = await reader.get(f"/v1/tables/{table}/replay", at=2)
                assert replay.status_code == 200, replay.text
                chat = await reader.get(f"/v1/tables/{table}/chat")
                assert [m["text"] for m in chat.json()["messages"]] == ["good luck"]

        asyncio.run(read_back())
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    lines = log.read_text()
    assert "noperm" not in lines.lower() and "no permissions" not in lines.lower(), lines[-3000:]
    assert not [
        line
        for line in lines.splitlines()
        if line.startswith("{") and json_module.loads(line).get("level") == "error"
    ], lines[-3000:]
