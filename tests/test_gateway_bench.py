"""Smoke test of ``orrery bench gateway`` on a tiny configuration: it runs end to end
and reports every client kind and the push figure. No speed is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench


def test_bench_gateway_runs_and_reports_every_client_kind() -> None:
    # more updates than one one-seat game has moves (~30): the spectators watch the next
    small = ["--commands", "6", "--tables", "2", "--spectators", "3", "--updates", "45"]
    small += ["--rounds", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "bench", "gateway", "--json", *small],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert [p["kind"] for p in result["phases"]] == ["sdk", "http", "ws", "httpx"]
    assert result["rounds"] == 2
    for phase in result["phases"]:
        # pooled over the rounds: each round's drivers send 3 commands at least
        assert phase["commands"] >= 6 and phase["commands_per_s"] > 0
        assert phase["p99_ms"] >= phase["p50_ms"] > 0
        # CPU per command: the gateway process's (it served these phases) and the clients'
        assert phase["client_cpu_us"] > 0 and phase["gateway_cpu_us"] >= 0
        if phase["kind"] != "sdk":
            assert phase["gateway_cpu_us"] > 0
    push = result["push"]
    assert push["spectators"] == 3 and push["updates"] == 45 and push["tables"] >= 1
    assert push["frames"] >= push["updates"]
    # the measured cost of a sign-in, with OWASP's argon2id parameters
    cost = result["sign_in"]
    assert (cost["memory_kib"], cost["time_cost"], cost["parallelism"]) == (19456, 2, 1)
    assert cost["ms"] > 0 and cost["library_default_ms"] > 0


def test_the_gateway_bench_prints_its_targets_beside_its_figures() -> None:
    from orrery.bench.gateway import render

    def phase(kind: str, per_s: float, p99: float) -> dict[str, object]:
        return {
            "kind": kind,
            "commands": 10,
            "commands_per_s": per_s,
            "p50_ms": 1,
            "p99_ms": p99,
            "gateway_cpu_us": 1234 if kind != "sdk" else None,
            "client_cpu_us": 567,
        }

    result = {
        "tables": 2,
        "game": "fractured_sky",
        "phases": [
            phase("sdk", 100.0, 10.0),
            phase("http", 70.0, 25.0),
            phase("ws", 50.0, 15.0),
            phase("httpx", 40.0, 30.0),
        ],
        "push": {"spectators": 3, "tables": 1, "frames": 4, "updates": 4, "p50_ms": 1, "p99_ms": 2},
        "sign_in": {
            "memory_kib": 19456,
            "time_cost": 2,
            "parallelism": 1,
            "ms": 30,
            "library_default_ms": 40,
        },
    }
    rows = {line.split()[0]: line for line in render(result).splitlines()}
    assert "met" not in rows["sdk"] and rows["sdk"].split()[6:] == ["-", "567"]
    assert rows["http"].endswith("÷ sdk ≥ 0.60 (met), p99 ≤ 20.0 (not met)")
    assert rows["ws"].endswith("÷ sdk ≥ 0.60 (not met), p99 ≤ 20.0 (met)")
    # the gateway's and the clients' CPU per command beside each row
    assert rows["http"].split()[6:8] == ["1234", "567"]
    # the httpx row is for scale: the targets are for the http and ws rows
    assert "met" not in rows["httpx"] and "httpx" in rows["httpx"].split("(")[-1]


def test_the_client_kinds_take_turns_and_none_always_plays_first() -> None:
    from orrery.bench.gateway import KINDS, turn_order

    assert turn_order(0) == ("sdk", "http", "ws", "httpx") == KINDS
    assert turn_order(1) == ("httpx", "ws", "http", "sdk")
    # over two rounds every kind holds the same mean place: none gains from its place
    places = {kind: [turn_order(r).index(kind) for r in (0, 1)] for kind in KINDS}
    assert {sum(p) for p in places.values()} == {len(KINDS) - 1}
    assert turn_order(2) == turn_order(0)
