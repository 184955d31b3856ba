-- A lobby closed because its host left Orchard's games (/forget-me), not by their Cancel (as
-- ../sqlite/027_lobby_host_left.sql): its message says so when drawn again from the store.
ALTER TABLE games ADD COLUMN host_left SMALLINT NOT NULL DEFAULT 0
