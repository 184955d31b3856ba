-- Appletters rules editions. Edition 2 (Apple Turnover's smaller hands from five players, the
-- Bad Apple as an exchange) is what a game without an "edition" option plays; every word game
-- stored before it is marked edition 1, so its move log still replays as it was played.
UPDATE games
SET options = json_set(options, '$.edition', 1)
WHERE kind IN ('appletters', 'applescore', 'appleturnover')
