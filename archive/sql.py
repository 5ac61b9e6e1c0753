"""Every SQL statement of the archive, in one place (PostgreSQL and SQLite share them).

Placeholders are written ``%s`` (psycopg's); the SQLite adapter turns them into ``?``.
Listings page by keyset on ``(finished_at, table_id)``, newest first, so a page costs
the same however deep it is; both stores compare row values (SQLite ≥ 3.15).
"""

from __future__ import annotations

from pathlib import Path

MIGRATIONS = Path(__file__).parent / "migrations"

SCHEMA_VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_version "
    "(version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
)
SCHEMA_VERSIONS = "SELECT version FROM schema_version ORDER BY version"
RECORD_VERSION = "INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)"
# PostgreSQL: archivers starting together migrate one at a time (a transaction lock).
PG_MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(2246601)"

SUMMARY_COLUMNS = (
    "table_id, game, rules_version, options, seat_count, created_at, started_at, "
    "finished_at, final_state, reason, event_count, head_hash, seed_commitment, "
    "archived_at, stored_bytes, raw_bytes, rated"
)
SEAT_COLUMNS = "table_id, seat, name, player_id, bot, conceded, rank, score"

INSERT_TABLE = (
    f"INSERT INTO archived_tables ({SUMMARY_COLUMNS}, log_format, log) VALUES "
    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (table_id) DO NOTHING"
)
INSERT_SEAT = (
    f"INSERT INTO archived_seats ({SEAT_COLUMNS}, game, finished_at) VALUES "
    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def _marks(count: int) -> str:
    return ", ".join(["%s"] * count)


def summaries_of(count: int) -> str:
    return f"SELECT {SUMMARY_COLUMNS} FROM archived_tables WHERE table_id IN ({_marks(count)})"


def logs_of(count: int) -> str:
    return (
        f"SELECT table_id, log_format, log FROM archived_tables WHERE table_id IN ({_marks(count)})"
    )


def heads_of(count: int) -> str:
    return f"SELECT table_id, head_hash FROM archived_tables WHERE table_id IN ({_marks(count)})"


REPLACE_LOG = "UPDATE archived_tables SET log = %s WHERE table_id = %s"

# A table's chat (archive/chat.py) is replaced whole: the Redis stream it is copied from
# is the truth until the table leaves Redis (both stores upsert, SQLite >= 3.24).
PUT_CHAT = (
    "INSERT INTO archived_chats (table_id, chat_format, messages, chat) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (table_id) DO UPDATE SET chat_format = excluded.chat_format, "
    "messages = excluded.messages, chat = excluded.chat"
)
DROP_CHAT = "DELETE FROM archived_chats WHERE table_id = %s"
# an operator's delete reads, changes and writes one chat: PostgreSQL locks the row
# (SQLite's writing transactions take the database's write lock when they begin)
CHAT_FOR_UPDATE = {
    "postgresql": "SELECT chat_format, chat FROM archived_chats WHERE table_id = %s FOR UPDATE",
    "sqlite": "SELECT chat_format, chat FROM archived_chats WHERE table_id = %s",
}


def chats_of(count: int) -> str:
    return (
        "SELECT table_id, chat_format, chat FROM archived_chats "
        f"WHERE table_id IN ({_marks(count)})"
    )


def seats_of(count: int) -> str:
    return (
        f"SELECT {SEAT_COLUMNS} FROM archived_seats WHERE table_id IN ({_marks(count)}) "
        "ORDER BY table_id, seat"
    )


def finished_tables(game: bool, after: bool, final_state: bool = False) -> str:
    """A page of finished tables (of one game; in one final state), newest first."""
    where = []
    if game:
        where.append("game = %s")
    if final_state:
        where.append("final_state = %s")
    if after:
        where.append("(finished_at, table_id) < (%s, %s)")
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return (
        f"SELECT {SUMMARY_COLUMNS} FROM archived_tables{clause} "
        "ORDER BY finished_at DESC, table_id DESC LIMIT %s"
    )


def player_games(game: bool, after: bool) -> str:
    """A page of a player's archived tables (of one game), newest first."""
    where = ["s.player_id = %s"]
    if game:
        where.append("s.game = %s")
    if after:
        where.append("(s.finished_at, s.table_id) < (%s, %s)")
    columns = ", ".join(f"t.{c.strip()}" for c in SUMMARY_COLUMNS.split(","))
    return (
        f"SELECT DISTINCT {columns} FROM archived_seats s "
        "JOIN archived_tables t ON t.table_id = s.table_id "
        f"WHERE {' AND '.join(where)} "
        "ORDER BY t.finished_at DESC, t.table_id DESC LIMIT %s"
    )


def in_finish_order(game: bool, after: bool) -> str:
    """Tables that ended with a standing (``table.finished``: completed, abandoned or
    ended at their end time), in finish order, oldest first (a ratings rebuild walks
    them)."""
    where = ["reason IN ('completed', 'abandoned', 'deadline')"]
    if game:
        where.append("game = %s")
    if after:
        where.append("(finished_at, table_id) > (%s, %s)")
    return (
        f"SELECT {SUMMARY_COLUMNS} FROM archived_tables WHERE {' AND '.join(where)} "
        "ORDER BY finished_at, table_id LIMIT %s"
    )


STATS = (
    "SELECT COUNT(*), COALESCE(SUM(event_count), 0), COALESCE(SUM(stored_bytes), 0), "
    "COALESCE(SUM(raw_bytes), 0) FROM archived_tables"
)
PING = "SELECT 1"
# what the archive takes on disk, tables and indexes
DISK_BYTES = {
    "postgresql": "SELECT pg_total_relation_size('archived_tables') "
    "+ pg_total_relation_size('archived_seats') + pg_total_relation_size('archived_chats')",
    "sqlite": "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
}


def migrations() -> list[tuple[int, str]]:
    """``(number, SQL)`` of every migration file (``NNNN_name.sql``), in order."""
    found = []
    for path in sorted(MIGRATIONS.glob("[0-9][0-9][0-9][0-9]_*.sql")):
        found.append((int(path.name[:4]), path.read_text()))
    return found


def statements(script: str, blob: str) -> list[str]:
    """A migration's statements (split at ``;``; comment lines dropped)."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    text = "\n".join(lines).replace("{blob}", blob)
    return [s.strip() for s in text.split(";") if s.strip()]


# the arena's past seasons (archive/seasons.py)
INSERT_SEASON = (
    "INSERT INTO archived_seasons (game, number, started_at, ended_at, final_table) "
    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game, number) DO NOTHING"
)
SEASON = "SELECT final_table FROM archived_seasons WHERE game = %s AND number = %s"
SEASONS = "SELECT number FROM archived_seasons WHERE game = %s ORDER BY number"

# finished tournaments (archive/tournaments.py)
INSERT_TOURNAMENT = (
    "INSERT INTO archived_tournaments "
    "(tournament_id, game, finished_at, entry_count, head_hash, view, log) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (tournament_id) DO NOTHING"
)
TOURNAMENT = (
    "SELECT entry_count, head_hash, view, log FROM archived_tournaments WHERE tournament_id = %s"
)
