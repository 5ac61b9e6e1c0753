-- Whether a table was rated (its table.created's rated: 0 for an unrated table, whose
-- finish rates nobody, also when the ratings are recomputed from the archive). An archive
-- made before this migration keeps every row, each rated (tables could not be unrated).
ALTER TABLE archived_tables ADD COLUMN rated SMALLINT NOT NULL DEFAULT 1
