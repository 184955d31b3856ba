-- /forget-me leaves a person's seats in games that are over with user id 0 (nobody's): one
-- person still sits once per game, but two forgotten people at one table must not collide.
DROP INDEX game_players_human;
CREATE UNIQUE INDEX game_players_human ON game_players (game_id, user_id)
    WHERE is_bot = 0 AND user_id <> 0
