-- A game the clock closed, not a person: a lobby nobody started in time (its message says so,
-- not that the host cancelled it), or a daily game left unfinished. Rows closed before this
-- say nothing either way.
ALTER TABLE games ADD COLUMN expired INTEGER NOT NULL DEFAULT 0
