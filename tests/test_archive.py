"""The archive store on both databases: SQLite (the embedded default) and PostgreSQL
(Debian's package, started by the tests): the same module runs on each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path

import msgspec
import pytest

from archive import Archive, ArchiveConflict, BadCursor, open_archive
from archive.packing import summarize
from orrery_contracts.envelope import RawEnvelope, encode_entry
from services.replay import play_log
from tests.support.logs import with_players
from tests.support.postgres import PostgresServer

GAMES = [("fractured_sky", 3), ("spacecraft", 2), ("federation", 3)]
_msgpack = msgspec.msgpack.Encoder()


@pytest.fixture(params=["sqlite", "postgresql"])
async def archive(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Archive]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = server.fresh_database()
    opened = await open_archive(url)
    try:
        yield opened
    finally:
        await opened.close()


@cache
def game_log(game: str, seats: int, seed: int, table_id: str | None = None) -> list[RawEnvelope]:
    return play_log(game, seats, seed, table_id=table_id)[0]


def player_log(index: int, players: dict[int, str]) -> list[RawEnvelope]:
    entries = game_log("spacecraft", 2, 100 + index, f"mine-{index:02d}")
    return with_players(entries, players)


async def test_a_table_reads_back_byte_for_byte_with_its_chain(archive: Archive) -> None:
    for game, seats in GAMES:
        entries = game_log(game, seats, 1)
        summary = summarize(entries)
        assert await archive.put_table(summary, entries)
        stored = await archive.get_table(summary.table_id)
        assert stored is not None and stored.intact
        assert [encode_entry(e) for e in stored.entries] == [encode_entry(e) for e in entries]
        assert stored.summary.game == game and stored.summary.event_count == len(entries)
        assert stored.summary.head_hash == entries[-1].hash
        assert stored.summary.final_state == "finished"
        assert sorted(s.rank or 0 for s in stored.summary.seats)[0] == 1
        # the hashes are recomputed, not stored: well under the 80 bytes per event target
        assert stored.summary.stored_bytes / len(entries) < 80
        assert stored.summary.raw_bytes > 5 * stored.summary.stored_bytes
    stats = await archive.stats()
    assert stats.tables == len(GAMES) and stats.schema_version == 1
    assert await archive.get_table("nope") is None and await archive.get_summary("nope") is None


async def test_writing_again_is_a_no_op_and_another_head_is_refused(archive: Archive) -> None:
    entries = game_log("spacecraft", 2, 3)
    summary = summarize(entries)
    assert await archive.put_table(summary, entries)
    assert not await archive.put_table(summary, entries)
    other = game_log("spacecraft", 2, 4, entries[0].table_id)
    with pytest.raises(ArchiveConflict):
        await archive.put_table(summarize(other), other)
    stored = await archive.get_table(summary.table_id)
    assert stored is not None and stored.summary.head_hash == entries[-1].hash and stored.intact
    assert (await archive.stats()).tables == 1


async def test_a_tampered_log_no_longer_reaches_its_head(archive: Archive) -> None:
    entries = game_log("fractured_sky", 3, 5)
    summary = summarize(entries)
    await archive.put_table(summary, entries)
    changed = list(entries)
    changed[10] = msgspec.structs.replace(changed[10], recorded_at=changed[10].recorded_at + 1)
    await archive.replace_log(summary.table_id, changed)
    stored = await archive.get_table(summary.table_id)
    assert stored is not None and not stored.intact


async def test_a_players_games_page_newest_first(archive: Archive) -> None:
    for i in range(7):
        # "p-me" plays seat i % 2 of every table; "p-other" the other seat of odd ones
        players = {i % 2: "p-me"} | ({(i + 1) % 2: "p-other"} if i % 2 else {})
        entries = player_log(i, players)
        await archive.put_table(summarize(entries), entries)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await archive.player_games("p-me", cursor=cursor, limit=3)
        seen += [t.table_id for t in page.tables]
        pages += 1
        cursor = page.cursor
        if cursor is None:
            break
    assert pages == 3 and len(seen) == 7 == len(set(seen))
    finished = [(await archive.get_summary(t)) for t in seen]
    keys = [(s.finished_at, s.table_id) for s in finished if s is not None]
    assert keys == sorted(keys, reverse=True)
    other = await archive.player_games("p-other", limit=50)
    assert sorted(t.table_id for t in other.tables) == [f"mine-{i:02d}" for i in (1, 3, 5)]
    mine = other.tables[0].seats
    assert {s.player_id for s in mine} == {"p-me", "p-other"}
    assert (await archive.player_games("p-me", game="federation")).tables == []
    assert len((await archive.player_games("p-me", game="spacecraft", limit=50)).tables) == 7
    with pytest.raises(BadCursor):
        await archive.player_games("p-me", cursor="not-a-cursor")


async def test_finished_tables_of_a_game_and_in_finish_order(archive: Archive) -> None:
    for game, seats in GAMES:
        for seed in (11, 12):
            entries = game_log(game, seats, seed)
            await archive.put_table(summarize(entries), entries)
    page = await archive.finished_tables(game="federation", limit=1)
    assert len(page.tables) == 1 and page.cursor is not None
    second = await archive.finished_tables(game="federation", cursor=page.cursor, limit=1)
    assert second.cursor is None and second.tables[0].table_id != page.tables[0].table_id
    everything = await archive.finished_tables(limit=100)
    assert len(everything.tables) == 6
    ordered = [s async for s in archive.in_finish_order(chunk=4)]
    assert [(s.finished_at, s.table_id) for s in ordered] == sorted(
        (s.finished_at, s.table_id) for s in everything.tables
    )


async def test_migrations_apply_once(archive: Archive) -> None:
    again = await open_archive(archive.url)
    try:
        assert again.schema_version == archive.schema_version == 1
    finally:
        await again.close()


def test_the_url_names_the_store() -> None:
    from archive.databases import database_for

    assert database_for("sqlite:////tmp/x.sqlite3").dialect == "sqlite"
    assert database_for("postgresql://u@h:1/db").dialect == "postgresql"
    with pytest.raises(ValueError):
        database_for("mysql://u@h/db")
