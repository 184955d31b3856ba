-- Appletters rules edition 3 (a player who leaves takes their wordless turns out of the
-- stalemate count; a missed turn owed is used up when a going-out claim falls through, or
-- when a word is taken back on its player's own turn) is what a game without an "edition"
-- option plays; every word game begun before it without one is marked edition 2, so its move
-- log still replays as it was played. Games marked edition 1 (013) keep their edition; a lobby
-- has no log yet, so it starts on edition 3.
UPDATE games
SET options = json_set(options, '$.edition', 2)
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
    AND status <> 'lobby'
    AND json_type(options, '$.edition') IS NULL
