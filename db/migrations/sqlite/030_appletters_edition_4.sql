-- Appletters rules edition 4 (a word taken back counts as a turn without a word toward a
-- stalemate, where edition 3 started the count again) is what a game without an "edition"
-- option plays; every word game begun before it without one is marked edition 3, so its move
-- log still replays as it was played. Games marked earlier keep their edition; a lobby has no
-- log yet, so it starts on edition 4.
UPDATE games
SET options = json_set(options, '$.edition', 3)
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
    AND status <> 'lobby'
    AND json_type(options, '$.edition') IS NULL
