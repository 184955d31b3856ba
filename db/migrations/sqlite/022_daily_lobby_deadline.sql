-- A daily game's lobby has the end of its day as its deadline (its start clears it), so the
-- clock closes one that a crash left between its making and its start, once the day is
-- over. Lobbies made before had none, and one such never started was left for good: they get
-- the end of their play's day now (day N ends N days after 1 January 2026, 00:00 UTC).
UPDATE games
SET deadline = 1767225600.0 + 86400.0 * (SELECT p.day FROM daily_plays p WHERE p.game_id = games.id)
WHERE status = 'lobby'
    AND deadline IS NULL
    AND id IN (SELECT game_id FROM daily_plays)
