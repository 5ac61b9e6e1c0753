"""``orrery bench capacity`` on a tiny ramp: it runs end to end against real gateway
processes and the raw baseline server, and reports every figure of every step. No
speed is asserted. (The plan of tables and the printed targets: the unit tests below
run in the default run.)"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orrery.bench.capacity import SPECTATORS_PER_TABLE, plan_tables, render

TIER = "unit"  # its slow and bench runs are of those tiers (tests/conftest.py)

STEP_KEYS = {
    "clients",
    "connections",
    "push_p50_ms",
    "push_p99_ms",
    "answer_p99_ms",
    "errors",
    "dropped",
    "server_kib_per_connection",
    "redis_kib_per_table",
    "redis_table_keys_kib",
    "cpu_percent",
    "held",
}


@pytest.mark.bench
@pytest.mark.parametrize("gateways", [1, 2])
def test_bench_capacity_runs_a_small_ramp_with_its_baseline(gateways: int) -> None:
    small = ["--steps", "6,12", "--window", "3", "--think", "0.2,1", "--generators", "1"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "orrery.cli",
            "bench",
            "capacity",
            "--json",
            "--gateways",
            str(gateways),
            *small,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["gateways"] == gateways and result["open_files"] >= 1024
    for kind in ("orrery", "raw"):
        steps = result[kind]["steps"]
        assert [s["clients"] for s in steps][:1] == [6]
        for step in steps:
            assert set(step) >= STEP_KEYS
            # two sockets per client, every one open
            assert step["connections"] == 2 * step["clients"]
            assert step["push_p99_ms"] >= step["push_p50_ms"] >= 0
            servers = [k for k in step["cpu_percent"] if k.startswith("server-")]
            assert len(servers) == gateways and "load-1" in step["cpu_percent"]
    assert result["orrery"]["steps"][0]["frames"] > 0
    assert result["raw"]["steps"][0]["frames"] > 0
    assert result["frame_bytes"] > 100  # the baseline's frames: the size of Orrery's views


def test_the_plan_seats_two_to_five_and_puts_spectators_on_the_busiest_tables() -> None:
    for clients in (1, 2, 7, 100, 1000):
        tables = plan_tables(clients, random.Random(clients))
        players = sum(t["seats"] for t in tables)
        spectators = sum(t["spectators"] for t in tables)
        assert players + spectators == clients or not tables
        assert all(2 <= t["seats"] <= 5 for t in tables)
        if clients >= 100:
            assert spectators == round(clients * 0.2)
            watched = [t for t in tables if t["spectators"]]
            assert max(t["spectators"] for t in tables) <= SPECTATORS_PER_TABLE
            # no table watched has fewer seats than one left unwatched
            unwatched = [t["seats"] for t in tables if not t["spectators"]]
            assert min(t["seats"] for t in watched) >= max(unwatched, default=0)


def _step(clients: int, p99: float, held: bool, kib: float = 20.0) -> dict[str, Any]:
    return {
        "clients": clients,
        "connections": 2 * clients,
        "push_p50_ms": p99 / 2,
        "push_p99_ms": p99,
        "answer_p99_ms": 30.0,
        "frames": 100,
        "errors": 0,
        "setup_errors": 0,
        "dropped": 0,
        "server_kib_per_connection": kib,
        "redis_kib_per_table": 40.0,
        "redis_table_keys_kib": 30.0,
        "cpu_percent": {"server-1": 50.0},
        "held": held,
    }


def test_the_capacity_bench_prints_its_targets_beside_its_figures() -> None:
    result = {
        "gateways": 2,
        "generators": 2,
        "window_s": 60.0,
        "think_s": [2.0, 20.0],
        "spectator_share": 0.2,
        "load_average": 1.5,
        "cores": 2,
        "open_files": 20000,
        "orrery": {
            "steps": [_step(5000, 120.0, True), _step(10000, 400.0, False, 40.0)],
            "held_clients": 5000,
            "held_connections": 10000,
        },
        "raw": {
            "steps": [_step(5000, 10.0, True), _step(10000, 20.0, True)],
            "held_clients": 10000,
            "held_connections": 20000,
        },
        "ratio": 0.5,
    }
    text = render(result)
    assert "orrery 5000 clients = 10000 connections, target ≥ 10000 connections (met)" in text
    assert "orrery ÷ raw: 0.5 (target ≥ 0.5 (met))" in text
    assert "40.0 KiB (the last step's) (target ≤ 32 (not met))" in text
    assert "Redis per live table: its own keys 30.0 KiB (target ≤ 64 (met)); all " in text
    assert "÷ live tables 40.0 KiB" in text
    assert sum("(not held)" in line for line in text.splitlines()) == 1
    result["orrery"]["steps"][1]["setup_failures"] = ["RuntimeError: 503 at_capacity"]
    assert "orrery 10000: a table's setup failed: RuntimeError: 503 at_capacity" in render(result)
    # past the first step, the memory figures are the largest held step's
    result["orrery"]["steps"] = [
        _step(1000, 20.0, True, 90.0),
        _step(2000, 30.0, True, 30.0),
        _step(5000, 400.0, False, 40.0),
    ]
    text = render(result)
    assert "30.0 KiB (the largest held step's) (target ≤ 32 (met))" in text
