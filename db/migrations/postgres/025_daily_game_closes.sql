-- A daily game in play has the end of the day after its own as its deadline (as
-- ../sqlite/025_daily_game_closes.sql), when the clock closes it unfinished: games started
-- before had none, and stayed open for good; they get theirs now.
UPDATE games
SET deadline = 1767225600.0
    + 86400.0 * ((SELECT p.day FROM daily_plays p WHERE p.game_id = games.id) + 1)
WHERE status = 'active'
    AND deadline IS NULL
    AND id IN (SELECT game_id FROM daily_plays)
