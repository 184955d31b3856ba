-- A game in which someone asked for a hint is marked, and so are its results.
ALTER TABLE games ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0
