-- Games, their seats and the append-only move log: everything a restart needs to resume play.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    variant     TEXT    NOT NULL DEFAULT '',
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER,
    host_id     INTEGER NOT NULL,
    status      TEXT    NOT NULL
                CHECK (status IN ('lobby', 'active', 'finished', 'abandoned', 'cancelled')),
    seed        INTEGER NOT NULL,
    options     TEXT    NOT NULL DEFAULT '{}',
    state       TEXT,
    version     INTEGER NOT NULL DEFAULT 0,
    deadline    REAL,
    created_at  REAL    NOT NULL,
    updated_at  REAL    NOT NULL
);
CREATE INDEX games_open ON games (guild_id, channel_id, kind) WHERE status IN ('lobby', 'active');
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL;

CREATE TABLE game_players (
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    is_bot    INTEGER NOT NULL DEFAULT 0,
    timeouts  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE UNIQUE INDEX game_players_human ON game_players (game_id, user_id) WHERE is_bot = 0;
CREATE INDEX game_players_user ON game_players (user_id);

CREATE TABLE moves (
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    seat        INTEGER NOT NULL,
    user_id     INTEGER,
    kind        TEXT    NOT NULL,
    arg         TEXT    NOT NULL DEFAULT '',
    source      TEXT    NOT NULL DEFAULT 'player'
                CHECK (source IN ('player', 'timeout', 'forfeit', 'bot')),
    created_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
