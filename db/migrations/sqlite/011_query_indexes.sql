-- An index for every query's shape (tests/test_query_plans.py shows each plan):
-- one player's results and ratings in a server (/stats, /history, /forget-me), without
-- scanning the whole server's; a server's games (the purge, /forget-me); the games still
-- open (Orchard's seats to resume after a restart); departures by date (the purge).
CREATE INDEX results_player ON results (guild_id, user_id, kind, finished_at);
CREATE INDEX ratings_player ON ratings (guild_id, user_id);
CREATE INDEX games_guild ON games (guild_id, status);
CREATE INDEX games_open_status ON games (status) WHERE status IN ('lobby', 'active');
CREATE INDEX guild_departures_left ON guild_departures (left_at)
