-- /forget-me in a direct message erases a person in every server: these find the servers
-- holding their results, ratings and ping choices without reading every server's rows (their
-- games' seats are found by game_players_user).
CREATE INDEX results_person ON results (user_id);
CREATE INDEX ratings_person ON ratings (user_id);
CREATE INDEX ping_choices_person ON ping_choices (user_id)
