"""Complete games played through the real service, then audited, replayed, exported and
imported with the real command line.

One live service plays every game at every player count with random bots (the seats'
tokens are kept, so seats can replay their own games); a second, fresh service receives
the exported logs.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
import redis
import redis.asyncio as aioredis
from typer.testing import CliRunner

from games.table import table_view
from orrery.cli import app
from orrery_client.bot import play_seat
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts import keys
from projections.tables import read_table
from services.replay import Viewer, frames
from services.transfer import read_stored_log
from tests.support.service import PARTITIONS, LiveService, live_service

pytestmark = pytest.mark.service

runner = CliRunner()
ADMIN = "test-admin-token"

PLAN = [
    ("fractured_sky", 1), ("fractured_sky", 2), ("fractured_sky", 3), ("fractured_sky", 4),
    ("fractured_sky", 5), ("spacecraft", 2), ("spacecraft", 3), ("spacecraft", 4),
    ("federation", 2), ("federation", 3), ("federation", 4),
]  # fmt: skip


@dataclass
class Played:
    game: str
    table_id: str
    seats: list[SeatCredentials]
    last_seq: int


async def _play(
    client: OrreryClient, game: str, players: int, rng: random.Random, leaver: int | None = None
) -> Played:
    suffix = "" if leaver is None else f"-leaver{leaver}"
    table_id = await client.create_table(game, players, table_id=f"{game}-{players}p{suffix}")
    seats = [await client.join(table_id, f"{game[:3]}{s}") for s in range(players)]
    await client.start(seats[0])
    if leaver is not None:  # it concedes; the table plays it at random from then on
        await client.leave(seats[leaver])
    bots = [s for s in seats if s.seat != leaver]
    views = await asyncio.gather(
        *(play_seat(client, seat, random.Random(rng.getrandbits(32))) for seat in bots)
    )
    return Played(game, table_id, seats, views[0]["seq"])


async def _play_all(url: str) -> list[Played]:
    rng = random.Random(11)
    async with OrreryClient(url) as client:
        games = [_play(client, game, n, rng) for game, n in PLAN]
        games.append(_play(client, "federation", 3, rng, leaver=1))
        return list(await asyncio.gather(*games))


def projected(url: str, table_id: str, seats: int) -> dict[str, bytes | None]:
    """The table's read models: every view and its score."""
    p = keys.partition_of(table_id, PARTITIONS)
    client = redis.Redis.from_url(url)
    try:
        names = [keys.view_key(p, table_id, s) for s in [None, *range(seats)]]
        names.append(keys.score_key(p, table_id))
        return {name.split(":t:")[1]: bytes_or_none(client.get(name)) for name in names}
    finally:
        client.close()


def bytes_or_none(value: object) -> bytes | None:
    assert value is None or isinstance(value, bytes)
    return value


def wait_projected(url: str, table_id: str, seats: int, seq: int) -> dict[str, bytes | None]:
    deadline = time.monotonic() + 30
    while True:
        models = projected(url, table_id, seats)
        if all(v is not None and msgspec.json.decode(v)["seq"] >= seq for v in models.values()):
            return models
        assert time.monotonic() < deadline, f"{table_id}: projections stuck before seq {seq}"
        time.sleep(0.05)


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveService, list[Played]]]:
    with live_service(Path(tmp_path_factory.mktemp("played")), workers=2) as live:
        tables = asyncio.run(_play_all(live.url))
        for table in tables:
            wait_projected(live.url, table.table_id, len(table.seats), table.last_seq)
        yield live, tables


def test_audit_passes_on_every_game_and_player_count(
    played: tuple[LiveService, list[Played]],
) -> None:
    live, tables = played
    assert sorted((t.game, len(t.seats)) for t in tables) == sorted([*PLAN, ("federation", 3)])
    for table in tables:
        code, output = cli("audit", table.table_id, "--redis-url", live.url)
        assert code == 0, output
        assert f"PASSED: {table.last_seq} events verified" in output
        assert "commands re-decided" in output and "skipped" not in output


def test_replay_as_each_seat_is_the_projected_view_and_the_fold_of_the_log(
    played: tuple[LiveService, list[Played]],
) -> None:
    live, tables = played

    async def check(table: Played) -> None:
        client = aioredis.Redis.from_url(live.url)
        try:
            entries = (await read_stored_log(client, PARTITIONS, table.table_id)).entries
            for seat in [None, *range(len(table.seats))]:
                viewer: Viewer = "spectator" if seat is None else seat
                all_frames = list(frames(entries, viewer))
                step = max(1, len(all_frames) // 4)
                for frame in [*all_frames[::step], all_frames[-1]]:
                    # the projectors' own fold of the log up to that seq, through table_view
                    state = await read_table(client, PARTITIONS, table.table_id, frame.last)
                    assert frame.rendered == msgspec.json.encode(table_view(state, seat))
        finally:
            await client.aclose()

    for table in tables:
        asyncio.run(check(table))
        models = projected(live.url, table.table_id, len(table.seats))
        for seat in table.seats:
            code, output = cli(
                "replay", table.table_id, "--as", str(seat.seat), "--token", seat.token,
                "--json", "--redis-url", live.url,
            )  # fmt: skip
            assert code == 0, output
            assert output.strip().encode() == models[f"{table.table_id}:view:{seat.seat}"]
        code, output = cli("replay", table.table_id, "--json", "--redis-url", live.url)
        assert output.strip().encode() == models[f"{table.table_id}:view:spectator"]


def test_replay_access(
    played: tuple[LiveService, list[Played]], monkeypatch: pytest.MonkeyPatch
) -> None:
    live, tables = played
    table = next(t for t in tables if t.game == "spacecraft")
    a, b = table.seats[0], table.seats[1]
    url = ["--redis-url", live.url]
    code, output = cli("replay", table.table_id, "--as", "1", "--token", a.token, *url)
    assert code == 2 and "seat 1 needs that seat's token" in output
    code, output = cli("replay", table.table_id, "--as", "admin", "--token", "guess", *url)
    assert code == 2 and "ORRERY_ADMIN_TOKEN" in output
    monkeypatch.setenv("ORRERY_ADMIN_TOKEN", ADMIN)
    code, output = cli("replay", table.table_id, "--as", "admin", "--token", "guess", *url)
    assert code == 2 and "admin token" in output
    code, output = cli(
        "replay", table.table_id, "--as", "admin", "--token", ADMIN, "--at", "9", "--json", *url
    )
    assert code == 0 and json.loads(output)["seq"] == 9 and "game_state" in json.loads(output)
    code, output = cli(
        "replay", table.table_id, "--as", "1", "--token", b.token, "--from", "5", "--to", "30",
        *url,
    )  # fmt: skip
    assert code == 0 and "change(s) in this view" in output
    assert "spacecraft." not in output  # no event or command names, only the view's changes
    code, output = cli(
        "replay", table.table_id, "--as", "admin", "--token", ADMIN, "--from", "5", "--to", "9",
        *url,
    )  # fmt: skip
    assert code == 0 and output.count("  event:") == 5


def test_export_import_into_a_fresh_server(
    played: tuple[LiveService, list[Played]], tmp_path: Path
) -> None:
    live, tables = played
    picked = [next(t for t in tables if t.game == g) for g in ("fractured_sky", "spacecraft",
                                                               "federation")]  # fmt: skip
    files = {}
    for table in picked:
        path = tmp_path / f"{table.table_id}.jsonl"
        code, output = cli("export", table.table_id, "--out", str(path), "--redis-url", live.url)
        assert code == 0, output
        assert len(path.read_text().splitlines()) == table.last_seq
        files[table.table_id] = path
        # a player's export: only that seat's views, the last is its projected view
        seat = table.seats[-1]
        code, output = cli(
            "export", table.table_id, "--as", str(seat.seat), "--token", seat.token,
            "--redis-url", live.url,
        )  # fmt: skip
        assert code == 0, output
        lines = output.strip().splitlines()
        assert all(set(json.loads(line)) >= {"view", "viewer", "legal"} for line in lines)
        assert not any('"entry"' in line or '"event"' in line for line in lines)
        original = projected(live.url, table.table_id, len(table.seats))
        assert lines[-1].encode() == original[f"{table.table_id}:view:{seat.seat}"]

    with live_service(tmp_path / "fresh") as fresh:
        for table in picked:
            code, output = cli("import", str(files[table.table_id]), "--redis-url", fresh.url)
            assert code == 0, output
            assert f"imported table {table.table_id}: {table.last_seq} events, finished" in output
            code, output = cli("audit", table.table_id, "--redis-url", fresh.url)
            assert code == 0 and "PASSED:" in output, output
            copy = wait_projected(fresh.url, table.table_id, len(table.seats), table.last_seq)
            assert copy == projected(live.url, table.table_id, len(table.seats))
        # the same table again is refused, and nothing changes
        again = files[picked[0].table_id]
        code, output = cli("import", str(again), "--redis-url", fresh.url)
        assert code == 2 and "already exists" in output
        # a dropped event in a store is caught, naming the seq
        table = picked[1]
        p = keys.partition_of(table.table_id, PARTITIONS)
        fresh.sync_redis().xdel(keys.log_stream(p, table.table_id), "30-0")
        code, output = cli("audit", table.table_id, "--redis-url", fresh.url)
        assert code == 1 and "FAILED at seq 30 (chain)" in output


def test_import_refuses_a_broken_chain_and_the_embedded_server_works(
    played: tuple[LiveService, list[Played]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, tables = played
    monkeypatch.delenv("ORRERY_REDIS_URL", raising=False)
    table = next(t for t in tables if t.game == "fractured_sky" and len(t.seats) == 2)
    path = tmp_path / "log.jsonl"
    assert cli("export", table.table_id, "--out", str(path), "--redis-url", live.url)[0] == 0
    lines = path.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines[:10] + lines[11:]) + "\n")
    home = ["--data-dir", str(tmp_path / "home")]  # the embedded server, as after `orrery demo`
    code, output = cli("import", str(broken), *home)
    assert code == 1 and "seq 11" in output
    code, output = cli("audit", table.table_id, *home)
    assert code == 2 and "no table" in output  # nothing was written
    assert cli("import", str(path), *home)[0] == 0
    code, output = cli("audit", table.table_id, *home)
    assert code == 0 and "PASSED:" in output
    code, output = cli("replay", table.table_id, "--at", "3", *home)
    assert code == 0 and "seq 3" in output and "as spectator" in output
    # an unfinished table: imported as it stands; its full log is the operator's only
    other = next(t for t in tables if t.game == "spacecraft")
    unfinished = tmp_path / "unfinished.jsonl"
    assert cli("export", other.table_id, "--out", str(unfinished), "--redis-url", live.url)[0] == 0
    unfinished.write_text("\n".join(unfinished.read_text().splitlines()[:50]) + "\n")
    code, output = cli("import", str(unfinished), *home)
    assert code == 0 and "50 events, playing" in output
    code, output = cli("audit", other.table_id, *home)
    assert code == 0 and "PASSED (partial)" in output and "has not finished" in output
    code, output = cli("export", other.table_id, *home)
    assert code == 2 and "admin token" in output
    monkeypatch.setenv("ORRERY_ADMIN_TOKEN", ADMIN)
    code, output = cli("export", other.table_id, "--token", ADMIN, *home)
    assert code == 0 and len(output.strip().splitlines()) == 50
