-- A daily play keeps the person's own name on Discord beside the name in the server where it
-- began (as ../sqlite/023_daily_world_name.sql): the board across servers shows the former,
-- not one server's nickname. Plays stored before have none: that board shows their server's.
ALTER TABLE daily_plays ADD COLUMN world_name TEXT
