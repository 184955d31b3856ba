-- Finished games whose posted board still names someone /forget-me erased: written in the
-- erasure's own transaction, each deleted once its board is drawn anew (or found deleted),
-- so a restart resumes the redraws instead of leaving the name on the rest. Game ids only,
-- never the person's; ``queued`` counts erasures, so one committed while its board is being
-- drawn (from a version that may still name them) keeps the row for another drawing.
CREATE TABLE boards_to_unname (
    game_id  INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    queued   INTEGER NOT NULL DEFAULT 1
)
