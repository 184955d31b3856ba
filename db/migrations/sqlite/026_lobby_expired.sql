-- A game the clock closed, not a person: a lobby nobody started in time (its message says so,
-- not that the host cancelled it), a daily game left unfinished, or a game whose players all
-- timed out too often at once. Rows closed before this say nothing either way.
ALTER TABLE games ADD COLUMN expired INTEGER NOT NULL DEFAULT 0
