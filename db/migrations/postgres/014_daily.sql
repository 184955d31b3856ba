-- The Daily Orchard (as ../sqlite/014_daily.sql): one play per person, game and UTC day,
-- the players on the board across servers, and each server's channel for yesterday's board.
CREATE TABLE daily_plays (
    day         INTEGER          NOT NULL,
    kind        TEXT             NOT NULL,
    user_id     BIGINT           NOT NULL,
    guild_id    BIGINT           NOT NULL,
    game_id     BIGINT           NOT NULL,
    name        TEXT             NOT NULL,
    score       INTEGER,
    accuracy    INTEGER,
    finished_at DOUBLE PRECISION,
    PRIMARY KEY (day, kind, user_id)
);
CREATE INDEX daily_plays_board ON daily_plays (guild_id, kind, day);
CREATE TABLE daily_world (
    user_id   BIGINT           PRIMARY KEY,
    joined_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE daily_channels (
    guild_id   BIGINT  PRIMARY KEY,
    channel_id BIGINT  NOT NULL,
    posted_day INTEGER NOT NULL DEFAULT 0
)
