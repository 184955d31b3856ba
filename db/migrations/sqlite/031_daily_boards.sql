-- The daily boards posted and not yet made final, each edited to its day's final results
-- once that day's games can no longer be finished. They were two columns of the server's
-- daily channel (029), which a server clearing its channel deleted, and which the next
-- board's claim emptied whether or not the edit then went through: a board kept here stays
-- until it is made final, or is given up for good (a deleted message or channel).
CREATE TABLE daily_boards (
    guild_id   INTEGER NOT NULL,
    day        INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (guild_id, day)
);
CREATE INDEX daily_boards_by_day ON daily_boards (day);
INSERT INTO daily_boards (guild_id, day, channel_id, message_id)
SELECT guild_id, posted_day, board_channel_id, board_message_id
FROM daily_channels
WHERE board_channel_id IS NOT NULL AND board_message_id IS NOT NULL;
ALTER TABLE daily_channels DROP COLUMN board_channel_id;
ALTER TABLE daily_channels DROP COLUMN board_message_id
