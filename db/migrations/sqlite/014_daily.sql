-- The Daily Orchard. One play per person, game and UTC day (the primary key is the
-- once-a-day rule), pointing at its game; score and accuracy once it is over. Players who
-- joined the board across servers. The channel of a server where yesterday's board is posted,
-- with the last day posted there.
CREATE TABLE daily_plays (
    day         INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    game_id     INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    score       INTEGER,
    accuracy    INTEGER,
    finished_at REAL,
    PRIMARY KEY (day, kind, user_id)
);
CREATE INDEX daily_plays_board ON daily_plays (guild_id, kind, day);
CREATE TABLE daily_world (
    user_id   INTEGER PRIMARY KEY,
    joined_at REAL    NOT NULL
);
CREATE TABLE daily_channels (
    guild_id   INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL,
    posted_day INTEGER NOT NULL DEFAULT 0
)
