"""``orrery serve`` starts a gateway and a bot runner too: its second stdout line is the
gateway's URL; the server key is generated once and kept in the data folder."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gateway.settings import load_secret_key


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
