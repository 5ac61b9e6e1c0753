"""The README's examples, run: the command envelope decodes as the schema says, and the
`valkey-cli` walk-through works line by line against the real service (with the
embedded server's own valkey-cli)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path

import msgspec

from games.codec import codec_for
from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.cluster import cli_binary
from orrery.server.embedded import EmbeddedServer
from orrery_contracts.envelope import CommandEnvelope
from tests.support.service import REPO

README = (REPO / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_the_envelope_example_is_a_valid_command() -> None:
    (example,) = [b for b in _blocks("json") if '"command_id"' in b]
    envelope = msgspec.json.decode(example.encode(), type=CommandEnvelope[msgspec.Raw])
    assert envelope.reply_to is not None and envelope.reply_to.startswith("orrery:reply:")
    body = codec_for("fractured_sky").decode_command(envelope.body, True)
    assert type(body).__name__ == "PlaceAirship"


def test_the_valkey_cli_walk_through(tmp_path: Path) -> None:
    (walk,) = [b for b in _blocks("sh") if "valkey-cli XADD" in b]
    lines = [line.split("  #")[0].strip() for line in walk.splitlines() if line.strip()]
    with EmbeddedServer(tmp_path) as server:
        asyncio.run(prepare(server.url, 16))
        env = {"PYTHONPATH": str(REPO), "ORRERY_LOG_LEVEL": "warning"}
        processes = [spawn("worker", server.url, 0, env), spawn("projector", server.url, 1, env)]
        try:
            outputs = [_run(line, server.port) for line in lines]
        finally:
            stop_processes(processes)
    assert outputs[0].strip() == "16"
    replies = outputs[3]
    outcomes = [json.loads(line) for line in replies.splitlines() if line.startswith("{")]
    assert [o["outcome"] for o in outcomes] == ["accepted", "accepted"]
    assert outcomes[1]["seat"] == 0 and "token" not in outcomes[1]
    # the view appears once the table has started (it has not: three seats, one taken)
    assert outputs[4].strip() == ""


def _run(line: str, port: int) -> str:
    """One README line through a shell, `valkey-cli` being the embedded server's."""
    command = line.replace("valkey-cli", f"{cli_binary()} -p {port}", 1)
    if "XREAD" in command:
        # wait for both outcomes: the worker answers within moments
        for _ in range(100):
            done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30)
            if done.stdout.count('"outcome"') >= 2:
                return done.stdout
        return done.stdout
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout
