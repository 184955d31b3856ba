-- The Appletters hand last sent to each player by DM, and whether their DMs turned out closed:
-- after a restart nobody is sent an unchanged hand again or told twice that DMs are closed.
CREATE TABLE tile_dms (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL,
    hand     TEXT    NOT NULL,
    closed   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, user_id)
);
