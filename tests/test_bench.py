"""Smoke tests of ``orrery bench``, ``bench rules`` and ``bench replay`` on tiny configurations.

They check that each command runs end to end and prints its table (or JSON) with the
expected columns and rows. No speed is asserted: targets live in the printed output.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from typer.testing import CliRunner

from orrery.bench.archive import ArchiveFigures
from orrery.bench.archive import render as render_archive
from orrery.bench.service import COLUMNS as SERVICE_COLUMNS
from orrery.bench.service import CPU_COLUMNS
from orrery.cli import app
from orrery.server.embedded import EmbeddedServer

pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("fractured_sky", "spacecraft", "federation")
RULES_COLUMNS = ("game", "seats", "commands/s", "games/s", "view µs/seat", "baseline µs")
SERVICE_ROWS = (
    "service commands/s (closed loop)",
    "baseline commands/s (Redis only)",
    "service ÷ baseline",
    "each round: service ÷ baseline",
    "outcome latency p50 ms",
    "outcome latency p99 ms",
    "projection lag p50 ms",
    "projection lag p99 ms",
    "half rate: outcome latency p99 ms",
    "half rate: projection lag p99 ms",
    "half rate: AOF rewrites in the window",
    "per-command CPU: service ÷ baseline",
    "server commands per command: service / baseline",
    "server round trips per command: service / baseline",
    "AOF KB appended per command: service / baseline",
)


def orrery(*args: str, timeout: float = 60) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


def test_bench_rules_prints_every_game_with_targets() -> None:
    out = orrery("bench", "rules", "--seconds", "0")
    lines = out.splitlines()
    header = lines[0]
    for column in RULES_COLUMNS:
        assert column in header
    for game in GAMES:
        row = next(line for line in lines if line.startswith(game))
        cells = row.split()
        assert int(cells[1]) == 4  # four seats in each of the three games
        assert int(cells[2]) == 1  # --seconds 0: exactly one game
        assert number(cells[3]) > 0
        # every ratio beside its target: play, games/s, view + legal (at most), clone
        assert row.count("(≥") == 2 and row.count("(≤") == 2
    target = next(line for line in lines if line.startswith("target"))
    assert "10,000" in target and "100" in target


def test_bench_rules_json_for_one_game() -> None:
    figures = json.loads(
        orrery("bench", "rules", "--game", "spacecraft", "--seconds", "0", "--json")
    )
    assert [f["game"] for f in figures] == ["spacecraft"]
    (f,) = figures
    assert f["games"] == 1 and f["commands"] == round(f["commands_per_game"])
    assert f["commands_per_s"] > 0 and f["view_us"] > 0 and f["baseline_us"] > 0
    assert f["ratio"] == f["commands_per_s"] / f["baseline_per_s"]
    assert f["platform_commands_per_s"] > 0 and f["clone_us"] > 0 and f["one_view_us"] > 0
    assert f["view_ratio"] == f["view_us"] / f["baseline_us"]


def test_bench_rejects_an_unknown_game() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "bench", "rules", "--game", "chess"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert "--game" in done.stderr


def test_bench_service_prints_the_table_and_cleans_the_baseline_db(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path / "valkey") as server:
        out = orrery(
            "bench",
            "--tables", "2",
            "--seats", "2",
            "--seconds", "1.5",  # 0.5 s a round: each of the three sees commands
            "--redis-url", server.url,
        )  # fmt: skip
        baseline_keys = asyncio.run(_dbsize(server.url.replace("/0", "/1")))
    lines = out.splitlines()
    assert lines[0].startswith("orrery bench: fractured_sky; 2 tables x 2 seats")
    header = next(line for line in lines if line.startswith("metric"))
    assert header.split() == list(SERVICE_COLUMNS)
    rows = {}
    for line in lines:
        for name in SERVICE_ROWS:
            if line.startswith(name):
                rows[name] = line[len(name) :].split()
    assert set(rows) == set(SERVICE_ROWS)
    assert number(rows["service commands/s (closed loop)"][0]) > 0
    assert number(rows["baseline commands/s (Redis only)"][0]) > 0
    assert rows["service ÷ baseline"][1:] == ["≥", "0.30"]
    # the default 3 rounds of turns, each round's ratio beside the pooled one
    each_round = rows.pop("each round: service ÷ baseline")
    assert len(each_round) == 3 and all(number(r) > 0 for r in each_round)
    assert rows["half rate: outcome latency p99 ms"][1:] == ["≤", "10"]
    assert rows["half rate: projection lag p99 ms"][1:] == ["≤", "20"]
    assert rows["per-command CPU: service ÷ baseline"][1:] == ["≤", "3.5"]
    service_calls, slash, baseline_calls = rows.pop(
        "server commands per command: service / baseline"
    )
    assert slash == "/" and number(service_calls) > 0 and number(baseline_calls) > 0
    service_reads, slash, baseline_reads = rows.pop(
        "server round trips per command: service / baseline"
    )
    # a round trip carries one command or more
    assert slash == "/" and 0 < number(service_reads) <= number(service_calls)
    assert 0 < number(baseline_reads) <= number(baseline_calls)
    service_aof, slash, baseline_aof = rows.pop("AOF KB appended per command: service / baseline")
    # the embedded server keeps an AOF; the service's views make its appends the larger
    assert slash == "/" and number(service_aof) > number(baseline_aof) > 0
    assert all(re.fullmatch(r"[\d,.]+", cells[0]) for cells in rows.values())
    cpu_header = next(line for line in lines if line.startswith("CPU "))
    assert re.split(r"\s{2,}", cpu_header.strip()) == list(CPU_COLUMNS)
    for part in ("workers", "projectors", "bench client", "server"):
        assert any(line.startswith(part) for line in lines)
    # The baseline ran in db 1, which was empty before and is empty again.
    assert baseline_keys == 0


async def _dbsize(url: str) -> int:
    redis = aioredis.Redis.from_url(url)
    try:
        return int(await redis.dbsize())
    finally:
        await redis.aclose()


def test_bench_refuses_a_baseline_db_in_use(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path / "valkey") as server:
        asyncio.run(_put(server.url.replace("/0", "/3"), "someone:else", "keep"))
        done = subprocess.run(
            [
                sys.executable, "-m", "orrery.cli", "bench", "--json",
                "--tables", "1", "--seconds", "0.2", "--redis-url", server.url,
                "--baseline-db", "3",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )  # fmt: skip
        kept = asyncio.run(_get(server.url.replace("/0", "/3"), "someone:else"))
    assert done.returncode == 2
    assert "not empty" in done.stderr
    assert kept == b"keep"


async def _put(url: str, key: str, value: str) -> None:
    redis = aioredis.Redis.from_url(url)
    try:
        await redis.set(key, value)
    finally:
        await redis.aclose()


async def _get(url: str, key: str) -> bytes | None:
    redis: Any = aioredis.Redis.from_url(url)
    try:
        value = await redis.get(key)
        return None if value is None else bytes(value)
    finally:
        await redis.aclose()


def test_bench_archive_archives_every_game_and_prints_its_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = orrery(
        "bench", "archive", "--games", "3", "--json", "--scratch", str(tmp_path / "s"),
        timeout=300,
    )  # fmt: skip
    figures: dict[str, Any] = json.loads(out)
    assert figures["archive"] == "sqlite" and figures["games"] == 3 and figures["events"] > 0
    assert 0 < figures["archive_bytes_per_event"] < figures["raw_bytes_per_event"]
    assert figures["tombstone_bytes"] > 0 and figures["replay_events"] > 0
    assert set(figures["targets"]) == {
        "redis_bytes_per_archived_game", "archive_bytes_per_event", "games_per_s", "replay_ratio",
    }  # fmt: skip
    # the table printed without --json, from the same figures (a second run took 8 s)
    measured = {k: v for k, v in figures.items() if k != "targets"}
    render_archive(ArchiveFigures(**measured))
    table = capsys.readouterr().out
    for row in ("archive rate", "bytes/event", "tombstone", "replay of", "1,000,000"):
        assert row in table, table


def test_bench_replay_prints_its_table() -> None:
    result = CliRunner().invoke(app, ["bench", "replay", "--events", "200", "--repeat", "1"])
    assert result.exit_code == 0, result.output
    for measure in ("raw msgpack decode", "load: decode + fold", "audit:", "load from the server"):
        assert measure in result.output
    assert "target: load a 200-event table" in result.output
