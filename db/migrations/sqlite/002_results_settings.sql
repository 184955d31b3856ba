-- Finished games' standings (one row per seat) and per-server settings.
CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    kind         TEXT    NOT NULL,
    user_id      INTEGER NOT NULL,
    is_bot       INTEGER NOT NULL DEFAULT 0,
    score        INTEGER NOT NULL,
    placement    INTEGER NOT NULL,
    won          INTEGER NOT NULL,
    seats        INTEGER NOT NULL,
    finished_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_board ON results (guild_id, kind, user_id);

CREATE TABLE guild_settings (
    guild_id    INTEGER PRIMARY KEY,
    settings    TEXT NOT NULL DEFAULT '{}',
    updated_at  REAL NOT NULL
);
