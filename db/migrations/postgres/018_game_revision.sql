-- A game's revision (as ../sqlite/018_game_revision.sql): how many of its writes a board
-- draws, counted up by each of them, so that processes sharing the database tell whether the
-- board they drew is still the game's latest even where the version (moves only) is kept.
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0
