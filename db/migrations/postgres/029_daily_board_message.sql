-- The message of the last daily board posted in a server, and its channel, to be made final
-- once its day has closed (as ../sqlite/029_daily_board_message.sql).
ALTER TABLE daily_channels ADD COLUMN board_channel_id BIGINT;
ALTER TABLE daily_channels ADD COLUMN board_message_id BIGINT
