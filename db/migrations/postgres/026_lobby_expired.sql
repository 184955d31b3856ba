-- A game the clock closed, not a person (as ../sqlite/026_lobby_expired.sql): a lobby nobody
-- started in time, a daily game left unfinished, or one whose players all timed out at once.
ALTER TABLE games ADD COLUMN expired SMALLINT NOT NULL DEFAULT 0
