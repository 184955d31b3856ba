-- A daily game in play has a deadline: the end of the day after its own, when the clock
-- closes it unfinished, without a result. Games started before had none, and one left
-- unfinished stayed open for good, seen by nobody: they get theirs now (day N ends N days
-- after 1 January 2026, 00:00 UTC, so the day after it ends N + 1 days after), and one whose
-- time is already past closes at the clock's first pass.
UPDATE games
SET deadline = 1767225600.0
    + 86400.0 * ((SELECT p.day FROM daily_plays p WHERE p.game_id = games.id) + 1)
WHERE status = 'active'
    AND deadline IS NULL
    AND id IN (SELECT game_id FROM daily_plays)
