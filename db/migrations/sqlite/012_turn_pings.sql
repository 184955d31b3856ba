-- Turn pings. Per game in play: the version last pinged for, the seats it waited for then, and
-- its live turn message with the seats that message pinged (seats, never user ids), so a turn
-- pings only the newly awaited and a restart still finds the message to delete. Per person and
-- server: their own choice of turn pings by DM (1) or in the channel (0).
CREATE TABLE turn_pings (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    awaited    TEXT    NOT NULL DEFAULT '',
    message_id INTEGER,
    mentioned  TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE ping_choices (
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    dm         INTEGER NOT NULL,
    updated_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
)
