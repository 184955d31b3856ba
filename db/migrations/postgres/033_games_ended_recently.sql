-- Games over, by when they last changed (as ../sqlite/033_games_ended_recently.sql): what a
-- restart after a crash draws anew.
CREATE INDEX games_ended ON games (updated_at) WHERE status NOT IN ('lobby', 'active')
