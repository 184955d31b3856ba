-- When a game in play began awaiting an Orchard seat's move (NULL: it awaits none), so that
-- whichever process is alive plays it: on a database several processes share, a pending move
-- is a row any of them claims once Orchard's pause has passed, not a task in one process.
-- Games in play with an Orchard seat are marked as they stand: a claim that finds no Orchard
-- seat awaited clears its mark, so none waiting for Orchard now is missed.
ALTER TABLE games ADD COLUMN orchard_since DOUBLE PRECISION;
CREATE INDEX games_orchard_since ON games (orchard_since) WHERE orchard_since IS NOT NULL;
UPDATE games SET orchard_since = updated_at WHERE status = 'active'
    AND EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = games.id AND p.is_bot = 1)
