-- The arena's past seasons: one row per game and season, its final table (JSON: each
-- player's league, end rating, rank in the league, next league and move).
CREATE TABLE IF NOT EXISTS archived_seasons (
    game TEXT NOT NULL,
    number INTEGER NOT NULL,
    started_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL,
    final_table TEXT NOT NULL,
    PRIMARY KEY (game, number)
)
