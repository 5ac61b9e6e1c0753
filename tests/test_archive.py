"""The archive store on both databases: SQLite (the embedded default) and PostgreSQL
(Debian's package, started by the tests): the same module runs on each. Tables, their
chats (kept apart from the log), and an archive made before a migration."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path

import msgspec
import pytest

from archive import Archive, ArchiveConflict, BadCursor, ChatEntries, open_archive, sql
from archive.packing import summarize
from orrery_contracts.chat import ChatEntry, ChatMessage, entry_encoder, history
from orrery_contracts.envelope import RawEnvelope, encode_entry
from services.replay import play_log
from tests.support.logs import with_players
from tests.support.postgres import PostgresServer

pytestmark = pytest.mark.service

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
    assert stats.tables == len(GAMES) and stats.schema_version == len(sql.migrations())
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
        assert again.schema_version == archive.schema_version == len(sql.migrations()) == 5
    finally:
        await again.close()


def test_the_url_names_the_store() -> None:
    from archive.databases import database_for

    assert database_for("sqlite:////tmp/x.sqlite3").dialect == "sqlite"
    assert database_for("postgresql://u@h:1/db").dialect == "postgresql"
    with pytest.raises(ValueError):
        database_for("mysql://u@h/db")


# ---------------------------------------------------------------- chat


def chat_of(*texts: str, deleted: tuple[str, ...] = ()) -> ChatEntries:
    """Chat stream entries as Redis holds them: messages by seat 0, then deletions."""
    entries = [
        (f"{1000 + i}-0", entry_encoder.encode(ChatEntry(seat=0, name="ann", text=t, at=1000 + i)))
        for i, t in enumerate(texts)
    ]
    for n, message_id in enumerate(deleted):
        entries = [e for e in entries if e[0] != message_id]
        entries.append((f"2000-{n}", entry_encoder.encode(ChatEntry(deleted=message_id))))
    return entries


def as_read(chat: ChatEntries | None) -> list[ChatMessage]:
    """The messages of an archived chat as readers get them (XRANGE's shape)."""
    return history([(i, {b"__data__": data}) for i, data in chat or []])


async def test_a_chat_is_kept_apart_from_the_log(archive: Archive) -> None:
    entries = game_log("spacecraft", 2, 41, "chatty")
    summary = summarize(entries)
    chat = chat_of("gl hf", "oops", "gg", deleted=("1001-0",))
    written, conflicts = await archive.put_tables([(summary, entries)], chats={"chatty": chat})
    assert written == {"chatty"} and not conflicts
    assert await archive.get_chat("chatty") == chat
    stored = await archive.get_table("chatty")  # the log and its head: as without a chat
    assert stored is not None and stored.intact and stored.summary.head_hash == entries[-1].hash
    assert [encode_entry(e) for e in stored.entries] == [encode_entry(e) for e in entries]
    read = as_read(await archive.get_chat("chatty"))  # the marker where it was
    assert [(m.id, m.text, m.deleted) for m in read] == [
        ("1000-0", "gl hf", False),
        ("1001-0", "", True),
        ("1002-0", "gg", False),
    ]
    # written again (an archiver resuming after a crash): the table is a no-op, the chat
    # replaced by the stream's newer state; an empty chat leaves none
    longer = [*chat, ("3000-0", chat[0][1])]
    await archive.put_tables([(summary, entries)], chats={"chatty": longer})
    assert await archive.get_chat("chatty") == longer
    await archive.put_tables([(summary, entries)], chats={"chatty": []})
    assert await archive.get_chat("chatty") is None
    # another head is a conflict: neither the table nor its chat is written
    other = game_log("spacecraft", 2, 42, "chatty")
    _, conflicts = await archive.put_tables(
        [(summarize(other), other)], chats={"chatty": chat_of("not mine")}
    )
    assert [c.table_id for c in conflicts] == ["chatty"]
    assert await archive.get_chat("chatty") is None
    # without chats (an import, say), a stored chat is left as it is
    await archive.put_tables([(summary, entries)], chats={"chatty": chat})
    await archive.put_tables([(summary, entries)])
    assert await archive.get_chat("chatty") == chat
    assert await archive.get_chats(["chatty", "nope"]) == {"chatty": chat}


async def test_an_operator_deletes_a_message_of_an_archived_chat(archive: Archive) -> None:
    entries = game_log("spacecraft", 2, 43, "moderated")
    chat = chat_of("fine", "rude", "fine too")
    await archive.put_tables([(summarize(entries), entries)], chats={"moderated": chat})
    assert await archive.delete_chat_message("moderated", "1001-0", now_ms=5000)
    stored = await archive.get_chat("moderated") or []
    assert [i for i, _ in stored] == ["1000-0", "1002-0", "5000-0"]
    assert b"rude" not in b"".join(data for _, data in stored)  # gone, not hidden
    read = as_read(stored)
    assert [(m.id, m.deleted) for m in read] == [
        ("1000-0", False),
        ("1001-0", True),
        ("1002-0", False),
    ]
    # a second delete in the same millisecond as the marker gets a later id still
    assert await archive.delete_chat_message("moderated", "1000-0", now_ms=5000)
    assert [i for i, _ in await archive.get_chat("moderated") or []][-1] == "5000-1"
    # no such message, a marker, a deleted message, a table without a chat: nothing
    for message_id in ("999-0", "5000-0", "1001-0"):
        assert not await archive.delete_chat_message("moderated", message_id)
    assert not await archive.delete_chat_message("nope", "1000-0")


async def test_an_archive_made_before_chats_were_archived_keeps_working(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture's archive loses its chat migration (no ``archived_chats``) with a table
    in it; opening it again applies the chat migration and keeps the table."""
    entries = game_log("fractured_sky", 3, 44, "old-table")
    async with archive.db.transaction() as tx:
        await tx.execute("DROP TABLE archived_chats")
        await tx.execute("DELETE FROM schema_version WHERE version = 2")
    without_chats = [m for m in sql.migrations() if m[0] != 2]
    monkeypatch.setattr(sql, "migrations", lambda: without_chats)
    old = await open_archive(archive.url)
    try:
        await old.put_table(summarize(entries), entries)
    finally:
        await old.close()
    monkeypatch.undo()
    upgraded = await open_archive(archive.url)
    try:
        assert upgraded.schema_version == len(sql.migrations())
        stored = await upgraded.get_table("old-table")
        assert stored is not None and stored.intact
        assert await upgraded.get_chat("old-table") is None
        chat = chat_of("hello")
        await upgraded.put_tables([(summarize(entries), entries)], chats={"old-table": chat})
        assert await upgraded.get_chat("old-table") == chat
    finally:
        await upgraded.close()


async def test_an_unrated_table_reads_back_unrated_and_older_rows_rated(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary keeps ``table.create``'s ``rated``; an archive made before tables could
    be unrated gains the column on opening, every row it had rated."""
    unrated = play_log("spacecraft", 2, 45, table_id="friendly", rated=False)[0]
    rated = game_log("spacecraft", 2, 46, "ranked")
    assert summarize(unrated).rated is False and summarize(rated).rated is True
    await archive.put_tables([(summarize(unrated), unrated), (summarize(rated), rated)])
    by_id = {s.table_id: s async for s in archive.in_finish_order("spacecraft")}
    assert by_id["friendly"].rated is False and by_id["ranked"].rated is True
    # back to the schema before the column: the rows it had, then the migration again
    async with archive.db.transaction() as tx:
        await tx.execute("DELETE FROM archived_seats WHERE table_id = 'friendly'")
        await tx.execute("DELETE FROM archived_tables WHERE table_id = 'friendly'")
        await tx.execute("ALTER TABLE archived_tables DROP COLUMN rated")
        await tx.execute("DELETE FROM schema_version WHERE version = 3")
    upgraded = await open_archive(archive.url)
    try:
        assert upgraded.schema_version == len(sql.migrations())
        stored = await upgraded.get_table("ranked")
        assert stored is not None and stored.intact and stored.summary.rated is True
    finally:
        await upgraded.close()
