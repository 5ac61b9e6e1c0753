"""Smoke test of ``orrery bench gateway`` on a tiny configuration: it runs end to end
and reports every client kind and the push figure. No speed is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_bench_gateway_runs_and_reports_every_client_kind() -> None:
    small = ["--commands", "6", "--tables", "2", "--spectators", "3", "--updates", "4"]
    done = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "bench", "gateway", "--json", *small],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert [p["kind"] for p in result["phases"]] == ["sdk", "http", "ws"]
    for phase in result["phases"]:
        assert phase["commands"] >= 6 and phase["commands_per_s"] > 0
        assert phase["p99_ms"] >= phase["p50_ms"] > 0
    push = result["push"]
    assert push["spectators"] == 3 and push["frames"] >= push["updates"] > 0
    # the measured cost of a sign-in, with OWASP's argon2id parameters
    cost = result["sign_in"]
    assert (cost["memory_kib"], cost["time_cost"], cost["parallelism"]) == (19456, 2, 1)
    assert cost["ms"] > 0 and cost["library_default_ms"] > 0
