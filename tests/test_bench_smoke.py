"""Every ``orrery bench …`` subcommand runs end to end with small sizes, its defaults
included (a subcommand whose test used other sizes than its defaults could crash with
them unseen).

Each subcommand has one smoke run, listed in :data:`SMOKE_RUNS`: the ones with detailed
tests elsewhere are named there (not run twice), the others run here. A subcommand added
without a smoke run fails :func:`test_every_bench_subcommand_has_a_smoke_run`. No speed
is asserted.
"""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path

import pytest

from orrery.bench.scale import CPU_PARTS, TARGETS
from orrery.cli import bench_app
from tests.support.cli import run_orrery

pytestmark = pytest.mark.bench

# subcommand ("" is `orrery bench` itself) -> the test that runs it with small sizes
SMOKE_RUNS = {
    "": "tests.test_bench:test_bench_service_prints_the_table_and_cleans_the_baseline_db",
    "rules": "tests.test_bench:test_bench_rules_prints_every_game_with_targets",
    "gateway": "tests.test_gateway_bench:test_bench_gateway_runs_and_reports_every_client_kind",
    "replay": "tests.test_bench_smoke:test_bench_replay_runs_with_its_default_size",
    "scale": "tests.test_bench_smoke:test_bench_scale_runs_every_target",
    "archive": "tests.test_bench:test_bench_archive_archives_every_game_and_prints_its_figures",
    "matchmaking": "tests.test_bench_smoke:test_bench_matchmaking_runs_with_its_defaults",
    "bots": "tests.test_bench_bots:test_bench_bots_prints_every_matchup_and_level",
    "tournament": "tests.test_tournament_bench:test_bench_tournament_runs",
    "capacity": "tests.test_capacity_bench:test_bench_capacity_runs_a_small_ramp_with_its_baseline",
}


def orrery(*args: str) -> subprocess.CompletedProcess[str]:
    return run_orrery(*args, timeout=300)


def test_every_bench_subcommand_has_a_smoke_run() -> None:
    subcommands = {"", *(command.name or "" for command in bench_app.registered_commands)}
    assert set(SMOKE_RUNS) == subcommands
    for target in SMOKE_RUNS.values():
        module, name = target.split(":")
        assert callable(getattr(importlib.import_module(module), name)), target


def test_bench_replay_runs_with_its_default_size() -> None:
    # the default 1,000 events cut a Federation command in two (KeyError: 'fx_die'): the
    # table is cut at the command end before
    done = orrery("bench", "replay", "--repeat", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    rows = [line for line in done.stdout.splitlines() if "replay as a seat" in line]
    assert len(rows) == 1
    events = int(rows[0].split("│")[2].replace(",", ""))
    assert 900 < events <= 1000
    assert f"target: load a {events:,}-event table" in done.stdout
    tiny = orrery("bench", "replay", "--repeat", "1", "--events", "1")
    assert tiny.returncode == 0, tiny.stderr[-3000:]
    assert "target: load a 1-event table" in tiny.stdout


@pytest.mark.parametrize(
    "workers",
    [
        pytest.param([1], id="1-worker"),
        # its defaults, 1 and 2 workers: twice as long (30 s on 2 cores)
        pytest.param([], id="default-workers", marks=pytest.mark.slow),
    ],
)
def test_bench_scale_runs_every_target(tmp_path: Path, workers: list[int]) -> None:
    done = orrery(
        "bench", "scale", "--tables", "1", "--games", "2", "--json", "--data-dir", str(tmp_path),
        *(option for n in workers for option in ("--workers", str(n))),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(done.stdout)
    figures = doc["runs"]
    counts = workers or [1, 2]
    assert [(f["target"], f["workers"]) for f in figures] == [
        (target, n) for n in counts for target in ("standalone", "cluster-3")
    ]
    for f in figures:
        assert f["burst_per_s"] > 0 and f["play_per_s"] > 0 and f["baseline_per_s"] > 0
        # the one table slot played its two games in turn
        assert f["finished"] == 2 and f["bytes_per_game"] > 0
        # every play command costs its bot's send and the worker's append at least
        assert f["play_round_trips"] >= 2
        # each part of the target did work over its rounds, counted per play command
        assert sorted(f["play_cpu_us"]) == sorted(CPU_PARTS)
        assert all(us > 0 for us in f["play_cpu_us"].values()), f["play_cpu_us"]
    # per worker count, the cluster's figures over the standalone ones of the same run
    assert [(r["run"], r["workers"]) for r in doc["ratios"]] == [(1, n) for n in counts]
    assert all(r["play_ratio"] > 0 and r["errors"] >= 0 for r in doc["ratios"])
    by_target = {(f["workers"], f["target"]): f for f in figures}
    for r in doc["ratios"]:
        cpu = [sum(by_target[r["workers"], t]["play_cpu_us"].values()) for t in TARGETS]
        assert r["cpu_ratio"] == pytest.approx(cpu[1] / cpu[0])


def test_bench_matchmaking_runs_with_its_defaults() -> None:
    done = orrery("bench", "matchmaking", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert figures["tickets"] == 10_000 and figures["two_seat_tables"] > 1000
    # the matcher pairs neighbours: far closer than a random pairing of the same pool
    assert 0 < figures["matcher_spread"] < figures["random_spread"]
    # a pass is timed beside a random pairing of the same pools (wall clock and CPU)
    assert figures["cycle_p50_ms"] <= figures["cycle_p99_ms"]
    assert 0 < figures["random_cycle_p50_ms"] <= figures["random_cycle_p99_ms"]
    assert 0 < figures["cycle_cpu_p50_ms"] <= figures["cycle_cpu_p99_ms"]
    assert figures["matched"] > 0 and figures["wait_p50_s"] <= figures["wait_p95_s"]
    assert 0 <= figures["bot_seat_share"] <= 1
    table = orrery("bench", "matchmaking", "--tickets", "300", "--cycles", "2", "--seconds", "30")
    assert table.returncode == 0, table.stderr[-3000:]
    assert "random" in table.stdout and "spread" in table.stdout and "p95" in table.stdout
