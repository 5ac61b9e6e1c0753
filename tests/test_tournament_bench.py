"""``orrery bench tournament`` end to end with a small field: every run's figures, the
pods' rating range within tables far below random pods', a table printed with targets."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run_orrery

pytestmark = pytest.mark.bench


def test_bench_tournament_runs() -> None:
    done = run_orrery(
        "bench", "tournament", "--players", "120", "--repeats", "2", "--dutch-players", "12",
        "--json", timeout=300, env={"ORRERY_TOURNAMENT_DUTCH_MAX_PLAYERS": "16"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    runs = {(r["players"], r["seats"]): r for r in figures["runs"]}
    # above the Dutch engine's largest field, pods; the Dutch engine on the small one
    assert set(runs) == {(120, 2), (120, 4), (12, 2)}
    assert runs[12, 2]["engine"].startswith("FIDE Dutch")
    assert runs[120, 2]["engine"] == runs[120, 4]["engine"] == "pods"
    for key in ((120, 2), (120, 4)):
        assert 0 <= runs[key]["spread"] < runs[key]["random_spread"]
        assert 0 < runs[key]["pair_median_s"] <= runs[key]["pair_max_s"]
    assert figures["targets"]["pair_s"] == 1.0
    table = run_orrery("bench", "tournament", "--players", "60", "--repeats", "1", timeout=300)
    assert table.returncode == 0 and "baseline" in table.stdout and "target" in table.stdout
