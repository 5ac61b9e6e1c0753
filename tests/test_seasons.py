"""Arena seasons: leagues by rating band, a rollover's promotion and relegation (one
league at most), the soft reset, the final table kept in the archive, all through
``orrery season rollover`` against a real server and a SQLite archive."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from competitions.seasons import Rating, first_season, league_of, rollover
from competitions.settings import SeasonSettings
from orrery_contracts import keys
from tests.support.service import REPO, LiveService, live_service

pytestmark = pytest.mark.service

GAME = "spacecraft"
SETTINGS = SeasonSettings(leagues=6, band=100.0, floor=1300.0, widen=1.5, sigma_max=400.0)


def test_leagues_by_band() -> None:
    assert [league_of(mu, SETTINGS) for mu in (900, 1299, 1300, 1450, 1899, 1900, 2500)] == [
        0,
        0,
        1,
        2,
        6,
        6,
        6,
    ]


def test_a_rollover_moves_each_player_one_league_at_most() -> None:
    start = {"up": Rating(1350, 50), "down": Rating(1750, 50), "still": Rating(1550, 100)}
    season = first_season(GAME, start, 0, SETTINGS)
    assert {p.player_id: p.league for p in season.players} == {"up": 1, "down": 5, "still": 3}
    end = {
        "up": Rating(1720, 60),  # band 5: promoted one league, to 2
        "down": Rating(1380, 60),  # band 1: relegated one league, to 4
        "still": Rating(1560, 300),  # band 3: stays
        "new": Rating(1610, 500),  # enters at band 4
    }
    table, following, reset = rollover(season, end, 1000, SETTINGS)
    moved = {r.player_id: (r.league, r.next_league, r.move) for r in table.rows}
    assert moved == {
        "up": (1, 2, "promoted"),
        "down": (5, 4, "relegated"),
        "still": (3, 3, "stayed"),
        "new": (4, 4, "stayed"),
    }
    assert following.number == 2 and following.past[0].number == 1
    assert reset["up"].sigma == 90 and reset["up"].mu == 1720
    assert reset["still"].sigma == 400  # widened, up to the cap
    assert reset["new"].sigma == 500  # never narrowed


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(tmp_path_factory.mktemp("seasons"), workers=0, projectors=0) as live:
        yield live


def orrery(service: LiveService, archive: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args, "--redis-url", service.url],
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(REPO),
            "ORRERY_ARCHIVE_URL": f"sqlite:///{archive}",
            "ORRERY_SEASON_SIGMA_MAX": "400",
        },
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def rate(service: LiveService, ratings: dict[str, tuple[float, float]]) -> None:
    service.sync_redis().hset(
        keys.ratings_key(GAME),
        mapping={
            p: json.dumps({"mu": mu, "sigma": sigma, "games": 5})
            for p, (mu, sigma) in ratings.items()
        },
    )


def test_a_season_rollover_through_the_command_line(service: LiveService, tmp_path: Path) -> None:
    archive = tmp_path / "archive.sqlite"
    rate(service, {"ann": (1350, 50), "ben": (1750, 50), "bot:greedy": (1500, 50)})
    assert "season 1, 2 players" in orrery(service, archive, "season", "rollover", GAME)
    rate(service, {"ann": (1720, 60), "ben": (1380, 60)})
    out = orrery(service, archive, "season", "rollover", GAME, "--force")
    assert "season 2" in out and "1 promoted, 1 relegated" in out
    raw = service.sync_redis().get(keys.season_key(GAME))
    shown: dict[str, Any] = json.loads(raw or b"{}")
    assert shown["number"] == 2 and [p["number"] for p in shown["past"]] == [1]
    assert {p["player_id"]: p["league"] for p in shown["players"]} == {"ann": 2, "ben": 4}
    past = json.loads(orrery(service, archive, "season", "show", GAME, "--number", "1"))
    assert {r["player_id"]: r["move"] for r in past["rows"]} == {
        "ann": "promoted",
        "ben": "relegated",
    }
    stored = json.loads(service.sync_redis().hget(keys.ratings_key(GAME), "ann") or b"{}")
    assert stored["sigma"] == 90 and stored["mu"] == 1720
