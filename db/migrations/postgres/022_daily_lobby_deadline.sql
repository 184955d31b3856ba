-- A daily game's lobby has the end of its day as its deadline (as
-- ../sqlite/022_daily_lobby_deadline.sql): lobbies made before had none, and one a crash left
-- never started stayed for good; they get the end of their play's day now.
UPDATE games
SET deadline = 1767225600.0 + 86400.0 * (SELECT p.day FROM daily_plays p WHERE p.game_id = games.id)
WHERE status = 'lobby'
    AND deadline IS NULL
    AND id IN (SELECT game_id FROM daily_plays)
