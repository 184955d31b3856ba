-- A lobby closed because its host left Orchard's games (/forget-me), not by their Cancel: its
-- message says so, and still does when drawn again from the store (the host's id is gone
-- from the row either way, so it cannot tell). Rows closed before this say nothing either way.
ALTER TABLE games ADD COLUMN host_left INTEGER NOT NULL DEFAULT 0
