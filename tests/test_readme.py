"""The examples of the README and of docs/, run: the command envelope of
docs/wire-contract.md decodes as the schema says, its `valkey-cli` walk-through works
line by line against the real service (with the embedded server's own valkey-cli), so
does docs/replay-audit.md's replay-and-audit block and docs/gateway.md's `curl`
walk-through; the README's own commands are the ones `dev.py` takes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from games.codec import codec_for
from orrery.runtime import prepare, spawn, stop_processes
from orrery.server.cluster import cli_binary
from orrery.server.embedded import EmbeddedServer
from orrery_contracts.envelope import CommandEnvelope
from tests.support.service import REPO

pytestmark = pytest.mark.service

README = REPO / "README.md"
WIRE = REPO / "docs" / "wire-contract.md"
REPLAY = REPO / "docs" / "replay-audit.md"
GATEWAY = REPO / "docs" / "gateway.md"


def _blocks(language: str, page: Path = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", page.read_text(), flags=re.DOTALL)


def test_the_readme_commands_are_dev_py_commands() -> None:
    """The quickstart's two commands are what dev.py runs, and every page the README
    sends a reader to is there."""
    (quickstart,) = [b for b in _blocks("sh") if "dev.py demo" in b]
    commands = [line.split("#")[0].split() for line in quickstart.splitlines() if line.strip()]
    assert commands == [["python3", "dev.py", "demo"], ["python3", "dev.py", "test"]]
    dev = (REPO / "dev.py").read_text()
    assert '"demo"' in dev and '"test"' in dev
    text = README.read_text()
    links = re.findall(r"\]\(((?:docs/|games/|clients/|CHANGELOG)[^)#]*)", text)
    assert len(links) > 10
    assert [link for link in links if not (REPO / link).exists()] == []
    assert len(text.splitlines()) <= 350


def test_the_envelope_example_is_a_valid_command() -> None:
    (example,) = [b for b in _blocks("json", WIRE) if '"command_id"' in b]
    envelope = msgspec.json.decode(example.encode(), type=CommandEnvelope[msgspec.Raw])
    assert envelope.reply_to is not None and envelope.reply_to.startswith("orrery:reply:")
    body = codec_for("fractured_sky").decode_command(envelope.body, True)
    assert type(body).__name__ == "PlaceAirship"


def test_the_valkey_cli_walk_through(tmp_path: Path) -> None:
    (walk,) = [b for b in _blocks("sh", WIRE) if "valkey-cli XADD" in b]
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
    """One line of the walk-through through a shell, `valkey-cli` being the embedded server's."""
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


def test_the_replay_and_audit_example(tmp_path: Path) -> None:
    """docs/replay-audit.md's four-line block, line by line in a fresh folder (its default
    data folder), the placeholder table id replaced by the demo's, "other" by a second
    server."""
    (block,) = [b for b in _blocks("sh", REPLAY) if "orrery audit" in b]
    lines = [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
    placeholder = re.search(r"orrery audit (\S+)", block)
    assert placeholder is not None and lines[0].startswith("orrery demo")
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(REPO)}

    def run(line: str) -> str:
        done = subprocess.run(
            line, shell=True, capture_output=True, text=True, timeout=180, cwd=tmp_path, env=env
        )
        assert done.returncode == 0, (line, done.stderr[-2000:])
        return done.stdout

    (table,) = json.loads(run(lines[0]))["tables"]
    with EmbeddedServer(tmp_path / "other") as other:
        outputs = [
            run(
                line.replace(placeholder.group(1), table["table_id"]).replace(
                    "redis://other:6379/0", other.url
                )
            )
            for line in lines[1:]
        ]
        imported = redis.Redis.from_url(other.url).keys(f"*{table['table_id']}:log")
    verdict = outputs[0].splitlines()[-1]  # as the page's comment says it
    assert re.fullmatch(r"PASSED: \d+ events verified, (\d+) of \1 commands re-decided", verdict)
    # as the page's comment says: where it stands, then the table as `orrery play` draws
    # it (the spectator's view after the command holding seq 40)
    header = re.match(r"seq 40 of (\d+) · as spectator\n", outputs[1])
    assert header is not None and int(header.group(1)) > 40
    assert f"SPACEcraft · table {table['table_id']}" in outputs[1]
    assert len(imported) == 1


def test_the_gateway_curl_walk_through(tmp_path: Path) -> None:
    """docs/gateway.md's walk-through, run by bash with curl and jq against `orrery serve`."""
    (block,) = [b for b in _blocks("sh", GATEWAY) if "curl -s -XPOST $G/v1/players" in b]
    commands = [
        c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip() and c[0] != "#"
    ]
    assert commands[0].startswith("G=http://127.0.0.1:8000")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    serve = subprocess.Popen(
        [sys.executable, "-m", "orrery.cli", "serve", "--http-port", "0", "--data-dir",
         str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        serve.stdout.readline()
        base = serve.stdout.readline().strip()
        script = [f"G={base}"] + [f"echo '@@'; {c}; echo" for c in commands[1:]]
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)], capture_output=True, text=True, timeout=120
        )
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    printed = [json.loads(a) if a.strip() else None for a in done.stdout.split("@@\n")[1:]]
    answers = dict(zip(commands[1:], printed, strict=True))  # the command -> what it printed

    def answer(fragment: str) -> Any:
        (found,) = [a for c, a in answers.items() if fragment in c and "TABLE=" not in c]
        return found

    assert not [a for a in printed if isinstance(a, dict) and "error" in a], answers
    assert answer("/v1/players  -d")["name"] == "Ada"
    assert answer("/join") == {"seat": 0} and answer("/bots") == {"seat": 1}
    assert answer("/start")["outcome"] == "accepted"
    assert answer("/commands")["outcome"] == "accepted"
    said = answer("/chat -H")
    assert said["seat"] == 0 and said["text"] == "good luck!"
    assert answer("/chat?limit")["messages"] == [said]
    view = answer("jq '{seq, to_move, legal}'")
    assert set(view) == {"seq", "to_move", "legal"} and view["legal"]
    queued = answer("# my tickets")["tickets"]
    assert [t["state"] for t in queued] == ["waiting"] and queued[0]["game"] == "fractured_sky"
    seated = answer("jq '{state, table_id, seat}'")
    assert seated["state"] == "matched" and seated["table_id"] and seated["seat"] is not None
    for fragment in ("replay?", "/players/me", "/leaderboard/", "state=open", "$TABLE -H"):
        assert all(a for c, a in answers.items() if fragment in c), fragment
