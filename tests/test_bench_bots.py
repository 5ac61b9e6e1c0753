"""``orrery bench bots`` end to end with small sizes: every game, every matchup, every
level's time per move, as a table and as JSON; ``--matchups`` plays only those named,
``--seed`` other games (the same seed the same games). No figure is asserted beyond its
shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.cli import run_orrery

pytestmark = pytest.mark.bench


def test_bench_bots_prints_every_matchup_and_level() -> None:
    done = run_orrery("bench", "bots", "--games", "1", "--budget-ms", "20", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for game in ("fractured_sky", "spacecraft", "federation"):
        assert sum(1 for line in out.splitlines() if line.startswith(game)) == 3
    for level in ("random", "greedy", "ismcts"):
        assert any(line.startswith(level) for line in out.splitlines())
    assert "baseline" in out and "p99 ≤ 1,000" in out


def test_bench_bots_json_for_one_game() -> None:
    done = run_orrery(
        "bench", "bots", "--game", "federation", "--games", "2", "--budget-ms", "10",
        "--max-iterations", "3", "--json", timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads(done.stdout)
    assert [m["game"] for m in doc["matchups"]] == ["federation"] * 3
    assert [m["key"] for m in doc["matchups"]] == [
        "greedy-random", "greedy-random-3", "ismcts-greedy",
    ]  # fmt: skip
    assert doc["seed"] == 0
    for m in doc["matchups"]:
        assert m["games"] == 2 and 0 <= m["low"] <= m["rate"] <= m["high"] <= 1
    levels = {t["level"]: t for t in doc["timing"]}
    assert set(levels) == {"random", "greedy", "ismcts"}
    assert all(t["moves"] > 0 and t["p50_ms"] <= t["p99_ms"] for t in levels.values())


def _greedy_rows(*args: str) -> dict[str, Any]:
    done = run_orrery(
        "bench", "bots", "--game", "federation", "--games", "3", "--json", *args, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_bench_bots_matchups_and_seed_choose_the_games() -> None:
    chosen = ("--matchups", "greedy-random-5,greedy-random")
    first = _greedy_rows(*chosen, "--seed", "7")
    assert [m["key"] for m in first["matchups"]] == ["greedy-random"]
    assert first["skipped"] == [{"game": "federation", "key": "greedy-random-5"}]
    assert {t["level"] for t in first["timing"]} == {"random", "greedy"}
    again = _greedy_rows(*chosen, "--seed", "7")
    other = _greedy_rows(*chosen, "--seed", "8")

    def moves(doc: dict[str, Any]) -> list[int]:
        return [t["moves"] for t in doc["timing"]]

    assert moves(again) == moves(first) and again["matchups"] == first["matchups"]
    assert moves(other) != moves(first)


def test_bench_bots_refuses_an_unknown_matchup() -> None:
    done = run_orrery("bench", "bots", "--matchups", "greedy-ismcts", timeout=120)
    assert done.returncode == 2
    assert "greedy-ismcts" in done.stderr and "ismcts-greedy" in done.stderr
