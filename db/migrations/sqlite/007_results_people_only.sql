-- Solo games are never won (they count for high scores only), and a result remembers whether
-- Orchard sat at the table: wins on the people's board come from games between people only.
UPDATE results SET won = 0 WHERE seats < 2;
ALTER TABLE results ADD COLUMN orchard INTEGER NOT NULL DEFAULT 0;
UPDATE results SET orchard = 1 WHERE game_id IN (SELECT game_id FROM results WHERE is_bot = 1)
