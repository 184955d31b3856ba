-- Games over, by when they last changed: after a crash, a restart draws anew the boards of the
-- games that changed in its last minute (their drawing may have been cut off), and finds the
-- open ones through games_open_status. Partial, so a move in play never touches it: a row
-- enters it once, when its game ends.
CREATE INDEX games_ended ON games (updated_at) WHERE status NOT IN ('lobby', 'active')
