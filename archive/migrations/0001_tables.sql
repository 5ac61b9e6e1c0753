-- The archive's first schema: one row per finished or closed table with its whole log
-- (compressed, see archive/packing.py), one row per seat, indexed for a player's games
-- and a game's finished tables (newest first). "{blob}" is BYTEA on PostgreSQL, BLOB on
-- SQLite; everything else is the same SQL on both.
CREATE TABLE archived_tables (
    table_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    rules_version TEXT NOT NULL,
    options TEXT NOT NULL,
    seat_count INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT NOT NULL,
    final_state TEXT NOT NULL,
    reason TEXT NOT NULL,
    event_count INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    archived_at BIGINT NOT NULL,
    stored_bytes BIGINT NOT NULL,
    raw_bytes BIGINT NOT NULL,
    log_format SMALLINT NOT NULL,
    log {blob} NOT NULL
);
CREATE INDEX archived_tables_by_finish ON archived_tables (finished_at, table_id);
CREATE INDEX archived_tables_by_game ON archived_tables (game, finished_at, table_id);
CREATE TABLE archived_seats (
    table_id TEXT NOT NULL REFERENCES archived_tables (table_id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    player_id TEXT,
    bot SMALLINT NOT NULL,
    conceded SMALLINT NOT NULL,
    rank INTEGER,
    score INTEGER,
    game TEXT NOT NULL,
    finished_at BIGINT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX archived_seats_by_player ON archived_seats (player_id, finished_at, table_id)
    WHERE player_id IS NOT NULL;
CREATE INDEX archived_seats_by_player_game ON archived_seats (player_id, game, finished_at, table_id)
    WHERE player_id IS NOT NULL;
