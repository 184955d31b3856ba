-- Skill ratings per server, game and pool ('people', or 'orchard' for games with Orchard seats),
-- their history for charts, and servers the bot has left (their data is kept for 30 days).
CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    pool        TEXT    NOT NULL CHECK (pool IN ('people', 'orchard')),
    user_id     INTEGER NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL    NOT NULL,
    PRIMARY KEY (guild_id, kind, pool, user_id)
);

CREATE TABLE rating_history (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    pool        TEXT    NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    at          REAL    NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_history_user ON rating_history (guild_id, user_id, at);

CREATE TABLE guild_departures (
    guild_id  INTEGER PRIMARY KEY,
    left_at   REAL NOT NULL
)
