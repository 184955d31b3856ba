-- When a game in play began awaiting an Orchard seat's move (NULL: it awaits none), so that
-- whichever process is alive plays it: on a database several processes share, a pending move
-- is a row any of them claims once Orchard's pause has passed, not a task in one process.
ALTER TABLE games ADD COLUMN orchard_since REAL;
CREATE INDEX games_orchard_since ON games (orchard_since) WHERE orchard_since IS NOT NULL
