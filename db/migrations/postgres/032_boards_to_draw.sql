-- The queue of boards to draw anew from the store (028) also takes the boards a shutdown left
-- unfinished (as ../sqlite/032_boards_to_draw.sql): game ids only.
ALTER TABLE boards_to_unname RENAME TO boards_to_draw
