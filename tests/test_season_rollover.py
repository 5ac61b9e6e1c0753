"""An arena season ends and the next begins by itself: the tournament organiser inside
each matchmaker rolls a game's season over once its end has passed, through real
processes, with seasons seconds long (``ORRERY_SEASON_DAYS``): exactly once per season
with two matchmakers running, and when the one rolling it is SIGKILLed between writing
the next season and its soft reset (the next organiser applies the reset, once; marked
slow, the two matchmakers are the default run's); and a game with no season gets its
first by itself."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from competitions.seasons import Rating, first_season
from competitions.settings import SeasonSettings
from orrery_contracts import keys
from tests.support.service import LiveService, live_service

pytestmark = pytest.mark.service

SECONDS = 1.0
SHORT = SeasonSettings(days=SECONDS / 86_400)
SIGMA = 10.0


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(tmp_path_factory.mktemp("rollover"), workers=0, projectors=0) as live:
        yield live


def matchmaker(service: LiveService, archive: Path, **env: str) -> subprocess.Popen[bytes]:
    return service.start(
        "matchmaker",
        ORRERY_SECRET_KEY="season-rollover-test-key-" + "x" * 32,
        ORRERY_ARCHIVE_URL=f"sqlite:///{archive}",
        ORRERY_TOURNAMENT_LEASE_MS="1500",
        ORRERY_TOURNAMENT_CYCLE_S="0.1",
        **{"ORRERY_SEASON_BEGIN": "0", **env},  # each test begins the seasons it reads
    )


def begin(service: LiveService, game: str) -> None:
    """Ratings for two players and a first season that ends in ``SECONDS``."""
    redis: Any = service.sync_redis()
    ratings = {"ann": Rating(1350.0, SIGMA, 5), "ben": Rating(1750.0, SIGMA, 5)}
    redis.hset(
        keys.ratings_key(game),
        mapping={
            p: json.dumps({"mu": r.mu, "sigma": r.sigma, "games": r.games})
            for p, r in ratings.items()
        },
    )
    now = int(time.time() * 1000)
    redis.set(keys.season_key(game), msgspec.json.encode(first_season(game, ratings, now, SHORT)))


def season(service: LiveService, game: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(service.sync_redis().get(keys.season_key(game)) or b"{}")
    return found


def sigmas(service: LiveService, game: str) -> list[float]:
    raw: Any = service.sync_redis().hgetall(keys.ratings_key(game))
    return [json.loads(raw[p])["sigma"] for p in (b"ann", b"ben")]


def marks(service: LiveService, game: str) -> dict[str, str]:
    raw: Any = service.sync_redis().hgetall(keys.season_reset_key(game))
    return {k.decode(): v.decode() for k, v in raw.items()}


def archived(archive: Path, game: str) -> list[int]:
    from archive import open_archive
    from archive.seasons import season_numbers

    async def read() -> list[int]:
        store = await open_archive(f"sqlite:///{archive}")
        try:
            return await season_numbers(store, game)
        finally:
            await store.close()

    return sorted(asyncio.run(read()))


def wait_for(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(20)


@pytest.mark.slow
def test_a_kill_between_the_next_season_and_its_reset_widens_the_ratings_once(
    service: LiveService, tmp_path: Path
) -> None:
    archive = tmp_path / "archive.sqlite"
    begin(service, "tiny")
    # the next season lasts the default 91 days: one rollover here
    doomed = matchmaker(service, archive, ORRERY_FAULT_KILL_ORGANISER_AFTER="season")
    assert doomed.wait(60) == -9
    assert season(service, "tiny")["number"] == 2
    assert marks(service, "tiny") == {"2": "pending"}
    assert sigmas(service, "tiny") == [SIGMA, SIGMA]  # killed before the reset
    heir = matchmaker(service, archive)
    try:
        wait_for(lambda: marks(service, "tiny") == {"2": "done"})
        assert sigmas(service, "tiny") == [SIGMA * 1.5] * 2
        time.sleep(1.0)  # a few more cycles change nothing
        assert season(service, "tiny")["number"] == 2
        assert sigmas(service, "tiny") == [SIGMA * 1.5] * 2
        assert archived(archive, "tiny") == [1]
    finally:
        stop(heir)


def test_two_matchmakers_roll_each_season_over_once(service: LiveService, tmp_path: Path) -> None:
    archive = tmp_path / "archive.sqlite"
    game = "spacecraft"
    begin(service, game)
    days = str(SECONDS / 86_400)
    pair = [matchmaker(service, archive, ORRERY_SEASON_DAYS=days) for _ in range(2)]
    try:
        wait_for(lambda: season(service, game)["number"] >= 3)
    finally:
        for process in pair:  # a stop lets the step in flight finish (a rollover whole)
            stop(process)
    shown = season(service, game)
    number = shown["number"]
    past = shown["past"]
    assert [p["number"] for p in past] == list(range(1, number))
    # each season began where the last ended
    assert all(a["ended_at"] == b["started_at"] for a, b in itertools.pairwise(past))
    assert past[-1]["ended_at"] == shown["started_at"]
    assert shown["ends_at"] - shown["started_at"] == int(SECONDS * 1000)
    assert marks(service, game) == {str(n): "done" for n in range(2, number + 1)}
    assert sigmas(service, game) == pytest.approx([SIGMA * 1.5 ** (number - 1)] * 2)
    assert archived(archive, game) == list(range(1, number))


def test_a_game_with_no_season_gets_its_first_by_itself(
    service: LiveService, tmp_path: Path
) -> None:
    game = "federation"
    redis: Any = service.sync_redis()
    redis.delete(keys.season_key(game))
    redis.hset(
        keys.ratings_key(game),
        mapping={"cat": json.dumps({"mu": 1650.0, "sigma": SIGMA, "games": 7})},
    )
    organiser = matchmaker(service, tmp_path / "archive.sqlite", ORRERY_SEASON_BEGIN="1")
    try:
        wait_for(lambda: season(service, game).get("number") == 1)
    finally:
        stop(organiser)
    first = season(service, game)
    assert first["past"] == []
    assert first["ends_at"] - first["started_at"] == 91 * 86_400_000  # the default length
    assert [p["player_id"] for p in first["players"]] == ["cat"]
