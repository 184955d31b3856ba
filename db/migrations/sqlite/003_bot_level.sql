-- Orchard's own seats remember how well they play (easy, normal, hard).
ALTER TABLE game_players ADD COLUMN level TEXT NOT NULL DEFAULT ''
