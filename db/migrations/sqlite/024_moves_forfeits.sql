-- /games names only the players still in each game: a seat leaves by a logged forfeit (given
-- up, timed out too often, /forget-me), and this finds the listed games' few forfeits without
-- reading every move of theirs.
CREATE INDEX moves_forfeits ON moves (game_id, seat) WHERE source = 'forfeit'
