-- The message of the last daily board posted in a server, and its channel (the chosen one
-- may change after), so that once the board's day has closed and its results are final it
-- is edited to show them: games of a day may be finished until the end of the next. Cleared
-- when the next board is claimed, which then makes it final.
ALTER TABLE daily_channels ADD COLUMN board_channel_id INTEGER;
ALTER TABLE daily_channels ADD COLUMN board_message_id INTEGER
