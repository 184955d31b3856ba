-- Every daily board posted in a server, so that each is drawn (again) to its day's final
-- results: first once that day's games can no longer be finished, then whenever a
-- /forget-me takes someone off it. "final" says the message shows them. The last board
-- posted was two columns of the server's daily channel (029), which a server clearing its
-- channel deleted, and which the next board's claim emptied whether or not the edit then
-- went through. Holds message ids only, no person.
CREATE TABLE daily_boards (
    guild_id   INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    final      INTEGER NOT NULL DEFAULT 0,
    tries      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX daily_boards_to_draw ON daily_boards (day) WHERE final = 0;
INSERT INTO daily_boards (guild_id, day, channel_id, message_id)
SELECT guild_id, posted_day, board_channel_id, board_message_id
FROM daily_channels
WHERE board_channel_id IS NOT NULL AND board_message_id IS NOT NULL;
ALTER TABLE daily_channels DROP COLUMN board_channel_id;
ALTER TABLE daily_channels DROP COLUMN board_message_id
