-- The queue of boards to draw anew from the store (028) now takes, beside the boards of games
-- over that /forget-me erased someone from, the boards a shutdown left unfinished: written at
-- a version older than the game's last commit, since the stop gives them 2 s of its 10. A
-- restart draws each anew instead of leaving it stale until someone clicks. Game ids only;
-- ``queued`` counts the drawings asked for, one committed while it is drawn keeping its row.
ALTER TABLE boards_to_unname RENAME TO boards_to_draw
