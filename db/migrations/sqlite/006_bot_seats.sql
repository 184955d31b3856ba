-- Orchard's seats, found at start-up without reading every open game's seats.
CREATE INDEX game_players_bots ON game_players (game_id) WHERE is_bot = 1;
