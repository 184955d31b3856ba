-- A game's revision: how many of its writes a board draws (moves, a lobby's seats, its start,
-- its end), counted up by each of them. The version counts moves only, and a moderator's /end
-- or a lobby's join or leave keeps it: processes sharing a database compare revisions to tell
-- whether the board they drew is still the game's latest. Games stored so far start at 0.
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0
