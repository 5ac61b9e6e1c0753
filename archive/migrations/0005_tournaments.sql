-- Finished tournaments: one row each, its last view (JSON, as players read it) and its
-- whole log (zstd-compressed msgpack list of the log's entries, as Redis held them).
CREATE TABLE IF NOT EXISTS archived_tournaments (
    tournament_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    finished_at BIGINT NOT NULL,
    entry_count INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    view TEXT NOT NULL,
    log {blob} NOT NULL
)
