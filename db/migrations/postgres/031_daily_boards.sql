-- Every daily board posted in a server, to be drawn again to its day's results (as
-- ../sqlite/031_daily_boards.sql), moved out of the server's daily channel, where clearing
-- the channel or the next board's claim lost the last one.
CREATE TABLE daily_boards (
    guild_id   BIGINT   NOT NULL,
    day        INTEGER  NOT NULL,
    channel_id BIGINT   NOT NULL,
    message_id BIGINT   NOT NULL,
    draw_on    INTEGER,
    tries      INTEGER  NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX daily_boards_to_draw ON daily_boards (draw_on) WHERE draw_on IS NOT NULL;
INSERT INTO daily_boards (guild_id, day, channel_id, message_id, draw_on)
SELECT guild_id, posted_day, board_channel_id, board_message_id, posted_day + 2
FROM daily_channels
WHERE board_channel_id IS NOT NULL AND board_message_id IS NOT NULL;
ALTER TABLE daily_channels DROP COLUMN board_channel_id;
ALTER TABLE daily_channels DROP COLUMN board_message_id
