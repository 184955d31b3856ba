-- The day Discord last refused a server's daily board in its chosen channel (403: Orchard may
-- not post there), so /settings can tell the server's admins; NULL once a post goes through
-- or another channel is chosen.
ALTER TABLE daily_channels ADD COLUMN refused_day INTEGER
