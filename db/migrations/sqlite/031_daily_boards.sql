-- Every daily board posted in a server, so that each is drawn again: to its day's final
-- results once that day's games can no longer be finished, and at once whenever a
-- /forget-me takes someone off it. "draw_on" is the day from which it is to be drawn (NULL:
-- it shows its final results); "tries" counts the failed drawings in a row. The last board
-- posted was two columns of the server's daily channel (029), which a server clearing its
-- channel deleted, and which the next board's claim emptied whether or not the edit then
-- went through. Holds message ids only, no person. A board of day D is final from D + 2.
CREATE TABLE daily_boards (
    guild_id   INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    draw_on    INTEGER,
    tries      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX daily_boards_to_draw ON daily_boards (draw_on) WHERE draw_on IS NOT NULL;
INSERT INTO daily_boards (guild_id, day, channel_id, message_id, draw_on)
SELECT guild_id, posted_day, board_channel_id, board_message_id, posted_day + 2
FROM daily_channels
WHERE board_channel_id IS NOT NULL AND board_message_id IS NOT NULL;
ALTER TABLE daily_channels DROP COLUMN board_channel_id;
ALTER TABLE daily_channels DROP COLUMN board_message_id
