-- Finished games whose posted board still names someone /forget-me erased, until drawn anew
-- (as ../sqlite/028_boards_to_unname.sql): game ids only, never the person's.
CREATE TABLE boards_to_unname (
    game_id  BIGINT  PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    queued   INTEGER NOT NULL DEFAULT 1
)
